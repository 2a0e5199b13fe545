// GpuListModeSimulator: the list-mode simulator of ListModeSimulator.h on a CUDA GPU, for the
// large counts of the seed's benchmark (reference/direct-tof-pet.md section 5.5: 430 M prompts).
// The same physics through the same code (DetectorHits.h, AttenuationPath.h, the emission table,
// SimulationSetup), in float32, with a curand Philox4x32-10 stream per GPU thread instead of one
// per decay. The number of annihilations in the band is drawn exactly as on the CPU (the same
// seed gives the same count), and randoms and delayed events are added per launch as the CPU adds
// them per chunk; so for one seed the CPU and GPU give statistically equivalent, not identical,
// events. Events come in launch order: each launch's trues (in the order the GPU wrote them, which
// varies from run to run), then its randoms, then its delayed events. Plain C++ header: no CUDA
// types; builds without CUDA link GpuListModeSimulatorNoCuda.cpp, which throws.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>

#include "recon/core/Volume.h"
#include "recon/job/JobContext.h"
#include "recon/pet/ListModeEvent.h"
#include "recon/pet/ListModeSimulator.h"
#include "recon/pet/ScannerModel.h"

namespace tomowb::pet {

struct GpuListModeOptions {
  int device = 0;
  // Annihilations per kernel launch; the device buffer holds one launch's events (at most one
  // per annihilation plus its randoms and delayed: about 16 B per annihilation).
  std::int64_t decaysPerLaunch = std::int64_t{1} << 26;
  int threadsPerBlock = 256;
  int blocksPerSm = 8;  // blocks per multiprocessor in a launch (each thread loops over decays)
};

struct GpuListModeTimings {
  std::string device;          // the GPU's name
  double kernelSeconds = 0.0;  // the simulation kernels (CUDA events)
  double copySeconds = 0.0;    // device -> host copies of the events (0 without a sink)
  double setupSeconds = 0.0;   // validation, tables, uploads
  int launches = 0;
};

// Receives a launch's events in order; the span is valid during the call only.
using ListModeEventSink = std::function<void(std::span<const ListModeEvent>)>;

// True in a CUDA build with a usable device.
bool gpuListModeSimulatorAvailable();

// Simulates on the GPU and hands each launch's events to `sink`. An empty sink keeps the events
// in device memory only, counted and then dropped (a throughput run). ParameterError as
// simulateListMode; Error ("no CUDA") without CUDA; CudaError naming the call on a CUDA failure;
// Cancelled (checked between launches).
ListModeSimulationReport simulateListModeGpu(
    const ScannerModel& scanner, const Volume& activityBqPerMl, const Volume* attenuationPerMm,
    const ListModeSimulationParams& params, const GpuListModeOptions& options,
    const ListModeEventSink& sink, JobContext& context, GpuListModeTimings* timings = nullptr);

// The same, collecting the events on the host.
SimulatedListMode simulateListModeGpu(const ScannerModel& scanner, const Volume& activityBqPerMl,
                                      const Volume* attenuationPerMm,
                                      const ListModeSimulationParams& params,
                                      const GpuListModeOptions& options, JobContext& context,
                                      GpuListModeTimings* timings = nullptr);

}  // namespace tomowb::pet
