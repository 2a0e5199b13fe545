// Post-log data and statistical weights from photon counts, for penalised weighted least squares
// (PWLS; ../shared/reference/sf-projectors.md section 6, "Data"): the line integrals are
// y_i = log(I0 / N_i) and the weights w_i = N_i, the counts themselves, which is the inverse of
// the variance of y_i for Poisson counts (var y ~ 1 / N). Where only I0 is known (simulations
// without counts, or post-log data from elsewhere), w_i = I0 exp(-y_i), the expected count.
//
// Counts of zero have no logarithm: their line integral reads log(I0 / 0.5) (half a photon, as
// phantom::addPoissonNoise does, so the two give the same bits) and their weight is 0, so a
// weighted solver ignores the ray. Counts are held as float32 in a ProjectionStack: whole numbers
// are exact up to 2^24 (16.7 M photons per pixel).
//
// Simulated counts come from phantom::drawPoissonCounts (recon/phantom/PoissonNoise.h); a counts
// file is read as weights by io::readCountsAsWeights (recon/io/WeightsFile.h).
#pragma once

#include <string_view>

#include "recon/data/ProjectionStack.h"

namespace tomowb::preprocess {

struct PostLogData {
  ProjectionStack lineIntegrals;  // y = log(I0 / max(N, 0.5))
  ProjectionStack weights;        // w = N (0 where nothing was counted)
};

// Both stacks carry the geometry of `counts`. ParameterError unless incidentPhotons is finite and
// > 0, or (naming `source`, e.g. the file the counts came from, and the first bad pixel) for a
// count that is negative or not finite.
PostLogData postLogFromCounts(const ProjectionStack& counts, double incidentPhotons,
                              std::string_view source = "counts");

// w = I0 exp(-y) per pixel, the expected count of a line integral y. ParameterError unless
// incidentPhotons is finite and > 0, or for a line integral that is not finite (naming `source`).
ProjectionStack weightsFromLineIntegrals(const ProjectionStack& lineIntegrals,
                                         double incidentPhotons,
                                         std::string_view source = "line integrals");

// Throws ParameterError naming `source` and the first pixel (view, row, col) whose value is
// negative or not finite: the check every weights or counts stack passes before it is used.
void checkNonNegativeFinite(const ProjectionStack& stack, std::string_view source);

}  // namespace tomowb::preprocess
