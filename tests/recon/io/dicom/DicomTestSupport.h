// Helpers of the DICOM tests: random volumes and running external programs.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>

#include "recon/core/Volume.h"
#include "recon/io/dicom/DicomOptions.h"
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

// Activity concentrations in Bq/mL: a warm background (about 5 kBq/mL) and a hot sphere whose
// contrast grows with z, so every slice has its own largest value (and its own PET slope).
inline Volume randomActivityVolume(VolumeShape shape, const Eigen::Vector3d& voxelSizeMm,
                                   const Eigen::Vector3d& originMm, std::uint64_t seed) {
  Volume v(shape, voxelSizeMm, originMm);
  std::mt19937_64 generator(seed);
  std::uniform_real_distribution<float> noise(0.8f, 1.2f);
  const Eigen::Vector3d centre(0.5 * double(shape.nx - 1), 0.5 * double(shape.ny - 1), 0.0);
  for (std::int64_t z = 0; z < v.nz(); ++z)
    for (std::int64_t y = 0; y < v.ny(); ++y)
      for (std::int64_t x = 0; x < v.nx(); ++x) {
        const double r = Eigen::Vector2d(double(x) - centre.x(), double(y) - centre.y()).norm();
        const double hot = r < 0.3 * double(std::min(shape.nx, shape.ny)) ? 4.0 + double(z) : 1.0;
        v.at(x, y, z) = static_cast<float>(5000.0 * hot) * noise(generator);
      }
  return v;
}

// Every PET attribute a viewer needs for SUV: F-18 FDG, 350 MBq injected at 09:00, a 10-minute
// static frame from 10:00, decay corrected to its start, 72.5 kg.
inline io::dicom::DicomPetAcquisition fullPetAcquisition() {
  io::dicom::DicomPetAcquisition pet;
  pet.activityConcentration = true;
  pet.radionuclide = "F-18";
  pet.radiopharmaceutical = "Fluorodeoxyglucose";
  pet.totalDoseBq = 350e6;
  pet.injectionDateTime = "2026-03-02T09:00:00";
  pet.acquisitionDateTime = "20260302100000";
  pet.decayCorrection = io::dicom::PetDecayCorrection::Start;
  pet.actualFrameDurationMs = 600000;
  pet.patientWeightKg = 72.5;
  pet.correctedImage = {"NORM", "ATTN", "SCAT", "RAN"};
  pet.reconstructionMethod = "DIRECT-RAMLA 10it 120views 400ps";
  return pet;
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
