// SimulationSetup: what the list-mode simulators (CPU: ListModeSimulator, GPU:
// GpuListModeSimulator) derive from their inputs before the first decay, checked once for both:
// the detector's hit model, the emission table, the attenuation map's view, the emission band,
// the expected number of decays and the noise widths in the units the inner loop uses.
#pragma once

#include <cstdint>

#include "recon/core/Volume.h"
#include "recon/pet/AttenuationPath.h"
#include "recon/pet/DetectorHits.h"
#include "recon/pet/EmissionTable.h"
#include "recon/pet/ListModeSimulator.h"
#include "recon/pet/ScannerModel.h"

namespace tomowb::pet {

struct SimulationSetup {
  DetectorHitModel hits;
  EmissionTable emission;
  AttenuationGrid attenuation;    // attenuation.mu == nullptr: none
  double bandSin = 0;             // |u_z| <= bandSin
  double expectedDecays = 0;      // mean decays during the acquisition, all directions
  double expectedBandDecays = 0;  // expectedDecays x positron fraction x bandSin
  double tofSigmaPs = 0;          // 0 without timing noise
  double halfWindowPs = 0;
  double tofLsbPs = 1;
  double positioningSigmaMm = 0;     // 0 without blur
  double acollinearitySigmaRad = 0;  // 0 without acollinearity
  double randomsPerTrue = 0;         // f / (1 - f)
};

// Substreams of CounterRng (stream = the index named), one per purpose, shared by both
// simulators so that they draw the same counts for a seed.
enum SimulationSubstream : std::uint32_t {
  kDecaySubstream = 0,       // stream = decay index (CPU)
  kRandomsSubstream = 1,     // stream = chunk (CPU) or launch (GPU) index
  kDelayedSubstream = 2,     // stream = chunk index
  kShuffleSubstream = 3,     // stream = chunk index
  kChunkCountSubstream = 4,  // stream = chunk or launch index: how many randoms and delayed
  kTotalSubstream = 5,       // stream 0: the number of annihilations in the band
};

// Poisson(expectedBandDecays) from the seed's total stream.
std::int64_t sampleBandDecays(const SimulationSetup& setup, std::uint64_t seed);

struct RandomsCount {
  std::int64_t randoms = 0, delayed = 0;
};
// Randoms and delayed events of chunk (or launch) `index` that made `trues` trues: each
// Poisson(trues x f / (1 - f)); no delayed stream without params.delayedWindow.
RandomsCount sampleRandomsCount(const SimulationSetup& setup,
                                const ListModeSimulationParams& params, std::uint64_t index,
                                std::int64_t trues);

// Validates the scanner, the parameters (ParameterError naming the field of
// ListModeSimulationParams), the activity map (finite, >= 0, some activity, every active voxel
// inside the detector ring) and the attenuation map (finite, >= 0). The attenuation view points
// into `attenuationPerMm`, which must outlive the setup.
SimulationSetup prepareSimulation(const ScannerModel& scanner, const Volume& activityBqPerMl,
                                  const Volume* attenuationPerMm,
                                  const ListModeSimulationParams& params);

}  // namespace tomowb::pet
