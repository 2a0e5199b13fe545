// Region: voxel counts of each part and of intersections, and errors that name the region.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <vector>

#include "recon/core/Error.h"
#include "recon/metrics/Region.h"

namespace tomowb::metrics {
namespace {

Volume unitVolume(std::int64_t nx, std::int64_t ny, std::int64_t nz) {
  return Volume::centred(VolumeShape{nx, ny, nz}, Eigen::Vector3d::Ones());
}

// Runs `f` and returns the ParameterError's message, or fails.
template <typename F>
std::string parameterErrorOf(F&& f) {
  try {
    f();
  } catch (const ParameterError& error) {
    return error.what();
  }
  ADD_FAILURE() << "no ParameterError thrown";
  return {};
}

TEST(Region, WholeVolumeSelectsEveryVoxel) {
  const Volume volume = unitVolume(7, 5, 3);
  const BoundRegion bound = Region::whole().bind(volume);
  EXPECT_EQ(bound.voxelCount(), 7 * 5 * 3);
  EXPECT_EQ(bound.description(), "whole volume");
  EXPECT_TRUE(Region::whole().isWhole());
  EXPECT_TRUE(bound.contains(6, 4, 2));
  EXPECT_FALSE(bound.contains(7, 4, 2));
  EXPECT_EQ(bound.maskRow(0, 0), nullptr);
}

TEST(Region, CentralCylinderCountIsCloseToPiRSquaredPerSlice) {
  const Volume volume = unitVolume(128, 128, 4);
  const BoundRegion bound = Region::centralCylinder(0.8).bind(volume);
  const double radius = 0.8 * 64.0;
  const double expectedPerSlice = std::numbers::pi * radius * radius;
  for (std::int64_t z = 0; z < 4; ++z) {
    EXPECT_NEAR(static_cast<double>(bound.voxelCountInSlice(z)), expectedPerSlice,
                0.01 * expectedPerSlice);
    EXPECT_EQ(bound.voxelCountInSlice(z), bound.voxelCountInSlice(0));
  }
  EXPECT_EQ(bound.voxelCount(), 4 * bound.voxelCountInSlice(0));
  EXPECT_EQ(bound.description(), "cylinder r=0.8");
  // Centre in, corners out.
  EXPECT_TRUE(bound.contains(64, 64, 0));
  EXPECT_FALSE(bound.contains(0, 0, 0));
  EXPECT_FALSE(bound.contains(127, 127, 3));
}

TEST(Region, CylinderRadiusUsesTheSmallerInPlaneHalfSizeInMm) {
  // 128 x 0.5 mm by 64 x 1 mm: both 64 mm wide, half-size 32 mm; the cylinder is a circle in mm
  // and an ellipse of 2 voxels per mm along x.
  const Volume volume = Volume::centred(VolumeShape{128, 64, 2}, Eigen::Vector3d(0.5, 1.0, 1.0));
  const double radiusMm = 0.75 * 32.0;
  const double expectedPerSlice = std::numbers::pi * radiusMm * radiusMm / 0.5;
  const BoundRegion fraction = Region::centralCylinder(0.75).bind(volume);
  EXPECT_NEAR(static_cast<double>(fraction.voxelCountInSlice(1)), expectedPerSlice,
              0.01 * expectedPerSlice);
  const BoundRegion mm = Region::centralCylinderMm(radiusMm).bind(volume);
  EXPECT_EQ(mm.voxelCount(), fraction.voxelCount());
  EXPECT_EQ(Region::centralCylinderMm(24).description(), "cylinder r=24mm");
}

TEST(Region, SlabCountIsExact) {
  const Volume volume = unitVolume(10, 12, 20);
  const BoundRegion bound = Region::slab(5, 9).bind(volume);
  EXPECT_EQ(bound.voxelCount(), 10 * 12 * 4);
  EXPECT_EQ(bound.voxelCountInSlice(4), 0);
  EXPECT_EQ(bound.voxelCountInSlice(5), 120);
  EXPECT_EQ(bound.voxelCountInSlice(8), 120);
  EXPECT_EQ(bound.voxelCountInSlice(9), 0);
  EXPECT_EQ(bound.description(), "slices 5..9");
  EXPECT_EQ(Region::slab(0, 20).bind(volume).voxelCount(), volume.voxelCount());
}

TEST(Region, CylinderAndSlabIntersect) {
  const Volume volume = unitVolume(64, 64, 200);
  const Region region = Region::centralCylinder(0.8).slices(100, 156);
  EXPECT_EQ(region.description(), "cylinder r=0.8 slices 100..156");
  const BoundRegion bound = region.bind(volume);
  const std::int64_t perSlice = Region::centralCylinder(0.8).bind(volume).voxelCountInSlice(0);
  EXPECT_EQ(bound.voxelCount(), 56 * perSlice);
  EXPECT_EQ(bound.voxelCountInSlice(99), 0);
  EXPECT_EQ(bound.voxelCountInSlice(155), perSlice);
  // The same through operator&, in either order.
  EXPECT_EQ((Region::slab(100, 156) & Region::centralCylinder(0.8)).voxelCount(volume),
            bound.voxelCount());
  // Overlapping slabs intersect to their common slices.
  EXPECT_EQ((Region::slab(10, 30) & Region::slab(20, 40)).voxelCount(volume), 64 * 64 * 10);
}

TEST(Region, MaskSelectsNonzeroVoxels) {
  const VolumeShape shape{4, 3, 2};
  std::vector<std::uint8_t> voxels(24, 0);
  voxels[0] = 1;
  voxels[5] = 255;
  voxels[23] = 7;
  const Volume volume = unitVolume(4, 3, 2);
  const BoundRegion bound = Region::mask(voxels, shape).bind(volume);
  EXPECT_EQ(bound.voxelCount(), 3);
  EXPECT_TRUE(bound.contains(0, 0, 0));
  EXPECT_TRUE(bound.contains(1, 1, 0));  // index 5 = (0*3 + 1)*4 + 1
  EXPECT_TRUE(bound.contains(3, 2, 1));
  EXPECT_FALSE(bound.contains(1, 0, 0));
  EXPECT_EQ(bound.toMask(), (std::vector<std::uint8_t>{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0,
                                                       0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1}));
}

TEST(Region, MaskVolumeCountsNonzeroAndSkipsNaN) {
  Volume maskVolume = unitVolume(5, 5, 5);
  maskVolume.at(1, 2, 3) = 1.0f;
  maskVolume.at(4, 4, 4) = -0.5f;
  maskVolume.at(0, 0, 0) = std::nanf("");
  const Region region = Region::mask(maskVolume, "mask 'lesions'");
  EXPECT_EQ(region.description(), "mask 'lesions'");
  EXPECT_EQ(region.voxelCount(maskVolume), 2);
}

TEST(Region, MaskAndCylinderIntersect) {
  const Volume volume = unitVolume(32, 32, 3);
  // Mask: the left half (x < 16) in every slice.
  std::vector<std::uint8_t> left(static_cast<std::size_t>(volume.voxelCount()), 0);
  for (std::int64_t z = 0; z < 3; ++z)
    for (std::int64_t y = 0; y < 32; ++y)
      for (std::int64_t x = 0; x < 16; ++x)
        left[static_cast<std::size_t>(volume.index(x, y, z))] = 1;
  const Region cylinder = Region::centralCylinder(0.9);
  const Region half = Region::mask(left, volume.shape(), "left half");
  // The centre x = 15.5 splits the symmetric cylinder into two equal halves.
  EXPECT_EQ((cylinder & half).voxelCount(volume) * 2, cylinder.voxelCount(volume));
  // Two masks AND together: left half and its complement select nothing.
  std::vector<std::uint8_t> right(left.size());
  for (std::size_t i = 0; i < left.size(); ++i) right[i] = left[i] == 0;
  EXPECT_EQ((half & Region::mask(right, volume.shape())).voxelCount(volume), 0);
}

TEST(Region, SphereIsPlacedInWorldMillimetres) {
  // Voxel (10, 20, 30) sits at world (5, 10, 15) mm with 0.5 mm voxels and the origin at 0.
  const Volume volume(VolumeShape{40, 40, 60}, Eigen::Vector3d::Constant(0.5),
                      Eigen::Vector3d::Zero());
  const Region sphere = Region::sphere(Eigen::Vector3d(5.0, 10.0, 15.0), 4.0);
  const BoundRegion bound = sphere.bind(volume);
  const double radiusVoxels = 8.0;
  const double expected = 4.0 / 3.0 * std::numbers::pi * std::pow(radiusVoxels, 3);
  EXPECT_NEAR(static_cast<double>(bound.voxelCount()), expected, 0.02 * expected);
  EXPECT_TRUE(bound.contains(10, 20, 30));
  EXPECT_TRUE(bound.contains(18, 20, 30));   // exactly 4 mm away along x
  EXPECT_FALSE(bound.contains(19, 20, 30));  // 4.5 mm
  EXPECT_TRUE(bound.contains(10, 20, 38));
  EXPECT_FALSE(bound.contains(10, 20, 39));
  EXPECT_EQ(sphere.description(), "sphere (5,10,15)mm r=4mm");
}

TEST(Region, ToMaskAgreesWithContains) {
  const Volume volume = unitVolume(21, 18, 9);
  const Region region = Region::centralCylinder(0.7).slices(2, 8) &
                        Region::sphere(Eigen::Vector3d(2.0, -1.0, 0.5), 6.0);
  const BoundRegion bound = region.bind(volume);
  const std::vector<std::uint8_t> mask = bound.toMask();
  std::int64_t count = 0;
  for (std::int64_t z = 0; z < 9; ++z)
    for (std::int64_t y = 0; y < 18; ++y)
      for (std::int64_t x = 0; x < 21; ++x) {
        const bool in = mask[static_cast<std::size_t>(volume.index(x, y, z))] != 0;
        EXPECT_EQ(in, bound.contains(x, y, z)) << x << "," << y << "," << z;
        count += in;
      }
  EXPECT_EQ(count, bound.voxelCount());
  EXPECT_GT(count, 0);
}

TEST(Region, NamedRegionKeepsItsNameInIntersections) {
  const Region background = Region::centralCylinder(0.3).named("background");
  EXPECT_EQ(background.description(), "background");
  EXPECT_EQ(background.slices(10, 20).description(), "background slices 10..20");
  EXPECT_EQ((Region::whole() & background).description(), "background");
}

TEST(Region, MaskShapeMismatchThrowsNamingBothShapes) {
  const Volume volume = unitVolume(8, 8, 8);
  const Region region = Region::mask(std::vector<std::uint8_t>(8 * 8 * 4, 1), {8, 8, 4});
  const std::string message = parameterErrorOf([&] { region.bind(volume); });
  EXPECT_NE(message.find("region 'mask'"), std::string::npos) << message;
  EXPECT_NE(message.find("mask shape 8x8x4 does not match the volume's 8x8x8"), std::string::npos)
      << message;
}

TEST(Region, MaskOfWrongLengthThrows) {
  const std::string message = parameterErrorOf([] {
    Region::mask(std::vector<std::uint8_t>(10, 1), {4, 4, 1}, "roi");
  });
  EXPECT_NE(message.find("'roi' holds 10 values"), std::string::npos) << message;
  EXPECT_NE(message.find("needs 16"), std::string::npos) << message;
}

TEST(Region, EmptyRegionThrowsNamingTheRegion) {
  // A 4-voxel-wide volume: its centre axis is between voxels, 0.707 voxel from the nearest ones,
  // so a 0.5-voxel cylinder selects nothing.
  const Volume volume = unitVolume(4, 4, 200);
  const BoundRegion bound =
      Region::centralCylinder(0.25).slices(100, 156).bind(volume, "reference region");
  EXPECT_EQ(bound.voxelCount(), 0);
  const std::string message = parameterErrorOf([&] { bound.throwIfEmpty(); });
  EXPECT_NE(message.find("parameter 'reference region'"), std::string::npos) << message;
  EXPECT_NE(message.find("region 'cylinder r=0.25 slices 100..156' selects no voxel"),
            std::string::npos)
      << message;
  // A sphere outside the volume, too.
  EXPECT_EQ(Region::sphere(Eigen::Vector3d(100, 0, 0), 3.0).voxelCount(volume), 0);
}

TEST(Region, SlabBeyondTheVolumeThrows) {
  const Volume volume = unitVolume(4, 4, 64);
  const std::string message =
      parameterErrorOf([&] { Region::centralCylinder(0.8).slices(100, 156).bind(volume); });
  EXPECT_NE(message.find("region 'cylinder r=0.8 slices 100..156'"), std::string::npos) << message;
  EXPECT_NE(message.find("beyond the volume's 64 slices"), std::string::npos) << message;
}

TEST(Region, InvalidPartsThrowNamingTheParameter) {
  EXPECT_NE(parameterErrorOf([] { Region::centralCylinder(0.0); }).find("region.cylinder.radius"),
            std::string::npos);
  EXPECT_NE(parameterErrorOf([] { Region::centralCylinderMm(-1.0); }).find("must be finite"),
            std::string::npos);
  EXPECT_NE(parameterErrorOf([] { Region::slab(-1, 4); }).find(">= 0"), std::string::npos);
  EXPECT_NE(parameterErrorOf([] { Region::slab(5, 5); }).find("slices 5..5"), std::string::npos);
  EXPECT_NE(parameterErrorOf([] {
              Region::sphere(Eigen::Vector3d::Zero(), std::nan(""));
            }).find("region.sphere.radiusMm"),
            std::string::npos);
}

}  // namespace
}  // namespace tomowb::metrics
