// Structural similarity (SSIM, Wang, Bovik, Sheikh & Simoncelli, IEEE TIP 13(4), 2004) of a test
// volume against a reference, as 2-D SSIM per slice averaged over a Region:
// - local means, variances and covariance use the paper's circular Gaussian window, sigma 1.5
//   pixels, 11x11 taps (radius 5), applied separably; variances are the window-weighted (biased)
//   ones, as in the paper;
// - at the slice border the window is cut to the slice and its weights renormalised, so every
//   voxel has a value (the paper's 'valid' filtering would drop 5 pixels at each edge);
// - the window sees every voxel of the slice, inside the region or not: the region picks which
//   local SSIM values are averaged, not which voxels feed them;
// - SSIM = mean over the region voxels of
//     (2 mu_t mu_r + C1)(2 s_tr + C2) / ((mu_t^2 + mu_r^2 + C1)(s_t^2 + s_r^2 + C2)),
//   C1 = (0.01 L)^2, C2 = (0.03 L)^2, L = the data range. Each region voxel weighs the same, so
//   slices with more region voxels weigh more.
// 2-D per slice rather than 3-D: reconstructions are often anisotropic along z (cone-beam
// artefacts, the electron-tomography missing wedge), and 2-D is the definition of the paper.
#pragma once

#include "recon/core/Volume.h"
#include "recon/metrics/Region.h"

namespace tomowb::metrics {

inline constexpr double kSsimK1 = 0.01;
inline constexpr double kSsimK2 = 0.03;
inline constexpr double kSsimWindowSigmaVoxels = 1.5;
inline constexpr int kSsimWindowRadius = 5;  // 11 taps

// `region` must be bound to the volumes' shape. SSIM of identical volumes is 1; it is symmetric
// in test and reference. Returns NaN when dataRange is not > 0 (C1 = C2 = 0 would divide 0 by 0
// in flat areas). Throws ParameterError when the shapes differ or the region is empty.
double structuralSimilarity(const Volume& test, const Volume& reference, const BoundRegion& region,
                            double dataRange);
double structuralSimilarity(const Volume& test, const Volume& reference, const Region& region,
                            double dataRange);

}  // namespace tomowb::metrics
