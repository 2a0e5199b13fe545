#include <gtest/gtest.h>

#include "recon/device/GpuDevices.h"
#include "support/TestSupport.h"

namespace tomowb::cuda {
namespace {

TEST(GpuDevices, ListsHopperDevicesWithMemory) {
  TOMOWB_SKIP_WITHOUT_GPU();
  const auto devices = listGpuDevices();
  ASSERT_FALSE(devices.empty()) << gpuStatus();
  for (const GpuDevice& d : devices) {
    EXPECT_FALSE(d.name.empty());
    EXPECT_GE(d.computeMajor, 9) << d.name << ": the build targets sm_90 (+ PTX)";
    EXPECT_GT(d.totalMemoryBytes, 1ull << 30);
    EXPECT_GT(d.freeMemoryBytes, 0u);
    EXPECT_LE(d.freeMemoryBytes, d.totalMemoryBytes);
  }
}

TEST(GpuDevices, SelfTestKernelRunsOnEveryDevice) {
  TOMOWB_SKIP_WITHOUT_GPU();
  for (const GpuDevice& d : listGpuDevices()) EXPECT_NO_THROW(runDeviceSelfTest(d.index)) << d.name;
}

TEST(GpuDevices, StatusExplainsAnEmptyList) {
  if (!listGpuDevices().empty()) GTEST_SKIP() << "a GPU is present: " << gpuStatus();
  EXPECT_FALSE(gpuStatus().empty());
}

// MPI ranks sharing a machine take one GPU each (issue #22): local rank mod the GPUs visible,
// whether the launcher listed them (indices or UUIDs) or the driver counted them; nothing to
// choose for one rank or one GPU. No GPU needed.
TEST(GpuDevices, EachLocalRankSeesOneGpuOfThoseVisible) {
  EXPECT_EQ(gpuForLocalRank(0, 2, nullptr, 2), "0");
  EXPECT_EQ(gpuForLocalRank(1, 2, nullptr, 2), "1");
  EXPECT_EQ(gpuForLocalRank(3, 4, nullptr, 2), "1");
  EXPECT_EQ(gpuForLocalRank(1, 2, "4,6", 8), "6") << "the launcher's list, not the machine's";
  EXPECT_EQ(gpuForLocalRank(2, 3, "GPU-a, GPU-b,", 0), "GPU-a");
  EXPECT_EQ(gpuForLocalRank(0, 1, nullptr, 2), "") << "one rank keeps every GPU";
  EXPECT_EQ(gpuForLocalRank(1, 2, "3", 8), "") << "one GPU listed: nothing to choose";
  EXPECT_EQ(gpuForLocalRank(1, 2, "", 8), "") << "no GPU listed stays none";
  EXPECT_EQ(gpuForLocalRank(1, 2, nullptr, 0), "") << "no driver";
}

// The window's default device: the GPU with the most multiprocessors, whatever the listing
// order; newer architecture and more memory break ties; none for an empty list. No GPU needed.
TEST(GpuDevices, FastestGpuHasTheMostMultiprocessors) {
  EXPECT_EQ(fastestGpu({}), -1);
  const auto gpu = [](int index, int sms, int major, std::uint64_t gib) {
    GpuDevice d;
    d.index = index;
    d.multiprocessors = sms;
    d.computeMajor = major;
    d.totalMemoryBytes = gib << 30;
    return d;
  };
  EXPECT_EQ(fastestGpu({gpu(0, 46, 8, 24), gpu(1, 132, 9, 80), gpu(2, 108, 8, 80)}), 1);
  EXPECT_EQ(fastestGpu({gpu(3, 108, 8, 80), gpu(0, 46, 8, 24)}), 3);
  EXPECT_EQ(fastestGpu({gpu(0, 132, 9, 80), gpu(1, 132, 9, 141)}), 1);
  EXPECT_EQ(fastestGpu({gpu(0, 132, 8, 80), gpu(1, 132, 9, 80)}), 1);
  EXPECT_EQ(fastestGpu({gpu(5, 132, 9, 80), gpu(6, 132, 9, 80)}), 5);
}

}  // namespace
}  // namespace tomowb::cuda
