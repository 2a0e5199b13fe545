// ProjectorChoice: see the header.
#include "gui/algorithms/ProjectorChoice.h"

#include <QComboBox>
#include <QCoreApplication>
#include <QFormLayout>
#include <QLabel>
#include <QStandardItemModel>
#include <map>
#include <optional>
#include <string>

#include "recon/core/Error.h"

namespace tomowb::gui {

namespace {

struct RoleRow {
  VariantRole role;
  const char* label;
  const char* objectName;
  const char* tip;
};

const RoleRow kRows[] = {
    {VariantRole::FdkBackprojector, QT_TRANSLATE_NOOP("AlgorithmPanel", "&Kernel:"), "variantCombo",
     ""},
    {VariantRole::ForwardProjector, QT_TRANSLATE_NOOP("AlgorithmPanel", "&Forward:"),
     "forwardProjectorCombo",
     QT_TRANSLATE_NOOP("AlgorithmPanel",
                       "Forward projector (the et.fp. family of the kernel registry)")},
    {VariantRole::Backprojector, QT_TRANSLATE_NOOP("AlgorithmPanel", "&Back:"),
     "backprojectorCombo",
     QT_TRANSLATE_NOOP("AlgorithmPanel",
                       "Backprojector (the et.bp. family); \"matched\" marks the exact transpose "
                       "of the forward projector")},
};

QString describeVariant(const KernelVariant& v) {
  QString t = QString::fromStdString(v.description);
  for (const Tunable& tunable : v.tunables)
    t +=
        QStringLiteral("\n\u2022 %1 = %2: %3")
            .arg(QString::fromStdString(tunable.name), QString::fromStdString(tunable.defaultValue),
                 QString::fromStdString(tunable.description));
  return t;
}

// The matched pair of `model` on the device: a backprojector of the model that is the exact
// transpose of a forward projector on the same device; nullptr when there is none.
const KernelVariant* matchedBackOf(const QString& model, bool gpu) {
  const VariantRegistry& registry = VariantRegistry::builtins();
  for (const KernelVariant* b : registry.withRole(VariantRole::Backprojector)) {
    if (QString::fromStdString(b->model) != model || b->needsGpu != gpu || b->adjointOf.empty())
      continue;
    const KernelVariant* f = registry.find(b->adjointOf);
    if (f != nullptr && f->role == VariantRole::ForwardProjector && f->needsGpu == gpu) return b;
  }
  return nullptr;
}

bool itemUsable(const QComboBox* combo, int i) {
  const auto* model = qobject_cast<const QStandardItemModel*>(combo->model());
  const QStandardItem* item = model != nullptr ? model->item(i) : nullptr;
  return i >= 0 && (item == nullptr || item->isEnabled());
}

}  // namespace

QString ProjectorChoice::modelLabel(const QString& model) {
  static const std::map<QString, const char*> labels = {
      {QStringLiteral("sf-tt"),
       QT_TRANSLATE_NOOP("AlgorithmPanel", "SF-TT (separable footprint, trapezoid/trapezoid)")},
      {QStringLiteral("sf-tr"),
       QT_TRANSLATE_NOOP("AlgorithmPanel", "SF-TR (separable footprint, trapezoid/rectangle)")},
      {QStringLiteral("joseph"),
       QT_TRANSLATE_NOOP("AlgorithmPanel", "Joseph (ray-driven, interpolating)")},
      {QStringLiteral("siddon"),
       QT_TRANSLATE_NOOP("AlgorithmPanel", "Siddon (ray-driven, exact lengths)")},
      {QStringLiteral("voxel"), QT_TRANSLATE_NOOP("AlgorithmPanel", "Voxel-driven")},
  };
  const auto it = labels.find(model);
  return it != labels.end() ? QCoreApplication::translate("AlgorithmPanel", it->second)
                            : model.toUpper();
}

ProjectorChoice::ProjectorChoice(QFormLayout& form, QWidget* parent)
    : QObject(parent), form_(form) {
  model_ = new QComboBox(parent);
  model_->setObjectName(QStringLiteral("projectorModelCombo"));
  model_->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
  model_->setMinimumContentsLength(18);
  model_->setToolTip(QCoreApplication::translate(
      "AlgorithmPanel",
      "The projector model: its matched pair (a forward projector and its exact transpose) on "
      "the device chosen, as tomowb-cli's --projector MODEL. SF-TT is the most accurate for "
      "cone beams; greyed-out models cannot take this geometry (hover for why)"));
  form_.addRow(QCoreApplication::translate("AlgorithmPanel", "Projector &model:"), model_);
  connect(model_, &QComboBox::activated, this, [this](int index) {
    const QString model = model_->itemData(index).toString();
    if (!model.isEmpty()) chooseModel(model);
  });
  for (const RoleRow& row : kRows) {
    auto* combo = new QComboBox(parent);
    combo->setObjectName(QString::fromLatin1(row.objectName));
    if (row.role != VariantRole::FdkBackprojector) {
      // A long annotation ("[transpose of et.fp.cpu-siddon]") must not widen the dock: the combo
      // is as wide as a name with "[matched]"; the list shows every item in full.
      combo->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
      combo->setMinimumContentsLength(18);
    }
    if (*row.tip) combo->setToolTip(QCoreApplication::translate("AlgorithmPanel", row.tip));
    form_.addRow(QCoreApplication::translate("AlgorithmPanel", row.label), combo);
    combos_[row.role] = combo;
    connect(combo, &QComboBox::currentIndexChanged, this, [this, role = row.role] {
      if (role == VariantRole::ForwardProjector) relabel();
      showModelOfPair();
      describe();
      emit changed();
    });
    if (row.role == VariantRole::Backprojector) {
      pairInfo_ = new QLabel(parent);
      pairInfo_->setObjectName(QStringLiteral("projectorPairInfo"));
      pairInfo_->setWordWrap(true);
      form_.addRow(pairInfo_);
    }
  }
  variantInfo_ = new QLabel(parent);
  variantInfo_->setWordWrap(true);
  variantInfo_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  form_.addRow(variantInfo_);
}

void ProjectorChoice::setSlots(const std::vector<catalog::ProjectorSlot>& projectorSlots) {
  slots_ = projectorSlots;
  for (const auto& [role, combo] : combos_) {
    bool shown = false;
    for (const catalog::ProjectorSlot& s : slots_) shown = shown || s.role == role;
    form_.setRowVisible(combo, shown);
    if (role == VariantRole::Backprojector) form_.setRowVisible(pairInfo_, shown);
    if (role == VariantRole::ForwardProjector) form_.setRowVisible(model_, shown);
  }
  describe();
}

bool ProjectorChoice::hasGpuVariant(VariantRole role) {
  for (const KernelVariant* v : VariantRegistry::builtins().withRole(role))
    if (v->needsGpu) return true;
  return false;
}

void ProjectorChoice::fill(bool gpu, const Geometry* geometry, const VolumeGrid* grid) {
  // Without a grid, a 1 um voxel at the isocentre: only what the geometry rules out is refused.
  static const VolumeGrid kPointGrid =
      VolumeGrid::centred({1, 1, 1}, Eigen::Vector3d::Constant(1e-3));
  gpu_ = gpu;
  const VariantRegistry& registry = VariantRegistry::builtins();
  for (const auto& [role, combo] : combos_) {
    const QString previous = combo->currentData().toString();
    const QSignalBlocker block(combo);
    combo->clear();
    for (const KernelVariant* v : registry.withRole(role)) {
      if (v->needsGpu != gpu) continue;
      combo->addItem(QString::fromStdString(v->name), QString::fromStdString(v->name));
      combo->setItemData(combo->count() - 1, QString::fromStdString(v->description),
                         Qt::ToolTipRole);
      std::optional<std::string> refused;
      if (geometry != nullptr)
        refused = refusalOf(*v, *geometry, grid != nullptr ? *grid : kPointGrid);
      if (refused) {
        if (auto* model = qobject_cast<QStandardItemModel*>(combo->model()))
          if (QStandardItem* item = model->item(combo->count() - 1)) {
            item->setEnabled(false);
            item->setToolTip(QString::fromStdString(*refused));
          }
      }
    }
    const auto usable = [combo](int i) { return itemUsable(combo, i); };
    int index = combo->findData(previous);
    if (!usable(index)) index = -1;
    if (index < 0) {
      // The device's default (the registry's policy, as the CLI's): for a projector pair the
      // matched pair, whose weighted least-squares residual falls monotonically.
      try {
        const bool pair = role != VariantRole::FdkBackprojector;
        index = combo->findData(QString::fromStdString(
            registry.defaultFor(role, gpu ? VariantDevice::Gpu : VariantDevice::Cpu, pair).name));
      } catch (const ParameterError&) {
        // No default on this device in this build: the first listed.
      }
    }
    if (!usable(index)) index = -1;
    for (int i = 0; index < 0 && i < combo->count(); ++i)
      if (usable(i)) index = i;
    combo->setCurrentIndex(index >= 0 ? index : 0);
  }
  fillModels(geometry, grid != nullptr ? *grid : kPointGrid);
  relabel();
  describe();
}

void ProjectorChoice::fillModels(const Geometry* geometry, const VolumeGrid& grid) {
  const QSignalBlocker block(model_);
  model_->clear();
  auto* items = qobject_cast<QStandardItemModel*>(model_->model());
  QStringList seen;
  for (const KernelVariant* f :
       VariantRegistry::builtins().withRole(VariantRole::ForwardProjector)) {
    const QString model = QString::fromStdString(f->model);
    if (model.isEmpty() || seen.contains(model)) continue;
    const KernelVariant* back = matchedBackOf(model, gpu_);
    if (back == nullptr) continue;
    seen << model;
    model_->addItem(modelLabel(model), model);
    const KernelVariant* forward = VariantRegistry::builtins().find(back->adjointOf);
    QString tip = tr("%1 + %2").arg(QString::fromStdString(forward->name),
                                    QString::fromStdString(back->name));
    std::optional<std::string> refused;
    if (geometry != nullptr) refused = refusalOf(*forward, *geometry, grid);
    if (refused && items != nullptr)
      if (QStandardItem* item = items->item(model_->count() - 1)) {
        item->setEnabled(false);
        tip = QString::fromStdString(*refused);
      }
    model_->setItemData(model_->count() - 1, tip, Qt::ToolTipRole);
  }
  model_->addItem(tr("Other pair (chosen below)"), QString());
  model_->setItemData(model_->count() - 1,
                      tr("A forward projector and a backprojector chosen one by one"),
                      Qt::ToolTipRole);
  showModelOfPair();
}

void ProjectorChoice::showModelOfPair() {
  const QString model = chosenModel();
  const QSignalBlocker block(model_);
  model_->setCurrentIndex(model_->findData(model));
}

QString ProjectorChoice::chosenModel() const {
  const KernelVariant* back =
      VariantRegistry::builtins().find(chosen(VariantRole::Backprojector).toStdString());
  if (back == nullptr || back->adjointOf.empty() ||
      QString::fromStdString(back->adjointOf) != chosen(VariantRole::ForwardProjector))
    return {};
  const QString model = QString::fromStdString(back->model);
  return matchedBackOf(model, gpu_) == back ? model : QString();
}

bool ProjectorChoice::chooseModel(const QString& model) {
  const int index = model_->findData(model);
  const KernelVariant* back = matchedBackOf(model, gpu_);
  if (model.isEmpty() || index < 0 || !itemUsable(model_, index) || back == nullptr) return false;
  {
    // One change signal for the pair, not one per combo.
    const QSignalBlocker forward(combos_.at(VariantRole::ForwardProjector));
    const QSignalBlocker backward(combos_.at(VariantRole::Backprojector));
    choose(VariantRole::ForwardProjector, QString::fromStdString(back->adjointOf));
    choose(VariantRole::Backprojector, QString::fromStdString(back->name));
  }
  relabel();
  showModelOfPair();
  describe();
  emit changed();
  return chosenModel() == model;
}

QStringList ProjectorChoice::models() const {
  QStringList out;
  for (int i = 0; i < model_->count(); ++i)
    if (const QString m = model_->itemData(i).toString(); !m.isEmpty()) out << m;
  return out;
}

QString ProjectorChoice::chosen(VariantRole role) const {
  const auto it = combos_.find(role);
  return it != combos_.end() ? it->second->currentData().toString() : QString();
}

bool ProjectorChoice::choose(VariantRole role, const QString& name) {
  const auto it = combos_.find(role);
  const int index = it != combos_.end() ? it->second->findData(name) : -1;
  if (index < 0) return false;
  it->second->setCurrentIndex(index);
  return true;
}

QStringList ProjectorChoice::names(VariantRole role) const {
  QStringList out;
  if (const auto it = combos_.find(role); it != combos_.end())
    for (int i = 0; i < it->second->count(); ++i) out << it->second->itemData(i).toString();
  return out;
}

bool ProjectorChoice::complete(QString* missing) const {
  for (const catalog::ProjectorSlot& s : slots_)
    if (chosen(s.role).isEmpty()) {
      if (missing) *missing = QString::fromStdString(toString(s.role));
      return false;
    }
  return true;
}

void ProjectorChoice::write(nlohmann::json& parameters) const {
  for (const catalog::ProjectorSlot& s : slots_) parameters[s.field] = chosen(s.role).toStdString();
}

void ProjectorChoice::read(const nlohmann::json& parameters) {
  for (const catalog::ProjectorSlot& s : slots_)
    if (parameters.contains(s.field) && parameters[s.field].is_string())
      choose(s.role, QString::fromStdString(parameters[s.field].get<std::string>()));
  relabel();
}

QString ProjectorChoice::backprojectorLabel(const QString& name) const {
  const KernelVariant* v = VariantRegistry::builtins().find(name.toStdString());
  if (v == nullptr || v->adjointOf.empty()) return name;
  if (QString::fromStdString(v->adjointOf) == chosen(VariantRole::ForwardProjector))
    return tr("%1  [matched]").arg(name);
  return tr("%1  [transpose of %2]").arg(name, QString::fromStdString(v->adjointOf));
}

void ProjectorChoice::relabel() {
  QComboBox* back = combos_.at(VariantRole::Backprojector);
  for (int i = 0; i < back->count(); ++i)
    back->setItemText(i, backprojectorLabel(back->itemData(i).toString()));
}

void ProjectorChoice::describe() {
  // The description and tunables of the variant, or of both of a pair.
  const VariantRegistry& registry = VariantRegistry::builtins();
  QStringList parts;
  bool all = !slots_.empty();
  for (const catalog::ProjectorSlot& s : slots_) {
    const KernelVariant* v = registry.find(chosen(s.role).toStdString());
    if (v == nullptr) {
      all = false;
      continue;
    }
    // A kernel without tunables says nothing about them: the panel must fit a 1080-pixel screen.
    parts << (slots_.size() > 1 ? QStringLiteral("%1: %2").arg(QString::fromStdString(v->name),
                                                               describeVariant(*v))
                                : describeVariant(*v));
  }
  variantInfo_->setText(all                 ? parts.join('\n')
                        : slots_.size() > 1 ? tr("No projector pair for this device in this build.")
                                            : tr("No kernel variant for this device."));
  const KernelVariant* fp = registry.find(chosen(VariantRole::ForwardProjector).toStdString());
  const KernelVariant* bp = registry.find(chosen(VariantRole::Backprojector).toStdString());
  if (fp == nullptr || bp == nullptr) {
    pairInfo_->clear();
    return;
  }
  pairInfo_->setText(
      bp->adjointOf == fp->name
          ? tr("<b>Matched pair</b>: the backprojector is the exact transpose of the forward "
               "projector, so SIRT minimises the weighted residual, which never rises.")
          : tr("<b>Unmatched pair</b>: the backprojector is not the transpose of the forward "
               "projector (the usual ET choice, seed 004); the residual may level off a little "
               "above a matched pair's."));
}

}  // namespace tomowb::gui
