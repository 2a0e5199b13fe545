// Kernels of the GPU list-mode simulator (GpuListModeSimulator.h) behind launch functions with
// plain arguments: C++17 (nvcc's dialect here), included by the host code
// (GpuListModeSimulator.cpp) and ListModeSimulatorCuda.cu only.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "recon/pet/AttenuationPath.h"
#include "recon/pet/DetectorHits.h"

namespace tomowb::pet::gpu {

// One entry of the emission table on the device: the voxel's lower corner (mm), the alias
// threshold and the alias entry (EmissionTable).
struct DeviceEmissionEntry {
  float cornerMm[3];
  float threshold;
  std::uint32_t alias;
};

struct TruesLaunch {
  DetectorHitModel hits;
  const DeviceEmissionEntry* emission = nullptr;
  std::uint32_t emissionSize = 0;
  float voxelMm[3] = {1, 1, 1};  // the activity map's voxel size
  AttenuationGrid attenuation;   // mu: device pointer or nullptr
  float bandSin = 0;
  float tofSigmaPs = 0, halfWindowPs = 0, tofLsbPs = 1;
  float positioningSigmaMm = 0, acollinearitySigmaRad = 0;
  std::uint64_t seed = 0;
  std::uint64_t subsequence = 0;  // of thread 0; thread t uses subsequence + t
  std::uint64_t decays = 0;
  std::uint32_t* out = nullptr;  // 3 words per event (the little-endian ListModeEvent)
  unsigned long long* count = nullptr;
  std::uint64_t capacity = 0;  // events `out` holds
  int blocks = 1, threads = 256;
};

// Simulates l.decays annihilations; detected coincidences are appended to l.out through the
// counter l.count (which may exceed l.capacity: the extra events are not written).
void launchTrues(const TruesLaunch& l, cudaStream_t stream);

struct RandomsLaunch {
  DetectorHitModel hits;
  float halfWindowPs = 0, tofLsbPs = 1;
  std::uint64_t seed = 0;
  std::uint64_t subsequence = 0;  // of event 0; event i uses subsequence + i
  std::uint64_t randoms = 0;      // events [0, randoms) flagged random, then delayed ones
  std::uint64_t delayed = 0;
  std::uint32_t* out = nullptr;  // randoms + delayed events, in index order
};

void launchRandoms(const RandomsLaunch& l, cudaStream_t stream);

}  // namespace tomowb::pet::gpu
