// RunController: see the header. One std::thread per running run; everything the worker says
// reaches the GUI thread through QMetaObject::invokeMethod(..., Qt::QueuedConnection) with the
// controller as context, so nothing is delivered after the controller is gone (its destructor
// cancels and joins the worker first).
#include "gui/core/RunController.h"

#ifdef __linux__
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

#include <QCoreApplication>
#include <QDeadlineTimer>
#include <QElapsedTimer>
#include <QMetaObject>
#include <QThread>
#include <algorithm>
#include <chrono>
#include <exception>
#include <mutex>
#include <utility>

#include "recon/core/Error.h"

namespace tomowb::gui {

namespace {

using Clock = std::chrono::steady_clock;

double secondsBetween(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

// Progress is posted at most this often (the final 100 % always goes through).
constexpr double kProgressIntervalSeconds = 0.2;
// A preview copy may cost at most this share of the time between two previews, so that live
// slices slow a run by a few per cent at most (issue #5, point 6) and still arrive every half
// second for a 512^3 volume (a 40 ms copy on 16 threads; issue #21, point 9).
constexpr double kMaxPreviewCostShare = 0.1;

// Stages that differ only in their numbers ("iteration 3/50", "iteration 4/50") are one stage
// for throttling and the log: the text up to its first digit.
QString stageFamily(const QString& stage) {
  for (qsizetype i = 0; i < stage.size(); ++i)
    if (stage[i].isDigit()) return stage.left(i).trimmed();
  return stage;
}

// The run's threads (this one and the OpenMP team it creates, which inherits its nice value)
// yield to the GUI thread: on a machine with few cores the views and plots would otherwise wait
// for the run's threads, and the window would stall. The GUI uses little CPU, so the run loses
// little.
void lowerThreadPriority() {
#ifdef __linux__
  constexpr int kRunNiceness = 10;
  setpriority(PRIO_PROCESS, static_cast<id_t>(syscall(SYS_gettid)), kRunNiceness);
#endif
}

int registerMetaTypes() {
  qRegisterMetaType<tomowb::gui::TelemetrySample>("tomowb::gui::TelemetrySample");
  qRegisterMetaType<std::shared_ptr<const tomowb::Volume>>("std::shared_ptr<const tomowb::Volume>");
  qRegisterMetaType<tomowb::IterationRecord>("tomowb::IterationRecord");
  return 0;
}

}  // namespace

QString toString(RunState state) {
  switch (state) {
    case RunState::Queued:
      return QStringLiteral("queued");
    case RunState::Running:
      return QStringLiteral("running");
    case RunState::Finished:
      return QStringLiteral("finished");
    case RunState::Failed:
      return QStringLiteral("failed");
    case RunState::Cancelled:
      return QStringLiteral("cancelled");
  }
  return QStringLiteral("unknown");
}

// The worker side of one run: the sinks the core job talks to, and the thread.
class RunController::Worker : public ProgressSink,
                              public TelemetrySink,
                              public IntermediateVolumeSink,
                              public IterationSink {
 public:
  Worker(RunController* controller, int id, RunSpec spec, int previewIntervalMs)
      : controller_(controller),
        id_(id),
        spec_(std::move(spec)),
        previewIntervalSeconds_(previewIntervalMs / 1000.0) {}
  ~Worker() override { join(); }
  Worker(const Worker&) = delete;
  Worker& operator=(const Worker&) = delete;

  void start() {
    started_ = Clock::now();
    thread_ = std::thread([this] { run(); });
  }
  void requestCancel() { token_.request(); }
  void requestStop() { token_.requestStop(); }
  bool stopRequested() const { return token_.stopRequested(); }
  void join() {
    if (thread_.joinable()) thread_.join();
  }
  void previewShown() { previewPending_.store(false); }
  bool ended() const { return ended_.load(); }
  int id() const { return id_; }

  void report(std::string_view stage, double fraction) override {
    const auto now = Clock::now();
    const bool last = fraction >= 1.0;
    const QString stageText = QString::fromUtf8(stage.data(), static_cast<qsizetype>(stage.size()));
    const QString family = stageFamily(stageText);
    if (!last && family == lastStage_ &&
        secondsBetween(lastProgress_, now) < kProgressIntervalSeconds)
      return;
    lastProgress_ = now;
    lastStage_ = family;
    const double elapsed = secondsBetween(started_, now);
    const double remaining = fraction > 0.02 ? elapsed * (1.0 - fraction) / fraction : -1.0;
    const int id = id_;
    QMetaObject::invokeMethod(
        controller_,
        [c = controller_, id, stageText, fraction, elapsed, remaining] {
          c->onProgress(id, stageText, fraction, elapsed, remaining);
        },
        Qt::QueuedConnection);
  }

  void publish(const TelemetryEvent& event) override {
    TelemetrySample sample{secondsBetween(started_, Clock::now()), event};
    const int id = id_;
    QMetaObject::invokeMethod(
        controller_, [c = controller_, id, sample] { c->onTelemetry(id, sample); },
        Qt::QueuedConnection);
  }

  // Kept until the GUI takes them; a delivery is posted only when none is on its way, so however
  // fast the iterations come, the event loop sees at most one of these at a time.
  void iterationDone(const IterationRecord& record) override {
    std::lock_guard lock(iterationMutex_);
    pendingIterations_.push_back(record);
    if (iterationDeliveryPosted_) return;
    iterationDeliveryPosted_ = true;
    const int id = id_;
    QMetaObject::invokeMethod(
        controller_, [c = controller_, id] { c->onIterations(id); }, Qt::QueuedConnection);
  }
  std::vector<IterationRecord> takeIterations() {
    std::lock_guard lock(iterationMutex_);
    iterationDeliveryPosted_ = false;
    return std::exchange(pendingIterations_, {});
  }

  bool wantsVolumeNow() const override {
    return previewIntervalSeconds_ >= 0 && !previewPending_.load() &&
           Clock::now() >= nextPreviewAllowed_;
  }

  void publish(const Volume& volume, std::string_view label, double valueScale) override {
    const auto now = Clock::now();
    if (previewIntervalSeconds_ < 0) return;                          // previews are off
    if (previewPending_.load() || now < nextPreviewAllowed_) return;  // never wait for the GUI
    const auto copyStart = Clock::now();
    // Scaled into the final units so previews share the result's window/level. The run's own
    // threads are idle between blocks, so the scaled copy uses them all.
    auto scaled = std::make_shared<Volume>(volume.shape(), volume.voxelSizeMm(), volume.originMm());
    const float scale = static_cast<float>(valueScale);
    const float* in = volume.data();
    float* out = scaled->data();
    const std::int64_t count = volume.voxelCount();
#pragma omp parallel for schedule(static)
    for (std::int64_t i = 0; i < count; ++i) out[i] = in[i] * scale;
    std::shared_ptr<const Volume> copy = std::move(scaled);
    const double copySeconds = secondsBetween(copyStart, Clock::now());
    nextPreviewAllowed_ =
        now + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(
                  std::max(previewIntervalSeconds_, copySeconds / kMaxPreviewCostShare)));
    previewPending_.store(true);
    const QString text = QString::fromUtf8(label.data(), static_cast<qsizetype>(label.size()));
    const int id = id_;
    QMetaObject::invokeMethod(
        controller_,
        [c = controller_, id, copy = std::move(copy), text] { c->onPreview(id, copy, text); },
        Qt::QueuedConnection);
  }

 private:
  void run() {
    lowerThreadPriority();
    bool cancelled = false;
    QString error;
    std::shared_ptr<Volume> result;
    nlohmann::json report = nlohmann::json::object();
    try {
      JobContext context(token_, this, this, this);
      context.setIterationSink(this);
      result = spec_.execute(context, report);
      if (token_.requested()) cancelled = true;  // finished, but the user asked to stop
    } catch (const Cancelled&) {
      cancelled = true;
    } catch (const std::bad_alloc&) {
      error = QStringLiteral("out of memory: the run needs more host memory than is free");
    } catch (const std::exception& e) {
      error = QString::fromStdString(e.what());
    }
    if (cancelled || !error.isEmpty()) result.reset();  // no partial output, ever
    ended_.store(true);  // a preview still queued is stale now: the result follows
    const double seconds = secondsBetween(started_, Clock::now());
    const int id = id_;
    QMetaObject::invokeMethod(
        controller_,
        [c = controller_, id, cancelled, error, result = std::move(result),
         report = std::move(report),
         seconds] { c->onWorkerDone(id, cancelled, error, result, report, seconds); },
        Qt::QueuedConnection);
  }

  RunController* controller_;
  int id_;
  RunSpec spec_;
  double previewIntervalSeconds_;
  CancelToken token_;
  std::thread thread_;
  Clock::time_point started_;
  Clock::time_point lastProgress_{};
  QString lastStage_;
  Clock::time_point nextPreviewAllowed_{};
  std::atomic<bool> previewPending_{false};
  std::atomic<bool> ended_{false};
  std::mutex iterationMutex_;
  std::vector<IterationRecord> pendingIterations_;  // guarded by iterationMutex_
  bool iterationDeliveryPosted_ = false;            // guarded by iterationMutex_
};

RunController::RunController(QObject* parent) : QObject(parent) {
  static const int registered = registerMetaTypes();
  (void)registered;
}

RunController::~RunController() {
  queue_.clear();
  if (worker_) {
    worker_->requestCancel();
    worker_->join();
    worker_.reset();
  }
}

int RunController::enqueue(RunSpec spec) {
  const int id = nextId_++;
  RunInfo info;
  info.id = id;
  info.spec = std::move(spec);
  info.queuedAt = QDateTime::currentDateTime();
  runs_.emplace(id, std::move(info));
  queue_.push_back(id);
  appendLog(id, QStringLiteral("queued: %1").arg(runs_.at(id).spec.title));
  emit runQueued(id);
  emit queueChanged();
  if (runningId_ < 0) startNext();
  return id;
}

bool RunController::cancel(int id) {
  auto it = runs_.find(id);
  if (it == runs_.end()) return false;
  RunInfo& info = it->second;
  if (info.state == RunState::Queued) {
    queue_.erase(std::remove(queue_.begin(), queue_.end(), id), queue_.end());
    info.state = RunState::Cancelled;
    info.finishedAt = QDateTime::currentDateTime();
    appendLog(id, QStringLiteral("removed from the queue"));
    emit runCancelled(id);
    emit queueChanged();
    return true;
  }
  if (info.state == RunState::Running && worker_ && worker_->id() == id) {
    worker_->requestCancel();
    appendLog(id, QStringLiteral("cancel requested"));
    return true;
  }
  return false;
}

bool RunController::stopAndKeep(int id) {
  if (!canStopAndKeep(id)) return false;
  worker_->requestStop();
  appendLog(id, QStringLiteral("stop requested: the iterate after the current iteration is kept"));
  return true;
}

bool RunController::canStopAndKeep(int id) const {
  const auto it = runs_.find(id);
  return it != runs_.end() && it->second.state == RunState::Running && it->second.spec.iterative &&
         worker_ && worker_->id() == id && !worker_->stopRequested();
}

bool RunController::moveQueued(int id, int delta) {
  auto it = std::find(queue_.begin(), queue_.end(), id);
  if (it == queue_.end()) return false;
  const auto from = static_cast<std::ptrdiff_t>(it - queue_.begin());
  const auto to =
      std::clamp<std::ptrdiff_t>(from + delta, 0, static_cast<std::ptrdiff_t>(queue_.size()) - 1);
  if (to == from) return true;
  queue_.erase(it);
  queue_.insert(queue_.begin() + to, id);
  emit queueChanged();
  return true;
}

bool RunController::forget(int id) {
  auto it = runs_.find(id);
  if (it == runs_.end()) return false;
  const RunState state = it->second.state;
  if (state == RunState::Queued || state == RunState::Running) return false;
  runs_.erase(it);
  emit runForgotten(id);
  emit queueChanged();
  return true;
}

const RunInfo* RunController::run(int id) const {
  auto it = runs_.find(id);
  return it == runs_.end() ? nullptr : &it->second;
}

std::vector<int> RunController::runIds() const {
  std::vector<int> ids;
  for (const auto& [id, info] : runs_)
    if (info.state != RunState::Queued && info.state != RunState::Running) ids.push_back(id);
  if (runningId_ >= 0) ids.push_back(runningId_);
  ids.insert(ids.end(), queue_.begin(), queue_.end());
  return ids;
}

std::vector<int> RunController::queuedIds() const {
  return {queue_.begin(), queue_.end()};
}

bool RunController::waitForIdle(int timeoutMs) {
  QDeadlineTimer deadline(timeoutMs);
  while (busy()) {
    if (deadline.hasExpired()) return false;
    QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
    QThread::msleep(2);
  }
  return true;
}

void RunController::startNext() {
  if (runningId_ >= 0 || queue_.empty()) return;
  const int id = queue_.front();
  queue_.pop_front();
  RunInfo& info = runs_.at(id);
  info.state = RunState::Running;
  info.startedAt = QDateTime::currentDateTime();
  runningId_ = id;
  worker_ = std::make_unique<Worker>(this, id, info.spec, previewIntervalMs_);
  appendLog(id, QStringLiteral("started"));
  emit runStarted(id);
  emit queueChanged();
  worker_->start();
}

void RunController::onProgress(int id, const QString& stage, double fraction, double elapsed,
                               double remaining) {
  auto it = runs_.find(id);
  if (it == runs_.end() || it->second.state != RunState::Running) return;
  // Numbered stages ("iteration 3/50") are logged once; iterations log their own lines.
  if (stageFamily(it->second.stage) != stageFamily(stage) && !stage.isEmpty())
    appendLog(id, QStringLiteral("stage: %1").arg(stage));
  it->second.stage = stage;
  it->second.fraction = fraction;
  emit runProgress(id, stage, fraction, elapsed, remaining);
}

void RunController::onTelemetry(int id, const TelemetrySample& sample) {
  auto it = runs_.find(id);
  if (it == runs_.end()) return;
  it->second.telemetry.push_back(sample);
  emit runTelemetry(id, sample);
}

void RunController::onPreview(int id, const std::shared_ptr<const Volume>& volume,
                              const QString& label) {
  // Let the worker send the next one once this one has been handed over.
  if (worker_ && worker_->id() == id) {
    worker_->previewShown();
    // The last preview equals the result, which is right behind it: showing both would make
    // the views draw the same volume twice.
    if (worker_->ended()) return;
  }
  auto it = runs_.find(id);
  if (it == runs_.end() || it->second.state != RunState::Running) return;
  emit runPreview(id, volume, label);
}

void RunController::onIterations(int id) {
  if (!worker_ || worker_->id() != id) return;
  auto it = runs_.find(id);
  for (const IterationRecord& record : worker_->takeIterations()) {
    if (it == runs_.end()) continue;
    it->second.iterations.push_back(record);
    appendLog(id, QStringLiteral("%1 iteration %2/%3: relative residual %4, weighted %5 (%6 s)")
                      .arg(QString::fromStdString(record.algorithm))
                      .arg(record.iteration)
                      .arg(record.maxIterations)
                      .arg(record.relativeResidual, 0, 'g', 4)
                      .arg(record.weightedResidualNorm, 0, 'g', 4)
                      .arg(record.seconds, 0, 'f', 3));
    emit runIteration(id, record);
  }
}

void RunController::onWorkerDone(int id, bool cancelled, const QString& error,
                                 std::shared_ptr<Volume> result, const nlohmann::json& report,
                                 double seconds) {
  bool stoppedByUser = false;
  if (worker_ && worker_->id() == id) {
    stoppedByUser = worker_->stopRequested();
    worker_->join();
    onIterations(id);  // anything the worker reported after the last delivery
    worker_.reset();
  }
  runningId_ = -1;
  auto it = runs_.find(id);
  if (it != runs_.end()) {
    RunInfo& info = it->second;
    info.finishedAt = QDateTime::currentDateTime();
    info.seconds = seconds;
    info.state = cancelled          ? RunState::Cancelled
                 : !error.isEmpty() ? RunState::Failed
                                    : RunState::Finished;
    info.error = error;
    if (info.state == RunState::Finished) {
      info.result = std::move(result);
      info.fraction = 1.0;
    }
    info.record = {
        {"software", {{"name", "tomowb"}, {"version", TOMOWB_VERSION}}},
        {"run", id},
        {"title", info.spec.title.toStdString()},
        {"algorithm", info.spec.algorithm.toStdString()},
        {"parameters", info.spec.parameters},
        {"state", toString(info.state).toStdString()},
        {"queuedAt", info.queuedAt.toString(Qt::ISODateWithMs).toStdString()},
        {"startedAt", info.startedAt.toString(Qt::ISODateWithMs).toStdString()},
        {"finishedAt", info.finishedAt.toString(Qt::ISODateWithMs).toStdString()},
        {"seconds", seconds},
        {"report", report},
    };
    if (!error.isEmpty()) info.record["error"] = error.toStdString();
    const std::string stopReason = report.is_object() ? report.value("stopReason", "") : "";
    if (stoppedByUser && info.state == RunState::Finished)
      info.record["stoppedByUser"] = stopReason.rfind("stopped by the user", 0) == 0;
    switch (info.state) {
      case RunState::Finished:
        if (info.record.value("stoppedByUser", false))
          appendLog(id, QString::fromStdString(stopReason));
        appendLog(id, QStringLiteral("finished in %1 s").arg(seconds, 0, 'f', 2));
        emit runFinished(id);
        break;
      case RunState::Cancelled:
        appendLog(id,
                  QStringLiteral("cancelled after %1 s; no result kept").arg(seconds, 0, 'f', 2));
        emit runCancelled(id);
        break;
      default:
        appendLog(id, QStringLiteral("failed: %1").arg(error));
        emit runFailed(id, error);
        break;
    }
  }
  emit queueChanged();
  startNext();
}

int RunController::addEndedRun(RunSpec spec, std::shared_ptr<const Volume> result,
                               nlohmann::json record, double seconds, const QString& recordPath) {
  const int id = nextId_++;
  RunInfo& info = runs_[id];
  info.id = id;
  info.spec = std::move(spec);
  info.state = RunState::Finished;
  info.queuedAt = info.startedAt = info.finishedAt = QDateTime::currentDateTime();
  info.fraction = 1.0;
  info.seconds = seconds;
  info.result = std::move(result);
  info.record = std::move(record);
  info.recordPath = recordPath;
  appendLog(id, QStringLiteral("opened from %1").arg(recordPath));
  emit queueChanged();
  emit runFinished(id);
  return id;
}

void RunController::setRecordPath(int id, const QString& path) {
  auto it = runs_.find(id);
  if (it != runs_.end()) it->second.recordPath = path;
}

void RunController::appendLog(int id, const QString& line) {
  auto it = runs_.find(id);
  const QString stamped =
      QStringLiteral("%1 [run %2] %3")
          .arg(QDateTime::currentDateTime().toString(QStringLiteral("hh:mm:ss.zzz")))
          .arg(id)
          .arg(line);
  if (it != runs_.end()) it->second.log.push_back(stamped);
  emit logLine(id, stamped);
}

}  // namespace tomowb::gui
