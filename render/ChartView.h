// ChartView: an x-y line chart in our VTK widget (a vtkContextView with a vtkChartXY on the
// widget's render window, reference/dependencies.md section 3, step 7), for the live plots of the
// GUI: GUPS over a run, CNR per iteration. Series are named; appendPoint() is cheap and meant for
// live data: it redraws at most every kLiveRedrawIntervalMs, however often it is called. Colours
// follow the widget's QPalette (dark or light desktop themes) and change with it. The data can be
// saved as PNG (what the widget shows) and CSV (every series, exact values), each written to a
// temporary file renamed over the target on success, so a failed export leaves no partial file.
#pragma once

#include <vtkSmartPointer.h>

#include <QColor>
#include <QString>
#include <QStringList>
#include <QTimer>
#include <map>
#include <vector>

#include "render/VtkOpenGLWidget.h"

class vtkChartXY;
class vtkContextView;
class vtkDoubleArray;
class vtkPlot;
class vtkTable;

namespace tomowb::render {

class ChartView : public VtkOpenGLWidget {
  Q_OBJECT

 public:
  // At most this often a redraw for live points (a few frames per second, DESIGN.md).
  static constexpr int kLiveRedrawIntervalMs = 250;

  enum class SeriesStyle {
    Line,           // many points: a line only
    LineAndPoints,  // few points (one per iteration): a line with a marker on each
  };

  explicit ChartView(QWidget* parent = nullptr);
  ~ChartView() override;

  void setTitle(const QString& title);
  QString title() const { return title_; }
  void setAxisTitles(const QString& xTitle, const QString& yTitle);
  QString xAxisTitle() const { return xTitle_; }
  QString yAxisTitle() const { return yTitle_; }
  void setLegendVisible(bool visible);
  // The legend in the plot's top-left corner instead of its top-right one (curves that rise to the
  // right leave that corner free).
  void setLegendAtLeft(bool left);
  // Logarithmic axes (residuals over iterations, the sweep's time and error). The chart plots
  // log10 of the values itself, with the range and ticks of qa::logAxisFor: degenerate data (all
  // values equal, one point) still get at least a decade, and the tick labels read in the
  // values' own units ("0.05", "1e-12"). Values <= 0 are not drawn on a log axis.
  void setLogScaleX(bool logarithmic);
  void setLogScaleY(bool logarithmic);
  bool logScaleX() const { return logX_; }
  bool logScaleY() const { return logY_; }
  // The tick labels of a log axis as drawn (empty for a linear axis): tests, screenshots.
  QStringList logTickLabels(bool yAxis) const;

  // Adds an empty series; nothing happens if the name exists. An invalid colour picks the next
  // one of the palette's series colours (re-picked when the palette changes).
  void addSeries(const QString& name, SeriesStyle style = SeriesStyle::Line, QColor colour = {});
  // Replaces the points of a series (created with the defaults if missing). x and y must have
  // the same length.
  void setSeriesData(const QString& name, const std::vector<double>& x,
                     const std::vector<double>& y);
  // Appends one point (creates the series with the defaults if missing); redraw is deferred.
  void appendPoint(const QString& name, double x, double y);
  void removeSeries(const QString& name);
  // Applies pending live points now (before a screenshot of a parent widget).
  void flush();
  // Removes every series (titles stay).
  void clear();

  QStringList seriesNames() const;  // in the order they were added
  bool hasSeries(const QString& name) const { return find(name) != nullptr; }
  int pointCount(const QString& name) const;
  std::vector<double> xValues(const QString& name) const;
  std::vector<double> yValues(const QString& name) const;
  QColor seriesColour(const QString& name) const;
  QColor backgroundColour() const { return background_; }

  // "series,<x title>,<y title>" then one row per point, series by series, numbers in their
  // shortest exact form (std::to_chars). Fields with commas or quotes are quoted (RFC 4180).
  QString csvText() const;
  // Both write a temporary file beside `path` and rename it over `path` when complete. They
  // return false, leave any existing file untouched and say why in *error on failure.
  bool exportCsv(const QString& path, QString* error = nullptr) const;
  bool exportPng(const QString& path, QString* error = nullptr);

 protected:
  void changeEvent(QEvent* event) override;

 private:
  struct Series {
    QString name;
    SeriesStyle style = SeriesStyle::Line;
    QColor colour;
    bool autoColour = true;
    int colourIndex = 0;
    std::vector<double> xs, ys;  // the data; the table mirrors it (see syncTable)
    vtkSmartPointer<vtkTable> table;
    vtkSmartPointer<vtkDoubleArray> x, y;
    vtkPlot* plot = nullptr;  // owned by the chart
  };

  Series* find(const QString& name);
  const Series* find(const QString& name) const;
  Series& ensureSeries(const QString& name);
  void syncTable(Series& series);
  void applyPalette();
  void applySeriesColour(Series& series);
  void redrawNow();
  void scheduleLiveRedraw();
  void applyLogAxes();

  vtkSmartPointer<vtkContextView> view_;
  vtkSmartPointer<vtkChartXY> chart_;
  std::vector<Series> series_;
  int nextColourIndex_ = 0;
  QString title_, xTitle_, yTitle_;
  bool logX_ = false, logY_ = false;
  QStringList logTicksX_, logTicksY_;
  QColor background_;
  QTimer liveRedraw_;
};

}  // namespace tomowb::render
