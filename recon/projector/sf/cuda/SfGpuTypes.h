// What the separable-footprint GPU kernels (SfKernels.cu) read per view and per problem: plain
// structs the host fills in float64 (GpuSfPair.cpp) and the device reads. No CUDA types.
//
// Coordinates are the grid's voxel indices (ix, iy, iz), so voxel corners sit at ix +- 1/2. For a
// view whose detector column does not depend on z (sfUnsupportedReason), a point's detector
// column and row in pixel units are
//   column = (a0 ix + a1 iy + a3) / (d0 ix + d1 iy + d3),
//   row    = (r0 ix + r1 iy + r2 iz + r3) / (d0 ix + d1 iy + d3),
// the rows of the view's 3x4 matrix times the grid's index-to-world map, scaled so that the depth
// is about 1 at the grid's centre (the kernels take every quotient in float64 before they go to
// float32 offsets, so a footprint's shape keeps float32's relative precision wherever it falls on
// a wide detector).
#pragma once

#include <cstdint>

namespace tomowb::cuda::sfgpu {

struct SfGpuView {
  double a0, a1, a3;      // column numerator
  double d0, d1, d3;      // depth
  double r0, r1, r2, r3;  // row numerator (r2 per slice)
  double sx, sy;          // the source's x and y in voxel index units (A2 amplitude)
  // The ray through cell (col, row) is base + col u + row v (mm): the cell amplitude 1/cos(theta).
  float baseX, baseY, baseZ, uX, uY, uZ, vX, vY, vZ;
  float pad;
};

struct SfGpuShape {
  std::int32_t nx, ny, nz;
  std::int32_t cols, rows;
  float voxelX, voxelY;            // mm, along the kernels' x and y: the voxel-centre chord (A2)
  float worldVoxelX, worldVoxelY;  // mm, along the world's x and y: the cell ray's chord (A1)
  std::int32_t amplitudeA1;  // 0: A2 (l_phi0 of the voxel centre's ray), 1: A1 (the cell's ray)
  std::int32_t trapezoid;    // 0: SF-TR (axial rectangle), 1: SF-TT (axial trapezoid)
};

}  // namespace tomowb::cuda::sfgpu
