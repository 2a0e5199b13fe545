// ScientificSpinBox: see the header.
#include "gui/algorithms/ScientificSpinBox.h"

#include <QLineEdit>
#include <QRegularExpression>
#include <algorithm>
#include <cmath>

namespace tomowb::gui {

namespace {

// Every digit a double has in fixed notation, from 1e-300 to 1e300: QDoubleSpinBox rounds the
// value to its decimals, and this box must not round at all.
constexpr int kAllDecimals = 320;

QString stripped(const QString& text, const QString& prefix, const QString& suffix) {
  QString t = text.trimmed();
  if (!prefix.isEmpty() && t.startsWith(prefix)) t.remove(0, prefix.size());
  if (!suffix.isEmpty() && t.endsWith(suffix)) t.chop(suffix.size());
  return t.trimmed();
}

}  // namespace

ScientificSpinBox::ScientificSpinBox(QWidget* parent) : QDoubleSpinBox(parent) {
  // Its size hint comes from textFromValue of the range's ends: short, whatever the decimals.
  setDecimals(kAllDecimals);
}

void ScientificSpinBox::setSignificantDigits(int digits) {
  digits_ = std::clamp(digits, 1, 17);
  setValue(value());  // re-shows the text
  lineEdit()->setText(textFromValue(value()));
}

QString ScientificSpinBox::textFromValue(double value) const {
  // C locale: "1e-05" reads back everywhere; 'g' drops trailing zeros.
  return QString::number(value, 'g', digits_);
}

double ScientificSpinBox::valueFromText(const QString& text) const {
  bool ok = false;
  const double v = stripped(text, prefix(), suffix()).toDouble(&ok);
  return ok ? v : value();
}

QValidator::State ScientificSpinBox::validate(QString& input, int& /*pos*/) const {
  const QString t = stripped(input, prefix(), suffix());
  if (t.isEmpty()) return QValidator::Intermediate;
  bool ok = false;
  const double v = t.toDouble(&ok);
  if (ok && std::isfinite(v))
    return v >= minimum() && v <= maximum() ? QValidator::Acceptable : QValidator::Intermediate;
  // A number being typed: "1e", "1e-", "-", "2.".
  static const QRegularExpression partial(
      QStringLiteral("^[+-]?(\\d+\\.?\\d*|\\.\\d*)?([eE][+-]?\\d*)?$"));
  return partial.match(t).hasMatch() ? QValidator::Intermediate : QValidator::Invalid;
}

double ScientificSpinBox::stepped(double value, int direction, double smallestStep) {
  const double a = std::abs(value);
  const double sign = value < 0 ? -1.0 : 1.0;
  if (a < smallestStep * (1 - 1e-9)) {
    // Below the smallest step: up to it, down to 0 (or the negative step from 0).
    if (direction > 0) return value < 0 ? 0.0 : smallestStep;
    return value > 0 ? 0.0 : -smallestStep;
  }
  // Walk the magnitude: away from 0 when the step points away from it.
  const bool grow = (direction > 0) == (value >= 0);
  const double exponent = std::floor(std::log10(a) + 1e-12);
  const double scale = std::pow(10.0, exponent);
  const double mantissa = a / scale;  // 1 <= m < 10
  double next;
  if (grow) {
    next = std::floor(mantissa + 1e-9) + 1;  // 3.2 -> 4, 9 -> 10
  } else {
    const double down = std::ceil(mantissa - 1e-9) - 1;  // 3.2 -> 3, 3 -> 2, 1 -> 0
    next = down >= 1 ? down : 0.9;                       // 1e-2 -> 9e-3
  }
  const double magnitude = next * scale;
  if (!grow && magnitude < smallestStep * (1 - 1e-9)) return 0.0;
  // Whole digits: 4e-3, not 0.004000000000000001.
  return sign * QString::number(magnitude, 'g', 12).toDouble();
}

void ScientificSpinBox::stepBy(int steps) {
  double v = value();
  for (int i = 0; i < std::abs(steps); ++i) v = stepped(v, steps > 0 ? 1 : -1, smallestStep_);
  setValue(std::clamp(v, minimum(), maximum()));
  selectAll();
}

}  // namespace tomowb::gui
