// HostArrayOps' operations for PWLS (recon/operator/ArrayOps.h): the element-wise product, the
// hyperbola penalty (its value against a direct sum over the pairs, its gradient against finite
// differences of the value, its curvature bound, each pair once, the grid's edges) and the SQS step
// (clamp, mask, voxels without curvature).
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "recon/core/Error.h"
#include "recon/operator/ArrayOps.h"
#include "support/TestSupport.h"

namespace tomowb::op {
namespace {

HostVolumeArray volumeOf(const VolumeShape& shape) {
  return HostVolumeArray(Volume::centred(shape, Eigen::Vector3d::Ones()));
}

void fillRandom(HostVolumeArray& a, std::uint64_t seed, float scale) {
  std::mt19937_64 generator(seed);
  std::uniform_real_distribution<float> value(-scale, scale);
  for (float& v : a.volume().voxels()) v = value(generator);
}

// beta sum over pairs (j < k in memory order, 26-neighbours) of kappa psi(x_j - x_k), directly.
double directPenalty(const Volume& x, double delta, double beta) {
  const VolumeShape& s = x.shape();
  double sum = 0;
  for (std::int64_t z = 0; z < s.nz; ++z)
    for (std::int64_t y = 0; y < s.ny; ++y)
      for (std::int64_t xi = 0; xi < s.nx; ++xi)
        for (int dz = -1; dz <= 1; ++dz)
          for (int dy = -1; dy <= 1; ++dy)
            for (int dx = -1; dx <= 1; ++dx) {
              const std::int64_t z2 = z + dz, y2 = y + dy, x2 = xi + dx;
              if (z2 < 0 || z2 >= s.nz || y2 < 0 || y2 >= s.ny || x2 < 0 || x2 >= s.nx) continue;
              const std::int64_t j = (z * s.ny + y) * s.nx + xi, k = (z2 * s.ny + y2) * s.nx + x2;
              if (k <= j) continue;
              const double t = double(x.data()[j]) - x.data()[k];
              const double kappa = 1.0 / std::sqrt(double(dx * dx + dy * dy + dz * dz));
              // psi(t) = delta^2 (sqrt(1 + (t/delta)^2) - 1), in the form without the
              // cancellation of sqrt(1 + u^2) - 1 for small u (which cost this reference up to
              // 3e-12 of its value where delta is far above the differences).
              sum += kappa * t * t / (1.0 + std::sqrt(1.0 + (t / delta) * (t / delta)));
            }
  return beta * sum;
}

TEST(HostArrayOps, MultiplyIsElementWise) {
  const HostArrayOps ops;
  HostVolumeArray c = volumeOf({3, 2, 1}), x = volumeOf({3, 2, 1});
  for (int i = 0; i < 6; ++i) {
    c.volume().voxels()[i] = float(i);
    x.volume().voxels()[i] = 2.0f;
  }
  ops.multiply(c, x);
  for (int i = 0; i < 6; ++i) EXPECT_EQ(x.volume().voxels()[i], 2.0f * float(i));
  HostVolumeArray other = volumeOf({2, 2, 1});
  EXPECT_THROW(ops.multiply(other, x), ParameterError);
}

TEST(HostArrayOps, HyperbolaPenaltyCountsEachPairOnceWithInverseDistanceWeights) {
  const HostArrayOps ops;
  const std::uint64_t seed = test::randomSeed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  for (const VolumeShape shape :
       {VolumeShape{7, 5, 4}, VolumeShape{6, 5, 1}, VolumeShape{1, 1, 3}}) {
    HostVolumeArray x = volumeOf(shape), gradient = volumeOf(shape);
    fillRandom(x, seed, 0.05f);
    for (const double delta : {0.001, 0.02, 1.0}) {
      const double value = ops.hyperbolaPenalty(x, shape, delta, 2.5, gradient, nullptr);
      const double direct = directPenalty(x.volume(), delta, 2.5);
      EXPECT_NEAR(value, direct, 1e-12 * std::abs(direct) + 1e-300) << "delta " << delta;
    }
  }
  // Two voxels differing by t: one face pair, psi(t) = delta^2 (sqrt(1 + (t/delta)^2) - 1).
  const VolumeShape pair{2, 1, 1};
  HostVolumeArray x = volumeOf(pair), gradient = volumeOf(pair), curvature = volumeOf(pair);
  x.volume().voxels()[1] = 3.0f;
  const double value = ops.hyperbolaPenalty(x, pair, 1.0, 1.0, gradient, &curvature);
  EXPECT_NEAR(value, std::sqrt(10.0) - 1.0, 1e-12);
  EXPECT_NEAR(gradient.volume().voxels()[0], -3.0 / std::sqrt(10.0), 1e-6);
  EXPECT_NEAR(gradient.volume().voxels()[1], 3.0 / std::sqrt(10.0), 1e-6);
  EXPECT_NEAR(curvature.volume().voxels()[0], 2.0 / std::sqrt(10.0), 1e-6);
}

TEST(HostArrayOps, HyperbolaPenaltyGradientIsTheFiniteDifferenceOfItsValue) {
  const HostArrayOps ops;
  const std::uint64_t seed = test::randomSeed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const VolumeShape shape{6, 5, 4};
  HostVolumeArray x = volumeOf(shape), gradient = volumeOf(shape), scratch = volumeOf(shape);
  fillRandom(x, seed, 1.0f);
  const double delta = 0.7, beta = 1.3;
  ops.hyperbolaPenalty(x, shape, delta, beta, gradient, nullptr);
  std::mt19937_64 generator(seed + 1);
  std::uniform_int_distribution<std::int64_t> voxel(0, shape.voxelCount() - 1);
  // Every corner and face voxel class is hit over the random picks and the first and last voxel.
  for (int trial = 0; trial < 40; ++trial) {
    const std::int64_t j = trial == 0 ? 0 : trial == 1 ? shape.voxelCount() - 1 : voxel(generator);
    float& v = x.volume().voxels()[std::size_t(j)];
    const float original = v;
    // Exact in float, so the quotient sees the steps it took. The five-point quotient: the
    // central one's h^2 f''' / 6 (up to 1.6e-3 here, 26 neighbours) failed 4 % of the seeds.
    const float h = 1.0f / 64;
    auto penaltyAt = [&](float step) {
      v = original + step;
      return ops.hyperbolaPenalty(x, shape, delta, beta, scratch, nullptr);
    };
    const double finite =
        (8.0 * (penaltyAt(h) - penaltyAt(-h)) - (penaltyAt(2 * h) - penaltyAt(-2 * h))) /
        (12.0 * h);
    v = original;
    EXPECT_NEAR(gradient.volume().voxels()[std::size_t(j)], finite, 2e-4 * (1.0 + std::abs(finite)))
        << "voxel " << j;
  }
}

TEST(HostArrayOps, HyperbolaCurvatureIsBoundedByTwiceBetaTimesTheKappaSum) {
  const HostArrayOps ops;
  const VolumeShape shape{5, 5, 5};
  HostVolumeArray x = volumeOf(shape), gradient = volumeOf(shape), curvature = volumeOf(shape);
  // A constant volume: no penalty, no gradient, the largest curvature (omega = 1): at the centre
  // 2 beta (6 + 12 / sqrt 2 + 8 / sqrt 3), at a corner 2 beta (3 + 3 / sqrt 2 + 1 / sqrt 3).
  ops.fill(x, 0.25f);
  EXPECT_EQ(ops.hyperbolaPenalty(x, shape, 0.01, 3.0, gradient, &curvature), 0.0);
  EXPECT_EQ(ops.maxValue(gradient), 0.0);
  const double centre = 6.0 * (6 + 12 / std::sqrt(2.0) + 8 / std::sqrt(3.0));
  const double corner = 6.0 * (3 + 3 / std::sqrt(2.0) + 1 / std::sqrt(3.0));
  EXPECT_NEAR(curvature.volume().voxels()[62], centre, 1e-4);
  EXPECT_NEAR(curvature.volume().voxels()[0], corner, 1e-4);
  // Edges (differences >> delta) cost less curvature.
  fillRandom(x, 7, 1.0f);
  ops.hyperbolaPenalty(x, shape, 0.01, 3.0, gradient, &curvature);
  EXPECT_LT(ops.maxValue(curvature), centre);
  HostVolumeArray wrong = volumeOf({5, 5, 4});
  EXPECT_THROW(ops.hyperbolaPenalty(wrong, shape, 0.01, 1.0, gradient, nullptr), ParameterError);
  EXPECT_THROW(ops.hyperbolaPenalty(x, shape, 0.0, 1.0, gradient, nullptr), ParameterError);
}

TEST(HostArrayOps, SqsStepDividesByTheCurvaturesClampsAndMasks) {
  const HostArrayOps ops;
  const VolumeShape shape{4, 1, 1};
  HostVolumeArray x = volumeOf(shape), descent = volumeOf(shape), gradient = volumeOf(shape),
                  denominator = volumeOf(shape), curvature = volumeOf(shape),
                  mask = volumeOf(shape);
  auto set = [](HostVolumeArray& a, std::initializer_list<float> values) {
    std::copy(values.begin(), values.end(), a.volume().voxels().begin());
  };
  set(x, {1, 1, 1, 1});
  set(descent, {2, 2, -8, 2});
  set(gradient, {1, 0, 0, 1});
  set(denominator, {2, 0, 1, 1});
  set(curvature, {1, 0, 1, 1});
  set(mask, {1, 1, 1, 0});
  // voxel 0: 1 + (3 * 2 - 1) / 3; voxel 1: no curvature, stays; voxel 2: 1 - 24 / 2 clamped to 0;
  // voxel 3: outside the mask.
  ops.sqsStep(x, descent, 3.0, &gradient, denominator, &curvature, &mask, 0.0f, INFINITY);
  EXPECT_FLOAT_EQ(x.volume().voxels()[0], 1.0f + 5.0f / 3.0f);
  EXPECT_EQ(x.volume().voxels()[1], 1.0f);
  EXPECT_EQ(x.volume().voxels()[2], 0.0f);
  EXPECT_EQ(x.volume().voxels()[3], 0.0f);
  // Without the penalty's arrays: the data term's step only.
  set(x, {1, 1, 1, 1});
  ops.sqsStep(x, descent, 1.0, nullptr, denominator, nullptr, nullptr, -INFINITY, INFINITY);
  EXPECT_FLOAT_EQ(x.volume().voxels()[0], 2.0f);
  EXPECT_EQ(x.volume().voxels()[1], 1.0f);
  EXPECT_FLOAT_EQ(x.volume().voxels()[2], -7.0f);
}

}  // namespace
}  // namespace tomowb::op
