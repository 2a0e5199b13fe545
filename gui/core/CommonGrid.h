// CommonGrid: two volumes on one lattice (the same voxel size, origins a whole number of voxels
// apart) cut to the part they share, so that runs reconstructed on different grids of one scan
// can be compared voxel for voxel: helical FDK on its completely measured slab against PWLS on
// every slice a ray reaches (fdk::illuminatedGrid), a tomogram against a thicker one.
#pragma once

#include <memory>
#include <optional>
#include <utility>

#include "recon/core/Volume.h"

namespace tomowb::gui {

struct CommonGridPair {
  std::shared_ptr<const Volume> a, b;  // the same shape, voxel size and origin
  bool cut = false;                    // false: a and b are the volumes given (same grid)
};

// The common part, or nullopt when the volumes are not on one lattice (voxel sizes differ by more
// than 1e-6 relative, or an origin offset is not within 1e-3 voxel of a whole number) or do not
// overlap. Copies only what is cut; a volume that is the common part is returned as given.
std::optional<CommonGridPair> onCommonGrid(const std::shared_ptr<const Volume>& a,
                                           const std::shared_ptr<const Volume>& b);

}  // namespace tomowb::gui
