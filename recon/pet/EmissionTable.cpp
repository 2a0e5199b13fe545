// EmissionTable: Vose's alias construction over the voxels with activity.
#include "recon/pet/EmissionTable.h"

#include <cmath>
#include <limits>
#include <string>

#include "recon/core/Error.h"

namespace tomowb::pet {

EmissionTable buildEmissionTable(const Volume& activity) {
  EmissionTable table;
  table.voxelSizeMm = activity.voxelSizeMm();
  table.originMm = activity.originMm();
  table.nx = activity.nx();
  table.ny = activity.ny();
  table.nz = activity.nz();
  const double voxelMl = activity.voxelSizeMm().prod() * 1e-3;
  std::vector<double> weight;
  const auto values = activity.voxels();
  for (std::size_t i = 0; i < values.size(); ++i) {
    const float v = values[i];
    if (!std::isfinite(v) || v < 0)
      throw ParameterError("activity", "voxel " + std::to_string(i) + " holds " +
                                           std::to_string(v) +
                                           " Bq/mL; activity must be finite and >= 0");
    if (v == 0) continue;
    table.voxels.push_back(static_cast<std::int64_t>(i));
    weight.push_back(double(v));
  }
  if (table.voxels.empty()) throw ParameterError("activity", "the map holds no activity");
  if (table.voxels.size() >= std::numeric_limits<std::uint32_t>::max())
    throw ParameterError("activity", "more than 2^32 - 1 voxels hold activity");

  double sum = 0;
  for (double w : weight) sum += w;
  table.totalActivityBq = sum * voxelMl;
  const std::size_t n = weight.size();
  table.threshold.assign(n, 1.0);
  table.alias.resize(n);
  std::vector<std::uint32_t> small, large;
  std::vector<double> scaled(n);
  for (std::size_t j = 0; j < n; ++j) {
    scaled[j] = weight[j] * static_cast<double>(n) / sum;
    table.alias[j] = static_cast<std::uint32_t>(j);
    (scaled[j] < 1.0 ? small : large).push_back(static_cast<std::uint32_t>(j));
  }
  while (!small.empty() && !large.empty()) {
    const std::uint32_t s = small.back(), l = large.back();
    small.pop_back();
    table.threshold[s] = scaled[s];
    table.alias[s] = l;
    scaled[l] -= 1.0 - scaled[s];
    if (scaled[l] < 1.0) {
      large.pop_back();
      small.push_back(l);
    }
  }
  // What is left is 1 up to rounding: those entries keep themselves.
  for (std::uint32_t j : small) table.threshold[j] = 1.0;
  for (std::uint32_t j : large) table.threshold[j] = 1.0;
  return table;
}

}  // namespace tomowb::pet
