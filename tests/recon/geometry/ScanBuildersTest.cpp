#include <gtest/gtest.h>

#include <Eigen/Geometry>
#include <numbers>

#include "recon/core/Error.h"
#include "recon/geometry/ArcFrame.h"
#include "recon/geometry/ScanBuilders.h"

namespace tomowb {
namespace {

constexpr double kPi = std::numbers::pi;

CircularConeParams smallCone() {
  CircularConeParams p;
  p.sourceToIsocentreMm = 500;
  p.sourceToDetectorMm = 1000;
  p.detector.cols = 64;
  p.detector.rows = 32;
  p.detector.pitchUMm = p.detector.pitchVMm = 2.0;
  p.anglesRad = fullScanAnglesRad(8);
  return p;
}

// Column/row where world point x lands in view i, through the projection matrix.
Eigen::Vector2d project(const Geometry& g, std::int64_t i, const Eigen::Vector3d& x) {
  const Eigen::Vector3d h = g.projectionMatrix(i) * x.homogeneous();
  return {h.x() / h.z(), h.y() / h.z()};
}

TEST(ScanBuilders, SourceAtAngleZeroSitsOnPlusXAndRotatesCounterClockwise) {
  auto p = smallCone();
  p.anglesRad = {0.0, kPi / 2};
  const Geometry g = circularConeBeam(p);
  EXPECT_TRUE(g.view(0).source.isApprox(Eigen::Vector3d(500, 0, 0)));
  EXPECT_TRUE(g.view(1).source.isApprox(Eigen::Vector3d(0, 500, 0), 1e-12));
  EXPECT_TRUE(g.view(0).detectorCentre.isApprox(Eigen::Vector3d(-500, 0, 0)));
}

TEST(ScanBuilders, ColumnsGrowTowardsPlusYAndRowsTowardsPlusZAtAngleZero) {
  auto p = smallCone();
  p.anglesRad = {0.0};
  const Geometry g = circularConeBeam(p);
  const Eigen::Vector2d centre = project(g, 0, Eigen::Vector3d::Zero());
  EXPECT_NEAR(centre.x(), 31.5, 1e-9);
  EXPECT_NEAR(centre.y(), 15.5, 1e-9);
  const Eigen::Vector2d plusY = project(g, 0, Eigen::Vector3d(0, 10, 0));
  const Eigen::Vector2d plusZ = project(g, 0, Eigen::Vector3d(0, 0, 10));
  // Magnification 2, pitch 2 mm: 10 mm at the isocentre is 10 pixels.
  EXPECT_NEAR(plusY.x() - centre.x(), 10.0, 1e-9);
  EXPECT_NEAR(plusZ.y() - centre.y(), 10.0, 1e-9);
}

TEST(ScanBuilders, DetectorOffsetShiftsTheIsocentreImage) {
  auto p = smallCone();
  p.anglesRad = {0.3};
  p.detector.offsetUMm = 8.0;  // 4 pixels
  p.detector.offsetVMm = -4.0;
  const Geometry g = circularConeBeam(p);
  const Eigen::Vector2d centre = project(g, 0, Eigen::Vector3d::Zero());
  EXPECT_NEAR(centre.x(), 31.5 - 4.0, 1e-9);
  EXPECT_NEAR(centre.y(), 15.5 + 2.0, 1e-9);
}

// Turning the detector counter-clockwise (about its normal, which faces the source) turns the
// image of a fixed line clockwise.
TEST(ScanBuilders, InPlaneRotationTurnsTheImageOfTheRotationAxisTheOtherWay) {
  auto p = smallCone();
  p.anglesRad = {0.0};
  p.detector.inPlaneRotationRad = 0.2;
  const Geometry g = circularConeBeam(p);
  const Eigen::Vector2d a = project(g, 0, Eigen::Vector3d(0, 0, -10));
  const Eigen::Vector2d b = project(g, 0, Eigen::Vector3d(0, 0, 10));
  EXPECT_NEAR(std::atan2(-(b - a).x(), (b - a).y()), -0.2, 1e-9);
}

TEST(ScanBuilders, TiltAndSkewKeepPitchesAndChangeTheAngleBetweenAxes) {
  auto p = smallCone();
  p.detector.tiltRad = 0.1;
  p.detector.slantRad = -0.05;
  p.detector.skewRad = 0.02;
  const Geometry g = circularConeBeam(p);
  for (const View& v : g.views()) {
    EXPECT_NEAR(v.u.norm(), 2.0, 1e-12);
    EXPECT_NEAR(v.v.norm(), 2.0, 1e-12);
    EXPECT_NEAR(std::acos(v.u.normalized().dot(v.v.normalized())), kPi / 2 - 0.02, 1e-12);
  }
}

TEST(ScanBuilders, ShortScanCoversPiPlusFanAngle) {
  auto p = smallCone();
  const double fan = fullFanAngleRad(p);
  EXPECT_NEAR(fan, 2 * std::atan(64.0 / 1000.0), 1e-12);
  const auto angles = shortScanAnglesRad(p, 100);
  ASSERT_EQ(angles.size(), 100u);
  EXPECT_NEAR(angles.back() - angles.front(), kPi + fan, 1e-12);
}

TEST(ScanBuilders, HelicalFeedFollowsPitchAndDetectorHeightAtIsocentre) {
  HelicalConeParams h;
  h.circular = smallCone();
  h.circular.anglesRad = arcAnglesRad(9, 4 * kPi);  // two turns
  h.pitch = 1.5;
  h.startZMm = -20;
  const Geometry g = helicalConeBeam(h);
  const double feed = 1.5 * 32 * 2.0 * 0.5;  // pitch x rows x pitchV x SOD/SDD
  EXPECT_NEAR(helicalFeedPerTurnMm(h), feed, 1e-12);
  EXPECT_NEAR(g.view(0).source.z(), -20, 1e-12);
  EXPECT_NEAR(g.view(8).source.z(), -20 + 2 * feed, 1e-9);
  EXPECT_NEAR(g.view(8).detectorCentre.z(), -20 + 2 * feed, 1e-9);
}

TEST(ScanBuilders, ParallelBeamRaysRunFromTheSourceSideAcrossTheAxis) {
  ParallelBeamParams p;
  p.detector.cols = 10;
  p.detector.rows = 4;
  p.anglesRad = {0.0, kPi / 2};
  const Geometry g = parallelBeam(p);
  EXPECT_EQ(g.beam(), BeamKind::Parallel);
  EXPECT_TRUE(g.view(0).rayDirection.isApprox(Eigen::Vector3d(-1, 0, 0)));
  EXPECT_TRUE(g.view(1).rayDirection.isApprox(Eigen::Vector3d(0, -1, 0), 1e-12));
  // Parallel: a point's column does not depend on its depth along the ray.
  const Eigen::Vector2d near = project(g, 0, Eigen::Vector3d(5, 3, 1));
  const Eigen::Vector2d far = project(g, 0, Eigen::Vector3d(-5, 3, 1));
  EXPECT_TRUE(near.isApprox(far));
  EXPECT_NEAR(near.x(), 4.5 + 3, 1e-12);
  EXPECT_NEAR(near.y(), 1.5 + 1, 1e-12);
}

TEST(ScanBuilders, TiltSeriesAxisAppearsAtItsAngleAndShift) {
  TiltSeriesParams t;
  t.cols = t.rows = 100;
  t.pixelSizeMm = 0.5;
  t.tiltAnglesRad = {-0.5, 0.0, 0.5};
  t.tiltAxisAngleRad = 0.3;
  t.tiltAxisShiftPixels = 4.0;
  const Geometry g = tiltSeries(t);
  EXPECT_TRUE(g.view(1).rayDirection.isApprox(Eigen::Vector3d(0, -1, 0), 1e-12));
  for (std::int64_t i = 0; i < 3; ++i) {
    const Eigen::Vector2d a = project(g, i, Eigen::Vector3d(0, 0, 0));
    const Eigen::Vector2d b = project(g, i, Eigen::Vector3d(0, 0, 10));
    // The axis passes through the image centre shifted by 4 pixels across it ...
    const Eigen::Vector2d across(std::cos(0.3), std::sin(0.3));
    EXPECT_NEAR((a - Eigen::Vector2d(49.5, 49.5)).dot(across), 4.0, 1e-9);
    // ... and runs counter-clockwise from +v by the tilt-axis angle.
    EXPECT_NEAR(std::atan2(-(b - a).x(), (b - a).y()), 0.3, 1e-9);
  }
}

TEST(ScanBuilders, RejectsDetectorInsideTheOrbitNamingTheField) {
  auto p = smallCone();
  p.sourceToDetectorMm = 400;
  try {
    circularConeBeam(p);
    FAIL() << "expected ParameterError";
  } catch (const ParameterError& e) {
    EXPECT_NE(std::string(e.what()).find("sourceToDetectorMm"), std::string::npos) << e.what();
  }
}

TEST(ScanBuilders, RejectsEmptyAngleListAndNonFiniteAngles) {
  auto p = smallCone();
  p.anglesRad.clear();
  EXPECT_THROW(circularConeBeam(p), ParameterError);
  p.anglesRad = {0.0, std::nan("")};
  EXPECT_THROW(circularConeBeam(p), ParameterError);
}

TEST(ScanBuilders, GeLightSpeedPresetHasTheSeedsNumbersOnAnArc) {
  const CircularConeParams p = geLightSpeedCircular();
  EXPECT_EQ(p.detector.cols, 888);
  EXPECT_EQ(p.detector.rows, 64);
  EXPECT_EQ(p.anglesRad.size(), 984u);
  EXPECT_DOUBLE_EQ(p.sourceToDetectorMm, 949.075);
  EXPECT_DOUBLE_EQ(p.sourceToIsocentreMm, 541.0);
  const Geometry g = circularConeBeam(p);
  ASSERT_NO_THROW(g.validate());
  EXPECT_EQ(g.view(0).surface, DetectorSurface::Cylinder);
  // 0.625 mm rows at the isocentre; the isocentre's ray on column 443.5 + 1.25.
  EXPECT_NEAR(p.detector.pitchVMm * 541.0 / 949.075, 0.625, 1e-6);
  for (const std::int64_t i : {0, 321}) {
    const Eigen::Vector2d cr = arcFrame(g, i).pixelCoordinates(Eigen::Vector3d::Zero());
    EXPECT_NEAR(cr.x(), 443.5 + 1.25, 1e-9);
    EXPECT_NEAR(cr.y(), 31.5, 1e-9);
  }
  // The fan: 888 channels of 1.0239 mm of arc at 949.075 mm, plus twice the offset.
  EXPECT_NEAR(fullFanAngleRad(p), (888 * 1.0239 + 2 * 1.25 * 1.0239) / 949.075, 1e-12);
  const HelicalConeParams h = geLightSpeedHelical(2.0, 1.0);
  EXPECT_NEAR(helicalFeedPerTurnMm(h), 40.0, 1e-3);
  const Geometry helix = helicalConeBeam(h);
  EXPECT_EQ(helix.viewCount(), 1968);
  EXPECT_NEAR(helix.view(0).source.z(), -40.0, 1e-3);
  EXPECT_NEAR(helix.view(984).source.z(), 0.0, 1e-9);
  EXPECT_NEAR(helix.view(984).source.x(), helix.view(0).source.x(), 1e-9);
  EXPECT_NO_THROW(helix.validate());
}

TEST(ScanBuilders, ArcDetectorRefusesTiltsAndParallelBeams) {
  auto p = smallCone();
  p.detector.surface = DetectorSurface::Cylinder;
  p.detector.tiltRad = 0.01;
  EXPECT_THROW(circularConeBeam(p), ParameterError);
  ParallelBeamParams par;
  par.detector = p.detector;
  par.detector.tiltRad = 0.0;
  par.anglesRad = {0.0};
  try {
    parallelBeam(par);
    FAIL() << "expected ParameterError";
  } catch (const ParameterError& e) {
    EXPECT_NE(std::string(e.what()).find("detector.surface"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace tomowb
