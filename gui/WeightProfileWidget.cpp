#include "gui/WeightProfileWidget.h"

#include <QPainter>
#include <QPainterPath>
#include <algorithm>

namespace tomowb::gui {

WeightProfileWidget::WeightProfileWidget(QWidget* parent) : QWidget(parent) {
  setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Preferred);
}

void WeightProfileWidget::setProfile(std::vector<double> values, const QString& caption) {
  values_ = std::move(values);
  caption_ = caption;
  message_.clear();
  update();
}

void WeightProfileWidget::setMessage(const QString& message) {
  values_.clear();
  message_ = message;
  update();
}

void WeightProfileWidget::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.setRenderHint(QPainter::Antialiasing);
  p.fillRect(rect(), palette().base());
  const QFontMetrics fm = p.fontMetrics();
  const int left = fm.horizontalAdvance(QStringLiteral("0.00")) + 8;
  const QRect plot = rect().adjusted(left, fm.height() + 6, -8, -fm.height() - 6);
  p.setPen(palette().text().color());
  p.drawText(rect().adjusted(4, 2, -4, 0), Qt::AlignTop | Qt::AlignLeft,
             values_.empty() ? message_ : caption_);
  if (values_.empty() || plot.width() < 10 || plot.height() < 10) return;

  const double top = std::max(1.0, *std::max_element(values_.begin(), values_.end()));
  auto toPoint = [&](double x, double y) {
    const double fx = values_.size() > 1 ? x / static_cast<double>(values_.size() - 1) : 0.5;
    return QPointF(plot.left() + fx * plot.width(), plot.bottom() - y / top * plot.height());
  };
  // Axes, ticks at 0, 0.5 and 1 (the full-scan weight 1/2 is the reference line).
  QColor grid = palette().mid().color();
  p.setPen(QPen(grid, 1, Qt::DotLine));
  for (const double y : {0.5, 1.0})
    p.drawLine(toPoint(0, y), toPoint(double(values_.size() - 1), y));
  p.setPen(palette().text().color());
  p.drawRect(plot);
  for (const double y : {0.0, 0.5, 1.0}) {
    const QPointF at = toPoint(0, y);
    p.drawText(QRectF(0, at.y() - fm.height() / 2.0, left - 4, fm.height()),
               Qt::AlignRight | Qt::AlignVCenter, QString::number(y, 'f', 2));
  }
  p.drawText(QRect(plot.left(), plot.bottom() + 2, plot.width(), fm.height()), Qt::AlignLeft,
             QStringLiteral("col 0"));
  p.drawText(QRect(plot.left(), plot.bottom() + 2, plot.width(), fm.height()), Qt::AlignRight,
             QStringLiteral("col %1").arg(values_.size() - 1));

  QPainterPath path;
  for (std::size_t i = 0; i < values_.size(); ++i) {
    const QPointF pt = toPoint(double(i), values_[i]);
    if (i == 0)
      path.moveTo(pt);
    else
      path.lineTo(pt);
  }
  p.setPen(QPen(QColor(40, 120, 220), 2));
  p.drawPath(path);
}

}  // namespace tomowb::gui
