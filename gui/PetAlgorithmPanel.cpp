// PetAlgorithmPanel: see the header.
#include "gui/PetAlgorithmPanel.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QSpinBox>
#include <QStandardItemModel>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

#include "gui/core/Workspace.h"
#include "recon/core/Error.h"
#include "recon/core/MemoryBudget.h"
#include "recon/device/GpuDevices.h"
#include "recon/job/GpuMonitor.h"
#include "recon/pet/PetPipeline.h"
#include "recon/variant/VariantRegistry.h"

namespace tomowb::gui {

namespace {

constexpr double kBytesPerMiB = 1024.0 * 1024.0;

QDoubleSpinBox* doubleSpin(double minimum, double maximum, double value, int decimals,
                           const QString& suffix, QWidget* parent) {
  auto* spin = new QDoubleSpinBox(parent);
  spin->setRange(minimum, maximum);
  spin->setDecimals(decimals);
  spin->setValue(value);
  spin->setSuffix(suffix);
  return spin;
}

QSpinBox* intSpin(int minimum, int maximum, int value, const QString& suffix, QWidget* parent) {
  auto* spin = new QSpinBox(parent);
  spin->setRange(minimum, maximum);
  spin->setValue(value);
  spin->setSuffix(suffix);
  return spin;
}

void selectData(QComboBox* combo, const QVariant& data) {
  const int index = combo->findData(data);
  if (index >= 0) combo->setCurrentIndex(index);
}

}  // namespace

PetAlgorithmPanel::PetAlgorithmPanel(Workspace& workspace, QWidget* parent)
    : QWidget(parent), workspace_(workspace) {
  setObjectName(QStringLiteral("petAlgorithmPanel"));
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  hint_ = new QLabel(tr("DIRECT reconstructs TOF-PET list mode: simulate a PET scan or open list "
                        "mode first (File menu)."),
                     this);
  hint_->setWordWrap(true);
  layout->addWidget(hint_);
  form_ = new QWidget(this);
  auto* formLayout = new QVBoxLayout(form_);
  formLayout->setContentsMargins(0, 0, 0, 0);

  auto* top = new QFormLayout;
  auto* title = new QLabel(tr("<b>DIRECT</b> TOF-PET: histo-images per view, convolution with the "
                              "system-response kernels"),
                           form_);
  title->setWordWrap(true);
  top->addRow(title);
  algorithm_ = new QComboBox(form_);
  algorithm_->setObjectName(QStringLiteral("petAlgorithmCombo"));
  algorithm_->addItem(tr("OSEM (ordered subsets)"), static_cast<int>(pet::EmAlgorithm::Osem));
  algorithm_->addItem(tr("ML-EM"), static_cast<int>(pet::EmAlgorithm::Mlem));
  algorithm_->addItem(tr("RAMLA (relaxed, block)"), static_cast<int>(pet::EmAlgorithm::Ramla));
  algorithm_->setToolTip(
      tr("The update: ML-EM over all views, OSEM over subsets of views, or the "
         "seed's relaxed block RAMLA"));
  iterations_ = intSpin(1, 10000, 10, QString(), form_);
  iterations_->setObjectName(QStringLiteral("petIterations"));
  iterations_->setToolTip(tr("Passes over every view"));
  subsets_ = intSpin(1, 4096, 10, QString(), form_);
  subsets_->setObjectName(QStringLiteral("petSubsets"));
  subsets_->setToolTip(
      tr("View subsets per pass (OSEM, RAMLA), interleaved over azimuths and "
         "tilts"));
  lambda0_ = doubleSpin(0.01, 2.0, 1.0, 2, QString(), form_);
  lambda0_->setToolTip(tr("RAMLA's first relaxation lambda0"));
  beta_ = doubleSpin(0.1, 1000.0, 5.0, 1, tr(" passes"), form_);
  beta_->setToolTip(tr("RAMLA: lambda_n = lambda0 / (1 + n / beta)"));
  top->addRow(tr("&Update:"), algorithm_);
  top->addRow(tr("&Iterations:"), iterations_);
  top->addRow(tr("Su&bsets:"), subsets_);
  lambdaLabel_ = new QLabel(tr("Relaxation λ0:"), form_);
  betaLabel_ = new QLabel(tr("Relaxation halves after:"), form_);
  top->addRow(lambdaLabel_, lambda0_);
  top->addRow(betaLabel_, beta_);
  formLayout->addLayout(top);

  auto* kernelBox = new QGroupBox(tr("System response"), form_);
  auto* kernelForm = new QFormLayout(kernelBox);
  lorKernel_ = new QComboBox(kernelBox);
  lorKernel_->setObjectName(QStringLiteral("petLorKernel"));
  const std::pair<pet::LorWidthProfile, QString> kernels[] = {
      {pet::LorWidthProfile::Invariant, tr("Invariant")},
      {pet::LorWidthProfile::Variant1, tr("Variant 1 (10 mm at the edge, linear from 75 mm)")},
      {pet::LorWidthProfile::Variant2, tr("Variant 2 (12 mm at the edge, linear)")},
      {pet::LorWidthProfile::Variant3, tr("Variant 3 (11.2 mm at the edge, quadratic)")}};
  for (const auto& [profile, label] : kernels)
    lorKernel_->addItem(label, QString::fromStdString(pet::toString(profile)));
  lorKernel_->setToolTip(
      tr("How the LOR's radial resolution widens away from the centre (the "
         "seed's kernels); invariant kernels also run as FFTs on the GPU"));
  radialFwhm_ = doubleSpin(0.5, 50.0, 5.8, 2, tr(" mm"), kernelBox);
  radialFwhm_->setObjectName(QStringLiteral("petRadialFwhm"));
  axialFwhm_ = doubleSpin(0.5, 50.0, 5.8, 2, tr(" mm"), kernelBox);
  tofFwhm_ = doubleSpin(1.0, 100000.0, 400.0, 0, tr(" ps"), kernelBox);
  tofFwhm_->setObjectName(QStringLiteral("petTofFwhm"));
  tofFwhm_->setToolTip(
      tr("The TOF kernel's width (coincidence timing resolution): the "
         "scanner's by default"));
  deposition_ = new QComboBox(kernelBox);
  deposition_->setObjectName(QStringLiteral("petDeposition"));
  deposition_->addItem(tr("Nearest voxel (counts)"),
                       QString::fromStdString(pet::toString(pet::DepositionMode::Nearest)));
  deposition_->addItem(tr("Trilinear"),
                       QString::fromStdString(pet::toString(pet::DepositionMode::Trilinear)));
  deposition_->addItem(tr("TOF kernel"),
                       QString::fromStdString(pet::toString(pet::DepositionMode::TofKernel)));
  deposition_->setToolTip(
      tr("How events go into the histo-images: at the most likely point "
         "(nearest or shared trilinearly) or spread with the TOF kernel"));
  kernelForm->addRow(tr("&LOR kernel:"), lorKernel_);
  kernelForm->addRow(tr("Radial FWHM:"), radialFwhm_);
  kernelForm->addRow(tr("Axial FWHM:"), axialFwhm_);
  kernelForm->addRow(tr("&TOF FWHM:"), tofFwhm_);
  kernelForm->addRow(tr("&Deposition:"), deposition_);
  formLayout->addWidget(kernelBox);

  auto* correctionBox = new QGroupBox(tr("Corrections and figures"), form_);
  auto* correctionForm = new QFormLayout(correctionBox);
  attenuation_ = new QCheckBox(tr("&Attenuation (the phantom's water cylinder)"), correctionBox);
  attenuation_->setObjectName(QStringLiteral("petAttenuationCorrection"));
  randoms_ = new QCheckBox(tr("&Randoms (from the delayed events)"), correctionBox);
  randoms_->setObjectName(QStringLiteral("petRandomsCorrection"));
  reference_ = new QComboBox(correctionBox);
  reference_->setObjectName(QStringLiteral("petReference"));
  reference_->addItem(tr("The simulated phantom"), static_cast<int>(PetReference::Simulation));
  reference_->addItem(tr("The default PET phantom"),
                      static_cast<int>(PetReference::DefaultPhantom));
  reference_->addItem(tr("None"), static_cast<int>(PetReference::None));
  reference_->setToolTip(
      tr("Whose spheres contrast recovery and noise are measured on after each "
         "iteration (a file simulated elsewhere: the default phantom)"));
  correctionForm->addRow(attenuation_);
  correctionForm->addRow(randoms_);
  correctionForm->addRow(tr("C&RC spheres:"), reference_);
  formLayout->addWidget(correctionBox);

  auto* gridBox = new QGroupBox(tr("Image and views"), form_);
  auto* gridForm = new QFormLayout(gridBox);
  auto* sizeRow = new QHBoxLayout;
  nx_ = intSpin(1, 1024, 100, tr(" × same"), gridBox);
  nx_->setObjectName(QStringLiteral("petGridNx"));
  nx_->setAccessibleName(tr("Transverse voxels"));
  nz_ = intSpin(1, 1024, 16, tr(" slices"), gridBox);
  nz_->setObjectName(QStringLiteral("petGridNz"));
  nz_->setAccessibleName(tr("Slices"));
  sizeRow->addWidget(nx_);
  sizeRow->addWidget(nz_);
  voxel_ = doubleSpin(0.5, 50.0, 4.0, 2, tr(" mm"), gridBox);
  voxel_->setObjectName(QStringLiteral("petGridVoxel"));
  auto* viewRow = new QHBoxLayout;
  azimuths_ = intSpin(1, 4096, 40, tr(" azimuths"), gridBox);
  azimuths_->setObjectName(QStringLiteral("petAzimuths"));
  tilts_ = intSpin(1, 64, 3, tr(" tilts"), gridBox);
  tilts_->setObjectName(QStringLiteral("petTilts"));
  viewRow->addWidget(azimuths_);
  viewRow->addWidget(tilts_);
  units_ = new QComboBox(gridBox);
  units_->setObjectName(QStringLiteral("petUnits"));
  units_->addItem(tr("Bq/mL (activity concentration)"), true);
  units_->addItem(tr("Emissions per voxel (counts)"), false);
  decay_ = new QCheckBox(tr("Decay corrected to the scan start"), gridBox);
  decay_->setObjectName(QStringLiteral("petDecayCorrection"));
  gridForm->addRow(tr("Size:"), sizeRow);
  gridForm->addRow(tr("&Voxel:"), voxel_);
  gridForm->addRow(tr("Views:"), viewRow);
  gridForm->addRow(tr("U&nits:"), units_);
  gridForm->addRow(decay_);
  formLayout->addWidget(gridBox);

  auto* deviceBox = new QGroupBox(tr("Device and projectors"), form_);
  auto* deviceForm = new QFormLayout(deviceBox);
  device_ = new QComboBox(deviceBox);
  device_->setObjectName(QStringLiteral("petDevice"));
  device_->addItem(tr("CPU"), -1);
  const bool gpuVariants = [] {
    for (const KernelVariant* v :
         VariantRegistry::builtins().withRole(VariantRole::PetForwardProjector))
      if (v->needsGpu) return true;
    return false;
  }();
  if (gpuVariants)
    for (const cuda::GpuDevice& gpu : cuda::listGpuDevices())
      device_->addItem(tr("GPU %1: %2").arg(gpu.index).arg(QString::fromStdString(gpu.name)),
                       gpu.index);
  // The GPU by default when there is one.
  if (device_->count() > 1) device_->setCurrentIndex(1);
  forward_ = new QComboBox(deviceBox);
  forward_->setObjectName(QStringLiteral("petForwardProjector"));
  back_ = new QComboBox(deviceBox);
  back_->setObjectName(QStringLiteral("petBackprojector"));
  deviceForm->addRow(tr("D&evice:"), device_);
  deviceForm->addRow(tr("&Forward:"), forward_);
  deviceForm->addRow(tr("Bac&k:"), back_);
  formLayout->addWidget(deviceBox);

  memory_ = new QLabel(form_);
  memory_->setObjectName(QStringLiteral("petMemoryEstimate"));
  memory_->setWordWrap(true);
  formLayout->addWidget(memory_);
  runBar_ = new QWidget(form_);
  runBar_->setObjectName(QStringLiteral("petRunBar"));
  auto* runLayout = new QVBoxLayout(runBar_);
  runLayout->setContentsMargins(0, 0, 0, 0);
  reason_ = new QLabel(runBar_);
  reason_->setObjectName(QStringLiteral("petRunBlockedReason"));
  reason_->setWordWrap(true);
  reason_->setStyleSheet(QStringLiteral("color: #c0392b;"));
  runLayout->addWidget(reason_);
  run_ =
      new QPushButton(QIcon(QStringLiteral(":/tomowb/icons/run.svg")), tr("&Run DIRECT"), runBar_);
  run_->setObjectName(QStringLiteral("petRunButton"));
  run_->setMinimumHeight(32);
  runLayout->addWidget(run_);
  formLayout->addWidget(runBar_);
  layout->addWidget(form_);
  layout->addStretch(1);

  // Combos as wide as the dock allows, not as their longest item: the form fits a 300 px dock.
  for (QComboBox* combo : findChildren<QComboBox*>()) {
    combo->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    combo->setMinimumContentsLength(12);
  }
  connect(run_, &QPushButton::clicked, this, &PetAlgorithmPanel::runRequested);
  connect(device_, &QComboBox::currentIndexChanged, this, [this] {
    fillProjectors();
    refresh();
  });
  for (QComboBox* combo :
       {algorithm_, lorKernel_, deposition_, reference_, units_, forward_, back_})
    connect(combo, &QComboBox::currentIndexChanged, this, &PetAlgorithmPanel::refresh);
  for (QSpinBox* spin : {iterations_, subsets_, nx_, nz_, azimuths_, tilts_})
    connect(spin, &QSpinBox::valueChanged, this, &PetAlgorithmPanel::refresh);
  for (QDoubleSpinBox* spin : {lambda0_, beta_, radialFwhm_, axialFwhm_, tofFwhm_, voxel_})
    connect(spin, &QDoubleSpinBox::valueChanged, this, &PetAlgorithmPanel::refresh);
  for (QCheckBox* box : {attenuation_, randoms_, decay_})
    connect(box, &QCheckBox::toggled, this, &PetAlgorithmPanel::refresh);
  connect(&workspace_, &Workspace::petDataChanged, this, &PetAlgorithmPanel::onDataChanged);
  fillProjectors();
  onDataChanged();
}

QSize PetAlgorithmPanel::sizeHint() const {
  return {std::max(QWidget::sizeHint().width(), 340), QWidget::sizeHint().height()};
}

void PetAlgorithmPanel::fillProjectors() {
  const bool gpu = device_->currentData().toInt() >= 0;
  const VariantRegistry& registry = VariantRegistry::builtins();
  const VariantDevice device = gpu ? VariantDevice::Gpu : VariantDevice::Cpu;
  const auto fill = [&](QComboBox* combo, VariantRole role) {
    const QSignalBlocker block(combo);
    combo->clear();
    for (const KernelVariant* v : registry.withRole(role)) {
      if (v->needsGpu != gpu) continue;
      combo->addItem(QString::fromStdString(v->name), QString::fromStdString(v->name));
      combo->setItemData(combo->count() - 1, QString::fromStdString(v->description),
                         Qt::ToolTipRole);
    }
    try {
      selectData(combo, QString::fromStdString(registry.defaultFor(role, device).name));
    } catch (const Error&) {
      // no default for the device in this build: the first listed stays
    }
  };
  fill(forward_, VariantRole::PetForwardProjector);
  fill(back_, VariantRole::PetBackprojector);
}

QStringList PetAlgorithmPanel::forwardProjectorNames() const {
  QStringList names;
  for (int i = 0; i < forward_->count(); ++i) names << forward_->itemData(i).toString();
  return names;
}

QStringList PetAlgorithmPanel::backprojectorNames() const {
  QStringList names;
  for (int i = 0; i < back_->count(); ++i) names << back_->itemData(i).toString();
  return names;
}

void PetAlgorithmPanel::onDataChanged() {
  const std::shared_ptr<const PetDataSet> data = workspace_.petData();
  hint_->setVisible(!data);
  form_->setEnabled(data != nullptr);
  runBar_->setEnabled(data != nullptr);  // also when pinned outside the form
  if (!data) {
    refresh();
    return;
  }
  updating_ = true;
  const pet::ScannerModel& scanner = data->header.scanner;
  tofFwhm_->setValue(scanner.tofFwhmPs);
  radialFwhm_->setValue(scanner.intrinsicResolutionMm);
  axialFwhm_->setValue(scanner.intrinsicResolutionMm);
  nx_->setValue(static_cast<int>(data->grid.shape.nx));
  nz_->setValue(static_cast<int>(data->grid.shape.nz));
  voxel_->setValue(data->grid.voxelSizeMm.x());
  const pet::ViewBinning views = pet::defaultPetViews(scanner);
  azimuths_->setValue(views.azimuths);
  tilts_->setValue(views.tilts);
  attenuation_->setChecked(data->attenuation != nullptr);
  randoms_->setChecked(data->delayedCount() > 0);
  selectData(reference_, static_cast<int>(data->simulatedHere()     ? PetReference::Simulation
                                          : data->header.simulation ? PetReference::DefaultPhantom
                                                                    : PetReference::None));
  // The simulation's item only for data simulated here.
  if (auto* model = qobject_cast<QStandardItemModel*>(reference_->model()))
    model->item(0)->setEnabled(data->simulatedHere());
  updating_ = false;
  refresh();
}

PetRunSettings PetAlgorithmPanel::settings() const {
  PetRunSettings s;
  s.algorithm = static_cast<pet::EmAlgorithm>(algorithm_->currentData().toInt());
  s.iterations = iterations_->value();
  s.subsets = subsets_->value();
  s.lambda0 = lambda0_->value();
  s.betaPasses = beta_->value();
  s.lorKernel = pet::parseLorWidthProfile(lorKernel_->currentData().toString().toStdString());
  s.radialFwhmMm = radialFwhm_->value();
  s.axialFwhmMm = axialFwhm_->value();
  s.tofFwhmPs = tofFwhm_->value();
  s.deposition = pet::parseDepositionMode(deposition_->currentData().toString().toStdString());
  s.attenuationCorrection = attenuation_->isChecked() && attenuation_->isEnabled();
  s.randomsCorrection = randoms_->isChecked() && randoms_->isEnabled();
  s.reference = static_cast<PetReference>(reference_->currentData().toInt());
  const double voxel = voxel_->value();
  s.grid = VolumeGrid::centred({nx_->value(), nx_->value(), nz_->value()},
                               Eigen::Vector3d::Constant(voxel));
  s.azimuths = azimuths_->value();
  s.tilts = tilts_->value();
  s.bqPerMl = units_->currentData().toBool();
  s.decayCorrection = decay_->isChecked();
  const int gpu = device_->currentData().toInt();
  s.device = gpu >= 0 ? VariantDevice::Gpu : VariantDevice::Cpu;
  s.gpuIndex = std::max(0, gpu);
  s.forwardVariant = forward_->currentData().toString().toStdString();
  s.backVariant = back_->currentData().toString().toStdString();
  return s;
}

void PetAlgorithmPanel::setSettings(const PetRunSettings& s) {
  updating_ = true;
  selectData(algorithm_, static_cast<int>(s.algorithm));
  iterations_->setValue(s.iterations);
  subsets_->setValue(s.subsets);
  lambda0_->setValue(s.lambda0);
  beta_->setValue(s.betaPasses);
  selectData(lorKernel_, QString::fromStdString(pet::toString(s.lorKernel)));
  radialFwhm_->setValue(s.radialFwhmMm);
  axialFwhm_->setValue(s.axialFwhmMm);
  if (s.tofFwhmPs > 0) tofFwhm_->setValue(s.tofFwhmPs);
  selectData(deposition_, QString::fromStdString(pet::toString(s.deposition)));
  attenuation_->setChecked(s.attenuationCorrection);
  randoms_->setChecked(s.randomsCorrection);
  selectData(reference_, static_cast<int>(s.reference));
  if (s.grid.shape.voxelCount() > 0) {
    nx_->setValue(static_cast<int>(s.grid.shape.nx));
    nz_->setValue(static_cast<int>(s.grid.shape.nz));
    voxel_->setValue(s.grid.voxelSizeMm.x());
  }
  azimuths_->setValue(s.azimuths);
  tilts_->setValue(s.tilts);
  selectData(units_, s.bqPerMl);
  decay_->setChecked(s.decayCorrection);
  selectData(device_, s.device == VariantDevice::Gpu ? s.gpuIndex : -1);
  fillProjectors();
  if (!s.forwardVariant.empty()) selectData(forward_, QString::fromStdString(s.forwardVariant));
  if (!s.backVariant.empty()) selectData(back_, QString::fromStdString(s.backVariant));
  updating_ = false;
  refresh();
}

bool PetAlgorithmPanel::validate(QString* why) const {
  QString reason;
  const std::shared_ptr<const PetDataSet> data = workspace_.petData();
  if (!data) {
    reason = tr("Simulate a PET scan or open list mode first.");
  } else {
    try {
      const PetRunSettings s = settings();
      validatePetRun(*data, s);
      const double bytes = petRunHostBytes(*data, s);
      const HostMemorySample host = hostMemory();
      if (host.availableBytes > 0 && bytes > 0.9 * double(host.availableBytes))
        reason = tr("The histo-images need %1 MiB, more than the %2 MiB free: fewer views or "
                    "voxels.")
                     .arg(bytes / kBytesPerMiB, 0, 'f', 0)
                     .arg(double(host.availableBytes) / kBytesPerMiB, 0, 'f', 0);
    } catch (const std::exception& e) {
      reason = QString::fromStdString(e.what());
    }
  }
  if (why != nullptr) *why = reason;
  return reason.isEmpty();
}

void PetAlgorithmPanel::refresh() {
  const std::shared_ptr<const PetDataSet> data = workspace_.petData();
  const auto algorithm = static_cast<pet::EmAlgorithm>(algorithm_->currentData().toInt());
  subsets_->setEnabled(algorithm != pet::EmAlgorithm::Mlem);
  const bool ramla = algorithm == pet::EmAlgorithm::Ramla;
  for (QWidget* w : {static_cast<QWidget*>(lambda0_), static_cast<QWidget*>(beta_),
                     static_cast<QWidget*>(lambdaLabel_), static_cast<QWidget*>(betaLabel_)})
    w->setVisible(ramla);
  if (data) {
    // Attenuation needs a mu map: the simulation's water cylinder. A file comes without one (its
    // object may be anything, so no phantom's map is assumed).
    attenuation_->setEnabled(data->attenuation != nullptr);
    attenuation_->setToolTip(data->attenuation
                                 ? tr("Attenuation factors from the phantom's water cylinder")
                                 : tr("No attenuation map comes with this list-mode file"));
    randoms_->setEnabled(data->delayedCount() > 0);
    randoms_->setToolTip(data->delayedCount() > 0
                             ? tr("The delayed-window events, deposited and smoothed, as the "
                                  "additive background")
                             : tr("The file holds no delayed events"));
    decay_->setToolTip(tr("Bq/mL at the scan start with the half-life of %1 (%2 min)")
                           .arg(QString::fromStdString(data->header.isotope))
                           .arg(data->header.halfLifeS / 60.0, 0, 'f', 1));
    const PetRunSettings s = settings();
    const VolumeGrid& g = s.grid;
    memory_->setText(tr("%1 × %1 × %2 voxels of %3 mm (%4 × %5 mm), %6 views; histo-images "
                        "about %7 MiB")
                         .arg(g.shape.nx)
                         .arg(g.shape.nz)
                         .arg(g.voxelSizeMm.x(), 0, 'g', 3)
                         .arg(double(g.shape.nx) * g.voxelSizeMm.x(), 0, 'f', 0)
                         .arg(double(g.shape.nz) * g.voxelSizeMm.z(), 0, 'f', 0)
                         .arg(s.azimuths * s.tilts)
                         .arg(petRunHostBytes(*data, s) / kBytesPerMiB, 0, 'f', 0));
  } else {
    memory_->clear();
  }
  QString why;
  const bool ok = validate(&why);
  reason_->setText(why);
  reason_->setVisible(!ok && data != nullptr);
  run_->setEnabled(ok);
  run_->setToolTip(ok ? tr("Reconstruct with DIRECT (Ctrl+R)") : why);
  if (!updating_) emit settingsChanged();
}

}  // namespace tomowb::gui
