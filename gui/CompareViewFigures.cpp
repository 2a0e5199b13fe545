// CompareViewFigures.cpp: what CompareView shows of the model: the metrics table with its
// editable limits, the verdict, the difference histogram, the line profiles and the cursor readout.
#include <QComboBox>
#include <QLabel>
#include <QLineEdit>
#include <QSettings>
#include <QSignalBlocker>
#include <QTableWidget>
#include <algorithm>
#include <cmath>

#include "gui/CompareView.h"
#include "gui/CompareViewInternal.h"
#include "recon/core/DisplayUnits.h"
#include "render/ChartView.h"

namespace tomowb::gui {

QString detail::number(double v, int digits) {
  if (std::isnan(v)) return QStringLiteral("—");
  if (std::isinf(v)) return v > 0 ? QStringLiteral("∞") : QStringLiteral("−∞");
  return QString::number(v, 'g', digits);
}

namespace {

using detail::number;
using detail::Which;

// The histogram's one series (a chart's series may not share the x axis' title, "A - B").
const QString kHistogramSeries = QStringLiteral("voxels");

// "1e-04" for a limit: short, and what a user types back.
QString limitText(double v) {
  return QString::number(v, 'g', 3);
}

// Accepts "1e-4", "≤ 1e-4", "<= 0.0001" (with a comma as decimal separator too).
std::optional<double> parseLimit(QString text) {
  text.remove(QChar(0x2264)).remove(QStringLiteral("<=")).remove(QLatin1Char('<'));
  text = text.trimmed().replace(QLatin1Char(','), QLatin1Char('.'));
  bool ok = false;
  const double v = text.toDouble(&ok);
  return ok ? std::optional<double>(v) : std::nullopt;
}

}  // namespace

// --- figures ------------------------------------------------------------------------------------

void CompareView::onModelChanged() {
  const std::shared_ptr<const Volume>& difference = model_.difference();
  if (difference && model_.test() == views_->volumeA() && model_.reference() == views_->volumeB() &&
      views_->view(Which::Difference)->volume() != difference) {
    views_->setDifference(difference, model_.defaultHalfWindow());
    windowEdit_->setText(QString::number(views_->differenceHalfWindow(), 'g', 3));
  }
  banner_->setText(model_.problem());
  banner_->setVisible(!model_.problem().isEmpty());
  fillTable();
  updateHistogram();
  updateButtons();
}

void CompareView::setTableRow(int row, const QString& figure, const QString& value,
                              const QString& limit, const QString& result, bool editable) {
  const QString texts[kColumnCount] = {figure, value, limit, result};
  for (int column = 0; column < kColumnCount; ++column) {
    auto* item = new QTableWidgetItem(texts[column]);
    Qt::ItemFlags flags = Qt::ItemIsEnabled | Qt::ItemIsSelectable;
    if (column == Limit && editable) {
      flags |= Qt::ItemIsEditable;
      item->setToolTip(tr("Double-click to edit the limit of the %1 class")
                           .arg(accuracyClassLabel(model_.accuracyClass())));
    }
    item->setFlags(flags);
    if (column != Figure) item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
    if (column == Result && !result.isEmpty()) {
      const bool pass = result == tr("pass");
      item->setForeground(pass ? QColor(30, 140, 60) : QColor(200, 30, 30));
      QFont font = item->font();
      font.setBold(true);
      item->setFont(font);
    }
    table_->setItem(row, column, item);
  }
}

void CompareView::fillTable() {
  filling_ = true;
  const QSignalBlocker block(table_);
  const std::optional<qa::RunComparison>& c = model_.comparison();
  const qa::Tolerance tolerance = model_.tolerances()[model_.accuracyClass()];
  const int cnrRows = c && !c->cnr.empty() ? static_cast<int>(c->cnr.size()) : 1;
  table_->setRowCount(kFirstCnrRow + cnrRows);
  const QString pending = model_.firstFiguresPending() ? tr("computing…") : QString();
  const auto value = [&](double v, int digits = 4) { return c ? number(v, digits) : pending; };
  const bool judged = model_.informative().isEmpty();
  const auto verdictOf = [&](bool ok) {
    return c && judged ? (ok ? tr("pass") : tr("FAIL")) : QString();
  };
  const metrics::ComparisonMetrics m = c ? c->metrics : metrics::ComparisonMetrics{};
  setTableRow(MaxAbs, tr("max |A − B|"), value(m.maxAbsDifference));
  setTableRow(Nrmse, tr("NRMSE"), value(m.nrmse), limitText(tolerance.maxNrmse),
              verdictOf(m.nrmse <= tolerance.maxNrmse), true);
  setTableRow(MaxAbsRelative, tr("max |A − B| / range(B)"), value(c ? c->maxAbsRelative : 0),
              limitText(tolerance.maxAbsRelative),
              verdictOf(c && c->maxAbsRelative <= tolerance.maxAbsRelative), true);
  setTableRow(Psnr, tr("PSNR"), c ? tr("%1 dB").arg(number(m.psnrDb)) : pending);
  QString ssim = pending;
  if (c) ssim = m.ssim ? number(*m.ssim, 6) : (model_.ssimPending() ? tr("computing…") : tr("—"));
  setTableRow(Ssim, tr("SSIM"), ssim);
  setTableRow(Bias, tr("mean bias (A − B)"), value(m.meanDifference));
  setTableRow(Rmse, tr("RMSE"), value(m.rmse));
  if (c && !c->cnr.empty()) {
    for (std::size_t i = 0; i < c->cnr.size(); ++i) {
      const qa::RoiCnr& r = c->cnr[i];
      setTableRow(kFirstCnrRow + static_cast<int>(i),
                  tr("CNR %1").arg(QString::fromStdString(r.name)),
                  tr("A %1 · B %2").arg(number(r.cnrTest, 3), number(r.cnrReference, 3)));
    }
  } else {
    const bool signal = std::any_of(rois_.begin(), rois_.end(), [](const render::SliceRoi& r) {
      return r.role == render::SliceRoi::Signal;
    });
    setTableRow(kFirstCnrRow, tr("CNR"),
                rois_.empty() ? tr("no ROIs")
                : signal      ? tr("no background ROI here")
                              : tr("no signal ROI"));
    table_->item(kFirstCnrRow, Value)
        ->setToolTip(tr("Draw signal and background ROIs on the slice views (Back to views, the "
                        "ROI tools of the view toolbar): each signal ROI gets a CNR row here"));
  }
  // The verdict above the table.
  QString text, colour;
  if (!model_.problem().isEmpty()) {
    text = tr("No comparison");
    colour = QStringLiteral("#777777");
  } else if (const auto v = model_.verdict(); v && v->informative) {
    // No pass / fail between different reconstructions: grey, never the red of a failure.
    const QString why = model_.informative();
    text = tr("<b>Informative</b>: no pass or fail. %1")
               .arg((why.left(1).toUpper() + why.mid(1)).toHtmlEscaped());
    colour = QStringLiteral("#5a6270");
  } else if (const auto v = model_.verdict()) {
    // "pass (exact): NRMSE ..." under a bold PASS: the word once.
    const QString detail = v->text.section(QLatin1Char(' '), 1);
    text = QStringLiteral("<b>%1</b> %2")
               .arg(v->passed ? tr("PASS") : tr("FAIL"), detail.toHtmlEscaped());
    colour = v->passed ? QStringLiteral("#1e7b34") : QStringLiteral("#b3261e");
  } else if (model_.firstFiguresPending()) {
    text = tr("Comparing…");
    colour = QStringLiteral("#777777");
  } else {
    text = tr("Choose A and B");
    colour = QStringLiteral("#777777");
  }
  verdict_->setText(text);
  verdict_->setStyleSheet(
      QStringLiteral("QLabel { background: %1; color: white; padding: 6px; }").arg(colour));
  QStringList notes;
  if (!commonGridNote_.isEmpty()) notes << commonGridNote_;
  if (c) {
    notes << tr("%1 voxels, B from %2 to %3")
                 .arg(m.voxelCount)
                 .arg(number(m.referenceMin), number(m.referenceMax));
    if (m.nonFiniteCount > 0) notes << tr("%1 NaN or infinite differences").arg(m.nonFiniteCount);
  }
  if (model_.ssimPending() && c) notes << tr("SSIM is being computed; the rest is final.");
  status_->setText(notes.join(QStringLiteral("\n")));
  filling_ = false;
}

void CompareView::onLimitEdited(QTableWidgetItem* item) {
  if (filling_ || item == nullptr || item->column() != Limit) return;
  const int row = item->row();
  if (row != Nrmse && row != MaxAbsRelative) return;
  const qa::AccuracyClass c = model_.accuracyClass();
  qa::Tolerance t = model_.tolerances()[c];
  const std::optional<double> v = parseLimit(item->text());
  QString error;
  if (!v) {
    error = tr("'%1' is not a number").arg(item->text());
  } else {
    (row == Nrmse ? t.maxNrmse : t.maxAbsRelative) = *v;
    try {
      model_.setTolerance(c, t);
      QSettings settings;
      saveToleranceTable(settings, model_.tolerances());
      emit statusMessage(
          tr("Tolerance of the %1 class: NRMSE <= %2, max-abs relative <= %3")
              .arg(accuracyClassLabel(c), limitText(t.maxNrmse), limitText(t.maxAbsRelative)),
          6000);
    } catch (const std::exception& e) {
      error = QString::fromStdString(e.what());
    }
  }
  if (!error.isEmpty()) {
    emit statusMessage(tr("Limit not changed: %1").arg(error), 8000);
    QMetaObject::invokeMethod(
        this, [this] { fillTable(); }, Qt::QueuedConnection);
  }
}

bool CompareView::editLimit(Row row, const QString& text) {
  QTableWidgetItem* item = table_->item(row, Limit);
  if (item == nullptr || !(item->flags() & Qt::ItemIsEditable)) return false;
  const qa::Tolerance before = model_.tolerances()[model_.accuracyClass()];
  item->setText(text);
  return !(model_.tolerances()[model_.accuracyClass()] == before);
}

QString CompareView::problemText() const {
  return banner_->isVisibleTo(this) ? banner_->text() : QString();
}

QString CompareView::verdictText() const {
  if (const auto v = model_.verdict()) {
    if (v->informative) return v->text;
    return (v->passed ? tr("PASS: ") : tr("FAIL: ")) + v->text;
  }
  return {};
}

QString CompareView::cursorText() const {
  return cursor_->text();
}

void CompareView::updateHistogram() {
  const std::optional<qa::RunComparison>& c = model_.comparison();
  if (!c || c->histogram.counts.empty()) {
    histogramChart_->setSeriesData(kHistogramSeries, {}, {});
    return;
  }
  // Steps: each bin a flat top from its left edge to its right edge.
  const qa::DifferenceHistogram& h = c->histogram;
  const double w = h.binWidth();
  std::vector<double> x, y;
  x.reserve(2 * h.counts.size());
  y.reserve(2 * h.counts.size());
  for (std::size_t i = 0; i < h.counts.size(); ++i) {
    const double left = -h.halfRange + static_cast<double>(i) * w;
    const double height = std::log10(1.0 + static_cast<double>(h.counts[i]));
    x.push_back(left);
    y.push_back(height);
    x.push_back(left + w);
    y.push_back(height);
  }
  histogramChart_->setSeriesData(kHistogramSeries, x, y);
}

std::optional<render::CompareSliceView::Line> CompareView::profileLine() const {
  if (profileCombo_->currentIndex() == 1) return drawnLine_;
  const std::shared_ptr<const Volume>& a = views_->volumeA();
  if (!a) return std::nullopt;
  // The row through the crosshair: along the screen's x, at the crosshair's row (on a voxel
  // centre, so the samples are the voxels themselves).
  const render::CompareSliceView* v = views_->view(Which::A);
  const int right = v->rightAxis(), up = v->upAxis();
  const std::int64_t n[3] = {a->nx(), a->ny(), a->nz()};
  const Eigen::Vector3d crosshair = views_->crosshair();
  const double row =
      std::clamp<double>(std::round((crosshair[up] - a->originMm()[up]) / a->voxelSizeMm()[up]),
                         0.0, static_cast<double>(n[up] - 1));
  Eigen::Vector3d from = crosshair, to = crosshair;
  from[up] = to[up] = a->originMm()[up] + row * a->voxelSizeMm()[up];
  from[right] = a->originMm()[right];
  to[right] = a->originMm()[right] + (n[right] - 1) * a->voxelSizeMm()[right];
  return render::CompareSliceView::Line{from, to};
}

void CompareView::updateProfile() {
  const std::shared_ptr<const Volume>& a = views_->volumeA();
  const std::shared_ptr<const Volume>& b = views_->volumeB();
  const std::optional<render::CompareSliceView::Line> line = profileLine();
  views_->setProfileLine(line);
  if (!a || !b || a->shape() != b->shape() || !line) {
    for (const char* name : {"A", "B"}) profileChart_->setSeriesData(name, {}, {});
    profileDifferenceChart_->setSeriesData(QStringLiteral("A - B"), {}, {});
    return;
  }
  // On the slice shown.
  const render::CompareSliceView* v = views_->view(Which::A);
  Eigen::Vector3d from = line->first, to = line->second;
  from[v->axisIndex()] = to[v->axisIndex()] = v->slicePositionMm();
  const LineProfile p = lineProfile(*a, *b, from, to);
  // Distances in the unit the voxel size reads best in: nm for a tomogram, not 1e-5 mm.
  const LengthUnit unit = lengthUnitFor(a->voxelSizeMm().minCoeff());
  const QString axis = tr("distance along the line (%1)").arg(QString::fromStdString(symbol(unit)));
  profileChart_->setAxisTitles(axis, tr("value"));
  profileDifferenceChart_->setAxisTitles(axis, tr("A - B"));
  std::vector<double> x, ya, yb, xd, yd;
  for (std::size_t i = 0; i < p.distanceMm.size(); ++i) {
    if (std::isfinite(p.a[i]) && std::isfinite(p.b[i])) {
      x.push_back(p.distanceMm[i] / millimetresPer(unit));
      ya.push_back(p.a[i]);
      yb.push_back(p.b[i]);
      yd.push_back(p.difference[i]);
    }
  }
  xd = x;
  profileChart_->setSeriesData(QStringLiteral("A"), x, ya);
  profileChart_->setSeriesData(QStringLiteral("B"), x, yb);
  profileDifferenceChart_->setSeriesData(QStringLiteral("A - B"), xd, yd);
}

void CompareView::updateCursor(const Eigen::Vector3d& p) {
  const render::CompareSliceView* a = views_->view(Which::A);
  const render::CompareSliceView* b = views_->view(Which::B);
  const render::CompareSliceView* d = views_->view(Which::Difference);
  const float va = a->valueAt(p), vb = b->valueAt(p), vd = d->valueAt(p);
  cursor_->setText(tr("(%1, %2, %3) mm\nA %4   B %5\nA − B %6")
                       .arg(p.x(), 0, 'f', 2)
                       .arg(p.y(), 0, 'f', 2)
                       .arg(p.z(), 0, 'f', 2)
                       .arg(number(va, 6), number(vb, 6), number(vd, 3)));
}

}  // namespace tomowb::gui
