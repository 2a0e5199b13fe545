// ProjectorChoice: see the header.
#include "gui/algorithms/ProjectorChoice.h"

#include <QComboBox>
#include <QCoreApplication>
#include <QFormLayout>
#include <QLabel>
#include <QStandardItemModel>
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

}  // namespace

ProjectorChoice::ProjectorChoice(QFormLayout& form, QWidget* parent)
    : QObject(parent), form_(form) {
  for (const RoleRow& row : kRows) {
    auto* combo = new QComboBox(parent);
    combo->setObjectName(QString::fromLatin1(row.objectName));
    if (row.role != VariantRole::FdkBackprojector) {
      // A long annotation ("[transpose of et.fp.cpu-siddon]") must not widen the dock: the combo
      // is as wide as a name with "[matched]"; the list shows every item in full.
      combo->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
      combo->setMinimumContentsLength(26);
    }
    if (*row.tip) combo->setToolTip(QCoreApplication::translate("AlgorithmPanel", row.tip));
    form_.addRow(QCoreApplication::translate("AlgorithmPanel", row.label), combo);
    combos_[row.role] = combo;
    connect(combo, &QComboBox::currentIndexChanged, this, [this, role = row.role] {
      if (role == VariantRole::ForwardProjector) relabel();
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
      if (geometry != nullptr && v->supports)
        refused = v->supports(*geometry, grid != nullptr ? *grid : kPointGrid);
      if (refused) {
        if (auto* model = qobject_cast<QStandardItemModel*>(combo->model()))
          if (QStandardItem* item = model->item(combo->count() - 1)) {
            item->setEnabled(false);
            item->setToolTip(QString::fromStdString(*refused));
          }
      }
    }
    const auto usable = [combo](int i) {
      const auto* model = qobject_cast<const QStandardItemModel*>(combo->model());
      const QStandardItem* item = model != nullptr ? model->item(i) : nullptr;
      return i >= 0 && (item == nullptr || item->isEnabled());
    };
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
  relabel();
  describe();
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
    parts << (slots_.size() > 1
                  ? QStringLiteral("%1: %2").arg(QString::fromStdString(v->name),
                                                 describeVariant(*v))
                  : describeVariant(*v) + (v->tunables.empty() ? tr("\nNo tunables.") : QString()));
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
