// The chart is a vtkChartXY in a vtkContextView whose renderer is moved onto the widget's render
// window; each series is a two-column vtkTable (x, y) feeding one vtkPlot. Including
// vtkContextScene.h here registers the OpenGL context device (the autoinit caveat of
// reference/dependencies.md, section 2).
#include "render/ChartView.h"

#include <vtkAxis.h>
#include <vtkBrush.h>
#include <vtkChartLegend.h>
#include <vtkChartXY.h>
#include <vtkCommand.h>
#include <vtkContextScene.h>
#include <vtkContextView.h>
#include <vtkDoubleArray.h>
#include <vtkGenericOpenGLRenderWindow.h>
#include <vtkPen.h>
#include <vtkPlot.h>
#include <vtkPlotPoints.h>
#include <vtkRenderer.h>
#include <vtkStringArray.h>
#include <vtkTable.h>
#include <vtkTextProperty.h>

#include <QEvent>
#include <QImage>
#include <QPalette>
#include <QSaveFile>
#include <algorithm>
#include <array>
#include <cassert>
#include <charconv>
#include <cmath>
#include <limits>

#include "recon/qa/LogAxis.h"

namespace tomowb::render {
namespace {

// Series colours that stay distinct on either background: Tableau 10 on light themes, a lighter
// set of the same hues on dark ones (the dark set keeps >= 4.5:1 contrast on #202020).
constexpr std::array<const char*, 8> kLightThemeColours = {
    "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f"};
constexpr std::array<const char*, 8> kDarkThemeColours = {
    "#4fc3f7", "#ffb74d", "#81c784", "#e57373", "#ce93d8", "#bcaaa4", "#f48fb1", "#e0e0e0"};

bool isDark(const QColor& background) {
  return background.lightnessF() < 0.5;
}

QString csvField(const QString& text) {
  if (!text.contains(',') && !text.contains('"') && !text.contains('\n')) return text;
  QString quoted = text;
  quoted.replace('"', "\"\"");
  return '"' + quoted + '"';
}

QString shortest(double value) {
  std::array<char, 32> buffer{};
  const auto [end, ec] = std::to_chars(buffer.data(), buffer.data() + buffer.size(), value);
  assert(ec == std::errc());
  return QString::fromLatin1(buffer.data(), static_cast<int>(end - buffer.data()));
}

// Log axes plot log10 of the values (the axis labels say the values); <= 0 is not drawn.
double plottedValue(double v, bool logarithmic) {
  if (!logarithmic) return v;
  return v > 0 ? std::log10(v) : std::numeric_limits<double>::quiet_NaN();
}

void setTextColour(vtkTextProperty* text, const QColor& colour) {
  text->SetColor(colour.redF(), colour.greenF(), colour.blueF());
}

}  // namespace

ChartView::ChartView(QWidget* parent) : VtkOpenGLWidget(parent) {
  view_ = vtkSmartPointer<vtkContextView>::New();
  view_->SetRenderWindow(renderWindow());
  chart_ = vtkSmartPointer<vtkChartXY>::New();
  chart_->SetShowLegend(true);
  chart_->SetIgnoreNanInBounds(true);
  chart_->GetLegend()->SetHorizontalAlignment(vtkChartLegend::RIGHT);
  chart_->GetLegend()->SetVerticalAlignment(vtkChartLegend::TOP);
  view_->GetScene()->AddItem(chart_);
  setAxisTitles({}, {});  // VTK's defaults are "X Axis" and "Y Axis"
  // The widget's own renderer would only clear the window under the chart's.
  renderWindow()->RemoveRenderer(renderer());
  liveRedraw_.setSingleShot(true);
  liveRedraw_.setInterval(kLiveRedrawIntervalMs);
  connect(&liveRedraw_, &QTimer::timeout, this, &ChartView::redrawNow);
  setMinimumSize(200, 150);
  applyPalette();
}

ChartView::~ChartView() = default;

void ChartView::setTitle(const QString& title) {
  title_ = title;
  chart_->SetTitle(title.toStdString());
  requestRender();
}

void ChartView::setAxisTitles(const QString& xTitle, const QString& yTitle) {
  xTitle_ = xTitle;
  yTitle_ = yTitle;
  chart_->GetAxis(vtkAxis::BOTTOM)->SetTitle(xTitle.toStdString());
  chart_->GetAxis(vtkAxis::LEFT)->SetTitle(yTitle.toStdString());
  for (Series& s : series_) {
    s.x->SetName(xTitle.isEmpty() ? "x" : xTitle.toUtf8().constData());
    s.y->SetName(s.name.toUtf8().constData());
  }
  requestRender();
}

void ChartView::setLegendVisible(bool visible) {
  chart_->SetShowLegend(visible);
  requestRender();
}

void ChartView::setLegendAtLeft(bool left) {
  chart_->GetLegend()->SetHorizontalAlignment(left ? vtkChartLegend::LEFT : vtkChartLegend::RIGHT);
  requestRender();
}

void ChartView::setLogScaleX(bool logarithmic) {
  logX_ = logarithmic;
  for (Series& s : series_) syncTable(s);
  redrawNow();
}

void ChartView::setLogScaleY(bool logarithmic) {
  logY_ = logarithmic;
  for (Series& s : series_) syncTable(s);
  redrawNow();
}

QStringList ChartView::logTickLabels(bool yAxis) const {
  return yAxis ? logTicksY_ : logTicksX_;
}

void ChartView::applyLogAxes() {
  const auto apply = [this](int which, bool logarithmic, bool yAxis, QStringList& labelsOut) {
    vtkAxis* axis = chart_->GetAxis(which);
    labelsOut.clear();
    if (!logarithmic) {
      axis->SetCustomTickPositions(nullptr);
      axis->SetBehavior(vtkAxis::AUTO);
      return;
    }
    std::vector<double> values;
    for (const Series& s : series_) {
      const std::vector<double>& v = yAxis ? s.ys : s.xs;
      values.insert(values.end(), v.begin(), v.end());
    }
    const qa::LogAxis range = qa::logAxisFor(values);
    auto positions = vtkSmartPointer<vtkDoubleArray>::New();
    auto labels = vtkSmartPointer<vtkStringArray>::New();
    for (std::size_t i = 0; i < range.ticks.size(); ++i) {
      positions->InsertNextValue(std::log10(range.ticks[i]));
      labels->InsertNextValue(range.labels[i]);
      labelsOut << QString::fromStdString(range.labels[i]);
    }
    axis->SetBehavior(vtkAxis::FIXED);
    axis->SetRange(std::log10(range.lo), std::log10(range.hi));
    axis->SetCustomTickPositions(positions, labels);
  };
  apply(vtkAxis::BOTTOM, logX_, false, logTicksX_);
  apply(vtkAxis::LEFT, logY_, true, logTicksY_);
}

void ChartView::addSeries(const QString& name, SeriesStyle style, QColor colour) {
  if (find(name)) return;
  Series s;
  s.name = name;
  s.style = style;
  s.autoColour = !colour.isValid();
  s.colour = colour;
  s.colourIndex = nextColourIndex_++;
  s.x = vtkSmartPointer<vtkDoubleArray>::New();
  s.x->SetName(xTitle_.isEmpty() ? "x" : xTitle_.toUtf8().constData());
  s.y = vtkSmartPointer<vtkDoubleArray>::New();
  s.y->SetName(name.toUtf8().constData());
  s.table = vtkSmartPointer<vtkTable>::New();
  s.table->AddColumn(s.x);
  s.table->AddColumn(s.y);
  s.plot = chart_->AddPlot(vtkChart::LINE);
  s.plot->SetInputData(s.table, 0, 1);
  s.plot->SetLabel(name.toStdString());
  s.plot->SetWidth(2.0f);
  if (auto* points = vtkPlotPoints::SafeDownCast(s.plot)) {
    points->SetMarkerStyle(style == SeriesStyle::LineAndPoints ? vtkPlotPoints::CIRCLE
                                                               : vtkPlotPoints::NONE);
    points->SetMarkerSize(7.0f);
  }
  applySeriesColour(s);
  syncTable(s);
  series_.push_back(std::move(s));
  requestRender();
}

void ChartView::setSeriesData(const QString& name, const std::vector<double>& x,
                              const std::vector<double>& y) {
  assert(x.size() == y.size());
  Series& s = ensureSeries(name);
  const std::size_t count = std::min(x.size(), y.size());
  s.xs.assign(x.begin(), x.begin() + static_cast<std::ptrdiff_t>(count));
  s.ys.assign(y.begin(), y.begin() + static_cast<std::ptrdiff_t>(count));
  syncTable(s);
  redrawNow();
}

void ChartView::appendPoint(const QString& name, double x, double y) {
  Series& s = ensureSeries(name);
  s.xs.push_back(x);
  s.ys.push_back(y);
  if (s.xs.size() <= 2) {
    syncTable(s);  // the one-point stand-in becomes real
  } else {
    s.x->InsertNextValue(plottedValue(x, logX_));
    s.y->InsertNextValue(plottedValue(y, logY_));
    s.table->Modified();
  }
  scheduleLiveRedraw();
}

void ChartView::removeSeries(const QString& name) {
  for (auto it = series_.begin(); it != series_.end(); ++it) {
    if (it->name != name) continue;
    chart_->RemovePlotInstance(it->plot);
    series_.erase(it);
    redrawNow();
    return;
  }
}

void ChartView::clear() {
  chart_->ClearPlots();
  series_.clear();
  nextColourIndex_ = 0;
  liveRedraw_.stop();
  redrawNow();
}

QStringList ChartView::seriesNames() const {
  QStringList names;
  for (const Series& s : series_) names << s.name;
  return names;
}

int ChartView::pointCount(const QString& name) const {
  const Series* s = find(name);
  return s ? static_cast<int>(s->xs.size()) : 0;
}

std::vector<double> ChartView::xValues(const QString& name) const {
  const Series* s = find(name);
  return s ? s->xs : std::vector<double>{};
}

std::vector<double> ChartView::yValues(const QString& name) const {
  const Series* s = find(name);
  return s ? s->ys : std::vector<double>{};
}

QColor ChartView::seriesColour(const QString& name) const {
  const Series* s = find(name);
  return s ? s->colour : QColor();
}

QString ChartView::csvText() const {
  QString text = "series," + csvField(xTitle_.isEmpty() ? QStringLiteral("x") : xTitle_) + ',' +
                 csvField(yTitle_.isEmpty() ? QStringLiteral("y") : yTitle_) + '\n';
  for (const Series& s : series_) {
    const QString name = csvField(s.name);
    for (std::size_t i = 0; i < s.xs.size(); ++i) {
      text += name + ',' + shortest(s.xs[i]) + ',' + shortest(s.ys[i]) + '\n';
    }
  }
  return text;
}

bool ChartView::exportCsv(const QString& path, QString* error) const {
  QSaveFile file(path);
  if (!file.open(QIODevice::WriteOnly)) {
    if (error) *error = path + ": " + file.errorString();
    return false;
  }
  const QByteArray bytes = csvText().toUtf8();
  if (file.write(bytes) != bytes.size() || !file.commit()) {
    if (error) *error = path + ": " + file.errorString();
    return false;
  }
  return true;
}

bool ChartView::exportPng(const QString& path, QString* error) {
  redrawNow();
  const QImage image = grabImage();
  QSaveFile file(path);
  if (image.isNull()) {
    if (error) *error = path + ": the chart could not be drawn";
    return false;
  }
  if (!file.open(QIODevice::WriteOnly)) {
    if (error) *error = path + ": " + file.errorString();
    return false;
  }
  if (!image.save(&file, "PNG") || !file.commit()) {
    if (error) *error = path + ": " + file.errorString();
    return false;
  }
  return true;
}

void ChartView::changeEvent(QEvent* event) {
  VtkOpenGLWidget::changeEvent(event);
  if (event->type() == QEvent::PaletteChange || event->type() == QEvent::StyleChange) {
    applyPalette();
  }
}

ChartView::Series* ChartView::find(const QString& name) {
  for (Series& s : series_)
    if (s.name == name) return &s;
  return nullptr;
}

const ChartView::Series* ChartView::find(const QString& name) const {
  for (const Series& s : series_)
    if (s.name == name) return &s;
  return nullptr;
}

ChartView::Series& ChartView::ensureSeries(const QString& name) {
  if (Series* s = find(name)) return *s;
  addSeries(name);
  return series_.back();
}

void ChartView::applyPalette() {
  const QPalette& p = palette();
  background_ = p.color(QPalette::Base);
  const QColor text = p.color(QPalette::Text);
  // Grid lines: a quarter of the way from the background to the text.
  const QColor grid = QColor::fromRgbF(0.75f * background_.redF() + 0.25f * text.redF(),
                                       0.75f * background_.greenF() + 0.25f * text.greenF(),
                                       0.75f * background_.blueF() + 0.25f * text.blueF());
  view_->GetRenderer()->SetBackground(background_.redF(), background_.greenF(),
                                      background_.blueF());
  chart_->GetBackgroundBrush()->SetColorF(background_.redF(), background_.greenF(),
                                          background_.blueF(), 1.0);
  setTextColour(chart_->GetTitleProperties(), text);
  for (int axis : {vtkAxis::LEFT, vtkAxis::BOTTOM}) {
    vtkAxis* a = chart_->GetAxis(axis);
    setTextColour(a->GetTitleProperties(), text);
    setTextColour(a->GetLabelProperties(), text);
    a->GetPen()->SetColorF(text.redF(), text.greenF(), text.blueF());
    a->GetGridPen()->SetColorF(grid.redF(), grid.greenF(), grid.blueF());
  }
  vtkChartLegend* legend = chart_->GetLegend();
  setTextColour(legend->GetLabelProperties(), text);
  legend->GetBrush()->SetColorF(background_.redF(), background_.greenF(), background_.blueF(),
                                0.85);
  legend->GetPen()->SetColorF(grid.redF(), grid.greenF(), grid.blueF());
  for (Series& s : series_) applySeriesColour(s);
  requestRender();
}

void ChartView::applySeriesColour(Series& series) {
  if (series.autoColour) {
    const auto& colours = isDark(background_) ? kDarkThemeColours : kLightThemeColours;
    series.colour = QColor(colours[static_cast<std::size_t>(series.colourIndex) % colours.size()]);
  }
  series.plot->SetColor(static_cast<unsigned char>(series.colour.red()),
                        static_cast<unsigned char>(series.colour.green()),
                        static_cast<unsigned char>(series.colour.blue()), 255);
}

// vtkPlotLine logs an error for every paint of a line with fewer than two points: an empty
// series is hidden (and leaves the legend), a single point is drawn as a zero-length line
// (its marker shows for LineAndPoints).
void ChartView::syncTable(Series& series) {
  const std::size_t count = series.xs.size();
  const auto rows = static_cast<vtkIdType>(count == 1 ? 2 : count);
  series.x->SetNumberOfValues(rows);
  series.y->SetNumberOfValues(rows);
  for (vtkIdType i = 0; i < rows; ++i) {
    const std::size_t source = std::min(static_cast<std::size_t>(i), count - 1);
    series.x->SetValue(i, plottedValue(series.xs[source], logX_));
    series.y->SetValue(i, plottedValue(series.ys[source], logY_));
  }
  series.x->Modified();
  series.y->Modified();
  series.table->Modified();
  series.plot->SetVisible(count > 0);
}

void ChartView::redrawNow() {
  liveRedraw_.stop();
  applyLogAxes();
  chart_->RecalculateBounds();
  requestRender();
}

void ChartView::flush() {
  if (liveRedraw_.isActive()) redrawNow();
}

void ChartView::scheduleLiveRedraw() {
  if (!liveRedraw_.isActive()) liveRedraw_.start();
}

}  // namespace tomowb::render
