#include "support/TestSupport.h"

#include <chrono>
#include <cstdlib>
#include <iostream>

#include "recon/device/GpuDevices.h"

namespace tomowb::test {

std::uint64_t randomSeed() {
  if (const char* fixed = std::getenv("TOMOWB_TEST_SEED")) return std::strtoull(fixed, nullptr, 10);
  const auto seed = static_cast<std::uint64_t>(
      std::chrono::high_resolution_clock::now().time_since_epoch().count());
  std::cout << "[ seed     ] TOMOWB_TEST_SEED=" << seed << "\n";
  return seed;
}

TempDir::TempDir() {
  static std::mt19937_64 names(
      static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count()));
  path_ = std::filesystem::temp_directory_path() / ("tomowb-test-" + std::to_string(names()));
  std::filesystem::create_directories(path_);
}

TempDir::~TempDir() {
  std::error_code ignored;
  std::filesystem::remove_all(path_, ignored);
}

bool gpuAvailable() {
  return !cuda::listGpuDevices().empty();
}

}  // namespace tomowb::test
