// Statistics of one volume inside a Region (mean, sample standard deviation, min, max, count)
// and the contrast-to-noise ratio between an ROI and a background region, the figure the GUI
// plots per iteration and the hot/cold-sphere phantoms are made for (DESIGN.md, "Phantom").
// Sums are in double, two passes (mean first, then squared deviations), in fixed row blocks so
// the result does not depend on the thread count.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "recon/core/Volume.h"
#include "recon/metrics/Region.h"

namespace tomowb::metrics {

struct RoiStats {
  double mean = 0.0;
  double std = 0.0;  // sample standard deviation (divides by count - 1); NaN when count is 1
  double min = 0.0;
  double max = 0.0;
  std::int64_t count = 0;
  std::int64_t nonFiniteCount = 0;  // NaN or infinite voxels; any makes every figure NaN
};

// Throws ParameterError when the region does not fit the volume or selects no voxel
// (`parameter` names it: "roi", "background", ...).
RoiStats roiStatistics(const Volume& volume, const Region& region,
                       std::string_view parameter = "region");
RoiStats roiStatistics(const Volume& volume, const BoundRegion& region);

// Which standard deviation is the noise of the CNR.
enum class CnrNoise {
  Background,  // std of the background: CNR = |mean_roi - mean_bg| / std_bg (the usual one)
  Pooled,      // sqrt((std_roi^2 + std_bg^2) / 2): for an ROI as noisy as, or noisier than, bg
};

struct ContrastToNoise {
  double cnr = 0.0;       // |contrast| / noise; +inf for zero noise (NaN if contrast is 0 too)
  double contrast = 0.0;  // mean_roi - mean_bg, signed (negative for a cold ROI)
  double noise = 0.0;     // the standard deviation chosen by CnrNoise
  CnrNoise noiseModel = CnrNoise::Background;
  RoiStats roi;
  RoiStats background;
};

// The two regions may overlap (nothing forbids it), though a CNR of overlapping regions means
// little. Throws ParameterError naming "roi" or "background" when either does not fit the volume
// or selects no voxel.
ContrastToNoise contrastToNoise(const Volume& volume, const Region& roi, const Region& background,
                                CnrNoise noise = CnrNoise::Background);

// "background" / "pooled", as the CLI and JSON spell them.
std::string_view toString(CnrNoise noise);
std::optional<CnrNoise> cnrNoiseFromString(std::string_view text);

}  // namespace tomowb::metrics
