// compareVolumes: RMSE, NRMSE, PSNR, max-abs and mean difference against hand computations, the
// edge cases (identical volumes, non-finite voxels) and the errors.
#include <gtest/gtest.h>
#include <omp.h>

#include <cmath>
#include <limits>
#include <random>

#include "recon/core/Error.h"
#include "recon/metrics/ImageMetrics.h"
#include "support/TestSupport.h"

namespace tomowb::metrics {
namespace {

Volume unitVolume(std::int64_t nx, std::int64_t ny, std::int64_t nz) {
  return Volume::centred(VolumeShape{nx, ny, nz}, Eigen::Vector3d::Ones());
}

// A smooth, non-constant test image: a ramp plus a bump.
Volume smoothVolume(std::int64_t n, std::int64_t nz) {
  Volume volume = unitVolume(n, n, nz);
  for (std::int64_t z = 0; z < nz; ++z)
    for (std::int64_t y = 0; y < n; ++y)
      for (std::int64_t x = 0; x < n; ++x) {
        const double r2 =
            static_cast<double>((x - n / 2) * (x - n / 2) + (y - n / 3) * (y - n / 3));
        volume.at(x, y, z) =
            static_cast<float>(0.01 * static_cast<double>(x + z) +
                               std::exp(-r2 / (0.05 * static_cast<double>(n * n))));
      }
  return volume;
}

TEST(ImageMetrics, IdenticalVolumesGiveZeroRmseUnitSsimInfinitePsnr) {
  const Volume reference = smoothVolume(32, 3);
  const ComparisonMetrics m = compareVolumes(reference, reference);
  EXPECT_EQ(m.rmse, 0.0);
  EXPECT_EQ(m.nrmse, 0.0);
  EXPECT_EQ(m.maxAbsDifference, 0.0);
  EXPECT_EQ(m.meanDifference, 0.0);
  EXPECT_TRUE(std::isinf(m.psnrDb) && m.psnrDb > 0.0);
  ASSERT_TRUE(m.ssim.has_value());
  EXPECT_NEAR(*m.ssim, 1.0, 1e-12);
  EXPECT_EQ(m.voxelCount, reference.voxelCount());
  EXPECT_EQ(m.nonFiniteCount, 0);
}

TEST(ImageMetrics, ConstantOffsetGivesRmseEqualToTheOffset) {
  const Volume reference = smoothVolume(24, 2);
  Volume test = reference;
  for (float& v : test.voxels()) v -= 0.25f;
  const ComparisonMetrics m = compareVolumes(test, reference);
  // float32 voxels: the offset is exact to about 1e-7 of the values (< 1.1).
  EXPECT_NEAR(m.rmse, 0.25, 1e-6);
  EXPECT_NEAR(m.meanDifference, -0.25, 1e-6);
  EXPECT_NEAR(m.maxAbsDifference, 0.25, 1e-6);
  EXPECT_NEAR(m.nrmse, m.rmse / (m.referenceMax - m.referenceMin), 1e-15);
  ASSERT_TRUE(m.ssim.has_value());
  EXPECT_LT(*m.ssim, 1.0);
}

TEST(ImageMetrics, NrmseAndPsnrMatchHandComputation) {
  // reference 0 1 2 3, test 0 1 2 5: d = 0 0 0 2, MSE = 4/4 = 1, range 3.
  Volume reference = unitVolume(2, 2, 1);
  Volume test = unitVolume(2, 2, 1);
  const float r[] = {0, 1, 2, 3};
  const float t[] = {0, 1, 2, 5};
  std::copy(r, r + 4, reference.data());
  std::copy(t, t + 4, test.data());
  CompareOptions noSsim;
  noSsim.computeSsim = false;
  const ComparisonMetrics m = compareVolumes(test, reference, Region::whole(), noSsim);
  EXPECT_DOUBLE_EQ(m.rmse, 1.0);
  EXPECT_DOUBLE_EQ(m.nrmse, 1.0 / 3.0);
  EXPECT_DOUBLE_EQ(m.psnrDb, 20.0 * std::log10(3.0));
  EXPECT_DOUBLE_EQ(m.maxAbsDifference, 2.0);
  EXPECT_DOUBLE_EQ(m.meanDifference, 0.5);
  EXPECT_EQ(m.referenceMin, 0.0);
  EXPECT_EQ(m.referenceMax, 3.0);
  EXPECT_EQ(m.dataRange, 3.0);
  EXPECT_EQ(m.voxelCount, 4);
  EXPECT_FALSE(m.ssim.has_value());

  // A given peak (RabbitCT's 4095) replaces the range in PSNR, not in NRMSE.
  CompareOptions peak = noSsim;
  peak.dataRange = 4095.0;
  const ComparisonMetrics p = compareVolumes(test, reference, Region::whole(), peak);
  EXPECT_DOUBLE_EQ(p.psnrDb, 20.0 * std::log10(4095.0));
  EXPECT_DOUBLE_EQ(p.nrmse, 1.0 / 3.0);
  EXPECT_EQ(p.dataRange, 4095.0);
}

TEST(ImageMetrics, RegionRestrictsEveryFigure) {
  // Only slice 0 differs (by 1), and only x = 0 of it; the range is taken inside the region.
  Volume reference = unitVolume(4, 4, 3);
  for (std::int64_t z = 0; z < 3; ++z)
    for (std::int64_t x = 0; x < 4; ++x)
      for (std::int64_t y = 0; y < 4; ++y) reference.at(x, y, z) = static_cast<float>(x + 10 * z);
  Volume test = reference;
  for (std::int64_t y = 0; y < 4; ++y) test.at(0, y, 0) += 1.0f;
  CompareOptions noSsim;
  noSsim.computeSsim = false;

  const ComparisonMetrics slice0 = compareVolumes(test, reference, Region::slab(0, 1), noSsim);
  EXPECT_EQ(slice0.voxelCount, 16);
  EXPECT_DOUBLE_EQ(slice0.rmse, 0.5);  // sqrt(4 / 16)
  EXPECT_DOUBLE_EQ(slice0.nrmse, 0.5 / 3.0);
  EXPECT_EQ(slice0.referenceMax, 3.0);

  const ComparisonMetrics others = compareVolumes(test, reference, Region::slab(1, 3), noSsim);
  EXPECT_EQ(others.rmse, 0.0);
  EXPECT_EQ(others.referenceMin, 10.0);
  EXPECT_EQ(others.referenceMax, 23.0);
}

TEST(ImageMetrics, ResultDoesNotDependOnTheThreadCount) {
  const std::uint64_t seed = test::randomSeed();
  std::mt19937_64 random(seed);
  std::normal_distribution<float> noise(0.0f, 0.1f);
  const Volume reference = smoothVolume(48, 24);
  Volume test = reference;
  for (float& v : test.voxels()) v += noise(random);
  const Region region = Region::centralCylinder(0.9).slices(2, 22);

  const int threads = omp_get_max_threads();
  omp_set_num_threads(1);
  const ComparisonMetrics one = compareVolumes(test, reference, region);
  omp_set_num_threads(std::max(2, threads));
  const ComparisonMetrics many = compareVolumes(test, reference, region);
  omp_set_num_threads(threads);
  EXPECT_EQ(one.rmse, many.rmse);
  EXPECT_EQ(one.meanDifference, many.meanDifference);
  EXPECT_EQ(one.ssim, many.ssim);
  // ~29k voxels: the standard error of the RMSE is 0.0004, so 0.005 is over 10 of them.
  EXPECT_NEAR(one.rmse, 0.1, 0.005);
}

TEST(ImageMetrics, NonFiniteVoxelMakesEveryFigureNaN) {
  const Volume reference = smoothVolume(8, 2);
  Volume test = reference;
  test.at(3, 3, 1) = std::numeric_limits<float>::infinity();
  const ComparisonMetrics m = compareVolumes(test, reference);
  EXPECT_EQ(m.nonFiniteCount, 1);
  EXPECT_TRUE(std::isnan(m.rmse));
  EXPECT_TRUE(std::isnan(m.nrmse));
  EXPECT_TRUE(std::isnan(m.psnrDb));
  EXPECT_TRUE(std::isnan(m.maxAbsDifference));
  EXPECT_TRUE(std::isnan(m.meanDifference));
  ASSERT_TRUE(m.ssim.has_value());
  EXPECT_TRUE(std::isnan(*m.ssim));
  // Outside the region the bad voxel does not count.
  EXPECT_EQ(compareVolumes(test, reference, Region::slab(0, 1)).rmse, 0.0);
}

TEST(ImageMetrics, FlatReferenceGivesInfiniteNrmse) {
  Volume reference = unitVolume(6, 6, 1);
  for (float& v : reference.voxels()) v = 2.0f;
  Volume test = reference;
  test.at(0, 0, 0) = 3.0f;
  const ComparisonMetrics m = compareVolumes(test, reference);
  EXPECT_TRUE(std::isinf(m.nrmse) && m.nrmse > 0.0);
  EXPECT_TRUE(std::isinf(m.psnrDb) && m.psnrDb < 0.0);
  EXPECT_TRUE(std::isnan(*m.ssim));
  CompareOptions range;
  range.dataRange = 1.0;
  EXPECT_TRUE(std::isfinite(*compareVolumes(test, reference, Region::whole(), range).ssim));
}

TEST(ImageMetrics, ShapeMismatchThrowsNamingBothShapes) {
  const Volume reference = unitVolume(8, 8, 8);
  const Volume test = unitVolume(8, 8, 4);
  try {
    compareVolumes(test, reference);
    FAIL() << "no ParameterError";
  } catch (const ParameterError& error) {
    EXPECT_NE(std::string(error.what()).find("shape 8x8x4 does not match the reference's 8x8x8"),
              std::string::npos)
        << error.what();
  }
}

TEST(ImageMetrics, EmptyRegionThrows) {
  const Volume volume = unitVolume(4, 4, 4);
  try {
    compareVolumes(volume, volume, Region::sphere(Eigen::Vector3d(50, 50, 50), 1.0));
    FAIL() << "no ParameterError";
  } catch (const ParameterError& error) {
    EXPECT_NE(std::string(error.what()).find("selects no voxel"), std::string::npos)
        << error.what();
  }
}

TEST(ImageMetrics, InvalidDataRangeThrows) {
  const Volume volume = unitVolume(4, 4, 4);
  CompareOptions options;
  options.dataRange = 0.0;
  EXPECT_THROW(compareVolumes(volume, volume, Region::whole(), options), ParameterError);
  options.dataRange = std::numeric_limits<double>::infinity();
  EXPECT_THROW(compareVolumes(volume, volume, Region::whole(), options), ParameterError);
}

}  // namespace
}  // namespace tomowb::metrics
