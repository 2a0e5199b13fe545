#include <gtest/gtest.h>

#include <Eigen/Geometry>
#include <cmath>
#include <numbers>
#include <random>

#include "recon/phantom/Ellipsoid.h"
#include "support/TestSupport.h"

namespace tomowb::phantom {
namespace {

Eigen::Vector3d randomUnit(std::mt19937_64& rng) {
  std::normal_distribution<double> n;
  return Eigen::Vector3d(n(rng), n(rng), n(rng)).normalized();
}

Eigen::Matrix3d randomRotation(std::mt19937_64& rng) {
  std::uniform_real_distribution<double> angle(-std::numbers::pi, std::numbers::pi);
  return Eigen::AngleAxisd(angle(rng), randomUnit(rng)).toRotationMatrix();
}

Ellipsoid rotatedEllipsoid(std::mt19937_64& rng) {
  Ellipsoid e;
  e.centreMm = Eigen::Vector3d(12.0, -7.0, 3.5);
  e.semiAxesMm = Eigen::Vector3d(30.0, 11.0, 4.0);
  e.rotation = randomRotation(rng);
  e.density = 0.5;
  return e;
}

// Distance along `direction` from an inside point to the surface, by bisection on contains():
// independent of the closed-form intersection.
double distanceToSurface(const Ellipsoid& e, const Eigen::Vector3d& inside,
                         const Eigen::Vector3d& direction) {
  double lo = 0.0, hi = 2.0 * e.semiAxesMm.maxCoeff() + (inside - e.centreMm).norm();
  for (int i = 0; i < 200; ++i) {
    const double mid = 0.5 * (lo + hi);
    (e.contains(inside + mid * direction) ? lo : hi) = mid;
  }
  return lo;
}

TEST(Ellipsoid, SphereChordMatchesTwoRootRSquaredMinusBSquared) {
  std::mt19937_64 rng(tomowb::test::randomSeed());
  const double radius = 25.0;
  const Ellipsoid sphere = Ellipsoid::sphere(Eigen::Vector3d(-4.0, 9.0, 2.0), radius, 1.0);
  std::uniform_real_distribution<double> impact(0.0, 1.2 * radius);
  for (int i = 0; i < 1000; ++i) {
    const Eigen::Vector3d d = randomUnit(rng);
    Eigen::Vector3d side = d.cross(randomUnit(rng)).normalized();
    const double b = impact(rng);
    // Start far away along the line so the origin is not special.
    const Eigen::Vector3d origin = sphere.centreMm + b * side - 300.0 * d;
    const double expected = b < radius ? 2.0 * std::sqrt(radius * radius - b * b) : 0.0;
    EXPECT_NEAR(sphere.chordLength(origin, d), expected, 1e-9 * radius) << "b = " << b;
  }
}

TEST(Ellipsoid, ChordAlongARotatedAxisMatchesClosedForm) {
  std::mt19937_64 rng(tomowb::test::randomSeed());
  const Ellipsoid e = rotatedEllipsoid(rng);
  const double a = e.semiAxesMm[0], b = e.semiAxesMm[1], c = e.semiAxesMm[2];
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  for (int i = 0; i < 500; ++i) {
    // A line parallel to the ellipsoid's first axis through local (., y, z): it is inside where
    // x^2/a^2 <= 1 - y^2/b^2 - z^2/c^2.
    const double y = unit(rng) * b, z = unit(rng) * c;
    const double rest = 1.0 - y * y / (b * b) - z * z / (c * c);
    const double expected = rest > 0.0 ? 2.0 * a * std::sqrt(rest) : 0.0;
    const Eigen::Vector3d origin = e.centreMm + e.rotation * Eigen::Vector3d(-3.0 * a, y, z);
    EXPECT_NEAR(e.chordLength(origin, e.rotation.col(0)), expected, 1e-9 * a);
    // The opposite direction gives the same chord.
    EXPECT_NEAR(e.chordLength(origin, -e.rotation.col(0)), expected, 1e-9 * a);
  }
}

TEST(Ellipsoid, ObliqueChordMatchesBisectionOnContains) {
  std::mt19937_64 rng(tomowb::test::randomSeed());
  const Ellipsoid e = rotatedEllipsoid(rng);
  std::uniform_real_distribution<double> unit(-0.95, 0.95);
  for (int i = 0; i < 200; ++i) {
    Eigen::Vector3d local(unit(rng), unit(rng), unit(rng));
    if (local.norm() >= 0.95) continue;
    const Eigen::Vector3d inside = e.centreMm + e.rotation * e.semiAxesMm.cwiseProduct(local);
    const Eigen::Vector3d d = randomUnit(rng);
    const double expected = distanceToSurface(e, inside, d) + distanceToSurface(e, inside, -d);
    EXPECT_NEAR(e.chordLength(inside - 100.0 * d, d), expected, 1e-9 * e.semiAxesMm.maxCoeff());
  }
}

TEST(Ellipsoid, LineThatMissesGivesZeroAndTangentGivesAnEmptyChord) {
  const Ellipsoid sphere = Ellipsoid::sphere(Eigen::Vector3d::Zero(), 10.0, 1.0);
  EXPECT_EQ(sphere.chordLength(Eigen::Vector3d(0.0, 10.001, 0.0), Eigen::Vector3d::UnitX()), 0.0);
  EXPECT_FALSE(sphere.intersect(Eigen::Vector3d(0.0, 0.0, 50.0), Eigen::Vector3d::UnitY()));
  EXPECT_NEAR(sphere.chordLength(Eigen::Vector3d(-40.0, 10.0, 0.0), Eigen::Vector3d::UnitX()), 0.0,
              1e-6);
}

TEST(Ellipsoid, IntervalIsInTheUnitsOfTheDirection) {
  const Ellipsoid sphere = Ellipsoid::sphere(Eigen::Vector3d(5.0, 0.0, 0.0), 2.0, 1.0);
  // direction of length 10: the sphere spans x in [3, 7], so t in [0.3, 0.7].
  const auto interval = sphere.intersect(Eigen::Vector3d::Zero(), Eigen::Vector3d(10.0, 0, 0));
  ASSERT_TRUE(interval);
  EXPECT_NEAR(interval->enter, 0.3, 1e-12);
  EXPECT_NEAR(interval->exit, 0.7, 1e-12);
}

TEST(Ellipsoid, BoundingBoxTouchesTheRotatedSurface) {
  std::mt19937_64 rng(tomowb::test::randomSeed());
  const Ellipsoid e = rotatedEllipsoid(rng);
  const Eigen::Vector3d half = e.halfExtentMm();
  Eigen::Vector3d reached = Eigen::Vector3d::Zero();
  for (int i = 0; i < 200000; ++i) {
    const Eigen::Vector3d p = e.rotation * e.semiAxesMm.cwiseProduct(randomUnit(rng));
    reached = reached.cwiseMax(p.cwiseAbs());
  }
  for (int axis = 0; axis < 3; ++axis) {
    EXPECT_LE(reached[axis], half[axis] + 1e-9);
    EXPECT_GT(reached[axis], 0.99 * half[axis]);
  }
}

TEST(Ellipsoid, VolumeIsFourThirdsPiAbc) {
  Ellipsoid e;
  e.semiAxesMm = Eigen::Vector3d(1.0, 2.0, 3.0);
  EXPECT_NEAR(e.volumeMm3(), 8.0 * std::numbers::pi, 1e-12);
}

TEST(Ellipsoid, ContainsItsSurfaceAndNotBeyond) {
  Ellipsoid e;
  e.semiAxesMm = Eigen::Vector3d(4.0, 2.0, 1.0);
  EXPECT_TRUE(e.contains(Eigen::Vector3d(4.0, 0.0, 0.0)));
  EXPECT_TRUE(e.contains(Eigen::Vector3d(0.0, 0.0, -1.0)));
  EXPECT_FALSE(e.contains(Eigen::Vector3d(0.0, 2.0001, 0.0)));
}

}  // namespace
}  // namespace tomowb::phantom
