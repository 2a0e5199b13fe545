// SweepRunner: see the header. One std::thread per sweep; what the worker says reaches the GUI
// thread through QMetaObject::invokeMethod(..., Qt::QueuedConnection) with the runner as context,
// so nothing is delivered after the runner is gone (its destructor cancels and joins first).
#include "gui/core/SweepRunner.h"

#include <QMetaObject>
#include <algorithm>
#include <chrono>
#include <exception>
#include <mutex>
#include <string>
#include <thread>
#include <utility>

#include "recon/catalog/AlgorithmSweep.h"
#include "recon/core/Error.h"

namespace tomowb::gui {

namespace {
// Progress is posted at most this often (the last report of a stage always goes through).
constexpr auto kProgressInterval = std::chrono::milliseconds(100);
}  // namespace

class SweepRunner::Worker : public ProgressSink {
 public:
  Worker(SweepRunner* owner, Work work) : owner_(owner), work_(std::move(work)) {}
  ~Worker() override { join(); }
  Worker(const Worker&) = delete;
  Worker& operator=(const Worker&) = delete;

  void start(const std::shared_ptr<Worker>& self) {
    thread_ = std::thread([this, self] { run(self); });
  }
  void requestCancel() { token_.request(); }
  void join() {
    if (thread_.joinable() && thread_.get_id() != std::this_thread::get_id()) thread_.join();
  }

  // The sweep maps every stage to its fraction of the whole sweep ("variant 3 of 9: fdk.bp.tex
  // (run 2 of 5) · backproject", qa::sweepStage): a new variant or run is posted at once, the
  // stages inside a run at most every kProgressInterval.
  void report(std::string_view stage, double fraction) override {
    const std::string_view head = stage.substr(0, stage.find(" · "));
    const bool newStep = head != lastHead_;
    if (newStep) lastHead_ = std::string(head);
    sweepFraction_ = std::max(sweepFraction_, fraction);
    const auto now = std::chrono::steady_clock::now();
    if (!newStep && now - lastPost_ < kProgressInterval) return;
    lastPost_ = now;
    const QString text = QString::fromUtf8(stage.data(), static_cast<qsizetype>(stage.size()));
    const double f = sweepFraction_;
    QMetaObject::invokeMethod(
        owner_, [owner = owner_, text, f] { emit owner->progress(text, f); }, Qt::QueuedConnection);
  }

  std::shared_ptr<const qa::SweepResult> result;
  QString error;
  bool wasCancelled = false;

 private:
  void run(const std::shared_ptr<Worker>& self) {
    try {
      JobContext context(token_, this);
      result = std::make_shared<const qa::SweepResult>(work_(context));
    } catch (const Cancelled&) {
      wasCancelled = true;
    } catch (const std::exception& e) {
      error = QString::fromStdString(e.what());
    }
    QMetaObject::invokeMethod(
        owner_, [owner = owner_, self] { owner->onDone(self); }, Qt::QueuedConnection);
  }

  SweepRunner* owner_;
  Work work_;
  CancelToken token_;
  std::thread thread_;
  double sweepFraction_ = 0;
  std::string lastHead_;
  std::chrono::steady_clock::time_point lastPost_{};
};

SweepRunner::SweepRunner(QObject* parent) : QObject(parent) {
  qRegisterMetaType<std::shared_ptr<const tomowb::qa::SweepResult>>();
}

SweepRunner::~SweepRunner() {
  if (worker_) {
    worker_->requestCancel();
    worker_->join();
  }
}

SweepRunner::Work SweepRunner::algorithmSweep(const catalog::AlgorithmDescriptor& algorithm,
                                              std::shared_ptr<const ProjectionStack> projections,
                                              nlohmann::json parameters, qa::SweepOptions options) {
  return [algorithm, projections = std::move(projections), parameters = std::move(parameters),
          options = std::move(options)](JobContext& context) {
    return catalog::sweepAlgorithm(algorithm, *projections, parameters, options, context);
  };
}

bool SweepRunner::start(Work work) {
  if (running_) return false;
  if (worker_) worker_->join();
  worker_ = std::make_shared<Worker>(this, std::move(work));
  running_ = true;
  worker_->start(worker_);
  return true;
}

void SweepRunner::cancel() {
  if (running_ && worker_) worker_->requestCancel();
}

void SweepRunner::onDone(const std::shared_ptr<Worker>& worker) {
  if (worker != worker_) return;
  worker->join();
  running_ = false;
  if (worker->wasCancelled)
    emit cancelled();
  else if (!worker->error.isEmpty())
    emit failed(worker->error);
  else
    emit finished(worker->result);
}

}  // namespace tomowb::gui
