#include "gui/AlgorithmPanel.h"

#include <omp.h>

#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QDoubleSpinBox>
#include <QFile>
#include <QFileInfo>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QInputDialog>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSettings>
#include <QSpinBox>
#include <QStandardItemModel>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <limits>
#include <string_view>

#include "gui/core/CatalogRun.h"
#include "gui/core/RunController.h"
#include "gui/core/TiltAngles.h"
#include "gui/core/Workspace.h"
#include "recon/catalog/BuiltinAlgorithms.h"
#include "recon/core/Error.h"
#include "recon/core/MemoryBudget.h"
#include "recon/cuda/GpuDevices.h"
#include "recon/variant/VariantRegistry.h"

namespace tomowb::gui {

namespace {

const char* const kPresetFormat = "tomowb-algorithm-preset";
const char* const kBuiltinPresetDir = ":/tomowb/presets/algorithms";
const char* const kUserPresetGroup = "algorithmPresets";
constexpr int kMaxVolumeEdge = 16384;

const fdk::RampWindow kWindows[] = {fdk::RampWindow::RamLak, fdk::RampWindow::SheppLogan,
                                    fdk::RampWindow::Cosine, fdk::RampWindow::Hamming,
                                    fdk::RampWindow::Hann};
const char* const kWindowLabels[] = {"Ram-Lak", "Shepp-Logan", "Cosine", "Hamming", "Hann"};
const fdk::RedundancyMode kModes[] = {
    fdk::RedundancyMode::Auto, fdk::RedundancyMode::FullScan, fdk::RedundancyMode::Parker,
    fdk::RedundancyMode::OffsetDetector, fdk::RedundancyMode::None};
const char* const kModeLabels[] = {"Auto (from the geometry)", "Full scan", "Parker (short scan)",
                                   "Offset detector (half fan)", "None"};

const AlgorithmKind kAlgorithms[] = {AlgorithmKind::Fdk,  AlgorithmKind::Wbp,
                                     AlgorithmKind::Sirt, AlgorithmKind::OsSirt,
                                     AlgorithmKind::Sart, AlgorithmKind::Cgls};
const char* const kAlgorithmLabels[] = {"FDK (cone beam) / FBP (parallel)",
                                        "WBP: weighted backprojection (tilt series)",
                                        "SIRT",
                                        "OS-SIRT (ordered subsets)",
                                        "SART (one view at a time)",
                                        "CGLS (conjugate gradients, least squares)"};
const char* const kAlgorithmTips[] = {
    "Filtered backprojection: FDK for cone beams, FBP for parallel beams",
    "Filtered (weighted) backprojection of a tilt series on the tomogram grid: fast, one pass",
    "Simultaneous iterative reconstruction: every view in each update (reference/sirt-et.md)",
    "SIRT over interleaved subsets of the views: one update per subset, faster at first",
    "Simultaneous algebraic reconstruction: one update per view",
    "Conjugate gradients on the normal equations: the unconstrained least-squares solution in few "
    "iterations; choose a matched projector pair, and stop early on noisy data"};
constexpr int kDefaultIterations = 50;
constexpr int kDefaultSubsets = 5;
constexpr double kDefaultStopPercent = 0.1;
// Column weights of every subset are kept while they fit in this much (as the core does).
constexpr double kStoredWeightBytes = 2.0 * 1024 * 1024 * 1024;

bool volumesShareGrid(const Volume& v, const fdk::VolumeGrid& g) {
  if (v.shape() != g.shape) return false;
  const Eigen::Vector3d d = v.voxelSizeMm() - g.voxelSizeMm;
  return d.cwiseAbs().maxCoeff() <= 1e-9 * g.voxelSizeMm.cwiseAbs().maxCoeff();
}

std::string presetString(const nlohmann::json& j, const char* key, const QString& source) {
  if (!j[key].is_string())
    throw FormatError(source.toStdString(), key, "must be a string, got " + j[key].dump());
  return j[key].get<std::string>();
}

}  // namespace

nlohmann::json algorithmPresetToJson(const fdk::FdkParams& p, const QString& name) {
  return {{"format", kPresetFormat},
          {"version", 1},
          {"name", name.toStdString()},
          {"algorithm", "fdk"},
          {"filter", std::string(fdk::toString(p.filter.window))},
          {"cutoff", p.filter.cutoff},
          {"redundancy", std::string(fdk::toString(p.redundancy))},
          {"fovMask", p.fieldOfViewMask},
          {"variant", p.variant}};
}

void applyAlgorithmPreset(const nlohmann::json& j, fdk::FdkParams& p, const QString& source) {
  const std::string path = source.toStdString();
  if (!j.is_object()) throw FormatError(path, "an algorithm preset must be a JSON object");
  if (!j.contains("format") || j["format"] != kPresetFormat)
    throw FormatError(path, "format", std::string("must be '") + kPresetFormat + "'");
  if (!j.contains("version") || !j["version"].is_number_integer() || j["version"] != 1)
    throw FormatError(path, "version", "must be 1");
  if (j.contains("algorithm") && j["algorithm"] != "fdk")
    throw FormatError(path, "algorithm",
                      "must be 'fdk' (the only algorithm so far), got " + j["algorithm"].dump());
  fdk::FdkParams out = p;
  try {
    if (j.contains("filter"))
      out.filter.window = fdk::rampWindowFromString(presetString(j, "filter", source));
    if (j.contains("redundancy"))
      out.redundancy = fdk::redundancyModeFromString(presetString(j, "redundancy", source));
  } catch (const ParameterError& e) {
    throw FormatError(path, e.what());
  }
  if (j.contains("cutoff")) {
    const nlohmann::json& c = j["cutoff"];
    if (!c.is_number() || !(c.get<double>() > 0.0) || c.get<double>() > 1.0)
      throw FormatError(path, "cutoff", "must be a number in (0, 1], got " + c.dump());
    out.filter.cutoff = c.get<double>();
  }
  if (j.contains("fovMask")) {
    if (!j["fovMask"].is_boolean())
      throw FormatError(path, "fovMask", "must be true or false, got " + j["fovMask"].dump());
    out.fieldOfViewMask = j["fovMask"].get<bool>();
  }
  if (j.contains("variant")) out.variant = presetString(j, "variant", source);
  p = std::move(out);
}

QString algorithmId(AlgorithmKind kind) {
  switch (kind) {
    case AlgorithmKind::Fdk:
      return QStringLiteral("fdk");
    case AlgorithmKind::Wbp:
      return QStringLiteral("wbp");
    case AlgorithmKind::Sirt:
      return QStringLiteral("sirt");
    case AlgorithmKind::OsSirt:
      return QStringLiteral("os-sirt");
    case AlgorithmKind::Sart:
      return QStringLiteral("sart");
    case AlgorithmKind::Cgls:
      return QStringLiteral("cgls");
  }
  return {};
}

std::optional<AlgorithmKind> algorithmFromId(const QString& id) {
  for (const AlgorithmKind kind : kAlgorithms)
    if (id.compare(algorithmId(kind), Qt::CaseInsensitive) == 0) return kind;
  return std::nullopt;
}

bool isIterative(AlgorithmKind kind) {
  return isIterativeAlgorithm(algorithmId(kind));
}

iterative::IterativeMethod iterativeMethodOf(AlgorithmKind kind) {
  switch (kind) {
    case AlgorithmKind::OsSirt:
      return iterative::IterativeMethod::OsSirt;
    case AlgorithmKind::Sart:
      return iterative::IterativeMethod::Sart;
    case AlgorithmKind::Cgls:
      return iterative::IterativeMethod::Cgls;
    default:
      return iterative::IterativeMethod::Sirt;
  }
}

double defaultRelaxation(iterative::IterativeMethod method) {
  // The catalogue's default (CGLS has no relaxation: 1).
  const catalog::ParameterSpec* relaxation = catalog::AlgorithmCatalog::builtins()
                                                 .require(iterative::toString(method))
                                                 .parameter("relaxation");
  return relaxation != nullptr ? relaxation->defaultValue.get<double>() : 1.0;
}

QString lengthText(double mm) {
  const double a = std::abs(mm);
  if (a > 0 && a < 1e-3) return QStringLiteral("%1 nm").arg(mm * 1e6, 0, 'g', 4);
  if (a > 0 && a < 1.0) return QStringLiteral("%1 \u00b5m").arg(mm * 1e3, 0, 'g', 4);
  return QStringLiteral("%1 mm").arg(mm, 0, 'g', 4);
}

fdk::VolumeGrid autoVolumeGrid(const Geometry& geometry) {
  return fdk::fieldOfViewGrid(geometry);  // as tomowb-cli's default grid
}

QSize AlgorithmPanel::sizeHint() const {
  return {std::max(QWidget::sizeHint().width(), 340), QWidget::sizeHint().height()};
}

AlgorithmPanel::AlgorithmPanel(Workspace& workspace, QWidget* parent)
    : QWidget(parent), workspace_(workspace) {
  setObjectName(QStringLiteral("algorithmPanel"));
  buildUi();
  fillDevices();
  fillVariants();
  fillProjectors();
  fillPresets();
  fillWarmStarts();
  connect(&workspace_, &Workspace::projectionsChanged, this, &AlgorithmPanel::onProjectionsChanged);
  connect(&workspace_, &Workspace::geometryChanged, this, &AlgorithmPanel::refresh);
  onProjectionsChanged();
}

void AlgorithmPanel::buildUi() {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);

  topForm_ = new QFormLayout;
  algorithm_ = new QComboBox(this);
  algorithm_->setObjectName(QStringLiteral("algorithmCombo"));
  for (std::size_t i = 0; i < std::size(kAlgorithms); ++i) {
    algorithm_->addItem(tr(kAlgorithmLabels[i]), algorithmId(kAlgorithms[i]));
    algorithm_->setItemData(algorithm_->count() - 1, tr(kAlgorithmTips[i]), Qt::ToolTipRole);
  }
  algorithm_->setToolTip(tr("The reconstruction algorithm"));
  topForm_->addRow(tr("&Algorithm:"), algorithm_);
  auto* presetRow = new QHBoxLayout;
  presets_ = new QComboBox(this);
  presets_->setObjectName(QStringLiteral("presetCombo"));
  savePreset_ = new QPushButton(tr("Save…"), this);
  savePreset_->setToolTip(tr("Save the filter, weights and variant as a preset"));
  deletePreset_ = new QPushButton(tr("Delete"), this);
  presetRow->addWidget(presets_, 1);
  presetRow->addWidget(savePreset_);
  presetRow->addWidget(deletePreset_);
  topForm_->addRow(tr("Preset:"), presetRow);
  layout->addLayout(topForm_);

  filterBox_ = new QGroupBox(tr("Filter and weights"), this);
  auto* filterForm = new QFormLayout(filterBox_);
  window_ = new QComboBox(filterBox_);
  for (std::size_t i = 0; i < std::size(kWindows); ++i)
    window_->addItem(tr(kWindowLabels[i]), static_cast<int>(kWindows[i]));
  cutoff_ = new QDoubleSpinBox(filterBox_);
  cutoff_->setRange(0.01, 1.0);
  cutoff_->setSingleStep(0.05);
  cutoff_->setDecimals(2);
  cutoff_->setValue(1.0);
  cutoff_->setToolTip(tr("Frequencies above this fraction of Nyquist are cut"));
  redundancy_ = new QComboBox(filterBox_);
  for (std::size_t i = 0; i < std::size(kModes); ++i)
    redundancy_->addItem(tr(kModeLabels[i]), static_cast<int>(kModes[i]));
  fovMask_ = new QCheckBox(tr("Zero voxels outside the &field of view"), filterBox_);
  allowIncomplete_ = new QCheckBox(tr("Allow an &incomplete short scan"), filterBox_);
  allowIncomplete_->setToolTip(
      tr("Reconstruct a short scan that covers less than 180 degrees plus the fan angle, with a "
         "warning; without this the run is refused and says what the scan covers and needs"));
  filterForm->addRow(tr("&Window:"), window_);
  filterForm->addRow(tr("C&ut-off:"), cutoff_);
  filterForm->addRow(tr("&Redundancy:"), redundancy_);
  filterForm->addRow(fovMask_);
  filterForm->addRow(allowIncomplete_);
  layout->addWidget(filterBox_);

  layout->addWidget(buildIterationBox());

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

  auto* deviceBox = new QGroupBox(tr("Device and kernel"), this);
  deviceForm_ = new QFormLayout(deviceBox);
  device_ = new QComboBox(deviceBox);
  device_->setObjectName(QStringLiteral("deviceCombo"));
  threads_ = new QSpinBox(deviceBox);
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
  variant_ = new QComboBox(deviceBox);
  variant_->setObjectName(QStringLiteral("variantCombo"));
  forward_ = new QComboBox(deviceBox);
  forward_->setObjectName(QStringLiteral("forwardProjectorCombo"));
  forward_->setToolTip(tr("Forward projector (the et.fp. family of the kernel registry)"));
  back_ = new QComboBox(deviceBox);
  back_->setObjectName(QStringLiteral("backprojectorCombo"));
  back_->setToolTip(
      tr("Backprojector (the et.bp. family); \"matched\" marks the exact transpose of the "
         "forward projector"));
  pairInfo_ = new QLabel(deviceBox);
  pairInfo_->setObjectName(QStringLiteral("projectorPairInfo"));
  pairInfo_->setWordWrap(true);
  variantInfo_ = new QLabel(deviceBox);
  variantInfo_->setWordWrap(true);
  variantInfo_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  deviceForm_->addRow(tr("&Device:"), device_);
  deviceForm_->addRow(tr("&Threads:"), threads_);
  deviceForm_->addRow(tr("GPU &memory limit:"), gpuMemoryLimit_);
  deviceForm_->addRow(tr("&Kernel:"), variant_);
  deviceForm_->addRow(tr("&Forward:"), forward_);
  deviceForm_->addRow(tr("&Back:"), back_);
  deviceForm_->addRow(pairInfo_);
  deviceForm_->addRow(variantInfo_);
  layout->addWidget(deviceBox);

  auto* memoryBox = new QGroupBox(tr("Memory estimate"), this);
  auto* memoryLayout = new QVBoxLayout(memoryBox);
  memory_ = new QLabel(memoryBox);
  memory_->setObjectName(QStringLiteral("memoryEstimate"));
  memory_->setWordWrap(true);
  memory_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  memoryLayout->addWidget(memory_);
  layout->addWidget(memoryBox);

  reason_ = new QLabel(this);
  reason_->setObjectName(QStringLiteral("runBlockedReason"));
  reason_->setWordWrap(true);
  reason_->setStyleSheet(QStringLiteral("color: #c0392b;"));
  run_ = new QPushButton(QIcon(QStringLiteral(":/tomowb/icons/run.svg")), tr("&Run"), this);
  run_->setObjectName(QStringLiteral("algorithmRunButton"));
  run_->setMinimumHeight(32);
  layout->addWidget(reason_);
  layout->addWidget(run_);
  layout->addStretch(1);
  connectWidgets();
}

void AlgorithmPanel::connectWidgets() {
  auto changed = [this] {
    if (!updating_) refresh();
  };
  for (QComboBox* c : {window_, redundancy_, variant_, back_, warmStart_})
    connect(c, &QComboBox::currentIndexChanged, this, changed);
  connect(algorithm_, &QComboBox::currentIndexChanged, this, &AlgorithmPanel::onAlgorithmChanged);
  connect(forward_, &QComboBox::currentIndexChanged, this, [this] {
    if (updating_) return;
    relabelBackprojectors();
    refresh();
  });
  connect(device_, &QComboBox::currentIndexChanged, this, [this] {
    if (updating_) return;
    fillVariants();
    fillProjectors();
    refresh();
  });
  for (QSpinBox* s : {nx_, nz_, threads_, iterations_, subsets_})
    connect(s, &QSpinBox::valueChanged, this, changed);
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
  for (QDoubleSpinBox* s : {cutoff_, gpuMemoryLimit_, relaxation_, upperBound_, stopPercent_})
    connect(s, &QDoubleSpinBox::valueChanged, this, changed);
  connect(voxel_, &QDoubleSpinBox::valueChanged, this, [this] {
    if (updating_) return;
    fillWarmStarts();
    refresh();
  });
  for (QCheckBox* c : {fovMask_, allowIncomplete_, nonNegative_, upperBoundOn_, stopOn_})
    connect(c, &QCheckBox::toggled, this, [this] {
      upperBound_->setEnabled(upperBoundOn_->isChecked());
      stopPercent_->setEnabled(stopOn_->isChecked());
      if (!updating_) refresh();
    });
  connect(autoGrid_, &QPushButton::clicked, this, &AlgorithmPanel::autoVolumeFromGeometry);
  connect(presets_, &QComboBox::activated, this, &AlgorithmPanel::onPresetChosen);
  connect(savePreset_, &QPushButton::clicked, this, &AlgorithmPanel::onSavePreset);
  connect(deletePreset_, &QPushButton::clicked, this, &AlgorithmPanel::onDeletePreset);
  connect(run_, &QPushButton::clicked, this, [this] {
    if (validate(nullptr)) emit runRequested();
  });
}

QGroupBox* AlgorithmPanel::buildIterationBox() {
  iterationBox_ = new QGroupBox(tr("Iterations"), this);
  iterationBox_->setObjectName(QStringLiteral("iterationBox"));
  iterationForm_ = new QFormLayout(iterationBox_);
  // The spin boxes reach one step past the valid range, so that validate() explains the limit
  // instead of a spin box silently refusing a value.
  iterations_ = new QSpinBox(iterationBox_);
  iterations_->setObjectName(QStringLiteral("iterations"));
  iterations_->setRange(0, 1000000);
  iterations_->setValue(kDefaultIterations);
  iterations_->setToolTip(tr("The most iterations: one iteration is one sweep over all views"));
  relaxation_ = new QDoubleSpinBox(iterationBox_);
  relaxation_->setObjectName(QStringLiteral("relaxation"));
  relaxation_->setRange(0.0, 2.0);
  relaxation_->setDecimals(2);
  relaxation_->setSingleStep(0.05);
  relaxation_->setValue(1.0);
  relaxation_->setToolTip(
      tr("Relaxation \u03bb, 0 < \u03bb < 2: the share of each correction applied (SIRT and "
         "OS-SIRT 1, SART 0.5 by default)"));
  subsets_ = new QSpinBox(iterationBox_);
  subsets_->setObjectName(QStringLiteral("subsets"));
  subsets_->setRange(1, 100000);
  subsets_->setValue(kDefaultSubsets);
  subsets_->setToolTip(tr("OS-SIRT: interleaved subsets of the views (k, k + n, k + 2n, ...)"));
  nonNegative_ = new QCheckBox(tr("&Non-negative (lower bound 0)"), iterationBox_);
  nonNegative_->setObjectName(QStringLiteral("nonNegative"));
  nonNegative_->setChecked(true);
  nonNegative_->setToolTip(tr("Clamp every voxel to >= 0 after each update (densities)"));
  auto* upperRow = new QHBoxLayout;
  upperBoundOn_ = new QCheckBox(tr("&Upper bound:"), iterationBox_);
  upperBoundOn_->setObjectName(QStringLiteral("upperBoundOn"));
  upperBound_ = new QDoubleSpinBox(iterationBox_);
  upperBound_->setObjectName(QStringLiteral("upperBound"));
  upperBound_->setRange(-1e9, 1e9);
  upperBound_->setDecimals(4);
  upperBound_->setValue(1.0);
  upperBound_->setEnabled(false);
  upperRow->addWidget(upperBoundOn_);
  upperRow->addWidget(upperBound_, 1);
  auto* stopRow = new QHBoxLayout;
  stopOn_ = new QCheckBox(tr("&Stop when the residual falls by <"), iterationBox_);
  stopOn_->setObjectName(QStringLiteral("stopOn"));
  stopOn_->setToolTip(
      tr("Stop early once the weighted residual falls by less than this share in one iteration"));
  stopPercent_ = new QDoubleSpinBox(iterationBox_);
  stopPercent_->setObjectName(QStringLiteral("stopPercent"));
  stopPercent_->setRange(0.0, 100.0);
  stopPercent_->setDecimals(3);
  stopPercent_->setSingleStep(0.05);
  stopPercent_->setValue(kDefaultStopPercent);
  stopPercent_->setSuffix(tr(" %"));
  stopPercent_->setEnabled(false);
  stopRow->addWidget(stopOn_);
  stopRow->addWidget(stopPercent_, 1);
  warmStart_ = new QComboBox(iterationBox_);
  warmStart_->setObjectName(QStringLiteral("warmStartCombo"));
  warmStart_->setToolTip(
      tr("Start from the result of a finished run on the same grid instead of from zero"));
  iterationForm_->addRow(tr("&Iterations:"), iterations_);
  iterationForm_->addRow(tr("Re&laxation \u03bb:"), relaxation_);
  iterationForm_->addRow(tr("Su&bsets:"), subsets_);
  iterationForm_->addRow(nonNegative_);
  iterationForm_->addRow(upperRow);
  iterationForm_->addRow(stopRow);
  iterationForm_->addRow(tr("&Warm start:"), warmStart_);
  return iterationBox_;
}

void AlgorithmPanel::fillDevices() {
  const QSignalBlocker block(device_);
  const int previous = device_->currentData().isValid() ? device_->currentData().toInt() : -1;
  device_->clear();
  device_->addItem(tr("CPU"), -1);
  // A GPU is offered when the algorithm's family has a GPU variant in this build.
  const VariantRegistry& registry = VariantRegistry::builtins();
  const std::vector<VariantRole> roles =
      isIterative(algorithm())
          ? std::vector<VariantRole>{VariantRole::ForwardProjector, VariantRole::Backprojector}
          : std::vector<VariantRole>{VariantRole::FdkBackprojector};
  bool gpuVariant = false;
  for (const VariantRole role : roles)
    for (const KernelVariant* v : registry.withRole(role)) gpuVariant = gpuVariant || v->needsGpu;
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
  const int keep = device_->findData(previous);
  const bool keepEnabled =
      keep >= 0 && (!model || model->item(keep) == nullptr || model->item(keep)->isEnabled());
  device_->setCurrentIndex(keep >= 0 && keepEnabled && previous >= 0 ? keep : 0);
}

void AlgorithmPanel::fillVariants() {
  const QString previous = variant_->currentData().toString();
  const QSignalBlocker block(variant_);
  variant_->clear();
  const bool gpu = gpuIndex() >= 0;
  const VariantRegistry& registry = VariantRegistry::builtins();
  for (const KernelVariant* v : registry.withRole(VariantRole::FdkBackprojector)) {
    if (v->needsGpu != gpu) continue;
    variant_->addItem(QString::fromStdString(v->name), QString::fromStdString(v->name));
    variant_->setItemData(variant_->count() - 1, QString::fromStdString(v->description),
                          Qt::ToolTipRole);
  }
  const int keep = variant_->findData(previous);
  // The device's default (the registry's policy, as the CLI's).
  const KernelVariant* fallback = nullptr;
  try {
    fallback = &registry.defaultFor(VariantRole::FdkBackprojector,
                                    gpu ? VariantDevice::Gpu : VariantDevice::Cpu);
  } catch (const ParameterError&) {
    // No default on this device in this build: the first listed.
  }
  const int byDefault = fallback ? variant_->findData(QString::fromStdString(fallback->name)) : -1;
  variant_->setCurrentIndex(keep >= 0 ? keep : byDefault >= 0 ? byDefault : 0);
  gpuMemoryLimit_->setEnabled(gpu);
}

void AlgorithmPanel::fillProjectors() {
  // The device's projectors, from the registry (never a fixed list: CUDA builds add theirs).
  const QString previousForward = forward_->currentData().toString();
  const QString previousBack = back_->currentData().toString();
  const QSignalBlocker blockForward(forward_), blockBack(back_);
  forward_->clear();
  back_->clear();
  const bool gpu = gpuIndex() >= 0;
  const VariantRegistry& registry = VariantRegistry::builtins();
  for (const KernelVariant* v : registry.withRole(VariantRole::ForwardProjector)) {
    if (v->needsGpu != gpu) continue;
    forward_->addItem(QString::fromStdString(v->name), QString::fromStdString(v->name));
    forward_->setItemData(forward_->count() - 1, QString::fromStdString(v->description),
                          Qt::ToolTipRole);
  }
  for (const KernelVariant* v : registry.withRole(VariantRole::Backprojector)) {
    if (v->needsGpu != gpu) continue;
    back_->addItem(QString::fromStdString(v->name), QString::fromStdString(v->name));
    back_->setItemData(back_->count() - 1, QString::fromStdString(v->description), Qt::ToolTipRole);
  }
  // Default: the device's matched pair (the registry's policy; a matched pair minimises the
  // weighted least-squares residual, which then falls monotonically).
  int forward = forward_->findData(previousForward);
  int back = back_->findData(previousBack);
  if (forward < 0 || back < 0) {
    try {
      const VariantDevice on = gpu ? VariantDevice::Gpu : VariantDevice::Cpu;
      forward = forward_->findData(QString::fromStdString(
          registry.defaultFor(VariantRole::ForwardProjector, on, true).name));
      back = back_->findData(
          QString::fromStdString(registry.defaultFor(VariantRole::Backprojector, on, true).name));
    } catch (const ParameterError&) {
      // No default pair on this device in this build: the first listed.
    }
  }
  forward_->setCurrentIndex(forward >= 0 ? forward : 0);
  back_->setCurrentIndex(back >= 0 ? back : 0);
  relabelBackprojectors();
}

QString AlgorithmPanel::backprojectorLabel(const QString& name) const {
  const KernelVariant* v = VariantRegistry::builtins().find(name.toStdString());
  if (v == nullptr || v->adjointOf.empty()) return name;
  if (QString::fromStdString(v->adjointOf) == forward_->currentData().toString())
    return tr("%1  [matched]").arg(name);
  return tr("%1  [transpose of %2]").arg(name, QString::fromStdString(v->adjointOf));
}

void AlgorithmPanel::relabelBackprojectors() {
  for (int i = 0; i < back_->count(); ++i)
    back_->setItemText(i, backprojectorLabel(back_->itemData(i).toString()));
}

QStringList AlgorithmPanel::forwardProjectorNames() const {
  QStringList names;
  for (int i = 0; i < forward_->count(); ++i) names << forward_->itemData(i).toString();
  return names;
}

QStringList AlgorithmPanel::backprojectorNames() const {
  QStringList names;
  for (int i = 0; i < back_->count(); ++i) names << back_->itemData(i).toString();
  return names;
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
  const int previous = warmStart_->currentData().isValid() ? warmStart_->currentData().toInt() : -1;
  {
    const QSignalBlocker block(warmStart_);
    warmStart_->clear();
    warmStart_->addItem(tr("none (start from zero)"), -1);
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

AlgorithmKind AlgorithmPanel::algorithm() const {
  return algorithmFromId(algorithm_->currentData().toString()).value_or(AlgorithmKind::Fdk);
}

void AlgorithmPanel::setAlgorithm(AlgorithmKind kind) {
  const int index = algorithm_->findData(algorithmId(kind));
  if (index >= 0 && index != algorithm_->currentIndex())
    algorithm_->setCurrentIndex(index);  // onAlgorithmChanged follows
}

void AlgorithmPanel::onAlgorithmChanged() {
  const AlgorithmKind before = shownAlgorithm_;
  const AlgorithmKind now = algorithm();
  shownAlgorithm_ = now;
  // The relaxation follows the method's default unless the user chose another value.
  if (isIterative(now)) {
    const double old = isIterative(before) ? defaultRelaxation(iterativeMethodOf(before)) : 1.0;
    if (std::abs(relaxation_->value() - old) < 1e-12) {
      const QSignalBlocker block(relaxation_);
      relaxation_->setValue(defaultRelaxation(iterativeMethodOf(now)));
    }
  }
  // GPUs depend on the family's variants.
  if (isIterative(before) != isIterative(now)) {
    const bool was = updating_;
    updating_ = true;
    fillDevices();
    fillVariants();
    fillProjectors();
    updating_ = was;
  }
  updateVisibility();
  if (updating_) return;  // setIterativeParams, onProjectionsChanged: they set the grid
  // On a tilt series FDK/FBP reconstructs the field of view, WBP and the iterative methods the
  // tomogram: switching between the two kinds of grid makes the other one.
  if (tiltSeries_ && (before == AlgorithmKind::Fdk) != (now == AlgorithmKind::Fdk))
    autoVolumeFromGeometry();
  else
    refresh();
}

void AlgorithmPanel::updateVisibility() {
  const AlgorithmKind kind = algorithm();
  const bool iterativeRun = isIterative(kind);
  filterBox_->setVisible(!iterativeRun);
  iterationBox_->setVisible(iterativeRun);
  iterationForm_->setRowVisible(subsets_, kind == AlgorithmKind::OsSirt);
  // CGLS is unconstrained and has no relaxation.
  const bool cgls = kind == AlgorithmKind::Cgls;
  iterationForm_->setRowVisible(relaxation_, !cgls);
  iterationForm_->setRowVisible(nonNegative_, !cgls);
  for (int row = 0; row < iterationForm_->rowCount(); ++row) {
    QLayoutItem* item = iterationForm_->itemAt(row, QFormLayout::SpanningRole);
    if (item && item->layout() && item->layout()->indexOf(upperBoundOn_) >= 0)
      iterationForm_->setRowVisible(row, !cgls);
  }
  topForm_->setRowVisible(1, !iterativeRun);  // presets hold FDK/WBP settings
  gridForm_->setRowVisible(thickness_, tiltSeries_ && kind != AlgorithmKind::Fdk);
  deviceForm_->setRowVisible(variant_, !iterativeRun);
  deviceForm_->setRowVisible(forward_, iterativeRun);
  deviceForm_->setRowVisible(back_, iterativeRun);
  deviceForm_->setRowVisible(pairInfo_, iterativeRun);
  deviceForm_->setRowVisible(gpuMemoryLimit_, !iterativeRun);
}

int AlgorithmPanel::thicknessVoxels() const {
  return thickness_->value();
}

void AlgorithmPanel::setThicknessVoxels(int voxels) {
  thickness_->setValue(voxels);
  onThicknessChanged(thickness_->value());
}

void AlgorithmPanel::onThicknessChanged(int voxels) {
  // FDK's field-of-view grid does not follow the thickness: it is kept for WBP and the
  // iterative methods.
  if (updating_ || !tiltSeries_ || algorithm() == AlgorithmKind::Fdk) return;
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
  return fdk::VolumeGrid::centred(shape, Eigen::Vector3d::Constant(voxel_->value()));
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
  if (tiltSeries_ && algorithm() != AlgorithmKind::Fdk)
    text += tr("\nTomogram: x across the tilt axis, y through the specimen, z along the axis");
  return text;
}

QStringList AlgorithmPanel::presetNames() const {
  QStringList names;
  for (int i = 0; i < presets_->count(); ++i)
    if (!presets_->itemData(i).toString().isEmpty()) names << presets_->itemText(i);
  return names;
}

void AlgorithmPanel::fillPresets() {
  const QSignalBlocker block(presets_);
  presets_->clear();
  presets_->addItem(tr("(choose a preset)"), QString());
  const QStringList files =
      QDir(kBuiltinPresetDir).entryList({QStringLiteral("*.json")}, QDir::Files, QDir::Name);
  for (const QString& file : files) {
    const QString path = QStringLiteral("%1/%2").arg(kBuiltinPresetDir, file);
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) continue;
    const auto j = nlohmann::json::parse(f.readAll().toStdString(), nullptr, false);
    const QString name = j.is_object() && j.contains("name") && j["name"].is_string()
                             ? QString::fromStdString(j["name"].get<std::string>())
                             : QFileInfo(file).completeBaseName();
    presets_->addItem(name, path);
  }
  QSettings settings;
  settings.beginGroup(kUserPresetGroup);
  for (const QString& name : settings.childKeys())
    presets_->addItem(name, QStringLiteral("user:") + name);
  settings.endGroup();
  deletePreset_->setEnabled(false);
}

nlohmann::json AlgorithmPanel::presetJson(const QString& name, QString* source) const {
  const int index = presets_->findText(name);
  if (index < 0) return {};
  const QString key = presets_->itemData(index).toString();
  if (key.startsWith(QStringLiteral("user:"))) {
    *source = tr("user preset '%1'").arg(name);
    QSettings settings;
    const QString text =
        settings.value(QStringLiteral("%1/%2").arg(kUserPresetGroup, name)).toString();
    return nlohmann::json::parse(text.toStdString(), nullptr, false);
  }
  *source = key;
  QFile f(key);
  if (!f.open(QIODevice::ReadOnly)) return {};
  return nlohmann::json::parse(f.readAll().toStdString(), nullptr, false);
}

bool AlgorithmPanel::applyPreset(const QString& name) {
  QString source;
  const nlohmann::json j = presetJson(name, &source);
  fdk::FdkParams p = params();
  try {
    applyAlgorithmPreset(j, p, source);
  } catch (const Error& e) {
    reason_->setText(QString::fromStdString(e.what()));
    return false;
  }
  setParams(p);
  return true;
}

void AlgorithmPanel::saveUserPreset(const QString& name) {
  QSettings settings;
  settings.setValue(QStringLiteral("%1/%2").arg(kUserPresetGroup, name),
                    QString::fromStdString(algorithmPresetToJson(params(), name).dump()));
  fillPresets();
  presets_->setCurrentIndex(presets_->findText(name));
  deletePreset_->setEnabled(true);
}

bool AlgorithmPanel::deleteUserPreset(const QString& name) {
  const int index = presets_->findText(name);
  if (index < 0 || !presets_->itemData(index).toString().startsWith(QStringLiteral("user:")))
    return false;
  QSettings().remove(QStringLiteral("%1/%2").arg(kUserPresetGroup, name));
  fillPresets();
  return true;
}

void AlgorithmPanel::onPresetChosen(int index) {
  const QString key = presets_->itemData(index).toString();
  deletePreset_->setEnabled(key.startsWith(QStringLiteral("user:")));
  if (!key.isEmpty()) applyPreset(presets_->itemText(index));
}

void AlgorithmPanel::onSavePreset() {
  bool ok = false;
  const QString name = QInputDialog::getText(this, tr("Save algorithm preset"), tr("Preset name:"),
                                             QLineEdit::Normal, QString(), &ok)
                           .trimmed();
  if (ok && !name.isEmpty() && !name.contains('/')) saveUserPreset(name);
}

void AlgorithmPanel::onDeletePreset() {
  deleteUserPreset(presets_->currentText());
}

fdk::FdkParams AlgorithmPanel::params() const {
  fdk::FdkParams p;
  p.volume = grid();
  p.filter.window = static_cast<fdk::RampWindow>(window_->currentData().toInt());
  p.filter.cutoff = cutoff_->value();
  p.redundancy = static_cast<fdk::RedundancyMode>(redundancy_->currentData().toInt());
  p.fieldOfViewMask = fovMask_->isChecked();
  p.allowIncomplete = allowIncomplete_->isChecked();
  p.variant = variant_->currentData().toString().toStdString();
  if (const int gpu = gpuIndex(); gpu >= 0) {
    p.gpu.devices = {gpu};
    p.gpu.memoryLimitBytes = gpuMemoryLimitBytes();
  }
  return p;
}

void AlgorithmPanel::setParams(const fdk::FdkParams& p) {
  updating_ = true;
  nx_->setValue(int(std::clamp<std::int64_t>(p.volume.shape.nx, 1, kMaxVolumeEdge)));
  ny_->setValue(int(std::clamp<std::int64_t>(p.volume.shape.ny, 1, kMaxVolumeEdge)));
  nz_->setValue(int(std::clamp<std::int64_t>(p.volume.shape.nz, 1, kMaxVolumeEdge)));
  setVoxelSize(p.volume.voxelSizeMm.x());
  window_->setCurrentIndex(window_->findData(static_cast<int>(p.filter.window)));
  cutoff_->setValue(p.filter.cutoff);
  redundancy_->setCurrentIndex(redundancy_->findData(static_cast<int>(p.redundancy)));
  fovMask_->setChecked(p.fieldOfViewMask);
  allowIncomplete_->setChecked(p.allowIncomplete);
  // A GPU variant selects its GPU (the first one listed if params name none), when there is one.
  const KernelVariant* known = VariantRegistry::builtins().find(p.variant);
  int device = 0;  // the CPU
  if (known != nullptr && known->needsGpu) {
    const int wanted = p.gpu.devices.empty() ? -1 : p.gpu.devices.front();
    for (int i = 0; i < device_->count(); ++i) {
      const int index = device_->itemData(i).toInt();
      if (index >= 0 && (wanted < 0 || index == wanted)) {
        device = i;
        break;
      }
    }
  }
  if (device != device_->currentIndex()) {
    device_->setCurrentIndex(device);
    fillVariants();
    fillProjectors();
  }
  gpuMemoryLimit_->setValue(double(p.gpu.memoryLimitBytes) / double(std::uint64_t{1} << 30));
  const int v = variant_->findData(QString::fromStdString(p.variant));
  if (v >= 0) variant_->setCurrentIndex(v);
  updating_ = false;
  fillWarmStarts();
  refresh();
}

nlohmann::json AlgorithmPanel::algorithmParameters() const {
  return isIterative(algorithm()) ? catalog::iterativeParamsToJson(iterativeParams())
                                  : catalog::fdkParamsToJson(params());
}

catalog::JobInputs AlgorithmPanel::jobInputs() const {
  catalog::JobInputs inputs;
  if (const int run = warmStartRunId(); isIterative(algorithm()) && run >= 0 && runs_ != nullptr)
    if (const RunInfo* info = runs_->run(run)) inputs.initialVolume = info->result;
  return inputs;
}

iterative::IterativeParams AlgorithmPanel::iterativeParams() const {
  iterative::IterativeParams p;
  p.method = iterativeMethodOf(algorithm());
  p.volume = grid();
  p.iterations = iterations_->value();
  p.relaxation = relaxation_->value();
  p.subsets = subsets_->value();
  if (p.method != iterative::IterativeMethod::Cgls) {
    if (nonNegative_->isChecked()) p.lowerBound = 0.0;
    if (upperBoundOn_->isChecked()) p.upperBound = upperBound_->value();
  }
  p.stopRelativeChange = stopOn_->isChecked() ? stopPercent_->value() / 100.0 : 0.0;
  p.forwardVariant = forward_->currentData().toString().toStdString();
  p.backVariant = back_->currentData().toString().toStdString();
  if (const int gpu = gpuIndex(); gpu >= 0) p.gpu.devices = {gpu};
  if (const int run = warmStartRunId(); run >= 0 && runs_ != nullptr)
    if (const RunInfo* info = runs_->run(run)) p.initialVolume = info->result;
  return p;
}

void AlgorithmPanel::setIterativeParams(const iterative::IterativeParams& p) {
  updating_ = true;
  switch (p.method) {
    case iterative::IterativeMethod::Sirt:
      setAlgorithm(AlgorithmKind::Sirt);
      break;
    case iterative::IterativeMethod::OsSirt:
      setAlgorithm(AlgorithmKind::OsSirt);
      break;
    case iterative::IterativeMethod::Sart:
      setAlgorithm(AlgorithmKind::Sart);
      break;
    case iterative::IterativeMethod::Cgls:
      setAlgorithm(AlgorithmKind::Cgls);
      break;
  }
  nx_->setValue(int(std::clamp<std::int64_t>(p.volume.shape.nx, 1, kMaxVolumeEdge)));
  ny_->setValue(int(std::clamp<std::int64_t>(p.volume.shape.ny, 1, kMaxVolumeEdge)));
  nz_->setValue(int(std::clamp<std::int64_t>(p.volume.shape.nz, 1, kMaxVolumeEdge)));
  setVoxelSize(p.volume.voxelSizeMm.x());
  iterations_->setValue(p.iterations);
  relaxation_->setValue(p.relaxation);
  subsets_->setValue(p.subsets);
  nonNegative_->setChecked(p.lowerBound.has_value() && *p.lowerBound == 0.0);
  upperBoundOn_->setChecked(p.upperBound.has_value());
  if (p.upperBound) upperBound_->setValue(*p.upperBound);
  stopOn_->setChecked(p.stopRelativeChange > 0);
  if (p.stopRelativeChange > 0) stopPercent_->setValue(p.stopRelativeChange * 100.0);
  // A GPU projector selects the first GPU (or the one named) when there is one.
  const KernelVariant* known = VariantRegistry::builtins().find(p.forwardVariant);
  int device = 0;
  if (known != nullptr && known->needsGpu)
    for (int i = 0; i < device_->count(); ++i) {
      const int index = device_->itemData(i).toInt();
      if (index >= 0 && (p.gpu.devices.empty() || index == p.gpu.devices.front())) {
        device = i;
        break;
      }
    }
  if (device != device_->currentIndex()) {
    device_->setCurrentIndex(device);
    fillVariants();
    fillProjectors();
  }
  if (const int f = forward_->findData(QString::fromStdString(p.forwardVariant)); f >= 0)
    forward_->setCurrentIndex(f);
  if (const int b = back_->findData(QString::fromStdString(p.backVariant)); b >= 0)
    back_->setCurrentIndex(b);
  relabelBackprojectors();
  upperBound_->setEnabled(upperBoundOn_->isChecked());
  stopPercent_->setEnabled(stopOn_->isChecked());
  updating_ = false;
  updateVisibility();
  fillWarmStarts();
  refresh();
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
  return static_cast<std::uint64_t>(std::llround(gpuMemoryLimit_->value() * double(1 << 30)));
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
    // A tilt series reconstructed by WBP or an iterative method: the tomogram of the thickness
    // asked for (tomogramGrid); anything else: tomowb-cli's field-of-view grid.
    const bool tomogram = tiltSeries_ && algorithm() != AlgorithmKind::Fdk;
    const fdk::VolumeGrid grid =
        tomogram ? iterative::tomogramGrid(*g, thickness_->value()) : autoVolumeGrid(*g);
    fdk::FdkParams p = params();
    p.volume = grid;
    setParams(p);
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
  if (g != nullptr) setAlgorithm(tiltSeries_ ? AlgorithmKind::Sirt : AlgorithmKind::Fdk);
  if (tiltSeries_) {
    // SIRT belongs on the GPU when this build has GPU projectors and a GPU is there.
    const auto* model = qobject_cast<const QStandardItemModel*>(device_->model());
    for (int i = 0; i < device_->count(); ++i)
      if (device_->itemData(i).toInt() >= 0 && model != nullptr && model->item(i) != nullptr &&
          model->item(i)->isEnabled()) {
        if (i != device_->currentIndex()) {
          device_->setCurrentIndex(i);
          fillVariants();
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

fdk::FdkMemoryOptions AlgorithmPanel::memoryOptions() const {
  fdk::FdkMemoryOptions o;
  o.hostThreads = threads_->value();
  o.availableHostBytes = availableHostMemoryBytes();
  o.previewCopies = 2;  // the live preview: one shown, one in flight (RunController)
  const int gpu = gpuIndex();
  if (gpu >= 0)
    for (const cuda::GpuDevice& d : cuda::listGpuDevices())
      if (d.index == gpu)  // the run plans with the free memory, as it is now
        o.deviceMemoryBytes = d.freeMemoryBytes > 0 ? d.freeMemoryBytes : d.totalMemoryBytes;
  o.gpus = 1;  // the limit comes with params().gpu
  return o;
}

fdk::FdkMemoryEstimate AlgorithmPanel::memoryEstimate() const {
  const Geometry* g = workspace_.geometry();
  if (!g) return {};
  try {
    return fdk::estimateFdkMemory(*g, params(), memoryOptions());
  } catch (const Error& e) {
    fdk::FdkMemoryEstimate none;
    none.warnings.push_back(e.what());
    return none;
  }
}

std::uint64_t AlgorithmPanel::iterativeHostBytes() const {
  const Geometry* g = workspace_.geometry();
  if (!g) return 0;
  const double projection =
      4.0 * double(g->viewCount()) * double(g->detector().cols) * double(g->detector().rows);
  const double volume = 4.0 * double(nx_->value()) * double(ny_->value()) * double(nz_->value());
  const AlgorithmKind kind = algorithm();
  if (kind == AlgorithmKind::Cgls) {
    // r and q; x, s and p, and two preview copies (the core's iterative::hostMemoryBytes).
    const double bytes = 2.0 * projection + 5.0 * volume;
    return bytes >= double(std::numeric_limits<std::uint64_t>::max())
               ? std::numeric_limits<std::uint64_t>::max()
               : static_cast<std::uint64_t>(bytes);
  }
  const double subsets = kind == AlgorithmKind::Sirt     ? 1.0
                         : kind == AlgorithmKind::OsSirt ? double(subsets_->value())
                                                         : double(g->viewCount());
  // The core keeps every subset's column weights when they fit in 2 GiB, else one at a time.
  const double weights = subsets * volume <= kStoredWeightBytes ? subsets * volume : volume;
  // Row weights, a stack of ones and the residual; the iterate, the update, a volume of ones
  // while the row sums are made, the column weights and two preview copies.
  const double bytes = 3.0 * projection + 3.0 * volume + weights + 2.0 * volume;
  return bytes >= double(std::numeric_limits<std::uint64_t>::max())
             ? std::numeric_limits<std::uint64_t>::max()
             : static_cast<std::uint64_t>(bytes);
}

bool AlgorithmPanel::validate(QString* why) const {
  QString reason;
  if (!workspace_.projections() || !workspace_.geometry())
    reason = tr("No projections loaded: open a file or the demo.");
  else if (nx_->value() < 1 || ny_->value() < 1 || nz_->value() < 1)
    reason = tr("The volume size must be at least 1 voxel on every axis.");
  else if (!(voxel_->value() > 0))
    reason = tr("The voxel size must be > 0 mm.");
  else
    reason = isIterative(algorithm()) ? iterativeProblem() : filteredBackprojectionProblem();
  if (why) *why = reason;
  return reason.isEmpty();
}

QString AlgorithmPanel::filteredBackprojectionProblem() const {
  if (algorithm() == AlgorithmKind::Wbp && workspace_.geometry()->beam() != BeamKind::Parallel)
    return tr(
        "WBP backprojects a parallel-beam tilt series; these projections are cone beam: "
        "choose FDK.");
  if (variant_->currentIndex() < 0) return tr("No kernel variant for this device.");
  const fdk::FdkMemoryEstimate e = memoryEstimate();
  for (const std::string& w : e.warnings)
    if (w.rfind("FDK cannot run", 0) == 0) return QString::fromStdString(w) + '.';
  if (!e.hostFits)
    return tr("Not enough host memory: the run needs %1 more, %2 is available.")
        .arg(QString::fromStdString(formatBytes(e.hostNewBytes)),
             QString::fromStdString(formatBytes(e.availableHostBytes)));
  if (e.onGpu && !e.plan.fits)
    return tr("GPU run: %1.").arg(QString::fromStdString(e.plan.message));
  return {};
}

QString AlgorithmPanel::iterativeProblem() const {
  // The core's own checks (IterativeReconstruction.cpp), said here before the run.
  const std::int64_t views = workspace_.geometry()->viewCount();
  if (iterations_->value() < 1)
    return tr("Iterations must be at least 1 (got %1).").arg(iterations_->value());
  if (algorithm() != AlgorithmKind::Cgls &&
      !(relaxation_->value() > 0.0 && relaxation_->value() < 2.0))
    return tr("The relaxation \u03bb must lie strictly between 0 and 2 (got %1).")
        .arg(relaxation_->value());
  if (algorithm() == AlgorithmKind::OsSirt && subsets_->value() > views)
    return tr("OS-SIRT: %1 subsets, but the data has only %2 views.")
        .arg(subsets_->value())
        .arg(views);
  if (upperBoundOn_->isChecked() && nonNegative_->isChecked() && upperBound_->value() <= 0.0)
    return tr("The upper bound (%1) must exceed the lower bound 0 of non-negativity.")
        .arg(upperBound_->value());
  if (stopOn_->isChecked() && !(stopPercent_->value() > 0.0 && stopPercent_->value() < 100.0))
    return tr("The stop criterion must lie strictly between 0 and 100 %.");
  if (forward_->currentIndex() < 0 || back_->currentIndex() < 0)
    return tr("No forward projector or backprojector for this device in this build.");
  if (const int run = warmStartRunId(); run >= 0) {
    const RunInfo* info = runs_ != nullptr ? runs_->run(run) : nullptr;
    if (info == nullptr || !info->result)
      return tr("The warm-start run %1 has no result any more.").arg(run);
    if (!volumesShareGrid(*info->result, grid()))
      return tr("The warm start (run %1) is on another grid: use its grid or start from zero.")
          .arg(run);
  }
  const std::uint64_t available = availableHostMemoryBytes();
  if (available > 0 && iterativeHostBytes() > available)
    return tr("Not enough host memory: the run needs %1, %2 is available.")
        .arg(QString::fromStdString(formatBytes(iterativeHostBytes())),
             QString::fromStdString(formatBytes(available)));
  return {};
}

QString AlgorithmPanel::memoryText(bool* fits) const {
  *fits = true;
  if (!workspace_.geometry()) return tr("Load projections to see the estimate.");
  if (isIterative(algorithm())) {
    const std::uint64_t available = availableHostMemoryBytes();
    const std::uint64_t bytes = iterativeHostBytes();
    *fits = available == 0 || bytes <= available;
    const QString what =
        algorithm() == AlgorithmKind::Cgls
            ? tr("residual, its update, iterate, gradient, direction and two previews")
            : tr("weights, residual, iterate, update, column weights and two previews");
    QString text =
        tr("Host: %1 new (%2 available): %3")
            .arg(QString::fromStdString(formatBytes(bytes)),
                 available ? QString::fromStdString(formatBytes(available)) : tr("unknown"), what);
    if (gpuIndex() >= 0) text += tr("\nGPU: the projectors hold the volume and the views they use");
    return text;
  }
  const fdk::FdkMemoryEstimate e = memoryEstimate();
  *fits = e.hostFits && (!e.onGpu || e.plan.fits);
  if (e.summary.empty()) return QString::fromStdString(e.summary);
  QString text =
      tr("Host: %1 peak (%2 new; %3 available)\n")
          .arg(QString::fromStdString(formatBytes(e.hostPeakBytes)),
               QString::fromStdString(formatBytes(e.hostNewBytes)),
               e.availableHostBytes ? QString::fromStdString(formatBytes(e.availableHostBytes))
                                    : tr("unknown"));
  text += tr("projections %1, filtered %2, volume %3, previews %4")
              .arg(QString::fromStdString(formatBytes(e.projectionBytes)),
                   QString::fromStdString(formatBytes(e.filteredBytes)),
                   QString::fromStdString(formatBytes(e.volumeBytes)),
                   QString::fromStdString(formatBytes(e.previewBytes)));
  if (e.onGpu) text += tr("\nGPU: %1").arg(QString::fromStdString(e.gpuSummary));
  return text;
}

void AlgorithmPanel::refresh() {
  if (updating_) return;
  // The thickness is the tomogram's ny; with FDK's field-of-view grid it keeps its own value.
  if (tiltSeries_ && algorithm() != AlgorithmKind::Fdk) {
    const QSignalBlocker block(thickness_);
    thickness_->setValue(ny_->value());
  }
  gridInfo_->setText(gridText());
  // Kernels: the description and tunables of the variant (FDK/WBP) or of the projector pair.
  const bool iterativeRun = isIterative(algorithm());
  const VariantRegistry& registry = VariantRegistry::builtins();
  QString text;
  const auto describe = [](const KernelVariant& v) {
    QString t = QStringLiteral("%1: %2").arg(QString::fromStdString(v.name),
                                             QString::fromStdString(v.description));
    for (const Tunable& tunable : v.tunables)
      t += QStringLiteral("\n• %1 = %2: %3")
               .arg(QString::fromStdString(tunable.name),
                    QString::fromStdString(tunable.defaultValue),
                    QString::fromStdString(tunable.description));
    return t;
  };
  if (iterativeRun) {
    const KernelVariant* fp = registry.find(forward_->currentData().toString().toStdString());
    const KernelVariant* bp = registry.find(back_->currentData().toString().toStdString());
    if (fp && bp) {
      text = describe(*fp) + QStringLiteral("\n") + describe(*bp);
      const bool matched = bp->adjointOf == fp->name;
      pairInfo_->setText(
          matched ? tr("<b>Matched pair</b>: the backprojector is the exact transpose of the "
                       "forward projector, so SIRT minimises the weighted residual, which never "
                       "rises.")
                  : tr("<b>Unmatched pair</b>: the backprojector is not the transpose of the "
                       "forward projector (the usual ET choice, seed 004); the residual may "
                       "level off a little above a matched pair's."));
    } else {
      text = tr("No projector pair for this device in this build.");
      pairInfo_->clear();
    }
  } else if (const KernelVariant* v =
                 registry.find(variant_->currentData().toString().toStdString())) {
    text = QString::fromStdString(v->description);
    for (const Tunable& t : v->tunables)
      text += QStringLiteral("\n• %1 = %2: %3")
                  .arg(QString::fromStdString(t.name), QString::fromStdString(t.defaultValue),
                       QString::fromStdString(t.description));
    if (v->tunables.empty()) text += tr("\nNo tunables.");
  } else {
    text = tr("No kernel variant for this device.");
  }
  variantInfo_->setText(text);
  bool fits = true;
  memory_->setText(memoryText(&fits));
  memory_->setStyleSheet(fits ? QString() : QStringLiteral("color: #c0392b;"));
  QString why;
  const bool ok = validate(&why);
  run_->setEnabled(ok);
  run_->setToolTip(ok ? tr("Reconstruct with these parameters") : why);
  reason_->setText(why);
  reason_->setVisible(!ok);
  emit paramsChanged();
}

}  // namespace tomowb::gui
