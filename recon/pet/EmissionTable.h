// EmissionTable: where annihilations happen, drawn from a voxelised activity map in O(1) per draw
// (reference/direct-tof-pet.md, section 5.3 step 1, with a voxel map in place of analytic regions):
// the voxels with activity and an alias table over them (Vose, "A linear algorithm for generating
// random numbers with a given distribution", IEEE TSE 17(9), 1991). A draw picks entry j
// uniformly, keeps it if a second uniform is below threshold[j] and takes alias[j] otherwise; the
// point is then uniform inside the chosen voxel. The CPU and the CUDA simulator read the same
// table.
#pragma once

#include <Eigen/Core>
#include <cstdint>
#include <vector>

#include "recon/core/Volume.h"

namespace tomowb::pet {

struct EmissionTable {
  std::vector<std::int64_t> voxels;  // Volume::index of each voxel with activity
  std::vector<double> threshold;     // per entry, in [0, 1]
  std::vector<std::uint32_t> alias;  // per entry, an entry index
  double totalActivityBq = 0.0;      // sum of activity x voxel volume (mL)
  Eigen::Vector3d voxelSizeMm = Eigen::Vector3d::Ones();
  Eigen::Vector3d originMm = Eigen::Vector3d::Zero();
  std::int64_t nx = 0, ny = 0, nz = 0;

  std::size_t size() const noexcept { return voxels.size(); }
  // The voxel of entry draw (uniform1, uniform2 in [0, 1)).
  std::int64_t pick(double uniform1, double uniform2) const noexcept {
    const auto n = voxels.size();
    auto j = static_cast<std::size_t>(uniform1 * static_cast<double>(n));
    if (j >= n) j = n - 1;
    return voxels[uniform2 < threshold[j] ? j : alias[j]];
  }
};

// From an activity map in Bq/mL. ParameterError ("activity") for a negative or non-finite
// voxel, a map without activity, or more than 2^32 - 1 voxels with activity.
EmissionTable buildEmissionTable(const Volume& activityBqPerMl);

}  // namespace tomowb::pet
