// MainWindow's command-line automation: the options of tomowb's command line (open, run an
// algorithm with given iterations and volume size), the screenshots during and after that run,
// the tour of the main docks with CNR ROIs placed on the phantom, the run summary; then quit
// (scripts/screenshots.sh).
#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QCloseEvent>
#include <QDir>
#include <QDockWidget>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QGuiApplication>
#include <QHBoxLayout>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QPalette>
#include <QProgressBar>
#include <QPushButton>
#include <QScreen>
#include <QScrollArea>
#include <QSettings>
#include <QStackedWidget>
#include <QStatusBar>
#include <QStyle>
#include <QStyleFactory>
#include <QStyleHints>
#include <QTimer>
#include <QToolBar>
#include <QUrl>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <numbers>
#include <thread>

#include "gui/AlgorithmPanel.h"
#include "gui/CnrPanel.h"
#include "gui/CompareView.h"
#include "gui/ConsistencyView.h"
#include "gui/ConvergencePanel.h"
#include "gui/DataPanel.h"
#include "gui/ExportFiles.h"
#include "gui/GeometryPanel.h"
#include "gui/MainWindow.h"
#include "gui/PetAlgorithmPanel.h"
#include "gui/ProjectionBrowser.h"
#include "gui/RunListPanel.h"
#include "gui/RunLogPanel.h"
#include "gui/SpecimenRois.h"
#include "gui/SweepDialog.h"
#include "gui/ThroughputPanel.h"
#include "gui/ViewArea.h"
#include "gui/core/CatalogRun.h"
#include "gui/core/DemoData.h"
#include "gui/core/EventLoopMonitor.h"
#include "gui/core/FdkRun.h"
#include "gui/core/GuiRunRecords.h"
#include "gui/core/IterativeRun.h"
#include "gui/core/RunController.h"
#include "gui/core/Workspace.h"
#include "recon/core/Error.h"
#include "recon/core/MemoryBudget.h"
#include "recon/device/GpuDevices.h"
#include "recon/io/VolumeFiles.h"
#include "recon/job/GpuMonitor.h"
#include "render/EventTrace.h"
#include "render/SliceRoi.h"
#ifdef TOMOWB_HAVE_DICOM
#include "gui/DicomExportDialog.h"
#include "recon/io/GeometryJson.h"
#include "recon/io/dicom/Sha256.h"
#endif

namespace tomowb::gui {

void MainWindow::takeDuringRunScreenshot() {
  const render::EventTrace::Scope traced("MainWindow::takeDuringRunScreenshot");
  const QDir dir(startup_.screenshotDir);
  saveWindowScreenshot(dir.filePath(QStringLiteral("tomowb-during-run.png")));
  // Iterative runs: the convergence and CNR docks as they are now, too.
  const RunInfo* info = runs_->run(startupRunId_);
  if (info == nullptr || !ConvergencePanel::isIterative(info->spec.algorithm)) return;
  convergencePanel_->exportPng(dir.filePath(QStringLiteral("tomowb-convergence-during-run.png")));
}

void MainWindow::finishStartupRun(bool ok, bool iterativeRun) {
  const render::EventTrace::Scope traced("MainWindow::finishStartupRun");
  if (!startup_.screenshotDir.isEmpty()) {
    QDir().mkpath(startup_.screenshotDir);
    const QDir dir(startup_.screenshotDir);
    // One run: the names scripts/screenshots.sh expects; several (--variant a,b): "-a", "-b".
    const QString suffix = startupFileSuffix();
    saveWindowScreenshot(dir.filePath(QStringLiteral("tomowb-after-run%1.png").arg(suffix)));
    viewArea_->saveScreenshot(dir.filePath(QStringLiteral("tomowb-views%1.png").arg(suffix)));
    // Iterative runs: the whole algorithm panel (the dock shows only its top) and the
    // convergence plots at their full size too.
    if (iterativeRun) {
      savePngAtomically(dir.filePath(QStringLiteral("tomowb-algorithm%1.png").arg(suffix)),
                        algorithmPanel_->grab());
      convergencePanel_->exportPng(
          dir.filePath(QStringLiteral("tomowb-convergence-panel%1.png").arg(suffix)));
    }
    writeRunSummary(startupRunId_, dir.filePath(QStringLiteral("run-summary%1.json").arg(suffix)));
    // Every run's summary under its id too, for --measure's report.
    writeRunSummary(startupRunId_,
                    dir.filePath(QStringLiteral("run-summary-%1.json").arg(startupRunId_)));
  }
  auto finish = [this, ok] {
    emit startupRunDone(ok);
    if (startup_.quitAfterRun) QApplication::exit(ok ? 0 : 1);
  };
  auto tourThenFinish = [this, finish] {
    if (startup_.tour && !startup_.screenshotDir.isEmpty())
      takeTourScreenshots(finish);
    else
      finish();
  };
  afterStartupRun(tourThenFinish);
}

void MainWindow::takeTourScreenshots(const std::function<void()>& done) {
  // One screenshot per main screen: each dock raised in turn, with time for the views and the
  // consistency check (computed off the GUI thread) to draw.
  struct Shot {
    QDockWidget* dock;
    QString file;
    int waitMs;
  };
  auto* cnrDock = findChild<QDockWidget*>(QStringLiteral("cnrDock"));
  auto* consistencyDock = findChild<QDockWidget*>(QStringLiteral("consistencyDock"));
  auto* projectionsDock = findChild<QDockWidget*>(QStringLiteral("projectionsDock"));
  auto shots = std::make_shared<std::vector<Shot>>(std::vector<Shot>{
      {geometryDock_, QStringLiteral("tomowb-geometry.png"), 400},
      {consistencyDock, QStringLiteral("tomowb-consistency.png"), 2500},
      {projectionsDock, QStringLiteral("tomowb-projections.png"), 400},
  });
  if (workspace_->phantom())
    shots->insert(shots->begin(), {cnrDock, QStringLiteral("tomowb-cnr.png"), 600});
  const RunInfo* run = runs_->run(startupRunId_);
  if (run != nullptr && ConvergencePanel::isIterative(run->spec.algorithm))
    shots->insert(shots->begin(), {findChild<QDockWidget*>(QStringLiteral("convergenceDock")),
                                   QStringLiteral("tomowb-convergence.png"), 600});
  auto step = std::make_shared<std::function<void(std::size_t)>>();
  *step = [this, shots, step, done](std::size_t i) {
    if (i >= shots->size()) {
      done();
      return;
    }
    const Shot& shot = (*shots)[i];
    shot.dock->show();
    shot.dock->raise();
    applyLowContrastWindow();  // the final volume came with the default window
    QTimer::singleShot(shot.waitMs, this, [this, shots, step, i] {
      saveWindowScreenshot(QDir(startup_.screenshotDir).filePath((*shots)[i].file));
      (*step)(i + 1);
    });
  };
  (*step)(0);
}

void MainWindow::applyLowContrastWindow() {
  // Water +-4 %: shows the CNR phantom's 0.5-2 % inserts.
  if (const auto& cnr = workspace_->cnrPhantom()) {
    const double water = cnr->waterValuePerMm();
    viewArea_->orthoViews().setWindowLevel(0.08 * water, 1.01 * water);
  }
}

void MainWindow::placePhantomRois() {
  const render::EventTrace::Scope traced("MainWindow::placePhantomRois");
  const auto& cnr = workspace_->cnrPhantom();
  if (!cnr && isEtSpecimen(workspace_->phantom().get())) {
    const std::vector<render::SliceRoi> rois = etSpecimenRois(*workspace_->phantom());
    viewArea_->setRois(rois);
    cnrPanel_->setRois(viewArea_->rois());
    if (auto* dock = findChild<QDockWidget*>(QStringLiteral("cnrDock"))) dock->show();
    return;
  }
  if (!cnr) {
    // Another phantom (the helical demo's head): its lowest-contrast insert at the centre slice.
    const std::vector<render::SliceRoi> rois = workspace_->phantom()
                                                   ? axialPhantomRois(*workspace_->phantom(), 0.0)
                                                   : std::vector<render::SliceRoi>{};
    if (rois.empty()) {
      statusBar()->showMessage(tr("ROIs from the phantom need a demo (File > Open demo)"), 6000);
      return;
    }
    viewArea_->setRois(rois);
    cnrPanel_->setRois(viewArea_->rois());
    if (auto* dock = findChild<QDockWidget*>(QStringLiteral("cnrDock"))) dock->show();
    return;
  }
  // On the axial slice through the inserts: the largest insert of each contrast ring (a circle
  // of 70 % of its radius, clear of its edge) against a water disc at the centre.
  std::vector<render::SliceRoi> rois;
  const auto& inserts = cnr->inserts();
  int id = 1;
  double largest = 0;
  for (const auto& insert : inserts) largest = std::max(largest, insert.diameterMm);
  for (const auto& insert : inserts) {
    if (insert.diameterMm < largest) continue;
    render::SliceRoi roi;
    roi.id = 1000 + id;
    roi.label = tr("%1 % contrast").arg(insert.contrast * 100.0, 0, 'g', 2);
    roi.role = render::SliceRoi::Signal;
    roi.shape = render::SliceRoi::Circle;
    roi.axis = 2;
    roi.sliceMm = insert.centreMm.z();
    roi.centreMm = insert.centreMm.head<2>();
    roi.halfSizeMm = Eigen::Vector2d::Constant(0.35 * insert.diameterMm);
    rois.push_back(roi);
    ++id;
  }
  render::SliceRoi background;
  background.id = 1000;
  background.label = tr("water");
  background.role = render::SliceRoi::Background;
  background.shape = render::SliceRoi::Circle;
  background.axis = 2;
  background.sliceMm = inserts.empty() ? 0.0 : inserts.front().centreMm.z();
  background.halfSizeMm = Eigen::Vector2d::Constant(15.0);  // inner ring starts 27 mm out
  rois.push_back(background);
  viewArea_->setRois(rois);
  cnrPanel_->setRois(viewArea_->rois());
  applyLowContrastWindow();
  if (auto* dock = findChild<QDockWidget*>(QStringLiteral("cnrDock"))) {
    dock->show();
    dock->raise();
  }
}

void MainWindow::writeRunSummary(int id, const QString& path) {
  const RunInfo* info = runs_->run(id);
  nlohmann::json summary = {
      {"run", id},
      {"state", info != nullptr ? toString(info->state).toStdString() : "unknown"},
      {"seconds", info != nullptr ? info->seconds : 0.0},
      {"maxEventLoopStallMsDuringRun", lastRunMaxStallMs_},
      {"previewsShown", previewsShown_},
      {"livePreview", startup_.livePreview},
      {"record", info != nullptr ? info->record : nlohmann::json()},
      {"timings", startupRunTimings(id)},
  };
  saveTextAtomically(path, QString::fromStdString(summary.dump(2) + "\n"));
}

void MainWindow::applyStartupOptions(const StartupOptions& options) {
  startup_ = options;
  if (!options.livePreview) runs_->setPreviewIntervalMs(-1);
  if (!options.layout.isEmpty()) viewArea_->setLayoutByName(options.layout);
  const bool wantsData = options.demo || !options.files.isEmpty();
  const bool petDemo =
      options.demo && options.demoName.compare(QStringLiteral("pet"), Qt::CaseInsensitive) == 0;
  if (options.runAfterLoad && wantsData && petDemo) {
    // The PET demo: DIRECT once its scan is simulated.
    auto connection = std::make_shared<QMetaObject::Connection>();
    *connection = connect(workspace_.get(), &Workspace::petDataChanged, this, [this, connection] {
      if (!workspace_->petData()) return;
      disconnect(*connection);
      startStartupRun();
    });
  } else if (options.runAfterLoad && wantsData) {
    // Start the run when the data has arrived (the demo or the first projections file).
    auto connection = std::make_shared<QMetaObject::Connection>();
    *connection =
        connect(workspace_.get(), &Workspace::projectionsChanged, this, [this, connection] {
          if (!workspace_->projections()) return;
          disconnect(*connection);
          startStartupRun();
        });
  }
  if (petDemo) {
    openPetDemo();
  } else if (options.demo) {
    DemoKind kind = DemoKind::SheppLogan;
    try {
      kind = demoKindFromName(options.demoName);
    } catch (const Error& e) {
      statusBar()->showMessage(QString::fromStdString(e.what()), 8000);
    }
    openDemo(kind, options.demoSize);
  }
  if (!options.files.isEmpty()) openFiles(options.files);
}

void MainWindow::startStartupRun() {
  if (workspace_->petData()) {
    PetRunSettings pet = petAlgorithmPanel_->settings();
    if (startup_.iterations > 0) pet.iterations = startup_.iterations;
    // --device for DIRECT too (its page has its own device box): cpu, gpu (the fastest), gpu:N.
    if (startup_.device == QStringLiteral("cpu")) {
      pet.device = VariantDevice::Cpu;
    } else if (startup_.device.startsWith(QStringLiteral("gpu"))) {
      const int gpu = startup_.device == QStringLiteral("gpu")
                          ? cuda::fastestGpu(cuda::listGpuDevices())
                          : startup_.device.mid(4).toInt();
      if (gpu >= 0) {
        pet.device = VariantDevice::Gpu;
        pet.gpuIndex = gpu;
        pet.forwardVariant.clear();  // the device's defaults
        pet.backVariant.clear();
      }
    }
    petAlgorithmPanel_->setSettings(pet);
  }
  if (!startup_.algorithm.isEmpty()) algorithmPanel_->setAlgorithm(startup_.algorithm);
  // --iterations: for an algorithm that has them (the descriptor's "iterations" parameter).
  if (startup_.iterations > 0 && algorithmPanel_->descriptor().parameter("iterations") != nullptr)
    algorithmPanel_->setAlgorithmParameters({{"iterations", startup_.iterations}});
  if (startup_.volumeSize > 0) algorithmPanel_->setVolumeEdge(startup_.volumeSize);
  QString why;
  if (!applyStartupDevice(&why)) {
    std::fprintf(stderr, "tomowb: %s\n", qPrintable(why));
    statusBar()->showMessage(why, 10000);
    emit startupRunDone(false);
    if (startup_.quitAfterRun) QApplication::exit(2);
    return;
  }
  // Let the window show the loaded data before the run starts.
  QTimer::singleShot(200, this, [this] {
    // Again: the demo sets its own grid once its phantom is in, which may come after the data.
    if (startup_.volumeSize > 0) algorithmPanel_->setVolumeEdge(startup_.volumeSize);
    previewTimesMs_.clear();
    runClock_.start();
    startupRunId_ = startRun();
    if (startupRunId_ < 0) {
      emit startupRunDone(false);
      if (startup_.quitAfterRun) QApplication::exit(1);
    }
  });
}

}  // namespace tomowb::gui
