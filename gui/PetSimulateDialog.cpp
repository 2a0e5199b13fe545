// PetSimulateDialog: see the header.
#include "gui/PetSimulateDialog.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QVBoxLayout>
#include <cmath>

#include "gui/algorithms/ScientificSpinBox.h"
#include "recon/core/Error.h"
#include "recon/pet/ScannerModel.h"

namespace tomowb::gui {

namespace {

const QString kScannerFileItem = QStringLiteral("file");

QDoubleSpinBox* millimetres(double value, QWidget* parent) {
  auto* spin = new QDoubleSpinBox(parent);
  spin->setRange(-500.0, 500.0);
  spin->setDecimals(1);
  spin->setSuffix(QObject::tr(" mm"));
  spin->setValue(value);
  return spin;
}

QString scannerText(const pet::ScannerModel& s) {
  const QString layout = s.layout == pet::DetectorLayout::FlatModules
                             ? QObject::tr("%1 flat modules").arg(s.modules)
                             : QObject::tr("cylinder");
  return QObject::tr("%1: %2 rings × %3 crystals (%4), %5 mm diameter, %6 mm axial, TOF %7 ps")
      .arg(QString::fromStdString(s.name))
      .arg(s.rings)
      .arg(s.crystalsPerRing)
      .arg(layout)
      .arg(2.0 * s.radiusMm, 0, 'f', 0)
      .arg(s.axialLengthMm(), 0, 'f', 0)
      .arg(s.tofFwhmPs, 0, 'f', 0);
}

}  // namespace

PetSimulateDialog::PetSimulateDialog(QWidget* parent) : QDialog(parent) {
  setObjectName(QStringLiteral("petSimulateDialog"));
  setWindowTitle(tr("Simulate PET scan"));
  auto* layout = new QVBoxLayout(this);
  auto* intro = new QLabel(
      tr("A TOF list-mode scan of the PET phantom: a 35 cm water cylinder with hot and cold "
         "spheres, simulated now (no file is written)."),
      this);
  intro->setWordWrap(true);
  layout->addWidget(intro);

  auto* scannerBox = new QGroupBox(tr("Scanner"), this);
  auto* scannerForm = new QFormLayout(scannerBox);
  scanner_ = new QComboBox(scannerBox);
  scanner_->setObjectName(QStringLiteral("petScanner"));
  for (const std::string& name : pet::scannerPresetNames())
    scanner_->addItem(QString::fromStdString(name), QString::fromStdString(name));
  scanner_->addItem(tr("Scanner file…"), kScannerFileItem);
  scanner_->setToolTip(
      tr("penn-labr3: the seed's LaBr3 scanner (24 flat modules); ring-930: the same as a "
         "cylinder"));
  auto* fileRow = new QHBoxLayout;
  scannerFile_ = new QLineEdit(scannerBox);
  scannerFile_->setObjectName(QStringLiteral("petScannerFile"));
  scannerFile_->setPlaceholderText(tr("scanner.json (docs/pet.md)"));
  browse_ = new QPushButton(tr("&Browse…"), scannerBox);
  fileRow->addWidget(scannerFile_, 1);
  fileRow->addWidget(browse_);
  scannerInfo_ = new QLabel(scannerBox);
  scannerInfo_->setObjectName(QStringLiteral("petScannerInfo"));
  scannerInfo_->setWordWrap(true);
  scannerForm->addRow(tr("&Scanner:"), scanner_);
  scannerForm->addRow(tr("File:"), fileRow);
  scannerForm->addRow(scannerInfo_);
  layout->addWidget(scannerBox);

  auto* phantomBox = new QGroupBox(tr("Phantom"), this);
  auto* phantomForm = new QFormLayout(phantomBox);
  auto* hotRow = new QHBoxLayout;
  hotSpheres_ = new QCheckBox(tr("&Hot spheres (6 × 10 mm at 75 mm)"), phantomBox);
  hotSpheres_->setObjectName(QStringLiteral("petHotSpheres"));
  hotSpheres_->setChecked(true);
  hotRatio_ = new QDoubleSpinBox(phantomBox);
  hotRatio_->setRange(1.1, 100.0);
  hotRatio_->setDecimals(1);
  hotRatio_->setValue(4.0);
  hotRatio_->setPrefix(tr("ratio "));
  hotRatio_->setSuffix(tr(" : 1"));
  hotRatio_->setToolTip(tr("Hot sphere activity over the background (4:1 gives contrast 3)"));
  hotRow->addWidget(hotSpheres_);
  hotRow->addWidget(hotRatio_);
  phantomForm->addRow(hotRow);
  coldSpheres_ = new QCheckBox(tr("&Cold spheres (2 × 20 mm at 120 mm, no activity)"), phantomBox);
  coldSpheres_->setObjectName(QStringLiteral("petColdSpheres"));
  coldSpheres_->setChecked(true);
  phantomForm->addRow(coldSpheres_);
  auto* pointRow = new QHBoxLayout;
  pointSource_ = new QCheckBox(tr("&Point source at"), phantomBox);
  pointSource_->setObjectName(QStringLiteral("petPointSource"));
  pointX_ = millimetres(100.0, phantomBox);
  pointY_ = millimetres(0.0, phantomBox);
  pointZ_ = millimetres(0.0, phantomBox);
  pointX_->setAccessibleName(tr("Point source x"));
  pointY_->setAccessibleName(tr("Point source y"));
  pointZ_->setAccessibleName(tr("Point source z"));
  pointRow->addWidget(pointSource_);
  pointRow->addWidget(pointX_);
  pointRow->addWidget(pointY_);
  pointRow->addWidget(pointZ_);
  phantomForm->addRow(pointRow);
  background_ = new QDoubleSpinBox(phantomBox);
  background_->setObjectName(QStringLiteral("petBackground"));
  background_->setRange(1.0, 1e7);
  background_->setDecimals(0);
  background_->setValue(5300.0);
  background_->setSuffix(tr(" Bq/mL"));
  phantomForm->addRow(tr("Back&ground:"), background_);
  layout->addWidget(phantomBox);

  auto* countsBox = new QGroupBox(tr("Acquisition"), this);
  auto* countsForm = new QFormLayout(countsBox);
  prompts_ = new ScientificSpinBox(countsBox);
  prompts_->setObjectName(QStringLiteral("petPrompts"));
  prompts_->setSignificantDigits(3);
  prompts_->setRange(1e3, double(kMaxSimulatedPrompts));
  prompts_->setValue(2e6);
  prompts_->setToolTip(
      tr("Prompts (trues + randoms) to simulate: 2e6 takes seconds on a laptop; the seed's scan "
         "has 4.3e8 (12 bytes each in memory)"));
  seed_ = new QSpinBox(countsBox);
  seed_->setObjectName(QStringLiteral("petSeed"));
  seed_->setRange(0, 1'000'000'000);
  seed_->setValue(1);
  seed_->setToolTip(tr("The same seed gives the same events, whatever the number of threads"));
  randoms_ = new QDoubleSpinBox(countsBox);
  randoms_->setObjectName(QStringLiteral("petRandoms"));
  randoms_->setRange(0.0, 95.0);
  randoms_->setDecimals(1);
  randoms_->setValue(10.0);
  randoms_->setSuffix(tr(" % of prompts"));
  randoms_->setToolTip(
      tr("Random coincidences among the prompts; a delayed window of the same "
         "rate is recorded for the randoms correction"));
  attenuation_ = new QCheckBox(tr("&Attenuation in the water cylinder"), countsBox);
  attenuation_->setObjectName(QStringLiteral("petAttenuation"));
  attenuation_->setChecked(true);
  countsForm->addRow(tr("&Prompts:"), prompts_);
  countsForm->addRow(tr("S&eed:"), seed_);
  countsForm->addRow(tr("&Randoms:"), randoms_);
  countsForm->addRow(attenuation_);
  layout->addWidget(countsBox);

  auto* gridBox = new QGroupBox(tr("Image grid (activity map and reconstruction)"), this);
  auto* gridForm = new QFormLayout(gridBox);
  voxel_ = new QDoubleSpinBox(gridBox);
  voxel_->setObjectName(QStringLiteral("petVoxel"));
  voxel_->setRange(0.5, 50.0);
  voxel_->setDecimals(2);
  voxel_->setValue(4.0);
  voxel_->setSuffix(tr(" mm"));
  size_ = new QSpinBox(gridBox);
  size_->setObjectName(QStringLiteral("petGridSize"));
  size_->setRange(0, 1024);
  size_->setSpecialValueText(tr("the scanner's field of view"));
  size_->setSuffix(tr(" voxels"));
  size_->setValue(100);
  slices_ = new QSpinBox(gridBox);
  slices_->setObjectName(QStringLiteral("petGridSlices"));
  slices_->setRange(0, 1024);
  slices_->setSpecialValueText(tr("the scanner's axial length"));
  slices_->setSuffix(tr(" slices"));
  slices_->setValue(16);
  gridInfo_ = new QLabel(gridBox);
  gridInfo_->setObjectName(QStringLiteral("petGridInfo"));
  gridInfo_->setWordWrap(true);
  gridForm->addRow(tr("&Voxel:"), voxel_);
  gridForm->addRow(tr("&Transverse:"), size_);
  gridForm->addRow(tr("S&lices:"), slices_);
  gridForm->addRow(gridInfo_);
  layout->addWidget(gridBox);

  problemLabel_ = new QLabel(this);
  problemLabel_->setObjectName(QStringLiteral("petSimulateProblem"));
  problemLabel_->setWordWrap(true);
  problemLabel_->setStyleSheet(QStringLiteral("color: #c0392b;"));
  layout->addWidget(problemLabel_);
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Cancel, this);
  simulateButton_ = buttons->addButton(tr("&Simulate"), QDialogButtonBox::AcceptRole);
  simulateButton_->setObjectName(QStringLiteral("petSimulateButton"));
  simulateButton_->setDefault(true);
  layout->addWidget(buttons);
  connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
  connect(browse_, &QPushButton::clicked, this, &PetSimulateDialog::browseScanner);

  connect(scanner_, &QComboBox::currentIndexChanged, this, &PetSimulateDialog::validate);
  connect(scannerFile_, &QLineEdit::textChanged, this, &PetSimulateDialog::validate);
  for (QCheckBox* box : {hotSpheres_, coldSpheres_, pointSource_, attenuation_})
    connect(box, &QCheckBox::toggled, this, &PetSimulateDialog::validate);
  for (QDoubleSpinBox* spin : {hotRatio_, pointX_, pointY_, pointZ_, background_,
                               static_cast<QDoubleSpinBox*>(prompts_), randoms_, voxel_})
    connect(spin, &QDoubleSpinBox::valueChanged, this, &PetSimulateDialog::validate);
  for (QSpinBox* spin : {seed_, size_, slices_})
    connect(spin, &QSpinBox::valueChanged, this, &PetSimulateDialog::validate);
  validate();
}

PetSimulationRequest PetSimulateDialog::request() const {
  PetSimulationRequest r;
  r.scanner = scanner_->currentData().toString() == kScannerFileItem
                  ? scannerFile_->text().trimmed().toStdString()
                  : scanner_->currentData().toString().toStdString();
  pet::PetPhantomParams& p = r.phantom;
  p.hotSphereCount = hotSpheres_->isChecked() ? 6 : 0;
  p.hotToBackgroundRatio = hotRatio_->value();
  p.coldSpheres = coldSpheres_->isChecked();
  if (pointSource_->isChecked())
    p.pointSourceMm = Eigen::Vector3d(pointX_->value(), pointY_->value(), pointZ_->value());
  p.backgroundBqPerMl = background_->value();
  r.prompts = static_cast<std::int64_t>(std::llround(prompts_->value()));
  r.seed = static_cast<std::uint64_t>(seed_->value());
  r.randomsFraction = randoms_->value() / 100.0;
  r.attenuation = attenuation_->isChecked();
  r.voxelMm = voxel_->value();
  r.size = size_->value();
  r.slices = slices_->value();
  return r;
}

void PetSimulateDialog::setRequest(const PetSimulationRequest& r) {
  const int preset = scanner_->findData(QString::fromStdString(r.scanner));
  if (preset >= 0) {
    scanner_->setCurrentIndex(preset);
  } else {
    scanner_->setCurrentIndex(scanner_->findData(kScannerFileItem));
    scannerFile_->setText(QString::fromStdString(r.scanner));
  }
  hotSpheres_->setChecked(r.phantom.hotSphereCount > 0);
  hotRatio_->setValue(r.phantom.hotToBackgroundRatio);
  coldSpheres_->setChecked(r.phantom.coldSpheres);
  pointSource_->setChecked(r.phantom.pointSourceMm.has_value());
  if (r.phantom.pointSourceMm) {
    pointX_->setValue(r.phantom.pointSourceMm->x());
    pointY_->setValue(r.phantom.pointSourceMm->y());
    pointZ_->setValue(r.phantom.pointSourceMm->z());
  }
  background_->setValue(r.phantom.backgroundBqPerMl);
  prompts_->setValue(double(r.prompts));
  seed_->setValue(static_cast<int>(r.seed));
  randoms_->setValue(r.randomsFraction * 100.0);
  attenuation_->setChecked(r.attenuation);
  voxel_->setValue(r.voxelMm);
  size_->setValue(static_cast<int>(r.size));
  slices_->setValue(static_cast<int>(r.slices));
  validate();
}

void PetSimulateDialog::browseScanner() {
  const QString path = QFileDialog::getOpenFileName(this, tr("Scanner file"), QString(),
                                                    tr("Scanner files (*.json);;All files (*)"));
  if (path.isEmpty()) return;
  scanner_->setCurrentIndex(scanner_->findData(kScannerFileItem));
  scannerFile_->setText(path);
}

void PetSimulateDialog::validate() {
  const bool file = scanner_->currentData().toString() == kScannerFileItem;
  scannerFile_->setEnabled(file);
  hotRatio_->setEnabled(hotSpheres_->isChecked());
  for (QDoubleSpinBox* spin : {pointX_, pointY_, pointZ_})
    spin->setEnabled(pointSource_->isChecked());
  problem_.clear();
  try {
    const PetSimulationRequest r = request();
    if (file && r.scanner.empty())
      throw ParameterError("scanner", "choose a scanner file, or a built-in scanner");
    r.validate();
    const pet::ScannerModel scanner = pet::loadScanner(r.scanner);
    scannerInfo_->setText(scannerText(scanner));
    pet::PetPhantom phantom(r.phantom);  // checks spheres that overlap or leave the cylinder
    const VolumeGrid grid = petSimulationGrid(scanner, r);
    const Eigen::Vector3d extent = grid.voxelSizeMm.cwiseProduct(
        Eigen::Vector3d(double(grid.shape.nx), double(grid.shape.ny), double(grid.shape.nz)));
    QString info = tr("%1 × %2 × %3 voxels = %4 × %5 × %6 mm; the events take %7 MB")
                       .arg(grid.shape.nx)
                       .arg(grid.shape.ny)
                       .arg(grid.shape.nz)
                       .arg(extent.x(), 0, 'f', 0)
                       .arg(extent.y(), 0, 'f', 0)
                       .arg(extent.z(), 0, 'f', 0)
                       .arg(double(r.prompts) * (1.0 + r.randomsFraction) * 12.0 / 1e6, 0, 'f', 0);
    if (extent.x() < 2.0 * r.phantom.cylinderRadiusMm)
      info += tr("\nThe grid is narrower than the 35 cm cylinder: only its middle is simulated.");
    gridInfo_->setText(info);
  } catch (const std::exception& e) {
    problem_ = QString::fromStdString(e.what());
    if (file) scannerInfo_->clear();
  }
  problemLabel_->setText(problem_);
  problemLabel_->setVisible(!problem_.isEmpty());
  simulateButton_->setEnabled(problem_.isEmpty());
}

}  // namespace tomowb::gui
