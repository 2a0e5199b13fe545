// Comparison of a test volume with a reference volume inside a Region: RMSE, NRMSE, PSNR, SSIM,
// max-abs and mean difference, the figures DESIGN.md ("Measuring") and the digests ask for when
// a reconstruction is checked against an analytic phantom, a float64 CPU reference or another
// kernel variant. Definitions (d = test - reference, sums over the N region voxels, in double):
//   RMSE  = sqrt(sum d^2 / N)
//   NRMSE = RMSE / (max - min of the reference in the region): the reference's range, not its
//           mean (which blows up for zero-mean data) nor its std (for nearly flat data)
//   PSNR  = 20 log10(peak / RMSE) dB, peak = CompareOptions::dataRange if given, else the
//           reference's range in the region (RabbitCT's peak is 4095 HU: pass dataRange = 4095)
//   SSIM  = per-slice 2-D SSIM of Wang et al. 2004 (see StructuralSimilarity.h) with L = peak,
//           averaged over the region voxels
//   maxAbsDifference = max |d|, meanDifference = sum d / N (the bias, signed)
// Edge cases: identical volumes give RMSE 0, NRMSE 0, PSNR +inf and SSIM 1. A flat reference
// (range 0) with RMSE > 0 gives NRMSE +inf, and PSNR -inf and SSIM NaN unless dataRange is
// given. A voxel where test - reference is NaN or infinite makes every figure NaN
// (nonFiniteCount says how many); nothing is skipped quietly.
#pragma once

#include <cstdint>
#include <optional>

#include "recon/core/Volume.h"
#include "recon/metrics/Region.h"

namespace tomowb::metrics {

struct CompareOptions {
  // Peak for PSNR and L for SSIM; when absent, the reference's max - min in the region.
  std::optional<double> dataRange;
  // SSIM costs far more than the other figures together; off leaves ssim empty.
  bool computeSsim = true;
};

struct ComparisonMetrics {
  double rmse = 0.0;
  double nrmse = 0.0;
  double psnrDb = 0.0;
  std::optional<double> ssim;  // empty when CompareOptions::computeSsim is off
  double maxAbsDifference = 0.0;
  double meanDifference = 0.0;
  std::int64_t voxelCount = 0;
  std::int64_t nonFiniteCount = 0;  // region voxels where test - reference is NaN or infinite
  // The reference's extent in the region and the peak used for PSNR and SSIM.
  double referenceMin = 0.0;
  double referenceMax = 0.0;
  double dataRange = 0.0;
};

// Throws ParameterError when the shapes differ, when the region does not fit the volumes or
// selects no voxel, or when options.dataRange is not finite and > 0. The region is bound to the
// reference's geometry (voxel size and origin).
// Throws ParameterError "test volume: shape AxBxC does not match the reference's DxExF".
void requireSameShape(const Volume& test, const Volume& reference);

ComparisonMetrics compareVolumes(const Volume& test, const Volume& reference,
                                 const Region& region = Region::whole(),
                                 const CompareOptions& options = {});

}  // namespace tomowb::metrics
