// roiStatistics and contrastToNoise: known data, two noisy constant regions with tolerances set
// from the sample size, and the errors naming "roi" and "background".
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "recon/core/Error.h"
#include "recon/metrics/RoiStatistics.h"
#include "support/TestSupport.h"

namespace tomowb::metrics {
namespace {

Volume unitVolume(std::int64_t nx, std::int64_t ny, std::int64_t nz) {
  return Volume::centred(VolumeShape{nx, ny, nz}, Eigen::Vector3d::Ones());
}

TEST(RoiStatistics, KnownDataGiveMeanSampleStdMinMax) {
  // Slice 1 holds 1..12, the others 100: the slab sees exactly 1..12.
  Volume volume = unitVolume(4, 3, 3);
  for (float& v : volume.voxels()) v = 100.0f;
  for (std::int64_t i = 0; i < 12; ++i) volume.data()[12 + i] = static_cast<float>(i + 1);
  const RoiStats stats = roiStatistics(volume, Region::slab(1, 2));
  EXPECT_EQ(stats.count, 12);
  EXPECT_DOUBLE_EQ(stats.mean, 6.5);
  // Sample variance of 1..n is n(n+1)/12 = 13.
  EXPECT_DOUBLE_EQ(stats.std, std::sqrt(13.0));
  EXPECT_EQ(stats.min, 1.0);
  EXPECT_EQ(stats.max, 12.0);
  EXPECT_EQ(stats.nonFiniteCount, 0);
}

TEST(RoiStatistics, LargeOffsetDoesNotLoseTheStd) {
  // Two passes in double: 1000 +- 0.0625 keeps its std exactly (a one-pass float sum of squares
  // would not).
  Volume volume = unitVolume(64, 64, 1);
  for (std::int64_t i = 0; i < volume.voxelCount(); ++i)
    volume.data()[i] = static_cast<float>(1000.0 + ((i % 2) != 0 ? 0.0625 : -0.0625));
  const RoiStats stats = roiStatistics(volume, Region::whole());
  const double n = static_cast<double>(stats.count);
  EXPECT_DOUBLE_EQ(stats.mean, 1000.0);
  EXPECT_NEAR(stats.std, 0.0625 * std::sqrt(n / (n - 1.0)), 1e-12);
}

TEST(RoiStatistics, SingleVoxelHasNoSampleStd) {
  Volume volume = unitVolume(3, 3, 3);
  volume.at(1, 1, 1) = 4.0f;
  const RoiStats stats = roiStatistics(volume, Region::sphere(Eigen::Vector3d::Zero(), 0.5));
  EXPECT_EQ(stats.count, 1);
  EXPECT_EQ(stats.mean, 4.0);
  EXPECT_TRUE(std::isnan(stats.std));
}

TEST(RoiStatistics, NonFiniteVoxelMakesFiguresNaN) {
  Volume volume = unitVolume(3, 3, 3);
  volume.at(0, 0, 0) = std::nanf("");
  const RoiStats stats = roiStatistics(volume, Region::whole());
  EXPECT_EQ(stats.nonFiniteCount, 1);
  EXPECT_TRUE(std::isnan(stats.mean) && std::isnan(stats.std) && std::isnan(stats.min));
  EXPECT_EQ(roiStatistics(volume, Region::slab(1, 3)).nonFiniteCount, 0);
}

// Two constant regions with Gaussian noise: a hot sphere (10, sigma 1) in a background (4,
// sigma 2) cylinder shell. The CNR estimate's standard error comes from the sample sizes.
class ContrastToNoiseTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::mt19937_64 random(test::randomSeed());
    std::normal_distribution<double> roiNoise(kRoiMean, kRoiSigma);
    std::normal_distribution<double> backgroundNoise(kBackgroundMean, kBackgroundSigma);
    const BoundRegion hot = roi_.bind(volume_);
    for (std::int64_t z = 0; z < volume_.nz(); ++z)
      for (std::int64_t y = 0; y < volume_.ny(); ++y)
        for (std::int64_t x = 0; x < volume_.nx(); ++x)
          volume_.at(x, y, z) = static_cast<float>(hot.contains(x, y, z) ? roiNoise(random)
                                                                         : backgroundNoise(random));
  }

  // 5 standard errors of |m1 - m2| / s when s is estimated from n voxels: the relative error
  // of s is 1/sqrt(2(n-1)), the means' errors are sigma/sqrt(n).
  static double tolerance(double cnr, double contrastError, double noise, std::int64_t n) {
    const double relative = 1.0 / std::sqrt(2.0 * static_cast<double>(n - 1));
    return 5.0 * std::hypot(cnr * relative, contrastError / noise);
  }

  static constexpr double kRoiMean = 10.0, kRoiSigma = 1.0;
  static constexpr double kBackgroundMean = 4.0, kBackgroundSigma = 2.0;
  Volume volume_ = unitVolume(64, 64, 16);
  Region roi_ = Region::sphere(Eigen::Vector3d(0.0, 0.0, 0.0), 7.0);
  Region background_ = Region::centralCylinder(0.9) & Region::slab(0, 16);
};

TEST_F(ContrastToNoiseTest, BackgroundNoiseCnrMatchesTheKnownValue) {
  // The background region contains the sphere: carve it out with a mask.
  std::vector<std::uint8_t> outside = roi_.bind(volume_).toMask();
  for (std::uint8_t& v : outside) v = v == 0;
  const Region background = background_ & Region::mask(outside, volume_.shape(), "not sphere");
  const ContrastToNoise cnr = contrastToNoise(volume_, roi_, background);
  const std::int64_t nRoi = cnr.roi.count;
  const std::int64_t nBackground = cnr.background.count;
  ASSERT_GT(nRoi, 1000);
  ASSERT_GT(nBackground, 30000);
  const double expected = (kRoiMean - kBackgroundMean) / kBackgroundSigma;  // 3
  const double contrastError =
      std::hypot(kRoiSigma / std::sqrt(static_cast<double>(nRoi)),
                 kBackgroundSigma / std::sqrt(static_cast<double>(nBackground)));
  EXPECT_NEAR(cnr.cnr, expected, tolerance(expected, contrastError, kBackgroundSigma, nBackground));
  EXPECT_NEAR(cnr.contrast, kRoiMean - kBackgroundMean, 5.0 * contrastError);
  EXPECT_EQ(cnr.noise, cnr.background.std);
  EXPECT_EQ(cnr.noiseModel, CnrNoise::Background);
  EXPECT_NEAR(cnr.roi.std, kRoiSigma, 5.0 * kRoiSigma / std::sqrt(2.0 * static_cast<double>(nRoi)));
}

TEST_F(ContrastToNoiseTest, PooledNoiseUsesBothStds) {
  std::vector<std::uint8_t> outside = roi_.bind(volume_).toMask();
  for (std::uint8_t& v : outside) v = v == 0;
  const Region background = background_ & Region::mask(outside, volume_.shape());
  const ContrastToNoise cnr = contrastToNoise(volume_, roi_, background, CnrNoise::Pooled);
  const double pooled =
      std::sqrt(0.5 * (kRoiSigma * kRoiSigma + kBackgroundSigma * kBackgroundSigma));
  const double expected = (kRoiMean - kBackgroundMean) / pooled;
  EXPECT_DOUBLE_EQ(cnr.noise, std::sqrt(0.5 * (cnr.roi.std * cnr.roi.std +
                                               cnr.background.std * cnr.background.std)));
  // The pooled std's error is dominated by the smaller (ROI) sample.
  const double contrastError = kRoiSigma / std::sqrt(static_cast<double>(cnr.roi.count));
  EXPECT_NEAR(cnr.cnr, expected, tolerance(expected, contrastError, pooled, cnr.roi.count));
  EXPECT_EQ(toString(cnr.noiseModel), "pooled");
  EXPECT_EQ(cnrNoiseFromString("pooled"), CnrNoise::Pooled);
  EXPECT_EQ(cnrNoiseFromString("background"), CnrNoise::Background);
  EXPECT_FALSE(cnrNoiseFromString("median").has_value());
}

TEST(ContrastToNoise, ColdRoiHasNegativeContrastAndPositiveCnr) {
  Volume volume = unitVolume(8, 8, 2);
  for (std::int64_t i = 0; i < volume.voxelCount(); ++i)
    volume.data()[i] = (i % 2) != 0 ? 5.0f : 7.0f;  // background: mean 6, sample std ~1
  volume.at(0, 0, 0) = 1.0f;
  volume.at(1, 0, 0) = 1.0f;
  std::vector<std::uint8_t> cold(128, 0);
  cold[0] = cold[1] = 1;
  const ContrastToNoise cnr =
      contrastToNoise(volume, Region::mask(cold, volume.shape()), Region::slab(1, 2));
  EXPECT_EQ(cnr.contrast, 1.0 - 6.0);
  const double std = std::sqrt(64.0 / 63.0);
  EXPECT_DOUBLE_EQ(cnr.noise, std);
  EXPECT_DOUBLE_EQ(cnr.cnr, 5.0 / std);
}

TEST(ContrastToNoise, NoiselessBackgroundGivesInfiniteCnr) {
  Volume volume = unitVolume(4, 4, 2);
  volume.at(0, 0, 0) = 3.0f;
  const ContrastToNoise cnr = contrastToNoise(volume, Region::slab(0, 1), Region::slab(1, 2));
  EXPECT_TRUE(std::isinf(cnr.cnr));
}

TEST(ContrastToNoise, EmptyRegionsThrowNamingRoiOrBackground) {
  const Volume volume = unitVolume(4, 4, 4);
  const Region nowhere = Region::sphere(Eigen::Vector3d(30, 0, 0), 1.0);
  try {
    contrastToNoise(volume, nowhere, Region::whole());
    FAIL() << "no ParameterError";
  } catch (const ParameterError& error) {
    EXPECT_NE(std::string(error.what()).find("parameter 'roi'"), std::string::npos) << error.what();
    EXPECT_NE(std::string(error.what()).find("selects no voxel"), std::string::npos);
  }
  try {
    contrastToNoise(volume, Region::whole(), Region::slab(2, 8));
    FAIL() << "no ParameterError";
  } catch (const ParameterError& error) {
    EXPECT_NE(std::string(error.what()).find("parameter 'background'"), std::string::npos)
        << error.what();
  }
}

}  // namespace
}  // namespace tomowb::metrics
