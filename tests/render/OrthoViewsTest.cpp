// OrthoViews: the crosshair links the three views, W/L is shared, double-click maximises and
// restores, ROIs drawn in a view come back from rois(). Screenshot: /tmp/orthoviews-fourup.png.
#include <gtest/gtest.h>

#include <QSignalSpy>
#include <QTest>
#include <cmath>

#include "render/HistogramView.h"
#include "render/OrthoViews.h"
#include "render/VolumeView3D.h"

namespace tomowb::render {
namespace {

std::shared_ptr<Volume> gradientVolume() {
  auto v = std::make_shared<Volume>(Volume::centred({40, 32, 24}, Eigen::Vector3d(1, 1, 1.5)));
  for (int z = 0; z < 24; ++z)
    for (int y = 0; y < 32; ++y)
      for (int x = 0; x < 40; ++x) {
        const double r2 = (x - 20) * (x - 20) + (y - 14) * (y - 14) + (z - 12) * (z - 12) * 2.25;
        v->at(x, y, z) = static_cast<float>(x + (r2 < 64 ? 100 : 0));
      }
  return v;
}

TEST(OrthoViews, ClickInOneViewMovesCrosshairAndSlicesOfTheOthers) {
  OrthoViews views;
  views.resize(700, 560);
  views.setThreeDView(new VolumeView3D);
  const auto volume = gradientVolume();
  views.setVolume(volume);
  views.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&views));
  SliceView* axial = views.view(SliceView::Axis::Axial);
  SliceView* coronal = views.view(SliceView::Axis::Coronal);
  SliceView* sagittal = views.view(SliceView::Axis::Sagittal);
  const Eigen::Vector3d target = volume->worldPosition(30, 5, axial->slice());
  QSignalSpy spy(&views, &OrthoViews::crosshairMoved);
  QTest::mouseClick(axial, Qt::LeftButton, Qt::NoModifier,
                    axial->widgetPositionOf(target).toPoint());
  ASSERT_EQ(spy.count(), 1);
  EXPECT_LT((views.crosshair() - target).norm(), 0.75);
  EXPECT_EQ(sagittal->slice(), 30);
  EXPECT_EQ(coronal->slice(), 5);
  // Scrolling the axial view moves the crosshair plane shown in the others.
  axial->stepSlice(3);
  EXPECT_NEAR(views.crosshair().z(), axial->slicePositionMm(), 1e-9);
  EXPECT_NEAR(coronal->crosshair().z(), axial->slicePositionMm(), 1e-9);
  views.grabLayout().save("/tmp/orthoviews-fourup.png");
}

TEST(OrthoViews, WindowLevelIsShared) {
  OrthoViews views;
  views.setVolume(gradientVolume());
  QSignalSpy spy(&views, &OrthoViews::windowLevelChanged);
  views.view(SliceView::Axis::Coronal)->setWindowLevel(77, 33);
  EXPECT_EQ(spy.count(), 1);
  for (SliceView* v : views.sliceViews()) EXPECT_EQ(v->windowLevel(), (WindowLevel{77, 33}));
}

TEST(OrthoViews, DoubleClickMaximisesAndRestores) {
  OrthoViews views;
  views.resize(600, 400);
  views.setThreeDView(new VolumeView3D);
  views.setVolume(gradientVolume());
  views.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&views));
  SliceView* coronal = views.view(SliceView::Axis::Coronal);
  QTest::mouseDClick(coronal, Qt::LeftButton, Qt::NoModifier, QPoint(50, 50));
  EXPECT_EQ(views.viewLayout(), OrthoViews::Layout::OneUp);
  EXPECT_EQ(views.maximisedView(), coronal);
  EXPECT_FALSE(views.view(SliceView::Axis::Axial)->isVisible());
  QTest::mouseDClick(coronal, Qt::LeftButton, Qt::NoModifier, QPoint(50, 50));
  EXPECT_EQ(views.viewLayout(), OrthoViews::Layout::FourUp);
  EXPECT_TRUE(views.view(SliceView::Axis::Axial)->isVisible());
  EXPECT_TRUE(views.threeDView()->isVisible());
}

TEST(OrthoViews, RoisDrawnInAViewAreReported) {
  OrthoViews views;
  views.resize(600, 500);
  const auto volume = gradientVolume();
  views.setVolume(volume);
  views.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&views));
  views.setViewLayout(OrthoViews::Layout::OneUp, views.view(SliceView::Axis::Axial));
  SliceView* axial = views.view(SliceView::Axis::Axial);
  QApplication::processEvents();
  views.setRoiTool(SliceView::RoiTool::Circle);
  QSignalSpy spy(&views, &OrthoViews::roisChanged);
  const Eigen::Vector3d centre = volume->worldPosition(20, 14, axial->slice());
  const QPoint from = axial->widgetPositionOf(centre).toPoint();
  const QPoint to = axial->widgetPositionOf(centre + Eigen::Vector3d(5, 0, 0)).toPoint();
  QTest::mousePress(axial, Qt::LeftButton, Qt::NoModifier, from);
  QTest::mouseMove(axial, (from + to) / 2);
  QTest::mouseMove(axial, to);
  QTest::mouseRelease(axial, Qt::LeftButton, Qt::NoModifier, to);
  views.setNewRoiRole(SliceRoi::Background);
  views.setRoiTool(SliceView::RoiTool::Rectangle);
  const QPoint corner =
      axial->widgetPositionOf(volume->worldPosition(2, 2, axial->slice())).toPoint();
  QTest::mousePress(axial, Qt::LeftButton, Qt::NoModifier, corner);
  QTest::mouseMove(axial, corner + QPoint(20, 20));
  QTest::mouseMove(axial, corner + QPoint(40, 40));
  QTest::mouseRelease(axial, Qt::LeftButton, Qt::NoModifier, corner + QPoint(40, 40));
  EXPECT_EQ(spy.count(), 2);
  const auto rois = views.rois();
  ASSERT_EQ(rois.size(), 2u);
  EXPECT_EQ(rois[0].shape, SliceRoi::Circle);
  EXPECT_EQ(rois[0].role, SliceRoi::Signal);
  EXPECT_NEAR(rois[0].halfSizeMm.x(), 5.0, 0.5);
  EXPECT_LT((rois[0].centreMm - Eigen::Vector2d(centre.x(), centre.y())).norm(), 0.5);
  EXPECT_EQ(rois[1].shape, SliceRoi::Rectangle);
  EXPECT_EQ(rois[1].role, SliceRoi::Background);
  EXPECT_EQ(rois[1].label.left(2), "BG");
  axial->grabImage().save("/tmp/orthoviews-rois.png");
  // The circle's voxels: radius 5 mm around a voxel centre on 1 mm voxels.
  EXPECT_NEAR(static_cast<double>(roiVoxelIndices(*volume, rois[0]).size()), M_PI * 25, 12);
  // Delete removes the selected (last drawn) ROI.
  axial->setFocus();
  QTest::keyClick(axial, Qt::Key_Delete);
  EXPECT_EQ(views.rois().size(), 1u);
}

TEST(HistogramView, ShowsTheHistogramWithWindowLines) {
  HistogramView view;
  view.resize(300, 120);
  view.setVolume(gradientVolume());
  view.setWindowLevel(60, 60);
  view.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&view));
  const QImage image = view.grabImage();
  image.save("/tmp/histogramview.png");
  EXPECT_EQ(view.statistics().finiteCount, 40 * 32 * 24);
  int yellow = 0;
  for (int y = 0; y < image.height(); ++y)
    for (int x = 0; x < image.width(); ++x) {
      const QColor c = image.pixelColor(x, y);
      if (c.red() > 200 && c.green() > 150 && c.blue() < 120) ++yellow;
    }
  EXPECT_GT(yellow, 40) << "the window lines are not drawn";
}

}  // namespace
}  // namespace tomowb::render
