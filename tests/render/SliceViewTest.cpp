// SliceView: a bright cube in a dark volume appears where it lies on the axial, coronal and
// sagittal views; W/L drags change contrast; slice stepping; the value under the cursor; a live
// preview swap keeps zoom, slice and W/L. Screenshots go to /tmp for a human look.
#include <gtest/gtest.h>

#include <QApplication>
#include <QElapsedTimer>
#include <QImage>
#include <QSignalSpy>
#include <QTest>
#include <cmath>
#include <memory>

#include "render/SliceView.h"

namespace tomowb::render {
namespace {

// 64 x 48 x 40 voxels of 1 x 1 x 2 mm, centred; a cube of value 1000 at x 40..49, y 8..17,
// z 25..34 in a background of 0; a single voxel of value 7 at (5, 40, 3).
std::shared_ptr<Volume> cubeVolume(float cubeValue = 1000.0f) {
  auto v = std::make_shared<Volume>(Volume::centred({64, 48, 40}, Eigen::Vector3d(1, 1, 2)));
  for (int z = 25; z < 35; ++z)
    for (int y = 8; y < 18; ++y)
      for (int x = 40; x < 50; ++x) v->at(x, y, z) = cubeValue;
  v->at(5, 40, 3) = 7.0f;
  return v;
}

Eigen::Vector3d cubeCentre(const Volume& v) {
  return v.worldPosition(44.5, 12.5, 29.5);
}

int grey(const QImage& image, const QPointF& p) {
  return qGray(
      image.pixel(static_cast<int>(std::lround(p.x())), static_cast<int>(std::lround(p.y()))));
}

struct Shown {
  std::unique_ptr<SliceView> view;
  QImage image;
};

Shown show(SliceView::Axis axis, std::shared_ptr<const Volume> volume, const char* shot) {
  Shown s{std::make_unique<SliceView>(axis), {}};
  s.view->resize(400, 320);
  s.view->setVolume(volume);
  s.view->show();
  EXPECT_TRUE(QTest::qWaitForWindowExposed(s.view.get()));
  s.view->setWindowLevel(1000, 500);
  s.view->setSlicePositionMm(cubeCentre(*volume)[s.view->axisIndex()]);
  s.image = s.view->grabImage();
  if (shot != nullptr) s.image.save(shot);
  return s;
}

TEST(SliceView, BrightCubeAppearsWhereItLiesOnEachAxis) {
  const auto volume = cubeVolume();
  const Eigen::Vector3d centre = cubeCentre(*volume);
  // Expected screen quadrant of the cube: x right on axial/coronal, y right on sagittal;
  // y up on axial, z up on coronal/sagittal. The cube is at +x, -y, +z of the volume centre.
  struct Case {
    SliceView::Axis axis;
    const char* shot;
    bool right, top;
  } cases[] = {{SliceView::Axis::Axial, "/tmp/sliceview-axial.png", true, false},
               {SliceView::Axis::Coronal, "/tmp/sliceview-coronal.png", true, true},
               {SliceView::Axis::Sagittal, "/tmp/sliceview-sagittal.png", false, true}};
  for (const Case& c : cases) {
    SCOPED_TRACE(SliceView::axisName(c.axis).toStdString());
    Shown s = show(c.axis, volume, c.shot);
    const QPointF at = s.view->widgetPositionOf(centre);
    EXPECT_EQ(at.x() > s.image.width() / 2.0, c.right);
    EXPECT_EQ(at.y() < s.image.height() / 2.0, c.top);
    EXPECT_GT(grey(s.image, at), 200) << "cube centre not bright at " << at.x() << "," << at.y();
    // Beside the cube along each in-plane axis (2 voxels off the volume centre, clear of the
    // crosshair): dark.
    const Eigen::Vector3d volumeCentre = volume->worldPosition(31.5, 23.5, 19.5);
    for (int a : inPlaneAxes(s.view->axisIndex())) {
      Eigen::Vector3d outside = centre;
      outside[a] = volumeCentre[a] + 2.0 * volume->voxelSizeMm()[a];
      EXPECT_LT(grey(s.image, s.view->widgetPositionOf(outside)), 40) << "axis " << a;
    }
    // The cube's edge lies where the world says: 1.5 voxels inside is bright, 1.5 outside dark.
    const int a = inPlaneAxes(s.view->axisIndex())[0];
    Eigen::Vector3d inside = centre, beyond = centre;
    inside[a] += 3.5 * volume->voxelSizeMm()[a];
    beyond[a] += 6.5 * volume->voxelSizeMm()[a];
    EXPECT_GT(grey(s.image, s.view->widgetPositionOf(inside)), 200);
    EXPECT_LT(grey(s.image, s.view->widgetPositionOf(beyond)), 40);
  }
}

TEST(SliceView, LeftDragChangesWindowAndLevel) {
  const auto volume = cubeVolume();
  Shown s = show(SliceView::Axis::Axial, volume, nullptr);
  s.view->setWindowLevel(2000, 1000);  // cube at 1000 -> mid grey
  const QPointF at = s.view->widgetPositionOf(cubeCentre(*volume));
  const int before = grey(s.view->grabImage(), at);
  EXPECT_NEAR(before, 128, 20);
  QSignalSpy spy(s.view.get(), &SliceView::windowLevelChanged);
  // Narrower window (drag left) and lower level (drag down): the cube becomes brighter.
  QTest::mousePress(s.view.get(), Qt::LeftButton, Qt::NoModifier, QPoint(300, 100));
  QTest::mouseMove(s.view.get(), QPoint(200, 100));
  QTest::mouseMove(s.view.get(), QPoint(150, 140));
  QTest::mouseRelease(s.view.get(), Qt::LeftButton, Qt::NoModifier, QPoint(150, 140));
  EXPECT_GT(spy.count(), 0);
  const WindowLevel wl = s.view->windowLevel();
  EXPECT_LT(wl.window, 2000);
  EXPECT_LT(wl.level, 1000);
  const QImage after = s.view->grabImage();
  after.save("/tmp/sliceview-wl-drag.png");
  EXPECT_GT(grey(after, at), before + 40);
  // Ctrl+double-click restores the default (0.1-99.9 % percentile).
  QTest::mouseDClick(s.view.get(), Qt::LeftButton, Qt::ControlModifier, QPoint(150, 140));
  EXPECT_EQ(s.view->windowLevel(), s.view->defaultWindowLevel());
}

TEST(SliceView, WheelAndKeysStepSlices) {
  const auto volume = cubeVolume();
  Shown s = show(SliceView::Axis::Axial, volume, nullptr);
  const int start = s.view->slice();
  QSignalSpy spy(s.view.get(), &SliceView::sliceChanged);
  QTest::keyClick(s.view.get(), Qt::Key_Right);
  EXPECT_EQ(s.view->slice(), start + 1);
  QTest::keyClick(s.view.get(), Qt::Key_B);
  QTest::keyClick(s.view.get(), Qt::Key_B);
  EXPECT_EQ(s.view->slice(), start - 1);
  QWheelEvent wheel(QPointF(100, 100), s.view->mapToGlobal(QPointF(100, 100)), QPoint(),
                    QPoint(0, 120), Qt::NoButton, Qt::NoModifier, Qt::NoScrollPhase, false);
  QApplication::sendEvent(s.view.get(), &wheel);
  EXPECT_EQ(s.view->slice(), start);
  EXPECT_EQ(spy.count(), 4);
  s.view->setSlice(1000);
  EXPECT_EQ(s.view->slice(), 39);
  // Slice 0 of z has no cube: the cube centre is dark there.
  s.view->setSlice(0);
  EXPECT_LT(grey(s.view->grabImage(), s.view->widgetPositionOf(cubeCentre(*volume))), 40);
}

TEST(SliceView, ReportsTheVoxelValueUnderTheCursor) {
  const auto volume = cubeVolume();
  Shown s = show(SliceView::Axis::Axial, volume, nullptr);
  s.view->setSlice(3);
  const Eigen::Vector3d voxel = volume->worldPosition(5, 40, 3);
  QSignalSpy spy(s.view.get(), &SliceView::cursorMoved);
  const QPointF at = s.view->widgetPositionOf(voxel);
  QTest::mouseMove(s.view.get(), at.toPoint());
  ASSERT_GE(spy.count(), 1);
  const auto world = spy.last().at(0).value<Eigen::Vector3d>();
  EXPECT_FLOAT_EQ(spy.last().at(1).toFloat(), 7.0f);
  EXPECT_LT((world - voxel).norm(), 0.51);
  EXPECT_FLOAT_EQ(s.view->valueAt(voxel), 7.0f);
  EXPECT_TRUE(std::isnan(s.view->valueAt(Eigen::Vector3d(500, 0, 0))));
}

TEST(SliceView, LivePreviewSwapKeepsZoomSliceAndWindowLevel) {
  const auto volume = cubeVolume();
  Shown s = show(SliceView::Axis::Axial, volume, nullptr);
  s.view->setSlice(30);
  s.view->setZoomFactor(2.0);
  s.view->setWindowLevel(500, 250);
  const Eigen::Vector3d centre = s.view->viewCentreMm();
  const auto preview = cubeVolume(100.0f);  // same grid, dimmer cube
  s.view->setVolume(preview, true);
  EXPECT_EQ(s.view->slice(), 30);
  EXPECT_NEAR(s.view->zoomFactor(), 2.0, 1e-9);
  EXPECT_EQ(s.view->windowLevel(), (WindowLevel{500, 250}));
  EXPECT_LT((s.view->viewCentreMm() - centre).norm(), 1e-9);
  const QImage image = s.view->grabImage();
  image.save("/tmp/sliceview-preview.png");
  // The new voxels are shown: 100 in a window 0..500 is dark grey, not white.
  const int g = grey(image, s.view->widgetPositionOf(volume->worldPosition(41, 16, 30)));
  EXPECT_NEAR(g, 51, 15);
  // A new volume without keepViewState resets the view.
  s.view->setVolume(cubeVolume(), false);
  EXPECT_NEAR(s.view->zoomFactor(), 1.0, 1e-9);
  EXPECT_EQ(s.view->slice(), 20);
}

TEST(SliceView, SliceChangeAndRenderOn256CubedStaysInteractive) {
  auto volume = std::make_shared<Volume>(Volume::centred({256, 256, 256}, Eigen::Vector3d::Ones()));
  for (std::int64_t i = 0; i < volume->voxelCount(); ++i)
    volume->data()[i] = static_cast<float>((i * 2654435761u) % 1000);
  SliceView view(SliceView::Axis::Coronal);
  view.resize(512, 512);
  view.setVolume(volume);
  view.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&view));
  (void)view.grabImage();
  QElapsedTimer timer;
  timer.start();
  constexpr int kSteps = 20;
  for (int i = 0; i < kSteps; ++i) {
    view.stepSlice(1);
    (void)view.grabImage();
  }
  const double sliceMs = timer.nsecsElapsed() / 1e6 / kSteps;
  timer.restart();
  for (int i = 0; i < kSteps; ++i) {
    view.setWindowLevel(500 + i, 500);
    (void)view.grabImage();
  }
  const double wlMs = timer.nsecsElapsed() / 1e6 / kSteps;
  std::printf(
      "[ perf ] 256^3 coronal, 512x512 widget: slice change + render %.1f ms, "
      "W/L change + render %.1f ms (software GL, includes read-back)\n",
      sliceMs, wlMs);
  SUCCEED();
}

}  // namespace
}  // namespace tomowb::render
