#include "support/TestSupport.h"

#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <stdexcept>
#include <string>

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
  // mkdtemp: a new folder no other process (ctest -j runs several test processes at once) can
  // be given too; a name from a clock-seeded generator could be shared, and the other process
  // then removes this one's files when it ends.
  std::string pattern = (std::filesystem::temp_directory_path() / "tomowb-test-XXXXXX").string();
  if (::mkdtemp(pattern.data()) == nullptr)
    throw std::runtime_error("cannot create a temporary folder " + pattern + ": " +
                             std::strerror(errno));
  path_ = pattern;
}

TempDir::~TempDir() {
  std::error_code ignored;
  std::filesystem::remove_all(path_, ignored);
}

bool gpuAvailable() {
  return !cuda::listGpuDevices().empty();
}

}  // namespace tomowb::test
