// Poisson (quantum) noise on line integrals, the dominant noise of X-ray CT: each pixel's photon
// count is drawn from Poisson(I0 exp(-p)) and turned back into a line integral, p' = -log(N/I0).
// No scatter, electronic noise or detector blur (docs/phantoms.md). drawPoissonCounts keeps the
// counts themselves, which statistical methods (PWLS) take as their weights: turn them into
// post-log data and weights with preprocess::postLogFromCounts (recon/preprocess/
// StatisticalWeights.h); the same seed gives the same draw as addPoissonNoise.
#pragma once

#include <cstdint>

#include "recon/data/ProjectionStack.h"

namespace tomowb::phantom {

// Replaces every line integral p of the stack by a noisy one, for an unattenuated count of
// incidentPhotons per pixel. A pixel that counts zero photons is given half a photon, so it
// reads p' = log(2 I0): finite, and above any line integral a real count can give (docs).
// Deterministic for a seed: view v draws from its own generator seeded from (seed, v), so the
// result does not depend on the thread count (on the same standard library: the Poisson
// sampler is the library's). Throws ParameterError unless incidentPhotons is finite and > 0, for
// a line integral that is not finite, or for a mean count above 1e18.
void addPoissonNoise(ProjectionStack& projections, double incidentPhotons, std::uint64_t seed);

// The photon counts of the same draw: a stack with the geometry of `lineIntegrals` holding, per
// pixel, the count N drawn from Poisson(I0 exp(-p)) (a whole number; 0 stays 0). The same seed
// gives the counts behind addPoissonNoise's result: preprocess::postLogFromCounts of these counts
// equals it bit for bit while counts stay below 2^24 (float holds every whole number up to
// there). Throws as addPoissonNoise does.
ProjectionStack drawPoissonCounts(const ProjectionStack& lineIntegrals, double incidentPhotons,
                                  std::uint64_t seed);

}  // namespace tomowb::phantom
