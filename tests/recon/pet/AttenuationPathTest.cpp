// AttenuationPath: exact line integrals through voxel boxes, clipping to the grid, early stop.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "recon/pet/AttenuationPath.h"
#include "support/TestSupport.h"

namespace tomowb::pet {
namespace {

using Vec3d = Vec3<double>;

// A 10 x 8 x 6 grid of 2 x 3 x 4 mm voxels centred on the origin.
struct Grid {
  std::vector<float> mu;
  AttenuationGrid view;
  explicit Grid(float value) : mu(10 * 8 * 6, value) {
    view.mu = mu.data();
    view.nx = 10;
    view.ny = 8;
    view.nz = 6;
    const double size[3] = {2, 3, 4};
    for (int k = 0; k < 3; ++k) {
      view.voxelMm[k] = size[k];
      view.originMm[k] = -0.5 * size[k] * double((k == 0 ? 10 : k == 1 ? 8 : 6) - 1);
    }
  }
};

// The length of the segment a -> b inside the box [-10, 10] x [-12, 12] x [-12, 12].
double lengthInBox(Vec3d a, Vec3d b) {
  const double half[3] = {10, 12, 12};
  const double s[3] = {a.x, a.y, a.z}, d[3] = {b.x - a.x, b.y - a.y, b.z - a.z};
  double t0 = 0, t1 = 1;
  for (int k = 0; k < 3; ++k) {
    if (d[k] == 0) {
      if (std::fabs(s[k]) > half[k]) return 0;
      continue;
    }
    double lo = (-half[k] - s[k]) / d[k], hi = (half[k] - s[k]) / d[k];
    if (lo > hi) std::swap(lo, hi);
    t0 = std::max(t0, lo);
    t1 = std::min(t1, hi);
  }
  return t1 > t0 ? (t1 - t0) * norm(b - a) : 0.0;
}

TEST(AttenuationPath, UniformGridGivesMuTimesTheChord) {
  const std::uint64_t seed = test::randomSeed();
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-30, 30);
  const Grid g(0.0096f);
  for (int trial = 0; trial < 2000; ++trial) {
    const Vec3d a{u(rng), u(rng), u(rng)}, b{u(rng), u(rng), u(rng)};
    const double expected = double(0.0096f) * lengthInBox(a, b);
    ASSERT_NEAR(segmentIntegral(g.view, a, b, 1e30), expected, 1e-9) << "trial " << trial;
  }
  // Axis-parallel lines through the middle: the box's full width.
  EXPECT_NEAR(segmentIntegral(g.view, Vec3d{-50, 0.5, 0.5}, Vec3d{50, 0.5, 0.5}, 1e30),
              double(0.0096f) * 20, 1e-12);
  EXPECT_NEAR(segmentIntegral(g.view, Vec3d{0.1, 0.2, 40}, Vec3d{0.1, 0.2, -40}, 1e30),
              double(0.0096f) * 24, 1e-12);
  EXPECT_EQ(segmentIntegral(g.view, Vec3d{50, 50, 0}, Vec3d{60, 50, 0}, 1e30), 0.0);
}

TEST(AttenuationPath, EachVoxelCountsWithItsOwnValue) {
  Grid g(0.0f);
  // One hot voxel (3, 4, 2): centre (-3, 1.5, -2); a line along x through it crosses 2 mm.
  g.mu[(2 * 8 + 4) * 10 + 3] = 0.5f;
  EXPECT_NEAR(segmentIntegral(g.view, Vec3d{-20, 1.5, -2}, Vec3d{20, 1.5, -2}, 1e30), 1.0, 1e-12);
  // A 45-degree segment from (-4, 0.5) to (-2, 2.5) lies inside it: 2 sqrt(2) mm of 0.5 /mm.
  EXPECT_NEAR(segmentIntegral(g.view, Vec3d{-4, 0.5, -2}, Vec3d{-2, 2.5, -2}, 1e30),
              0.5 * 2.0 * std::sqrt(2.0), 1e-9);
}

TEST(AttenuationPath, StopsOnceTheLimitIsPassed) {
  const Grid g(1.0f);
  const double value = segmentIntegral(g.view, Vec3d{-50, 0, 0}, Vec3d{50, 0, 0}, 3.0);
  EXPECT_GT(value, 3.0);
  EXPECT_LE(value, 3.0 + 2.0);  // at most one more voxel (2 mm of mu = 1)
}

}  // namespace
}  // namespace tomowb::pet
