// RunController: runs reconstructions one at a time on a worker thread, with a queue behind the
// running one (DESIGN.md, "Threads in the GUI"). The worker only talks to the GUI through queued
// signals, throttled so the event loop stays responsive: progress at most 20 times a second,
// intermediate volumes at most `previewIntervalMs` apart and dropped (never waited for) while the
// GUI still holds an unshown one, iterations of iterative algorithms (one IterationRecord each)
// batched so that at most one delivery is on its way (none is lost: the GUI emits one
// runIteration per record). Cancel is cooperative through the core's CancelToken; a cancelled or
// failed run keeps no result. Needs only QtCore, so it is tested without a display.
#pragma once

#include <QDateTime>
#include <QObject>
#include <QString>
#include <QStringList>
#include <atomic>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <thread>
#include <vector>

#include "recon/core/Volume.h"
#include "recon/job/IterationSink.h"
#include "recon/job/JobContext.h"
#include "recon/job/TelemetrySink.h"

namespace tomowb::gui {

enum class RunState { Queued, Running, Finished, Failed, Cancelled };
QString toString(RunState state);

// What a run computes. `execute` runs on the worker thread: it builds and runs a core Job with
// the context it is given, fills `report` (JSON for the run record) and returns the volume.
struct RunSpec {
  QString title;              // one line for the run list: "FDK 256^3 fdk.bp.cpu"
  QString algorithm;          // "fdk", "wbp", "sirt", "os-sirt", "sart"
  nlohmann::json parameters;  // everything needed to run it again (saved in the run record)
  std::function<std::shared_ptr<Volume>(JobContext& context, nlohmann::json& report)> execute;
  // Iterates (SIRT, CGLS, PWLS, OSEM...): "Stop and keep" may end it after the iteration in
  // progress with that iterate as its result (RunController::stopAndKeep).
  bool iterative = false;
};

struct TelemetrySample {
  double elapsedSeconds = 0;  // since the run started
  TelemetryEvent event;
};

struct RunInfo {
  int id = 0;
  RunSpec spec;
  RunState state = RunState::Queued;
  QDateTime queuedAt, startedAt, finishedAt;
  QString stage;                         // last progress stage
  double fraction = 0;                   // 0..1
  double seconds = 0;                    // wall time of the run once ended
  QString error;                         // for Failed
  std::shared_ptr<const Volume> result;  // for Finished
  nlohmann::json record;                 // run record: parameters, report, timings, device
  QString recordPath;  // the qa::RunRecord file written for it (or opened), empty if none
  std::vector<TelemetrySample> telemetry;
  std::vector<IterationRecord> iterations;  // iterative algorithms: one per iteration done
  QStringList log;
};

class RunController : public QObject {
  Q_OBJECT

 public:
  explicit RunController(QObject* parent = nullptr);
  ~RunController() override;  // cancels the running run and waits for its thread
  RunController(const RunController&) = delete;
  RunController& operator=(const RunController&) = delete;

  // Queues a run; it starts at once when nothing else runs. Returns its id.
  int enqueue(RunSpec spec);
  // Queued: removed from the queue (state Cancelled). Running: asks it to stop; it ends as
  // Cancelled within one slab or view block. Returns false for an ended or unknown run.
  bool cancel(int id);
  // Running and iterative (RunSpec::iterative): asks it to end after the iteration in progress
  // and keep that iterate; it ends as Finished, its record saying "stopped by the user after k of
  // N iterations" (stopReason) and "stoppedByUser": true. Returns false otherwise.
  bool stopAndKeep(int id);
  // True while `id` runs and can be stopped with its iterate kept (and was not asked already).
  bool canStopAndKeep(int id) const;
  // Moves a queued run `delta` places (negative: earlier). Returns false if it is not queued.
  bool moveQueued(int id, int delta);
  // Forgets an ended run (and its result). Returns false for queued/running/unknown runs.
  bool forget(int id);
  // Adds a run that ended elsewhere (an opened run record, GuiRunRecords.h) as Finished, with its
  // result (may be null), record and wall time; it never runs. Emits queueChanged and
  // runFinished like a run that finished here. Returns its id.
  int addEndedRun(RunSpec spec, std::shared_ptr<const Volume> result, nlohmann::json record,
                  double seconds, const QString& recordPath);
  // Where the run's qa::RunRecord was written (shown by the run list's "Show record…").
  void setRecordPath(int id, const QString& path);

  const RunInfo* run(int id) const;
  std::vector<int> runIds() const;     // every known run: ended, running, then queued in order
  std::vector<int> queuedIds() const;  // queued, in the order they will start
  int runningId() const { return runningId_; }
  bool busy() const { return runningId_ >= 0 || !queue_.empty(); }

  // Shortest time between two previews of the next runs; negative: no previews at all.
  void setPreviewIntervalMs(int ms) { previewIntervalMs_ = ms; }
  int previewIntervalMs() const { return previewIntervalMs_; }

  // Processes events until nothing runs or is queued, or the timeout passes (tests, shutdown).
  bool waitForIdle(int timeoutMs);

 signals:
  void runQueued(int id);
  void runStarted(int id);
  void runProgress(int id, const QString& stage, double fraction, double elapsedSeconds,
                   double remainingSeconds);  // remaining < 0: not yet known
  void runTelemetry(int id, const tomowb::gui::TelemetrySample& sample);
  void runPreview(int id, std::shared_ptr<const tomowb::Volume> volume, const QString& label);
  // One per iteration of an iterative run, in order (also kept in RunInfo::iterations).
  void runIteration(int id, const tomowb::IterationRecord& record);
  void runFinished(int id);
  void runFailed(int id, const QString& message);
  void runCancelled(int id);
  void runForgotten(int id);
  void queueChanged();
  void logLine(int id, const QString& line);

 private:
  class Worker;
  void startNext();
  void onProgress(int id, const QString& stage, double fraction, double elapsed, double remaining);
  void onTelemetry(int id, const TelemetrySample& sample);
  void onPreview(int id, const std::shared_ptr<const Volume>& volume, const QString& label);
  void onIterations(int id);
  void onWorkerDone(int id, bool cancelled, const QString& error, std::shared_ptr<Volume> result,
                    const nlohmann::json& report, double seconds);
  void appendLog(int id, const QString& line);

  std::map<int, RunInfo> runs_;
  std::deque<int> queue_;
  int nextId_ = 1;
  int runningId_ = -1;
  int previewIntervalMs_ = 500;  // 2 previews a second: live enough, cheap enough (bench/results)
  std::unique_ptr<Worker> worker_;
};

}  // namespace tomowb::gui

Q_DECLARE_METATYPE(tomowb::gui::TelemetrySample)
Q_DECLARE_METATYPE(std::shared_ptr<const tomowb::Volume>)
Q_DECLARE_METATYPE(tomowb::IterationRecord)
