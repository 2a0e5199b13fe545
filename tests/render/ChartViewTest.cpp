// ChartView: series reach the screen in their colours, live points are coalesced into a few
// redraws, the palette decides the colours, and the CSV/PNG exports are exact and atomic.
#include <gtest/gtest.h>

#include <QApplication>
#include <QDir>
#include <QFile>
#include <QImage>
#include <QPalette>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <cmath>

#include "render/ChartView.h"

namespace tomowb::render {
namespace {

// Pixels within `tolerance` (per channel) of `colour`.
int pixelsNear(const QImage& image, const QColor& colour, int tolerance = 40) {
  int count = 0;
  for (int y = 0; y < image.height(); ++y)
    for (int x = 0; x < image.width(); ++x) {
      const QColor c = image.pixelColor(x, y);
      if (std::abs(c.red() - colour.red()) <= tolerance &&
          std::abs(c.green() - colour.green()) <= tolerance &&
          std::abs(c.blue() - colour.blue()) <= tolerance)
        ++count;
    }
  return count;
}

QString readAll(const QString& path) {
  QFile file(path);
  if (!file.open(QIODevice::ReadOnly)) return {};
  return QString::fromUtf8(file.readAll());
}

void showAndWait(ChartView& chart) {
  chart.resize(480, 320);
  chart.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&chart));
}

TEST(ChartView, DrawsEachSeriesInItsColour) {
  ChartView chart;
  chart.setAxisTitles("time (s)", "GUPS");
  chart.addSeries("sine");
  chart.addSeries("empty");
  std::vector<double> x, y;
  for (int i = 0; i <= 100; ++i) {
    x.push_back(i * 0.1);
    y.push_back(std::sin(i * 0.1));
  }
  chart.setSeriesData("sine", x, y);
  showAndWait(chart);
  const QImage image = chart.grabImage();
  image.save("/tmp/ChartViewTest-series.png");
  const QColor sine = chart.seriesColour("sine");
  const QColor empty = chart.seriesColour("empty");
  ASSERT_NE(sine, empty);
  // The legend draws a short sample of both; only the one with data draws a long curve.
  const int sinePixels = pixelsNear(image, sine);
  const int emptyPixels = pixelsNear(image, empty);
  EXPECT_GT(sinePixels, 300) << "the sine curve is missing";
  EXPECT_GT(sinePixels, emptyPixels + 250);
  // The background is the palette's base colour.
  EXPECT_EQ(image.pixelColor(2, 2).rgb(), chart.backgroundColour().rgb());
  EXPECT_EQ(chart.pointCount("sine"), 101);
  EXPECT_EQ(chart.pointCount("empty"), 0);
  EXPECT_EQ(chart.seriesNames(), (QStringList{"sine", "empty"}));
}

TEST(ChartView, DarkPaletteGivesDarkBackgroundAndLightSeriesColours) {
  ChartView chart;
  QPalette dark;
  dark.setColor(QPalette::Base, QColor("#202020"));
  dark.setColor(QPalette::Text, QColor("#e8e8e8"));
  chart.setPalette(dark);
  chart.setSeriesData("line", {0, 1, 2, 3}, {0, 3, 1, 2});
  showAndWait(chart);
  const QImage image = chart.grabImage();
  image.save("/tmp/ChartViewTest-dark.png");
  EXPECT_EQ(image.pixelColor(2, 2).rgb(), QColor("#202020").rgb());
  EXPECT_GT(chart.seriesColour("line").lightnessF(), 0.5);
  EXPECT_GT(pixelsNear(image, chart.seriesColour("line")), 200);
  EXPECT_GT(pixelsNear(image, QColor("#e8e8e8"), 30), 50) << "axis labels not in the text colour";
}

TEST(ChartView, LivePointsAreCoalescedIntoAFewRedraws) {
  ChartView chart;
  showAndWait(chart);
  (void)chart.grabImage();
  QSignalSpy rendered(&chart, &VtkOpenGLWidget::rendered);
  QElapsedTimer clock;
  clock.start();
  int i = 0;
  // 1000 points over about 600 ms, processing events between them as the GUI thread would.
  while (clock.elapsed() < 600 || i < 1000) {
    chart.appendPoint("live", i, std::sqrt(double(i)));
    ++i;
    QApplication::processEvents();
    if (i % 10 == 0) QTest::qWait(5);
  }
  QTest::qWait(2 * ChartView::kLiveRedrawIntervalMs);
  EXPECT_EQ(chart.pointCount("live"), i);
  const double seconds = clock.elapsed() / 1000.0;
  EXPECT_GE(rendered.count(), 1);
  // One redraw per interval at most, each followed by at most one more that the chart's
  // interactor style asks for after the axes changed.
  const double intervals = std::ceil(seconds * 1000.0 / ChartView::kLiveRedrawIntervalMs) + 1;
  EXPECT_LE(rendered.count(), 2 * intervals)
      << "redrew " << rendered.count() << " times for " << i << " points in " << seconds << " s";
  const QImage image = chart.grabImage();
  image.save("/tmp/ChartViewTest-live.png");
  EXPECT_GT(pixelsNear(image, chart.seriesColour("live")), 200);
}

TEST(ChartView, CsvHoldsEverySeriesExactly) {
  ChartView chart;
  chart.setAxisTitles("iteration", "CNR, insert 1");
  chart.setSeriesData("a", {0, 0.5, 1e-7}, {1.5, 0.1, -2});
  chart.appendPoint("b \"quoted\"", 3, 1.0 / 3.0);
  chart.addSeries("empty");
  EXPECT_EQ(chart.csvText(),
            "series,iteration,\"CNR, insert 1\"\n"
            "a,0,1.5\n"
            "a,0.5,0.1\n"
            "a,1e-07,-2\n"
            "\"b \"\"quoted\"\"\",3,0.3333333333333333\n");
  QTemporaryDir dir;
  ASSERT_TRUE(dir.isValid());
  const QString path = dir.filePath("chart.csv");
  QString error;
  ASSERT_TRUE(chart.exportCsv(path, &error)) << error.toStdString();
  EXPECT_EQ(readAll(path), chart.csvText());
}

TEST(ChartView, CsvExportReplacesTheWholeFileAndLeavesNoTemporary) {
  ChartView chart;
  chart.setSeriesData("s", {1, 2}, {3, 4});
  QTemporaryDir dir;
  const QString path = dir.filePath("out.csv");
  {
    QFile old(path);
    ASSERT_TRUE(old.open(QIODevice::WriteOnly));
    old.write(QByteArray(10000, 'x'));  // longer than the new content
  }
  ASSERT_TRUE(chart.exportCsv(path));
  EXPECT_EQ(readAll(path), "series,x,y\ns,1,3\ns,2,4\n");
  EXPECT_EQ(QDir(dir.path()).entryList(QDir::Files | QDir::Hidden), QStringList{"out.csv"});
}

TEST(ChartView, FailedExportsSayWhyAndCreateNothing) {
  ChartView chart;
  chart.setSeriesData("s", {1}, {2});
  QTemporaryDir dir;
  QString error;
  EXPECT_FALSE(chart.exportCsv(dir.filePath("missing/out.csv"), &error));
  EXPECT_TRUE(error.contains("missing/out.csv")) << error.toStdString();
  // A directory in the way: the export fails and the directory is untouched.
  ASSERT_TRUE(QDir(dir.path()).mkdir("taken"));
  error.clear();
  EXPECT_FALSE(chart.exportCsv(dir.filePath("taken"), &error));
  EXPECT_FALSE(error.isEmpty());
  EXPECT_TRUE(QFileInfo(dir.filePath("taken")).isDir());
  showAndWait(chart);
  EXPECT_FALSE(chart.exportPng(dir.filePath("missing/out.png"), &error));
  EXPECT_EQ(QDir(dir.path()).entryList(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden),
            QStringList{"taken"});
}

TEST(ChartView, PngExportIsWhatTheWidgetShows) {
  ChartView chart;
  chart.setTitle("GUPS");
  chart.setSeriesData("s", {0, 1, 2, 3, 4}, {1, 4, 2, 5, 3});
  showAndWait(chart);
  QTemporaryDir dir;
  const QString path = dir.filePath("chart.png");
  QString error;
  ASSERT_TRUE(chart.exportPng(path, &error)) << error.toStdString();
  const QImage image(path);
  ASSERT_FALSE(image.isNull());
  EXPECT_EQ(image.size(), chart.grabImage().size());
  EXPECT_GT(pixelsNear(image, chart.seriesColour("s")), 200);
}

TEST(ChartView, OnePointSeriesShowsItsMarker) {
  ChartView chart;
  chart.addSeries("CNR", ChartView::SeriesStyle::LineAndPoints);
  chart.appendPoint("CNR", 1, 2.5);
  showAndWait(chart);
  const QImage image = chart.grabImage();
  image.save("/tmp/ChartViewTest-onepoint.png");
  EXPECT_EQ(chart.pointCount("CNR"), 1);
  EXPECT_EQ(chart.csvText(), "series,x,y\nCNR,1,2.5\n");
  EXPECT_GT(pixelsNear(image, chart.seriesColour("CNR")), 20);  // the marker (and legend sample)
  chart.appendPoint("CNR", 2, 3.5);
  EXPECT_EQ(chart.xValues("CNR"), (std::vector<double>{1, 2}));
  EXPECT_EQ(chart.yValues("CNR"), (std::vector<double>{2.5, 3.5}));
}

TEST(ChartView, ClearRemovesEverySeries) {
  ChartView chart;
  chart.setSeriesData("a", {0, 1}, {0, 1});
  chart.appendPoint("b", 0, 1);
  chart.removeSeries("a");
  EXPECT_EQ(chart.seriesNames(), QStringList{"b"});
  chart.clear();
  EXPECT_TRUE(chart.seriesNames().isEmpty());
  EXPECT_EQ(chart.csvText(), "series,x,y\n");
  showAndWait(chart);
  const QImage image = chart.grabImage();
  EXPECT_FALSE(image.isNull());
}

}  // namespace
}  // namespace tomowb::render

namespace tomowb::render {
namespace {

// Rows holding the series' colour in the right half of the chart (where the decay is small).
int curveRowSpanInRightHalf(ChartView& chart, const QString& series) {
  chart.flush();
  const QImage image = chart.grabImage();
  const QColor colour = chart.seriesColour(series);
  int top = image.height(), bottom = -1;
  for (int y = 0; y < image.height(); ++y)
    for (int x = image.width() / 2; x < image.width() * 3 / 4; ++x) {
      const QColor c = image.pixelColor(x, y);
      if (std::abs(c.red() - colour.red()) <= 30 && std::abs(c.green() - colour.green()) <= 30 &&
          std::abs(c.blue() - colour.blue()) <= 30) {
        top = std::min(top, y);
        bottom = std::max(bottom, y);
      }
    }
  return bottom < 0 ? 0 : bottom - top;
}

TEST(ChartView, LogScaleSpreadsADecayOverTheHeight) {
  ChartView chart;
  chart.setLegendVisible(false);
  std::vector<double> x, y;
  for (int i = 1; i <= 100; ++i) {
    x.push_back(i);
    y.push_back(std::pow(10.0, -3.0 * (i - 1) / 99.0));  // 1 down to 1e-3
  }
  chart.setSeriesData("residual", x, y);
  showAndWait(chart);
  EXPECT_FALSE(chart.logScaleY());
  const int linear = curveRowSpanInRightHalf(chart, "residual");
  chart.setLogScaleY(true);
  EXPECT_TRUE(chart.logScaleY());
  QTest::qWait(50);
  const int logarithmic = curveRowSpanInRightHalf(chart, "residual");
  // Linear: the second half (3e-2 .. 1e-3) hugs the axis; log: it spans a quarter of the plot.
  EXPECT_LT(linear, chart.height() / 12) << "linear span " << linear;
  EXPECT_GT(logarithmic, chart.height() / 5) << "log span " << logarithmic;
}

// Issue #17: with every NRMSE 0 (drawn at a floor) or equal, the sweep chart's log axis read
// "2e-13" above "5e-13", and its time axis was labelled in log10 units (-1.42). Log axes now take
// the values themselves and label them in their units, over at least a decade.
TEST(ChartView, LogAxesOfEqualValuesHaveIncreasingTicksInTheValuesUnits) {
  ChartView chart;
  chart.setLogScaleX(true);
  chart.setLogScaleY(true);
  chart.setSeriesData("a", {0.0597}, {1e-12});
  chart.setSeriesData("b", {0.0597}, {1e-12});
  showAndWait(chart);
  for (bool y : {false, true}) {
    const QStringList labels = chart.logTickLabels(y);
    ASSERT_GE(labels.size(), 2) << (y ? "y" : "x");
    double previous = 0;
    for (const QString& l : labels) {
      bool ok = false;
      const double v = l.toDouble(&ok);
      EXPECT_TRUE(ok && v > previous) << l.toStdString();
      previous = v;
    }
    // The point lies inside the labelled range.
    const double value = y ? 1e-12 : 0.0597;
    EXPECT_LT(labels.front().toDouble(), value);
    EXPECT_GT(labels.back().toDouble(), value);
  }
  // The data keep their values (CSV, tests); only the drawing is logarithmic.
  EXPECT_EQ(chart.xValues("a").front(), 0.0597);
  chart.setLogScaleX(false);
  EXPECT_TRUE(chart.logTickLabels(false).isEmpty());
}

}  // namespace
}  // namespace tomowb::render
