#include "gui/AlgorithmPanel.h"

#include <omp.h>

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QInputDialog>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QStandardItemModel>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

#include "gui/algorithms/AlgorithmForms.h"
#include "gui/algorithms/ParameterForm.h"
#include "gui/algorithms/ProjectorChoice.h"
#include "gui/algorithms/RunInputsBox.h"
#include "gui/algorithms/RunMemory.h"
#include "gui/core/CatalogRun.h"
#include "gui/core/RunController.h"
#include "gui/core/TiltAngles.h"
#include "gui/core/Workspace.h"
#include "recon/catalog/BuiltinAlgorithms.h"
#include "recon/core/Error.h"
#include "recon/core/MemoryBudget.h"
#include "recon/device/GpuDevices.h"
#include "recon/fdk/HelicalOrbit.h"
#include "recon/iterative/IterativeJson.h"
#include "recon/variant/VariantRegistry.h"

namespace tomowb::gui {

namespace {

constexpr int kMaxVolumeEdge = 16384;
constexpr double kBytesPerGiB = double(std::uint64_t{1} << 30);

bool volumesShareGrid(const Volume& v, const fdk::VolumeGrid& g) {
  if (v.shape() != g.shape) return false;
  const Eigen::Vector3d d = v.voxelSizeMm() - g.voxelSizeMm;
  return d.cwiseAbs().maxCoeff() <= 1e-9 * g.voxelSizeMm.cwiseAbs().maxCoeff();
}

bool lists(const catalog::AlgorithmDescriptor& d, catalog::Modality modality) {
  return std::find(d.modalities.begin(), d.modalities.end(), modality) != d.modalities.end();
}

// What loading data chooses: for a tilt series the first iterative ET algorithm (SIRT), else
// the first CT one (FDK); the first listed when none fits.
QString defaultAlgorithmFor(const catalog::AlgorithmCatalog& algorithms, bool tiltSeries) {
  const auto& all = algorithms.all();
  for (const catalog::AlgorithmDescriptor& d : all)
    if (tiltSeries ? lists(d, catalog::Modality::ElectronTomography) && d.iterative
                   : lists(d, catalog::Modality::TransmissionCt))
      return QString::fromStdString(d.id);
  return all.empty() ? QString() : QString::fromStdString(all.front().id);
}

}  // namespace

QString lengthText(double mm) {
  const double a = std::abs(mm);
  if (a > 0 && a < 1e-3) return QStringLiteral("%1 nm").arg(mm * 1e6, 0, 'g', 4);
  if (a > 0 && a < 1.0) return QStringLiteral("%1 \u00b5m").arg(mm * 1e3, 0, 'g', 4);
  return QStringLiteral("%1 mm").arg(mm, 0, 'g', 4);
}

fdk::VolumeGrid autoVolumeGrid(const Geometry& geometry, catalog::GridPolicy policy) {
  const fdk::VolumeGrid fov = fdk::fieldOfViewGrid(geometry);  // as tomowb-cli's default grid
  if (policy != catalog::GridPolicy::IlluminatedVolume) return fov;
  // Every slice a ray reaches (a helix), on the slices of FDK's lattice that cover them: FDK and
  // PWLS runs of one scan then share voxels, and the compare view compares the common part.
  fdk::VolumeGrid grid = fdk::illuminatedGrid(geometry);
  const double dz = fov.voxelSizeMm.z(), top = grid.originMm.z() + dz * double(grid.shape.nz - 1);
  grid.originMm.z() =
      fov.originMm.z() - dz * std::ceil((fov.originMm.z() - grid.originMm.z()) / dz - 1e-6);
  grid.shape.nz = std::int64_t(std::ceil((top - grid.originMm.z()) / dz - 1e-6)) + 1;
  return grid;
}

QSize AlgorithmPanel::sizeHint() const {
  return {std::max(QWidget::sizeHint().width(), 340), QWidget::sizeHint().height()};
}

AlgorithmPanel::AlgorithmPanel(Workspace& workspace, QWidget* parent,
                               const catalog::AlgorithmCatalog& algorithms)
    : QWidget(parent), workspace_(workspace), catalog_(algorithms) {
  setObjectName(QStringLiteral("algorithmPanel"));
  buildUi();
  showForm(descriptor());
  fillDevices();
  fillProjectors();
  fillPresets();
  fillWarmStarts();
  updateVisibility();
  connect(&workspace_, &Workspace::projectionsChanged, this, &AlgorithmPanel::onProjectionsChanged);
  connect(&workspace_, &Workspace::geometryChanged, this, &AlgorithmPanel::refresh);
  onProjectionsChanged();
}

void AlgorithmPanel::buildUi() {
  layout_ = new QVBoxLayout(this);
  layout_->setContentsMargins(4, 4, 4, 4);

  topForm_ = new QFormLayout;
  algorithm_ = new QComboBox(this);
  algorithm_->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
  algorithm_->setMinimumContentsLength(18);  // long names elide; the popup shows them whole
  algorithm_->setObjectName(QStringLiteral("algorithmCombo"));
  for (const catalog::AlgorithmDescriptor& d : catalog_.all()) {
    algorithm_->addItem(algorithmListLabel(d), QString::fromStdString(d.id));
    algorithm_->setItemData(algorithm_->count() - 1, algorithmListTip(d), Qt::ToolTipRole);
  }
  algorithm_->setToolTip(tr("The reconstruction algorithm"));
  topForm_->addRow(tr("&Algorithm:"), algorithm_);
  auto* presetRow = new QHBoxLayout;
  presets_ = new QComboBox(this);
  presets_->setObjectName(QStringLiteral("presetCombo"));
  presets_->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
  presets_->setMinimumContentsLength(12);
  savePreset_ = new QPushButton(tr("Save…"), this);
  savePreset_->setToolTip(tr("Save the algorithm's parameters and kernel as a preset"));
  deletePreset_ = new QPushButton(tr("Delete"), this);
  // The combo on its own row, the buttons under it: side by side they set the dock's width.
  presetRow->addStretch(1);
  presetRow->addWidget(savePreset_);
  presetRow->addWidget(deletePreset_);
  topForm_->addRow(tr("Preset:"), presets_);
  topForm_->addRow(QString(), presetRow);
  layout_->addLayout(topForm_);
  // The algorithm's form goes here (index 1: showForm), its reference and weights below it.
  inputs_ = new RunInputsBox(workspace_, this);
  layout_->addWidget(inputs_);

  warmStart_ = new QComboBox(this);
  warmStart_->setObjectName(QStringLiteral("warmStartCombo"));
  warmStart_->hide();
  buildGridBox(layout_);
  buildDeviceBox(layout_);

  auto* memoryBox = new QGroupBox(tr("Memory estimate"), this);
  auto* memoryLayout = new QVBoxLayout(memoryBox);
  memory_ = new QLabel(memoryBox);
  memory_->setObjectName(QStringLiteral("memoryEstimate"));
  memory_->setWordWrap(true);
  memory_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  memoryLayout->addWidget(memory_);
  layout_->addWidget(memoryBox);

  runBar_ = new QWidget(this);
  runBar_->setObjectName(QStringLiteral("algorithmRunBar"));
  auto* runLayout = new QVBoxLayout(runBar_);
  runLayout->setContentsMargins(0, 0, 0, 0);
  reason_ = new QLabel(runBar_);
  reason_->setObjectName(QStringLiteral("runBlockedReason"));
  reason_->setWordWrap(true);
  reason_->setStyleSheet(QStringLiteral("color: #c0392b;"));
  run_ = new QPushButton(QIcon(QStringLiteral(":/tomowb/icons/run.svg")), tr("&Run"), runBar_);
  run_->setObjectName(QStringLiteral("algorithmRunButton"));
  run_->setMinimumHeight(32);
  runLayout->addWidget(reason_);
  runLayout->addWidget(run_);
  layout_->addWidget(runBar_);
  layout_->addStretch(1);
  connectWidgets();
}

void AlgorithmPanel::buildGridBox(QVBoxLayout* layout) {
  auto* gridBox = new QGroupBox(tr("Volume"), this);
  gridForm_ = new QFormLayout(gridBox);
  auto* sizeRow = new QHBoxLayout;
  for (QSpinBox** spin : {&nx_, &ny_, &nz_}) {
    *spin = new QSpinBox(gridBox);
    (*spin)->setRange(1, kMaxVolumeEdge);
    (*spin)->setValue(256);
    sizeRow->addWidget(*spin);
  }
  nx_->setObjectName(QStringLiteral("volumeNx"));
  nx_->setAccessibleName(tr("Volume size x"));
  ny_->setAccessibleName(tr("Volume size y"));
  nz_->setAccessibleName(tr("Volume size z"));
  voxel_ = new QDoubleSpinBox(gridBox);
  voxel_->setObjectName(QStringLiteral("voxelSize"));
  voxel_->setRange(1e-9, 1000.0);
  setVoxelSize(1.0);
  voxel_->setSuffix(tr(" mm"));
  thickness_ = new QSpinBox(gridBox);
  thickness_->setObjectName(QStringLiteral("thicknessVoxels"));
  thickness_->setRange(1, kMaxVolumeEdge);
  thickness_->setSuffix(tr(" voxels"));
  thickness_->setToolTip(
      tr("Tomogram thickness through the specimen (y, along the beam at tilt 0); a quarter of the "
         "detector width by default"));
  gridInfo_ = new QLabel(gridBox);
  gridInfo_->setObjectName(QStringLiteral("gridInfo"));
  gridInfo_->setWordWrap(true);
  gridInfo_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  autoGrid_ = new QPushButton(tr("Auto from &geometry"), gridBox);
  autoGrid_->setToolTip(
      tr("Voxels of the detector pitch: covering the field of view and the detector height, or "
         "for a tilt series the tomogram of the thickness given"));
  gridForm_->addRow(tr("Size (x y z):"), sizeRow);
  gridForm_->addRow(tr("&Voxel size:"), voxel_);
  gridForm_->addRow(tr("T&hickness:"), thickness_);
  gridForm_->addRow(gridInfo_);
  gridForm_->addRow(autoGrid_);
  layout->addWidget(gridBox);
}

void AlgorithmPanel::buildDeviceBox(QVBoxLayout* layout) {
  auto* deviceBox = new QGroupBox(tr("Device and kernel"), this);
  deviceForm_ = new QFormLayout(deviceBox);
  device_ = new QComboBox(deviceBox);
  device_->setObjectName(QStringLiteral("deviceCombo"));
  threads_ = new QSpinBox(deviceBox);
  threads_->setObjectName(QStringLiteral("cpuThreads"));
  threads_->setRange(0, 1024);
  threads_->setSpecialValueText(tr("all (%1)").arg(omp_get_max_threads()));
  threads_->setToolTip(tr("CPU threads for filtering and the CPU kernels"));
  gpuMemoryLimit_ = new QDoubleSpinBox(deviceBox);
  gpuMemoryLimit_->setObjectName(QStringLiteral("gpuMemoryLimit"));
  gpuMemoryLimit_->setRange(0.0, 1024.0);
  gpuMemoryLimit_->setDecimals(2);
  gpuMemoryLimit_->setSingleStep(0.5);
  gpuMemoryLimit_->setSuffix(tr(" GiB"));
  gpuMemoryLimit_->setSpecialValueText(tr("free memory"));
  gpuMemoryLimit_->setToolTip(
      tr("Use at most this much of the GPU's memory (tomowb-cli --gpu-mem-limit); the run "
         "splits the volume into more slabs to stay below it"));
  deviceForm_->addRow(tr("&Device:"), device_);
  deviceForm_->addRow(tr("&Threads:"), threads_);
  deviceForm_->addRow(tr("GPU &memory limit:"), gpuMemoryLimit_);
  projectors_ = new ProjectorChoice(*deviceForm_, deviceBox);
  layout->addWidget(deviceBox);
}

void AlgorithmPanel::connectWidgets() {
  auto changed = [this] {
    if (!updating_) refresh();
  };
  connect(warmStart_, &QComboBox::currentIndexChanged, this, changed);
  connect(projectors_, &ProjectorChoice::changed, this, changed);
  connect(inputs_, &RunInputsBox::changed, this, changed);
  connect(algorithm_, &QComboBox::currentIndexChanged, this, &AlgorithmPanel::onAlgorithmChanged);
  connect(device_, &QComboBox::activated, this, [this] { userChoseDevice_ = true; });
  connect(device_, &QComboBox::currentIndexChanged, this, [this] {
    if (updating_) return;
    fillProjectors();
    refresh();
  });
  for (QSpinBox* s : {nx_, nz_, threads_}) connect(s, &QSpinBox::valueChanged, this, changed);
  // The warm-start list follows the grid.
  for (QSpinBox* s : {nx_, ny_, nz_})
    connect(s, &QSpinBox::valueChanged, this, [this] {
      if (!updating_) fillWarmStarts();
    });
  connect(ny_, &QSpinBox::valueChanged, this, [this](int value) {
    if (updating_) return;
    const QSignalBlocker block(thickness_);
    thickness_->setValue(value);
    refresh();
  });
  connect(thickness_, &QSpinBox::valueChanged, this, &AlgorithmPanel::onThicknessChanged);
  connect(gpuMemoryLimit_, &QDoubleSpinBox::valueChanged, this, changed);
  connect(voxel_, &QDoubleSpinBox::valueChanged, this, [this] {
    if (updating_) return;
    fillWarmStarts();
    refresh();
  });
  connect(autoGrid_, &QPushButton::clicked, this, &AlgorithmPanel::autoVolumeFromGeometry);
  connect(presets_, &QComboBox::activated, this, &AlgorithmPanel::onPresetChosen);
  connect(savePreset_, &QPushButton::clicked, this, [this] {
    bool ok = false;
    const QString name =
        QInputDialog::getText(this, tr("Save algorithm preset"), tr("Preset name:"),
                              QLineEdit::Normal, QString(), &ok)
            .trimmed();
    if (ok && !name.isEmpty() && !name.contains('/')) saveUserPreset(name);
  });
  connect(deletePreset_, &QPushButton::clicked, this,
          [this] { deleteUserPreset(presets_->currentText()); });
  connect(run_, &QPushButton::clicked, this, [this] {
    if (validate(nullptr)) emit runRequested();
  });
}

void AlgorithmPanel::showForm(const catalog::AlgorithmDescriptor& d) {
  // Values the user changed carry over to the next algorithm where it has the field; the others
  // take its start values (SART's relaxation 0.5 after SIRT's untouched 1).
  nlohmann::json carried = nlohmann::json::object();
  if (form_ != nullptr) {
    const nlohmann::json now = form_->parameters();
    const nlohmann::json& start = form_->initialParameters();
    for (const catalog::ParameterSpec& spec : d.parameters) {
      const nlohmann::json::json_pointer at("/" + spec.field);
      if (now.contains(at) && (!start.contains(at) || start[at] != now[at])) carried[at] = now[at];
    }
    // The warm-start row belongs to the panel: take it out before the form goes.
    if (warmStart_->parentWidget() == form_) {
      const QFormLayout::TakeRowResult row = form_->formLayout()->takeRow(warmStart_);
      if (row.labelItem != nullptr) delete row.labelItem->widget();
      delete row.labelItem;
      delete row.fieldItem;
      warmStart_->setParent(this);
      warmStart_->hide();
    }
    delete form_;
  }
  form_ = makeAlgorithmForm(d, this);
  inputs_->setDescriptor(d);
  form_->setParameters(carried);
  layout_->insertWidget(1, form_);
  form_->show();  // at once, not when the event loop next runs (the panel may be shown)
  if (d.acceptsInitialVolume) {
    form_->formLayout()->addRow(tr("&Warm start:"), warmStart_);
    warmStart_->show();
  }
  connect(form_, &ParameterForm::changed, this, [this] {
    if (!updating_) refresh();
  });
}

void AlgorithmPanel::fillDevices() {
  const QSignalBlocker block(device_);
  const int previous = device_->currentData().isValid() ? device_->currentData().toInt() : -1;
  device_->clear();
  device_->addItem(tr("CPU"), -1);
  // A GPU is offered when one of the algorithm's projector roles has a GPU variant in this build.
  bool gpuVariant = false;
  for (const catalog::ProjectorSlot& slot : descriptor().projectors)
    gpuVariant = gpuVariant || ProjectorChoice::hasGpuVariant(slot.role);
  auto* model = qobject_cast<QStandardItemModel*>(device_->model());
  const std::vector<cuda::GpuDevice> gpus = cuda::listGpuDevices();
  for (const cuda::GpuDevice& g : gpus) {
    device_->addItem(tr("GPU %1: %2 (%3)")
                         .arg(g.index)
                         .arg(QString::fromStdString(g.name),
                              QString::fromStdString(formatBytes(g.totalMemoryBytes))),
                     g.index);
    if (!gpuVariant && model) {
      QStandardItem* item = model->item(device_->count() - 1);
      item->setEnabled(false);
      item->setToolTip(
          tr("No GPU kernel variant of this algorithm is registered in this build (built "
             "without CUDA kernels)"));
    }
  }
  if (gpus.empty() && model) {
    device_->addItem(tr("GPU: none found"), -2);
    QStandardItem* item = model->item(device_->count() - 1);
    item->setEnabled(false);
    item->setToolTip(QString::fromStdString(cuda::gpuStatus()));
  }
  const auto enabled = [&](int item) {
    return item >= 0 && (!model || model->item(item) == nullptr || model->item(item)->isEnabled());
  };
  const int keep = device_->findData(previous);
  if (enabled(keep) && (previous >= 0 || userChoseDevice_)) {
    device_->setCurrentIndex(keep);
    return;
  }
  // Until the user picks a device: the fastest GPU where the algorithm runs on one.
  const int fastest = gpuVariant ? device_->findData(cuda::fastestGpu(gpus)) : -1;
  device_->setCurrentIndex(enabled(fastest) ? fastest : 0);
}

bool AlgorithmPanel::setDevice(int gpuIndex, QString* why) {
  const int item = device_->findData(gpuIndex < 0 ? -1 : gpuIndex);
  auto* model = qobject_cast<QStandardItemModel*>(device_->model());
  if (item < 0 || (model && model->item(item) && !model->item(item)->isEnabled())) {
    if (why != nullptr)
      *why = item < 0 ? tr("there is no GPU %1 (%2)")
                            .arg(gpuIndex)
                            .arg(QString::fromStdString(cuda::gpuStatus()))
                      : model->item(item)->toolTip();
    return false;
  }
  userChoseDevice_ = true;
  device_->setCurrentIndex(item);  // fills the projector lists for the device
  return true;
}

bool AlgorithmPanel::setVariant(const QString& name, QString* why) {
  const KernelVariant* variant = VariantRegistry::builtins().find(name.toStdString());
  if (variant == nullptr) {
    if (why != nullptr) *why = tr("no kernel variant is called %1").arg(name);
    return false;
  }
  const catalog::ProjectorSlot* slot = nullptr;
  for (const catalog::ProjectorSlot& s : descriptor().projectors)
    if (s.role == variant->role) slot = &s;
  if (slot == nullptr) {
    if (why != nullptr)
      *why = tr("%1 is not a kernel of %2").arg(name, QString::fromStdString(descriptor().id));
    return false;
  }
  if (variant->needsGpu && gpuIndex() < 0) {
    const int fastest = cuda::fastestGpu(cuda::listGpuDevices());
    if (fastest < 0) {
      if (why != nullptr)
        *why = tr("%1 needs a GPU: %2").arg(name, QString::fromStdString(cuda::gpuStatus()));
      return false;
    }
    if (!setDevice(fastest, why)) return false;
  } else if (!variant->needsGpu && gpuIndex() >= 0) {
    setDevice(-1);
  }
  if (!projectors_->choose(slot->role, name)) {
    if (why != nullptr)
      *why =
          tr("%1 is not offered for this data (see its tool tip in the algorithm panel)").arg(name);
    return false;
  }
  refresh();
  return true;
}

void AlgorithmPanel::fillProjectors() {
  projectors_->setSlots(descriptor().projectors);
  // The geometry only: the grid may still change (the run's validation judges it).
  projectors_->fill(gpuIndex() >= 0, workspace_.geometry());
  gpuMemoryLimit_->setEnabled(gpuIndex() >= 0);
}

QString AlgorithmPanel::projectorModel() const {
  return projectors_->chosenModel();
}

bool AlgorithmPanel::setProjectorModel(const QString& model) {
  return projectors_->chooseModel(model.toLower());
}

QString AlgorithmPanel::backprojectorLabel(const QString& name) const {
  return projectors_->backprojectorLabel(name);
}

QStringList AlgorithmPanel::forwardProjectorNames() const {
  return projectors_->names(VariantRole::ForwardProjector);
}

QStringList AlgorithmPanel::backprojectorNames() const {
  return projectors_->names(VariantRole::Backprojector);
}

void AlgorithmPanel::setRunController(const RunController* runs) {
  if (runs_ != nullptr) disconnect(runs_, nullptr, this, nullptr);
  runs_ = runs;
  if (runs_ != nullptr) {
    connect(runs_, &RunController::runFinished, this, &AlgorithmPanel::fillWarmStarts);
    connect(runs_, &RunController::runForgotten, this, &AlgorithmPanel::fillWarmStarts);
  }
  fillWarmStarts();
}

std::vector<int> AlgorithmPanel::warmStartCandidates() const {
  std::vector<int> ids;
  if (runs_ == nullptr) return ids;
  const fdk::VolumeGrid g = grid();
  for (const int id : runs_->runIds()) {
    const RunInfo* info = runs_->run(id);
    if (info != nullptr && info->state == RunState::Finished && info->result &&
        volumesShareGrid(*info->result, g))
      ids.push_back(id);
  }
  return ids;
}

void AlgorithmPanel::fillWarmStarts() {
  const int previous = warmStartRunId();
  {
    const QSignalBlocker block(warmStart_);
    warmStart_->clear();
    // PWLS has its own start (zero or FDK) in the form above.
    warmStart_->addItem(descriptor().parameter("init") != nullptr ? tr("none (the start above)")
                                                                  : tr("none (start from zero)"),
                        -1);
    for (const int id : warmStartCandidates())
      warmStart_->addItem(tr("run %1: %2").arg(id).arg(runs_->run(id)->spec.title), id);
    const int keep = warmStart_->findData(previous);
    warmStart_->setCurrentIndex(keep >= 0 ? keep : 0);
    warmStart_->setEnabled(warmStart_->count() > 1);
    warmStart_->setToolTip(
        warmStart_->count() > 1
            ? tr("Start from the result of a finished run on the same grid instead of from zero")
            : tr("No finished run on this grid yet: its result could be a warm start"));
  }
  if (!updating_ && previous != warmStartRunId()) refresh();
}

int AlgorithmPanel::warmStartRunId() const {
  return warmStart_->currentData().isValid() ? warmStart_->currentData().toInt() : -1;
}

bool AlgorithmPanel::setWarmStartRun(int runId) {
  const int index = warmStart_->findData(runId);
  if (index < 0) return false;
  warmStart_->setCurrentIndex(index);
  return true;
}

QString AlgorithmPanel::algorithm() const {
  return algorithm_->currentData().toString();
}

const catalog::AlgorithmDescriptor& AlgorithmPanel::descriptor() const {
  return catalog_.require(algorithm().toStdString());
}

bool AlgorithmPanel::setAlgorithm(const QString& id) {
  const int index = algorithm_->findData(id.toLower());
  if (index < 0) return false;
  if (index != algorithm_->currentIndex())
    algorithm_->setCurrentIndex(index);  // onAlgorithmChanged follows
  return true;
}

bool AlgorithmPanel::tomogramGrid() const {
  return tiltSeries_ && descriptor().gridPolicy == catalog::GridPolicy::Tomogram;
}

void AlgorithmPanel::onAlgorithmChanged() {
  const catalog::AlgorithmDescriptor& now = descriptor();
  const bool otherGrid = form_->descriptor().gridPolicy != now.gridPolicy;
  const bool was = updating_;
  updating_ = true;
  showForm(now);
  fillDevices();  // GPUs and kernels depend on the algorithm's projector roles
  fillProjectors();
  fillWarmStarts();  // its "none" names the algorithm's own start
  if (!form_->look().projectorModel.isEmpty())
    projectors_->chooseModel(form_->look().projectorModel);
  updating_ = was;
  updateVisibility();
  if (updating_) return;  // setIterativeParams, onProjectionsChanged: they set the grid
  // On a tilt series FDK/FBP reconstructs the field of view, WBP and the iterative methods the
  // tomogram: switching between the two kinds of grid makes the other one.
  // A helix: FDK's completely measured slab, or every slice a ray reaches for a fit.
  const Geometry* g = workspace_.geometry();
  if (otherGrid && (tiltSeries_ || (g != nullptr && fdk::HelicalOrbit::sourcesLeaveThePlane(*g))))
    autoVolumeFromGeometry();
  else
    refresh();
}

void AlgorithmPanel::updateVisibility() {
  const catalog::AlgorithmDescriptor& d = descriptor();
  topForm_->setRowVisible(1, !d.iterative);  // presets hold the one-pass algorithms' settings
  gridForm_->setRowVisible(thickness_, tomogramGrid());
  // The memory limit splits FDK's volume into slabs; the projector pairs hold theirs whole.
  deviceForm_->setRowVisible(gpuMemoryLimit_, d.accepts(VariantRole::FdkBackprojector));
}

int AlgorithmPanel::thicknessVoxels() const {
  return thickness_->value();
}

void AlgorithmPanel::setThicknessVoxels(int voxels) {
  thickness_->setValue(voxels);
  onThicknessChanged(thickness_->value());
}

void AlgorithmPanel::onThicknessChanged(int voxels) {
  // The field-of-view grid does not follow the thickness: it is kept for the tomogram grid.
  if (updating_ || !tomogramGrid()) return;
  // The tomogram stays centred on the tilt axis: only ny changes.
  {
    const QSignalBlocker block(ny_);
    ny_->setValue(voxels);
  }
  fillWarmStarts();
  refresh();
}

fdk::VolumeGrid AlgorithmPanel::grid() const {
  const VolumeShape shape{nx_->value(), ny_->value(), nz_->value()};
  fdk::VolumeGrid g = fdk::VolumeGrid::centred(shape, Eigen::Vector3d::Constant(voxel_->value()));
  g.originMm += gridCentreMm_;  // a helix's grid need not be centred on z = 0
  return g;
}

void AlgorithmPanel::setGrid(const fdk::VolumeGrid& g) {
  gridCentreMm_ = g.originMm + 0.5 * g.voxelSizeMm.cwiseProduct(Eigen::Vector3d(
                                         double(g.shape.nx - 1), double(g.shape.ny - 1),
                                         double(g.shape.nz - 1)));
  nx_->setValue(int(std::clamp<std::int64_t>(g.shape.nx, 1, kMaxVolumeEdge)));
  ny_->setValue(int(std::clamp<std::int64_t>(g.shape.ny, 1, kMaxVolumeEdge)));
  nz_->setValue(int(std::clamp<std::int64_t>(g.shape.nz, 1, kMaxVolumeEdge)));
  setVoxelSize(g.voxelSizeMm.x());
}

QString AlgorithmPanel::gridText() const {
  const fdk::VolumeGrid g = grid();
  const Eigen::Vector3d extent = g.voxelSizeMm.cwiseProduct(
      Eigen::Vector3d(double(g.shape.nx), double(g.shape.ny), double(g.shape.nz)));
  QString text = tr("%1 \u00d7 %2 \u00d7 %3 voxels of %4 = %5 \u00d7 %6 \u00d7 %7")
                     .arg(g.shape.nx)
                     .arg(g.shape.ny)
                     .arg(g.shape.nz)
                     .arg(lengthText(g.voxelSizeMm.x()), lengthText(extent.x()),
                          lengthText(extent.y()), lengthText(extent.z()));
  if (tomogramGrid())
    text += tr("\nTomogram: x across the tilt axis, y through the specimen, z along the axis");
  return text;
}

nlohmann::json AlgorithmPanel::algorithmParameters() const {
  nlohmann::json j = form_->parameters();
  j["volume"] = catalog::gridToJson(grid());
  projectors_->write(j);
  GpuRunOptions gpu;
  if (const int index = gpuIndex(); index >= 0) {
    gpu.devices = {index};
    if (descriptor().accepts(VariantRole::FdkBackprojector))
      gpu.memoryLimitBytes = gpuMemoryLimitBytes();
  }
  j["gpu"] = fdk::toJson(gpu);
  return j;
}

void AlgorithmPanel::setAlgorithmParameters(const nlohmann::json& j) {
  updating_ = true;
  if (j.contains("volume")) {
    try {
      setGrid(catalog::gridFromJson(j["volume"]));
    } catch (const ParameterError&) {
      // Not a grid: the grid shown stays.
    }
  }
  form_->setParameters(j);
  // A GPU variant selects its GPU (the first one listed if the parameters name none), a CPU
  // variant the CPU; parameters that name no kernel (a grid alone) leave the device as it is.
  bool gpuVariant = false, namesKernel = false;
  for (const catalog::ProjectorSlot& slot : descriptor().projectors)
    if (j.contains(slot.field) && j[slot.field].is_string())
      if (const KernelVariant* v =
              VariantRegistry::builtins().find(j[slot.field].get<std::string>())) {
        gpuVariant = gpuVariant || v->needsGpu;
        namesKernel = true;
      }
  const nlohmann::json gpu = j.value("gpu", nlohmann::json::object());
  const GpuRunOptions options =
      fdk::gpuRunOptionsFromJson(gpu.is_object() ? gpu : nlohmann::json::object());
  int device = namesKernel ? 0 : device_->currentIndex();  // 0: the CPU
  if (gpuVariant)
    for (int i = 0; i < device_->count(); ++i) {
      const int index = device_->itemData(i).toInt();
      if (index >= 0 && (options.devices.empty() || index == options.devices.front())) {
        device = i;
        break;
      }
    }
  if (device != device_->currentIndex()) {
    device_->setCurrentIndex(device);
    fillProjectors();
  }
  if (gpu.contains("memoryLimitBytes"))
    gpuMemoryLimit_->setValue(double(options.memoryLimitBytes) / kBytesPerGiB);
  projectors_->read(j);
  updating_ = false;
  fillWarmStarts();
  refresh();
}

catalog::JobInputs AlgorithmPanel::jobInputs() const {
  catalog::JobInputs inputs;
  if (const int run = warmStartRunId();
      descriptor().acceptsInitialVolume && run >= 0 && runs_ != nullptr)
    if (const RunInfo* info = runs_->run(run)) inputs.initialVolume = info->result;
  inputs_->fill(inputs, grid());
  return inputs;
}

fdk::FdkParams AlgorithmPanel::params() const {
  return catalog::fdkParamsFromJson(algorithmParameters());
}

void AlgorithmPanel::setParams(const fdk::FdkParams& p) {
  setAlgorithmParameters(catalog::fdkParamsToJson(p));
}

iterative::IterativeParams AlgorithmPanel::iterativeParams() const {
  nlohmann::json j = algorithmParameters();
  j["method"] = algorithm().toStdString();
  iterative::IterativeParams p = catalog::iterativeParamsFromJson(j);
  p.initialVolume = jobInputs().initialVolume;
  return p;
}

void AlgorithmPanel::setIterativeParams(const iterative::IterativeParams& p) {
  updating_ = true;
  setAlgorithm(QString::fromStdString(iterative::toString(p.method)));
  updating_ = false;
  setAlgorithmParameters(catalog::iterativeParamsToJson(p));
}

void AlgorithmPanel::setVoxelSize(double mm) {
  // Enough decimals for three significant digits: 0.8 mm for CT, 0.000001 mm (1 nm) for ET.
  const int decimals = std::clamp(int(std::ceil(-std::log10(std::max(mm, 1e-9)))) + 3, 3, 9);
  voxel_->setDecimals(decimals);
  voxel_->setSingleStep(std::pow(10.0, -(decimals - 1)));
  voxel_->setValue(mm);
}

int AlgorithmPanel::threadCount() const {
  return threads_->value();
}

int AlgorithmPanel::gpuIndex() const {
  const int data = device_->currentData().toInt();
  return data >= 0 ? data : -1;
}

std::uint64_t AlgorithmPanel::gpuMemoryLimitBytes() const {
  return static_cast<std::uint64_t>(std::llround(gpuMemoryLimit_->value() * kBytesPerGiB));
}

void AlgorithmPanel::setVolumeEdge(int edge) {
  if (edge < 1) return;
  const double extent = voxel_->value() * nx_->value();
  updating_ = true;
  nx_->setValue(edge);
  ny_->setValue(edge);
  nz_->setValue(edge);
  setVoxelSize(extent / edge);
  updating_ = false;
  fillWarmStarts();
  refresh();
}

void AlgorithmPanel::autoVolumeFromGeometry() {
  const Geometry* g = workspace_.geometry();
  if (!g) return;
  try {
    // A tilt series reconstructed on the tomogram grid: the tomogram of the thickness asked for
    // (tomogramGrid); anything else: tomowb-cli's field-of-view grid.
    const fdk::VolumeGrid grid = tomogramGrid() ? iterative::tomogramGrid(*g, thickness_->value())
                                                : autoVolumeGrid(*g, descriptor().gridPolicy);
    setAlgorithmParameters({{"volume", catalog::gridToJson(grid)}});
  } catch (const Error& e) {
    reason_->setText(tr("Auto grid: %1").arg(QString::fromStdString(e.what())));
  }
}

void AlgorithmPanel::onProjectionsChanged() {
  const Geometry* g = workspace_.geometry();
  tiltSeries_ = g != nullptr && isTiltSeries(*g);
  if (g != nullptr && tiltSeries_) {
    // A new tilt series: SIRT on a tomogram a quarter of the detector width thick.
    const QSignalBlocker block(thickness_);
    thickness_->setValue(int(std::clamp<std::int64_t>(g->detector().cols / 4, 1, kMaxVolumeEdge)));
  }
  updating_ = true;
  if (g != nullptr) setAlgorithm(defaultAlgorithmFor(catalog_, tiltSeries_));
  if (tiltSeries_) {
    // SIRT belongs on the GPU when this build has GPU projectors and a GPU is there.
    const auto* model = qobject_cast<const QStandardItemModel*>(device_->model());
    for (int i = 0; i < device_->count(); ++i)
      if (device_->itemData(i).toInt() >= 0 && model != nullptr && model->item(i) != nullptr &&
          model->item(i)->isEnabled()) {
        if (i != device_->currentIndex()) {
          device_->setCurrentIndex(i);
          fillProjectors();
        }
        break;
      }
  }
  updating_ = false;
  updateVisibility();
  if (g != nullptr) autoVolumeFromGeometry();
  refresh();
}

RunMemory AlgorithmPanel::runMemory() const {
  if (!workspace_.projections() || !workspace_.geometry())
    return {tr("Load projections to see the estimate."), {}, true};
  return estimateRunMemory(descriptor(), *workspace_.projections(), *workspace_.geometry(),
                           algorithmParameters(), threads_->value(), gpuIndex(),
                           form_->look().memoryWhat);
}

bool AlgorithmPanel::validate(QString* why) const {
  const QString reason = problem();
  if (why) *why = reason;
  return reason.isEmpty();
}

QString AlgorithmPanel::problem() const {
  const Geometry* geometry = workspace_.geometry();
  if (!workspace_.projections() || !geometry)
    return tr("No projections loaded: open a file or the demo.");
  if (nx_->value() < 1 || ny_->value() < 1 || nz_->value() < 1)
    return tr("The volume size must be at least 1 voxel on every axis.");
  if (!(voxel_->value() > 0)) return tr("The voxel size must be > 0 mm.");
  const catalog::AlgorithmDescriptor& d = descriptor();
  if (d.refuses)
    if (const std::string refusal = d.refuses(*geometry); !refusal.empty())
      return QString::fromStdString(refusal) + '.';
  if (const QString formProblem = form_->problem(); !formProblem.isEmpty()) return formProblem;
  if (QString missing; !projectors_->complete(&missing))
    return tr("No %1 for this device in this build.").arg(missing);
  nlohmann::json validated;
  try {
    validated = d.validate(algorithmParameters());
  } catch (const Error& e) {
    return QString::fromStdString(e.what()) + '.';
  }
  // Subsets of views: no more subsets than views (the core refuses them at the start).
  const std::int64_t views = geometry->viewCount();
  if (d.parameter("subsets") != nullptr && validated.value("subsets", std::int64_t{1}) > views)
    return tr("%1: %2 subsets, but the data has only %3 views.")
        .arg(QString::fromStdString(d.label))
        .arg(validated.value("subsets", std::int64_t{1}))
        .arg(views);
  if (const int run = warmStartRunId(); d.acceptsInitialVolume && run >= 0) {
    const RunInfo* info = runs_ != nullptr ? runs_->run(run) : nullptr;
    if (info == nullptr || !info->result)
      return tr("The warm-start run %1 has no result any more.").arg(run);
    if (!volumesShareGrid(*info->result, grid()))
      return tr("The warm start (run %1) is on another grid: use its grid or start from zero.")
          .arg(run);
  }
  if (const QString inputs = inputs_->problem(grid()); !inputs.isEmpty()) return inputs;
  return runMemory().problem;
}

void AlgorithmPanel::refresh() {
  if (updating_) return;
  // The thickness is the tomogram's ny; with the field-of-view grid it keeps its own value.
  if (tomogramGrid()) {
    const QSignalBlocker block(thickness_);
    thickness_->setValue(ny_->value());
  }
  gridInfo_->setText(gridText());
  const RunMemory memory = runMemory();
  memory_->setText(memory.text);
  memory_->setToolTip(memory.details);
  memory_->setStyleSheet(memory.fits ? QString() : QStringLiteral("color: #c0392b;"));
  QString why;
  const bool ok = validate(&why);
  run_->setEnabled(ok);
  run_->setToolTip(ok ? tr("Reconstruct with these parameters") : why);
  reason_->setText(why);
  reason_->setVisible(!ok);
  emit paramsChanged();
}

}  // namespace tomowb::gui
