// ViewArea and ProjectionBrowser: a volume reaches the slice views, a live preview keeps the
// view state, layouts switch by name, presets apply, screenshots are written; projections and
// sinograms are browsable. Screenshots: /tmp/viewarea-fourup.png, /tmp/projectionbrowser.png.
#include <gtest/gtest.h>

#include <QFileInfo>
#include <QImage>
#include <QSignalSpy>
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
