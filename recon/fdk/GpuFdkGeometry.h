// GpuFdkGeometry: the voxel-to-detector arithmetic the GPU FDK pipeline plans with, in plain C++
// (issue #22): the slab planner asks it, before any GPU work, whether the z-mirror kernels can
// run, so that a slab run may pair each slab with its mirror image (recon/scale/SlabRun.h).
#pragma once

#include <Eigen/Core>
#include <string>
#include <vector>

#include "recon/core/VolumeGrid.h"
#include "recon/geometry/Geometry.h"

namespace tomowb::fdk {

// Voxel index (x, y, z) of `volume` -> (c w, r w, w) on `geometry`'s detector, per view, in double.
using VoxelMatrix = Eigen::Matrix<double, 3, 4>;
std::vector<VoxelMatrix> voxelMatrices(const Geometry& geometry, const VolumeGrid& volume);

struct DetectorPoint {
  double c, r, w;  // column, row, depth
};
DetectorPoint projectVoxel(const VoxelMatrix& m, double x, double y, double z);

// Why the z-mirror kernels cannot run: voxel z and nz-1-z must land on rows r and rows-1-r at
// the same column with the same depth in every view (an untilted detector whose centre row lies
// on the source plane, a volume centred on that plane). Empty when they can.
std::string zMirrorProblem(const std::vector<VoxelMatrix>& matrices, const VolumeGrid& volume,
                           std::int64_t rows);
std::string zMirrorProblem(const Geometry& geometry, const VolumeGrid& volume);

// True when `variant` names a GPU FDK row that runs a z-mirror kernel where the geometry allows
// (fdk.bp.fast, fdk.bp.mirror-half2, ...).
bool variantHasZMirrorKernel(const std::string& variant);

}  // namespace tomowb::fdk
