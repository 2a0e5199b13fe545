// PendingVolume (issue #22): the host volume allocated beside the GPU work.
#include <gtest/gtest.h>

#include <thread>
#include <vector>

#include "recon/core/Error.h"
#include "recon/core/PendingVolume.h"

namespace tomowb {
namespace {

TEST(PendingVolume, GivesTheZeroFilledVolumeOfItsGridToEveryThreadThatAsks) {
  const VolumeGrid grid = VolumeGrid::centred({40, 30, 20}, Eigen::Vector3d(0.5, 0.6, 0.7));
  PendingVolume pending(grid);
  EXPECT_EQ(pending.grid().shape, grid.shape);
  std::vector<float*> seen(4, nullptr);
  std::vector<std::thread> threads;
  for (std::size_t i = 0; i < seen.size(); ++i)
    threads.emplace_back([&, i] { seen[i] = pending.get().data(); });
  for (std::thread& t : threads) t.join();
  for (float* p : seen) EXPECT_EQ(p, seen[0]) << "one volume for every caller";
  EXPECT_TRUE(pending.ready());
  EXPECT_GE(pending.allocationSeconds(), 0.0);
  EXPECT_GE(pending.waitedSeconds(), 0.0);
  const Volume volume = pending.take();
  EXPECT_EQ(volume.shape(), grid.shape);
  EXPECT_EQ(volume.voxelSizeMm(), grid.voxelSizeMm);
  EXPECT_EQ(volume.originMm(), grid.originMm);
  for (float v : volume.voxels()) ASSERT_EQ(v, 0.0f);
}

TEST(PendingVolume, ABadGridOrAnImpossibleSizeFailsAtOnceNotWhenTheVolumeIsWanted) {
  EXPECT_THROW(
      PendingVolume(VolumeGrid{{0, 4, 4}, Eigen::Vector3d::Ones(), Eigen::Vector3d::Zero()}),
      ParameterError);
  EXPECT_THROW(
      PendingVolume(VolumeGrid{{4, 4, 4}, Eigen::Vector3d(1, -1, 1), Eigen::Vector3d::Zero()}),
      ParameterError);
  // 2^62 voxels: more than any host holds (or an overflow): refused before any thread starts.
  EXPECT_THROW(PendingVolume(
                   VolumeGrid{{std::int64_t{1} << 21, std::int64_t{1} << 21, std::int64_t{1} << 20},
                              Eigen::Vector3d::Ones(),
                              Eigen::Vector3d::Zero()}),
               Error);
}

TEST(PendingVolume, TakesOverAVolumeThatExistsAlready) {
  Volume volume({3, 4, 5}, Eigen::Vector3d::Ones(), Eigen::Vector3d::Zero());
  volume.at(1, 2, 3) = 7.0f;
  const float* data = volume.data();
  PendingVolume pending(std::move(volume));
  EXPECT_TRUE(pending.ready());
  EXPECT_EQ(pending.get().data(), data);
  EXPECT_EQ(pending.get().at(1, 2, 3), 7.0f);
}

}  // namespace
}  // namespace tomowb
