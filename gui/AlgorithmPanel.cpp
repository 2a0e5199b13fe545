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

#include "gui/core/Workspace.h"
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

fdk::VolumeGrid autoVolumeGrid(const Geometry& geometry) {
  return fdk::VolumeGrid::coveringFieldOfView(geometry);  // as tomowb-cli's default grid
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
  fillPresets();
  connect(&workspace_, &Workspace::projectionsChanged, this, &AlgorithmPanel::onProjectionsChanged);
  connect(&workspace_, &Workspace::geometryChanged, this, &AlgorithmPanel::refresh);
  onProjectionsChanged();
}

void AlgorithmPanel::buildUi() {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);

  auto* top = new QFormLayout;
  algorithm_ = new QComboBox(this);
  algorithm_->setObjectName(QStringLiteral("algorithmCombo"));
  algorithm_->addItem(tr("FDK (cone beam) / FBP (parallel)"), QStringLiteral("fdk"));
  algorithm_->setToolTip(tr("Filtered backprojection: FDK for cone beams, FBP for parallel beams"));
  top->addRow(tr("&Algorithm:"), algorithm_);
  auto* presetRow = new QHBoxLayout;
  presets_ = new QComboBox(this);
  presets_->setObjectName(QStringLiteral("presetCombo"));
  savePreset_ = new QPushButton(tr("Save…"), this);
  savePreset_->setToolTip(tr("Save the filter, weights and variant as a preset"));
  deletePreset_ = new QPushButton(tr("Delete"), this);
  presetRow->addWidget(presets_, 1);
  presetRow->addWidget(savePreset_);
  presetRow->addWidget(deletePreset_);
  top->addRow(tr("Preset:"), presetRow);
  layout->addLayout(top);

  auto* filterBox = new QGroupBox(tr("Filter and weights"), this);
  auto* filterForm = new QFormLayout(filterBox);
  window_ = new QComboBox(filterBox);
  for (std::size_t i = 0; i < std::size(kWindows); ++i)
    window_->addItem(tr(kWindowLabels[i]), static_cast<int>(kWindows[i]));
  cutoff_ = new QDoubleSpinBox(filterBox);
  cutoff_->setRange(0.01, 1.0);
  cutoff_->setSingleStep(0.05);
  cutoff_->setDecimals(2);
  cutoff_->setValue(1.0);
  cutoff_->setToolTip(tr("Frequencies above this fraction of Nyquist are cut"));
  redundancy_ = new QComboBox(filterBox);
  for (std::size_t i = 0; i < std::size(kModes); ++i)
    redundancy_->addItem(tr(kModeLabels[i]), static_cast<int>(kModes[i]));
  fovMask_ = new QCheckBox(tr("Zero voxels outside the &field of view"), filterBox);
  filterForm->addRow(tr("&Window:"), window_);
  filterForm->addRow(tr("C&ut-off:"), cutoff_);
  filterForm->addRow(tr("&Redundancy:"), redundancy_);
  filterForm->addRow(fovMask_);
  layout->addWidget(filterBox);

  auto* gridBox = new QGroupBox(tr("Volume"), this);
  auto* gridForm = new QFormLayout(gridBox);
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
  autoGrid_ = new QPushButton(tr("Auto from &geometry"), gridBox);
  autoGrid_->setToolTip(
      tr("Voxels of the detector pitch at the isocentre, covering the field of "
         "view and the detector height"));
  gridForm->addRow(tr("Size (x y z):"), sizeRow);
  gridForm->addRow(tr("&Voxel size:"), voxel_);
  gridForm->addRow(autoGrid_);
  layout->addWidget(gridBox);

  auto* deviceBox = new QGroupBox(tr("Device and kernel"), this);
  auto* deviceForm = new QFormLayout(deviceBox);
  device_ = new QComboBox(deviceBox);
  device_->setObjectName(QStringLiteral("deviceCombo"));
  threads_ = new QSpinBox(deviceBox);
  threads_->setRange(0, 1024);
  threads_->setSpecialValueText(tr("all (%1)").arg(omp_get_max_threads()));
  threads_->setToolTip(tr("CPU threads for filtering (and for the CPU backprojector)"));
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
  variantInfo_ = new QLabel(deviceBox);
  variantInfo_->setWordWrap(true);
  variantInfo_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  deviceForm->addRow(tr("&Device:"), device_);
  deviceForm->addRow(tr("&Threads:"), threads_);
  deviceForm->addRow(tr("GPU &memory limit:"), gpuMemoryLimit_);
  deviceForm->addRow(tr("&Kernel:"), variant_);
  deviceForm->addRow(variantInfo_);
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
  run_ = new QPushButton(QIcon(QStringLiteral(":/tomowb/icons/run.svg")), tr("&Run"), this);
  run_->setObjectName(QStringLiteral("algorithmRunButton"));
  run_->setMinimumHeight(32);
  layout->addWidget(reason_);
  layout->addWidget(run_);
  layout->addStretch(1);

  auto changed = [this] {
    if (!updating_) refresh();
  };
  for (QComboBox* c : {window_, redundancy_})
    connect(c, &QComboBox::currentIndexChanged, this, changed);
  connect(variant_, &QComboBox::currentIndexChanged, this, changed);
  connect(device_, &QComboBox::currentIndexChanged, this, [this] {
    if (updating_) return;
    fillVariants();
    refresh();
  });
  for (QSpinBox* s : {nx_, ny_, nz_, threads_}) connect(s, &QSpinBox::valueChanged, this, changed);
  for (QDoubleSpinBox* s : {cutoff_, voxel_, gpuMemoryLimit_})
    connect(s, &QDoubleSpinBox::valueChanged, this, changed);
  connect(fovMask_, &QCheckBox::toggled, this, changed);
  connect(autoGrid_, &QPushButton::clicked, this, &AlgorithmPanel::autoVolumeFromGeometry);
  connect(presets_, &QComboBox::activated, this, &AlgorithmPanel::onPresetChosen);
  connect(savePreset_, &QPushButton::clicked, this, &AlgorithmPanel::onSavePreset);
  connect(deletePreset_, &QPushButton::clicked, this, &AlgorithmPanel::onDeletePreset);
  connect(run_, &QPushButton::clicked, this, [this] {
    if (validate(nullptr)) emit runRequested();
  });
}

void AlgorithmPanel::fillDevices() {
  const QSignalBlocker block(device_);
  device_->clear();
  device_->addItem(tr("CPU"), -1);
  const VariantRegistry& registry = VariantRegistry::builtins();
  bool gpuVariant = false;
  for (const KernelVariant* v : registry.family("fdk.bp.")) gpuVariant = gpuVariant || v->needsGpu;
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
          tr("No GPU kernel variant is registered in this build (built without "
             "CUDA kernels)"));
    }
  }
  if (gpus.empty() && model) {
    device_->addItem(tr("GPU: none found"), -2);
    QStandardItem* item = model->item(device_->count() - 1);
    item->setEnabled(false);
    item->setToolTip(QString::fromStdString(cuda::gpuStatus()));
  }
  device_->setCurrentIndex(0);
}

void AlgorithmPanel::fillVariants() {
  const QString previous = variant_->currentData().toString();
  const QSignalBlocker block(variant_);
  variant_->clear();
  const bool gpu = gpuIndex() >= 0;
  for (const KernelVariant* v : VariantRegistry::builtins().family("fdk.bp.")) {
    if (v->needsGpu != gpu || !v->backproject) continue;
    variant_->addItem(QString::fromStdString(v->name), QString::fromStdString(v->name));
    variant_->setItemData(variant_->count() - 1, QString::fromStdString(v->description),
                          Qt::ToolTipRole);
  }
  const int keep = variant_->findData(previous);
  // A GPU's default is the variant that picks the fastest kernel for the geometry (as the CLI).
  const int fast = variant_->findData(QStringLiteral("fdk.bp.fast"));
  variant_->setCurrentIndex(keep >= 0 ? keep : gpu && fast >= 0 ? fast : 0);
  gpuMemoryLimit_->setEnabled(gpu);
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
  const VolumeShape shape{nx_->value(), ny_->value(), nz_->value()};
  p.volume = fdk::VolumeGrid::centred(shape, Eigen::Vector3d::Constant(voxel_->value()));
  p.filter.window = static_cast<fdk::RampWindow>(window_->currentData().toInt());
  p.filter.cutoff = cutoff_->value();
  p.redundancy = static_cast<fdk::RedundancyMode>(redundancy_->currentData().toInt());
  p.fieldOfViewMask = fovMask_->isChecked();
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
  }
  gpuMemoryLimit_->setValue(double(p.gpu.memoryLimitBytes) / double(std::uint64_t{1} << 30));
  const int v = variant_->findData(QString::fromStdString(p.variant));
  if (v >= 0) variant_->setCurrentIndex(v);
  updating_ = false;
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
  refresh();
}

void AlgorithmPanel::autoVolumeFromGeometry() {
  const Geometry* g = workspace_.geometry();
  if (!g) return;
  try {
    const fdk::VolumeGrid grid = autoVolumeGrid(*g);
    fdk::FdkParams p = params();
    p.volume = grid;
    setParams(p);
  } catch (const Error& e) {
    reason_->setText(tr("Auto grid: %1").arg(QString::fromStdString(e.what())));
  }
}

void AlgorithmPanel::onProjectionsChanged() {
  if (workspace_.geometry()) autoVolumeFromGeometry();
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

bool AlgorithmPanel::validate(QString* why) const {
  auto fail = [why](const QString& reason) {
    if (why) *why = reason;
    return false;
  };
  if (!workspace_.projections() || !workspace_.geometry())
    return fail(tr("No projections loaded: open a file or the demo."));
  if (nx_->value() < 1 || ny_->value() < 1 || nz_->value() < 1)
    return fail(tr("The volume size must be at least 1 voxel on every axis."));
  if (!(voxel_->value() > 0)) return fail(tr("The voxel size must be > 0 mm."));
  if (variant_->currentIndex() < 0) return fail(tr("No kernel variant for this device."));
  const fdk::FdkMemoryEstimate e = memoryEstimate();
  for (const std::string& w : e.warnings)
    if (w.rfind("FDK cannot run", 0) == 0) return fail(QString::fromStdString(w) + '.');
  if (!e.hostFits)
    return fail(tr("Not enough host memory: the run needs %1 more, %2 is available.")
                    .arg(QString::fromStdString(formatBytes(e.hostNewBytes)),
                         QString::fromStdString(formatBytes(e.availableHostBytes))));
  if (e.onGpu && !e.plan.fits)
    return fail(tr("GPU run: %1.").arg(QString::fromStdString(e.plan.message)));
  if (why) why->clear();
  return true;
}

void AlgorithmPanel::refresh() {
  if (updating_) return;
  // Variant: description and tunables.
  if (const KernelVariant* v =
          VariantRegistry::builtins().find(variant_->currentData().toString().toStdString())) {
    QString text = QString::fromStdString(v->description);
    for (const Tunable& t : v->tunables)
      text += QStringLiteral("\n• %1 = %2: %3")
                  .arg(QString::fromStdString(t.name), QString::fromStdString(t.defaultValue),
                       QString::fromStdString(t.description));
    if (v->tunables.empty()) text += tr("\nNo tunables.");
    variantInfo_->setText(text);
  } else {
    variantInfo_->setText(tr("No kernel variant for this device."));
  }
  // Memory.
  if (workspace_.geometry()) {
    const fdk::FdkMemoryEstimate e = memoryEstimate();
    QString text = QString::fromStdString(e.summary);
    if (!e.summary.empty()) {
      text =
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
    }
    memory_->setText(text);
    const bool fits = e.hostFits && (!e.onGpu || e.plan.fits);
    memory_->setStyleSheet(fits ? QString() : QStringLiteral("color: #c0392b;"));
  } else {
    memory_->setText(tr("Load projections to see the estimate."));
    memory_->setStyleSheet(QString());
  }
  QString why;
  const bool ok = validate(&why);
  run_->setEnabled(ok);
  run_->setToolTip(ok ? tr("Reconstruct with these parameters") : why);
  reason_->setText(why);
  reason_->setVisible(!ok);
  emit paramsChanged();
}

}  // namespace tomowb::gui
