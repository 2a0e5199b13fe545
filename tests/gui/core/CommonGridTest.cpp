// Two volumes on one lattice are cut to the part they share (voxel for voxel: a value at one
// world position stays at it); other lattices, or no overlap, give none; one grid gives the
// volumes as they are.
#include <gtest/gtest.h>

#include "gui/core/CommonGrid.h"

namespace tomowb::gui {
namespace {

// A volume whose value says where it is: 1000 z + 100 y + x in world voxels from `origin`.
std::shared_ptr<Volume> labelled(VolumeShape shape, const Eigen::Vector3d& origin) {
  auto v = std::make_shared<Volume>(shape, Eigen::Vector3d::Constant(2.0), origin);
  for (std::int64_t z = 0; z < shape.nz; ++z)
    for (std::int64_t y = 0; y < shape.ny; ++y)
      for (std::int64_t x = 0; x < shape.nx; ++x) {
        const Eigen::Vector3d at = origin / 2.0 + Eigen::Vector3d(double(x), double(y), double(z));
        v->at(x, y, z) = static_cast<float>(1000 * at.z() + 100 * at.y() + at.x());
      }
  return v;
}

TEST(CommonGrid, CutsTwoSlabsOfOneLatticeToTheSlicesTheyShare) {
  // A: 6 x 5 x 8 slices from z = -8 mm; B: the same in-plane, 4 slices from z = -2 mm.
  const auto a = labelled({6, 5, 8}, {-6, -4, -8});
  const auto b = labelled({6, 5, 4}, {-6, -4, -2});
  const std::optional<CommonGridPair> common = onCommonGrid(a, b);
  ASSERT_TRUE(common);
  EXPECT_TRUE(common->cut);
  EXPECT_EQ(common->b, b) << "B is the common part: not copied";
  EXPECT_EQ(common->a->shape(), (VolumeShape{6, 5, 4}));
  EXPECT_EQ(common->a->originMm(), b->originMm());
  for (std::int64_t z = 0; z < 4; ++z) EXPECT_EQ(common->a->at(3, 2, z), b->at(3, 2, z)) << z;
  // Either order.
  const std::optional<CommonGridPair> swapped = onCommonGrid(b, a);
  ASSERT_TRUE(swapped);
  EXPECT_EQ(swapped->a, b);
  EXPECT_EQ(swapped->b->at(5, 4, 3), b->at(5, 4, 3));
}

TEST(CommonGrid, OneGridGivesTheVolumesAndOtherLatticesGiveNone) {
  const auto a = labelled({4, 4, 4}, {0, 0, 0});
  const auto same = labelled({4, 4, 4}, {0, 0, 0});
  const std::optional<CommonGridPair> common = onCommonGrid(a, same);
  ASSERT_TRUE(common);
  EXPECT_FALSE(common->cut);
  EXPECT_EQ(common->a, a);
  EXPECT_EQ(common->b, same);
  EXPECT_FALSE(onCommonGrid(a, labelled({4, 4, 4}, {1, 0, 0}))) << "half a voxel off";
  EXPECT_FALSE(onCommonGrid(a, labelled({4, 4, 4}, {0, 0, 8}))) << "no overlap";
  auto finer = std::make_shared<Volume>(VolumeShape{4, 4, 4}, Eigen::Vector3d::Constant(1.0),
                                        Eigen::Vector3d::Zero());
  EXPECT_FALSE(onCommonGrid(a, finer)) << "another voxel size";
}

}  // namespace
}  // namespace tomowb::gui
