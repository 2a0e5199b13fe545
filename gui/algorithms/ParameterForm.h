// ParameterForm: the form the window makes from an algorithm descriptor's ParameterSpecs (issue
// #18, reference/architecture-next.md seam 4): integer -> spin box, real -> double spin box with
// the spec's range, optional real -> check box + spin box, flag -> check box, choice -> combo box;
// tool tips from the specs' help. It gives and takes the algorithm's own parameters as the
// descriptor's JSON ({"iterations": 50, "filter": {"cutoff": 0.8}}: fields are JSON paths), so a
// new algorithm registered in recon/catalog/registerAlgorithms.cpp appears in the window with a
// working form and no edit in gui/. A FormLook (FormLook.h) changes how values are shown.
//
// The spin boxes reach the ends of the spec's range even where the range is open, so that the
// descriptor's validate explains a value out of range instead of a spin box silently refusing it.
#pragma once

#include <QGroupBox>
#include <QString>
#include <nlohmann/json.hpp>
#include <vector>

#include "gui/algorithms/FormLook.h"
#include "recon/catalog/AlgorithmCatalog.h"

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QFormLayout;
class QSpinBox;

namespace tomowb::gui {

class ParameterForm : public QGroupBox {
  Q_OBJECT

 public:
  ParameterForm(const catalog::AlgorithmDescriptor& descriptor, FormLook look,
                QWidget* parent = nullptr);

  const catalog::AlgorithmDescriptor& descriptor() const { return descriptor_; }
  const FormLook& look() const { return look_; }

  // The values shown, one per spec, as the descriptor's parameter JSON (no grid, no variants).
  nlohmann::json parameters() const;
  // Shows the fields `parameters` has (by the specs' paths); the others keep their values.
  void setParameters(const nlohmann::json& parameters);
  // The values the form started with: the descriptor's defaults, or the look's start values.
  const nlohmann::json& initialParameters() const { return initial_; }
  // What the form itself can tell is wrong (a ticked "off" switch with no value), or empty; the
  // rest is the descriptor's validate.
  QString problem() const;
  // For rows the window adds below the parameters (the warm start).
  QFormLayout* formLayout() const { return form_; }

 signals:
  void changed();

 private:
  struct Editor {
    const catalog::ParameterSpec* spec = nullptr;
    FieldLook look;
    QSpinBox* integer = nullptr;
    QDoubleSpinBox* real = nullptr;
    QCheckBox* check = nullptr;
    QComboBox* choice = nullptr;
  };
  void addEditor(const catalog::ParameterSpec& spec);
  QDoubleSpinBox* makeRealSpin(const catalog::ParameterSpec& spec, const FieldLook& look);
  nlohmann::json valueOf(const Editor& e) const;
  void showValue(Editor& e, const nlohmann::json& value);

  const catalog::AlgorithmDescriptor descriptor_;  // a copy: a test's catalogue may go first
  FormLook look_;
  QFormLayout* form_ = nullptr;
  std::vector<Editor> editors_;
  nlohmann::json initial_ = nlohmann::json::object();
};

}  // namespace tomowb::gui
