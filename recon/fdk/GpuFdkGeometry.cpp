// GpuFdkGeometry: see the header.
#include "recon/fdk/GpuFdkGeometry.h"

#include <cmath>
#include <cstddef>

#include "recon/fdk/GpuFdkKernelTable.h"

namespace tomowb::fdk {

std::vector<VoxelMatrix> voxelMatrices(const Geometry& geometry, const VolumeGrid& volume) {
  std::vector<VoxelMatrix> out(static_cast<std::size_t>(geometry.viewCount()));
  for (std::int64_t i = 0; i < geometry.viewCount(); ++i) {
    const ProjectionMatrix p = geometry.projectionMatrix(i);
    VoxelMatrix m;
    for (int axis = 0; axis < 3; ++axis) m.col(axis) = p.col(axis) * volume.voxelSizeMm[axis];
    m.col(3) = p.leftCols<3>() * volume.originMm + p.col(3);
    out[static_cast<std::size_t>(i)] = m;
  }
  return out;
}

DetectorPoint projectVoxel(const VoxelMatrix& m, double x, double y, double z) {
  const Eigen::Vector3d p = m * Eigen::Vector4d(x, y, z, 1.0);
  return {p[0] / p[2], p[1] / p[2], p[2]};
}

std::string zMirrorProblem(const std::vector<VoxelMatrix>& matrices, const VolumeGrid& volume,
                           std::int64_t rows) {
  const double nx = double(volume.shape.nx), ny = double(volume.shape.ny),
               nz = double(volume.shape.nz);
  for (std::size_t i = 0; i < matrices.size(); ++i) {
    for (double x : {0.0, nx - 1, 0.5 * nx})
      for (double y : {0.0, ny - 1, 0.37 * ny}) {
        const DetectorPoint a = projectVoxel(matrices[i], x, y, 0.0);
        const DetectorPoint b = projectVoxel(matrices[i], x, y, nz - 1);
        if (!(a.w > 0 && b.w > 0)) return "a voxel lies behind the source";
        if (std::abs(a.c - b.c) > 1e-3 || std::abs(a.w - b.w) > 1e-6 * std::abs(a.w))
          return "the detector or the rotation axis is tilted (view " + std::to_string(i) + ")";
        if (std::abs(a.r + b.r - double(rows - 1)) > 1e-3)
          return "the volume's centre slice does not project onto the detector's centre row "
                 "(view " +
                 std::to_string(i) + ": vertical offset " +
                 std::to_string(0.5 * (a.r + b.r - double(rows - 1))) + " px)";
      }
  }
  return {};
}

std::string zMirrorProblem(const Geometry& geometry, const VolumeGrid& volume) {
  return zMirrorProblem(voxelMatrices(geometry, volume), volume, geometry.detector().rows);
}

bool variantHasZMirrorKernel(const std::string& variant) {
  const GpuFdkKernel* row = findGpuFdkKernel(variant);
  if (row == nullptr) return false;
  if (!row->runs.empty()) row = findGpuFdkKernel(row->runs);
  return row != nullptr && row->zMirror;
}

}  // namespace tomowb::fdk
