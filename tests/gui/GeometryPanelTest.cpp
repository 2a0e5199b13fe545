// GeometryPanel and ConsistencyView: the form gives the builders' geometry, JSON export/import
// round-trips the form, Apply keeps the data's shape, and the consistency overlay finds a 5 mm
// detector offset error and a flipped rotation sense in the demo-like data. Set
// TOMOWB_SCREENSHOT_DIR to keep pictures of both.
#include <gtest/gtest.h>

#include <QLabel>
#include <QSignalSpy>
#include <QTest>
#include <cstdlib>
#include <memory>

#include "gui/ConsistencyView.h"
#include "gui/GeometryPanel.h"
#include "gui/WeightProfileWidget.h"
#include "gui/core/Workspace.h"
#include "recon/phantom/AnalyticProjector.h"
#include "render/GeometryScene.h"
#include "support/TestSupport.h"

namespace tomowb::gui {
namespace {

GeometryForm demoForm() {
  GeometryForm f;
  f.sourceToIsocentreMm = 300;
  f.sourceToDetectorMm = 600;
  f.viewCount = 36;
  f.cols = 96;
  f.rows = 80;
  f.pitchUMm = f.pitchVMm = 2.0;
  return f;
}

void keep(QWidget& widget, const char* name) {
  if (const char* dir = std::getenv("TOMOWB_SCREENSHOT_DIR"))
    widget.grab().save(QString::fromUtf8(dir) + "/" + name);
}

// The demo: modified Shepp-Logan head scanned with demoForm().
void loadDemo(Workspace& ws) {
  auto head = std::make_shared<phantom::Phantom>(phantom::modifiedSheppLogan3d(40.0));
  auto data =
      std::make_shared<ProjectionStack>(phantom::projectPhantom(*head, buildGeometry(demoForm())));
  ws.setProjections(data, QStringLiteral("demo"));
  ws.setPhantom(head, QStringLiteral("Shepp-Logan"));
}

TEST(GeometryPanel, FormGivesTheBuildersGeometry) {
  Workspace ws;
  GeometryPanel panel(ws);
  GeometryForm f = demoForm();
  f.offsetUMm = 3.5;
  f.tiltDeg = 1.0;
  f.clockwise = true;
  panel.setForm(f);
  panel.rebuildNow();
  EXPECT_EQ(panel.form(), f);
  ASSERT_TRUE(panel.editedGeometry());
  EXPECT_EQ(*panel.editedGeometry(), buildGeometry(f));

  GeometryForm t;
  t.scanType = ScanType::TiltSeries;
  t.cols = 64;
  t.rows = 50;
  panel.setForm(t);
  panel.rebuildNow();
  EXPECT_EQ(panel.form().cols, 64);
  EXPECT_EQ(*panel.editedGeometry(), buildGeometry(t));

  GeometryForm bad = demoForm();
  bad.sourceToDetectorMm = 200;
  panel.setForm(bad);
  panel.rebuildNow();
  EXPECT_NE(panel.formError().indexOf("sourceToDetectorMm"), -1) << panel.formError().toStdString();
}

TEST(GeometryPanel, JsonExportImportRoundTrip) {
  const test::TempDir dir;
  Workspace ws;
  GeometryPanel panel(ws);
  GeometryForm f = demoForm();
  f.scanType = ScanType::ShortScan;
  f.offsetVMm = -4;
  panel.setForm(f);
  const QString path = QString::fromStdString((dir / "g.json").string());
  QString error;
  ASSERT_TRUE(panel.exportJson(path, &error)) << error.toStdString();
  panel.setForm(demoForm());
  ASSERT_TRUE(panel.importJson(path, &error)) << error.toStdString();
  EXPECT_EQ(panel.form(), f);
  EXPECT_EQ(*panel.editedGeometry(), buildGeometry(f));
  EXPECT_FALSE(panel.importJson(QString::fromStdString((dir / "missing.json").string()), &error));
  EXPECT_NE(error.indexOf("missing.json"), -1) << error.toStdString();
}

TEST(GeometryPanel, ApplyKeepsTheDataShapeAndShowsWarnings) {
  Workspace ws;
  loadDemo(ws);
  GeometryPanel panel(ws);
  panel.resize(420, 900);
  panel.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&panel));
  // The demo's geometry is recognised and shown in the form.
  EXPECT_EQ(panel.form(), demoForm());
  GeometryForm wrong = demoForm();
  wrong.viewCount = 40;
  panel.setForm(wrong);
  QString error;
  EXPECT_FALSE(panel.apply(&error));
  EXPECT_NE(error.indexOf("40 views"), -1) << error.toStdString();
  GeometryForm offset = demoForm();
  offset.offsetUMm = 80;  // half fan: FDK needs offset weights
  panel.setForm(offset);
  ASSERT_TRUE(panel.apply(&error)) << error.toStdString();
  EXPECT_EQ(*ws.geometry(), buildGeometry(offset));
  EXPECT_NE(panel.warnings().join("\n").indexOf("Offset detector"), -1)
      << panel.warnings().join("\n").toStdString();
  EXPECT_NE(panel.warnings().join("\n").indexOf("Truncation"), -1);
  // The algorithm panel's weights: Auto is fine, none is a warning that names the choice.
  const QString missing = QStringLiteral("redundancy weights are");
  EXPECT_EQ(panel.warnings().join("\n").indexOf(missing), -1);
  panel.setRedundancyMode(fdk::RedundancyMode::None);
  EXPECT_NE(panel.warnings().join("\n").indexOf(missing), -1)
      << panel.warnings().join("\n").toStdString();
  panel.setRedundancyMode(fdk::RedundancyMode::OffsetDetector);
  EXPECT_EQ(panel.warnings().join("\n").indexOf(missing), -1);
  EXPECT_FALSE(panel.weightProfile().values().empty());
  panel.setSelectedView(9);
  EXPECT_EQ(panel.scene().selectedView(), 9);
  keep(panel, "geometry-panel.png");
}

// An arc (cylindrical) detector from the data: the form shows and keeps the surface, Apply keeps
// it, and the warnings say FDK cannot take it (with the view) instead of failing.
TEST(GeometryPanel, ArcDetectorShowsItsSurfaceAndKeepsItThroughApply) {
  Workspace ws;
  GeometryForm arc = demoForm();
  arc.surface = DetectorSurface::Cylinder;
  auto head = std::make_shared<phantom::Phantom>(phantom::modifiedSheppLogan3d(40.0));
  ws.setProjections(
      std::make_shared<ProjectionStack>(phantom::projectPhantom(*head, buildGeometry(arc))),
      QStringLiteral("arc demo"));
  GeometryPanel panel(ws);
  panel.resize(420, 900);
  panel.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&panel));
  EXPECT_EQ(panel.form(), arc);
  const auto* label = panel.findChild<QLabel*>(QStringLiteral("detectorSurface"));
  ASSERT_NE(label, nullptr);
  EXPECT_NE(label->text().indexOf("arc"), -1) << label->text().toStdString();
  GeometryForm offset = arc;
  offset.offsetUMm = 6;
  panel.setForm(offset);
  QString error;
  ASSERT_TRUE(panel.apply(&error)) << error.toStdString();
  EXPECT_EQ(*ws.geometry(), buildGeometry(offset));
  EXPECT_EQ(ws.geometry()->view(0).surface, DetectorSurface::Cylinder);
  const QString warnings = panel.warnings().join("\n");
  EXPECT_NE(warnings.indexOf("Arc detector: FDK first resamples"), -1) << warnings.toStdString();
  EXPECT_EQ(warnings.indexOf("FDK cannot reconstruct"), -1) << warnings.toStdString();
  keep(panel, "geometry-panel-arc.png");
}

double waitForRms(ConsistencyView& view) {
  QSignalSpy spy(&view, &ConsistencyView::resultReady);
  EXPECT_TRUE(spy.wait(20000));
  return spy.isEmpty() ? -1 : spy.takeLast().at(0).toDouble();
}

TEST(ConsistencyView, ShowsOffsetAndRotationSenseErrors) {
  Workspace ws;
  loadDemo(ws);
  GeometryPanel panel(ws);
  ConsistencyView view(ws);
  QObject::connect(&panel, &GeometryPanel::editedGeometryChanged, &view,
                   &ConsistencyView::setEditedGeometry);
  QObject::connect(&panel, &GeometryPanel::selectedViewChanged, &view,
                   &ConsistencyView::setSelectedView);
  view.resize(900, 340);
  view.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&view));
  panel.setSelectedView(5);

  panel.setForm(demoForm());
  panel.rebuildNow();
  const double correct = waitForRms(view);
  keep(view, "consistency-correct.png");

  GeometryForm offset = demoForm();
  offset.offsetUMm = 5;
  panel.setForm(offset);
  panel.rebuildNow();
  const double shifted = waitForRms(view);
  keep(view, "consistency-offset-5mm.png");

  GeometryForm flipped = demoForm();
  flipped.clockwise = true;
  panel.setForm(flipped);
  panel.rebuildNow();
  const double mirrored = waitForRms(view);
  keep(view, "consistency-flipped.png");
  std::printf("  relative RMS: correct %.2g, 5 mm offset %.3f, flipped sense %.3f\n", correct,
              shifted, mirrored);
  EXPECT_GE(correct, 0.0);
  EXPECT_LT(correct, 1e-4);
  EXPECT_GT(shifted, 0.1);
  EXPECT_GT(mirrored, 0.1);
  EXPECT_NE(view.summary().indexOf("relative RMS"), -1);
}

}  // namespace
}  // namespace tomowb::gui
