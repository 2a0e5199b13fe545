// MainWindow's scripted session beyond one run (issue #21, point 9): --device and --variant
// choose the device and kernel of each run (several variants run one after another), then
// --compare opens the compare view on the last two runs, --sweep sweeps the kernel variants on
// the device and --measure writes responsiveness.json (launch to window, first slice, preview
// gaps and event-loop stalls per run, the window/level drag frame rate on the result). Each step
// saves its screenshot into --screenshot-dir. scripts/gui-session.sh drives it.
#include <unistd.h>

#include <QApplication>
#include <QComboBox>
#include <QCoreApplication>
#include <QDir>
#include <QDockWidget>
#include <QFile>
#include <QMouseEvent>
#include <QSpinBox>
#include <QStatusBar>
#include <QTimer>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <numeric>
#include <sstream>
#include <string>

#include "gui/AlgorithmPanel.h"
#include "gui/CompareView.h"
#include "gui/ExportFiles.h"
#include "gui/MainWindow.h"
#include "gui/SweepDialog.h"
#include "gui/ViewArea.h"
#include "gui/core/EventLoopMonitor.h"
#include "gui/core/RunController.h"
#include "recon/device/GpuDevices.h"
#include "render/EventTrace.h"
#include "render/OrthoViews.h"
#include "render/SliceView.h"

namespace tomowb::gui {

double processAgeMs() {
  // Field 22 of /proc/self/stat: the start time in clock ticks after boot; /proc/uptime: now.
  std::ifstream stat("/proc/self/stat");
  std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
  const std::size_t close = text.rfind(')');  // the command name may hold spaces
  if (close == std::string::npos) return -1;
  std::istringstream fields(text.substr(close + 2));
  std::string field;
  for (int i = 3; i <= 22 && fields >> field; ++i) {
  }
  double uptime = 0;
  std::ifstream("/proc/uptime") >> uptime;
  const double ticks = static_cast<double>(sysconf(_SC_CLK_TCK));
  if (field.empty() || ticks <= 0 || uptime <= 0) return -1;
  return 1000.0 * (uptime - std::stod(field) / ticks);
}

namespace {

// Between consecutive previews, and from the run's start to the first one.
double longestPreviewGapMs(const std::vector<double>& times) {
  double longest = 0, last = 0;
  for (double t : times) {
    longest = std::max(longest, t - last);
    last = t;
  }
  return longest;
}

// The slowest events on the GUI thread since the run started (render/EventTrace.h), each with
// the named parts of its work: what to look at when a stall misses its target.
nlohmann::json slowestEventsJson() {
  nlohmann::json events = nlohmann::json::array();
  for (const render::EventTrace::TracedEvent& e : render::EventTrace::slowest()) {
    nlohmann::json scopes = nlohmann::json::array();
    for (const render::EventTrace::TracedScope& s : e.scopes)
      scopes.push_back({{"name", s.name}, {"ms", s.ms}, {"depth", s.depth}});
    events.push_back({{"ms", e.ms},
                      {"receiver", e.receiver},
                      {"event", render::eventTypeName(e.eventType)},
                      {"scopes", scopes}});
  }
  return events;
}

}  // namespace

QString MainWindow::startupFileSuffix() const {
  if (startup_.variants.size() < 2) return {};
  return QStringLiteral("-") + startup_.variants[startupVariantIndex_];
}

bool MainWindow::applyStartupDevice(QString* why) {
  if (!startup_.device.isEmpty()) {
    int gpu = -1;
    if (startup_.device == QStringLiteral("gpu")) {
      gpu = cuda::fastestGpu(cuda::listGpuDevices());
      if (gpu < 0) {
        *why = tr("--device gpu: no GPU (%1)").arg(QString::fromStdString(cuda::gpuStatus()));
        return false;
      }
    } else if (startup_.device.startsWith(QStringLiteral("gpu:"))) {
      gpu = startup_.device.mid(4).toInt();
    }
    QString reason;
    if (!algorithmPanel_->setDevice(gpu, &reason)) {
      *why = tr("--device %1: %2").arg(startup_.device, reason);
      return false;
    }
  }
  if (startupVariantIndex_ < startup_.variants.size()) {
    const QString name = startup_.variants[startupVariantIndex_];
    QString reason;
    if (!algorithmPanel_->setVariant(name, &reason)) {
      *why = tr("--variant %1: %2").arg(name, reason);
      return false;
    }
  }
  return true;
}

void MainWindow::afterStartupRun(const std::function<void()>& done) {
  startupRunIds_.push_back(startupRunId_);
  const RunInfo* info = runs_->run(startupRunId_);
  const bool ok = info != nullptr && info->state == RunState::Finished;
  if (ok && startupVariantIndex_ + 1 < startup_.variants.size()) {
    ++startupVariantIndex_;
    startStartupRun();
    return;
  }
  auto measure = [this, done] { startupMeasure(done); };
  auto sweep = [this, measure] { startupSweep(measure); };
  auto compare = [this, sweep] { startupCompare(sweep); };
  // The throughput plot of the last run (on a GPU: the device's own figures), when it is a tab
  // behind the algorithm panel: raised for its screenshot, then the panel again.
  auto* throughput = findChild<QDockWidget*>(QStringLiteral("throughputDock"));
  if (startup_.screenshotDir.isEmpty() || throughput == nullptr) {
    compare();
    return;
  }
  throughput->show();
  throughput->raise();
  QTimer::singleShot(700, this, [this, compare] {
    saveWindowScreenshot(
        QDir(startup_.screenshotDir).filePath(QStringLiteral("tomowb-throughput.png")));
    if (algorithmDock_ != nullptr) algorithmDock_->raise();
    compare();
  });
}

void MainWindow::startupCompare(const std::function<void()>& next) {
  if (!startup_.compare || startupRunIds_.size() < 2) {
    next();
    return;
  }
  const std::vector<int> pair(startupRunIds_.end() - 2, startupRunIds_.end());
  if (!compareView_->compareRunSelection(pair)) {
    std::fprintf(stderr, "tomowb: --compare: runs %d and %d cannot be compared\n", pair[0],
                 pair[1]);
    next();
    return;
  }
  showCompareView();
  // The compare view computes its difference and metrics off the GUI thread: time to draw.
  QTimer::singleShot(2500, this, [this, next] {
    if (!startup_.screenshotDir.isEmpty())
      saveWindowScreenshot(
          QDir(startup_.screenshotDir).filePath(QStringLiteral("tomowb-compare.png")));
    hideCompareView();
    next();
  });
}

void MainWindow::startupSweep(const std::function<void()>& next) {
  if (!startup_.sweep) {
    next();
    return;
  }
  auto* dialog = new SweepDialog(*workspace_, *algorithmPanel_, this);
  dialog->setAttribute(Qt::WA_DeleteOnClose);
  const bool gpu = algorithmPanel_->gpuIndex() >= 0;
  dialog->deviceChoice().setCurrentIndex(gpu ? SweepDialog::GpuOnly : SweepDialog::CpuOnly);
  dialog->repeats().setValue(5);
  dialog->resize(1500, 800);
  dialog->show();
  QString why;
  if (!dialog->canStart(&why) || !dialog->start()) {
    std::fprintf(stderr, "tomowb: --sweep: %s\n", qPrintable(why));
    dialog->close();
    next();
    return;
  }
  connect(dialog, &SweepDialog::sweepEnded, this, [this, dialog, next] {
    QTimer::singleShot(800, this, [this, dialog, next] {
      if (!startup_.screenshotDir.isEmpty()) {
        const QDir dir(startup_.screenshotDir);
        savePngAtomically(dir.filePath(QStringLiteral("tomowb-sweep.png")), dialog->grab());
        QString error;
        if (dialog->result() &&
            !dialog->exportReportTo(dir.filePath(QStringLiteral("sweep-report")), true, &error))
          std::fprintf(stderr, "tomowb: --sweep: report: %s\n", qPrintable(error));
      }
      dialog->close();
      next();
    });
  });
}

void MainWindow::startupMeasure(const std::function<void()>& next) {
  if (!startup_.measure || startup_.screenshotDir.isEmpty()) {
    next();
    return;
  }
  nlohmann::json report = {
      {"launchToWindowMs", launchToWindowMs_},
      {"launchToFirstSliceMs", firstSliceSinceLaunchMs_},
      {"actionsToFirstSlice", startup_.runAfterLoad ? 2 : -1},  // launch with --demo, Run
      {"runs", nlohmann::json::array()},
  };
  for (const int id : startupRunIds_) {
    const QString path =
        QDir(startup_.screenshotDir).filePath(QStringLiteral("run-summary-%1.json").arg(id));
    QFile file(path);
    if (file.open(QIODevice::ReadOnly))
      report["runs"].push_back(nlohmann::json::parse(file.readAll().toStdString(), nullptr, false));
  }
  // Window/level drag on the volume shown: 60 moves of a left drag in the axial view, each
  // drawn (the three slices and the 3-D view's transfer function, one composition of the
  // window) before the next.
  render::SliceView* axial = viewArea_->sliceViews()[2];
  nlohmann::json drag = nullptr;
  if (viewArea_->volume() && axial->isVisible()) {
    const Volume& v = *viewArea_->volume();
    const QPointF centre(axial->width() / 2.0, axial->height() / 2.0);
    const auto send = [axial](QEvent::Type type, const QPointF& at, Qt::MouseButtons buttons) {
      QMouseEvent event(type, at, axial->mapToGlobal(at), Qt::LeftButton, buttons, Qt::NoModifier);
      QCoreApplication::sendEvent(axial, &event);
    };
    send(QEvent::MouseButtonPress, centre, Qt::LeftButton);
    render::EventTrace::clear();  // what the drag's slowest frames spent their time on
    std::vector<double> frames;
    QElapsedTimer clock;
    for (int i = 1; i <= 60; ++i) {
      clock.restart();
      send(QEvent::MouseMove, centre + QPointF(2.0 * i, 1.0 * (i % 7)), Qt::LeftButton);
      // The views ask for a render (update()); one pass of the event loop paints and composes
      // the window once, as a frame of a real drag does.
      QCoreApplication::sendPostedEvents();
      QCoreApplication::processEvents(QEventLoop::ExcludeUserInputEvents);
      frames.push_back(static_cast<double>(clock.nsecsElapsed()) / 1e6);
    }
    send(QEvent::MouseButtonRelease, centre + QPointF(120, 0), Qt::NoButton);
    const double mean =
        std::accumulate(frames.begin(), frames.end(), 0.0) / static_cast<double>(frames.size());
    drag = {{"volume",
             std::to_string(v.nx()) + "x" + std::to_string(v.ny()) + "x" + std::to_string(v.nz())},
            {"frames", frames.size()},
            {"meanFrameMs", mean},
            {"medianFrameMs", nearestRankPercentile(frames, 50)},
            {"p95FrameMs", nearestRankPercentile(frames, 95)},
            {"maxFrameMs", nearestRankPercentile(frames, 100)},
            {"framesPerSecond", mean > 0 ? 1000.0 / mean : 0.0},
            {"slowestEvents", slowestEventsJson()},
            {"openGl", render::VtkOpenGLWidget::softwareRendering() ? "software" : "hardware"},
            {"glRenderer", render::VtkOpenGLWidget::rendererName()}};
  }
  report["windowLevelDrag"] = drag;
  saveTextAtomically(QDir(startup_.screenshotDir).filePath(QStringLiteral("responsiveness.json")),
                     QString::fromStdString(report.dump(2) + "\n"));
  monitor_->excuse();
  next();
}

nlohmann::json MainWindow::startupRunTimings(int id) const {
  const RunInfo* info = runs_->run(id);
  std::string variant;
  if (info != nullptr) {
    const nlohmann::json& p = info->spec.parameters;
    const auto text = [&p](const char* field) {
      return p.contains(field) && p[field].is_string() ? p[field].get<std::string>() : "";
    };
    variant = !text("variant").empty() ? text("variant")
                                       : text("forwardVariant") + " + " + text("backVariant");
  }
  return {
      {"variant", variant},
      {"gpu", algorithmPanel_->gpuIndex()},
      {"previews", previewTimesMs_.size()},
      {"previewTimesMs", previewTimesMs_},
      {"firstPreviewMs", previewTimesMs_.empty() ? -1.0 : previewTimesMs_.front()},
      {"longestPreviewGapMs", longestPreviewGapMs(previewTimesMs_)},
      {"stallP99Ms", monitor_->stallPercentileMs(99)},
      {"stallP999Ms", monitor_->stallPercentileMs(99.9)},
      {"stallMaxMs", monitor_->maxStallMs()},
      {"stallsOver50Ms", std::count_if(monitor_->stallsMs().begin(), monitor_->stallsMs().end(),
                                       [](double s) { return s > 50; })},
      {"slowestEvents", slowestEventsJson()},
  };
}

}  // namespace tomowb::gui
