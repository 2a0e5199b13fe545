// ScientificSpinBox: a double spin box for parameters that span decades (PWLS's penalty strength
// beta from 1e-3 to 1e6, its edge threshold delta around 1e-3 per mm), which a fixed number of
// decimals shows badly: 0.0010 hides 0.00104, 1000000.0000 is unreadable. It shows the value with
// a given number of significant digits ("0.001", "2.5e+05"), takes what a user types in either
// notation ("1e-3", "0.001", "2.5E5"), and keeps every digit typed (no rounding to decimals). A
// step changes the leading digit (3e-3 -> 4e-3, 9e-3 -> 1e-2, 1e-2 -> 9e-3), so the arrows walk
// a decade in nine steps; from 0 the first step up gives the smallest positive step set.
#pragma once

#include <QDoubleSpinBox>

namespace tomowb::gui {

class ScientificSpinBox : public QDoubleSpinBox {
  Q_OBJECT

 public:
  explicit ScientificSpinBox(QWidget* parent = nullptr);

  void setSignificantDigits(int digits);
  int significantDigits() const { return digits_; }
  // What one step up from 0 gives (and one step down below it returns to 0); default 1e-3.
  void setSmallestStep(double value) { smallestStep_ = value; }

  QString textFromValue(double value) const override;
  double valueFromText(const QString& text) const override;
  QValidator::State validate(QString& input, int& pos) const override;
  void stepBy(int steps) override;

  // The value one leading-digit step up or down from `value` (the spin box's arrows); exposed for
  // tests.
  static double stepped(double value, int direction, double smallestStep);

 private:
  int digits_ = 6;
  double smallestStep_ = 1e-3;
};

}  // namespace tomowb::gui
