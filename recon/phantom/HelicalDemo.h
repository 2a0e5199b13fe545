// The helical CT demo (`tomowb-cli demo --scan helical`, `tomowb --demo helical`): the modified
// 3-D Shepp-Logan head scanned on a helix with Poisson noise, with the photon counts kept so that
// PWLS can weight each ray by them (recon/preprocess/StatisticalWeights.h). One recipe for the
// command line and the window.
//
// The scanner is the other demos' (SOD 500 mm, SDD 1000 mm, a 204.8 mm field, one voxel per
// detector pixel at the isocentre) with a CT-like short detector: size / 8 rows (16 at the window's
// default 128), three turns at pitch 1 of 1.5 size views per turn (at least 90), centred on
// z = 0. Helical FDK reconstructs the slab of about 0.3 size slices whose every line is
// measured (fdk::fieldOfViewGrid): 128 in-plane voxels take a few seconds on a CPU.
#pragma once

#include <cstdint>
#include <string>

#include "recon/data/ProjectionStack.h"
#include "recon/job/JobContext.h"
#include "recon/phantom/Phantom.h"

namespace tomowb::phantom {

inline constexpr double kHelicalDemoPhotons = 5e4;  // incident photons per pixel
inline constexpr std::uint64_t kHelicalDemoSeed = 20261126;

struct HelicalDemo {
  Phantom phantom;
  ProjectionStack lineIntegrals;  // noisy post-log data, log(I0 / max(N, 0.5))
  ProjectionStack counts;         // the photon counts N behind them: PWLS's weights
  double incidentPhotons = kHelicalDemoPhotons;
  double voxelMm = 0;       // the grid's voxel size the scan is sized for
  std::string description;  // "helical cone beam, 3 turns at pitch 1, 576 views of 128 x 16, ..."
};

// ParameterError for a size outside 16..2048 or photons that are not finite and > 0; Cancelled
// when the context's token is set during the projection. `photons` = 0 keeps the data noise-free
// (the counts are then the expected counts, I0 exp(-p)).
HelicalDemo makeHelicalDemo(int size, double photons = kHelicalDemoPhotons,
                            std::uint64_t seed = kHelicalDemoSeed,
                            const JobContext* context = nullptr);

}  // namespace tomowb::phantom
