// pp_common.h — what the parallelproj driver (pp_lm_bench) computes per event or per LOR, written
// once for the CUDA kernels (pp_ops_cuda.cu) and the host (pp_ops_cpu.cpp, the self-check): the
// 12-byte list-mode record of our format, the event -> parallelproj arguments conversion (the TOF
// sign convention lives here), the analytic attenuation of the phantom's water cylinder and the
// sensitivity LORs. Plain C++17 + <cmath>; no parallelproj code (parallelproj is called only
// through its public C API, include/parallelproj.h, from pp_lm_bench.cpp and pp_selfcheck.cpp).
//
// Axis order. parallelproj's image is C-contiguous [n0][n1][n2] with voxel [i,j,k] at
// n1*n2*i + n2*j + k, and its coordinates are (x0, x1, x2) in that order. Our Volume is x fastest,
// idx = (z*ny + y)*nx + x. So we hand parallelproj the axes (0, 1, 2) = (z, y, x): image_dim =
// {nz, ny, nx}, image_origin = {oz, oy, ox}, voxel_size = {dz, dy, dx} and every LOR point as
// (z, y, x). Its image memory is then exactly our layout (no transposes).
//
// TOF convention. Ours (recon/pet/ListModeEvent.h, reference/direct-tof-pet.md 2.2): dt = t1 - t2
// in tofLsbPs units; the most likely point is m + (c dt / 2) u with u from crystal 1 to crystal 2
// (an annihilation near crystal 1 has dt < 0). parallelproj's list-mode TOF (libparallelproj
// src/joseph3d_tof_lm_*_worker.h at 6db4ae5, read, not copied): the centre of TOF bin k lies at
// m + (k - (num_tof_bins - 1)/2) * tof_bin_width * u + offset, u from lor_start to lor_end. So:
// lor_start = crystal 1, lor_end = crystal 2, tof_bin_width = c/2 * tofLsbPs (3.747 mm at 25 ps),
// num_tof_bins = 2K + 1 and k = tofLsb + K, tof_center_offset = 0 (their offset term is
// multiplied by |cos| of the principal axis without the ray's sign, so we keep it zero). The
// self-check (pp_selfcheck.cpp) tests this with an off-centre point source.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>

#if defined(__CUDACC__)
#define PP_HD __host__ __device__ inline
#else
#define PP_HD inline
#endif

namespace ppbench {

inline constexpr double kSpeedOfLightMmPerPs = 0.299792458;
inline constexpr double kFwhmPerSigma = 2.354820045030949;

// One record of our list-mode file (recon/pet/ListModeEvent.h, docs/pet.md): little-endian.
struct RawEvent {
  std::uint16_t crystal1, ring1, crystal2, ring2;
  std::int16_t tofLsb;  // t1 - t2 in tofLsbPs units
  std::uint8_t flags;   // 1 delayed, 2 random (truth), 4 scattered (truth)
  std::uint8_t reserved;
};
static_assert(sizeof(RawEvent) == 12, "our list-mode record is 12 bytes");
inline constexpr std::uint8_t kFlagDelayed = 1;
inline constexpr std::uint8_t kKnownFlags = 1 | 2 | 4;

// The phantom's water cylinder for the analytic attenuation (mu <= 0: no attenuation).
struct WaterCylinder {
  float radiusMm = 175.0f;
  float halfLengthMm = 90.0f;
  float muPerMm = 0.0096f;
};

// What the event conversion needs; the pointers address crystalsPerRing (X, Y) and rings (Z)
// floats in the memory of whoever runs it (device tables in the kernel, host in the self-check).
struct EventTables {
  const float* crystalX = nullptr;
  const float* crystalY = nullptr;
  const float* ringZ = nullptr;
  int tofHalfBins = 121;  // K: bin k = tofLsb + K, num_tof_bins = 2K + 1
  WaterCylinder water;
};

// Length of the segment p1 -> p2 inside the water cylinder (mm), exact for the analytic cylinder.
PP_HD float chordInCylinder(const WaterCylinder& w, float x1, float y1, float z1, float x2,
                            float y2, float z2) {
  const float dx = x2 - x1, dy = y2 - y1, dz = z2 - z1;
  float t0 = 0.0f, t1 = 1.0f;
  const float a = dx * dx + dy * dy;
  if (a > 0.0f) {
    const float b = x1 * dx + y1 * dy;  // half of the usual b
    const float c = x1 * x1 + y1 * y1 - w.radiusMm * w.radiusMm;
    const float disc = b * b - a * c;
    if (!(disc > 0.0f)) return 0.0f;
    const float root = std::sqrt(disc);
    t0 = fmaxf(t0, (-b - root) / a);
    t1 = fminf(t1, (-b + root) / a);
  } else if (x1 * x1 + y1 * y1 > w.radiusMm * w.radiusMm) {
    return 0.0f;
  }
  if (dz != 0.0f) {
    const float ta = (-w.halfLengthMm - z1) / dz, tb = (w.halfLengthMm - z1) / dz;
    t0 = fmaxf(t0, fminf(ta, tb));
    t1 = fminf(t1, fmaxf(ta, tb));
  } else if (fabsf(z1) > w.halfLengthMm) {
    return 0.0f;
  }
  if (!(t1 > t0)) return 0.0f;
  return (t1 - t0) * std::sqrt(a + dz * dz);
}

// exp(-mu * chord): the survival of both photons of the LOR (1 without attenuation).
PP_HD float attenuationFactor(const WaterCylinder& w, float x1, float y1, float z1, float x2,
                              float y2, float z2) {
  if (!(w.muPerMm > 0.0f)) return 1.0f;
  return std::exp(-w.muPerMm * chordInCylinder(w, x1, y1, z1, x2, y2, z2));
}

// Event -> parallelproj's list-mode arguments: start = crystal 1, end = crystal 2, both as
// (z, y, x); the TOF bin tofLsb + K; 1 / attenuation factor of the LOR (for the randoms term).
PP_HD void convertEvent(const EventTables& t, const RawEvent& e, float* start, float* end,
                        short* bin, float* inverseAttenuation) {
  const float x1 = t.crystalX[e.crystal1], y1 = t.crystalY[e.crystal1], z1 = t.ringZ[e.ring1];
  const float x2 = t.crystalX[e.crystal2], y2 = t.crystalY[e.crystal2], z2 = t.ringZ[e.ring2];
  start[0] = z1;
  start[1] = y1;
  start[2] = x1;
  end[0] = z2;
  end[1] = y2;
  end[2] = x2;
  *bin = static_cast<short>(e.tofLsb + t.tofHalfBins);
  if (inverseAttenuation)
    *inverseAttenuation = 1.0f / attenuationFactor(t.water, x1, y1, z1, x2, y2, z2);
}

// Sensitivity LORs. Every accepted unordered crystal pair is (a, ra, b, rb) with a < b the
// transaxial indices of a pair whose line passes the field of view, and any ring pair (ra, rb)
// whose co-polar angle passes the acceptance; with the transaxial pairs sorted by decreasing
// transaxial length, the pairs a ring difference accepts are a prefix of that list.
struct TransaxialPair {
  std::uint16_t a, b;
};
struct RingPairRun {
  std::int32_t ring1, ring2;  // rings of crystal a and crystal b
  std::int64_t count;         // the first `count` transaxial pairs
  std::int64_t offset;        // where its LORs start in the batch
};
struct SensitivityTables {
  const float* crystalX = nullptr;
  const float* crystalY = nullptr;
  const float* ringZ = nullptr;
  const TransaxialPair* pairs = nullptr;
  WaterCylinder water;
};

// LOR `j` of run `run`: endpoints (z, y, x) and its weight (the attenuation factor).
PP_HD void sensitivityLor(const SensitivityTables& t, const RingPairRun& run, std::int64_t j,
                          float* start, float* end, float* weight) {
  const TransaxialPair p = t.pairs[j];
  const float x1 = t.crystalX[p.a], y1 = t.crystalY[p.a], z1 = t.ringZ[run.ring1];
  const float x2 = t.crystalX[p.b], y2 = t.crystalY[p.b], z2 = t.ringZ[run.ring2];
  start[0] = z1;
  start[1] = y1;
  start[2] = x1;
  end[0] = z2;
  end[1] = y2;
  end[2] = x2;
  *weight = attenuationFactor(t.water, x1, y1, z1, x2, y2, z2);
}

// The ML-EM ratio for one event: 1 / (forward + randoms per bin / attenuation), 0 where the
// expectation is not positive (an event whose line misses the image and no randoms term).
PP_HD float emRatio(float forward, float randomsPerBin, float inverseAttenuation) {
  const float expected = forward + randomsPerBin * inverseAttenuation;
  return expected > 0.0f ? 1.0f / expected : 0.0f;
}

// x <- x * backprojection / (sensitivity / subsets); 0 where the sensitivity is 0.
PP_HD float emUpdate(float x, float backprojection, float sensitivity, float subsets) {
  return sensitivity > 0.0f ? x * backprojection * subsets / sensitivity : 0.0f;
}

// About how many bilinear samples parallelproj's list-mode projector takes for one event: the
// planes of the principal axis within +-numSigmas sigma of the TOF bin centre that lie inside
// the image (our estimate for the throughput figure, within a plane or two of theirs).
struct ImageBox {
  float originZyx[3];  // centre of voxel 0
  float voxelZyx[3];
  int dimZyx[3];
};
PP_HD int samplesOfEvent(const ImageBox& box, const float* s, const float* e, short bin,
                         int tofHalfBins, float binWidthMm, float sigmaMm, float numSigmas) {
  const float d[3] = {e[0] - s[0], e[1] - s[1], e[2] - s[2]};
  const float length = std::sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
  if (!(length > 0.0f)) return 0;
  int axis = 0;
  for (int k = 1; k < 3; ++k)
    if (fabsf(d[k]) > fabsf(d[axis])) axis = k;
  // The LOR parameter range inside the box and inside the TOF window.
  float t0 = 0.0f, t1 = 1.0f;
  for (int k = 0; k < 3; ++k) {
    const float lo = box.originZyx[k] - 0.5f * box.voxelZyx[k];
    const float hi = lo + box.dimZyx[k] * box.voxelZyx[k];
    if (d[k] != 0.0f) {
      const float ta = (lo - s[k]) / d[k], tb = (hi - s[k]) / d[k];
      t0 = fmaxf(t0, fminf(ta, tb));
      t1 = fminf(t1, fmaxf(ta, tb));
    } else if (s[k] < lo || s[k] > hi) {
      return 0;
    }
  }
  const float centre = 0.5f + (bin - tofHalfBins) * binWidthMm / length;
  const float half = numSigmas * sigmaMm / length;
  t0 = fmaxf(t0, centre - half);
  t1 = fminf(t1, centre + half);
  if (!(t1 > t0)) return 0;
  const float c0 = (s[axis] + t0 * d[axis] - box.originZyx[axis]) / box.voxelZyx[axis];
  const float c1 = (s[axis] + t1 * d[axis] - box.originZyx[axis]) / box.voxelZyx[axis];
  const float lo = fminf(c0, c1), hi = fmaxf(c0, c1);
  const int n = static_cast<int>(floorf(hi)) - static_cast<int>(ceilf(lo)) + 1;
  return n > 0 ? n : 0;
}

}  // namespace ppbench
