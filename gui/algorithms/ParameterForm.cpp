// ParameterForm: see the header.
#include "gui/algorithms/ParameterForm.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QSpinBox>
#include <algorithm>
#include <climits>
#include <cmath>

#include "gui/algorithms/ScientificSpinBox.h"
#include "recon/core/Error.h"

namespace tomowb::gui {

namespace {

using Kind = catalog::ParameterSpec::Kind;

nlohmann::json::json_pointer pointerOf(const std::string& field) {
  return nlohmann::json::json_pointer("/" + field);
}

QString labelOf(const catalog::ParameterSpec& spec, const FieldLook& look, bool rowLabel) {
  if (!look.label.isEmpty()) return look.label;
  const QString label = QString::fromStdString(spec.label.empty() ? spec.field : spec.label);
  return rowLabel ? label + QLatin1Char(':') : label;
}

double orElse(double value, double fallback) {
  return std::isnan(value) ? fallback : value;
}

// The value a spin box shows, back in the parameter's unit: 15 significant digits, so that 49.95 %
// gives the 0.4995 that was shown and not 0.49950000000000006.
double unscaled(const QDoubleSpinBox& spin, double scale) {
  return scale == 1 ? spin.value() : QString::number(spin.value() / scale, 'g', 15).toDouble();
}

}  // namespace

ParameterForm::ParameterForm(const catalog::AlgorithmDescriptor& descriptor, FormLook look,
                             QWidget* parent)
    : QGroupBox(parent), descriptor_(descriptor), look_(std::move(look)) {
  setTitle(look_.title.isEmpty() ? tr("Parameters") : look_.title);
  setObjectName(look_.objectName.isEmpty() ? QStringLiteral("algorithmParameters")
                                           : look_.objectName);
  form_ = new QFormLayout(this);
  editors_.reserve(descriptor_.parameters.size());
  for (const catalog::ParameterSpec& spec : descriptor_.parameters) addEditor(spec);
  for (Editor& e : editors_) {
    const nlohmann::json start = e.look.initial.is_null() ? e.spec->defaultValue : e.look.initial;
    showValue(e, start);
  }
  initial_ = parameters();
}

QDoubleSpinBox* ParameterForm::makeRealSpin(const catalog::ParameterSpec& spec,
                                            const FieldLook& look) {
  const bool unbounded = spec.minimum == 0 && spec.maximum == 0;
  QDoubleSpinBox* spin = nullptr;
  if (look.significantDigits > 0) {
    auto* scientific = new ScientificSpinBox(this);
    scientific->setSignificantDigits(look.significantDigits);
    if (!std::isnan(look.step)) scientific->setSmallestStep(look.step);
    spin = scientific;
  } else {
    spin = new QDoubleSpinBox(this);
    spin->setDecimals(look.decimals >= 0 ? look.decimals : 4);
  }
  spin->setRange(orElse(look.minimum, unbounded ? -1e9 : spec.minimum * look.scale),
                 orElse(look.maximum, unbounded ? 1e9 : spec.maximum * look.scale));
  spin->setSingleStep(
      orElse(look.step, unbounded ? 1.0 : (spin->maximum() - spin->minimum()) / 20));
  spin->setSuffix(look.suffix);
  return spin;
}

void ParameterForm::addEditor(const catalog::ParameterSpec& spec) {
  Editor e;
  e.spec = &spec;
  if (auto it = look_.fields.find(spec.field); it != look_.fields.end()) e.look = it->second;
  const QString name = e.look.objectName.isEmpty()
                           ? QString::fromStdString(spec.field).replace('/', '.')
                           : e.look.objectName;
  const QString checkName =
      e.look.checkName.isEmpty() ? name + QStringLiteral("On") : e.look.checkName;
  const QString tip = e.look.tip.isEmpty() ? QString::fromStdString(spec.help) : e.look.tip;
  const auto emitChanged = [this] { emit changed(); };
  // A check box and a spin box on one row: an optional value, or one whose 0 means off.
  const auto switchedSpin = [&] {
    e.check = new QCheckBox(labelOf(spec, e.look, true), this);
    e.check->setObjectName(checkName);
    e.check->setToolTip(tip);
    e.real = makeRealSpin(spec, e.look);
    e.real->setObjectName(name);
    e.real->setToolTip(tip);
    e.real->setEnabled(false);
    auto* row = new QHBoxLayout;
    row->addWidget(e.check);
    row->addWidget(e.real, 1);
    form_->addRow(row);
    connect(e.check, &QCheckBox::toggled, e.real, &QWidget::setEnabled);
    connect(e.check, &QCheckBox::toggled, this, emitChanged);
    connect(e.real, &QDoubleSpinBox::valueChanged, this, emitChanged);
  };
  switch (spec.kind) {
    case Kind::Integer:
      e.integer = new QSpinBox(this);
      e.integer->setObjectName(name);
      e.integer->setToolTip(tip);
      e.integer->setRange(int(orElse(e.look.minimum, std::max(spec.minimum, double(INT_MIN)))),
                          int(orElse(e.look.maximum, std::min(spec.maximum, double(INT_MAX)))));
      form_->addRow(labelOf(spec, e.look, true), e.integer);
      connect(e.integer, &QSpinBox::valueChanged, this, emitChanged);
      break;
    case Kind::Real:
      if (e.look.zeroIsOff) {
        switchedSpin();
        break;
      }
      e.real = makeRealSpin(spec, e.look);
      e.real->setObjectName(name);
      e.real->setToolTip(tip);
      form_->addRow(labelOf(spec, e.look, true), e.real);
      connect(e.real, &QDoubleSpinBox::valueChanged, this, emitChanged);
      break;
    case Kind::OptionalReal:
      if (e.look.aliasOnly) {
        e.check = new QCheckBox(labelOf(spec, e.look, false), this);
        e.check->setObjectName(name);
        e.check->setToolTip(tip);
        form_->addRow(e.check);
        connect(e.check, &QCheckBox::toggled, this, emitChanged);
        break;
      }
      switchedSpin();
      break;
    case Kind::Flag:
      e.check = new QCheckBox(labelOf(spec, e.look, false), this);
      e.check->setObjectName(name);
      e.check->setToolTip(tip);
      form_->addRow(e.check);
      connect(e.check, &QCheckBox::toggled, this, emitChanged);
      break;
    case Kind::Choice:
      e.choice = new QComboBox(this);
      e.choice->setObjectName(name);
      e.choice->setToolTip(tip);
      for (std::size_t i = 0; i < spec.choices.size(); ++i) {
        const QString choice = QString::fromStdString(spec.choices[i]);
        const int n = int(i);
        e.choice->addItem(n < e.look.choiceLabels.size() ? e.look.choiceLabels[n] : choice, choice);
      }
      form_->addRow(labelOf(spec, e.look, true), e.choice);
      connect(e.choice, &QComboBox::currentIndexChanged, this, emitChanged);
      break;
  }
  editors_.push_back(std::move(e));
}

nlohmann::json ParameterForm::valueOf(const Editor& e) const {
  const catalog::ParameterSpec& spec = *e.spec;
  switch (spec.kind) {
    case Kind::Integer:
      return std::int64_t{e.integer->value()};
    case Kind::Real:
      if (e.look.zeroIsOff && !e.check->isChecked()) return 0.0;
      return unscaled(*e.real, e.look.scale);
    case Kind::OptionalReal:
      if (!e.check->isChecked()) return nullptr;
      return e.look.aliasOnly ? spec.aliasValue : unscaled(*e.real, e.look.scale);
    case Kind::Flag:
      return e.check->isChecked();
    case Kind::Choice:
      return e.choice->currentData().toString().toStdString();
  }
  return nullptr;
}

void ParameterForm::showValue(Editor& e, const nlohmann::json& value) {
  const catalog::ParameterSpec& spec = *e.spec;
  const QSignalBlocker blockCheck(e.check);
  switch (spec.kind) {
    case Kind::Integer:
      if (value.is_number())
        e.integer->setValue(int(std::clamp(value.get<double>(), double(e.integer->minimum()),
                                           double(e.integer->maximum()))));
      break;
    case Kind::Real:
      if (!value.is_number()) break;
      if (e.look.zeroIsOff) {
        const bool on = value.get<double>() != 0;
        e.check->setChecked(on);
        e.real->setEnabled(on);
        if (!on) {
          if (!std::isnan(e.look.offShows)) e.real->setValue(e.look.offShows);
          break;
        }
      }
      e.real->setValue(value.get<double>() * e.look.scale);
      break;
    case Kind::OptionalReal:
      // The alias-only look shows the alias value; any other bound reads as unset.
      e.check->setChecked(e.look.aliasOnly
                              ? value.is_number() && value.get<double>() == spec.aliasValue
                              : value.is_number());
      if (e.real != nullptr) {
        e.real->setEnabled(e.check->isChecked());
        if (value.is_number())
          e.real->setValue(value.get<double>() * e.look.scale);
        else if (!std::isnan(e.look.offShows))
          e.real->setValue(e.look.offShows);
      }
      break;
    case Kind::Flag:
      if (value.is_boolean()) e.check->setChecked(value.get<bool>());
      break;
    case Kind::Choice:
      if (value.is_string())
        if (const int i = e.choice->findData(QString::fromStdString(value.get<std::string>()));
            i >= 0)
          e.choice->setCurrentIndex(i);
      break;
  }
}

nlohmann::json ParameterForm::parameters() const {
  nlohmann::json out = nlohmann::json::object();
  for (const Editor& e : editors_) out[pointerOf(e.spec->field)] = valueOf(e);
  return out;
}

void ParameterForm::setParameters(const nlohmann::json& parameters) {
  if (!parameters.is_object()) return;
  {
    const QSignalBlocker block(this);
    for (Editor& e : editors_) {
      const nlohmann::json::json_pointer at = pointerOf(e.spec->field);
      if (parameters.contains(at)) showValue(e, parameters[at]);
    }
  }
  emit changed();
}

QString ParameterForm::problem() const {
  for (const Editor& e : editors_)
    if (e.look.zeroIsOff && e.check->isChecked() && !(e.real->value() > 0))
      return tr("%1 must be above 0 when ticked (untick it to leave it off).")
          .arg(QString::fromStdString(e.spec->label));
  return {};
}

}  // namespace tomowb::gui
