#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <random>
#include <string>

#include "recon/core/Error.h"
#include "recon/geometry/ArcFrame.h"
#include "recon/geometry/Geometry.h"
#include "recon/geometry/ScanBuilders.h"
#include "support/TestSupport.h"

namespace tomowb {
namespace {

// A circular cone scan on an arc detector with offsets along and across the arc.
CircularConeParams arcParams() {
  CircularConeParams p;
  p.sourceToIsocentreMm = 541.0;
  p.sourceToDetectorMm = 949.075;
  p.detector.cols = 67;
  p.detector.rows = 23;
  p.detector.pitchUMm = 3.5;
  p.detector.pitchVMm = 1.7;
  p.detector.offsetUMm = 4.0;
  p.detector.offsetVMm = -2.5;
  p.detector.surface = DetectorSurface::Cylinder;
  p.anglesRad = {0.0, 0.7, 2.1, -1.3};
  return p;
}

std::string errorOf(const Geometry& g) {
  try {
    g.validate();
  } catch (const ParameterError& e) {
    return e.what();
  }
  return "no error";
}

TEST(ArcFrame, PixelsLieOnTheCylinderCentredOnTheSource) {
  const Geometry g = circularConeBeam(arcParams());
  ASSERT_NO_THROW(g.validate());
  for (std::int64_t i = 0; i < g.viewCount(); ++i) {
    const ArcFrame f = arcFrame(g, i);
    EXPECT_NEAR(f.radius, 949.075, 1e-9);
    EXPECT_NEAR(f.axialOffset, -2.5, 1e-12);
    for (const double col : {0.0, 13.5, 66.0})
      for (const double row : {0.0, 22.0}) {
        const Eigen::Vector3d p = g.pixelPosition(i, col, row);
        EXPECT_NEAR(f.inPlaneDistance(p), 949.075, 1e-9);
        // Consecutive columns are one arc pitch apart along the arc.
        const Eigen::Vector3d q = g.pixelPosition(i, col + 1.0, row);
        const double chord = (q - p).norm();
        EXPECT_NEAR(2.0 * f.radius * std::asin(0.5 * chord / f.radius), 3.5, 1e-9);
      }
    // The centre pixel is the detector centre; rows step along the axis by the row pitch.
    EXPECT_LT((g.pixelPosition(i, 33.0, 11.0) - g.view(i).detectorCentre).norm(), 1e-9);
    EXPECT_LT((g.pixelPosition(i, 5.0, 4.0) - g.pixelPosition(i, 5.0, 3.0) - g.view(i).v).norm(),
              1e-12);
  }
}

TEST(ArcFrame, PositiveColumnsTurnTowardsU) {
  CircularConeParams p = arcParams();
  p.detector.offsetUMm = 0.0;
  p.anglesRad = {0.0};
  const Geometry g = circularConeBeam(p);
  // Source on +x, detector on -x, u along +y: higher columns have larger y, as on a flat panel.
  EXPECT_GT(g.view(0).u.y(), 0.0);
  EXPECT_GT(g.pixelPosition(0, 60.0, 11.0).y(), g.pixelPosition(0, 10.0, 11.0).y());
  const ArcFrame f = arcFrame(g, 0);
  EXPECT_NEAR(f.fanAngle(66.0), 33.0 * 3.5 / 949.075, 1e-15);
}

TEST(ArcFrame, PixelCoordinatesInvertPixelPositions) {
  const Geometry g = circularConeBeam(arcParams());
  std::mt19937_64 rng(test::randomSeed());
  std::uniform_real_distribution<double> col(-0.5, 66.5), row(-0.5, 22.5), depth(0.2, 0.95);
  for (std::int64_t i = 0; i < g.viewCount(); ++i) {
    const ArcFrame f = arcFrame(g, i);
    for (int k = 0; k < 50; ++k) {
      const double c = col(rng), r = row(rng);
      // Any point on the ray from the source to the pixel maps back to the pixel.
      const Eigen::Vector3d point = f.source + depth(rng) * (g.pixelPosition(i, c, r) - f.source);
      const Eigen::Vector2d cr = f.pixelCoordinates(point);
      EXPECT_NEAR(cr.x(), c, 1e-9);
      EXPECT_NEAR(cr.y(), r, 1e-9);
    }
  }
}

TEST(ArcFrame, RayDirectionsEndOnTheArc) {
  const Geometry g = circularConeBeam(arcParams());
  const Eigen::Vector3d d = g.rayDirectionTo(2, 7.0, 19.0);
  const Eigen::Vector3d expected = (g.pixelPosition(2, 7.0, 19.0) - g.view(2).source).normalized();
  EXPECT_LT((d - expected).norm(), 1e-15);
}

TEST(ArcFrame, ProjectionMatrixRefusesNamingTheView) {
  const Geometry g = circularConeBeam(arcParams());
  try {
    g.projectionMatrix(3);
    FAIL() << "no error";
  } catch (const ParameterError& e) {
    EXPECT_NE(std::string(e.what()).find(
                  "view 3 has a cylindrical detector: no 3x4 projection matrix describes it"),
              std::string::npos)
        << e.what();
  }
  EXPECT_TRUE(g.hasCylindricalViews());
  EXPECT_EQ(g.firstCylindricalView(), 0);
  const std::optional<std::string> why = flatDetectorRefusal(g, "FDK");
  ASSERT_TRUE(why.has_value());
  EXPECT_EQ(*why,
            "view 0 has a cylindrical detector: FDK needs a flat detector (a 3x4 projection "
            "matrix per view)");
}

TEST(ArcFrame, ValidateRefusesBadCylindersNamingTheView) {
  Geometry g = circularConeBeam(arcParams());
  g.view(2).v = g.view(2).v + 0.01 * g.view(2).u;  // axis not perpendicular to u
  std::string e = errorOf(g);
  EXPECT_NE(e.find("views[2].v"), std::string::npos) << e;
  EXPECT_NE(e.find("view 2 has a cylindrical detector"), std::string::npos) << e;

  g = circularConeBeam(arcParams());
  g.view(1).u = g.view(1).u + 0.01 * arcFrame(g, 1).n;  // not the arc's tangent
  e = errorOf(g);
  EXPECT_NE(e.find("views[1].u"), std::string::npos) << e;
  EXPECT_NE(e.find("tangent"), std::string::npos) << e;

  CircularConeParams wide = arcParams();
  wide.detector.cols = 1000;  // 3500 mm of arc at 949 mm: more than pi
  e = errorOf(circularConeBeam(wide));
  EXPECT_NE(e.find("at most pi"), std::string::npos) << e;

  Geometry parallel(BeamKind::Parallel, {4, 4}, {View{}});
  parallel.view(0).rayDirection = Eigen::Vector3d::UnitX();
  parallel.view(0).u = Eigen::Vector3d::UnitY();
  parallel.view(0).v = Eigen::Vector3d::UnitZ();
  parallel.view(0).surface = DetectorSurface::Cylinder;
  e = errorOf(parallel);
  EXPECT_NE(e.find("views[0].detector_surface"), std::string::npos) << e;
  EXPECT_NE(e.find("only cone views"), std::string::npos) << e;
}

TEST(ArcFrame, SurfaceIsPartOfViewEquality) {
  const Geometry arc = circularConeBeam(arcParams());
  Geometry flat = arc;
  for (std::int64_t i = 0; i < flat.viewCount(); ++i) flat.view(i).surface = DetectorSurface::Flat;
  EXPECT_FALSE(arc == flat);
  EXPECT_EQ(toString(DetectorSurface::Cylinder), "cylinder");
  EXPECT_EQ(detectorSurfaceFromString("arc"), DetectorSurface::Cylinder);
  EXPECT_FALSE(detectorSurfaceFromString("curved").has_value());
}

TEST(ArcFrame, FlatEquivalentSpansTheSameFan) {
  const Geometry arc = circularConeBeam(arcParams());
  const Geometry flat = flatEquivalentGeometry(arc);
  ASSERT_NO_THROW(flat.validate());
  for (std::int64_t i = 0; i < arc.viewCount(); ++i) {
    EXPECT_EQ(flat.view(i).surface, DetectorSurface::Flat);
    for (const double col : {-0.5, 66.5}) {
      const Eigen::Vector3d a = arc.rayDirectionTo(i, col, 11.0);
      const Eigen::Vector3d f = flat.rayDirectionTo(i, col, 11.0);
      EXPECT_NEAR(std::atan2(a.y(), a.x()), std::atan2(f.y(), f.x()), 1e-12);
    }
  }
}

}  // namespace
}  // namespace tomowb
