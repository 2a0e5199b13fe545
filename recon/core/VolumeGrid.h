// VolumeGrid: where a voxel array lies (its shape, voxel size and the world position of voxel
// (0,0,0)'s centre), the metadata of a Volume without its voxels. Every layer that binds a problem
// (projector pairs, solvers, FDK) describes its reconstruction grid with it.
#pragma once

#include <Eigen/Core>

#include "recon/core/Volume.h"

namespace tomowb {

struct VolumeGrid {
  VolumeShape shape;
  Eigen::Vector3d voxelSizeMm = Eigen::Vector3d::Ones();
  Eigen::Vector3d originMm = Eigen::Vector3d::Zero();

  // A grid centred on the isocentre (the world origin).
  static VolumeGrid centred(VolumeShape shape, const Eigen::Vector3d& voxelSizeMm) {
    const Eigen::Vector3d extent(double(shape.nx - 1), double(shape.ny - 1), double(shape.nz - 1));
    return {shape, voxelSizeMm, -0.5 * voxelSizeMm.cwiseProduct(extent)};
  }
  static VolumeGrid of(const Volume& volume) {
    return {volume.shape(), volume.voxelSizeMm(), volume.originMm()};
  }
  // A zero-filled volume on this grid.
  Volume makeVolume() const { return Volume(shape, voxelSizeMm, originMm); }
};

}  // namespace tomowb
