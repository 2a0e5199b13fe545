// CnrMeasurement: the contrast-to-noise figures of the CNR panel, on plain voxel index lists (the
// voxels of the ROIs the user drew on the slice views), so the numbers are tested without a
// display. Every signal region is measured against the union of all background regions:
// CNR = (mean_signal - mean_background) / std_background, signed (a cold insert gives a negative
// CNR), with the sample standard deviation; the same definition as CnrPhantom's docs and
// recon/metrics (which reports |contrast|). Sums in double, mean first then squared deviations.
#pragma once

#include <QString>
#include <cstdint>
#include <limits>
#include <vector>

#include "recon/core/Volume.h"

namespace tomowb::gui {

struct VoxelListStats {
  double mean = std::numeric_limits<double>::quiet_NaN();
  double std = std::numeric_limits<double>::quiet_NaN();  // sample std (n - 1); NaN for n < 2
  std::int64_t count = 0;
  std::int64_t nonFiniteCount = 0;  // NaN/inf voxels, left out of mean and std
};

// Statistics of the listed voxels (Volume::index values; out-of-range indices are a programmer
// error). Duplicates count twice.
VoxelListStats voxelListStatistics(const Volume& volume, const std::vector<std::int64_t>& indices);

struct CnrFigures {
  VoxelListStats signal, background;
  double contrast = std::numeric_limits<double>::quiet_NaN();  // mean_signal - mean_background
  double noise = std::numeric_limits<double>::quiet_NaN();     // std of the background
  // contrast / noise: +-inf for noise-free data with contrast, NaN without contrast or voxels.
  double cnr = std::numeric_limits<double>::quiet_NaN();
};

CnrFigures computeCnr(const Volume& volume, const std::vector<std::int64_t>& signal,
                      const std::vector<std::int64_t>& background);

// One region the user placed: its voxels in the current volume (empty when its slice lies
// outside the volume).
struct CnrRegion {
  int id = 0;
  QString label;
  bool background = false;
  std::vector<std::int64_t> voxels;
};

struct CnrRow {
  int id = 0;
  QString label;
  CnrFigures figures;
  QString problem;  // why there is no CNR ("no background ROI", ...); empty when measured
  bool measured() const { return problem.isEmpty(); }
};

// One row per signal region, in the order given, each against the union (without duplicates)
// of every background region's voxels.
std::vector<CnrRow> measureCnr(const Volume& volume, const std::vector<CnrRegion>& regions);

// "12.3", "-4.56", "∞", "−∞", "—" (NaN): for tables.
QString formatCnr(double cnr);

}  // namespace tomowb::gui
