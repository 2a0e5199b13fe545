// Helpers of the DICOM tests: random volumes and running external programs.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>

#include "recon/core/Volume.h"
#include "support/TestSupport.h"

namespace tomowb::test {

// Values like attenuation in 1/mm (0 .. 0.05), random per run.
inline Volume randomAttenuationVolume(VolumeShape shape, const Eigen::Vector3d& voxelSizeMm,
                                      const Eigen::Vector3d& originMm, std::uint64_t seed) {
  Volume v(shape, voxelSizeMm, originMm);
  std::mt19937_64 generator(seed);
  std::uniform_real_distribution<float> value(0.0f, 0.05f);
  for (float& x : v.voxels()) x = value(generator);
  return v;
}

struct CommandOutput {
  int exitCode = -1;
  std::string output;  // stdout and stderr
};

inline CommandOutput runCommand(const std::string& command) {
  CommandOutput result;
  FILE* pipe = ::popen((command + " 2>&1").c_str(), "r");
  if (!pipe) return result;
  char buffer[4096];
  std::size_t n = 0;
  while ((n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0) result.output.append(buffer, n);
  const int status = ::pclose(pipe);
  result.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return result;
}

inline bool programAvailable(const std::string& name) {
  return runCommand("command -v " + name + " >/dev/null").exitCode == 0;
}

// External validators are required in CI (scripts/setup.sh installs them); elsewhere a missing
// one skips the test with a message.
#define TOMOWB_REQUIRE_PROGRAM(name)                                                        \
  do {                                                                                      \
    if (!::tomowb::test::programAvailable(name)) {                                          \
      if (std::getenv("CI")) FAIL() << name << " is missing; scripts/setup.sh installs it"; \
      GTEST_SKIP() << name << " is not installed (scripts/setup.sh installs it)";           \
    }                                                                                       \
  } while (0)

}  // namespace tomowb::test
