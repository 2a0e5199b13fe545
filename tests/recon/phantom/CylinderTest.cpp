#include <gtest/gtest.h>

#include <Eigen/Geometry>
#include <algorithm>
#include <cmath>
#include <numbers>
#include <random>

#include "recon/phantom/Cylinder.h"
#include "support/TestSupport.h"

namespace tomowb::phantom {
namespace {

Cylinder waterBody() {
  Cylinder c;
  c.centreMm = Eigen::Vector3d(2.0, -3.0, 5.0);
  c.radiusMm = 40.0;
  c.halfLengthMm = 25.0;
  c.density = 0.02;
  return c;
}

TEST(Cylinder, ChordAlongTheAxisIsTheLength) {
  const Cylinder c = waterBody();
  const Eigen::Vector3d origin = c.centreMm + Eigen::Vector3d(10.0, -20.0, -100.0);
  EXPECT_NEAR(c.chordLength(origin, Eigen::Vector3d::UnitZ()), 50.0, 1e-9);
  EXPECT_NEAR(c.chordLength(origin, -Eigen::Vector3d::UnitZ()), 50.0, 1e-9);
}

TEST(Cylinder, ChordAcrossTheAxisMatchesTwoRootRSquaredMinusBSquared) {
  const Cylinder c = waterBody();
  for (double b : {0.0, 10.0, 39.0, 40.5}) {
    const Eigen::Vector3d origin = c.centreMm + Eigen::Vector3d(-200.0, b, 7.0);
    const double expected = b < 40.0 ? 2.0 * std::sqrt(1600.0 - b * b) : 0.0;
    EXPECT_NEAR(c.chordLength(origin, Eigen::Vector3d::UnitX()), expected, 1e-9) << b;
  }
}

TEST(Cylinder, ObliqueChordThroughTheCentreIsCutBySideOrCap) {
  const Cylinder c = waterBody();
  // Through the centre at angle theta from the axis: the side limits the chord to 2R/sin and the
  // caps to 2h/cos.
  for (double thetaDeg : {5.0, 30.0, 58.0, 60.0, 75.0, 89.0}) {
    const double theta = thetaDeg * std::numbers::pi / 180.0;
    const Eigen::Vector3d d(std::sin(theta), 0.0, std::cos(theta));
    const double expected = std::min(2.0 * 40.0 / std::sin(theta), 2.0 * 25.0 / std::cos(theta));
    EXPECT_NEAR(c.chordLength(c.centreMm - 500.0 * d, d), expected, 1e-9) << thetaDeg;
  }
}

TEST(Cylinder, LinesOutsideTheSideOrBeyondTheCapsMiss) {
  const Cylinder c = waterBody();
  EXPECT_EQ(c.chordLength(c.centreMm + Eigen::Vector3d(41.0, 0.0, 0.0), Eigen::Vector3d::UnitZ()),
            0.0);
  EXPECT_EQ(c.chordLength(c.centreMm + Eigen::Vector3d(0.0, 0.0, 26.0), Eigen::Vector3d::UnitX()),
            0.0);
  EXPECT_FALSE(c.intersect(c.centreMm + Eigen::Vector3d(0.0, 0.0, 26.0), Eigen::Vector3d::UnitY()));
}

TEST(Cylinder, RotatedChordMatchesBisectionOnContains) {
  std::mt19937_64 rng(tomowb::test::randomSeed());
  std::normal_distribution<double> normal;
  Cylinder c = waterBody();
  c.rotation =
      Eigen::AngleAxisd(0.7, Eigen::Vector3d(1.0, 2.0, -0.5).normalized()).toRotationMatrix();
  auto distanceToSurface = [&](const Eigen::Vector3d& inside, const Eigen::Vector3d& d) {
    double lo = 0.0, hi = 500.0;
    for (int i = 0; i < 200; ++i) {
      const double mid = 0.5 * (lo + hi);
      (c.contains(inside + mid * d) ? lo : hi) = mid;
    }
    return lo;
  };
  std::uniform_real_distribution<double> unit(-0.9, 0.9);
  for (int i = 0; i < 200; ++i) {
    const Eigen::Vector3d local(unit(rng) * 28.0, unit(rng) * 28.0, unit(rng) * 25.0);
    const Eigen::Vector3d inside = c.centreMm + c.rotation * local;
    const Eigen::Vector3d d = Eigen::Vector3d(normal(rng), normal(rng), normal(rng)).normalized();
    const double expected = distanceToSurface(inside, d) + distanceToSurface(inside, -d);
    EXPECT_NEAR(c.chordLength(inside + 77.0 * d, d), expected, 1e-9);
  }
}

TEST(Cylinder, BoundingBoxOfATiltedCylinder) {
  Cylinder c = waterBody();
  const double tilt = 0.3;
  c.rotation = Eigen::AngleAxisd(tilt, Eigen::Vector3d::UnitX()).toRotationMatrix();
  // Axis in the y-z plane: x keeps the radius; y gets R cos + h sin; z gets R sin + h cos.
  const Eigen::Vector3d half = c.halfExtentMm();
  EXPECT_NEAR(half.x(), 40.0, 1e-12);
  EXPECT_NEAR(half.y(), 40.0 * std::cos(tilt) + 25.0 * std::sin(tilt), 1e-12);
  EXPECT_NEAR(half.z(), 40.0 * std::sin(tilt) + 25.0 * std::cos(tilt), 1e-12);
}

TEST(Cylinder, VolumeIsPiRSquaredTimesLength) {
  EXPECT_NEAR(waterBody().volumeMm3(), std::numbers::pi * 1600.0 * 50.0, 1e-9);
}

}  // namespace
}  // namespace tomowb::phantom
