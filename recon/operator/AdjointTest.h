// The dot-product (adjoint) test of a projector pair: <A x, y> against <x, B y> for random x and
// y drawn uniformly from [-1, 1] (zero mean: with positive vectors every term adds up and a pair
// that is only nearly matched passes; with zero-mean ones the terms cancel and the mismatch
// shows). The error is relative to ||A x|| ||y||, the size the dot products could have, so a
// dot product that happens to be near zero does not inflate it. For random vectors of N elements
// this scale is about sqrt(N) times the dot products themselves: a matched pair gives 1e-9 to
// 1e-8 (float32 rounding), the unmatched voxel-driven partner of the Joseph projector about 1e-3,
// whatever the seed. Runs on any bound pair, host or device.
#pragma once

#include <cstdint>

#include "recon/job/JobContext.h"
#include "recon/operator/ProjectorPair.h"

namespace tomowb::op {

struct AdjointCheck {
  double forwardDot = 0;     // <A x, y>
  double backDot = 0;        // <x, B y>
  double relativeError = 0;  // |forwardDot - backDot| / max(||A x|| ||y||, ||x|| ||B y||)
  // Below this a pair is matched to float32 rounding (margin 100 over what float32 pairs reach).
  static constexpr double kMatchedTolerance = 1e-6;
};

AdjointCheck checkAdjoint(ProjectorPair& pair, std::uint64_t seed, JobContext& context);

}  // namespace tomowb::op
