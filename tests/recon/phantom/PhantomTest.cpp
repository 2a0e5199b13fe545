#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <string>

#include "recon/core/Error.h"
#include "recon/phantom/Phantom.h"

namespace tomowb::phantom {
namespace {

constexpr double kScale = 100.0;

Eigen::Vector3d at(double x, double y, double z) {
  return kScale * Eigen::Vector3d(x, y, z);
}

TEST(Phantom, SheppLoganRegionsHaveKakSlaneyValues) {
  const Phantom p = sheppLogan3d(kScale, 1.0);
  ASSERT_EQ(p.ellipsoids().size(), 10u);
  EXPECT_NEAR(p.valueAt(at(0.0, 0.9, 0.0)), 2.0, 1e-12);      // skull (between a and b)
  EXPECT_NEAR(p.valueAt(at(0.0, -0.3, 0.3)), 1.02, 1e-12);    // brain
  EXPECT_NEAR(p.valueAt(at(-0.22, 0.0, -0.25)), 1.0, 1e-12);  // ventricle c
  EXPECT_NEAR(p.valueAt(at(0.22, 0.0, -0.25)), 1.0, 1e-12);   // ventricle d
  EXPECT_NEAR(p.valueAt(at(0.0, 0.12, -0.25)), 1.06, 1e-12);  // f inside e
  EXPECT_NEAR(p.valueAt(at(0.0, 0.1, 0.625)), 1.0, 1e-12);    // j
  EXPECT_NEAR(p.valueAt(at(0.0, 0.0, 0.95)), 0.0, 1e-12);     // outside
}

TEST(Phantom, ModifiedSheppLoganHasHigherContrast) {
  const Phantom p = modifiedSheppLogan3d(kScale, 1.0);
  EXPECT_NEAR(p.valueAt(at(0.0, 0.9, 0.0)), 1.0, 1e-12);
  EXPECT_NEAR(p.valueAt(at(0.0, -0.3, 0.3)), 0.2, 1e-12);
  EXPECT_NEAR(p.valueAt(at(-0.22, 0.0, -0.25)), 0.0, 1e-12);
  EXPECT_NEAR(p.valueAt(at(0.0, 0.12, -0.25)), 0.6, 1e-12);
  EXPECT_NEAR(p.valueAt(at(0.06, -0.105, 0.625)), 0.4, 1e-12);  // i
}

TEST(Phantom, VentricleCIsTurnedOneHundredEightDegreesAboutZ) {
  // Its long semi-axis (0.41) points at 108 degrees from +x: 0.35 along that direction is inside
  // (it would not be at 72 degrees), 0.2 along -x is not (it would be unrotated).
  const Phantom p = sheppLogan3d(kScale, 1.0);
  const double phi = 108.0 * std::numbers::pi / 180.0;
  const Eigen::Vector3d centre = at(-0.22, 0.0, -0.25);
  EXPECT_NEAR(p.valueAt(centre + at(0.35 * std::cos(phi), 0.35 * std::sin(phi), 0.0)), 1.0, 1e-12);
  EXPECT_NEAR(p.valueAt(centre + at(0.0, 0.0, 0.2)), 1.0, 1e-12);  // semi-axis c = 0.21
  EXPECT_NEAR(p.valueAt(centre + at(-0.2, 0.0, 0.0)), 1.02, 1e-12);
}

TEST(Phantom, DefaultDensityScaleMakesTableValueOneWater) {
  const Phantom p = sheppLogan3d(kScale);
  EXPECT_NEAR(p.valueAt(at(0.0, -0.3, 0.3)), 1.02 * kWaterAttenuationPerMm, 1e-15);
  const Phantom m = modifiedSheppLogan3d(kScale);
  EXPECT_NEAR(m.valueAt(at(0.0, 0.9, 0.0)), kWaterAttenuationPerMm, 1e-15);
}

TEST(Phantom, ScaleSetsTheSkullSize) {
  const Phantom p = sheppLogan3d(50.0);
  EXPECT_NEAR(p.boxMaxMm().x(), 0.69 * 50.0, 1e-9);
  EXPECT_NEAR(p.boxMaxMm().y(), 0.92 * 50.0, 1e-9);
  EXPECT_NEAR(p.boxMaxMm().z(), 0.90 * 50.0, 1e-9);
  EXPECT_NEAR(p.boxMinMm().y(), -0.92 * 50.0, 1e-9);
  // A bound, not the tight radius: ellipsoid e reaches |centre| + 0.5 = 0.93 at most.
  EXPECT_GE(p.boundingRadiusMm(), 0.92 * 50.0);
  EXPECT_LE(p.boundingRadiusMm(), 0.94 * 50.0);
}

TEST(Phantom, VolumeIntegralSumsDensityTimesVolume) {
  const Phantom p = sheppLogan3d(kScale, 1.0);
  double expected = 0.0;
  for (const Ellipsoid& e : p.ellipsoids()) expected += e.density * e.volumeMm3();
  EXPECT_NEAR(p.volumeIntegral(), expected, 1e-9 * std::abs(expected));
}

TEST(Phantom, LineAndSegmentIntegralsOfASphere) {
  const Phantom p("sphere", {Ellipsoid::sphere(Eigen::Vector3d(0.0, 0.0, 0.0), 10.0, 0.5)});
  EXPECT_NEAR(p.lineIntegral(Eigen::Vector3d(-50.0, 6.0, 0.0), Eigen::Vector3d::UnitX()),
              0.5 * 2.0 * 8.0, 1e-12);
  // The segment ends at the centre: half the chord.
  EXPECT_NEAR(p.segmentIntegral(Eigen::Vector3d(-50.0, 0.0, 0.0), Eigen::Vector3d::Zero()),
              0.5 * 10.0, 1e-12);
  EXPECT_NEAR(p.segmentIntegral(Eigen::Vector3d(-50.0, 0.0, 0.0), Eigen::Vector3d(-20.0, 0, 0)),
              0.0, 1e-12);
}

TEST(Phantom, OrientationPhantomSpheresSitOnThePositiveAxes) {
  const Phantom p = orientationPhantom(100.0, 1.0);
  EXPECT_EQ(p.valueAt(Eigen::Vector3d::Zero()), 1.0);
  EXPECT_EQ(p.valueAt(Eigen::Vector3d(50.0, 0.0, 0.0)), 1.0);
  EXPECT_EQ(p.valueAt(Eigen::Vector3d(0.0, 50.0, 0.0)), 1.0);
  EXPECT_EQ(p.valueAt(Eigen::Vector3d(0.0, 0.0, 50.0)), 1.0);
  EXPECT_EQ(p.valueAt(Eigen::Vector3d(-50.0, 0.0, 0.0)), 0.0);
  EXPECT_EQ(p.valueAt(Eigen::Vector3d(0.0, -50.0, 0.0)), 0.0);
  EXPECT_EQ(p.valueAt(Eigen::Vector3d(0.0, 0.0, -50.0)), 0.0);
  // Distinct sizes: x 10, y 15, z 20 mm radius.
  EXPECT_EQ(p.valueAt(Eigen::Vector3d(50.0, 11.0, 0.0)), 0.0);
  EXPECT_EQ(p.valueAt(Eigen::Vector3d(0.0, 50.0, 14.0)), 1.0);
  EXPECT_EQ(p.valueAt(Eigen::Vector3d(19.0, 0.0, 50.0)), 1.0);
}

TEST(Phantom, RejectsANonOrthonormalRotationNamingTheField) {
  Ellipsoid e = Ellipsoid::sphere(Eigen::Vector3d::Zero(), 1.0, 1.0);
  e.rotation(0, 1) = 0.3;
  try {
    Phantom("bad", {Ellipsoid::sphere(Eigen::Vector3d::Zero(), 1.0, 1.0), e});
    FAIL() << "no exception";
  } catch (const ParameterError& error) {
    EXPECT_NE(std::string(error.what()).find("phantom.ellipsoids[1].rotation"), std::string::npos)
        << error.what();
  }
}

TEST(Phantom, RejectsANonPositiveSizeNamingTheField) {
  Ellipsoid e = Ellipsoid::sphere(Eigen::Vector3d::Zero(), 1.0, 1.0);
  e.semiAxesMm.y() = 0.0;
  EXPECT_THROW(Phantom("bad", {e}), ParameterError);
  Cylinder c;
  c.halfLengthMm = -1.0;
  try {
    Phantom("bad", {}, {c});
    FAIL() << "no exception";
  } catch (const ParameterError& error) {
    EXPECT_NE(std::string(error.what()).find("phantom.cylinders[0].halfLengthMm"),
              std::string::npos)
        << error.what();
  }
  EXPECT_THROW(sheppLogan3d(0.0), ParameterError);
}

}  // namespace
}  // namespace tomowb::phantom
