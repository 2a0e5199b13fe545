// WeightProfileWidget: a small QPainter plot of one curve, used by the geometry editor to preview
// the FDK redundancy weight of the selected view along the central detector row (Parker's weights
// for a short scan, Wang's for an offset detector, 1/2 for a full turn; recon/fdk/FdkWeights.h).
// Deliberately tiny and independent of render/ChartView.
#pragma once

#include <QString>
#include <QWidget>
#include <vector>

namespace tomowb::gui {

class WeightProfileWidget : public QWidget {
  Q_OBJECT

 public:
  explicit WeightProfileWidget(QWidget* parent = nullptr);

  // y over x = 0..n-1 (detector columns); the y axis runs from 0 to max(1, max y).
  void setProfile(std::vector<double> values, const QString& caption);
  // No curve: the message instead (why there are no weights).
  void setMessage(const QString& message);
  const std::vector<double>& values() const noexcept { return values_; }

  QSize sizeHint() const override { return {320, 140}; }
  QSize minimumSizeHint() const override { return {160, 90}; }

 protected:
  void paintEvent(QPaintEvent* event) override;

 private:
  std::vector<double> values_;
  QString caption_;
  QString message_;
};

}  // namespace tomowb::gui
