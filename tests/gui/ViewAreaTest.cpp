// ViewArea and ProjectionBrowser: a volume reaches the slice views, a live preview keeps the
// view state, layouts switch by name, presets apply, screenshots are written; projections and
// sinograms are browsable. Screenshots: /tmp/viewarea-fourup.png, /tmp/projectionbrowser.png.
#include <gtest/gtest.h>

#include <QAction>
#include <QComboBox>
#include <QFileInfo>
#include <QImage>
#include <QSignalSpy>
#include <QStandardItemModel>
#include <QTemporaryDir>
#include <QTest>
#include <memory>

#include "gui/ProjectionBrowser.h"
#include "gui/ViewArea.h"
#include "recon/geometry/Geometry.h"
#include "render/ProjectionView.h"
#include "render/SliceView.h"
#include "render/VolumeView3D.h"

namespace tomowb::gui {
namespace {

std::shared_ptr<Volume> ballVolume(float value) {
  auto v = std::make_shared<Volume>(Volume::centred({48, 40, 32}, Eigen::Vector3d::Ones()));
  for (int z = 0; z < 32; ++z)
    for (int y = 0; y < 40; ++y)
      for (int x = 0; x < 48; ++x) {
        const double r2 = (x - 24) * (x - 24) + (y - 20) * (y - 20) + (z - 16) * (z - 16);
        v->at(x, y, z) = (r2 < 100 ? value : 0.0f) + 0.01f * x;
      }
  return v;
}

TEST(ViewArea, ShowsAVolumeAndKeepsViewStateForLivePreviews) {
  ViewArea area;
  area.resize(900, 700);
  area.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&area));
  area.setVolume(ballVolume(100.0f), "ball", false);
  auto views = area.sliceViews();
  EXPECT_EQ(views[0]->axis(), render::SliceView::Axis::Axial);
  EXPECT_EQ(views[0]->sliceCount(), 32);
  views[0]->setSlice(20);
  views[0]->setZoomFactor(1.5);
  area.orthoViews().setWindowLevel(50, 25);
  area.setVolume(ballVolume(200.0f), "ball (iteration 2)", true);
  // A live preview reaches the three views a few event-loop turns apart (one render per frame);
  // under load a turn can take long, so wait for the last view rather than a fixed time.
  const Eigen::Vector3d probe = area.volume()->worldPosition(24, 20, 16);
  EXPECT_TRUE(QTest::qWaitFor([&] { return views[0]->valueAt(probe) > 150.0f; }, 10000));
  QTest::qWait(3 * render::OrthoViews::kPreviewStaggerMs + 100);  // the other two views
  EXPECT_EQ(views[0]->slice(), 20);
  EXPECT_NEAR(views[0]->zoomFactor(), 1.5, 1e-9);
  EXPECT_EQ(views[1]->windowLevel(), (render::WindowLevel{50, 25}));
  EXPECT_FLOAT_EQ(views[0]->valueAt(area.volume()->worldPosition(24, 20, 16)), 200.24f);
  area.setHistogramVisible(true);
  QApplication::processEvents();
  area.grabViews().save("/tmp/viewarea-fourup.png");
}

TEST(ViewArea, LayoutsPresetsAndScreenshots) {
  ViewArea area;
  area.resize(800, 600);
  area.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&area));
  area.setVolume(ballVolume(100.0f), "ball", false);
  EXPECT_EQ(area.layoutName(), "four-up");
  EXPECT_TRUE(area.setLayoutByName("One-Up"));
  EXPECT_EQ(area.layoutName(), "one-up");
  EXPECT_TRUE(area.setLayoutByName("three-slices"));
  EXPECT_FALSE(area.setLayoutByName("compare"));
  EXPECT_TRUE(area.setLayoutByName("four-up"));
  EXPECT_TRUE(area.volumeView().isVisible());
  // "Full range" preset: min..max of the data.
  int fullRange = -1;
  for (int i = 0; i < static_cast<int>(area.presets().size()); ++i)
    if (area.presets()[i].method == render::WindowLevelMethod::FullRange) fullRange = i;
  ASSERT_GE(fullRange, 0);
  area.applyPreset(fullRange);
  const render::WindowLevel wl = area.orthoViews().windowLevel();
  EXPECT_NEAR(wl.lower(), 0.0, 1e-6);
  EXPECT_NEAR(wl.upper(), 100.33, 1e-3);  // the ball reaches x = 33
  QTemporaryDir dir;
  const QString path = dir.filePath("views.png");
  ASSERT_TRUE(area.saveScreenshot(path));
  const QImage shot(path);
  EXPECT_GE(shot.width(), 700);
  EXPECT_FALSE(QFileInfo::exists(path + ".partial.png"));
}

TEST(ViewArea, ReportsCursorInfoAndRois) {
  ViewArea area;
  area.resize(800, 600);
  area.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&area));
  area.setVolume(ballVolume(100.0f), "ball", false);
  QSignalSpy info(&area, &ViewArea::cursorInfo);
  render::SliceView* axial = area.sliceViews()[0];
  QTest::mouseMove(axial,
                   axial->widgetPositionOf(area.volume()->worldPosition(24, 20, 16)).toPoint());
  ASSERT_GE(info.count(), 1);
  EXPECT_TRUE(info.last().at(0).toString().contains("value 100.24"))
      << info.last().at(0).toString().toStdString();
  QSignalSpy rois(&area, &ViewArea::roisChanged);
  render::SliceRoi roi;
  roi.axis = 2;
  roi.sliceMm = axial->slicePositionMm();
  roi.halfSizeMm = {3, 3};
  area.setRois({roi});
  EXPECT_EQ(rois.count(), 1);
  ASSERT_EQ(area.rois().size(), 1u);
  EXPECT_GT(area.rois()[0].id, 0);
}

std::shared_ptr<ProjectionStack> stripeProjections() {
  std::vector<View> views(12);
  for (int i = 0; i < 12; ++i) {
    views[i].rayDirection = {std::cos(0.26 * i), std::sin(0.26 * i), 0};
    views[i].detectorCentre = {0, 0, 0};
    views[i].u = {-std::sin(0.26 * i) * 0.5, std::cos(0.26 * i) * 0.5, 0};
    views[i].v = {0, 0, 0.5};
  }
  auto stack = std::make_shared<ProjectionStack>(Geometry(BeamKind::Parallel, {40, 24}, views));
  for (int v = 0; v < 12; ++v)
    for (int r = 0; r < 24; ++r)
      for (int c = 0; c < 40; ++c) stack->at(v, r, c) = static_cast<float>(c == 10 + v ? 5 + r : 0);
  return stack;
}

// Issue #21, point 1: contrast that follows the data.
TEST(ViewArea, ARunOnNewDataGetsItsOwnWindowNotThePreviousDatas) {
  ViewArea area;
  area.resize(900, 700);
  area.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&area));
  area.setDataKey("1");
  area.setVolume(ballVolume(100.0f), "demo recon", false);
  area.orthoViews().setWindowLevel(0.02, 0.01);  // the user's (a drag's) W/L on the demo
  EXPECT_TRUE(area.windowLevelFromUser());
  EXPECT_EQ(area.presetText(), "Custom W/L");  // not a stale preset name
  // Other data (values about 1e4), a run: its first live preview gets its own window.
  area.setDataKey("2");
  area.beginRun();
  area.setVolume(ballVolume(10000.0f), "run 2: preview", true);
  const render::WindowLevel wl = area.orthoViews().windowLevel();
  EXPECT_GT(wl.upper(), 5000.0) << "the preview kept the previous data's W/L: it saturates";
  EXPECT_LT(wl.lower(), 1.0);
  EXPECT_EQ(area.presetText(), "Percentile 0.1-99.9 %");
  // A later preview with larger values follows them while the user has not dragged.
  area.setVolume(ballVolume(20000.0f), "run 2: preview", true);
  EXPECT_GT(area.orthoViews().windowLevel().upper(), 15000.0);
}

TEST(ViewArea, AReRunOnTheSameDataKeepsTheWindowTheUserSet) {
  ViewArea area;
  area.resize(900, 700);
  area.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&area));
  area.setDataKey("1");
  area.setVolume(ballVolume(100.0f), "recon 1", false);
  area.orthoViews().setWindowLevel(50, 25);
  area.beginRun();
  area.setVolume(ballVolume(200.0f), "run 2: preview", true);
  EXPECT_EQ(area.orthoViews().windowLevel(), (render::WindowLevel{50, 25}));
  area.setVolume(ballVolume(200.0f), "recon 2", false, true);  // the result after its previews
  EXPECT_EQ(area.orthoViews().windowLevel(), (render::WindowLevel{50, 25}));
  // A volume shown on its own (not a run's result) gets its own window.
  area.setVolume(ballVolume(100.0f), "loaded", false);
  EXPECT_NE(area.orthoViews().windowLevel().window, 50.0);
}

TEST(ViewArea, CtPresetsApplyOnlyToDataShownInHounsfieldUnits) {
  ViewArea area;
  area.resize(900, 700);
  area.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&area));
  auto volume = std::make_shared<Volume>(Volume::centred({32, 32, 8}, Eigen::Vector3d::Ones()));
  for (std::int64_t i = 0; i < volume->voxelCount(); ++i)
    volume->data()[i] = 0.0206f * static_cast<float>(i % 64) / 32.0f;
  area.setVolume(volume, "ct", false);
  int softTissue = -1;
  for (int i = 0; i < static_cast<int>(area.presets().size()); ++i)
    if (area.presets()[i].name.startsWith("CT soft tissue")) softTissue = i;
  ASSERT_GE(softTissue, 0);
  auto* model = qobject_cast<QStandardItemModel*>(
      area.findChildren<QComboBox*>()[1]->model());  // layout, then W/L presets
  ASSERT_NE(model, nullptr);
  auto* hu = area.findChild<QAction*>("huDisplayAction");
  ASSERT_NE(hu, nullptr);

  // CT in 1/mm without a water value: no HU, the CT presets greyed out and refused.
  area.setDisplayUnits(DisplayUnits::forModality(DataModality::TransmissionCt));
  EXPECT_FALSE(hu->isEnabled());
  EXPECT_FALSE(model->item(softTissue)->isEnabled());
  EXPECT_TRUE(model->item(0)->isEnabled());
  const render::WindowLevel before = area.orthoViews().windowLevel();
  area.applyPreset(softTissue);
  EXPECT_EQ(area.orthoViews().windowLevel(), before) << "a preset in HU applied to 1/mm data";

  // With water's mu the views can show HU; then the preset converts to the stored values.
  area.setDisplayUnits(DisplayUnits::forModality(DataModality::TransmissionCt, 0.02));
  EXPECT_TRUE(hu->isEnabled());
  EXPECT_FALSE(model->item(softTissue)->isEnabled());
  hu->trigger();
  EXPECT_TRUE(area.displayUnits().showsHu());
  EXPECT_TRUE(model->item(softTissue)->isEnabled());
  area.applyPreset(softTissue);
  EXPECT_NEAR(area.orthoViews().windowLevel().window, 0.008, 1e-9);  // 400 HU
  EXPECT_NEAR(area.orthoViews().windowLevel().level, 0.0208, 1e-9);  // 40 HU
  EXPECT_EQ(area.presetText(), area.presets()[softTissue].name);
  render::SliceView* axial = area.sliceViews()[0];
  QSignalSpy info(&area, &ViewArea::cursorInfo);
  QTest::mouseMove(axial, axial->widgetPositionOf(volume->worldPosition(16, 16, 4)).toPoint());
  ASSERT_GE(info.count(), 1);
  EXPECT_TRUE(info.last().at(0).toString().contains(" HU"))
      << info.last().at(0).toString().toStdString();

  // A change of units: the data's own window again.
  area.setDisplayUnits(DisplayUnits::forModality(DataModality::ElectronTomography));
  EXPECT_EQ(area.presetText(), "Percentile 0.1-99.9 %");
  EXPECT_FALSE(hu->isEnabled());
  EXPECT_EQ(axial->viewName(), "XY");
  EXPECT_EQ(area.sliceViews()[1]->viewName(), "XZ");
  EXPECT_EQ(area.sliceViews()[2]->viewName(), "YZ");
}

TEST(ViewArea, ShowsTheProjectionsAndASinogramUntilAVolumeComes) {
  ViewArea area;
  area.resize(900, 700);
  area.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&area));
  area.showProjections(stripeProjections(), "stripes");
  EXPECT_TRUE(area.showsProjections());
  ASSERT_TRUE(area.volume());
  EXPECT_EQ(area.volume()->nx(), 40);  // columns
  EXPECT_EQ(area.volume()->ny(), 24);  // rows
  EXPECT_EQ(area.volume()->nz(), 12);  // views
  // The middle view (6) lights column 16, row r with 5 + r.
  EXPECT_FLOAT_EQ(area.volume()->at(16, 3, 6), 8.0f);
  EXPECT_EQ(area.sliceViews()[0]->slice(), 6);  // the centre projection (12 views: slice 6)
  EXPECT_GT(area.orthoViews().windowLevel().upper(), 20.0);  // the data's own window
  area.grabViews().save("/tmp/viewarea-projections.png");
  if (const QString dir = qEnvironmentVariable("TOMOWB_SCREENSHOT_DIR"); !dir.isEmpty())
    area.grabViews().save(dir + "/viewarea-projections.png");
  area.setVolume(ballVolume(100.0f), "recon 1", false);
  EXPECT_FALSE(area.showsProjections());
  EXPECT_EQ(area.volume()->nz(), 32);
}

TEST(ProjectionBrowser, ScrubsViewsAndShowsASinogram) {
  ProjectionBrowser browser;
  browser.resize(800, 320);
  browser.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&browser));
  browser.setProjections(stripeProjections());
  EXPECT_EQ(browser.view(), 0);
  EXPECT_EQ(browser.sinogramRow(), 12);
  QSignalSpy spy(&browser, &ProjectionBrowser::viewChanged);
  browser.setView(5);
  EXPECT_EQ(spy.count(), 1);
  render::ProjectionView& p = browser.projectionView();
  // The bright column of view 5 is column 15; row 3 has value 8 (u is centred: col 15 of 40).
  const double pitch = 0.5;
  EXPECT_FLOAT_EQ(p.valueAt(Eigen::Vector3d((15 - 19.5) * pitch, (3 - 11.5) * pitch, 0)), 8.0f);
  // The sinogram: row 12, view 7 lights column 17 (square pixels: views one pitch apart).
  render::ProjectionView& s = browser.sinogramView();
  EXPECT_FLOAT_EQ(s.valueAt(Eigen::Vector3d((17 - 19.5) * pitch, 7 * pitch, 0)), 17.0f);
  browser.setView(100);
  EXPECT_EQ(browser.view(), 11);
  QTest::keyClick(&p, Qt::Key_Left);
  EXPECT_EQ(browser.view(), 10);
  browser.grab().save("/tmp/projectionbrowser.png");
  browser.setProjections(nullptr);
  EXPECT_FALSE(p.volume());
}

}  // namespace
}  // namespace tomowb::gui
