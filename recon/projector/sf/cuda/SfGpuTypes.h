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

// Arc (cylindrical) views (arc = 1, ArcFrame.h): a0 ix + a1 iy + a3 is the point's offset from the
// source along the arc's tangent e and d0 ix + d1 iy + d3 along n (both in the same scaled units),
// so the column is colCentre + colScale atan2(along e, along n), the depth is the in-plane distance
// hypot(along e, along n), and the row numerator gains r4 times the depth.
struct SfGpuView {
  double a0, a1, a3;           // column numerator (arc: along e)
  double d0, d1, d3;           // depth (arc: along n)
  double r0, r1, r2, r3;       // row numerator (r2 per slice)
  double sx, sy;               // the source's x and y in voxel index units (A2 amplitude)
  double r4;                   // arc: row numerator per unit of depth (0 for flat views)
  double colCentre, colScale;  // arc: column = colCentre + colScale * fan angle
  // The ray through cell (col, row) (mm): flat base + col u + row v; arc cos(g) u + sin(g) w +
  // base + row v with g = angle0 + col angleStep (u = R n, w = R e).
  float baseX, baseY, baseZ, uX, uY, uZ, vX, vY, vZ;
  float wX, wY, wZ, angle0, angleStep;
  std::int32_t arc;
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
