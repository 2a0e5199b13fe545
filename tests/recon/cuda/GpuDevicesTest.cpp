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

}  // namespace
}  // namespace tomowb::cuda
