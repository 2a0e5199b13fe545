// Helical FDK's backprojection with per-voxel redundancy weights (docs/fdk.md, "Helical
// scans"), after the weighted FBP ("WFBP") of Stierstorfer, Rauscher, Boese, Bruder, Schaller and
// Flohr, Phys. Med. Biol. 49 (2004) 2209-2218, carried out in the native cone-beam geometry (no
// rebinning to parallel rays), as Tang, Hsieh et al. weight helical cone-beam FBP (Phys. Med.
// Biol. 51 (2006) 855).
//
// Each view's filtered projection, already carrying FDK's cosine weight and its angular step but
// no redundancy weight (FdkWeightPlan in helical mode), is backprojected into a voxel x with the
// weight
//     w_j(x) = W(q_j(x)) / sum over the conjugates c of view j for x of W(q_c(x)),
// where q is the row at which the voxel projects, scaled to [-1, 1] over the detector's height,
// and the conjugates are the source angles whose ray through x lies on the same transaxial line:
// a_j + 2 pi m (same direction) and a_j + (2m + 1) pi + 2 gamma_j(x) (opposite direction; gamma
// the voxel's fan angle), view j itself included, within the scanned arc. Every transaxial line
// through a voxel is then counted once in total, by the rays nearest the detector's middle rows
// (the smallest cone angles). W(q) = 1 for |q| <= Q, falls as cos^2 to 0 at |q| = 1: the taper
// smooths the weight along the rows so that the hand-over between turns leaves no seam (Q = 1
// would switch rays on and off at the detector's edge). The conjugates' rows come from the
// orbit (HelicalOrbit::matrixAt), so they need not coincide with measured views.
//
// On a circular orbit the weights are 1/2 at every voxel, the full-scan weight; on a helix the
// result is an approximate (FDK-type) reconstruction whose cone-beam error grows with the pitch.
#pragma once

#include "recon/core/Volume.h"
#include "recon/data/ProjectionStack.h"
#include "recon/fdk/HelicalOrbit.h"
#include "recon/job/JobContext.h"

namespace tomowb::fdk {

// Q: the fraction of the detector's half height over which W is flat. Measured on
// tests/recon/fdk/HelicalFdkTest.cpp (pitch 1, 3 turns; 2026-11-26, this machine's CPU build):
// Q = 0.7 gives the Shepp-Logan's central RMSE 7.06e-4 /mm (0.3: 7.12e-4, 0.5: 7.09e-4, 0.9:
// 7.06e-4) and, on a long water cylinder with an off-axis rod, water 0.4% low with the rod's
// slice means within 2.2% of water (0.5: 0.3% low, 2.6%; 0.9: 0.6% low, 1.9%). Towards 1 the
// rays at the detector's edge weigh more and the water falls (no taper: 1.5% low).
inline constexpr double kHelicalFlatFraction = 0.7;

// W(q) above: 1 for |q| <= flatFraction, cos^2 down to 0 at |q| = 1, 0 beyond.
double helicalRowWeight(double q, double flatFraction);

// Adds the weighted backprojection of the filtered views into `volume` (float64 sums per voxel,
// OpenMP over voxel columns; the same bits for any thread count). Cancel is checked per column,
// progress and one telemetry event ("fdk.backproject", "fdk.bp.cpu-helical") reported.
void backprojectHelical(const ProjectionStack& filtered, const HelicalOrbit& orbit,
                        double flatFraction, Volume& volume, JobContext& context);

}  // namespace tomowb::fdk
