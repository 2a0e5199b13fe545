// MainWindow: see the header.
#include "gui/MainWindow.h"

#include <QAction>
#include <QCloseEvent>
#include <QCoreApplication>
#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>
#include <QFrame>
#include <QGuiApplication>
#include <QHBoxLayout>
#include <QInputDialog>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QMetaObject>
#include <QMimeData>
#include <QProgressBar>
#include <QPushButton>
#include <QScreen>
#include <QScrollArea>
#include <QSettings>
#include <QStackedWidget>
#include <QStatusBar>
#include <QStyleHints>
#include <QTimer>
#include <QToolBar>
#include <QUrl>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <functional>
#include <numbers>
#include <optional>
#include <thread>

#include "gui/AlgorithmPanel.h"
#include "gui/ClusterDialog.h"
#include "gui/CnrPanel.h"
#include "gui/CompareView.h"
#include "gui/ConsistencyView.h"
#include "gui/ConvergencePanel.h"
#include "gui/DataPanel.h"
#include "gui/DockLayout.h"
#include "gui/ExportFiles.h"
#include "gui/GeometryPanel.h"
#include "gui/MeasurementsPanel.h"
#include "gui/PetAlgorithmPanel.h"
#include "gui/ProjectionBrowser.h"
#include "gui/RunListPanel.h"
#include "gui/RunLogPanel.h"
#include "gui/SafetyNet.h"
#include "gui/SpecimenRois.h"
#include "gui/SweepDialog.h"
#include "gui/ThroughputPanel.h"
#include "gui/ViewArea.h"
#include "gui/WheelGuard.h"
#include "gui/core/CatalogRun.h"
#include "gui/core/DataUnits.h"
#include "gui/core/DemoData.h"
#include "gui/core/EventLoopMonitor.h"
#include "gui/core/FdkRun.h"
#include "gui/core/GuiRunRecords.h"
#include "gui/core/IterativeRun.h"
#include "gui/core/PetRun.h"
#include "gui/core/RunController.h"
#include "gui/core/TiltAngles.h"
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
#include "gui/core/PetDicomExport.h"
#include "recon/io/GeometryJson.h"
#include "recon/io/dicom/Sha256.h"
#endif

namespace tomowb::gui {

namespace {

QString humanSeconds(double seconds) {
  if (seconds < 0) return QStringLiteral("?");
  if (seconds < 60) return QStringLiteral("%1 s").arg(seconds, 0, 'f', 1);
  const int s = static_cast<int>(std::lround(seconds));
  return QStringLiteral("%1:%2 min").arg(s / 60).arg(s % 60, 2, 10, QLatin1Char('0'));
}

#ifdef TOMOWB_HAVE_DICOM
// What made a volume, for the DICOM export's Derivation Description and private block: the run's
// algorithm, kernel variant(s), tunables and iterations, the SHA-256 of the geometry it used and
// what identifies the acquisition (the projections' file and size, else that geometry hash), so
// that series of one acquisition share a Frame of Reference.
io::dicom::DicomProvenance dicomProvenance(const NamedVolume& volume, const RunInfo* run) {
  io::dicom::DicomProvenance p;
  p.sourceDescription =
      volume.sourcePath.isEmpty() ? volume.name.toStdString() : volume.sourcePath.toStdString();
  if (run == nullptr) {
    if (!volume.sourcePath.isEmpty()) {
      const QFileInfo file(volume.sourcePath);
      p.acquisitionKey =
          "file:" + file.absoluteFilePath().toStdString() + ":" + std::to_string(file.size());
    }
    return p;
  }
  const nlohmann::json& parameters = run->spec.parameters;
  p.algorithm = run->spec.algorithm.toUpper().toStdString();  // "FDK", "SIRT", "OS-SIRT"...
  if (parameters.contains("variant"))
    p.variant = parameters.value("variant", "");
  else if (parameters.contains("forwardVariant"))
    p.variant =
        parameters.value("forwardVariant", "") + " + " + parameters.value("backVariant", "");
  if (parameters.contains("gpu") && parameters["gpu"].contains("tunables"))
    for (const auto& [key, value] : parameters["gpu"]["tunables"].items())
      p.tunables += (p.tunables.empty() ? "" : " ") + key + "=" +
                    (value.is_string() ? value.get<std::string>() : value.dump());
  if (!run->iterations.empty())
    p.iterations = run->iterations.back().iteration;
  else if (parameters.contains("iterations") && parameters["iterations"].is_number_integer())
    p.iterations = parameters["iterations"].get<std::int64_t>();
  if (parameters.contains("input")) {
    const nlohmann::json& input = parameters["input"];
    p.geometryHash = input.value("geometrySha256", "");
    p.sourceDescription = input.value("name", p.sourceDescription);
    const QString path = QString::fromStdString(input.value("path", ""));
    if (!path.isEmpty() && QFileInfo(path).isFile()) {
      const QFileInfo file(path);
      p.acquisitionKey =
          "file:" + file.absoluteFilePath().toStdString() + ":" + std::to_string(file.size());
    }
  }
  if (p.acquisitionKey.empty()) p.acquisitionKey = p.geometryHash;
  // The parameters as the run record has them (without the ROIs when that is too long).
  nlohmann::json kept = parameters;
  std::string text = kept.dump();
  if (text.size() > 10240) {
    kept.erase("rois");
    text = kept.dump();
  }
  if (text.size() <= 10240) p.parameters = text;
  return p;
}
#endif

}  // namespace

MainWindow::MainWindow(QWidget* parent)
    : QMainWindow(parent),
      workspace_(std::make_unique<Workspace>()),
      runs_(std::make_unique<RunController>()),
      runRecordsFolder_(defaultRunRecordsFolder()) {
  setObjectName(QStringLiteral("MainWindow"));
  setWindowTitle(QStringLiteral("Tomo Workbench"));
  setWindowIcon(QIcon(QStringLiteral(":/tomowb/icons/tomowb.svg")));
  setAcceptDrops(true);
  setDockOptions(QMainWindow::AnimatedDocks | QMainWindow::AllowTabbedDocks |
                 QMainWindow::AllowNestedDocks);
  monitor_ = new EventLoopMonitor(this);
  createPanels();
  createDocks();
  safetyNet_ = new SafetyNet(*this);
  createActions();
  createMenus();
  createToolBar();
  createStatusBar();
  connectSignals();
  WheelGuard::install();
  dockSizes_ = new DockSizeKeeper(this);
  resize(sizeWithinScreen(this, QSize(1500, 950)));
  defaultState_ = saveState();  // the arrangement of createDocks(), for View > Reset layout
  restoreSettings();
  updateRunActions();
  showWelcomeIfEmpty();
}

MainWindow::~MainWindow() {
  // The panels hold references to the workspace and the run controller, which are members and
  // would otherwise be destroyed before ~QWidget deletes the child widgets: stop the run and
  // delete the panels first.
  statusTimer_->stop();
  if (runs_->runningId() >= 0) runs_->cancel(runs_->runningId());
  for (const auto& [id, written] : pendingRunRecords_) written.wait();  // records get written
  qDeleteAll(docks_);
  docks_.clear();
  delete takeCentralWidget();
}

void MainWindow::createPanels() {
  centre_ = new QStackedWidget(this);
  // The welcome page: what a new user sees with no data (issue #5: starting with no data offers
  // the demo).
  welcome_ = new QWidget(centre_);
  auto* welcomeLayout = new QVBoxLayout(welcome_);
  welcomeLayout->addStretch(2);
  auto* title = new QLabel(tr("<h1>Tomo Workbench</h1>"
                              "<p>Open projections or a volume (File &gt; Open, or drop files "
                              "here), or start with a built-in demo:</p>"),
                           welcome_);
  title->setAlignment(Qt::AlignCenter);
  title->setWordWrap(true);
  welcomeLayout->addWidget(title);
  auto* buttons = new QHBoxLayout;
  buttons->addStretch(1);
  auto* demoButton = new QPushButton(tr("Open demo: Shepp-Logan cone beam"), welcome_);
  demoButton->setObjectName(QStringLiteral("welcomeDemoButton"));
  auto* cnrButton = new QPushButton(tr("Open demo: CNR phantom"), welcome_);
  auto* etButton = new QPushButton(tr("Open demo: electron tomography"), welcome_);
  etButton->setObjectName(QStringLiteral("welcomeEtDemoButton"));
  etButton->setToolTip(tr("Tilt series of a cell specimen, -60..+60 degrees: run SIRT on it"));
  auto* petButton = new QPushButton(tr("Open demo: TOF-PET phantom"), welcome_);
  petButton->setObjectName(QStringLiteral("welcomePetDemoButton"));
  petButton->setToolTip(
      tr("Simulates a small TOF list-mode scan of the PET phantom: reconstruct it with DIRECT"));
  auto* openButton = new QPushButton(tr("Open file…"), welcome_);
  // One column: the page (and so the window) stays narrow enough for small screens.
  auto* column = new QVBoxLayout;
  for (QPushButton* b : {demoButton, cnrButton, etButton, petButton, openButton}) {
    b->setMinimumHeight(36);
    column->addWidget(b);
  }
  buttons->addLayout(column);
  buttons->addStretch(1);
  welcomeLayout->addLayout(buttons);
  welcomeLayout->addStretch(3);
  connect(demoButton, &QPushButton::clicked, this, [this] { openDemo(DemoKind::SheppLogan); });
  connect(cnrButton, &QPushButton::clicked, this, [this] { openDemo(DemoKind::Cnr); });
  connect(etButton, &QPushButton::clicked, this,
          [this] { openDemo(DemoKind::ElectronTomography); });
  connect(petButton, &QPushButton::clicked, this, &MainWindow::openPetDemo);
  connect(openButton, &QPushButton::clicked, this, [this] { dataPanel_->showOpenDialog(); });

  viewArea_ = new ViewArea(centre_);
  compareView_ = new CompareView(*workspace_, *runs_, centre_);
  // In a scroll area: on a short screen (1366x768 at scale 2) the page scrolls instead of making
  // the window taller than the screen.
  auto* welcomeScroll = new QScrollArea(centre_);
  welcomeScroll->setObjectName(QStringLiteral("welcomePage"));
  welcomeScroll->setWidgetResizable(true);
  welcomeScroll->setFrameShape(QFrame::NoFrame);
  welcomeScroll->setWidget(welcome_);
  centre_->addWidget(welcomeScroll);
  welcomePage_ = welcomeScroll;
  centre_->addWidget(viewArea_);
  centre_->addWidget(compareView_);
  sizeStackByCurrentPage(centre_);
  // Room the window gains goes to the slice views, not to the docks beside them.
  centre_->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Expanding);
  setCentralWidget(centre_);

  dataPanel_ = new DataPanel(*workspace_, this);
  geometryPanel_ = new GeometryPanel(*workspace_, this);
  consistencyView_ = new ConsistencyView(*workspace_, this);
  algorithmPanel_ = new AlgorithmPanel(*workspace_, this);
  runListPanel_ = new RunListPanel(*runs_, this);
  runLogPanel_ = new RunLogPanel(*runs_, this);
  throughputPanel_ = new ThroughputPanel(*runs_, this);
  cnrPanel_ = new CnrPanel(this);
  convergencePanel_ = new ConvergencePanel(*runs_, this);
  algorithmPanel_->setRunController(runs_.get());
  projectionBrowser_ = new ProjectionBrowser(this);
  createPetPanels();
}

QDockWidget* MainWindow::addDock(QWidget* panel, const QString& title, const QString& objectName,
                                 Qt::DockWidgetArea area) {
  auto* dock = new QDockWidget(title, this);
  dock->setObjectName(objectName);
  // A scroll area lets a tall panel (the geometry form, the algorithm panel) share a column
  // with others on a small screen instead of pushing the window past the screen's height.
  // Side docks never scroll sideways (as wide as their panel); the bottom row's tables may.
  auto* scroll = new PanelScrollArea(dock, area != Qt::BottomDockWidgetArea);
  scroll->setWidget(panel);
  dock->setWidget(scroll);
  dock->setFeatures(QDockWidget::DockWidgetClosable | QDockWidget::DockWidgetMovable |
                    QDockWidget::DockWidgetFloatable);
  addDockWidget(area, dock);
  docks_.push_back(dock);
  return dock;
}

void MainWindow::createDocks() {
  // Left: what is open and how it was scanned; right: how to reconstruct it and how runs go;
  // bottom: runs, log and projections. The right column runs down to the status bar: the
  // algorithm panel gets the window's height (the bottom row spans the views and the left).
  setCorner(Qt::BottomRightCorner, Qt::RightDockWidgetArea);
  QDockWidget* data =
      addDock(dataPanel_, tr("Data"), QStringLiteral("dataDock"), Qt::LeftDockWidgetArea);
  QDockWidget* geometry = addDock(geometryPanel_, tr("Geometry"), QStringLiteral("geometryDock"),
                                  Qt::LeftDockWidgetArea);
  QDockWidget* consistency = addDock(consistencyView_, tr("Consistency"),
                                     QStringLiteral("consistencyDock"), Qt::LeftDockWidgetArea);
  QDockWidget* algorithm = addDock(algorithmPages_, tr("Algorithm"),
                                   QStringLiteral("algorithmDock"), Qt::RightDockWidgetArea);
  // Run (and why it cannot start) at the dock's foot, outside its scroll area: on a short screen
  // the form scrolls and Run stays in sight (issue #21 point 3).
  auto* runBars = new QStackedWidget(algorithm);
  runBars->setObjectName(QStringLiteral("algorithmRunBars"));
  runBars->addWidget(&algorithmPanel_->runBar());
  runBars->addWidget(&petAlgorithmPanel_->runBar());
  runBars->setCurrentIndex(algorithmPages_->currentIndex());
  connect(algorithmPages_, &QStackedWidget::currentChanged, runBars,
          &QStackedWidget::setCurrentIndex);
  sizeStackByCurrentPage(runBars);
  pinUnderScrollArea(algorithm, runBars);
  QDockWidget* throughput = addDock(throughputPanel_, tr("Throughput"),
                                    QStringLiteral("throughputDock"), Qt::RightDockWidgetArea);
  QDockWidget* cnr =
      addDock(cnrPanel_, tr("CNR"), QStringLiteral("cnrDock"), Qt::RightDockWidgetArea);
  // ROI statistics, rulers and the line profile of the slice views (issue #21, point 7).
  QDockWidget* measurements =
      addDock(new MeasurementsPanel(viewArea_->orthoViews(), this), tr("Measurements"),
              QStringLiteral("measurementsDock"), Qt::RightDockWidgetArea);
  QDockWidget* convergence = addDock(convergencePanel_, tr("Convergence"),
                                     QStringLiteral("convergenceDock"), Qt::RightDockWidgetArea);
  QDockWidget* runList =
      addDock(runListPanel_, tr("Runs"), QStringLiteral("runListDock"), Qt::BottomDockWidgetArea);
  QDockWidget* runLog =
      addDock(runLogPanel_, tr("Run log"), QStringLiteral("runLogDock"), Qt::BottomDockWidgetArea);
  QDockWidget* projections = addDock(projectionBrowser_, tr("Projections"),
                                     QStringLiteral("projectionsDock"), Qt::BottomDockWidgetArea);
  tabifyDockWidget(geometry, consistency);
  geometry->raise();
  tabifyDockWidget(throughput, cnr);
  tabifyDockWidget(cnr, convergence);
  tabifyDockWidget(convergence, measurements);
  throughput->raise();
  tabifyDockWidget(runList, runLog);
  tabifyDockWidget(runLog, projections);
  runList->raise();
  dataDock_ = data;
  algorithmDock_ = algorithm;
  runListDock_ = runList;
  geometryDock_ = geometry;
  createPetDocks();
  // Tab groups made later (re-docking, View > Reset layout) show whole titles too.
  for (QDockWidget* dock : docks_)
    connect(dock, &QDockWidget::dockLocationChanged, this,
            [this] { QTimer::singleShot(0, this, [this] { showWholeDockTabTitles(*this); }); });
}

QRect MainWindow::availableScreenArea() const {
  const QScreen* shownOn = screen() != nullptr ? screen() : QGuiApplication::primaryScreen();
  return shownOn != nullptr ? shownOn->availableGeometry() : QRect(0, 0, 1920, 1080);
}

bool MainWindow::oneDockColumn() const {
  return availableScreenArea().width() < kTwoDockColumnsScreenWidth;
}

void MainWindow::fitWindowToScreen() {
  if (layout() != nullptr) layout()->activate();  // the docks' minimum as arranged now
  resize(sizeWithinScreen(this, size()));
}

void MainWindow::sizeDocks() {
  // Side columns wide enough for the forms, a short bottom row: the views get the rest.
  // The left column at its panels' preferred width (at least 340 px): narrower, Qt would widen
  // it towards that as soon as the window grows, and the width the user sees would change.
  const int left =
      std::max({340, dataDock_->sizeHint().width(), geometryDock_->sizeHint().width()});
  if (oneDockColumn()) {
    // A narrow screen (1366x768 at scale 1.25 and up, 1920x1080 at 2): the left column's docks
    // become tabs beside Algorithm, which stays in front; the views keep the width two columns
    // would take.
    QDockWidget* previous = algorithmDock_;
    for (QDockWidget* dock :
         {dataDock_, geometryDock_, findChild<QDockWidget*>(QStringLiteral("consistencyDock")),
          petDataDock_}) {
      if (dock == nullptr || dockWidgetArea(dock) != Qt::LeftDockWidgetArea) continue;
      tabifyDockWidget(previous, dock);
      previous = dock;
    }
    algorithmDock_->raise();
  }
  // The arrangement's minimum may be narrower than the window its first layout widened: back
  // inside the screen.
  fitWindowToScreen();
  if (oneDockColumn()) {
    resizeDocks({algorithmDock_}, {std::max(left, 360)}, Qt::Horizontal);
  } else {
    resizeDocks({dataDock_, algorithmDock_}, {left, 360}, Qt::Horizontal);
    resizeDocks({dataDock_, geometryDock_}, {170, 600}, Qt::Vertical);
  }
  // The bottom row: 170 px, or a sixth of a short screen's height.
  resizeDocks({runListDock_}, {std::min(170, availableScreenArea().height() / 6)}, Qt::Vertical);
  // The whole algorithm form above the plots, or the plots behind its tab when the column is too
  // short for both (DockLayout.h).
  fitAlgorithmDock(*this, algorithmDock_,
                   findChild<QDockWidget*>(QStringLiteral("throughputDock")));
  showWholeDockTabTitles(*this);
  // Tabbing the plots behind Algorithm may have made the window's minimum shorter too.
  fitWindowToScreen();
  dockSizes_->remember();
}

namespace {
// The views' units and data key follow the workspace (ViewArea: contrast that follows the data).
void followData(ViewArea& view, const Workspace& workspace) {
  view.setDataKey(QString::number(workspace.dataSet()));
  view.setDisplayUnits(displayUnitsOf(workspace, view.displayUnits().showsHu()));
}
}  // namespace

void MainWindow::connectSignals() {
  // Data in: show the views instead of the welcome page; a new volume is shown.
  connect(workspace_.get(), &Workspace::projectionsChanged, this, [this] {
    projectionBrowser_->setProjections(workspace_->projections());
    followData(*viewArea_, *workspace_);
    // Until these data have a reconstruction, the views show the data themselves.
    const NamedVolume* shown = workspace_->currentVolume();
    if (workspace_->projections() &&
        (shown == nullptr || !workspace_->volumeFromCurrentData(*shown)))
      viewArea_->showProjections(workspace_->projections(), workspace_->projectionsName());
    showWelcomeIfEmpty();
    updateRunActions();
  });
  // The demo's phantom comes after its projections: with it, water's mu (HU available).
  connect(workspace_.get(), &Workspace::phantomChanged, this,
          [this] { followData(*viewArea_, *workspace_); });
  connect(workspace_.get(), &Workspace::waterValueChanged, this,
          [this] { followData(*viewArea_, *workspace_); });
  // ROIs belong to the data they were drawn on: new projections (a new data set) drop them.
  connect(workspace_.get(), &Workspace::dataSetReplaced, this, [this] {
    viewArea_->setRois({});
    cnrPanel_->setRois({});
    compareView_->setRois({});
  });
  connect(workspace_.get(), &Workspace::currentVolumeChanged, this,
          &MainWindow::onCurrentVolumeChanged);
  connect(workspace_.get(), &Workspace::previewChanged, this, [this] {
    if (workspace_->preview()) {
      {
        const render::EventTrace::Scope traced("ViewArea::setVolume (preview)");
        viewArea_->setVolume(workspace_->preview(), workspace_->previewLabel(), true);
      }
      const render::EventTrace::Scope traced("CnrPanel::setVolume (preview)");
      // Iterates ("run 3: iteration 12") are measured at their iteration; an iterative run's other
      // previews (its FDK start filling in) in the table only; other runs' previews in turn.
      const int iteration = iterationOfPreviewLabel(workspace_->previewLabel());
      const RunInfo* run = runs_->run(runs_->runningId());
      const bool iterative = run != nullptr && ConvergencePanel::isIterative(run->spec.algorithm);
      cnrPanel_->setVolume(workspace_->preview(), workspace_->previewLabel(),
                           iteration < 0 && iterative ? CnrPanel::kTableOnly : iteration);
      if (run != nullptr && run->spec.algorithm == kPetAlgorithmId) onPetPreview();
    }
  });
  // The geometry editor's edits and selected view drive the consistency overlay.
  connect(geometryPanel_, &GeometryPanel::editedGeometryChanged, consistencyView_,
          &ConsistencyView::setEditedGeometry);
  connect(geometryPanel_, &GeometryPanel::selectedViewChanged, consistencyView_,
          &ConsistencyView::setSelectedView);
  connect(dataPanel_, &DataPanel::recentFilesChanged, this, &MainWindow::rebuildRecentMenu);
  // Preprocessing runs in the Data panel's loader (its progress bar and Cancel); say so here.
  connect(dataPanel_, &DataPanel::preprocessStarted, this, [this](const QString& label) {
    statusBar()->showMessage(tr("Preprocessing: %1 (Cancel in the Data panel)").arg(label));
  });
  connect(dataPanel_, &DataPanel::loaded, this, [this](const QString& name) {
    statusBar()->showMessage(tr("Loaded %1").arg(name), 6000);
  });
  connect(dataPanel_, &DataPanel::loadCancelled, this,
          [this] { statusBar()->showMessage(tr("Cancelled: nothing of it was kept"), 6000); });
  connect(algorithmPanel_, &AlgorithmPanel::runRequested, this, [this] { startRun(); });
  // The geometry editor warns when a short scan or offset detector lacks its weights.
  connect(algorithmPanel_, &AlgorithmPanel::paramsChanged, this,
          [this] { geometryPanel_->setRedundancyMode(algorithmPanel_->params().redundancy); });

  // Runs: progress in the status bar, previews into the views, results into the workspace.
  connect(runs_.get(), &RunController::runStarted, this, &MainWindow::onRunStarted);
  connect(runs_.get(), &RunController::runProgress, this,
          [this](int id, const QString& stage, double fraction, double elapsed, double remaining) {
            runProgress_->show();
            // QProgressBar::setValue repaints synchronously, and with VTK views in the window
            // that repaint composites the whole window at once (an 80 ms stall under software
            // OpenGL): hold its updates so the change is drawn with the next frame.
            runProgress_->setUpdatesEnabled(false);
            runProgress_->setValue(static_cast<int>(std::lround(fraction * 1000)));
            runProgress_->setFormat(QStringLiteral("%1 %p%").arg(stage));
            runProgress_->setUpdatesEnabled(true);
            runLabel_->setText(tr("run %1: %2 elapsed, %3 left")
                                   .arg(id)
                                   .arg(humanSeconds(elapsed))
                                   .arg(humanSeconds(remaining)));
          });
  connect(runs_.get(), &RunController::runPreview, this, &MainWindow::onRunPreview);
  connect(runs_.get(), &RunController::runFinished, this, &MainWindow::onRunFinished);
  connect(dataPanel_, &DataPanel::runRecordLoaded, this, &MainWindow::onRunRecordLoaded);
  connect(runs_.get(), &RunController::runFailed, this, &MainWindow::onRunFailed);
  connect(runs_.get(), &RunController::runCancelled, this, &MainWindow::onRunEnded);
  connect(runs_.get(), &RunController::queueChanged, this, &MainWindow::updateRunActions);
  connect(runListPanel_, &RunListPanel::openRunResult, this, [this](int id) {
    hideCompareView();
    openRunResult(id);
  });
  // Compare view: from the run list (Compare, Golden reference) and back.
  connect(runListPanel_, &RunListPanel::compareRequested, this, [this](const QList<int>& ids) {
    if (compareView_->compareRunSelection(std::vector<int>(ids.begin(), ids.end())))
      showCompareView();
  });
  connect(runListPanel_, &RunListPanel::goldenReferenceRequested, compareView_,
          &CompareView::requestGoldenReference);
  connect(compareView_, &CompareView::showRequested, this, &MainWindow::showCompareView);
  connect(compareView_, &CompareView::closeRequested, this, &MainWindow::hideCompareView);
  connect(compareView_, &CompareView::statusMessage, this,
          [this](const QString& text, int ms) { statusBar()->showMessage(text, ms); });
  connect(runListPanel_, &RunListPanel::selectedRunChanged, this, [this](int id) {
    if (id >= 0) throughputPanel_->showRun(id);
  });
  // One CNR curve per run.
  connect(runs_.get(), &RunController::runStarted, cnrPanel_, &CnrPanel::clearHistory);

  // ROIs drawn on the slice views feed the CNR panel.
  connect(viewArea_, &ViewArea::roisChanged, this, [this] {
    cnrPanel_->setRois(viewArea_->rois());
    compareView_->setRois(viewArea_->rois());
  });
  connect(viewArea_, &ViewArea::cursorInfo, this,
          [this](const QString& text) { statusBar()->showMessage(text); });
  connect(projectionBrowser_, &ProjectionBrowser::cursorInfo, this,
          [this](const QString& text) { statusBar()->showMessage(text); });
}

void MainWindow::onCurrentVolumeChanged() {
  const render::EventTrace::Scope traced("MainWindow::onCurrentVolumeChanged");
  const NamedVolume* v = workspace_->currentVolume();
  followData(*viewArea_, *workspace_);
  if (v != nullptr)
    viewArea_->setVolume(v->volume, v->name, false,
                         v->runId >= 0 && v->runId == resultAfterPreviewsOfRun_);
  else if (workspace_->projections() && !viewArea_->showsProjections())
    viewArea_->showProjections(workspace_->projections(), workspace_->projectionsName());
  showWelcomeIfEmpty();
  // An iterative run's result is its last iterate: its CNR point goes at that iteration.
  int iteration = -1;
  if (v != nullptr && v->runId >= 0)
    if (const RunInfo* info = runs_->run(v->runId); info != nullptr && !info->iterations.empty())
      iteration = info->iterations.back().iteration;
  cnrPanel_->setVolume(v ? v->volume : nullptr, v ? v->name : QString(), iteration);
  showPetTruthWindow();
  updateRunActions();  // Save volume and Export DICOM follow the volume shown
}

void MainWindow::onRunStarted(int id) {
  monitor_->reset();
  render::EventTrace::clear();  // --measure: the slowest events of this run and its result
  viewArea_->beginRun();  // its first preview gets its own contrast (unless the user's W/L fits)
  duringScreenshotTaken_ = false;
  previewsShown_ = 0;
  updateRunActions();
  const RunInfo* info = runs_->run(id);
  // A DIRECT run: its contrast recovery and noise as they rise.
  if (info != nullptr && info->spec.algorithm == kPetAlgorithmId && petQualityDock_ != nullptr) {
    petQualityDock_->show();
    petQualityDock_->raise();
    return;
  }
  // An iterative run: show its residual curve as it falls.
  if (info == nullptr || !ConvergencePanel::isIterative(info->spec.algorithm)) return;
  if (auto* dock = findChild<QDockWidget*>(QStringLiteral("convergenceDock"))) {
    dock->show();
    dock->raise();
  }
}

void MainWindow::onRunPreview(int id, std::shared_ptr<const Volume> volume, const QString& label) {
  const render::EventTrace::Scope traced("MainWindow::onRunPreview");
  if (const RunInfo* run = runs_->run(id); run != nullptr && run->spec.algorithm == kPetAlgorithmId)
    workspace_->showPreview(
        std::move(volume),
        tr("run %1 (%2): %3").arg(id).arg(petResultUnits(run->spec.parameters), label));
  else
    workspace_->showPreview(std::move(volume), tr("run %1: %2").arg(id).arg(label));
  ++previewsShown_;
  if (id != startupRunId_) return;
  previewTimesMs_.push_back(static_cast<double>(runClock_.nsecsElapsed()) / 1e6);
  if (firstSliceSinceLaunchMs_ < 0) firstSliceSinceLaunchMs_ = processAgeMs();
  // The tour measures CNR while the run goes on: ROIs once there is something to see.
  if (startup_.tour && previewsShown_ == 1 && workspace_->phantom()) placePhantomRois();
  // Command-line screenshots: one while the slices fill in (an iterative run: once a third of
  // its iterations are done, not during its FDK start, so the curves have something to show).
  if (startup_.screenshotDir.isEmpty() || duringScreenshotTaken_) return;
  const RunInfo* info = runs_->run(id);
  const int iteration = iterationOfPreviewLabel(label);
  const bool iterative = info != nullptr && ConvergencePanel::isIterative(info->spec.algorithm);
  const int wanted = iterative ? std::max(1, info->spec.parameters.value("iterations", 0) / 3) : 0;
  if (iteration < wanted && (iteration >= 0 || iterative)) return;
  duringScreenshotTaken_ = true;
  QTimer::singleShot(50, this, [this] { takeDuringRunScreenshot(); });
}

void MainWindow::showWelcomeIfEmpty() {
  const bool empty =
      !workspace_->projections() && !workspace_->petData() && workspace_->volumes().empty();
  if (!empty && compareViewShown()) return;  // the compare view stays until it is closed
  centre_->setCurrentWidget(empty ? welcomePage_ : static_cast<QWidget*>(viewArea_));
}

void MainWindow::openDemo(DemoKind kind, int size) {
  dataPanel_->openDemo(kind, size);
  if (kind != DemoKind::SheppLogan && kind != DemoKind::Cnr) return;
  // A cone-beam demo of size N reconstructs N^3 voxels over the field of view (--demo-size 128:
  // 128^3, not the field of view's 126 x 126 x 150), once its projections are in.
  auto once = std::make_shared<QMetaObject::Connection>();
  *once = connect(workspace_.get(), &Workspace::phantomChanged, this, [this, once, size] {
    if (!workspace_->phantom()) return;  // the old data's phantom going
    disconnect(*once);
    algorithmPanel_->setVolumeEdge(size);
  });
}

void MainWindow::openFiles(const QStringList& paths) {
  dataPanel_->openFiles(paths);
}

int MainWindow::startRun() {
  // PET list mode open: DIRECT (the algorithm dock shows its page).
  if (workspace_->petData()) return startPetRun();
  QString why;
  if (!algorithmPanel_->validate(&why)) {
    statusBar()->showMessage(tr("Cannot run: %1").arg(why), 8000);
    if (isVisible() && startup_.screenshotDir.isEmpty())
      QMessageBox::information(this, tr("Cannot run"), why);
    return -1;
  }
  try {
    // Any algorithm of the catalogue: its descriptor checks the panel's parameters and runs them.
    const catalog::AlgorithmDescriptor& algorithm = algorithmPanel_->descriptor();
    const catalog::JobInputs inputs = algorithmPanel_->jobInputs();
    RunSpec spec =
        makeCatalogRun(algorithm, workspace_->projections(), algorithmPanel_->algorithmParameters(),
                       inputs, workspace_->geometry(), algorithmPanel_->threadCount(),
                       inputs.initialVolume ? algorithmPanel_->warmStartRunId() : -1);
    spec.parameters["rois"] = cnrPanel_->roisJson();
    spec.parameters["input"]["name"] = workspace_->projectionsName().toStdString();
    spec.parameters["input"]["path"] = workspace_->projectionsPath().toStdString();
#ifdef TOMOWB_HAVE_DICOM
    // Provenance of exported series (DicomExportDialog): the geometry this run uses.
    if (const Geometry* geometry = workspace_->geometry())
      spec.parameters["input"]["geometrySha256"] =
          io::dicom::sha256Hex(geometryToJson(*geometry).dump());
#endif
    const int id = runs_->enqueue(std::move(spec));
    // What the run reads, for its golden reference (the compare view).
    compareView_->noteRunInput(id, workspace_->projections(), workspace_->geometry());
    workspace_->noteRunDataSet(id);
    statusBar()->showMessage(
        runs_->runningId() == id ? tr("Run %1 started").arg(id) : tr("Run %1 queued").arg(id),
        4000);
    return id;
  } catch (const std::exception& e) {
    QMessageBox::warning(this, tr("Cannot run"), QString::fromStdString(e.what()));
    return -1;
  }
}

void MainWindow::cancelRun() {
  const int id = runs_->runningId();
  if (id >= 0) runs_->cancel(id);
}

void MainWindow::onRunFinished(int id) {
  const render::EventTrace::Scope traced("MainWindow::onRunFinished");
  writeRunRecordOf(id);
  const RunInfo* info = runs_->run(id);
  if (info != nullptr && info->result) {
    const QString name = QStringLiteral("run %1: %2").arg(id).arg(info->spec.title);
    // An iterative run's result takes the place of its iterates as they were shown (the W/L the
    // user watched them refine in; FDK results get their own, previews being partial sums).
    const auto& preview = workspace_->preview();
    if (preview && preview->shape() == info->result->shape() &&
        ConvergencePanel::isIterative(info->spec.algorithm))
      resultAfterPreviewsOfRun_ = id;
    workspace_->clearPreview();
    // A PET image says its units first (the views' titles are cut at their right edge).
    const int index = workspace_->addVolume(
        {info->spec.algorithm == kPetAlgorithmId
             ? tr("run %1 (%2): %3")
                   .arg(id)
                   .arg(petResultUnits(info->spec.parameters), info->spec.title)
             : name,
         QString(), info->result, id});
    // The first volume became current as it was added: showing it twice would cost twice.
    if (workspace_->currentVolumeIndex() != index) workspace_->setCurrentVolume(index);
    resultAfterPreviewsOfRun_ = -1;
    statusBar()->showMessage(tr("Run %1 finished in %2").arg(id).arg(humanSeconds(info->seconds)),
                             8000);
  }
  onRunEnded(id);
}

void MainWindow::writeRunRecordOf(int id) {
  const render::EventTrace::Scope traced("MainWindow::writeRunRecordOf");
  const RunInfo* info = runs_->run(id);
  if (info == nullptr || info->spec.parameters.contains("openedRecord") ||
      runRecordsFolder_.isEmpty())
    return;
  // The projections and geometry the run used are the current ones: a run starts from them
  // and the window does not let them change under a run it shows.
  // A PET run read list mode: its file (if any) is the input, and there is no geometry.
  const bool pet = info->spec.algorithm == kPetAlgorithmId;
  const QString input =
      pet ? QString::fromStdString(info->spec.parameters.value("input", nlohmann::json::object())
                                       .value("path", std::string()))
          : workspace_->projectionsPath();
  std::optional<Geometry> geometry;
  if (!pet && workspace_->geometry() != nullptr) geometry = *workspace_->geometry();
  // On a worker thread, with copies: the record hashes its input files (SHA-256), seconds for a
  // projections file of some GB, which on the GUI thread froze the window as the result came in.
  std::packaged_task<std::string()> task(
      [run = *info, input, geometry = std::move(geometry), folder = runRecordsFolder_, id] {
        const qa::RunRecord record =
            makeGuiRunRecord(run, input, geometry.has_value() ? &*geometry : nullptr);
        return writeGuiRunRecord(folder, record, id).string();
      });
  pendingRunRecords_[id] = task.get_future().share();
  QPointer<MainWindow> self(this);
  std::thread([task = std::move(task), self, id]() mutable {
    task();
    if (QCoreApplication* app = QCoreApplication::instance())
      QMetaObject::invokeMethod(
          app,
          [self, id] {
            if (!self.isNull()) self->finishRunRecord(id);
          },
          Qt::QueuedConnection);
  }).detach();
}

void MainWindow::finishRunRecord(int id) {
  const auto it = pendingRunRecords_.find(id);
  if (it == pendingRunRecords_.end()) return;
  const std::shared_future<std::string> written = it->second;
  pendingRunRecords_.erase(it);
  try {
    runs_->setRecordPath(id, QString::fromStdString(written.get()));
  } catch (const std::exception& e) {
    statusBar()->showMessage(
        tr("Run %1: no run record written: %2").arg(id).arg(QString::fromStdString(e.what())),
        8000);
  }
}

void MainWindow::finishRunRecords() {
  while (!pendingRunRecords_.empty()) finishRunRecord(pendingRunRecords_.begin()->first);
}

void MainWindow::onRunRecordLoaded(const LoadResult& result) {
  if (!result.runRecord) return;
  const OpenedRunRecord& opened = *result.runRecord;
  const int id = runs_->addEndedRun(runSpecForRecord(opened, result.path), opened.volume,
                                    runListRecordFor(opened, result.path),
                                    recordedSeconds(opened.record), result.path);
  runListPanel_->selectRun(id);
  if (runListDock_ != nullptr) runListDock_->raise();
  if (!opened.warnings.isEmpty()) {
    const QString text =
        tr("Run record %1: %2").arg(result.name, opened.warnings.join(QStringLiteral("; ")));
    statusBar()->showMessage(text, 10000);
    // Non-modal: the window stays usable (a changed output is worth a look, not a stop).
    auto* box =
        new QMessageBox(QMessageBox::Warning, tr("Run record"), text, QMessageBox::Ok, this);
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->open();
  } else {
    statusBar()->showMessage(tr("Opened run record %1 as run %2").arg(result.name).arg(id), 8000);
  }
}

void MainWindow::showSweepDialog() {
  auto* dialog = new SweepDialog(*workspace_, *algorithmPanel_, this);
  dialog->setAttribute(Qt::WA_DeleteOnClose);
  dialog->show();
}

ClusterDialog* MainWindow::showClusterDialog() {
  auto* dialog = new ClusterDialog(*workspace_, *algorithmPanel_, this);
  dialog->setAttribute(Qt::WA_DeleteOnClose);
  connect(dialog, &ClusterDialog::resultReady, this,
          [this](const QString& path) { dataPanel_->openAsVolume(path); });
  dialog->show();
  return dialog;
}

void MainWindow::onRunFailed(int id, const QString& message) {
  workspace_->clearPreview();
  if (id != startupRunId_ || startup_.screenshotDir.isEmpty())
    QMessageBox::warning(this, tr("Run %1 failed").arg(id), message);
  onRunEnded(id);
}

void MainWindow::onRunEnded(int id) {
  // The stall figure of the run includes showing its result: taken once that is on screen.
  QTimer::singleShot(500, this, [this] {
    if (runs_->runningId() < 0) lastRunMaxStallMs_ = monitor_->maxStallMs();
  });
  const RunInfo* info = runs_->run(id);
  if (info != nullptr && info->state == RunState::Cancelled) {
    workspace_->clearPreview();
    // Back to what was shown before the run.
    if (const NamedVolume* v = workspace_->currentVolume())
      viewArea_->setVolume(v->volume, v->name, false);
    else if (workspace_->projections())  // the data, as before the run
      viewArea_->showProjections(workspace_->projections(), workspace_->projectionsName());
    statusBar()->showMessage(tr("Run %1 cancelled: nothing was kept").arg(id), 8000);
  }
  runProgress_->setVisible(runs_->runningId() >= 0);
  runLabel_->setText(runs_->busy() ? tr("running") : tr("idle"));
  updateRunActions();
  if (id == startupRunId_) {
    const bool ok = info != nullptr && info->state == RunState::Finished;
    // Let the views draw the final volume before the screenshots.
    const bool iterativeRun =
        info != nullptr && ConvergencePanel::isIterative(info->spec.algorithm);
    QTimer::singleShot(600, this, [this, ok, iterativeRun] { finishStartupRun(ok, iterativeRun); });
  }
}

void MainWindow::openRunResult(int id) {
  const RunInfo* info = runs_->run(id);
  if (info == nullptr || !info->result) return;
  for (std::size_t i = 0; i < workspace_->volumes().size(); ++i)
    if (workspace_->volumes()[i].runId == id) {
      workspace_->setCurrentVolume(static_cast<int>(i));
      return;
    }
  const int index = workspace_->addVolume(
      {QStringLiteral("run %1: %2").arg(id).arg(info->spec.title), QString(), info->result, id});
  workspace_->setCurrentVolume(index);
}

void MainWindow::updateRunActions() {
  const bool haveProjections = workspace_->projections() != nullptr || workspace_->petData();
  runAction_->setEnabled(haveProjections);
  runAction_->setToolTip(haveProjections ? tr("Reconstruct (Ctrl+R)")
                                         : tr("Open projections, PET list mode or a demo first"));
  cancelAction_->setEnabled(runs_->runningId() >= 0);
  saveVolumeAction_->setEnabled(workspace_->currentVolume() != nullptr);
  if (exportDicomAction_ != nullptr) {
    exportDicomAction_->setEnabled(workspace_->currentVolume() != nullptr);
    exportDicomAction_->setToolTip(workspace_->currentVolume() != nullptr
                                       ? tr("Export the volume shown as DICOM (Ctrl+Shift+E)")
                                       : tr("Reconstruct or open a volume first"));
  }
}

void MainWindow::saveCurrentVolume() {
  const NamedVolume* v = workspace_->currentVolume();
  if (v == nullptr) return;
  const QString path = QFileDialog::getSaveFileName(
      this, tr("Save volume"), QStringLiteral("volume.mhd"),
      tr("MetaImage (*.mhd *.mha);;NumPy (*.npy);;TIFF stack (*.tif *.tiff);;Raw + JSON (*.raw)"));
  if (path.isEmpty()) return;
  saveCurrentVolumeTo(path);
}

bool MainWindow::saveCurrentVolumeTo(const QString& path) {
  const NamedVolume* v = workspace_->currentVolume();
  if (v == nullptr) return false;
  try {
    io::writeVolume(path.toStdString(), *v->volume);  // written to a temporary name, then renamed
    safetyNet_->noteCurrentVolumeSaved(path);
    // A run's result: NAME.run.json beside it, the run's record with this output.
    if (v->runId >= 0) finishRunRecord(v->runId);  // its record may still be being written
    const RunInfo* run = v->runId >= 0 ? runs_->run(v->runId) : nullptr;
    if (run != nullptr && !run->recordPath.isEmpty()) {
      const std::filesystem::path record = writeSavedVolumeRecord(
          qa::readRunRecord(run->recordPath.toStdString()), path.toStdString());
      statusBar()->showMessage(
          tr("Saved %1 and its run record %2").arg(path, QString::fromStdString(record.string())),
          6000);
    } else {
      statusBar()->showMessage(tr("Saved %1").arg(path), 6000);
    }
    return true;
  } catch (const std::exception& e) {
    QMessageBox::warning(this, tr("Save volume"), QString::fromStdString(e.what()));
    return false;
  }
}

void MainWindow::showDicomExportDialog() {
#ifdef TOMOWB_HAVE_DICOM
  const NamedVolume* v = workspace_->currentVolume();
  if (v == nullptr || !v->volume) return;
  const RunInfo* run = v->runId >= 0 ? runs_->run(v->runId) : nullptr;
  auto* dialog = new DicomExportDialog(v->volume, v->name, dicomProvenance(*v, run), this);
  dialog->setAttribute(Qt::WA_DeleteOnClose);
  // A DIRECT result: PET Image Storage, its units and the acquisition's radiopharmaceutical,
  // decay correction and frame duration filled in.
  if (run != nullptr && run->spec.algorithm == kPetAlgorithmId)
    dialog->setOptions(petDicomExportOptions(run->spec.parameters, dialog->options()));
  else  // HU only for CT data with a known water value; the volume's own values otherwise
    dialog->setDataUnits(workspace_->volumeFromCurrentData(*v) && v->runId >= 0
                             ? displayUnitsOf(*workspace_)
                             : DisplayUnits{});
  connect(dialog, &DicomExportDialog::exportSucceeded, this,
          [this, dialog, volume = v->volume](const QString& summary) {
            workspace_->noteVolumeSaved(volume.get(), dialog->outputFolder());
            statusBar()->showMessage(summary, 20000);
          });
  connect(dialog, &DicomExportDialog::exportCancelled, this,
          [this](const QString& message) { statusBar()->showMessage(message, 8000); });
  dialog->open();
#endif
}

void MainWindow::exportViewScreenshot() {
  const QString path = QFileDialog::getSaveFileName(
      this, tr("Save view screenshot"), QStringLiteral("views.png"), tr("PNG images (*.png)"));
  if (path.isEmpty()) return;
  if (!viewArea_->saveScreenshot(path))
    QMessageBox::warning(this, tr("Screenshot"), tr("Could not write %1").arg(path));
}

bool MainWindow::saveWindowScreenshot(const QString& path) {
  // QWidget::grab renders every QOpenGLWidget (the VTK views) through its framebuffer.
  const bool saved = savePngAtomically(path, grab());
  monitor_->excuse();  // a scripted screenshot is not a stall a user would see
  return saved;
}

void MainWindow::askWaterValue() {
  const Geometry* g = workspace_->geometry();
  if (g == nullptr || isTiltSeries(*g) || workspace_->petData()) return;
  // 0.0192/mm: water at about 70 keV, a typical effective energy of a 120 kVp CT scan.
  constexpr double kTypicalWaterPerMm = 0.0192;
  bool ok = false;
  const double value = QInputDialog::getDouble(
      this, tr("Water value for HU"),
      tr("Attenuation of water at this scan's effective energy (1/mm).\nHU = 1000 (value - "
         "water) / water. Calibrate it with a water phantom scanned the same way."),
      workspace_->waterValuePerMm().value_or(kTypicalWaterPerMm), 1e-6, 10.0, 6, &ok);
  if (!ok) return;
  workspace_->setWaterValuePerMm(value);
  statusBar()->showMessage(
      tr("Water value %1/mm: the HU button shows these data in Hounsfield units").arg(value), 8000);
}

void MainWindow::resetLayout() {
  // The arrangement of createDocks(), then the default sizes.
  restoreState(defaultState_);
  for (QDockWidget* dock : docks_) {
    dock->setFloating(false);
    dock->show();
  }
  sizeDocks();
  // The PET docks belong to PET data; while it is open the CT/ET docks step aside.
  hiddenForPet_.clear();
  if (workspace_->petData()) {
    onPetDataChanged();
  } else {
    petDataDock_->hide();
    petQualityDock_->hide();
  }
}

void MainWindow::restoreSettings() {
  QSettings settings;
  settings.beginGroup(QStringLiteral("mainWindow"));
  if (settings.contains(QStringLiteral("geometry")))
    restoreGeometry(settings.value(QStringLiteral("geometry")).toByteArray());
  if (settings.contains(QStringLiteral("state")))
    restoredState_ = restoreState(settings.value(QStringLiteral("state")).toByteArray());
  setTheme(static_cast<Theme>(settings.value(QStringLiteral("theme"), 0).toInt()));
  settings.endGroup();
  rebuildRecentMenu();
}

void MainWindow::saveSettings() const {
  QSettings settings;
  settings.beginGroup(QStringLiteral("mainWindow"));
  settings.setValue(QStringLiteral("geometry"), saveGeometry());
  settings.setValue(QStringLiteral("state"), saveState());
  settings.setValue(QStringLiteral("theme"), static_cast<int>(theme_));
  settings.endGroup();
}

void MainWindow::closeEvent(QCloseEvent* event) {
  if (runs_->busy() && startup_.screenshotDir.isEmpty() && isVisible()) {
    const auto answer = QMessageBox::question(
        this, tr("Quit"), tr("A reconstruction is running. Cancel it and quit?"),
        QMessageBox::Yes | QMessageBox::No, QMessageBox::No);
    if (answer != QMessageBox::Yes) {
      event->ignore();
      return;
    }
  }
  // Unsaved results: Save…/Discard/Cancel (SafetyNet.h); scripted runs are not asked.
  if (startup_.screenshotDir.isEmpty() && isVisible() && !safetyNet_->confirmQuit()) {
    event->ignore();
    return;
  }
  hideCompareView();  // the side docks come back before the layout is saved
  saveSettings();
  safetyNet_->noteCleanExit();
  event->accept();
}

bool MainWindow::compareViewShown() const {
  return centre_->currentWidget() == compareView_;
}

void MainWindow::showCompareView() {
  if (!compareViewShown()) {
    // The views need the width: the side docks step aside until the compare view is closed.
    // Open docks only (a tab behind another counts as open), the raised tabs raised again.
    dockedAsideForCompare_.clear();
    raisedBeforeCompare_.clear();
    for (QDockWidget* dock : docks_) {
      const Qt::DockWidgetArea area = dockWidgetArea(dock);
      if (dock->toggleViewAction()->isChecked() && !dock->isFloating() &&
          (area == Qt::LeftDockWidgetArea || area == Qt::RightDockWidgetArea)) {
        dockedAsideForCompare_ << dock;
        if (dock->isVisible()) raisedBeforeCompare_ << dock;
      }
    }
    for (const QPointer<QDockWidget>& dock : dockedAsideForCompare_) dock->hide();
    centre_->setCurrentWidget(compareView_);
  }
}

void MainWindow::hideCompareView() {
  if (!compareViewShown()) return;
  for (const QPointer<QDockWidget>& dock : dockedAsideForCompare_)
    if (dock) dock->show();
  for (const QPointer<QDockWidget>& dock : raisedBeforeCompare_)
    if (dock) dock->raise();
  dockedAsideForCompare_.clear();
  raisedBeforeCompare_.clear();
  centre_->setCurrentWidget(viewArea_);
  showWelcomeIfEmpty();
}

void MainWindow::showEvent(QShowEvent* event) {
  QMainWindow::showEvent(event);
  if (shownOnce_) return;
  shownOnce_ = true;
  // Dock sizes only take once the window is laid out: the default arrangement is made here, on
  // the first show (unless a saved one was restored), and remembered for View > Reset layout.
  QTimer::singleShot(0, this, [this] {
    // The docks' first layout may have widened the window past the screen: back inside it.
    resize(sizeWithinScreen(this, size()));
    if (!restoredState_)
      sizeDocks();
    else
      dockSizes_->remember();  // the restored sizes are the ones to give back after a resize
  });
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event) {
  if (event->mimeData()->hasUrls()) event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* event) {
  QStringList paths;
  for (const QUrl& url : event->mimeData()->urls())
    if (url.isLocalFile()) paths << url.toLocalFile();
  if (!paths.isEmpty()) {
    openFiles(paths);
    event->acceptProposedAction();
  }
}

void MainWindow::changeEvent(QEvent* event) {
  if (event->type() == QEvent::ThemeChange && theme_ == Theme::System) setTheme(Theme::System);
  QMainWindow::changeEvent(event);
}

}  // namespace tomowb::gui
