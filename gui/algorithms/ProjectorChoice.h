// ProjectorChoice: the kernel rows of the algorithm dock's device box, one combo per projector
// role a descriptor names (AlgorithmDescriptor::projectors): "Kernel" for an FDK backprojector,
// "Forward" and "Back" for a projector pair, the backprojector that is the exact transpose of the
// chosen forward projector marked "matched". The variants come from the registry for the device
// chosen (never a fixed list: CUDA builds add theirs), the registry's default first. For a pair,
// a "Projector model" row above them picks the matched pair of a model (SF-TT, SF-TR, Joseph,
// Siddon: tomowb-cli's --projector MODEL) on the device in one choice; a model whose projectors
// refuse the geometry is greyed out with the reason, and a pair chosen by hand reads "other pair".
#pragma once

#include <QObject>
#include <QString>
#include <QStringList>
#include <map>
#include <nlohmann/json.hpp>
#include <vector>

#include "recon/catalog/AlgorithmCatalog.h"
#include "recon/variant/VariantRegistry.h"

class QComboBox;
class QFormLayout;
class QLabel;
class QWidget;

namespace tomowb::gui {

class ProjectorChoice : public QObject {
  Q_OBJECT

 public:
  // Adds the rows to `form` (their widgets are children of `parent`).
  ProjectorChoice(QFormLayout& form, QWidget* parent);

  // Shows the rows of these slots' roles only.
  void setSlots(const std::vector<catalog::ProjectorSlot>& projectorSlots);
  // Lists the variants of the device (GPU or CPU), keeping the choices still listed. With a
  // geometry, a projector whose supports() refuses it (the SF pairs on a tilt series) is listed
  // greyed out with its reason as the tool tip, and never chosen by default.
  void fill(bool gpu, const Geometry* geometry = nullptr, const VolumeGrid* grid = nullptr);
  // Whether a role has a GPU variant in this build.
  static bool hasGpuVariant(VariantRole role);

  QString chosen(VariantRole role) const;
  bool choose(VariantRole role, const QString& name);
  // The model whose matched pair is chosen ("sf-tt"), or empty for another pair; choosing one
  // (false when the device has no usable matched pair of it).
  QString chosenModel() const;
  bool chooseModel(const QString& model);
  // The models offered for the device, in registry order.
  QStringList models() const;
  // "SF-TT (separable footprint, trapezoid/trapezoid)": a model's item text.
  static QString modelLabel(const QString& model);
  QStringList names(VariantRole role) const;
  // Every shown role has a variant on this device; else the role missing, in words.
  bool complete(QString* missing) const;
  // The slots' fields ("variant", "forwardVariant") set to the choices, and read back.
  void write(nlohmann::json& parameters) const;
  void read(const nlohmann::json& parameters);
  // The item text of a backprojector ("et.bp.cpu-matched  [matched]").
  QString backprojectorLabel(const QString& name) const;

 signals:
  void changed();

 private:
  void relabel();
  void describe();
  void fillModels(const Geometry* geometry, const VolumeGrid& grid);
  void showModelOfPair();

  QFormLayout& form_;
  QComboBox* model_ = nullptr;
  std::map<VariantRole, QComboBox*> combos_;
  std::vector<catalog::ProjectorSlot> slots_;
  QLabel* pairInfo_ = nullptr;
  QLabel* variantInfo_ = nullptr;
  bool gpu_ = false;
};

}  // namespace tomowb::gui
