// SingleAxisGeometry: whether a parallel-beam geometry and a voxel grid form an aligned
// single-axis problem (reference/sirt-et.md section 2, "fast path"), and if so the per-view 2-D
// numbers the slice kernels of the GPU projectors need (recon/projector/cuda/EtKernels.cuh).
//
// Aligned means: every view's ray direction and detector column axis u are perpendicular to the
// volume's z axis, the row axis v is parallel to +z or -z with |v| equal to the voxel's z size,
// and the volume's slices fall exactly on detector rows, the same rows in every view (row =
// rowOffset + rowDirection * slice). Then every detector row sees exactly one slice, with no
// interpolation across slices, and the Joseph forward projector and the voxel-driven
// backprojector (JosephProjector.h, VoxelBackprojector.h) reduce to the 2-D projectors of each
// slice, all slices sharing every coordinate. Slices whose row lies outside the detector get no
// data. A tilted or shifted-in-z axis, per-view in-plane rotations (IMOD .xf), dual-axis series
// and cone beams are not aligned; `reason` says which view broke which condition.
//
// The coefficients repeat the CPU projectors' float64 arithmetic (same dominant axis, same plane
// parametrisation), so GPU kernels that evaluate them in float32 agree with the CPU to float32
// rounding.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "recon/geometry/Geometry.h"
#include "recon/projector/JosephProjector.h"

namespace tomowb::projector {

// One view of an aligned problem, in the voxel indices (i, j) of a slice (i along x, j along y).
struct SliceViewCoefficients {
  // Joseph forward projector: the ray of detector column c crosses the planes of voxel centres
  // across its dominant axis (0: planes i = const, 1: planes j = const) and samples plane p at
  //   b = rayOffset + c * rayStep + p * planeStep
  // along the other axis (voxel index), linearly interpolated; the samples are summed with
  // forwardWeight (mm of ray between two planes).
  int dominantAxis = 0;
  double rayOffset = 0, rayStep = 0, planeStep = 0;
  double forwardWeight = 0;
  // Voxel-driven backprojection: voxel (i, j) projects onto detector column
  //   c = cx * i + cy * j + c0,
  // sampled linearly and weighted by backWeight = voxel volume / |(u x v) . direction|.
  double cx = 0, cy = 0, c0 = 0;
  double backWeight = 0;
};

struct SingleAxisGeometry {
  bool aligned = false;
  std::string reason;  // why not (empty when aligned)
  std::vector<SliceViewCoefficients> views;
  // The detector row of slice z: rowOffset + rowDirection * z (the same in every view).
  std::int64_t rowOffset = 0;
  int rowDirection = 1;  // +1: v along +z, -1: v along -z
  // The slices that have a detector row: [firstSlice, firstSlice + sliceCount), contiguous.
  std::int64_t firstSlice = 0, sliceCount = 0;

  std::int64_t rowOf(std::int64_t slice) const noexcept { return rowOffset + rowDirection * slice; }

  // Analyses a geometry (any beam) against a voxel grid. Never throws for a geometry that passes
  // Geometry::validate(); a cone beam or an empty grid gives aligned = false with a reason.
  static SingleAxisGeometry analyse(const Geometry& geometry, const VoxelGrid& grid);
};

}  // namespace tomowb::projector
