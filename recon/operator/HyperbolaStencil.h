// The hyperbola penalty's 26-neighbour stencil at one voxel (reference/sf-projectors.md, section
// 6), written once for the host (HostArrayOps, OpenMP) and the device (DeviceArrayKernels.cu), so
// both evaluate the same formulas in the same order, in float64. Plain C++ with <cmath> only: the
// CUDA kernels include it with nvcc's default standard.
//
//   psi(t) = delta^2 (sqrt(1 + (t/delta)^2) - 1) = t^2 / (1 + sqrt(1 + (t/delta)^2)),
//   psi'(t) = t / sqrt(1 + (t/delta)^2),  omega(t) = psi'(t) / t = 1 / sqrt(1 + (t/delta)^2),
//
// kappa = 1 / distance in voxel units. The second form of psi keeps its digits for |t| << delta.
#pragma once

#include <cmath>

#if defined(__CUDACC__)
#define TOMOWB_HOST_DEVICE __host__ __device__
#else
#define TOMOWB_HOST_DEVICE
#endif

namespace tomowb::op::penalty {

// What the stencil gives at voxel j: sum_k kappa psi'(x_j - x_k) and sum_k kappa omega(x_j - x_k)
// over every neighbour k inside the grid, and sum_k kappa psi(x_j - x_k) over the 13 neighbours
// that come after j in memory order (so that a sum over all voxels counts each pair once).
struct VoxelPenalty {
  double gradient = 0, curvature = 0, value = 0;
};

TOMOWB_HOST_DEVICE inline VoxelPenalty hyperbolaAt(const float* x, long long nx, long long ny,
                                                   long long nz, long long ix, long long iy,
                                                   long long iz, double delta) {
  VoxelPenalty out;
  const double centre = x[(iz * ny + iy) * nx + ix];
  const double inverseDelta = 1.0 / delta;
  for (int dz = -1; dz <= 1; ++dz) {
    const long long z = iz + dz;
    if (z < 0 || z >= nz) continue;
    for (int dy = -1; dy <= 1; ++dy) {
      const long long y = iy + dy;
      if (y < 0 || y >= ny) continue;
      for (int dx = -1; dx <= 1; ++dx) {
        const long long xi = ix + dx;
        if (xi < 0 || xi >= nx) continue;
        const int offsets = (dz != 0) + (dy != 0) + (dx != 0);
        if (offsets == 0) continue;
        // 1 / distance: faces 1, edges 1/sqrt(2), corners 1/sqrt(3).
        const double kappa = offsets == 1   ? 1.0
                             : offsets == 2 ? 0.70710678118654752440
                                            : 0.57735026918962576451;
        const double t = centre - double(x[(z * ny + y) * nx + xi]);
        const double s = t * inverseDelta;
        const double root = std::sqrt(1.0 + s * s);
        out.gradient += kappa * (t / root);
        out.curvature += kappa / root;
        // After j in memory order: (dz, dy, dx) lexicographically positive.
        if (dz > 0 || (dz == 0 && (dy > 0 || (dy == 0 && dx > 0))))
          out.value += kappa * (t * t / (1.0 + root));
      }
    }
  }
  return out;
}

}  // namespace tomowb::op::penalty
