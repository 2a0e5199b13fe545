// Helpers shared by the tests: fresh random inputs, temporary folders, GPU skipping.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <random>
#include <string>

namespace tomowb::test {

// A fresh seed per run (printed by the test so a failure can be replayed with
// TOMOWB_TEST_SEED=<n>).
std::uint64_t randomSeed();

// A temporary folder removed when the object goes out of scope.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const noexcept { return path_; }
  std::filesystem::path operator/(const std::string& name) const { return path_ / name; }

 private:
  std::filesystem::path path_;
};

// True if a CUDA device is usable in this process.
bool gpuAvailable();

}  // namespace tomowb::test

#define TOMOWB_SKIP_WITHOUT_GPU()                                                  \
  do {                                                                             \
    if (!::tomowb::test::gpuAvailable()) GTEST_SKIP() << "no CUDA device present"; \
  } while (0)
