// copySliceInto: the one-voxel-thick image a slice view draws holds exactly the volume's slice,
// sits at its place in the volume's grid (extent, spacing, origin) and keeps its array when the
// next slice of the same orientation comes.
#include <gtest/gtest.h>
#include <vtkFloatArray.h>
#include <vtkImageData.h>
#include <vtkPointData.h>

#include <random>

#include "render/VolumeImage.h"
#include "support/TestSupport.h"

namespace tomowb::render {
namespace {

Volume randomVolume(std::mt19937_64& rng) {
  Volume v({7, 5, 4}, Eigen::Vector3d(0.5, 0.25, 2.0), Eigen::Vector3d(-1.0, 3.0, 0.5));
  std::uniform_real_distribution<float> value(-100.0f, 100.0f);
  for (float& x : v.voxels()) x = value(rng);
  return v;
}

TEST(VolumeImage, CopySliceIntoHoldsTheSliceAtItsPlaceForEveryAxis) {
  std::mt19937_64 rng(test::randomSeed());
  const Volume volume = randomVolume(rng);
  const std::int64_t n[3] = {volume.nx(), volume.ny(), volume.nz()};
  for (int axis = 0; axis < 3; ++axis) {
    auto image = vtkSmartPointer<vtkImageData>::New();
    vtkDataArray* first = nullptr;
    for (std::int64_t index = 0; index < n[axis]; ++index) {
      copySliceInto(image, volume, axis, index);
      int extent[6];
      image->GetExtent(extent);
      for (int a = 0; a < 3; ++a) {
        EXPECT_EQ(extent[2 * a], a == axis ? index : 0) << "axis " << axis;
        EXPECT_EQ(extent[2 * a + 1], a == axis ? index : n[a] - 1) << "axis " << axis;
        EXPECT_EQ(image->GetSpacing()[a], volume.voxelSizeMm()[a]);
        EXPECT_EQ(image->GetOrigin()[a], volume.originMm()[a]);
      }
      vtkDataArray* scalars = image->GetPointData()->GetScalars();
      if (first == nullptr) first = scalars;
      EXPECT_EQ(scalars, first) << "the array is reused for the next slice";
      for (std::int64_t z = extent[4]; z <= extent[5]; ++z)
        for (std::int64_t y = extent[2]; y <= extent[3]; ++y)
          for (std::int64_t x = extent[0]; x <= extent[1]; ++x) {
            int ijk[3] = {static_cast<int>(x), static_cast<int>(y), static_cast<int>(z)};
            EXPECT_EQ(scalars->GetTuple1(image->ComputePointId(ijk)), volume.at(x, y, z))
                << "axis " << axis << " voxel " << x << "," << y << "," << z;
          }
      // The world position VTK gives the slice's first point is the volume's own.
      double world[3];
      int first3[3] = {extent[0], extent[2], extent[4]};
      image->GetPoint(image->ComputePointId(first3), world);
      const Eigen::Vector3d expected = volume.worldPosition(extent[0], extent[2], extent[4]);
      for (int a = 0; a < 3; ++a) EXPECT_DOUBLE_EQ(world[a], expected[a]);
    }
  }
}

TEST(VolumeImage, CopySliceIntoOverAWrappedVolumeNeverWritesIntoIt) {
  // An image that wrapped a volume (makeImageData) gets an array of its own, never the volume's.
  // nz = 1: the slice has as many voxels as the wrapped array, so only the wrap tells them apart.
  auto volume = std::make_shared<Volume>(Volume::centred({4, 3, 1}, Eigen::Vector3d::Ones()));
  for (std::size_t i = 0; i < volume->voxels().size(); ++i)
    volume->voxels()[i] = static_cast<float>(i);
  const std::vector<float> before(volume->voxels().begin(), volume->voxels().end());
  auto image = makeImageData(volume);
  Volume other = Volume::centred({4, 3, 1}, Eigen::Vector3d::Ones());
  copySliceInto(image, other, 2, 0);  // zeros
  EXPECT_TRUE(std::equal(before.begin(), before.end(), volume->voxels().begin()));
  EXPECT_EQ(image->GetPointData()->GetScalars()->GetNumberOfTuples(), 12);
}

}  // namespace
}  // namespace tomowb::render
