// What an algorithm gets to talk to the outside world while it runs: the cancel token, and
// optional sinks for progress, telemetry and intermediate volumes. The CLI and the GUI only
// reach algorithms through a Job and this context (DESIGN.md, "Threads in the GUI").
#pragma once

#include <string_view>

#include "recon/job/CancelToken.h"
#include "recon/job/IterationSink.h"
#include "recon/job/ProgressSink.h"
#include "recon/job/TelemetrySink.h"

namespace tomowb {

class Volume;

struct IntermediateVolumeSink {
  virtual ~IntermediateVolumeSink() = default;
  // Called on the worker thread; the sink copies what it needs before returning. `valueScale`
  // brings the values to the units of the final result: a backprojection that has summed n of
  // N views publishes N/n, so a preview is displayed with the final window/level; iterates 1.
  virtual void publish(const Volume& volume, std::string_view label, double valueScale) = 0;
  // False when a volume published now would be dropped (the window still holds an unshown one,
  // or its next one is not due yet). Producers whose publication costs (a GPU download) ask
  // first; the default takes every volume.
  virtual bool wantsVolumeNow() const { return true; }
};

class JobContext {
 public:
  JobContext() : cancel_(&ownToken_) {}
  explicit JobContext(const CancelToken& cancel, ProgressSink* progress = nullptr,
                      TelemetrySink* telemetry = nullptr,
                      IntermediateVolumeSink* intermediates = nullptr)
      : cancel_(&cancel),
        progress_(progress),
        telemetry_(telemetry),
        intermediates_(intermediates) {}
  ~JobContext() = default;
  JobContext(const JobContext&) = delete;
  JobContext& operator=(const JobContext&) = delete;
  JobContext(JobContext&&) = delete;
  JobContext& operator=(JobContext&&) = delete;

  const CancelToken& cancelToken() const noexcept { return *cancel_; }
  void throwIfCancelled() const { cancel_->throwIfRequested(); }
  // "Stop and keep the current iterate" (CancelToken.h): iterative solvers end after the
  // iteration in progress and return its iterate.
  bool stopRequested() const noexcept { return cancel_->stopRequested(); }

  void reportProgress(std::string_view stage, double fraction) const {
    if (progress_) progress_->report(stage, fraction);
  }
  void publishTelemetry(const TelemetryEvent& event) const {
    if (telemetry_) telemetry_->publish(event);
  }
  // Iterative algorithms report each iteration here (optional).
  void setIterationSink(IterationSink* sink) noexcept { iterations_ = sink; }
  void reportIteration(const IterationRecord& record) const {
    if (iterations_) iterations_->iterationDone(record);
  }

  bool wantsIntermediates() const noexcept { return intermediates_ != nullptr; }
  // Whether a volume published now would be taken (see IntermediateVolumeSink::wantsVolumeNow).
  bool intermediateWantedNow() const {
    return intermediates_ != nullptr && intermediates_->wantsVolumeNow();
  }
  void publishIntermediate(const Volume& volume, std::string_view label,
                           double valueScale = 1.0) const {
    if (intermediates_) intermediates_->publish(volume, label, valueScale);
  }

 private:
  CancelToken ownToken_;
  const CancelToken* cancel_;
  ProgressSink* progress_ = nullptr;
  TelemetrySink* telemetry_ = nullptr;
  IntermediateVolumeSink* intermediates_ = nullptr;
  IterationSink* iterations_ = nullptr;
};

// Every algorithm runs as a Job: construct it with its inputs and parameters, run it with a
// context, then take its result. run() throws Cancelled when the token is set.
class Job {
 public:
  virtual ~Job() = default;
  virtual std::string_view name() const = 0;
  virtual void run(JobContext& context) = 0;
};

}  // namespace tomowb
