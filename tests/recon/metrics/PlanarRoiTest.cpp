// PlanarRoi: the statistics of a slice ROI on synthetic volumes with known answers (a constant
// gives SD 0, a ramp its analytic mean and SD, the area is the voxel count times the pixel area),
// on coronal and sagittal slices of an odd-sized anisotropic grid with an offset origin, and an
// ROI reaching past the volume's edge, which is clipped.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "recon/metrics/PlanarRoi.h"

namespace tomowb::metrics {
namespace {

// 7 x 5 x 3 voxels of 0.5 x 2 x 3 mm, voxel (0,0,0) at (10, -4, 1) mm.
Volume oddGrid() {
  return Volume({7, 5, 3}, Eigen::Vector3d(0.5, 2.0, 3.0), Eigen::Vector3d(10.0, -4.0, 1.0));
}

TEST(PlanarRoi, ConstantVolumeGivesZeroStandardDeviation) {
  Volume v = Volume({16, 16, 4}, Eigen::Vector3d::Ones(), Eigen::Vector3d::Zero());
  for (float& x : v.voxels()) x = 2.5f;
  PlanarRoi roi;
  roi.shape = PlanarRoi::Shape::Circle;
  roi.axis = 2;
  roi.sliceMm = 1.0;
  roi.centreMm = {8.0, 8.0};
  roi.halfSizeMm = {4.0, 4.0};
  const PlanarRoiStats s = planarRoiStatistics(v, roi);
  ASSERT_GT(s.voxelCount, 40);
  EXPECT_EQ(s.nonFiniteCount, 0);
  EXPECT_DOUBLE_EQ(s.mean, 2.5);
  EXPECT_DOUBLE_EQ(s.std, 0.0);
  EXPECT_DOUBLE_EQ(s.min, 2.5);
  EXPECT_DOUBLE_EQ(s.max, 2.5);
}

TEST(PlanarRoi, RampGivesTheAnalyticMeanStdMinMaxAndArea) {
  // value = x index: a rectangle over x = 2..6 (5 columns) and y = 1..3 (3 rows) has mean 4,
  // min 2, max 6 and sample variance of {2..6} x 3 rows = sum((x-4)^2) * 3 / 14 = 30 / 14.
  Volume v = Volume({9, 6, 2}, Eigen::Vector3d(0.5, 0.25, 1.0), Eigen::Vector3d::Zero());
  for (std::int64_t z = 0; z < 2; ++z)
    for (std::int64_t y = 0; y < 6; ++y)
      for (std::int64_t x = 0; x < 9; ++x) v.at(x, y, z) = static_cast<float>(x);
  PlanarRoi roi;
  roi.shape = PlanarRoi::Shape::Rectangle;
  roi.axis = 2;
  roi.sliceMm = 1.0;
  roi.centreMm = {2.0, 0.5};     // x index 4, y index 2
  roi.halfSizeMm = {1.1, 0.26};  // x 2..6, y 1..3
  const PlanarRoiStats s = planarRoiStatistics(v, roi);
  EXPECT_EQ(s.voxelCount, 15);
  EXPECT_DOUBLE_EQ(s.mean, 4.0);
  EXPECT_NEAR(s.std, std::sqrt(30.0 / 14.0), 1e-12);
  EXPECT_EQ(s.min, 2.0);
  EXPECT_EQ(s.max, 6.0);
  EXPECT_DOUBLE_EQ(s.areaMm2, 15 * 0.5 * 0.25);
}

TEST(PlanarRoi, AreaIsTheVoxelCountTimesThePixelAreaOfEachAxis) {
  const Volume v = oddGrid();
  for (int axis = 0; axis < 3; ++axis) {
    PlanarRoi roi;
    roi.shape = PlanarRoi::Shape::Rectangle;
    roi.axis = axis;
    roi.sliceMm = v.worldPosition(3, 2, 1)[axis];
    const auto [a, b] = inPlaneAxes(axis);
    const Eigen::Vector3d centre = v.worldPosition(3, 2, 1);
    roi.centreMm = {centre[a], centre[b]};
    roi.halfSizeMm = {100.0, 100.0};  // the whole slice
    const PlanarRoiStats s = planarRoiStatistics(v, roi);
    const std::int64_t n[3] = {v.nx(), v.ny(), v.nz()};
    EXPECT_EQ(s.voxelCount, n[a] * n[b]) << "axis " << axis;
    EXPECT_DOUBLE_EQ(s.areaMm2,
                     static_cast<double>(n[a] * n[b]) * v.voxelSizeMm()[a] * v.voxelSizeMm()[b])
        << "axis " << axis;
  }
}

TEST(PlanarRoi, SagittalAndCoronalSlicesOfAnOddAnisotropicGridPickTheirVoxels) {
  Volume v = oddGrid();
  for (std::int64_t z = 0; z < v.nz(); ++z)
    for (std::int64_t y = 0; y < v.ny(); ++y)
      for (std::int64_t x = 0; x < v.nx(); ++x)
        v.at(x, y, z) = static_cast<float>(100 * x + 10 * y + z);
  // Sagittal (normal x) through x = 5, in-plane (y, z): a rectangle over y 1..3, z 0..1.
  PlanarRoi sagittal;
  sagittal.shape = PlanarRoi::Shape::Rectangle;
  sagittal.axis = 0;
  sagittal.sliceMm = v.worldPosition(5, 0, 0).x() + 0.2;  // nearest is still x = 5
  sagittal.centreMm = {v.worldPosition(0, 2, 0).y(), v.worldPosition(0, 0, 0.5).z()};
  sagittal.halfSizeMm = {2.1, 1.6};
  std::vector<std::int64_t> expected;
  for (std::int64_t z = 0; z <= 1; ++z)
    for (std::int64_t y = 1; y <= 3; ++y) expected.push_back(v.index(5, y, z));
  EXPECT_EQ(planarRoiVoxels(v, sagittal), expected);
  const PlanarRoiStats s = planarRoiStatistics(v, sagittal);
  EXPECT_DOUBLE_EQ(s.mean, 500 + 20 + 0.5);
  EXPECT_DOUBLE_EQ(s.areaMm2, 6 * 2.0 * 3.0);
  // Coronal (normal y) through y = 4, in-plane (x, z): a circle of radius 1 mm about x = 3,
  // z = 2 holds x 1..5 (0.5 mm apart) on z = 2 only (z is 3 mm apart).
  PlanarRoi coronal;
  coronal.shape = PlanarRoi::Shape::Circle;
  coronal.axis = 1;
  coronal.sliceMm = v.worldPosition(0, 4, 0).y();
  coronal.centreMm = {v.worldPosition(3, 0, 0).x(), v.worldPosition(0, 0, 2).z()};
  coronal.halfSizeMm = {1.0, 1.0};
  const PlanarRoiStats c = planarRoiStatistics(v, coronal);
  EXPECT_EQ(c.voxelCount, 5);
  EXPECT_DOUBLE_EQ(c.mean, 300 + 40 + 2);
  EXPECT_EQ(c.min, 100 + 40 + 2);
  EXPECT_EQ(c.max, 500 + 40 + 2);
}

TEST(PlanarRoi, RoiPartlyOutsideTheSliceIsClipped) {
  Volume v = Volume({10, 8, 1}, Eigen::Vector3d::Ones(), Eigen::Vector3d::Zero());
  for (float& x : v.voxels()) x = 1.0f;
  PlanarRoi roi;
  roi.shape = PlanarRoi::Shape::Rectangle;
  roi.axis = 2;
  roi.sliceMm = 0.0;
  roi.centreMm = {-1.0, 6.0};  // x -4..2 (only 0..2 inside), y 3..9 (only 3..7 inside)
  roi.halfSizeMm = {3.0, 3.0};
  const PlanarRoiStats s = planarRoiStatistics(v, roi);
  EXPECT_EQ(s.voxelCount, 3 * 5);
  EXPECT_DOUBLE_EQ(s.areaMm2, 15.0);
  EXPECT_DOUBLE_EQ(s.mean, 1.0);
  // Wholly outside the slice: nothing, and NaN figures rather than zeros.
  roi.centreMm = {-20.0, 6.0};
  const PlanarRoiStats none = planarRoiStatistics(v, roi);
  EXPECT_EQ(none.voxelCount, 0);
  EXPECT_EQ(none.areaMm2, 0.0);
  EXPECT_TRUE(std::isnan(none.mean));
  EXPECT_TRUE(std::isnan(none.std));
  // A slice position outside the volume selects nothing.
  roi.centreMm = {5.0, 4.0};
  roi.sliceMm = 3.0;
  EXPECT_TRUE(planarRoiVoxels(v, roi).empty());
}

TEST(PlanarRoi, NonFiniteVoxelsAreCountedAndLeftOut) {
  Volume v = Volume({3, 1, 1}, Eigen::Vector3d::Ones(), Eigen::Vector3d::Zero());
  v.at(0, 0, 0) = 1.0f;
  v.at(1, 0, 0) = std::numeric_limits<float>::quiet_NaN();
  v.at(2, 0, 0) = 3.0f;
  PlanarRoi roi;
  roi.shape = PlanarRoi::Shape::Rectangle;
  roi.centreMm = {1.0, 0.0};
  roi.halfSizeMm = {1.0, 0.5};
  const PlanarRoiStats s = planarRoiStatistics(v, roi);
  EXPECT_EQ(s.voxelCount, 3);
  EXPECT_EQ(s.nonFiniteCount, 1);
  EXPECT_DOUBLE_EQ(s.mean, 2.0);
  EXPECT_DOUBLE_EQ(s.std, std::sqrt(2.0));
  EXPECT_DOUBLE_EQ(s.areaMm2, 3.0);
}

TEST(PlanarRoi, SingleVoxelHasNoSampleStd) {
  Volume v = Volume({3, 3, 1}, Eigen::Vector3d::Ones(), Eigen::Vector3d::Zero());
  v.at(1, 1, 0) = 7.0f;
  PlanarRoi roi;
  roi.centreMm = {1.0, 1.0};
  roi.halfSizeMm = {0.5, 0.5};
  const PlanarRoiStats s = planarRoiStatistics(v, roi);
  EXPECT_EQ(s.voxelCount, 1);
  EXPECT_EQ(s.mean, 7.0);
  EXPECT_TRUE(std::isnan(s.std));
}

}  // namespace
}  // namespace tomowb::metrics
