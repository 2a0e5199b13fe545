// SweepRunner: runs a variant sweep (catalog::sweepAlgorithm over qa::sweepFdk / qa::sweepSirt,
// issue #9, point 3) on a worker thread for the sweep dialog, as RunController runs
// reconstructions: the core job gets a JobContext with a CancelToken and a ProgressSink whose
// reports reach the GUI thread as queued, throttled signals; exceptions stop at the worker and come
// back as failed(message); cancel is cooperative (the sweep checks the token once per slab or view
// block) and keeps nothing. The sweep keeps only the centre slice of each row's result, so a sweep
// of a large input holds the input, the reference and one result at a time. Needs only QtCore.
#pragma once

#include <QObject>
#include <QString>
#include <functional>
#include <memory>

#include "recon/catalog/AlgorithmCatalog.h"
#include "recon/data/ProjectionStack.h"
#include "recon/fdk/Fdk.h"
#include "recon/iterative/IterativeReconstruction.h"
#include "recon/job/JobContext.h"
#include "recon/qa/VariantSweep.h"

namespace tomowb::gui {

class SweepRunner : public QObject {
  Q_OBJECT

 public:
  using Work = std::function<qa::SweepResult(JobContext& context)>;

  explicit SweepRunner(QObject* parent = nullptr);
  ~SweepRunner() override;  // cancels a running sweep and waits for its thread
  SweepRunner(const SweepRunner&) = delete;
  SweepRunner& operator=(const SweepRunner&) = delete;

  // The sweep of an algorithm's variants (catalog::sweepAlgorithm) on shared (not copied)
  // projections, with the algorithm's parameters as its descriptor takes them.
  static Work algorithmSweep(const catalog::AlgorithmDescriptor& algorithm,
                             std::shared_ptr<const ProjectionStack> projections,
                             nlohmann::json parameters, qa::SweepOptions options);

  // Starts `work` on a worker thread; returns false (and does nothing) while one runs.
  bool start(Work work);
  // Asks the running sweep to stop; cancelled() follows when it has.
  void cancel();
  bool busy() const { return running_; }

 signals:
  // stage: "sweep fdk.bp.cpu" (the row being measured) or the row's own stage; fraction 0..1
  // over the whole sweep.
  void progress(const QString& stage, double fraction);
  void finished(std::shared_ptr<const tomowb::qa::SweepResult> result);
  void failed(const QString& message);
  void cancelled();

 private:
  class Worker;
  void onDone(const std::shared_ptr<Worker>& worker);

  std::shared_ptr<Worker> worker_;
  bool running_ = false;
};

}  // namespace tomowb::gui

Q_DECLARE_METATYPE(std::shared_ptr<const tomowb::qa::SweepResult>)
