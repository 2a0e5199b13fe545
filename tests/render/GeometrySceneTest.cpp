// GeometryScene: the scan is drawn (not just background), the selected view's detector moves
// when another view is selected, parallel beams draw too, and the field-of-view radius is the
// fan's inscribed circle. Set TOMOWB_SCREENSHOT_DIR to keep the pictures.
#include <gtest/gtest.h>

#include <QImage>
#include <QTest>
#include <cmath>
#include <cstdlib>
#include <numbers>
#include <string>

#include "recon/geometry/ScanBuilders.h"
#include "render/GeometryScene.h"

namespace tomowb::render {
namespace {

Geometry coneScan(double offsetUMm = 0.0) {
  CircularConeParams c;
  c.sourceToIsocentreMm = 500;
  c.sourceToDetectorMm = 1000;
  c.detector.cols = 256;
  c.detector.rows = 200;
  c.detector.pitchUMm = c.detector.pitchVMm = 1.6;
  c.detector.offsetUMm = offsetUMm;
  c.anglesRad = fullScanAnglesRad(360);
  return circularConeBeam(c);
}

void keep(const QImage& image, const char* name) {
  if (const char* dir = std::getenv("TOMOWB_SCREENSHOT_DIR"))
    image.save(QString::fromUtf8(dir) + "/" + name);
}

// Fraction of pixels that differ from the top-left corner's background colour by more than the
// gradient does across rows.
double drawnFraction(const QImage& image) {
  std::int64_t drawn = 0;
  for (int y = 0; y < image.height(); ++y) {
    const QColor background = image.pixelColor(1, y);
    for (int x = 0; x < image.width(); ++x) {
      const QColor c = image.pixelColor(x, y);
      if (std::abs(c.red() - background.red()) + std::abs(c.green() - background.green()) +
              std::abs(c.blue() - background.blue()) >
          40)
        ++drawn;
    }
  }
  return double(drawn) / (double(image.width()) * image.height());
}

double differingFraction(const QImage& a, const QImage& b) {
  std::int64_t differ = 0;
  for (int y = 0; y < a.height(); ++y)
    for (int x = 0; x < a.width(); ++x) {
      const QColor p = a.pixelColor(x, y), q = b.pixelColor(x, y);
      if (std::abs(p.red() - q.red()) + std::abs(p.green() - q.green()) +
              std::abs(p.blue() - q.blue()) >
          40)
        ++differ;
    }
  return double(differ) / (double(a.width()) * a.height());
}

TEST(GeometryScene, DrawsTheScanAndMovesTheDetectorWithTheSelectedView) {
  GeometryScene scene;
  scene.resize(640, 480);
  scene.setGeometry(coneScan());
  scene.setVolumeBox(Eigen::Vector3d::Constant(-102.4), Eigen::Vector3d::Constant(204.8));
  scene.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&scene));
  const QImage first = scene.grabImage();
  keep(first, "geometry-scene-view0.png");
  const double drawn = drawnFraction(first);
  EXPECT_GT(drawn, 0.02) << "nothing but background";
  EXPECT_LT(drawn, 0.8);

  scene.setSelectedView(90);
  EXPECT_EQ(scene.selectedView(), 90);
  const QImage quarter = scene.grabImage();
  keep(quarter, "geometry-scene-view90.png");
  EXPECT_GT(differingFraction(first, quarter), 0.01) << "the detector did not move";

  // Out of range: ignored.
  scene.setSelectedView(360);
  EXPECT_EQ(scene.selectedView(), 90);
}

TEST(GeometryScene, DrawsParallelBeams) {
  ParallelBeamParams p;
  p.detector.cols = 128;
  p.detector.rows = 64;
  p.anglesRad = {};
  for (int i = 0; i < 180; ++i) p.anglesRad.push_back(std::numbers::pi * i / 180.0);
  GeometryScene scene;
  scene.resize(480, 360);
  scene.setGeometry(parallelBeam(p));
  scene.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&scene));
  const QImage image = scene.grabImage();
  keep(image, "geometry-scene-parallel.png");
  EXPECT_GT(drawnFraction(image), 0.02);
  EXPECT_NEAR(scene.fieldOfViewRadius(), 64.0, 1e-9);
}

TEST(GeometryScene, FieldOfViewIsTheFansInscribedCircle) {
  // Half-width 204.8 mm at SDD 1000: sin(atan(0.2048)) x 500.
  const double expected = 500 * std::sin(std::atan(204.8 / 1000));
  EXPECT_NEAR(fieldOfViewRadiusMm(coneScan()), expected, 1e-6);
  // An offset detector: the short side sets the radius.
  const double shortSide = 500 * std::sin(std::atan((204.8 - 50) / 1000));
  EXPECT_NEAR(fieldOfViewRadiusMm(coneScan(50)), shortSide, 1e-6);
  // A detector that misses the axis sees no cylinder.
  EXPECT_EQ(fieldOfViewRadiusMm(coneScan(300)), 0.0);
}

}  // namespace
}  // namespace tomowb::render
