// SliceLineProfile: the profile of a linear ramp is the ramp itself at every sample (bilinear
// interpolation is exact on it), samples are evenly spaced in mm on anisotropic voxels, points
// outside the voxel centres are NaN.
#include <gtest/gtest.h>

#include <cmath>

#include "recon/metrics/SliceLineProfile.h"

namespace tomowb::metrics {
namespace {

// value = 2*x_mm - 3*y_mm + z_mm: linear in world mm, so bilinear samples are exact.
Volume rampVolume(const Eigen::Vector3d& voxelMm, const Eigen::Vector3d& originMm) {
  Volume v({9, 7, 5}, voxelMm, originMm);
  for (std::int64_t z = 0; z < v.nz(); ++z)
    for (std::int64_t y = 0; y < v.ny(); ++y)
      for (std::int64_t x = 0; x < v.nx(); ++x) {
        const Eigen::Vector3d p = v.worldPosition(x, y, z);
        v.at(x, y, z) = static_cast<float>(2 * p.x() - 3 * p.y() + p.z());
      }
  return v;
}

TEST(SliceLineProfile, RampIsReproducedAlongADiagonalInPhysicalDistance) {
  const Volume v = rampVolume({0.5, 0.25, 2.0}, {1.0, -1.0, 3.0});
  const Eigen::Vector2d from(1.2, -0.9), to(4.7, 0.4);  // axial (x, y)
  const double sliceMm = v.worldPosition(0, 0, 2).z();
  const SliceLineProfile p = sliceLineProfile(v, 2, sliceMm, from, to);
  const double length = (to - from).norm();
  EXPECT_DOUBLE_EQ(p.lengthMm, length);
  // One sample per smallest in-plane voxel edge (0.25 mm), both ends included.
  ASSERT_EQ(p.values.size(), static_cast<std::size_t>(std::ceil(length / 0.25) + 1));
  ASSERT_EQ(p.distanceMm.size(), p.values.size());
  EXPECT_EQ(p.distanceMm.front(), 0.0);
  EXPECT_DOUBLE_EQ(p.distanceMm.back(), length);
  for (std::size_t i = 0; i < p.values.size(); ++i) {
    const double t = p.distanceMm[i] / length;
    const Eigen::Vector2d q = from + t * (to - from);
    EXPECT_NEAR(p.values[i], 2 * q.x() - 3 * q.y() + sliceMm, 1e-5) << "sample " << i;
    if (i > 0) {
      EXPECT_NEAR(p.distanceMm[i] - p.distanceMm[i - 1], length / (p.values.size() - 1), 1e-12);
    }
  }
}

TEST(SliceLineProfile, SagittalSliceUsesYAndZ) {
  const Volume v = rampVolume({1.0, 0.5, 0.75}, {0.0, 0.0, 0.0});
  const double sliceMm = v.worldPosition(4, 0, 0).x();  // x = 4 mm
  const Eigen::Vector2d from(0.3, 0.2), to(2.9, 2.6);   // (y, z)
  const SliceLineProfile p = sliceLineProfile(v, 0, sliceMm, from, to);
  ASSERT_GE(p.values.size(), 2u);
  EXPECT_NEAR(p.values.front(), 2 * 4.0 - 3 * 0.3 + 0.2, 1e-5);
  EXPECT_NEAR(p.values.back(), 2 * 4.0 - 3 * 2.9 + 2.6, 1e-5);
}

TEST(SliceLineProfile, SamplesOutsideTheVoxelCentresAreNaN) {
  const Volume v = rampVolume({1.0, 1.0, 1.0}, {0.0, 0.0, 0.0});
  // From x = -2 to x = 2 on y = 3: the first two samples (x = -2, -1) lie outside.
  const SliceLineProfile p = sliceLineProfile(v, 2, 1.0, {-2.0, 3.0}, {2.0, 3.0});
  ASSERT_EQ(p.values.size(), 5u);
  EXPECT_TRUE(std::isnan(p.values[0]));
  EXPECT_TRUE(std::isnan(p.values[1]));
  EXPECT_NEAR(p.values[2], -9.0 + 1.0, 1e-6);  // on the first centre, x = 0
  EXPECT_NEAR(p.values[4], 4.0 - 9.0 + 1.0, 1e-6);
  // A slice outside the volume gives no samples at all.
  EXPECT_TRUE(sliceLineProfile(v, 2, 50.0, {0.0, 0.0}, {2.0, 2.0}).values.empty());
}

TEST(SliceLineProfile, BilinearWeightsTheFourNeighbours) {
  Volume v({2, 2, 1}, Eigen::Vector3d::Ones(), Eigen::Vector3d::Zero());
  v.at(0, 0, 0) = 0.0f;
  v.at(1, 0, 0) = 10.0f;
  v.at(0, 1, 0) = 20.0f;
  v.at(1, 1, 0) = 100.0f;
  // At (0.25, 0.5): 0.75*0.5*0 + 0.25*0.5*10 + 0.75*0.5*20 + 0.25*0.5*100.
  EXPECT_DOUBLE_EQ(bilinearInSlice(v, 2, 0, {0.25, 0.5}), 1.25 + 7.5 + 12.5);
  EXPECT_DOUBLE_EQ(bilinearInSlice(v, 2, 0, {1.0, 1.0}), 100.0);  // the last centre
  EXPECT_TRUE(std::isnan(bilinearInSlice(v, 2, 0, {1.01, 0.5})));
}

}  // namespace
}  // namespace tomowb::metrics
