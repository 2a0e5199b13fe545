// CnrMeasurement against the voxelised CNR phantom: without noise the means are the phantom's
// insert and water values and the CNR is infinite; with Gaussian noise of known sigma the noise
// figure is sigma and the CNR is contrast / sigma.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "gui/core/CnrMeasurement.h"
#include "recon/phantom/CnrPhantom.h"
#include "recon/phantom/Voxelise.h"

namespace tomowb::gui {
namespace {

// 0.8 mm voxels over the 200 mm cylinder; 24 slices hold the mid-plane inserts (up to 16 mm).
Volume voxelisedCnrPhantom(const phantom::CnrPhantom& cnr) {
  const VolumeShape shape{256, 256, 24};
  const Eigen::Vector3d voxel(0.8, 0.8, 0.8);
  const Eigen::Vector3d origin = -0.5 * voxel.cwiseProduct(Eigen::Vector3d(255, 255, 23));
  return phantom::voxelisePhantom(cnr.phantom(), shape, voxel, origin, 1);
}

CnrRegion region(int id, bool background, std::vector<std::int64_t> voxels) {
  return {id, QStringLiteral("%1 %2").arg(background ? "BG" : "ROI").arg(id), background,
          std::move(voxels)};
}

TEST(CnrMeasurement, NoiseFreePhantomGivesExactMeansAndInfiniteCnr) {
  const phantom::CnrPhantom cnr;
  const Volume volume = voxelisedCnrPhantom(cnr);
  const double water = cnr.waterValuePerMm();
  for (std::size_t i = 0; i < cnr.inserts().size(); ++i) {
    const phantom::CnrInsert& insert = cnr.inserts()[i];
    // Half a voxel inside the surface: every voxel centre is well inside the sphere.
    const auto inside = cnr.insertVoxels(volume, i, 0.4);
    const auto annulus = cnr.backgroundVoxels(volume, i);
    ASSERT_FALSE(inside.empty()) << "insert " << i;
    const CnrFigures f = computeCnr(volume, inside, annulus);
    // float voxels: exact up to float rounding of water * (1 + contrast).
    EXPECT_NEAR(f.signal.mean, insert.valuePerMm, 1e-7 * insert.valuePerMm) << "insert " << i;
    EXPECT_NEAR(f.background.mean, water, 1e-7 * water);
    EXPECT_NEAR(f.contrast, water * insert.contrast, 1e-6 * water);
    EXPECT_LT(f.noise, 1e-7 * water);
    EXPECT_TRUE(std::isinf(f.cnr) || f.cnr > 1e4) << f.cnr;
    EXPECT_GT(f.cnr, 0.0);
    EXPECT_EQ(f.signal.count, static_cast<std::int64_t>(inside.size()));
  }
}

TEST(CnrMeasurement, GaussianNoiseOfKnownSigmaIsTheNoiseFigure) {
  const phantom::CnrPhantom cnr;
  Volume volume = voxelisedCnrPhantom(cnr);
  const double water = cnr.waterValuePerMm();
  const double sigma = 0.002;  // 10 % of water: CNR of the 2 % ring is 0.2
  std::mt19937 random(1234);
  std::normal_distribution<double> noise(0.0, sigma);
  for (float& v : volume.voxels()) v = static_cast<float>(v + noise(random));

  // The largest insert (16 mm) of the 2 % ring: thousands of voxels each side.
  const std::size_t diameters = cnr.params().insertDiametersMm.size();
  const std::size_t index = 2 * diameters + (diameters - 1);
  const phantom::CnrInsert& insert = cnr.inserts()[index];
  ASSERT_DOUBLE_EQ(insert.contrast, 0.02);
  const auto inside = cnr.insertVoxels(volume, index, 0.4);
  const auto annulus = cnr.backgroundVoxels(volume, index);
  ASSERT_GT(annulus.size(), 5000u);
  const CnrFigures f = computeCnr(volume, inside, annulus);
  EXPECT_NEAR(f.noise, sigma, 0.03 * sigma);
  EXPECT_NEAR(f.background.mean, water, 4 * sigma / std::sqrt(double(annulus.size())));
  EXPECT_NEAR(f.signal.mean, insert.valuePerMm, 4 * sigma / std::sqrt(double(inside.size())));
  const double expected = water * insert.contrast / sigma;
  EXPECT_NEAR(f.cnr, expected, 0.25 * expected);
  EXPECT_DOUBLE_EQ(f.cnr, f.contrast / f.noise);
}

TEST(CnrMeasurement, EverySignalRegionAgainstTheUnionOfBackgrounds) {
  Volume volume({4, 1, 1}, Eigen::Vector3d::Ones(), Eigen::Vector3d::Zero());
  volume.at(0, 0, 0) = 10;  // signal
  volume.at(1, 0, 0) = -2;  // cold signal
  volume.at(2, 0, 0) = 1;   // background
  volume.at(3, 0, 0) = 3;   // background
  const auto rows = measureCnr(volume, {region(1, false, {0}), region(2, true, {2, 3}),
                                        region(3, false, {1}), region(4, true, {3, 2})});
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].id, 1);
  EXPECT_EQ(rows[1].id, 3);
  // Background {1, 3} (the duplicates of region 4 count once): mean 2, sample std sqrt(2).
  EXPECT_DOUBLE_EQ(rows[0].figures.background.mean, 2.0);
  EXPECT_EQ(rows[0].figures.background.count, 2);
  EXPECT_DOUBLE_EQ(rows[0].figures.noise, std::sqrt(2.0));
  EXPECT_DOUBLE_EQ(rows[0].figures.cnr, 8.0 / std::sqrt(2.0));
  EXPECT_DOUBLE_EQ(rows[1].figures.cnr, -4.0 / std::sqrt(2.0));
  EXPECT_TRUE(rows[0].measured());
}

TEST(CnrMeasurement, SaysWhyARowHasNoCnr) {
  Volume volume({4, 1, 1}, Eigen::Vector3d::Ones(), Eigen::Vector3d::Zero());
  const auto noBackground = measureCnr(volume, {region(1, false, {0})});
  ASSERT_EQ(noBackground.size(), 1u);
  EXPECT_EQ(noBackground[0].problem, "no background ROI");
  EXPECT_TRUE(std::isnan(noBackground[0].figures.cnr));
  const auto outside = measureCnr(volume, {region(1, false, {}), region(2, true, {1, 2})});
  EXPECT_FALSE(outside[0].measured());
  const auto tinyBackground = measureCnr(volume, {region(1, false, {0}), region(2, true, {1})});
  EXPECT_EQ(tinyBackground[0].problem, "background ROIs cover fewer than 2 voxels");
  EXPECT_TRUE(measureCnr(volume, {region(2, true, {1, 2})}).empty());
}

TEST(CnrMeasurement, NonFiniteVoxelsAreLeftOutAndCounted) {
  Volume volume({4, 1, 1}, Eigen::Vector3d::Ones(), Eigen::Vector3d::Zero());
  volume.at(0, 0, 0) = std::numeric_limits<float>::quiet_NaN();
  volume.at(1, 0, 0) = 5;
  const VoxelListStats s = voxelListStatistics(volume, {0, 1});
  EXPECT_EQ(s.count, 1);
  EXPECT_EQ(s.nonFiniteCount, 1);
  EXPECT_DOUBLE_EQ(s.mean, 5.0);
  EXPECT_TRUE(std::isnan(s.std));
}

TEST(CnrMeasurement, FormatsInfinityAndMissingValues) {
  EXPECT_EQ(formatCnr(std::numeric_limits<double>::infinity()), QStringLiteral("\u221e"));
  EXPECT_EQ(formatCnr(-std::numeric_limits<double>::infinity()), QStringLiteral("\u2212\u221e"));
  EXPECT_EQ(formatCnr(std::numeric_limits<double>::quiet_NaN()), QStringLiteral("\u2014"));
  EXPECT_EQ(formatCnr(12.345678), QStringLiteral("12.35"));
}

}  // namespace
}  // namespace tomowb::gui
