// CGLS: conjugate gradients on the normal equations A^T A x = A^T b (Hestenes-Stiefel in the
// least-squares form; reference/sirt-et.md names it beside SIRT), written once over the projector
// pair interface, so it runs on the host or device-resident on a GPU pair without a copy between
// iterations. From x0:
//
//   r = b - A x,  s = M B r,  p = s,  gamma = <s, s>
//   each iteration:  q = A p,  alpha = gamma / <q, q>,  x += alpha p,  r -= alpha q,
//                    s = M B r,  gamma' = <s, s>,  p = s + (gamma' / gamma) p
//
// with B the pair's backprojector and M the mask (1 on unknowns). With a matched pair (B = A^T)
// this minimises ||b - A x||^2 over the unknowns; with an unmatched one it is not a gradient
// method any more (a warning says so). CGLS takes no box constraints and no relaxation.
#pragma once

#include "recon/iterative/IterativeReconstruction.h"
#include "recon/job/JobContext.h"
#include "recon/operator/ProjectorPair.h"

namespace tomowb::iterative {

// Runs params.iterations iterations of CGLS from x (already masked); stops early when the
// residual's gradient vanishes or params' stop rule fires. Fills the report like
// runOrderedSubsets; each record carries the objective ||b - A x||^2 / 2 of the iterate the
// iteration started from, and the metrics "gradient norm" (||M B r||) and "step" (alpha).
void runCgls(op::ProjectorPair& pair, const op::Array& data, const op::Array* mask, op::Array& x,
             const IterativeParams& params, double dataNorm, IterativeReport& report,
             JobContext& context);

}  // namespace tomowb::iterative
