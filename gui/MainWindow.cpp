// MainWindow: see the header.
#include "gui/MainWindow.h"

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
#include "gui/ProjectionBrowser.h"
#include "gui/RunListPanel.h"
#include "gui/RunLogPanel.h"
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
#include "recon/cuda/GpuDevices.h"
#include "recon/io/VolumeFiles.h"
#include "recon/job/GpuMonitor.h"
#include "render/SliceRoi.h"
#ifdef TOMOWB_HAVE_DICOM
#include "gui/DicomExportDialog.h"
#include "recon/geometry/GeometryJson.h"
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

QString humanSeconds(double seconds) {
  if (seconds < 0) return QStringLiteral("?");
  if (seconds < 60) return QStringLiteral("%1 s").arg(seconds, 0, 'f', 1);
  const int s = static_cast<int>(std::lround(seconds));
  return QStringLiteral("%1:%2 min").arg(s / 60).arg(s % 60, 2, 10, QLatin1Char('0'));
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

bool isEtSpecimen(const phantom::Phantom* p) {
  return p != nullptr && p->name() == "et-specimen";
}

// True when every sample of a disc (radius r around c in the x-z plane at y) has the value v.
bool discIsUniform(const phantom::Phantom& p, double y, const Eigen::Vector2d& c, double r,
                   double v) {
  constexpr int kRings = 4, kPerRing = 16;
  for (int ring = 0; ring <= kRings; ++ring)
    for (int k = 0; k < (ring == 0 ? 1 : kPerRing); ++k) {
      const double a = 2.0 * std::numbers::pi * k / kPerRing, rr = r * ring / kRings;
      const Eigen::Vector3d at(c.x() + rr * std::cos(a), y, c.y() + rr * std::sin(a));
      if (std::abs(p.valueAt(at) - v) > 1e-9 * std::max(1.0, std::abs(v))) return false;
    }
  return true;
}

// CNR ROIs for the ET demo's specimen (etSpecimenPhantom), all on the mid-plane y = 0 that the
// coronal view shows first (the specimen seen from the beam at tilt 0, free of the missing
// wedge's elongation): circles inside the two largest cells that cross it, against a disc of
// bare embedding slab.
std::vector<render::SliceRoi> etSpecimenRois(const phantom::Phantom& p) {
  const auto& shapes = p.ellipsoids();
  std::vector<render::SliceRoi> rois;
  if (shapes.empty()) return rois;
  const double slab = shapes.front().density;
  // Cells add 0.2 to 0.8 (Phantom.h); the L marker adds 1 and the gold beads 10, five and fifty
  // times the slab's 0.2.
  std::vector<std::size_t> cells;
  for (std::size_t i = 1; i < shapes.size(); ++i)
    if (shapes[i].density < 5.0 * slab) cells.push_back(i);
  std::sort(cells.begin(), cells.end(), [&](std::size_t a, std::size_t b) {
    return shapes[a].semiAxesMm.minCoeff() > shapes[b].semiAxesMm.minCoeff();
  });
  int id = 1000;
  for (const std::size_t i : cells) {
    const phantom::Ellipsoid& e = shapes[i];
    const Eigen::Vector2d centre(e.centreMm.x(), e.centreMm.z());
    const double inside = p.valueAt({centre.x(), 0.0, centre.y()});
    const double radius = 0.45 * e.semiAxesMm.minCoeff();
    if (inside <= slab || !discIsUniform(p, 0.0, centre, radius, inside)) continue;
    render::SliceRoi roi;
    roi.id = ++id;
    roi.label = QObject::tr("cell %1").arg(rois.size() + 1);
    roi.role = render::SliceRoi::Signal;
    roi.axis = 1;
    roi.centreMm = centre;
    roi.halfSizeMm = Eigen::Vector2d::Constant(radius);
    rois.push_back(roi);
    if (rois.size() == 2) break;
  }
  // Background: the largest disc of bare slab found on a coarse grid of the mid-plane.
  const Eigen::Vector3d lo = p.boxMinMm(), hi = p.boxMaxMm();
  const double step = (hi.x() - lo.x()) / 40.0;
  bool found = false;
  for (double radius = (hi.z() - lo.z()) / 8; radius > step / 2 && !found; radius *= 0.75)
    for (double z = lo.z() + radius; z <= hi.z() - radius && !found; z += step)
      for (double x = lo.x() + radius; x <= hi.x() - radius && !found; x += step)
        if (discIsUniform(p, 0.0, {x, z}, radius, slab)) {
          render::SliceRoi bg;
          bg.id = 1000;
          bg.label = QObject::tr("slab");
          bg.role = render::SliceRoi::Background;
          bg.axis = 1;
          bg.centreMm = {x, z};
          bg.halfSizeMm = Eigen::Vector2d::Constant(radius);
          rois.push_back(bg);
          found = true;
        }
  return rois;
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
  createActions();
  createMenus();
  createToolBar();
  createStatusBar();
  connectSignals();
  resize(1500, 950);
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
  welcomeLayout->addWidget(title);
  auto* buttons = new QHBoxLayout;
  buttons->addStretch(1);
  auto* demoButton = new QPushButton(tr("Open demo: Shepp-Logan cone beam"), welcome_);
  demoButton->setObjectName(QStringLiteral("welcomeDemoButton"));
  auto* cnrButton = new QPushButton(tr("Open demo: CNR phantom"), welcome_);
  auto* etButton = new QPushButton(tr("Open demo: electron tomography"), welcome_);
  etButton->setObjectName(QStringLiteral("welcomeEtDemoButton"));
  etButton->setToolTip(tr("Tilt series of a cell specimen, -60..+60 degrees: run SIRT on it"));
  auto* openButton = new QPushButton(tr("Open file…"), welcome_);
  for (QPushButton* b : {demoButton, cnrButton, etButton, openButton}) {
    b->setMinimumHeight(36);
    buttons->addWidget(b);
  }
  buttons->addStretch(1);
  welcomeLayout->addLayout(buttons);
  welcomeLayout->addStretch(3);
  connect(demoButton, &QPushButton::clicked, this, [this] { openDemo(DemoKind::SheppLogan); });
  connect(cnrButton, &QPushButton::clicked, this, [this] { openDemo(DemoKind::Cnr); });
  connect(etButton, &QPushButton::clicked, this,
          [this] { openDemo(DemoKind::ElectronTomography); });
  connect(openButton, &QPushButton::clicked, this, [this] { dataPanel_->showOpenDialog(); });

  viewArea_ = new ViewArea(centre_);
  compareView_ = new CompareView(*workspace_, *runs_, centre_);
  centre_->addWidget(welcome_);
  centre_->addWidget(viewArea_);
  centre_->addWidget(compareView_);
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
}

QDockWidget* MainWindow::addDock(QWidget* panel, const QString& title, const QString& objectName,
                                 Qt::DockWidgetArea area) {
  auto* dock = new QDockWidget(title, this);
  dock->setObjectName(objectName);
  // A scroll area lets a tall panel (the geometry form, the algorithm panel) share a column
  // with others on a small screen instead of pushing the window past the screen's height.
  auto* scroll = new QScrollArea(dock);
  scroll->setWidgetResizable(true);
  scroll->setFrameShape(QFrame::NoFrame);
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
  // bottom: runs, log and projections.
  QDockWidget* data =
      addDock(dataPanel_, tr("Data"), QStringLiteral("dataDock"), Qt::LeftDockWidgetArea);
  QDockWidget* geometry = addDock(geometryPanel_, tr("Geometry"), QStringLiteral("geometryDock"),
                                  Qt::LeftDockWidgetArea);
  QDockWidget* consistency = addDock(consistencyView_, tr("Consistency"),
                                     QStringLiteral("consistencyDock"), Qt::LeftDockWidgetArea);
  QDockWidget* algorithm = addDock(algorithmPanel_, tr("Algorithm"),
                                   QStringLiteral("algorithmDock"), Qt::RightDockWidgetArea);
  QDockWidget* throughput = addDock(throughputPanel_, tr("Throughput"),
                                    QStringLiteral("throughputDock"), Qt::RightDockWidgetArea);
  QDockWidget* cnr =
      addDock(cnrPanel_, tr("CNR"), QStringLiteral("cnrDock"), Qt::RightDockWidgetArea);
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
  throughput->raise();
  tabifyDockWidget(runList, runLog);
  tabifyDockWidget(runLog, projections);
  runList->raise();
  dataDock_ = data;
  algorithmDock_ = algorithm;
  runListDock_ = runList;
  geometryDock_ = geometry;
}

void MainWindow::sizeDocks() {
  // Side columns wide enough for the forms, a short bottom row: the views get the rest.
  resizeDocks({dataDock_, algorithmDock_}, {340, 360}, Qt::Horizontal);
  resizeDocks({dataDock_, geometryDock_}, {170, 600}, Qt::Vertical);
  resizeDocks({runListDock_}, {170}, Qt::Vertical);
}

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
  recentMenu_ = file->addMenu(tr("Open &recent"));
  file->addSeparator();
  file->addAction(demoAction_);
  file->addAction(cnrDemoAction_);
  file->addAction(etDemoAction_);
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
  run->addSeparator();
  run->addAction(runListPanel_->goldenReferenceAction());
  run->addAction(compareAction_);
  run->addAction(sweepAction_);
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

void MainWindow::connectSignals() {
  // Data in: show the views instead of the welcome page; a new volume is shown.
  connect(workspace_.get(), &Workspace::projectionsChanged, this, [this] {
    projectionBrowser_->setProjections(workspace_->projections());
    showWelcomeIfEmpty();
    updateRunActions();
  });
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
      viewArea_->setVolume(workspace_->preview(), workspace_->previewLabel(), true);
      // Iterates ("run 3: iteration 12") are measured at their iteration, other previews in turn.
      cnrPanel_->setVolume(workspace_->preview(), workspace_->previewLabel(),
                           iterationOfPreviewLabel(workspace_->previewLabel()));
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
  const NamedVolume* v = workspace_->currentVolume();
  if (v != nullptr)
    viewArea_->setVolume(v->volume, v->name, false,
                         v->runId >= 0 && v->runId == resultAfterPreviewsOfRun_);
  showWelcomeIfEmpty();
  // An iterative run's result is its last iterate: its CNR point goes at that iteration.
  int iteration = -1;
  if (v != nullptr && v->runId >= 0)
    if (const RunInfo* info = runs_->run(v->runId); info != nullptr && !info->iterations.empty())
      iteration = info->iterations.back().iteration;
  cnrPanel_->setVolume(v ? v->volume : nullptr, v ? v->name : QString(), iteration);
  updateRunActions();  // Save volume and Export DICOM follow the volume shown
}

void MainWindow::onRunStarted(int id) {
  monitor_->reset();
  duringScreenshotTaken_ = false;
  previewsShown_ = 0;
  updateRunActions();
  // An iterative run: show its residual curve as it falls.
  const RunInfo* info = runs_->run(id);
  if (info == nullptr || !ConvergencePanel::isIterative(info->spec.algorithm)) return;
  if (auto* dock = findChild<QDockWidget*>(QStringLiteral("convergenceDock"))) {
    dock->show();
    dock->raise();
  }
}

void MainWindow::onRunPreview(int id, std::shared_ptr<const Volume> volume, const QString& label) {
  workspace_->showPreview(std::move(volume), tr("run %1: %2").arg(id).arg(label));
  ++previewsShown_;
  if (id != startupRunId_) return;
  // The tour measures CNR while the run goes on: ROIs once there is something to see.
  if (startup_.tour && previewsShown_ == 1 &&
      (workspace_->cnrPhantom() || isEtSpecimen(workspace_->phantom().get())))
    placePhantomRois();
  // Command-line screenshots: one while the slices fill in (an iterative run: once a third of
  // its iterations are done, so the curves and slices have something to show).
  if (startup_.screenshotDir.isEmpty() || duringScreenshotTaken_) return;
  const RunInfo* info = runs_->run(id);
  const int iteration = iterationOfPreviewLabel(label);
  const int wanted =
      info != nullptr ? std::max(1, info->spec.parameters.value("iterations", 0) / 3) : 0;
  if (iteration >= 0 && iteration < wanted) return;
  duringScreenshotTaken_ = true;
  QTimer::singleShot(50, this, [this] { takeDuringRunScreenshot(); });
}

void MainWindow::takeDuringRunScreenshot() {
  const QDir dir(startup_.screenshotDir);
  saveWindowScreenshot(dir.filePath(QStringLiteral("tomowb-during-run.png")));
  // Iterative runs: the convergence and CNR docks as they are now, too.
  const RunInfo* info = runs_->run(startupRunId_);
  if (info == nullptr || !ConvergencePanel::isIterative(info->spec.algorithm)) return;
  convergencePanel_->exportPng(dir.filePath(QStringLiteral("tomowb-convergence-during-run.png")));
}

void MainWindow::showWelcomeIfEmpty() {
  const bool empty = !workspace_->projections() && workspace_->volumes().empty();
  if (!empty && compareViewShown()) return;  // the compare view stays until it is closed
  centre_->setCurrentWidget(empty ? welcome_ : static_cast<QWidget*>(viewArea_));
}

void MainWindow::openDemo(DemoKind kind, int size) {
  dataPanel_->openDemo(kind, size);
}

void MainWindow::openFiles(const QStringList& paths) {
  dataPanel_->openFiles(paths);
}

int MainWindow::startRun() {
  QString why;
  if (!algorithmPanel_->validate(&why)) {
    statusBar()->showMessage(tr("Cannot run: %1").arg(why), 8000);
    if (isVisible() && startup_.screenshotDir.isEmpty())
      QMessageBox::information(this, tr("Cannot run"), why);
    return -1;
  }
  try {
    // Any algorithm of the catalogue: its descriptor checks the panel's parameters and runs them.
    const catalog::AlgorithmDescriptor& algorithm = catalog::AlgorithmCatalog::builtins().require(
        algorithmId(algorithmPanel_->algorithm()).toStdString());
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
    const int index = workspace_->addVolume({name, QString(), info->result, id});
    workspace_->setCurrentVolume(index);
    resultAfterPreviewsOfRun_ = -1;
    statusBar()->showMessage(tr("Run %1 finished in %2").arg(id).arg(humanSeconds(info->seconds)),
                             8000);
  }
  onRunEnded(id);
}

void MainWindow::writeRunRecordOf(int id) {
  const RunInfo* info = runs_->run(id);
  if (info == nullptr || info->spec.parameters.contains("openedRecord") ||
      runRecordsFolder_.isEmpty())
    return;
  try {
    // The projections and geometry the run used are the current ones: a run starts from them
    // and the window does not let them change under a run it shows.
    const qa::RunRecord record =
        makeGuiRunRecord(*info, workspace_->projectionsPath(), workspace_->geometry());
    const std::filesystem::path path = writeGuiRunRecord(runRecordsFolder_, record, id);
    runs_->setRecordPath(id, QString::fromStdString(path.string()));
  } catch (const std::exception& e) {
    statusBar()->showMessage(
        tr("Run %1: no run record written: %2").arg(id).arg(QString::fromStdString(e.what())),
        8000);
  }
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

void MainWindow::finishStartupRun(bool ok, bool iterativeRun) {
  if (!startup_.screenshotDir.isEmpty()) {
    QDir().mkpath(startup_.screenshotDir);
    const QDir dir(startup_.screenshotDir);
    saveWindowScreenshot(dir.filePath(QStringLiteral("tomowb-after-run.png")));
    viewArea_->saveScreenshot(dir.filePath(QStringLiteral("tomowb-views.png")));
    // Iterative runs: the whole algorithm panel (the dock shows only its top) and the
    // convergence plots at their full size too.
    if (iterativeRun) {
      savePngAtomically(dir.filePath(QStringLiteral("tomowb-algorithm.png")),
                        algorithmPanel_->grab());
      convergencePanel_->exportPng(dir.filePath(QStringLiteral("tomowb-convergence-panel.png")));
    }
    writeRunSummary(startupRunId_, dir.filePath(QStringLiteral("run-summary.json")));
  }
  auto finish = [this, ok] {
    emit startupRunDone(ok);
    if (startup_.quitAfterRun) QApplication::exit(ok ? 0 : 1);
  };
  if (startup_.tour && !startup_.screenshotDir.isEmpty())
    takeTourScreenshots(finish);
  else
    finish();
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
  if (workspace_->cnrPhantom() || isEtSpecimen(workspace_->phantom().get()))
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
  const auto& cnr = workspace_->cnrPhantom();
  if (!cnr && isEtSpecimen(workspace_->phantom().get())) {
    const std::vector<render::SliceRoi> rois = etSpecimenRois(*workspace_->phantom());
    viewArea_->setRois(rois);
    cnrPanel_->setRois(viewArea_->rois());
    if (auto* dock = findChild<QDockWidget*>(QStringLiteral("cnrDock"))) dock->show();
    return;
  }
  if (!cnr) {
    statusBar()->showMessage(tr("ROIs from the phantom need the CNR or ET demo (File > Open demo)"),
                             6000);
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
  };
  saveTextAtomically(path, QString::fromStdString(summary.dump(2) + "\n"));
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
  const bool haveProjections = workspace_->projections() != nullptr;
  runAction_->setEnabled(haveProjections);
  runAction_->setToolTip(haveProjections ? tr("Reconstruct (Ctrl+R)")
                                         : tr("Open projections or the demo first"));
  cancelAction_->setEnabled(runs_->runningId() >= 0);
  saveVolumeAction_->setEnabled(workspace_->currentVolume() != nullptr);
  if (exportDicomAction_ != nullptr) {
    exportDicomAction_->setEnabled(workspace_->currentVolume() != nullptr);
    exportDicomAction_->setToolTip(workspace_->currentVolume() != nullptr
                                       ? tr("Export the volume shown as DICOM (Ctrl+Shift+E)")
                                       : tr("Reconstruct or open a volume first"));
  }
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
    // A run's result: NAME.run.json beside it, the run's record with this output.
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
  connect(dialog, &DicomExportDialog::exportSucceeded, this,
          [this](const QString& summary) { statusBar()->showMessage(summary, 20000); });
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

void MainWindow::setTheme(Theme theme) {
  theme_ = theme;
  const bool dark = theme == Theme::Dark || (theme == Theme::System && systemPrefersDark());
  QApplication::setStyle(QStyleFactory::create(QStringLiteral("Fusion")));
  QApplication::setPalette(dark ? darkPalette() : QApplication::style()->standardPalette());
}

void MainWindow::resetLayout() {
  // The arrangement of createDocks(), then the default sizes.
  restoreState(defaultState_);
  for (QDockWidget* dock : docks_) {
    dock->setFloating(false);
    dock->show();
  }
  sizeDocks();
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
  hideCompareView();  // the side docks come back before the layout is saved
  saveSettings();
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
    if (!restoredState_) sizeDocks();
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

void MainWindow::showShortcuts() {
  QMessageBox::information(
      this, tr("Keyboard and mouse"),
      tr("<b>Slice views</b><br>"
         "Left-drag: window/level (horizontal = width, vertical = level)<br>"
         "Wheel, ←/→, b/f: previous/next slice<br>"
         "Right-drag or Ctrl+wheel: zoom · Middle-drag or Shift+left-drag: pan<br>"
         "Shift+move: move the crosshair in all views · r: reset the view<br>"
         "Double-click: maximise/restore the view · Ctrl+double-click: reset W/L<br><br>"
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

void MainWindow::applyStartupOptions(const StartupOptions& options) {
  startup_ = options;
  if (!options.livePreview) runs_->setPreviewIntervalMs(-1);
  if (!options.layout.isEmpty()) viewArea_->setLayoutByName(options.layout);
  const bool wantsData = options.demo || !options.files.isEmpty();
  if (options.runAfterLoad && wantsData) {
    // Start the run when the data has arrived (the demo or the first projections file).
    auto connection = std::make_shared<QMetaObject::Connection>();
    *connection =
        connect(workspace_.get(), &Workspace::projectionsChanged, this, [this, connection] {
          if (!workspace_->projections()) return;
          disconnect(*connection);
          startStartupRun();
        });
  }
  if (options.demo) {
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
  if (!startup_.algorithm.isEmpty())
    if (const auto kind = algorithmFromId(startup_.algorithm)) algorithmPanel_->setAlgorithm(*kind);
  if (startup_.iterations > 0 && isIterative(algorithmPanel_->algorithm())) {
    iterative::IterativeParams p = algorithmPanel_->iterativeParams();
    p.iterations = startup_.iterations;
    algorithmPanel_->setIterativeParams(p);
  }
  if (startup_.volumeSize > 0) algorithmPanel_->setVolumeEdge(startup_.volumeSize);
  // Let the window show the loaded data before the run starts.
  QTimer::singleShot(200, this, [this] {
    startupRunId_ = startRun();
    if (startupRunId_ < 0) {
      emit startupRunDone(false);
      if (startup_.quitAfterRun) QApplication::exit(1);
    }
  });
}

}  // namespace tomowb::gui
