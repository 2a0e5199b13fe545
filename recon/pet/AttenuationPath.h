// AttenuationPath: the exact line integral of a voxelised attenuation map (1/mm, each voxel a
// constant box) along a segment, by voxel traversal (Amanatides & Woo, "A fast voxel traversal
// algorithm for ray tracing", Eurographics 1987): the segment is clipped to the grid's box, then
// walks from voxel to voxel, adding mu times the length inside each. The walk stops as soon as
// the sum exceeds a limit, which is what the simulator's survival test needs (a photon pair is
// kept when the integral stays below an Exp(1) draw, so most rejected pairs stop early). Plain
// C++17, host and device (the CPU simulator and ListModeSimulatorCuda.cu), templated on the
// floating-point type.
#pragma once

#include <cmath>

#include "recon/pet/DetectorHits.h"

namespace tomowb::pet {

// A Volume's voxels as the traversal reads them: x fastest, voxel (0,0,0) centred at
// originMm, so the grid's box starts half a voxel below it.
struct AttenuationGrid {
  const float* mu = nullptr;  // 1/mm
  long long nx = 0, ny = 0, nz = 0;
  double originMm[3] = {0, 0, 0};
  double voxelMm[3] = {1, 1, 1};
};

namespace detail {

template <typename Real>
TOMOWB_HOST_DEVICE inline bool clipToSlab(Real start, Real delta, Real low, Real high, Real* t0,
                                          Real* t1) {
  if (delta == Real(0)) return start >= low && start <= high;
  Real a = (low - start) / delta, b = (high - start) / delta;
  if (a > b) {
    const Real swap = a;
    a = b;
    b = swap;
  }
  if (a > *t0) *t0 = a;
  if (b < *t1) *t1 = b;
  return *t0 < *t1;
}

}  // namespace detail

// Integral of mu along the segment a -> b (mm, times 1/mm: dimensionless). Returns as soon as the
// running sum exceeds stopAbove (a value > stopAbove then, not the whole integral).
template <typename Real>
TOMOWB_HOST_DEVICE inline Real segmentIntegral(const AttenuationGrid& g, Vec3<Real> a, Vec3<Real> b,
                                               Real stopAbove) {
  const Real start[3] = {a.x, a.y, a.z};
  const Real delta[3] = {b.x - a.x, b.y - a.y, b.z - a.z};
  const long long n[3] = {g.nx, g.ny, g.nz};
  Real low[3], size[3];
  Real t0 = Real(0), t1 = Real(1);
  for (int k = 0; k < 3; ++k) {
    size[k] = Real(g.voxelMm[k]);
    low[k] = Real(g.originMm[k]) - Real(0.5) * size[k];
    if (!detail::clipToSlab(start[k], delta[k], low[k], low[k] + Real(n[k]) * size[k], &t0, &t1))
      return Real(0);
  }
  const Real length = std::sqrt(delta[0] * delta[0] + delta[1] * delta[1] + delta[2] * delta[2]);
  long long cell[3];
  int step[3];
  Real tNext[3], tStep[3];
  const Real huge = Real(1e30);
  for (int k = 0; k < 3; ++k) {
    const Real entry = (start[k] + t0 * delta[k] - low[k]) / size[k];
    long long c = (long long)std::floor(entry);
    c = c < 0 ? 0 : (c >= n[k] ? n[k] - 1 : c);
    cell[k] = c;
    if (delta[k] > Real(0)) {
      step[k] = 1;
      tStep[k] = size[k] / delta[k];
      tNext[k] = (low[k] + Real(c + 1) * size[k] - start[k]) / delta[k];
    } else if (delta[k] < Real(0)) {
      step[k] = -1;
      tStep[k] = -size[k] / delta[k];
      tNext[k] = (low[k] + Real(c) * size[k] - start[k]) / delta[k];
    } else {
      step[k] = 0;
      tStep[k] = huge;
      tNext[k] = huge;
    }
  }
  Real sum = Real(0), t = t0;
  while (t < t1) {
    int axis = tNext[0] < tNext[1] ? 0 : 1;
    if (tNext[2] < tNext[axis]) axis = 2;
    const Real tEnd = tNext[axis] < t1 ? tNext[axis] : t1;
    const long long index = (cell[2] * g.ny + cell[1]) * g.nx + cell[0];
    sum += Real(g.mu[index]) * (tEnd - t) * length;
    if (sum > stopAbove) return sum;
    t = tEnd;
    cell[axis] += step[axis];
    if (cell[axis] < 0 || cell[axis] >= n[axis]) break;
    tNext[axis] += tStep[axis];
  }
  return sum;
}

}  // namespace tomowb::pet
