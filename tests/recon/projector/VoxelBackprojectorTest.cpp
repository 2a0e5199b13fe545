#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <random>

#include "recon/geometry/ScanBuilders.h"
#include "recon/projector/JosephProjector.h"
#include "recon/projector/VoxelBackprojector.h"
#include "support/TestSupport.h"

namespace tomowb::projector {
namespace {

constexpr double kDeg = std::numbers::pi / 180.0;

Geometry etSeries(std::int64_t cols, std::int64_t rows, double pixelMm) {
  TiltSeriesParams p;
  p.cols = cols;
  p.rows = rows;
  p.pixelSizeMm = pixelMm;
  p.tiltAnglesRad = arcAnglesRad(61, 120 * kDeg, -60 * kDeg);
  return tiltSeries(p);
}

TEST(VoxelBackprojector, OnesGiveViewsTimesVoxelVolumeOverPixelArea) {
  // Inside the field of view every view adds V / (pixel area) for rays perpendicular to the
  // detector: 61 views x (0.5^3) / (0.5^2).
  const Geometry g = etSeries(64, 4, 0.5);
  ProjectionStack ones(g);
  std::fill(ones.pixels().begin(), ones.pixels().end(), 1.0f);
  Volume volume = Volume::centred({16, 8, 4}, Eigen::Vector3d::Constant(0.5));
  voxelBackproject(ones, volume);
  for (const float v : volume.voxels()) EXPECT_NEAR(v, 61 * 0.5, 1e-4);
}

TEST(VoxelBackprojector, IsCloseToTheJosephTranspose) {
  // The unmatched pair: <A x, y> and <x, B y> agree closely on positive data (reference/
  // sirt-et.md section 6 measured 5e-5 to 7e-5 for uniform [0, 1) data).
  std::mt19937_64 rng(test::randomSeed());
  std::uniform_real_distribution<float> value(0.0f, 1.0f);
  const Geometry g = etSeries(80, 6, 1.0);
  Volume x = Volume::centred({64, 40, 6}, Eigen::Vector3d::Ones());
  for (float& v : x.voxels()) v = value(rng);
  ProjectionStack y(g);
  for (float& v : y.pixels()) v = value(rng);
  ProjectionStack ax(g);
  josephForward(x, ax);
  Volume by = Volume::centred(x.shape(), Eigen::Vector3d::Ones());
  voxelBackproject(y, by);
  double lhs = 0, rhs = 0;
  for (std::int64_t i = 0; i < ax.pixelCount(); ++i)
    lhs += static_cast<double>(ax.pixels()[i]) * y.pixels()[i];
  for (std::int64_t i = 0; i < x.voxelCount(); ++i)
    rhs += static_cast<double>(x.voxels()[i]) * by.voxels()[i];
  EXPECT_LT(std::abs(lhs - rhs) / lhs, 2e-3) << lhs << " vs " << rhs;
}

TEST(VoxelBackprojector, AddsIntoTheVolumeAndOnlyTheListedViews) {
  const Geometry g = etSeries(32, 4, 1.0);
  ProjectionStack ones(g);
  std::fill(ones.pixels().begin(), ones.pixels().end(), 1.0f);
  Volume volume = Volume::centred({8, 8, 4}, Eigen::Vector3d::Ones());
  std::fill(volume.voxels().begin(), volume.voxels().end(), 2.0f);
  voxelBackproject(ones, volume, std::vector<std::int64_t>{0, 30});
  for (const float v : volume.voxels()) EXPECT_NEAR(v, 4.0, 1e-5);
}

TEST(VoxelBackprojector, SamplesZeroOutsideTheDetector) {
  // A grid wider than the detector: its outer columns see nothing at tilt 0.
  TiltSeriesParams p;
  p.cols = 8;
  p.rows = 2;
  p.tiltAnglesRad = {0.0};
  ProjectionStack ones(tiltSeries(p));
  std::fill(ones.pixels().begin(), ones.pixels().end(), 1.0f);
  Volume volume = Volume::centred({20, 2, 2}, Eigen::Vector3d::Ones());
  voxelBackproject(ones, volume);
  EXPECT_EQ(volume.at(0, 0, 0), 0.0f);
  EXPECT_EQ(volume.at(19, 1, 1), 0.0f);
  EXPECT_NEAR(volume.at(10, 0, 0), 1.0f, 1e-6);
}

}  // namespace
}  // namespace tomowb::projector
