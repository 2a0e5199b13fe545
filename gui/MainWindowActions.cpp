// MainWindow's actions, menus, tool bar and status bar, and what they open (the theme, the recent
// files, the shortcuts and about boxes): the window's commands, apart from its docks and runs
// (MainWindow.cpp) and the command line's automation (MainWindowStartup.cpp).
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
#include "gui/ProjectionBrowser.h"
#include "gui/RunListPanel.h"
#include "gui/RunLogPanel.h"
#include "gui/SafetyNet.h"
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
#include "gui/core/TiltAngles.h"
#include "gui/core/Workspace.h"
#include "recon/core/Error.h"
#include "recon/core/MemoryBudget.h"
#include "recon/device/GpuDevices.h"
#include "recon/io/VolumeFiles.h"
#include "recon/job/GpuMonitor.h"
#include "render/SliceRoi.h"
#ifdef TOMOWB_HAVE_DICOM
#include "gui/DicomExportDialog.h"
#include "recon/io/GeometryJson.h"
#include "recon/io/dicom/Sha256.h"
#endif

namespace tomowb::gui {

namespace {

QString humanBytes(double bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int unit = 0;
  while (bytes >= 1024.0 && unit < 4) {
    bytes /= 1024.0;
    ++unit;
  }
  return QStringLiteral("%1 %2").arg(bytes, 0, 'f', unit == 0 ? 0 : 1).arg(units[unit]);
}

QPalette darkPalette() {
  QPalette p;
  const QColor window(45, 45, 48), base(30, 30, 32), text(230, 230, 230), highlight(42, 130, 218);
  p.setColor(QPalette::Window, window);
  p.setColor(QPalette::WindowText, text);
  p.setColor(QPalette::Base, base);
  p.setColor(QPalette::AlternateBase, window);
  p.setColor(QPalette::ToolTipBase, base);
  p.setColor(QPalette::ToolTipText, text);
  p.setColor(QPalette::PlaceholderText, QColor(150, 150, 150));
  p.setColor(QPalette::Text, text);
  p.setColor(QPalette::Button, window);
  p.setColor(QPalette::ButtonText, text);
  p.setColor(QPalette::BrightText, Qt::red);
  p.setColor(QPalette::Link, highlight.lighter(130));
  p.setColor(QPalette::Highlight, highlight);
  p.setColor(QPalette::HighlightedText, Qt::white);
  p.setColor(QPalette::Disabled, QPalette::Text, QColor(127, 127, 127));
  p.setColor(QPalette::Disabled, QPalette::ButtonText, QColor(127, 127, 127));
  p.setColor(QPalette::Disabled, QPalette::WindowText, QColor(127, 127, 127));
  return p;
}

bool systemPrefersDark() {
#if QT_VERSION >= QT_VERSION_CHECK(6, 5, 0)
  return QGuiApplication::styleHints()->colorScheme() == Qt::ColorScheme::Dark;
#else
  // Qt 6.4 (Debian 12) has no colour-scheme hint: judge the platform palette's window colour.
  return QGuiApplication::palette().color(QPalette::Window).lightness() < 128;
#endif
}

}  // namespace

void MainWindow::createActions() {
  openAction_ = new QAction(QIcon(QStringLiteral(":/tomowb/icons/open.svg")), tr("&Open…"), this);
  openAction_->setShortcut(QKeySequence::Open);
  openAction_->setStatusTip(tr("Open projections or a volume"));
  connect(openAction_, &QAction::triggered, this, [this] { dataPanel_->showOpenDialog(); });
  openProjectionsAction_ = new QAction(tr("Open &projections…"), this);
  openProjectionsAction_->setObjectName(QStringLiteral("openProjectionsAction"));
  openProjectionsAction_->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_O));
  openProjectionsAction_->setStatusTip(
      tr("Open projections in any format with a geometry file: our JSON, ASTRA vectors, 3x4 "
         "matrices or IMOD tilt angles"));
  connect(openProjectionsAction_, &QAction::triggered, this,
          [this] { dataPanel_->showOpenProjectionsDialog(); });

  demoAction_ = new QAction(QIcon(QStringLiteral(":/tomowb/icons/demo.svg")),
                            tr("Open &demo: Shepp-Logan"), this);
  demoAction_->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_D));
  demoAction_->setStatusTip(tr("Cone-beam scan of the 3-D Shepp-Logan phantom, generated now"));
  connect(demoAction_, &QAction::triggered, this, [this] { openDemo(DemoKind::SheppLogan); });
  cnrDemoAction_ = new QAction(tr("Open demo: &CNR phantom"), this);
  cnrDemoAction_->setStatusTip(tr("Noisy cone-beam scan of the contrast-to-noise phantom"));
  connect(cnrDemoAction_, &QAction::triggered, this, [this] { openDemo(DemoKind::Cnr); });
  etDemoAction_ =
      new QAction(tr("Open demo: &Electron tomography: tilt series of a cell specimen"), this);
  etDemoAction_->setStatusTip(
      tr("ET tilt series (-60..+60 degrees in 2 degree steps) of a specimen with cells and gold "
         "beads, generated now; the algorithm panel offers SIRT for it"));
  connect(etDemoAction_, &QAction::triggered, this,
          [this] { openDemo(DemoKind::ElectronTomography); });

  createPetActions();

  saveVolumeAction_ = new QAction(tr("&Save volume as…"), this);
  saveVolumeAction_->setShortcut(QKeySequence::Save);
  connect(saveVolumeAction_, &QAction::triggered, this, &MainWindow::saveCurrentVolume);
#ifdef TOMOWB_HAVE_DICOM
  exportDicomAction_ = new QAction(tr("E&xport DICOM series…"), this);
  exportDicomAction_->setObjectName(QStringLiteral("exportDicomAction"));
  exportDicomAction_->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_E));
  exportDicomAction_->setStatusTip(
      tr("Write the volume shown as a DICOM CT, Enhanced CT or PET series for PACS and other "
         "viewers"));
  connect(exportDicomAction_, &QAction::triggered, this, &MainWindow::showDicomExportDialog);
#endif

  runAction_ = new QAction(QIcon(QStringLiteral(":/tomowb/icons/run.svg")), tr("&Run"), this);
  runAction_->setShortcuts({QKeySequence(Qt::CTRL | Qt::Key_R), QKeySequence(Qt::Key_F5)});
  runAction_->setStatusTip(
      tr("Reconstruct with the algorithm panel's settings (queued if a run "
         "is going)"));
  connect(runAction_, &QAction::triggered, this, [this] { startRun(); });

  cancelAction_ =
      new QAction(QIcon(QStringLiteral(":/tomowb/icons/cancel.svg")), tr("&Cancel run"), this);
  cancelAction_->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Period));
  cancelAction_->setStatusTip(tr("Stop the running reconstruction (nothing partial is kept)"));
  connect(cancelAction_, &QAction::triggered, this, &MainWindow::cancelRun);

  screenshotAction_ = new QAction(QIcon(QStringLiteral(":/tomowb/icons/screenshot.svg")),
                                  tr("Save &screenshot…"), this);
  screenshotAction_->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_S));
  connect(screenshotAction_, &QAction::triggered, this, &MainWindow::exportViewScreenshot);

  sweepAction_ = new QAction(tr("S&weep variants…"), this);
  sweepAction_->setObjectName(QStringLiteral("sweepAction"));
  sweepAction_->setStatusTip(
      tr("Run every kernel variant of the current algorithm on the current projections: time, "
         "accuracy against the float64 reference, determinism, adjoint test"));
  connect(sweepAction_, &QAction::triggered, this, &MainWindow::showSweepDialog);
  clusterAction_ = new QAction(tr("C&luster…"), this);
  clusterAction_->setObjectName(QStringLiteral("clusterAction"));
  clusterAction_->setStatusTip(
      tr("Submit the current run to a SLURM cluster, follow its progress, cancel it and open "
         "its result (cluster profiles: partition, nodes, GPUs, time, ssh host)"));
  connect(clusterAction_, &QAction::triggered, this, &MainWindow::showClusterDialog);
  compareAction_ = new QAction(tr("&Compare runs"), this);
  compareAction_->setObjectName(QStringLiteral("compareAction"));
  compareAction_->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_C));
  compareAction_->setStatusTip(
      tr("A | B | A - B of two runs with their metrics: the runs selected in the run list, else "
         "the newest run against its reference or the run before it"));
  connect(compareAction_, &QAction::triggered, this, [this] {
    const QList<int> ids = runListPanel_->selectedRunIds();
    compareView_->compareRunSelection(std::vector<int>(ids.begin(), ids.end()));
    showCompareView();
  });

  quitAction_ = new QAction(tr("&Quit"), this);
  quitAction_->setShortcut(QKeySequence::Quit);
  connect(quitAction_, &QAction::triggered, this, &QWidget::close);
}

void MainWindow::createMenus() {
  QMenu* file = menuBar()->addMenu(tr("&File"));
  file->addAction(openAction_);
  file->addAction(openProjectionsAction_);
  file->addAction(openListModeAction_);
  file->addAction(simulatePetAction_);
  recentMenu_ = file->addMenu(tr("Open &recent"));
  file->addSeparator();
  file->addAction(demoAction_);
  file->addAction(cnrDemoAction_);
  file->addAction(etDemoAction_);
  file->addAction(petDemoAction_);
  file->addSeparator();
  file->addAction(safetyNet_->openSessionAction());
  file->addAction(safetyNet_->saveSessionAction());
  file->addSeparator();
  file->addAction(saveVolumeAction_);
  if (exportDicomAction_ != nullptr) file->addAction(exportDicomAction_);
  file->addAction(screenshotAction_);
  QAction* windowShot = file->addAction(tr("Save &window screenshot…"));
  connect(windowShot, &QAction::triggered, this, [this] {
    const QString path = QFileDialog::getSaveFileName(
        this, tr("Save window screenshot"), QStringLiteral("tomowb.png"), tr("PNG images (*.png)"));
    if (!path.isEmpty() && !saveWindowScreenshot(path))
      QMessageBox::warning(this, tr("Screenshot"), tr("Could not write %1").arg(path));
  });
  file->addSeparator();
  file->addAction(quitAction_);

  viewMenu_ = menuBar()->addMenu(tr("&View"));
  for (QDockWidget* dock : docks_) viewMenu_->addAction(dock->toggleViewAction());
  viewMenu_->addSeparator();
  viewMenu_->addAction(compareAction_);
  viewMenu_->addSeparator();
  // HU for a user's CT: the water value the scan's numbers are relative to (the demos know it).
  QAction* water = viewMenu_->addAction(tr("&Water value for HU\u2026"));
  water->setObjectName(QStringLiteral("waterValueAction"));
  water->setToolTip(
      tr("Water's attenuation in 1/mm at this scan's effective energy: with it the "
         "views can show Hounsfield units"));
  connect(water, &QAction::triggered, this, &MainWindow::askWaterValue);
  connect(viewMenu_, &QMenu::aboutToShow, this, [this, water] {
    const Geometry* g = workspace_->geometry();
    water->setEnabled(g != nullptr && !isTiltSeries(*g) && !workspace_->petData());
  });
  viewMenu_->addSeparator();
  QAction* reset = viewMenu_->addAction(tr("Reset &layout"));
  connect(reset, &QAction::triggered, this, &MainWindow::resetLayout);
  QMenu* themeMenu = viewMenu_->addMenu(tr("&Theme"));
  auto* themes = new QActionGroup(this);
  const std::pair<QString, Theme> choices[] = {{tr("Follow the &desktop"), Theme::System},
                                               {tr("&Light"), Theme::Light},
                                               {tr("&Dark"), Theme::Dark}};
  for (const auto& [label, theme] : choices) {
    QAction* action = themeMenu->addAction(label);
    action->setCheckable(true);
    action->setData(static_cast<int>(theme));
    themes->addAction(action);
    connect(action, &QAction::triggered, this, [this, theme = theme] { setTheme(theme); });
  }
  connect(themeMenu, &QMenu::aboutToShow, this, [this, themes] {
    for (QAction* a : themes->actions())
      a->setChecked(a->data().toInt() == static_cast<int>(theme_));
  });
  QAction* fullScreen = viewMenu_->addAction(tr("&Full screen"));
  fullScreen->setShortcut(QKeySequence::FullScreen);
  fullScreen->setCheckable(true);
  connect(fullScreen, &QAction::toggled, this,
          [this](bool on) { on ? showFullScreen() : showNormal(); });

  QMenu* run = menuBar()->addMenu(tr("&Run"));
  run->addAction(dataPanel_->preprocessAction());
  run->addSeparator();
  run->addAction(runAction_);
  run->addAction(cancelAction_);
  run->addAction(safetyNet_->stopAndKeepAction());
  run->addSeparator();
  run->addAction(runListPanel_->goldenReferenceAction());
  run->addAction(compareAction_);
  run->addAction(sweepAction_);
  run->addAction(clusterAction_);
  run->addSeparator();
  QAction* phantomRois = run->addAction(tr("Place CNR &ROIs on the phantom's inserts"));
  phantomRois->setStatusTip(
      tr("Circles on the largest insert of each contrast and a water "
         "background disc (CNR demo)"));
  connect(phantomRois, &QAction::triggered, this, &MainWindow::placePhantomRois);

  QMenu* help = menuBar()->addMenu(tr("&Help"));
  QAction* keys = help->addAction(tr("&Keyboard and mouse…"));
  keys->setShortcut(QKeySequence::HelpContents);
  connect(keys, &QAction::triggered, this, &MainWindow::showShortcuts);
  QAction* about = help->addAction(tr("&About Tomo Workbench"));
  connect(about, &QAction::triggered, this, &MainWindow::showAbout);
}

void MainWindow::createToolBar() {
  QToolBar* bar = addToolBar(tr("Main"));
  bar->setObjectName(QStringLiteral("mainToolBar"));
  bar->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
  bar->addAction(openAction_);
  bar->addAction(demoAction_);
  bar->addSeparator();
  bar->addAction(runAction_);
  bar->addAction(cancelAction_);
  bar->addAction(safetyNet_->stopAndKeepAction());
  bar->addSeparator();
  bar->addAction(compareAction_);
  bar->addAction(screenshotAction_);
}

void MainWindow::createStatusBar() {
  deviceLabel_ = new QLabel(this);
  memoryLabel_ = new QLabel(this);
  runLabel_ = new QLabel(tr("idle"), this);
  stallLabel_ = new QLabel(this);
  runProgress_ = new QProgressBar(this);
  runProgress_->setRange(0, 1000);
  runProgress_->setMaximumWidth(220);
  runProgress_->setTextVisible(true);
  // Hidden when idle but its space kept: a status bar that grows when the bar appears would
  // shrink the central area, and every VTK view would re-render at once (a 100 ms stall).
  QSizePolicy keepSpace = runProgress_->sizePolicy();
  keepSpace.setRetainSizeWhenHidden(true);
  runProgress_->setSizePolicy(keepSpace);
  runProgress_->hide();
  stallLabel_->setToolTip(
      tr("Longest event-loop stall since the last run started (the window should never freeze "
         "for more than 100 ms)"));
  const auto devices = cuda::listGpuDevices();
  QString device = tr("CPU: %1 threads").arg(std::max(1u, std::thread::hardware_concurrency()));
  for (const auto& gpu : devices)
    device += QStringLiteral(" · GPU %1: %2").arg(gpu.index).arg(QString::fromStdString(gpu.name));
  if (devices.empty()) device += tr(" · no GPU");
  deviceLabel_->setText(device);
  deviceLabel_->setToolTip(QString::fromStdString(cuda::gpuStatus()));
  statusBar()->addPermanentWidget(runLabel_);
  statusBar()->addPermanentWidget(runProgress_);
  statusBar()->addPermanentWidget(stallLabel_);
  statusBar()->addPermanentWidget(memoryLabel_);
  statusBar()->addPermanentWidget(deviceLabel_);
  statusTimer_ = new QTimer(this);
  statusTimer_->setInterval(1000);
  connect(statusTimer_, &QTimer::timeout, this, &MainWindow::updateStatus);
  statusTimer_->start();
  updateStatus();
}

void MainWindow::updateStatus() {
  const HostMemorySample host = hostMemory();
  memoryLabel_->setText(tr("RAM: %1 used, %2 free")
                            .arg(humanBytes(static_cast<double>(host.processResidentBytes)))
                            .arg(humanBytes(static_cast<double>(host.availableBytes))));
  // During a run: the longest stall so far; afterwards: the longest stall of the last run.
  const double stall = runs_->runningId() >= 0 ? monitor_->maxStallMs() : lastRunMaxStallMs_;
  stallLabel_->setText(tr("UI stall max %1 ms").arg(stall, 0, 'f', 0));
}

void MainWindow::setTheme(Theme theme) {
  theme_ = theme;
  const bool dark = theme == Theme::Dark || (theme == Theme::System && systemPrefersDark());
  QApplication::setStyle(QStyleFactory::create(QStringLiteral("Fusion")));
  QApplication::setPalette(dark ? darkPalette() : QApplication::style()->standardPalette());
}

void MainWindow::rebuildRecentMenu() {
  recentMenu_->clear();
  const QStringList files = dataPanel_->recentFiles();
  for (const QString& path : files) {
    QAction* action = recentMenu_->addAction(QFileInfo(path).fileName());
    action->setToolTip(path);
    action->setStatusTip(path);
    connect(action, &QAction::triggered, this, [this, path] { openFiles({path}); });
  }
  recentMenu_->setEnabled(!files.isEmpty());
}

void MainWindow::showShortcuts() {
  QMessageBox::information(
      this, tr("Keyboard and mouse"),
      tr("<b>Slice views</b><br>"
         "Left-drag: window/level (horizontal = width, vertical = level)<br>"
         "Wheel, ←/→, b/f: previous/next slice<br>"
         "Right-drag or Ctrl+wheel: zoom · Middle-drag or Shift+left-drag: pan<br>"
         "Shift+move: move the crosshair in all views · r: reset the view<br>"
         "Double-click: maximise/restore the view · Ctrl+double-click: reset W/L<br><br>"
         "<b>Measuring (view toolbar: Circle ROI, Rectangle ROI, Ruler, Profile)</b><br>"
         "Left-drag: draw one ROI, ruler or profile line, then back to W/L · "
         "Shift held at the release: keep the tool for another<br>"
         "Esc: back to W/L · Click: select an ROI or line · Delete or Backspace: delete it<br>"
         "Figures, Delete all and the profile: the Measurements dock<br><br>"
         "<b>3-D view</b><br>Left: rotate · Middle: pan · Right: zoom · r: reset<br><br>"
         "<b>Window</b><br>Ctrl+O open · Ctrl+D demo · Ctrl+R or F5 run · Ctrl+. cancel<br>"
         "Ctrl+S save volume · Ctrl+Shift+E export DICOM · Ctrl+Shift+S screenshot<br>"
         "Ctrl+Shift+C compare runs (the run list's selection)<br>"
         "F11 full screen · Ctrl+Q quit"));
}

void MainWindow::showAbout() {
  QMessageBox::about(this, tr("About Tomo Workbench"),
                     tr("<b>Tomo Workbench %1</b><br>Tomographic reconstruction workbench: FDK "
                        "with selectable kernel variants, live slices, throughput and CNR.<br>"
                        "BSD-3-Clause.<br><br>%2")
                         .arg(QStringLiteral(TOMOWB_VERSION))
                         .arg(QString::fromStdString(cuda::gpuStatus()).toHtmlEscaped()));
}

}  // namespace tomowb::gui
