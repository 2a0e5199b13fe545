#include "gui/GeometryPanel.h"

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QGridLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QListWidget>
#include <QMessageBox>
#include <QPushButton>
#include <QScrollArea>
#include <QSlider>
#include <QSpinBox>
#include <QSplitter>
#include <QStyle>
#include <QTabWidget>
#include <QTableWidget>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <numbers>
#include <vector>

#include "gui/DockLayout.h"
#include "gui/WeightProfileWidget.h"
#include "gui/core/Workspace.h"
#include "recon/core/Error.h"
#include "recon/fdk/FdkWeights.h"
#include "recon/geometry/ArcFrame.h"
#include "render/GeometryScene.h"

namespace tomowb::gui {

namespace {

constexpr int kDebounceMs = 100;
constexpr int kMaxAxis = 1 << 20;
// Views checked for truncation: all up to this many, else evenly picked.
constexpr std::int64_t kMaxTruncationViews = 720;
// Rows shown in the per-view list (the rest are summarised).
constexpr int kMaxListedViews = 2000;
constexpr ScanType kScanTypes[] = {ScanType::CircularCone, ScanType::ShortScan,
                                   ScanType::HelicalCone,  ScanType::Parallel,
                                   ScanType::TiltSeries,   ScanType::PerView};

QString vectorText(const Eigen::Vector3d& v) {
  return QStringLiteral("%1, %2, %3")
      .arg(v.x(), 0, 'g', 6)
      .arg(v.y(), 0, 'g', 6)
      .arg(v.z(), 0, 'g', 6);
}

// The box the data must see: the current volume's, else the phantom's bounding box.
struct Box {
  Eigen::Vector3d lo, hi;
  QString what;
};
std::optional<Box> workspaceBox(const Workspace& ws) {
  if (const NamedVolume* current = ws.currentVolume(); current && current->volume) {
    const Volume& v = *current->volume;
    const Eigen::Vector3d lo = v.originMm() - 0.5 * v.voxelSizeMm();
    return Box{lo, lo + v.voxelSizeMm().cwiseProduct(Eigen::Vector3d(v.nx(), v.ny(), v.nz())),
               QObject::tr("the volume box")};
  }
  if (ws.phantom())
    return Box{ws.phantom()->boxMinMm(), ws.phantom()->boxMaxMm(), QObject::tr("the phantom")};
  return std::nullopt;
}

// Points whose projections must land on the detector: the ellipse inscribed in the box's
// mid-height section (32 points) and the box's axis at its top and bottom.
std::vector<Eigen::Vector3d> truncationProbes(const Eigen::Vector3d& lo,
                                              const Eigen::Vector3d& hi) {
  constexpr int kRingPoints = 32;
  const Eigen::Vector3d centre = 0.5 * (lo + hi), half = 0.5 * (hi - lo);
  std::vector<Eigen::Vector3d> probes;
  for (int i = 0; i < kRingPoints; ++i) {
    const double a = 2.0 * std::numbers::pi * i / kRingPoints;
    probes.emplace_back(centre.x() + half.x() * std::cos(a), centre.y() + half.y() * std::sin(a),
                        centre.z());
  }
  probes.emplace_back(centre.x(), centre.y(), lo.z());
  probes.emplace_back(centre.x(), centre.y(), hi.z());
  return probes;
}

}  // namespace

GeometryPanel::GeometryPanel(Workspace& workspace, QWidget* parent)
    : QWidget(parent), workspace_(workspace) {
  debounce_.setSingleShot(true);
  debounce_.setInterval(kDebounceMs);
  connect(&debounce_, &QTimer::timeout, this, &GeometryPanel::rebuildNow);
  buildForm();
  connect(&workspace_, &Workspace::projectionsChanged, this, &GeometryPanel::loadFromWorkspace);
  connect(&workspace_, &Workspace::geometryChanged, this, &GeometryPanel::loadFromWorkspace);
  connect(&workspace_, &Workspace::currentVolumeChanged, this, [this] {
    updateVolumeBox();
    updateWarnings();
  });
  connect(&workspace_, &Workspace::phantomChanged, this, [this] {
    updateVolumeBox();
    updateWarnings();
  });
  setForm(GeometryForm{});
  loadFromWorkspace();
}

QDoubleSpinBox* GeometryPanel::addDouble(QFormLayout* layout, const QString& label,
                                         double GeometryForm::*field, double min, double max,
                                         int decimals, const QString& suffix, const QString& tip) {
  auto* box = new QDoubleSpinBox;
  box->setRange(min, max);
  box->setDecimals(decimals);
  box->setSuffix(suffix);
  box->setToolTip(tip);
  box->setKeyboardTracking(true);
  box->setAccelerated(true);
  layout->addRow(label, box);
  readers_.push_back([box, field](GeometryForm& f) { f.*field = box->value(); });
  writers_.push_back([box, field](const GeometryForm& f) { box->setValue(f.*field); });
  connect(box, &QDoubleSpinBox::valueChanged, this, &GeometryPanel::scheduleRebuild);
  return box;
}

QSpinBox* GeometryPanel::addCount(QFormLayout* layout, const QString& label,
                                  std::int64_t GeometryForm::*field, int min, const QString& tip,
                                  std::optional<bool> tiltSeriesOnly) {
  auto* box = new QSpinBox;
  box->setRange(min, kMaxAxis);
  box->setToolTip(tip);
  box->setAccelerated(true);
  layout->addRow(label, box);
  // The detector and tilt-series groups both have columns and rows: each reads only for its own
  // scan types.
  readers_.push_back([box, field, tiltSeriesOnly](GeometryForm& f) {
    if (!tiltSeriesOnly || *tiltSeriesOnly == (f.scanType == ScanType::TiltSeries))
      f.*field = box->value();
  });
  writers_.push_back(
      [box, field](const GeometryForm& f) { box->setValue(static_cast<int>(f.*field)); });
  connect(box, &QSpinBox::valueChanged, this, &GeometryPanel::scheduleRebuild);
  return box;
}

void GeometryPanel::buildForm() {
  const QString deg = QStringLiteral(" °"), mm = QStringLiteral(" mm");
  auto* outer = new QVBoxLayout(this);
  outer->setContentsMargins(4, 4, 4, 4);

  auto* typeRow = new QHBoxLayout;
  typeRow->addWidget(new QLabel(tr("Scan:")));
  scanType_ = new QComboBox;
  scanType_->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
  scanType_->setMinimumContentsLength(14);
  for (const ScanType t : kScanTypes)
    scanType_->addItem(QString::fromStdString(displayName(t)), static_cast<int>(t));
  scanType_->setToolTip(
      tr("Which builder makes the views. Per-view geometries (ASTRA vectors, projection "
         "matrices, edited files) are imported, shown as a list and cannot be edited here."));
  typeRow->addWidget(scanType_, 1);
  outer->addLayout(typeRow);
  connect(scanType_, &QComboBox::currentIndexChanged, this, [this] {
    showRowsFor(form().scanType);
    scheduleRebuild();
  });

  auto* formHost = new QWidget;
  auto* formLayout = new QVBoxLayout(formHost);
  formLayout->setContentsMargins(0, 0, 0, 0);

  orbitGroup_ = new QGroupBox(tr("Source orbit"));
  auto* orbit = new QFormLayout(orbitGroup_);
  addDouble(orbit, tr("Source–isocentre"), &GeometryForm::sourceToIsocentreMm, 0.001, 1e6, 3, mm,
            tr("SOD: distance from the source to the rotation axis (the isocentre)."));
  addDouble(orbit, tr("Source–detector"), &GeometryForm::sourceToDetectorMm, 0.001, 1e6, 3, mm,
            tr("SDD: distance from the source to the detector plane, along the central ray. "
               "Must exceed the source–isocentre distance."));
  formLayout->addWidget(orbitGroup_);

  anglesGroup_ = new QGroupBox(tr("Views"));
  anglesLayout_ = new QFormLayout(anglesGroup_);
  addCount(anglesLayout_, tr("Views"), &GeometryForm::viewCount, 1,
           tr("Number of projections. Apply needs the same count as the loaded data."));
  addDouble(anglesLayout_, tr("Start angle"), &GeometryForm::startAngleDeg, -36000, 36000, 4, deg,
            tr("Source angle of view 0: 0° puts the source on +x (docs/geometry.md). For a "
               "parallel beam, the angle of the source side."));
  rangeField_ =
      addDouble(anglesLayout_, tr("Angular range"), &GeometryForm::rangeDeg, 0.001, 36000, 4, deg,
                tr("Views are spread evenly over this range, the last angle not "
                   "repeated: 360° is a full turn, 180° a parallel half turn."));
  extraField_ = addDouble(anglesLayout_, tr("Extra beyond 180°+fan"),
                          &GeometryForm::shortScanExtraDeg, -90, 180, 4, deg,
                          tr("A short scan covers 180° plus the full fan angle (computed from the "
                             "detector, offsets included) plus this margin; both ends included."));
  sense_ = new QComboBox;
  sense_->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
  sense_->setMinimumContentsLength(12);
  sense_->addItem(tr("counter-clockwise (seen from +z)"));
  sense_->addItem(tr("clockwise (seen from +z)"));
  sense_->setToolTip(
      tr("The rotation sense: counter-clockwise means the source angle grows "
         "from view to view (the right-handed sense about +z)."));
  anglesLayout_->addRow(tr("Rotation"), sense_);
  readers_.push_back([this](GeometryForm& f) { f.clockwise = sense_->currentIndex() == 1; });
  writers_.push_back(
      [this](const GeometryForm& f) { sense_->setCurrentIndex(f.clockwise ? 1 : 0); });
  connect(sense_, &QComboBox::currentIndexChanged, this, &GeometryPanel::scheduleRebuild);
  formLayout->addWidget(anglesGroup_);

  helicalGroup_ = new QGroupBox(tr("Helix"));
  auto* helix = new QFormLayout(helicalGroup_);
  turnsField_ = addDouble(helix, tr("Turns"), &GeometryForm::turns, 0.001, 10000, 4, QString(),
                          tr("Number of turns the views spread over (the last angle not "
                             "repeated)."));
  addDouble(helix, tr("Pitch"), &GeometryForm::helicalPitch, 0, 100, 4, QString(),
            tr("Table feed per turn divided by the detector height at the isocentre "
               "(rows × row pitch × SOD / SDD); 1 = contiguous coverage."));
  addDouble(helix, tr("Start z"), &GeometryForm::startZMm, -1e6, 1e6, 3, mm,
            tr("Source (and detector) z at view 0; z grows with the source angle."));
  formLayout->addWidget(helicalGroup_);

  detectorGroup_ = new QGroupBox(tr("Detector"));
  auto* det = new QFormLayout(detectorGroup_);
  // The surface comes with the geometry (a file, an import, the data): shown, not edited.
  surfaceLabel_ = new QLabel;
  surfaceLabel_->setObjectName("detectorSurface");
  surfaceLabel_->setToolTip(tr(
      "Flat panel, or an arc: a cylinder centred on the source (third-generation CT), whose "
      "column pitch and offset u are arc lengths. Set by the loaded geometry; FDK resamples an arc "
      "onto a flat detector first, the voxel-driven backprojector needs a flat one."));
  det->addRow(tr("Surface"), surfaceLabel_);
  writers_.push_back([this](const GeometryForm& f) {
    surface_ = f.surface;
    surfaceLabel_->setText(f.surface == DetectorSurface::Cylinder
                               ? tr("arc (cylinder centred on the source)")
                               : tr("flat"));
  });
  readers_.push_back([this](GeometryForm& f) { f.surface = surface_; });
  addCount(det, tr("Columns"), &GeometryForm::cols, 1,
           tr("Detector columns (u). Apply needs the loaded data's size."), false);
  addCount(det, tr("Rows"), &GeometryForm::rows, 1,
           tr("Detector rows (v). Apply needs the loaded data's size."), false);
  addDouble(det, tr("Column pitch"), &GeometryForm::pitchUMm, 1e-6, 1e4, 6, mm,
            tr("Distance between column centres (u step) on the detector."));
  addDouble(det, tr("Row pitch"), &GeometryForm::pitchVMm, 1e-6, 1e4, 6, mm,
            tr("Distance between row centres (v step) on the detector."));
  addDouble(det, tr("Offset u"), &GeometryForm::offsetUMm, -1e5, 1e5, 4, mm,
            tr("Moves the detector centre along its column axis e_u = z × source direction "
               "(to the right seen from the source). A large offset makes a half-fan scan."));
  addDouble(det, tr("Offset v"), &GeometryForm::offsetVMm, -1e5, 1e5, 4, mm,
            tr("Moves the detector centre along +z (rows grow upwards)."));
  addDouble(det, tr("Tilt"), &GeometryForm::tiltDeg, -89, 89, 4, deg,
            tr("Rotation of the detector about its column axis e_u."));
  addDouble(det, tr("Slant"), &GeometryForm::slantDeg, -89, 89, 4, deg,
            tr("Rotation of the detector about its row axis e_v."));
  addDouble(det, tr("In-plane rotation"), &GeometryForm::inPlaneRotationDeg, -180, 180, 4, deg,
            tr("Rotation of the detector about its normal (which faces the source)."));
  addDouble(det, tr("Skew"), &GeometryForm::skewDeg, -89, 89, 4, deg,
            tr("Angle by which the row axis v leans towards u (0 = perpendicular)."));
  formLayout->addWidget(detectorGroup_);

  tiltGroup_ = new QGroupBox(tr("Tilt series"));
  auto* tilt = new QFormLayout(tiltGroup_);
  addCount(tilt, tr("Columns"), &GeometryForm::cols, 1, tr("Image columns."), true);
  addCount(tilt, tr("Rows"), &GeometryForm::rows, 1, tr("Image rows."), true);
  addDouble(tilt, tr("Pixel size"), &GeometryForm::pixelSizeMm, 1e-9, 1e3, 9, mm,
            tr("Pixel size at the specimen (1 nm = 0.000001 mm)."));
  addDouble(tilt, tr("First tilt"), &GeometryForm::firstTiltDeg, -90, 90, 3, deg,
            tr("Tilt angle of the first image; at 0° the beam runs along −y."));
  addDouble(tilt, tr("Last tilt"), &GeometryForm::lastTiltDeg, -90, 90, 3, deg,
            tr("Tilt angle of the last image (included when the step divides the range)."));
  addDouble(tilt, tr("Tilt step"), &GeometryForm::tiltStepDeg, 0.001, 180, 3, deg,
            tr("Angle between consecutive images."));
  addDouble(tilt, tr("Tilt-axis angle"), &GeometryForm::tiltAxisAngleDeg, -180, 180, 3, deg,
            tr("Angle of the tilt axis in the image, counter-clockwise from the row axis "
               "(IMOD's rotation angle)."));
  addDouble(tilt, tr("Tilt-axis shift"), &GeometryForm::tiltAxisShiftPixels, -1e5, 1e5, 3,
            QStringLiteral(" px"),
            tr("Where the tilt axis crosses the image: pixels from the centre, across the axis."));
  formLayout->addWidget(tiltGroup_);

  perViewGroup_ = new QGroupBox(tr("Views (read only)"));
  auto* perViewLayout = new QVBoxLayout(perViewGroup_);
  perViewTable_ = new QTableWidget(0, 5);
  perViewTable_->setHorizontalHeaderLabels({tr("view"), tr("source / ray (mm)"),
                                            tr("detector centre (mm)"), tr("u (mm)"),
                                            tr("v (mm)")});
  perViewTable_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  perViewTable_->verticalHeader()->hide();
  perViewTable_->setMinimumHeight(160);
  perViewLayout->addWidget(perViewTable_);
  formLayout->addWidget(perViewGroup_);
  formLayout->addStretch(1);

  auto* scroll = new PanelScrollArea;  // as wide as the form: its labels and fields never cut
  scroll->setWidget(formHost);

  errorLabel_ = new QLabel;
  errorLabel_->setWordWrap(true);
  errorLabel_->setStyleSheet(QStringLiteral("color: #c0392b;"));
  errorLabel_->hide();

  auto* fileRow = new QGridLayout;  // two rows of two: the dock stays narrow
  auto* importButton = new QPushButton(tr("Import JSON…"));
  importButton->setToolTip(
      tr("Read a geometry file (tomowb-geometry JSON, vector or builder form)."));
  auto* exportButton = new QPushButton(tr("Export JSON…"));
  exportButton->setToolTip(tr("Write the edited geometry: every view, plus the form's values."));
  applyButton_ = new QPushButton(tr("Apply"));
  applyButton_->setToolTip(
      tr("Use the edited geometry for the loaded projections (same view "
         "count and detector size)."));
  revertButton_ = new QPushButton(tr("Revert"));
  revertButton_->setToolTip(tr("Back to the geometry the workspace uses."));
  int cell = 0;
  for (QPushButton* b : {importButton, exportButton, applyButton_, revertButton_}) {
    fileRow->addWidget(b, cell / 2, cell % 2);
    ++cell;
  }
  connect(importButton, &QPushButton::clicked, this, [this] {
    const QString path = QFileDialog::getOpenFileName(this, tr("Import geometry"), QString(),
                                                      tr("Geometry JSON (*.json);;All files (*)"));
    QString error;
    if (!path.isEmpty() && !importJson(path, &error))
      QMessageBox::warning(this, tr("Import geometry"), error);
  });
  connect(exportButton, &QPushButton::clicked, this, [this] {
    const QString path = QFileDialog::getSaveFileName(
        this, tr("Export geometry"), QStringLiteral("geometry.json"), tr("Geometry JSON (*.json)"));
    QString error;
    if (!path.isEmpty() && !exportJson(path, &error))
      QMessageBox::warning(this, tr("Export geometry"), error);
  });
  connect(applyButton_, &QPushButton::clicked, this, [this] {
    QString error;
    if (!apply(&error)) QMessageBox::warning(this, tr("Apply geometry"), error);
  });
  connect(revertButton_, &QPushButton::clicked, this, &GeometryPanel::revert);

  auto* viewRow = new QHBoxLayout;
  viewRow->addWidget(new QLabel(tr("View")));
  viewSlider_ = new QSlider(Qt::Horizontal);
  viewSlider_->setToolTip(
      tr("The view shown in the 3-D scene, the weights and the consistency "
         "overlay."));
  viewSpin_ = new QSpinBox;
  viewRow->addWidget(viewSlider_, 1);
  viewRow->addWidget(viewSpin_);
  connect(viewSlider_, &QSlider::valueChanged, this, &GeometryPanel::setSelectedView);
  connect(viewSpin_, &QSpinBox::valueChanged, this, &GeometryPanel::setSelectedView);

  scene_ = new render::GeometryScene;
  scene_->setMinimumHeight(200);
  scene_->setToolTip(tr("Left drag rotates, middle drag pans, right drag zooms, r resets."));

  warningList_ = new QListWidget;
  warningList_->setWordWrap(true);
  warningList_->setSelectionMode(QAbstractItemView::NoSelection);
  weights_ = new WeightProfileWidget;
  fovLabel_ = new QLabel;
  fovLabel_->setWordWrap(true);
  auto* weightsPage = new QWidget;
  auto* weightsLayout = new QVBoxLayout(weightsPage);
  weightsLayout->setContentsMargins(2, 2, 2, 2);
  weightsLayout->addWidget(weights_, 1);
  weightsLayout->addWidget(fovLabel_);
  auto* tabs = new QTabWidget;
  tabs->addTab(warningList_, tr("Warnings"));
  tabs->addTab(weightsPage, tr("FDK weights"));

  auto* splitter = new QSplitter(Qt::Vertical);
  splitter->addWidget(scroll);
  splitter->addWidget(scene_);
  splitter->addWidget(tabs);
  splitter->setStretchFactor(0, 3);
  splitter->setStretchFactor(1, 3);
  splitter->setStretchFactor(2, 2);
  outer->addWidget(splitter, 1);
  outer->addWidget(errorLabel_);
  outer->addLayout(viewRow);
  outer->addLayout(fileRow);
}

GeometryForm GeometryPanel::form() const {
  GeometryForm f;
  f.scanType = static_cast<ScanType>(scanType_->currentData().toInt());
  for (const auto& read : readers_) read(f);
  return f;
}

void GeometryPanel::setForm(const GeometryForm& f) {
  filling_ = true;
  scanType_->setCurrentIndex(scanType_->findData(static_cast<int>(f.scanType)));
  for (const auto& write : writers_) write(f);
  filling_ = false;
  showRowsFor(f.scanType);
  scheduleRebuild();
}

void GeometryPanel::showRowsFor(ScanType type) {
  const bool cone = type == ScanType::CircularCone || type == ScanType::ShortScan ||
                    type == ScanType::HelicalCone;
  const bool tilt = type == ScanType::TiltSeries, perView = type == ScanType::PerView;
  orbitGroup_->setVisible(cone);
  anglesGroup_->setVisible(!tilt && !perView);
  helicalGroup_->setVisible(type == ScanType::HelicalCone);
  detectorGroup_->setVisible(!tilt && !perView);
  tiltGroup_->setVisible(tilt);
  perViewGroup_->setVisible(perView);
  anglesLayout_->setRowVisible(rangeField_,
                               type == ScanType::CircularCone || type == ScanType::Parallel);
  anglesLayout_->setRowVisible(extraField_, type == ScanType::ShortScan);
}

void GeometryPanel::scheduleRebuild() {
  if (!filling_) debounce_.start();
}

void GeometryPanel::rebuildNow() {
  debounce_.stop();
  const GeometryForm f = form();
  std::optional<Geometry> built;
  try {
    if (f.scanType == ScanType::PerView) {
      if (!perView_) throw ParameterError("scanType", "no per-view geometry imported");
      built = *perView_;
    } else {
      built = buildGeometry(f);
    }
    formError_.clear();
    errorLabel_->hide();
  } catch (const Error& e) {
    formError_ = QString::fromStdString(e.what());
    errorLabel_->setText(tr("Invalid: %1").arg(formError_));
    errorLabel_->show();
    emit formInvalid(formError_);
    return;
  }
  edited_ = std::move(built);
  const int last = static_cast<int>(edited_->viewCount() - 1);
  for (auto* w : {static_cast<QWidget*>(viewSlider_), static_cast<QWidget*>(viewSpin_)})
    w->blockSignals(true);
  viewSlider_->setRange(0, last);
  viewSpin_->setRange(0, last);
  for (auto* w : {static_cast<QWidget*>(viewSlider_), static_cast<QWidget*>(viewSpin_)})
    w->blockSignals(false);
  scene_->setGeometry(*edited_);
  scene_->setSelectedView(viewSlider_->value());
  updateVolumeBox();
  updateWarnings();
  updateWeights();
  emit editedGeometryChanged(*edited_);
}

int GeometryPanel::selectedView() const {
  return viewSlider_->value();
}

void GeometryPanel::setSelectedView(int view) {
  if (!edited_ || view < 0 || view >= edited_->viewCount()) return;
  const bool changed = view != scene_->selectedView();
  viewSlider_->blockSignals(true);
  viewSpin_->blockSignals(true);
  viewSlider_->setValue(view);
  viewSpin_->setValue(view);
  viewSlider_->blockSignals(false);
  viewSpin_->blockSignals(false);
  scene_->setSelectedView(view);
  updateWeights();
  if (changed) emit selectedViewChanged(view);
}

void GeometryPanel::loadFromWorkspace() {
  const Geometry* g = workspace_.geometry();
  if (!g) return;
  if (const auto recognised = recogniseGeometry(*g)) {
    perView_.reset();
    setForm(*recognised);
  } else {
    showPerView(*g);
  }
  rebuildNow();
}

void GeometryPanel::showPerView(const Geometry& g) {
  perView_ = g;
  const int shown = static_cast<int>(std::min<std::int64_t>(g.viewCount(), kMaxListedViews));
  perViewTable_->setRowCount(shown);
  for (int i = 0; i < shown; ++i) {
    const View& v = g.view(i);
    const QStringList cells{QString::number(i),
                            vectorText(g.beam() == BeamKind::Cone ? v.source : v.rayDirection),
                            vectorText(v.detectorCentre), vectorText(v.u), vectorText(v.v)};
    for (int c = 0; c < cells.size(); ++c)
      perViewTable_->setItem(i, c, new QTableWidgetItem(cells[c]));
  }
  perViewGroup_->setTitle(
      g.viewCount() > shown ? tr("Views (read only; first %1 of %2)").arg(shown).arg(g.viewCount())
                            : tr("Views (read only)"));
  GeometryForm f = form();
  f.scanType = ScanType::PerView;
  f.surface = g.hasCylindricalViews() ? DetectorSurface::Cylinder : DetectorSurface::Flat;
  f.cols = g.detector().cols;
  f.rows = g.detector().rows;
  f.viewCount = g.viewCount();
  setForm(f);
}

bool GeometryPanel::importJson(const QString& path, QString* error) {
  try {
    const ImportedGeometry imported = importGeometryJson(path.toStdString());
    if (imported.form) {
      perView_.reset();
      setForm(*imported.form);
    } else {
      showPerView(imported.geometry);
    }
    rebuildNow();
    return true;
  } catch (const std::exception& e) {
    if (error) *error = QString::fromStdString(e.what());
    return false;
  }
}

bool GeometryPanel::exportJson(const QString& path, QString* error) {
  rebuildNow();
  if (!edited_) {
    if (error) *error = tr("%1: not written: the form is invalid (%2)").arg(path, formError_);
    return false;
  }
  try {
    const GeometryForm f = form();
    exportGeometryJson(path.toStdString(), *edited_,
                       f.scanType == ScanType::PerView ? std::nullopt : std::optional(f));
    return true;
  } catch (const std::exception& e) {
    if (error) *error = QString::fromStdString(e.what());
    return false;
  }
}

bool GeometryPanel::apply(QString* error) {
  rebuildNow();
  if (!edited_) {
    if (error) *error = tr("The form is invalid: %1").arg(formError_);
    return false;
  }
  const auto& data = workspace_.projections();
  if (!data) {
    if (error) *error = tr("No projections are loaded: there is nothing to apply the geometry to.");
    return false;
  }
  if (edited_->viewCount() != data->viewCount() ||
      !(edited_->detector() == data->geometry().detector())) {
    if (error)
      *error = tr("The edited geometry has %1 views of %2 × %3 pixels; the projections have %4 "
                  "views of %5 × %6. Apply keeps the data's view count and detector size.")
                   .arg(edited_->viewCount())
                   .arg(edited_->detector().cols)
                   .arg(edited_->detector().rows)
                   .arg(data->viewCount())
                   .arg(data->cols())
                   .arg(data->rows());
    return false;
  }
  try {
    workspace_.setGeometry(*edited_);
    return true;
  } catch (const std::exception& e) {
    if (error) *error = QString::fromStdString(e.what());
    return false;
  }
}

void GeometryPanel::revert() {
  loadFromWorkspace();
}

void GeometryPanel::updateVolumeBox() {
  if (const auto box = workspaceBox(workspace_))
    scene_->setVolumeBox(box->lo, box->hi - box->lo);
  else
    scene_->clearVolumeBox();
}

void GeometryPanel::addWarning(const QString& text, bool severe) {
  const QIcon icon = style()->standardIcon(severe ? QStyle::SP_MessageBoxWarning
                                                  : QStyle::SP_MessageBoxInformation);
  warningList_->addItem(new QListWidgetItem(icon, text));
}

QStringList GeometryPanel::warnings() const {
  QStringList texts;
  for (int i = 0; i < warningList_->count(); ++i) texts << warningList_->item(i)->text();
  return texts;
}

void GeometryPanel::setRedundancyMode(fdk::RedundancyMode mode) {
  if (mode == chosenRedundancy_) return;
  chosenRedundancy_ = mode;
  updateWarnings();
}

void GeometryPanel::updateWarnings() {
  warningList_->clear();
  if (!edited_) return;
  const Geometry& g = *edited_;
  const auto& data = workspace_.projections();
  if (data &&
      (g.viewCount() != data->viewCount() || !(g.detector() == data->geometry().detector())))
    addWarning(tr("The form has %1 views of %2 × %3; the loaded data %4 views of %5 × %6: "
                  "Apply is refused until they agree.")
                   .arg(g.viewCount())
                   .arg(g.detector().cols)
                   .arg(g.detector().rows)
                   .arg(data->viewCount())
                   .arg(data->cols())
                   .arg(data->rows()),
               true);

  // Truncation: the object (or the volume) leaves the detector sideways or above and below. What
  // a rotation scans is a cylinder about z: the box's corners leave the detector of every scan
  // (the review's "the volume box leaves the detector in 192 of 192 views" on the demo), so the
  // probes are the box's inscribed cylinder at mid-height and the axis at its top and bottom.
  if (const auto box = workspaceBox(workspace_)) {
    const std::vector<Eigen::Vector3d> probes = truncationProbes(box->lo, box->hi);
    const std::int64_t step = std::max<std::int64_t>(1, g.viewCount() / kMaxTruncationViews);
    std::int64_t truncated = 0, checked = 0, first = -1;
    for (std::int64_t i = 0; i < g.viewCount(); i += step, ++checked) {
      // Arc views have no matrix: their corners go through the arc's own map.
      const bool arc = g.view(i).surface == DetectorSurface::Cylinder;
      const std::optional<ArcFrame> frame =
          arc ? std::optional<ArcFrame>(arcFrame(g, i)) : std::nullopt;
      const ProjectionMatrix P = arc ? ProjectionMatrix::Zero() : g.projectionMatrix(i);
      bool outside = false;
      for (std::size_t k = 0; k < probes.size() && !outside; ++k) {
        const Eigen::Vector4d corner = probes[k].homogeneous();
        Eigen::Vector3d p = P * corner;
        if (frame) {
          const Eigen::Vector3d d = corner.head<3>() - frame->source;
          const Eigen::Vector2d cr = frame->pixelCoordinates(corner.head<3>());
          p = Eigen::Vector3d(cr.x(), cr.y(), d.dot(frame->n) > 0 ? 1.0 : 0.0);
        }
        if (!(p.z() > 0)) {
          outside = true;
          break;
        }
        // One pixel of slack: the field-of-view grid rounds its width up to whole voxels.
        const double c = p.x() / p.z(), r = p.y() / p.z();
        outside = c < -1.5 || c > double(g.detector().cols) + 0.5 || r < -1.5 ||
                  r > double(g.detector().rows) + 0.5;
      }
      if (outside) {
        ++truncated;
        if (first < 0) first = i;
      }
    }
    if (truncated > 0)
      addWarning(tr("Truncation: %1 leaves the detector in %2 of %3 checked views (first: view "
                    "%4).")
                     .arg(box->what)
                     .arg(truncated)
                     .arg(checked)
                     .arg(first),
                 true);
  }

  // What FDK will need, from the same weight plan FDK builds.
  if (form().scanType == ScanType::TiltSeries) {
    addWarning(tr("Tilt series: limited angle, FDK/FBP does not apply; use an iterative method."),
               false);
    return;
  }
  try {
    // Arc detectors: FDK runs on the flat detectors tangent to them (fdk::rebinArcToFlat).
    if (g.hasCylindricalViews())
      addWarning(tr("Arc detector: FDK first resamples the projections onto the flat detector "
                    "tangent to the arc (bilinear); the iterative projectors use the arc itself."),
                 false);
    const fdk::FdkWeightPlan plan(g.hasCylindricalViews() ? flatEquivalentGeometry(g) : g,
                                  fdk::RedundancyMode::Auto);
    const double coverageDeg = plan.coverageRad() * 180.0 / std::numbers::pi;
    const double neededDeg = 180.0 + (g.beam() == BeamKind::Cone
                                          ? 2.0 * plan.halfFanAngleRad() * 180.0 / std::numbers::pi
                                          : 0.0);
    // Whether the algorithm panel's redundancy choice matches what this scan needs.
    const bool chosenMatches =
        chosenRedundancy_ == fdk::RedundancyMode::Auto || chosenRedundancy_ == plan.mode();
    const QString chosen = QString::fromUtf8(fdk::toString(chosenRedundancy_).data(),
                                             int(fdk::toString(chosenRedundancy_).size()));
    switch (plan.mode()) {
      case fdk::RedundancyMode::Parker:
        if (chosenMatches)
          addWarning(tr("Short scan (%1°): FDK uses Parker weights (redundancy %2).")
                         .arg(coverageDeg, 0, 'f', 1)
                         .arg(chosen),
                     false);
        else
          addWarning(tr("Short scan (%1°) but the algorithm's redundancy weights are '%2': set "
                        "Auto or Parker, or the volume gets a bright/dark streak across it.")
                         .arg(coverageDeg, 0, 'f', 1)
                         .arg(chosen),
                     true);
        break;
      case fdk::RedundancyMode::OffsetDetector:
        if (chosenMatches)
          addWarning(tr("Offset detector: FDK uses offset-detector (Wang) weights (redundancy "
                        "%1).")
                         .arg(chosen),
                     false);
        else
          addWarning(tr("Offset detector but the algorithm's redundancy weights are '%1': set "
                        "Auto or Offset detector, or the doubly measured centre comes out too "
                        "bright.")
                         .arg(chosen),
                     true);
        break;
      default:
        break;
    }
    if (coverageDeg + 1e-6 < neededDeg)
      addWarning(tr("The views cover %1°, less than 180° + fan = %2°: limited-angle data.")
                     .arg(coverageDeg, 0, 'f', 1)
                     .arg(neededDeg, 0, 'f', 1),
                 true);
    for (const std::string& w : plan.warnings()) addWarning(QString::fromStdString(w), true);
    addWarning(QString::fromStdString(plan.summary()), false);
  } catch (const std::exception& e) {
    addWarning(tr("FDK cannot reconstruct this geometry: %1").arg(QString::fromUtf8(e.what())),
               true);
  }
  if (warningList_->count() == 0) addWarning(tr("No problems found."), false);
}

void GeometryPanel::updateWeights() {
  if (!edited_) return;
  const double fov = render::fieldOfViewRadiusMm(*edited_);
  fovLabel_->setText(
      fov > 0 ? tr("Field of view: radius %1 mm (every view sees it)").arg(fov, 0, 'f', 2)
              : tr("Field of view: none (some view misses the rotation axis)"));
  if (form().scanType == ScanType::TiltSeries) {
    weights_->setMessage(tr("No FDK weights for a tilt series."));
    return;
  }
  try {
    const fdk::FdkWeightPlan plan(
        edited_->hasCylindricalViews() ? flatEquivalentGeometry(*edited_) : *edited_,
        fdk::RedundancyMode::Auto);
    const std::int64_t view = std::clamp<std::int64_t>(selectedView(), 0, edited_->viewCount() - 1);
    std::vector<double> profile(static_cast<std::size_t>(edited_->detector().cols));
    for (std::size_t c = 0; c < profile.size(); ++c)
      profile[c] = plan.redundancyWeight(view, static_cast<double>(c));
    weights_->setProfile(std::move(profile),
                         tr("Redundancy weight, view %1, central row (%2)")
                             .arg(view)
                             .arg(QString::fromUtf8(fdk::toString(plan.mode()).data(),
                                                    int(fdk::toString(plan.mode()).size()))));
  } catch (const std::exception& e) {
    weights_->setMessage(tr("No FDK weights: %1").arg(QString::fromUtf8(e.what())));
  }
}

}  // namespace tomowb::gui
