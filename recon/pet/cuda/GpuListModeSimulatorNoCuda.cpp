// Stands in for GpuListModeSimulator.cpp in builds without CUDA: no GPU, a clear error.
#include "recon/core/Error.h"
#include "recon/pet/GpuListModeSimulator.h"

namespace tomowb::pet {

namespace {

[[noreturn]] void noCuda() {
  throw Error(
      "GPU list-mode simulation needs a CUDA build; this one has none (TOMOWB_CUDA=OFF): use "
      "simulateListMode (CPU)");
}

}  // namespace

bool gpuListModeSimulatorAvailable() {
  return false;
}

ListModeSimulationReport simulateListModeGpu(
    const ScannerModel& /*scanner*/, const Volume& /*activityBqPerMl*/,
    const Volume* /*attenuationPerMm*/, const ListModeSimulationParams& /*params*/,
    const GpuListModeOptions& /*options*/, const ListModeEventSink& /*sink*/,
    JobContext& /*context*/, GpuListModeTimings* /*timings*/) {
  noCuda();
}

SimulatedListMode simulateListModeGpu(const ScannerModel& /*scanner*/,
                                      const Volume& /*activityBqPerMl*/,
                                      const Volume* /*attenuationPerMm*/,
                                      const ListModeSimulationParams& /*params*/,
                                      const GpuListModeOptions& /*options*/,
                                      JobContext& /*context*/, GpuListModeTimings* /*timings*/) {
  noCuda();
}

}  // namespace tomowb::pet
