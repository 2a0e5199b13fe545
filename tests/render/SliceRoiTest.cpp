// SliceRoi: the voxels an ROI covers are exactly those whose centres lie inside it, on the
// slice nearest to its position, for each axis.
#include <gtest/gtest.h>

#include "render/SliceRoi.h"

namespace tomowb::render {
namespace {

// 5 x 4 x 3 voxels of 1 mm, voxel (0,0,0) at the world origin: world mm = voxel index.
Volume unitVolume() {
  return Volume({5, 4, 3}, Eigen::Vector3d::Ones(), Eigen::Vector3d::Zero());
}

TEST(SliceRoi, AxialRectangleCoversTheVoxelCentresInside) {
  const Volume v = unitVolume();
  SliceRoi roi;
  roi.shape = SliceRoi::Rectangle;
  roi.axis = 2;
  roi.sliceMm = 1.2;  // nearest slice z = 1
  roi.centreMm = {2.0, 1.5};
  roi.halfSizeMm = {1.0, 0.6};  // x 1..3, y 0.9..2.1 -> y 1, 2
  const std::vector<std::int64_t> expected = {v.index(1, 1, 1), v.index(2, 1, 1), v.index(3, 1, 1),
                                              v.index(1, 2, 1), v.index(2, 2, 1), v.index(3, 2, 1)};
  EXPECT_EQ(roiVoxelIndices(v, roi), expected);
}

TEST(SliceRoi, CircleIncludesItsBoundaryAndNothingOutside) {
  const Volume v = unitVolume();
  SliceRoi roi;
  roi.shape = SliceRoi::Circle;
  roi.axis = 2;
  roi.sliceMm = 0.0;
  roi.centreMm = {2.0, 2.0};
  roi.halfSizeMm = {1.0, 1.0};  // a plus sign: the centre and its 4 neighbours (on the boundary)
  const std::vector<std::int64_t> expected = {v.index(2, 1, 0), v.index(1, 2, 0), v.index(2, 2, 0),
                                              v.index(3, 2, 0), v.index(2, 3, 0)};
  EXPECT_EQ(roiVoxelIndices(v, roi), expected);
}

TEST(SliceRoi, CoronalAndSagittalUseTheirInPlaneAxes) {
  const Volume v = unitVolume();
  SliceRoi coronal;  // normal y: in-plane (x, z)
  coronal.shape = SliceRoi::Rectangle;
  coronal.axis = 1;
  coronal.sliceMm = 3.0;
  coronal.centreMm = {4.0, 2.0};
  coronal.halfSizeMm = {0.4, 0.4};
  EXPECT_EQ(roiVoxelIndices(v, coronal), std::vector<std::int64_t>{v.index(4, 3, 2)});
  SliceRoi sagittal;  // normal x: in-plane (y, z)
  sagittal.shape = SliceRoi::Rectangle;
  sagittal.axis = 0;
  sagittal.sliceMm = 0.0;
  sagittal.centreMm = {0.0, 1.0};
  sagittal.halfSizeMm = {0.5, 1.0};
  EXPECT_EQ(roiVoxelIndices(v, sagittal),
            (std::vector<std::int64_t>{v.index(0, 0, 0), v.index(0, 0, 1), v.index(0, 0, 2)}));
}

TEST(SliceRoi, AnisotropicVoxelsAndOriginAreHonoured) {
  // 2 mm voxels in x, origin at (-10, 0, 5).
  const Volume v({8, 2, 2}, Eigen::Vector3d(2, 1, 1), Eigen::Vector3d(-10, 0, 5));
  SliceRoi roi;
  roi.shape = SliceRoi::Rectangle;
  roi.axis = 2;
  roi.sliceMm = 6.0;  // z = 1
  roi.centreMm = {-5.0, 0.0};
  roi.halfSizeMm = {3.0, 0.2};  // x -8..-2 mm -> voxels 1, 2, 3, 4; y 0
  EXPECT_EQ(roiVoxelIndices(v, roi),
            (std::vector<std::int64_t>{v.index(1, 0, 1), v.index(2, 0, 1), v.index(3, 0, 1),
                                       v.index(4, 0, 1)}));
}

TEST(SliceRoi, OutsideTheVolumeIsEmpty) {
  const Volume v = unitVolume();
  SliceRoi roi;
  roi.axis = 2;
  roi.sliceMm = 3.6;  // nearest z = 4 > nz - 1
  roi.centreMm = {2, 2};
  roi.halfSizeMm = {5, 5};
  EXPECT_TRUE(roiVoxelIndices(v, roi).empty());
  EXPECT_EQ(roiSliceIndex(v, roi), -1);
  roi.sliceMm = 0.0;
  roi.centreMm = {50, 50};
  roi.halfSizeMm = {1, 1};
  EXPECT_TRUE(roiVoxelIndices(v, roi).empty());
  roi.centreMm = {2, 2};
  roi.halfSizeMm = {0, 0};  // a degenerate circle covers nothing
  EXPECT_TRUE(roiVoxelIndices(v, roi).empty());
}

}  // namespace
}  // namespace tomowb::render
