// GpuMonitor: without NVML it says why and samples nothing; with NVML (the GPU machine) a
// sample has plausible figures; host memory follows an allocation.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "recon/job/GpuMonitor.h"

namespace tomowb {
namespace {

TEST(GpuMonitor, MissingLibraryIsUnavailableWithAReasonNamingIt) {
  GpuMonitor monitor("libnvidia-ml-does-not-exist.so.1");
  EXPECT_FALSE(monitor.available());
  EXPECT_NE(monitor.unavailableReason().find("libnvidia-ml-does-not-exist.so.1"), std::string::npos)
      << monitor.unavailableReason();
  EXPECT_EQ(monitor.deviceCount(), 0);
  EXPECT_FALSE(monitor.sample(0).has_value());
}

TEST(GpuMonitor, DefaultLibraryEitherSamplesEveryDeviceOrSaysWhyNot) {
  GpuMonitor monitor;
  if (!monitor.available()) {
    EXPECT_FALSE(monitor.unavailableReason().empty());
    EXPECT_FALSE(monitor.sample(0).has_value());
    return;  // the machines without a driver end here
  }
  EXPECT_TRUE(monitor.unavailableReason().empty());
  ASSERT_GT(monitor.deviceCount(), 0);
  for (int device = 0; device < monitor.deviceCount(); ++device) {
    const auto sample = monitor.sample(device);
    ASSERT_TRUE(sample.has_value()) << "device " << device;
    EXPECT_EQ(sample->device, device);
    EXPECT_FALSE(sample->name.empty());
    EXPECT_GT(sample->memoryTotalBytes, 0u);
    EXPECT_LE(sample->memoryUsedBytes, sample->memoryTotalBytes);
    if (sample->gpuUtilisationPercent) EXPECT_LE(*sample->gpuUtilisationPercent, 100u);
    if (sample->powerWatts) EXPECT_GT(*sample->powerWatts, 0.0);
  }
  EXPECT_FALSE(monitor.sample(monitor.deviceCount()).has_value());
  EXPECT_FALSE(monitor.sample(-1).has_value());
}

TEST(HostMemory, ReportsPlausibleResidentAndAvailableMemory) {
  const HostMemorySample before = hostMemory();
  ASSERT_TRUE(before.valid);
  EXPECT_GT(before.processResidentBytes,
            1u << 20);  // a test binary with gtest is over 1 MiB resident
  EXPECT_GT(before.totalBytes, before.processResidentBytes);
  EXPECT_GT(before.availableBytes, 0u);
  EXPECT_LE(before.availableBytes, before.totalBytes);

  // Touching 64 MiB raises the resident size by about that much.
  constexpr std::size_t kBytes = 64u << 20;
  std::vector<char> block(kBytes);
  std::memset(block.data(), 1, block.size());
  const HostMemorySample after = hostMemory();
  EXPECT_GE(after.processResidentBytes, before.processResidentBytes + kBytes / 2);
  EXPECT_EQ(block[kBytes / 2], 1);
}

}  // namespace
}  // namespace tomowb
