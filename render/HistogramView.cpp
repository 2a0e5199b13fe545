// HistogramView: see the header. vtkContextScene.h is included where the vtkContextView is made
// (reference/dependencies.md section 2: the context device override registers only then).
#include "render/HistogramView.h"

#include <vtkAxis.h>
#include <vtkChartXY.h>
#include <vtkContextScene.h>
#include <vtkContextView.h>
#include <vtkFloatArray.h>
#include <vtkGenericOpenGLRenderWindow.h>
#include <vtkGenericRenderWindowInteractor.h>
#include <vtkPen.h>
#include <vtkPlot.h>
#include <vtkRenderer.h>
#include <vtkTable.h>
#include <vtkTextProperty.h>

#include <algorithm>
#include <cmath>

#include "render/EventTrace.h"

namespace tomowb::render {

namespace {

vtkSmartPointer<vtkTable> makeTable(int rows) {
  auto table = vtkSmartPointer<vtkTable>::New();
  for (const char* name : {"value", "log10(1 + count)"}) {
    vtkNew<vtkFloatArray> column;
    column->SetName(name);
    table->AddColumn(column);
  }
  table->SetNumberOfRows(rows);
  for (int r = 0; r < rows; ++r) {
    table->SetValue(r, 0, 0.0);
    table->SetValue(r, 1, 0.0);
  }
  return table;
}

}  // namespace

HistogramView::HistogramView(QWidget* parent) : VtkOpenGLWidget(parent) {
  view_ = vtkSmartPointer<vtkContextView>::New();
  view_->SetRenderWindow(renderWindow());
  view_->GetRenderer()->SetBackground(0.1, 0.1, 0.12);
  // Display only: the context style's timers would keep re-rendering (see ChartView.cpp).
  interactor()->SetInteractorStyle(nullptr);
  renderWindow()->RemoveRenderer(renderer());
  chart_ = vtkSmartPointer<vtkChartXY>::New();
  chart_->SetShowLegend(false);
  view_->GetScene()->AddItem(chart_);
  for (int a : {vtkAxis::LEFT, vtkAxis::BOTTOM}) {
    vtkAxis* axis = chart_->GetAxis(a);
    axis->SetTitle("");
    axis->GetLabelProperties()->SetColor(0.85, 0.85, 0.85);
    axis->GetLabelProperties()->SetFontSize(10);
    axis->GetPen()->SetColor(180, 180, 180);
    axis->SetGridVisible(false);
  }
  chart_->GetAxis(vtkAxis::LEFT)->SetLabelsVisible(false);

  histogram_ = makeTable(kBins);
  vtkPlot* bars = chart_->AddPlot(vtkChart::LINE);
  bars->SetInputData(histogram_, 0, 1);
  bars->SetColor(140, 190, 255, 255);
  bars->SetWidth(1.5);
  lowerLine_ = makeTable(2);
  upperLine_ = makeTable(2);
  for (vtkTable* line : {lowerLine_.Get(), upperLine_.Get()}) {
    vtkPlot* plot = chart_->AddPlot(vtkChart::LINE);
    plot->SetInputData(line, 0, 1);
    plot->SetColor(255, 200, 50, 255);
    plot->SetWidth(2.0);
  }
  setMinimumSize(160, 48);  // short: the slice views above it win the height (ViewArea)
}

HistogramView::~HistogramView() = default;

void HistogramView::setVolume(const std::shared_ptr<const Volume>& volume) {
  setStatistics(volume ? computeStatistics(volume->voxels(), kBins) : VolumeStatistics{});
}

void HistogramView::setStatistics(const VolumeStatistics& statistics) {
  const render::EventTrace::Scope traced("HistogramView::setStatistics");
  statistics_ = statistics;
  const int bins = static_cast<int>(statistics_.counts.size());
  histogram_->SetNumberOfRows(std::max(bins, 1));
  double top = 1.0;
  for (int i = 0; i < bins; ++i) {
    const double y = std::log10(1.0 + static_cast<double>(statistics_.counts[i]));
    histogram_->SetValue(i, 0, statistics_.min + (i + 0.5) * statistics_.binWidth);
    histogram_->SetValue(i, 1, y);
    top = std::max(top, y);
  }
  if (bins == 0) {
    histogram_->SetValue(0, 0, 0.0);
    histogram_->SetValue(0, 1, 0.0);
  }
  histogram_->Modified();
  vtkAxis* left = chart_->GetAxis(vtkAxis::LEFT);
  left->SetBehavior(vtkAxis::FIXED);
  left->SetRange(0.0, top * 1.05);
  vtkAxis* bottom = chart_->GetAxis(vtkAxis::BOTTOM);
  bottom->SetBehavior(vtkAxis::FIXED);
  const double lo = statistics_.min, hi = statistics_.max > lo ? statistics_.max : lo + 1.0;
  bottom->SetRange(lo - 0.02 * (hi - lo), hi + 0.02 * (hi - lo));
  updateWindowLines();
}

void HistogramView::setWindowLevel(double window, double level) {
  windowLevel_ = {window, level};
  updateWindowLines();
}

void HistogramView::updateWindowLines() {
  const double top = chart_->GetAxis(vtkAxis::LEFT)->GetMaximum();
  for (auto [table, x] : {std::pair{lowerLine_.Get(), windowLevel_.lower()},
                          std::pair{upperLine_.Get(), windowLevel_.upper()}}) {
    table->SetValue(0, 0, x);
    table->SetValue(0, 1, 0.0);
    table->SetValue(1, 0, x);
    table->SetValue(1, 1, top);
    table->Modified();
  }
  chart_->Modified();
  requestRender();
}

}  // namespace tomowb::render
