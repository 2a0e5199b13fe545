// ProjectionBrowser on a tilt series: each view shows its tilt angle (from the geometry), the
// sinogram of a nanometre-pixel series is drawn with square pixels, and other data show none.
#include <gtest/gtest.h>

#include <QLabel>
#include <QTest>

#include "gui/ProjectionBrowser.h"
#include "gui/core/DemoData.h"
#include "render/ProjectionView.h"

namespace tomowb::gui {
namespace {

TEST(ProjectionBrowser, ShowsTheTiltAngleOfEachViewOfATiltSeries) {
  JobContext context;
  const DemoDataset et = makeDemo(DemoKind::ElectronTomography, 16, context);
  ProjectionBrowser browser;
  browser.resize(900, 300);
  browser.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&browser));
  browser.setProjections(et.projections);
  auto* label = browser.findChild<QLabel*>(QStringLiteral("tiltAngleLabel"));
  ASSERT_NE(label, nullptr);
  EXPECT_TRUE(label->isVisible());
  browser.setView(0);
  EXPECT_NEAR(*browser.tiltAngleDeg(0), -60.0, 1e-9);
  EXPECT_EQ(label->text(), QString("tilt -60.0\u00b0"));
  browser.setView(30);
  EXPECT_NEAR(*browser.tiltAngleDeg(30), 0.0, 1e-9);
  EXPECT_EQ(browser.tiltText(), QString("tilt 0.0\u00b0"));
  browser.setView(43);
  EXPECT_NEAR(*browser.tiltAngleDeg(43), 26.0, 1e-9);
  EXPECT_EQ(label->text(), QString("tilt +26.0\u00b0"));
  EXPECT_FALSE(browser.tiltAngleDeg(61));
  // The sinogram (columns x views) has square pixels, so 4 nm columns still make an image.
  const auto image = browser.sinogramView().volume();
  ASSERT_TRUE(image);
  EXPECT_DOUBLE_EQ(image->voxelSizeMm().x(), image->voxelSizeMm().y());
  // Cone-beam data have no tilt.
  const DemoDataset cone = makeDemo(DemoKind::SheppLogan, 16, context);
  browser.setProjections(cone.projections);
  EXPECT_FALSE(browser.tiltAngleDeg(0));
  EXPECT_TRUE(browser.tiltText().isEmpty());
  EXPECT_FALSE(label->isVisible());
}

}  // namespace
}  // namespace tomowb::gui
