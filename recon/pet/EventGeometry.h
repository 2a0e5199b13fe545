// From a list-mode event to its view and most likely annihilation point, written once for the
// CPU and the GPU (reference/direct-tof-pet.md, section 2.2). Both use the same float32
// operations in the same order, correctly rounded (no fused multiply-add, no transcendental
// functions: the view's cell is found by comparing the direction with the cell edges), so the
// nearest-voxel deposition gives bit-identical histo-images on either.
//
// x_hat = m + (c dt / 2) u, m the LOR's midpoint, u the unit vector from crystal 1 to crystal 2,
// dt = t1 - t2 (an annihilation near crystal 1 has dt < 0 and lies towards crystal 1).
#pragma once

#include <cstdint>

#if defined(__CUDACC__)
#define TOMOWB_PET_HD __host__ __device__ __forceinline__
#else
#define TOMOWB_PET_HD inline
#endif

namespace tomowb::pet {

inline constexpr int kMaxAzimuthEdges = 4096;
inline constexpr int kMaxTiltEdges = 64;

// What deposition needs of a scanner, grid and views, in float32 (tables owned by the caller).
struct EventGeometryTables {
  const float* crystalX = nullptr;  // crystalsPerRing entries: the crystal centres (mm)
  const float* crystalY = nullptr;
  const float* ringZ = nullptr;        // rings entries
  const float* azimuthCos = nullptr;   // cos(k pi / azimuths), k = 0..azimuths-1
  const float* azimuthSin = nullptr;   // sin(k pi / azimuths)
  const float* tiltEdgeSin = nullptr;  // sin(-maxTilt + k dTheta), k = 0..tilts
  int crystalsPerRing = 0, rings = 0, azimuths = 0, tilts = 0;
  float halfCTimesLsbMm = 0;  // c / 2 * tofLsbPs: the shift along u per LSB of dt
  float originMm[3] = {0, 0, 0};
  float inverseVoxelMm[3] = {1, 1, 1};
  std::int64_t nx = 0, ny = 0, nz = 0;
};

#if defined(__CUDA_ARCH__)
#define TOMOWB_FADD(a, b) __fadd_rn(a, b)
#define TOMOWB_FSUB(a, b) __fsub_rn(a, b)
#define TOMOWB_FMUL(a, b) __fmul_rn(a, b)
#define TOMOWB_FDIV(a, b) __fdiv_rn(a, b)
#define TOMOWB_FSQRT(a) __fsqrt_rn(a)
#else
#define TOMOWB_FADD(a, b) ((a) + (b))
#define TOMOWB_FSUB(a, b) ((a) - (b))
#define TOMOWB_FMUL(a, b) ((a) * (b))
#define TOMOWB_FDIV(a, b) ((a) / (b))
#define TOMOWB_FSQRT(a) sqrtFloat(a)
TOMOWB_PET_HD float sqrtFloat(float a) {
  return __builtin_sqrtf(a);
}
#endif

struct EventPoint {
  float x = 0, y = 0, z = 0;     // the most likely point (mm)
  float ux = 0, uy = 0, uz = 0;  // the unit direction, crystal 1 -> crystal 2
  int view = -1;                 // -1: outside the tilt acceptance
};

// The view and most likely point of the event between crystals (c1, r1) and (c2, r2) with time
// difference tofLsb. Indices must be in range (the reader checked them).
TOMOWB_PET_HD EventPoint locateEvent(const EventGeometryTables& t, int c1, int r1, int c2, int r2,
                                     int tofLsb) {
  EventPoint e;
  const float x1 = t.crystalX[c1], y1 = t.crystalY[c1], z1 = t.ringZ[r1];
  const float x2 = t.crystalX[c2], y2 = t.crystalY[c2], z2 = t.ringZ[r2];
  const float dx = TOMOWB_FSUB(x2, x1), dy = TOMOWB_FSUB(y2, y1), dz = TOMOWB_FSUB(z2, z1);
  const float length = TOMOWB_FSQRT(
      TOMOWB_FADD(TOMOWB_FADD(TOMOWB_FMUL(dx, dx), TOMOWB_FMUL(dy, dy)), TOMOWB_FMUL(dz, dz)));
  if (!(length > 0.0f)) return e;  // the same crystal twice: no line
  e.ux = TOMOWB_FDIV(dx, length);
  e.uy = TOMOWB_FDIV(dy, length);
  e.uz = TOMOWB_FDIV(dz, length);
  const float shift = TOMOWB_FMUL(t.halfCTimesLsbMm, static_cast<float>(tofLsb));
  e.x = TOMOWB_FADD(TOMOWB_FMUL(0.5f, TOMOWB_FADD(x1, x2)), TOMOWB_FMUL(shift, e.ux));
  e.y = TOMOWB_FADD(TOMOWB_FMUL(0.5f, TOMOWB_FADD(y1, y2)), TOMOWB_FMUL(shift, e.uy));
  e.z = TOMOWB_FADD(TOMOWB_FMUL(0.5f, TOMOWB_FADD(z1, z2)), TOMOWB_FMUL(shift, e.uz));

  // The undirected direction: u_y > 0, or u_y = 0 and u_x >= 0.
  float ux = e.ux, uy = e.uy, uz = e.uz;
  if (uy < 0.0f || (uy == 0.0f && ux < 0.0f)) {
    ux = -ux;
    uy = -uy;
    uz = -uz;
  }
  // Tilt cell: the edges' sines increase with k; uz must lie within [edge 0, edge tilts].
  if (uz < t.tiltEdgeSin[0] || uz > t.tiltEdgeSin[t.tilts]) return e;
  int tilt = 0;
  while (tilt + 1 < t.tilts && uz >= t.tiltEdgeSin[tilt + 1]) ++tilt;
  // Azimuth cell: phi >= phi_k  <=>  sin(phi - phi_k) >= 0  <=>  uy cos phi_k - ux sin phi_k >= 0
  // for phi, phi_k in [0, pi): true for k <= cell, false after; binary search for the last true.
  int lo = 0, hi = t.azimuths - 1;
  while (lo < hi) {
    const int mid = (lo + hi + 1) / 2;
    const float side =
        TOMOWB_FSUB(TOMOWB_FMUL(uy, t.azimuthCos[mid]), TOMOWB_FMUL(ux, t.azimuthSin[mid]));
    if (side >= 0.0f)
      lo = mid;
    else
      hi = mid - 1;
  }
  e.view = tilt * t.azimuths + lo;
  return e;
}

// The nearest voxel's linear index of a point, or -1 outside the grid.
TOMOWB_PET_HD std::int64_t nearestVoxel(const EventGeometryTables& t, float x, float y, float z) {
  const float fx = TOMOWB_FMUL(TOMOWB_FSUB(x, t.originMm[0]), t.inverseVoxelMm[0]);
  const float fy = TOMOWB_FMUL(TOMOWB_FSUB(y, t.originMm[1]), t.inverseVoxelMm[1]);
  const float fz = TOMOWB_FMUL(TOMOWB_FSUB(z, t.originMm[2]), t.inverseVoxelMm[2]);
  // Round half up, without floorf's library differences: inside the grid, fx + 0.5 > 0, so the
  // conversion truncates towards the floor. NaN fails every comparison.
  if (!(fx > -0.5f && fy > -0.5f && fz > -0.5f)) return -1;
  if (!(fx < static_cast<float>(t.nx) - 0.5f && fy < static_cast<float>(t.ny) - 0.5f &&
        fz < static_cast<float>(t.nz) - 0.5f))
    return -1;
  const auto ix = static_cast<std::int64_t>(TOMOWB_FADD(fx, 0.5f));
  const auto iy = static_cast<std::int64_t>(TOMOWB_FADD(fy, 0.5f));
  const auto iz = static_cast<std::int64_t>(TOMOWB_FADD(fz, 0.5f));
  if (ix >= t.nx || iy >= t.ny || iz >= t.nz) return -1;  // rounding up to the edge
  return (iz * t.ny + iy) * t.nx + ix;
}

}  // namespace tomowb::pet
