// The separable-footprint GPU kernels (SfKernels.cuh). Every weight comes from device functions
// shared by all kernels: columnFootprint (a voxel column's transaxial trapezoid, its first and last
// detector column, the amplitude u and the rows of its slices), transaxialWeight (u F1 of one
// detector column) and axialWeight (F2 of one slice in one row: the rectangle's overlap for SF-TR,
// the trapezoid's average for SF-TT), computing the same bits for a voxel-cell pair in every
// kernel, so forward and transpose agree to float32 rounding. The projective quotients are taken
// in float64 once per voxel column; the corners' and slices' offsets from them in float32
// (AxialLine: rows from an anchor slice every 16 slices).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cub/block/block_scan.cuh>
#include <cub/device/device_radix_sort.cuh>
#include <type_traits>

#include "recon/device/CudaCheck.h"
#include "recon/projector/sf/cuda/SfKernels.cuh"

namespace tomowb::cuda::sfgpu {

namespace {

// A unit-height trapezoid t0 <= t1 <= t2 <= t3 in cell units, relative to a whole cell.
struct Trapezoid {
  float t0, t1, t2, t3;
};

__device__ __forceinline__ void sortPair(float& a, float& b) {
  const float lo = fminf(a, b), hi = fmaxf(a, b);
  a = lo;
  b = hi;
}

__device__ __forceinline__ Trapezoid sorted(float a, float b, float c, float d) {
  sortPair(a, b);
  sortPair(c, d);
  sortPair(a, c);
  sortPair(b, d);
  sortPair(b, c);
  return {a, b, c, d};
}

// The trapezoid's integral from -infinity to s; zero-width ramps add nothing (no division by 0).
__device__ __forceinline__ float trapezoidIntegral(const Trapezoid& t, float s) {
  s = fminf(fmaxf(s, t.t0), t.t3);
  float sum = 0.0f;
  if (t.t1 > t.t0) {
    const float rise = fminf(s, t.t1) - t.t0;
    sum += rise * rise / (2.0f * (t.t1 - t.t0));
  }
  if (s > t.t1) sum += fminf(s, t.t2) - t.t1;
  if (s > t.t2 && t.t3 > t.t2) {
    const float left = t.t3 - s;
    sum += 0.5f * (t.t3 - t.t2) - left * left / (2.0f * (t.t3 - t.t2));
  }
  return sum;
}

// The trapezoid averaged over the cell [cell - 1/2, cell + 1/2] (same relative origin).
__device__ __forceinline__ float cellAverage(const Trapezoid& t, int cell) {
  const float c = float(cell);
  return trapezoidIntegral(t, c + 0.5f) - trapezoidIntegral(t, c - 0.5f);
}

__device__ __forceinline__ int cellOf(float s) {
  return int(floorf(s + 0.5f));
}

// min(sizeX / |cos phi|, sizeY / |sin phi|) for a ray of xy-direction (dx, dy) (mm).
__device__ __forceinline__ float transaxialChord(float dx, float dy, float sizeX, float sizeY) {
  const float ax = fabsf(dx), ay = fabsf(dy), r = hypotf(dx, dy);
  return sizeX * ay <= sizeY * ax ? sizeX * r / ax : sizeY * r / ay;
}

// Rows of a voxel column's slices at one depth: row(iz) = row0 + slope iz. Offsets from a row are
// taken from an anchor slice every 16 slices (axialAnchor) in float64, then in float32 within the
// 16, so every kernel computes the same bits for a (slice, row) pair whatever order it visits
// them in.
struct AxialLine {
  double row0, slope;
  float slopeF, half;  // slope in float32, half the slope's magnitude (the rectangle's half-height)
};

__device__ __forceinline__ AxialLine axialLine(double row0, double slope) {
  return {row0, slope, float(slope), 0.5f * fabsf(float(slope))};
}

__device__ __forceinline__ int axialAnchor(int iz) {
  return (iz & ~15) + 8;
}

// row(anchor) in float64: a kernel hoists it per anchor.
__device__ __forceinline__ double anchorRow(const AxialLine& a, int anchor) {
  return fma(a.slope, double(anchor), a.row0);
}

// A voxel column (ix, iy) in one view.
struct ColumnFootprint {
  int ref;          // the whole cell the transaxial trapezoid is relative to
  Trapezoid tau;    // the four corners' columns, sorted
  int first, last;  // detector columns reached (clipped to the detector); first > last: none
  float amplitude;  // u: l_phi0 of the voxel centre's ray (A2) or 1 (A1)
  // Rows at the voxel centre's depth (SF-TR), and at the nearest and farthest corner's (SF-TT).
  AxialLine centre, nearest, farthest;
};

// The rows only (what deciding whether a column reaches some rows needs): 1 division.
template <bool Trapezoidal>
__device__ __forceinline__ void columnRows(const SfGpuView& v, int ix, int iy, ColumnFootprint& f,
                                           double& den) {
  const double x = ix, y = iy;
  // Flat: the depth along the detector's normal; arc: the distance from the source's axis.
  const double alongE = v.a0 * x + v.a1 * y + v.a3, alongN = v.d0 * x + v.d1 * y + v.d3;
  den = v.arc ? hypot(alongE, alongN) : alongN;
  const double inv = 1.0 / den;
  const double rowNum = v.r0 * x + v.r1 * y + v.r3 + v.r4 * den;
  const double row0 = rowNum * inv, slope = v.r2 * inv;
  f.centre = axialLine(row0, slope);
  if (Trapezoidal) {
    // The corners' rows and slopes as float32 corrections of the centre's (a corner is half a
    // voxel away, so the corrections are small and keep float32's relative precision).
    const float fDen = float(den), fRow = float(row0);
    const float fE = float(alongE), fN = float(alongN);
    float nearDepth = 3e38f, farDepth = -3e38f, nearRow = 0, farRow = 0;
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      const float dx = (i & 1) ? 0.5f : -0.5f, dy = (i & 2) ? 0.5f : -0.5f;
      float dd = float(v.d0) * dx + float(v.d1) * dy;
      if (v.arc) {
        // The corner's distance from the axis minus the centre's, without cancellation.
        const float de = float(v.a0) * dx + float(v.a1) * dy;
        dd = (de * (2.0f * fE + de) + dd * (2.0f * fN + dd)) / (hypotf(fE + de, fN + dd) + fDen);
      }
      const float dr = float(v.r0) * dx + float(v.r1) * dy + float(v.r4) * dd;
      const float depth = fDen + dd;
      const float correction = (dr - fRow * dd) / depth;
      if (depth < nearDepth) {
        nearDepth = depth;
        nearRow = correction;
      }
      if (depth > farDepth) {
        farDepth = depth;
        farRow = correction;
      }
    }
    f.nearest = axialLine(row0 + double(nearRow), slope * double(fDen / nearDepth));
    f.farthest = axialLine(row0 + double(farRow), slope * double(fDen / farDepth));
  }
}

// The transaxial part (tau, first, last, amplitude) once columnRows gave the depth `den`.
__device__ __forceinline__ void columnTransaxial(const SfGpuView& v, int ix, int iy,
                                                 const SfGpuShape& s, double den,
                                                 ColumnFootprint& f) {
  const double x = ix, y = iy;
  const double alongE = v.a0 * x + v.a1 * y + v.a3;
  float tau[4];
  if (v.arc) {
    // Columns of fan angles: the centre's in float64, the corners' as float32 angles from it.
    const double alongN = v.d0 * x + v.d1 * y + v.d3;
    const double centre = v.colCentre + v.colScale * atan2(alongE, alongN);
    f.ref = int(floor(centre + 0.5));
    const float offset = float(centre - double(f.ref)), scale = float(v.colScale);
    const float fE = float(alongE), fN = float(alongN);
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      const float dx = (i & 1) ? 0.5f : -0.5f, dy = (i & 2) ? 0.5f : -0.5f;
      const float de = float(v.a0) * dx + float(v.a1) * dy;
      const float dn = float(v.d0) * dx + float(v.d1) * dy;
      tau[i] = offset + scale * atan2f(fN * de - fE * dn, fN * (fN + dn) + fE * (fE + de));
    }
  } else {
    const double centre = alongE / den;
    f.ref = int(floor(centre + 0.5));
    const float offset = float(centre - double(f.ref)), fCentre = float(centre), fDen = float(den);
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      const float dx = (i & 1) ? 0.5f : -0.5f, dy = (i & 2) ? 0.5f : -0.5f;
      const float dn = float(v.a0) * dx + float(v.a1) * dy;
      const float dd = float(v.d0) * dx + float(v.d1) * dy;
      tau[i] = offset + (dn - fCentre * dd) / (fDen + dd);
    }
  }
  f.tau = sorted(tau[0], tau[1], tau[2], tau[3]);
  f.first = max(0, f.ref + cellOf(f.tau.t0));
  f.last = min(s.cols - 1, f.ref + cellOf(f.tau.t3));
  f.amplitude = s.amplitudeA1 ? 1.0f
                              : transaxialChord(float((x - v.sx) * s.voxelX),
                                                float((y - v.sy) * s.voxelY), s.voxelX, s.voxelY);
}

template <bool Trapezoidal>
__device__ __forceinline__ ColumnFootprint columnFootprint(const SfGpuView& v, int ix, int iy,
                                                           const SfGpuShape& s) {
  ColumnFootprint f;
  double den;
  columnRows<Trapezoidal>(v, ix, iy, f, den);
  columnTransaxial(v, ix, iy, s, den, f);
  return f;
}

// The rows [lo, hi] slices [zLo, zHi] of a column may reach (a superset, half a row of margin).
template <bool Trapezoidal>
__device__ __forceinline__ void rowsOfSlices(const ColumnFootprint& f, float zLo, float zHi,
                                             int& lo, int& hi) {
  auto extend = [&](const AxialLine& a, float& low, float& high) {
    const float r0 = float(a.row0 + a.slope * double(zLo)),
                r1 = float(a.row0 + a.slope * double(zHi));
    low = fminf(low, fminf(r0, r1) - a.half);
    high = fmaxf(high, fmaxf(r0, r1) + a.half);
  };
  float low = 3e38f, high = -3e38f;
  extend(f.centre, low, high);
  if (Trapezoidal) {
    extend(f.nearest, low, high);
    extend(f.farthest, low, high);
  }
  lo = int(floorf(low + 0.5f)) - 1;
  hi = int(floorf(high + 0.5f)) + 1;
}

// The lines' rows at an anchor slice, as float32 offsets from a whole row `base` (the centre
// line's floor there). A slice's row is then anchored + slope (iz - anchor) and its offset from a
// row l is that minus (l - base): the same float32 operations in every kernel.
struct Anchored {
  int anchor = -1 << 30, base = 0;
  float centre = 0, nearest = 0, farthest = 0;
};

template <bool Trapezoidal>
__device__ __forceinline__ void anchorAt(const ColumnFootprint& f, int anchor, Anchored& a) {
  if (a.anchor == anchor) return;
  a.anchor = anchor;
  const double c = anchorRow(f.centre, anchor);
  const double base = floor(c);
  a.base = int(base);
  a.centre = float(c - base);
  if (Trapezoidal) {
    a.nearest = float(anchorRow(f.nearest, anchor) - base);
    a.farthest = float(anchorRow(f.farthest, anchor) - base);
  }
}

// The rows of slice iz's centre (and nearest and farthest corners), relative to a.base.
struct SliceRows {
  float centre, nearest, farthest;
};

template <bool Trapezoidal>
__device__ __forceinline__ SliceRows sliceRows(const ColumnFootprint& f, const Anchored& a,
                                               int iz) {
  const float dz = float(iz - a.anchor);
  SliceRows r;
  r.centre = __fmaf_rn(f.centre.slopeF, dz, a.centre);
  if (Trapezoidal) {
    r.nearest = __fmaf_rn(f.nearest.slopeF, dz, a.nearest);
    r.farthest = __fmaf_rn(f.farthest.slopeF, dz, a.farthest);
  }
  return r;
}

// u F1 of detector column `col` (absolute).
__device__ __forceinline__ float transaxialWeight(const ColumnFootprint& f, int col) {
  return f.amplitude * cellAverage(f.tau, col - f.ref);
}

// The axial weight F2 of a slice in row `row` (rowFromBase = row - a.base, exact in float32):
// SF-TR the rectangle's overlap with the cell, SF-TT the trapezoid averaged over it.
template <bool Trapezoidal>
__device__ __forceinline__ float axialWeight(const ColumnFootprint& f, const SliceRows& r,
                                             float rowFromBase) {
  if (!Trapezoidal) {
    const float c = r.centre - rowFromBase, h = f.centre.half;
    return fmaxf(0.0f, fminf(c + h, 0.5f) - fmaxf(c - h, -0.5f));
  }
  const float n = r.nearest - rowFromBase, m = r.farthest - rowFromBase;
  const float hn = f.nearest.half, hf = f.farthest.half;
  return cellAverage(sorted(n - hn, n + hn, m - hf, m + hf), 0);
}

// The rows a slice may reach, [lo, hi] (absolute).
template <bool Trapezoidal>
__device__ __forceinline__ void rowsOfSlice(const ColumnFootprint& f, const Anchored& a,
                                            const SliceRows& r, int& lo, int& hi) {
  float low = r.centre - f.centre.half, high = r.centre + f.centre.half;
  if (Trapezoidal) {
    low = fminf(r.nearest - f.nearest.half, r.farthest - f.farthest.half);
    high = fmaxf(r.nearest + f.nearest.half, r.farthest + f.farthest.half);
  }
  lo = a.base + int(floorf(low + 0.5f));
  hi = a.base + int(floorf(high + 0.5f));
}

// The slices whose footprints may reach row `row` (a superset).
template <bool Trapezoidal>
__device__ __forceinline__ void slicesOfRow(const ColumnFootprint& f, int row, int nz, int& lo,
                                            int& hi) {
  float a, b;
  {
    const float c = float(double(row) - f.centre.row0) / f.centre.slopeF;
    const float reach = (0.5f + f.centre.half) / fabsf(f.centre.slopeF);
    a = c - reach;
    b = c + reach;
  }
  if (Trapezoidal) {
    const float cn = float(double(row) - f.nearest.row0) / f.nearest.slopeF;
    const float rn = (0.5f + f.nearest.half) / fabsf(f.nearest.slopeF);
    const float cf = float(double(row) - f.farthest.row0) / f.farthest.slopeF;
    const float rf = (0.5f + f.farthest.half) / fabsf(f.farthest.slopeF);
    a = fminf(a, fminf(cn - rn, cf - rf));
    b = fmaxf(b, fmaxf(cn + rn, cf + rf));
  }
  // Slices strictly inside (a, b) reach the row; 1e-3 of a slice covers float32's error here.
  lo = max(0, int(floorf(a - 1e-3f)) + 1);
  hi = min(nz - 1, int(ceilf(b + 1e-3f)) - 1);
}

// slicesOfRow with reciprocals in place of divisions (the Wu-Fessler forward kernel's inner loop):
// the same superset up to float32 rounding, which the 1e-3 margin covers.
template <bool Trapezoidal>
__device__ __forceinline__ void slicesOfRowFast(const ColumnFootprint& f, int row, int nz, int& lo,
                                                int& hi) {
  float a = 3e38f, b = -3e38f;
  auto extend = [&](const AxialLine& l) {
    const float inv = __frcp_rn(l.slopeF);
    const float c = float(double(row) - l.row0) * inv;
    const float reach = (0.5f + l.half) * fabsf(inv);
    a = fminf(a, c - reach);
    b = fmaxf(b, c + reach);
  };
  extend(f.centre);
  if (Trapezoidal) {
    extend(f.nearest);
    extend(f.farthest);
  }
  lo = max(0, int(floorf(a - 1e-3f)) + 1);
  hi = min(nz - 1, int(ceilf(b + 1e-3f)) - 1);
}

// 1/cos(theta) of the ray through cell (col, row), times its transaxial chord for A1.
__device__ __forceinline__ float cellAmplitude(const SfGpuView& v, const SfGpuShape& s, int col,
                                               int row) {
  float cu = float(col), cw = 0.0f;
  if (v.arc) sincosf(v.angle0 + float(col) * v.angleStep, &cw, &cu);
  const float dx = v.baseX + cu * v.uX + cw * v.wX + float(row) * v.vX;
  const float dy = v.baseY + cu * v.uY + cw * v.wY + float(row) * v.vY;
  const float dz = v.baseZ + cu * v.uZ + cw * v.wZ + float(row) * v.vZ;
  const float xy = hypotf(dx, dy);
  const float lTheta = sqrtf(xy * xy + dz * dz) / xy;
  return s.amplitudeA1 ? lTheta * transaxialChord(dx, dy, s.worldVoxelX, s.worldVoxelY) : lTheta;
}

// ---- forward, atomic scatter -------------------------------------------------------------------

template <int Cells, bool Trapezoidal>
__global__ void __launch_bounds__(256, 2)
    forwardAtomicKernel(const float* __restrict__ volume, const SfGpuView* __restrict__ views,
                        const std::int64_t* __restrict__ outView, SfGpuShape s, int tileRows,
                        float* __restrict__ out, int* overflow) {
  extern __shared__ float tile[];
  const int k = blockIdx.y;
  const int rowLo = blockIdx.x * tileRows, rowHi = min(s.rows, rowLo + tileRows);
  const int cells = (rowHi - rowLo) * s.cols;
  for (int i = threadIdx.x; i < cells; i += blockDim.x) tile[i] = 0.0f;
  __syncthreads();
  const SfGpuView v = views[k];
  const std::int64_t slice = std::int64_t(s.nx) * s.ny;
  for (int column = threadIdx.x; column < s.nx * s.ny; column += blockDim.x) {
    const int ix = column % s.nx, iy = column / s.nx;
    ColumnFootprint f;
    double den;
    columnRows<Trapezoidal>(v, ix, iy, f, den);
    int reachLo, reachHi;
    rowsOfSlices<Trapezoidal>(f, -0.5f, float(s.nz) - 0.5f, reachLo, reachHi);
    reachLo = max(reachLo, rowLo);
    reachHi = min(reachHi, rowHi - 1);
    if (reachLo > reachHi) continue;
    columnTransaxial(v, ix, iy, s, den, f);
    if (f.first > f.last) continue;
    if (f.last - f.first >= Cells) {
      atomicOr(overflow, 1);
      continue;
    }
    const int n = f.last - f.first + 1;
    float w[Cells];
#pragma unroll
    for (int c = 0; c < Cells; ++c) {
      if (c >= n) break;
      w[c] = transaxialWeight(f, f.first + c);
    }
    const float* voxels = volume + column;
    Anchored at;
    for (int row = reachLo; row <= reachHi; ++row) {
      int zLo, zHi;
      slicesOfRow<Trapezoidal>(f, row, s.nz, zLo, zHi);
      float h = 0.0f;
      for (int iz = zLo; iz <= zHi; ++iz) {
        anchorAt<Trapezoidal>(f, axialAnchor(iz), at);
        const float f2 =
            axialWeight<Trapezoidal>(f, sliceRows<Trapezoidal>(f, at, iz), float(row - at.base));
        if (f2 > 0.0f) h += f2 * __ldg(voxels + std::int64_t(iz) * slice);
      }
      if (h == 0.0f) continue;
      float* line = tile + (row - rowLo) * s.cols + f.first;
#pragma unroll
      for (int c = 0; c < Cells; ++c) {
        if (c >= n) break;
        atomicAdd(line + c, w[c] * h);
      }
    }
  }
  __syncthreads();
  float* to = out + (outView[k] * s.rows + rowLo) * std::int64_t(s.cols);
  for (int i = threadIdx.x; i < cells; i += blockDim.x) {
    const int row = rowLo + i / s.cols, col = i % s.cols;
    const float g = tile[i];
    to[i] = g == 0.0f ? 0.0f : g * cellAmplitude(v, s, col, row);
  }
}

// ---- forward, gather
// -----------------------------------------------------------------------------

// Voxel columns listed per pass of kGatherThreads lines (static shared memory under 48 KiB).
template <bool Trapezoidal>
constexpr int kGatherEntries = Trapezoidal ? 768 : 1536;

struct GatherEntry {
  std::int32_t column;  // iy nx + ix
  float weight;         // u F1 of the block's detector column
  double row0, slope;   // the centre line
};
struct GatherEntryTt {
  double nearRow0, nearSlope, farRow0, farSlope;
};

// Threads: rows per block (64 for detectors of at most 64 rows, else 128).
template <int kGatherThreads, bool Trapezoidal>
__global__ void __launch_bounds__(kGatherThreads)
    forwardGatherKernel(const float* __restrict__ volume, const SfGpuView* __restrict__ views,
                        const std::int64_t* __restrict__ outView, SfGpuShape s,
                        float* __restrict__ out, int* overflow) {
  using Scan = cub::BlockScan<int, kGatherThreads>;
  __shared__ typename Scan::TempStorage scan;
  __shared__ GatherEntry entries[kGatherEntries<Trapezoidal>];
  __shared__ GatherEntryTt entriesTt[Trapezoidal ? kGatherEntries<Trapezoidal> : 1];
  __shared__ int total;
  const int col = blockIdx.x, k = blockIdx.y;
  const int row = blockIdx.z * kGatherThreads + threadIdx.x;
  const SfGpuView v = views[k];
  // Lines across the rays: constant iy when the column changes faster along x. On an arc the
  // column's edges are fan angles, whose tangents are quotients of the same form (alongE / alongN).
  auto edgeValue = [&](double column) {
    return v.arc ? tan((column - v.colCentre) / v.colScale) : column;
  };
  const double c = edgeValue(col);
  const bool alongX = fabs(v.a0 - c * v.d0) >= fabs(v.a1 - c * v.d1);
  const int lines = alongX ? s.ny : s.nx, length = alongX ? s.nx : s.ny;
  float sum = 0.0f;
  for (int base = 0; base < lines; base += kGatherThreads) {
    const int line = base + threadIdx.x;
    // The voxels of this line whose squares meet the band between columns c - 1/2 and c + 1/2:
    // the band's edges solved at the line's two sides.
    int lo = 0, hi = -1;
    if (line < lines) {
      double a = 1e300, b = -1e300;
      for (int side = 0; side < 2; ++side)
        for (int edge = 0; edge < 2; ++edge) {
          const double q = double(line) + (side ? 0.5 : -0.5),
                       e = edgeValue(double(col) + (edge ? 0.5 : -0.5));
          // column(p, q) = e along the line: p (a_p - e d_p) = e (d_q q + d3) - a_q q - a3.
          const double ap = alongX ? v.a0 : v.a1, aq = alongX ? v.a1 : v.a0;
          const double dp = alongX ? v.d0 : v.d1, dq = alongX ? v.d1 : v.d0;
          const double p = (e * (dq * q + v.d3) - aq * q - v.a3) / (ap - e * dp);
          a = fmin(a, p);
          b = fmax(b, p);
        }
      if (a < double(length) + 1.0 && b > -2.0) {
        lo = max(0, int(floor(a + 0.5)) - 1);
        hi = min(length - 1, int(ceil(b - 0.5)) + 1);
      }
    }
    const int count = hi >= lo ? hi - lo + 1 : 0;
    int offset;
    Scan(scan).ExclusiveSum(count, offset);
    if (threadIdx.x == kGatherThreads - 1) total = offset + count;
    __syncthreads();
    const int n = total;
    if (n > kGatherEntries<Trapezoidal>) {
      if (threadIdx.x == 0) atomicOr(overflow, 2);
      return;
    }
    for (int p = lo; p <= hi; ++p) {
      const int ix = alongX ? p : line, iy = alongX ? line : p;
      const ColumnFootprint f = columnFootprint<Trapezoidal>(v, ix, iy, s);
      const bool reached = col >= f.first && col <= f.last;
      GatherEntry& e = entries[offset + p - lo];
      e.column = iy * s.nx + ix;
      e.weight = reached ? transaxialWeight(f, col) : 0.0f;
      e.row0 = f.centre.row0;
      e.slope = f.centre.slope;
      if (Trapezoidal)
        entriesTt[offset + p - lo] = {f.nearest.row0, f.nearest.slope, f.farthest.row0,
                                      f.farthest.slope};
    }
    __syncthreads();
    if (row < s.rows)
      for (int i = 0; i < n; ++i) {
        const GatherEntry e = entries[i];
        if (e.weight == 0.0f) continue;
        ColumnFootprint f;
        f.centre = axialLine(e.row0, e.slope);
        if (Trapezoidal) {
          const GatherEntryTt t = entriesTt[i];
          f.nearest = axialLine(t.nearRow0, t.nearSlope);
          f.farthest = axialLine(t.farRow0, t.farSlope);
        }
        int zLo, zHi;
        slicesOfRow<Trapezoidal>(f, row, s.nz, zLo, zHi);
        const float* voxels = volume + std::int64_t(e.column) * s.nz;
        float h = 0.0f;
        Anchored at;
        for (int iz = zLo; iz <= zHi; ++iz) {
          anchorAt<Trapezoidal>(f, axialAnchor(iz), at);
          const float f2 =
              axialWeight<Trapezoidal>(f, sliceRows<Trapezoidal>(f, at, iz), float(row - at.base));
          if (f2 > 0.0f) h += f2 * __ldg(voxels + iz);
        }
        sum += e.weight * h;
      }
    __syncthreads();
  }
  if (row < s.rows)
    out[(outView[k] * s.rows + row) * std::int64_t(s.cols) + col] =
        sum == 0.0f ? 0.0f : sum * cellAmplitude(v, s, col, row);
}

__global__ void transposeKernel(const float* __restrict__ volume, float* __restrict__ zFirst,
                                SfGpuShape s) {
  // One thread per (z, x) of a y line: reads along x, writes along z through shared memory.
  __shared__ float tile[32][33];
  const int iy = blockIdx.z;
  const int x0 = blockIdx.x * 32, z0 = blockIdx.y * 32;
  for (int j = threadIdx.y; j < 32; j += blockDim.y) {
    const int iz = z0 + j, ix = x0 + threadIdx.x;
    if (iz < s.nz && ix < s.nx)
      tile[j][threadIdx.x] = volume[(std::int64_t(iz) * s.ny + iy) * s.nx + ix];
  }
  __syncthreads();
  for (int j = threadIdx.y; j < 32; j += blockDim.y) {
    const int ix = x0 + j, iz = z0 + threadIdx.x;
    if (iz < s.nz && ix < s.nx)
      zFirst[(std::int64_t(iy) * s.nx + ix) * s.nz + iz] = tile[threadIdx.x][j];
  }
}

// ---- transpose
// -----------------------------------------------------------------------------------

__global__ void transposeXyKernel(const float* __restrict__ volume, float* __restrict__ swapped,
                                  SfGpuShape s) {
  // Per slice: (iz, iy, ix) -> (iz, ix, iy) through shared memory.
  __shared__ float tile[32][33];
  const int iz = blockIdx.z;
  const int x0 = blockIdx.x * 32, y0 = blockIdx.y * 32;
  const std::int64_t slice = std::int64_t(iz) * s.nx * s.ny;
  for (int j = threadIdx.y; j < 32; j += blockDim.y) {
    const int iy = y0 + j, ix = x0 + threadIdx.x;
    if (iy < s.ny && ix < s.nx) tile[j][threadIdx.x] = volume[slice + std::int64_t(iy) * s.nx + ix];
  }
  __syncthreads();
  for (int j = threadIdx.y; j < 32; j += blockDim.y) {
    const int ix = x0 + j, iy = y0 + threadIdx.x;
    if (iy < s.ny && ix < s.nx)
      swapped[slice + std::int64_t(ix) * s.ny + iy] = tile[threadIdx.x][j];
  }
}

__global__ void scaleCellsKernel(const float* __restrict__ in,
                                 const std::int64_t* __restrict__ inView,
                                 const SfGpuView* __restrict__ views, SfGpuShape s,
                                 float* __restrict__ out) {
  const int k = blockIdx.y;
  const std::int64_t pixels = std::int64_t(s.rows) * s.cols;
  const float* from = in + inView[k] * pixels;
  float* to = out + std::int64_t(k) * pixels;
  const SfGpuView v = views[k];
  for (std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < pixels;
       i += std::int64_t(gridDim.x) * blockDim.x) {
    const float g = from[i];
    to[i] = g == 0.0f ? 0.0f : g * cellAmplitude(v, s, int(i % s.cols), int(i / s.cols));
  }
}

template <int Cells, int Slices, bool Trapezoidal>
__global__ void __launch_bounds__(128)
    backGatherKernel(const float* __restrict__ scaled, const SfGpuView* __restrict__ views,
                     const std::int32_t* __restrict__ chunkStart,
                     const std::int32_t* __restrict__ chunkViews, SfGpuShape s,
                     float* __restrict__ volume, int* overflow) {
  const int ix = blockIdx.x * blockDim.x + threadIdx.x;
  const int iy = blockIdx.y * blockDim.y + threadIdx.y;
  if (ix >= s.nx || iy >= s.ny) return;
  const int chunk = blockIdx.z, z0 = chunk * Slices, z1 = min(s.nz, z0 + Slices);
  const int anchor = axialAnchor(z0);  // chunks of at most 16 slices never straddle two anchors
  const std::int64_t pixels = std::int64_t(s.rows) * s.cols;
  float sum[Slices];
#pragma unroll
  for (int j = 0; j < Slices; ++j) sum[j] = 0.0f;
  for (int e = chunkStart[chunk]; e < chunkStart[chunk + 1]; ++e) {
    const int k = chunkViews[e];
    const SfGpuView& v = views[k];
    ColumnFootprint f;
    double den;
    columnRows<Trapezoidal>(v, ix, iy, f, den);
    int reachLo, reachHi;
    rowsOfSlices<Trapezoidal>(f, float(z0) - 0.5f, float(z1) - 0.5f, reachLo, reachHi);
    if (reachHi < 0 || reachLo >= s.rows) continue;
    columnTransaxial(v, ix, iy, s, den, f);
    if (f.first > f.last) continue;
    if (f.last - f.first >= Cells) {
      atomicOr(overflow, 1);
      continue;
    }
    const int n = f.last - f.first + 1;
    float w[Cells];
#pragma unroll
    for (int c = 0; c < Cells; ++c) {
      if (c >= n) break;
      w[c] = transaxialWeight(f, f.first + c);
    }
    Anchored at;
    anchorAt<Trapezoidal>(f, anchor, at);
    const float* y = scaled + std::int64_t(k) * pixels + f.first;
    // Rows in the direction consecutive slices travel, so a slice's first row is the previous
    // slice's last and its sum over the columns is reused.
    const int step = f.centre.slopeF >= 0.0f ? 1 : -1;
    int cachedRow = -1 << 30;
    float cachedSum = 0.0f;
#pragma unroll
    for (int j = 0; j < Slices; ++j) {
      const int iz = z0 + j;
      if (iz >= z1) break;
      const SliceRows r = sliceRows<Trapezoidal>(f, at, iz);
      int l0, l1;
      rowsOfSlice<Trapezoidal>(f, at, r, l0, l1);
      l0 = max(l0, 0);
      l1 = min(l1, s.rows - 1);
      float acc = 0.0f;
      for (int i = 0; i <= l1 - l0; ++i) {
        const int l = step > 0 ? l0 + i : l1 - i;
        const float f2 = axialWeight<Trapezoidal>(f, r, float(l - at.base));
        if (f2 <= 0.0f) continue;
        float h = 0.0f;
        if (l == cachedRow) {
          h = cachedSum;
        } else {
          const float* line = y + std::int64_t(l) * s.cols;
#pragma unroll
          for (int c = 0; c < Cells; ++c) {
            if (c >= n) break;
            h += w[c] * __ldg(line + c);
          }
          cachedRow = l;
          cachedSum = h;
        }
        acc += f2 * h;
      }
      sum[j] += acc;
    }
  }
#pragma unroll
  for (int j = 0; j < Slices; ++j) {
    const int iz = z0 + j;
    if (iz < z1) volume[(std::int64_t(iz) * s.ny + iy) * s.nx + ix] += sum[j];
  }
}

// ---- Wu and Fessler's scheme: voxel columns grouped by their first detector column
// ----------------

// Kernel 1: one thread per (voxel column, view of the batch). Stores the column's record (its
// footprint's weights u F1 from its first column on, zero beyond its width, its axial lines) at
// k * columns + column and the sort key (k << colBits) | first; columns that reach no cell of the
// view get the key count << colBits, which sorts after every view's.
template <int Cells, bool Trapezoidal>
__global__ void __launch_bounds__(256)
    wuFesslerFootprintKernel(const SfGpuView* __restrict__ views, SfGpuShape s, int count,
                             int colBits, std::uint32_t* __restrict__ keys,
                             std::int32_t* __restrict__ values, float* __restrict__ weights,
                             double* __restrict__ lines, unsigned char* __restrict__ widths,
                             int* overflow) {
  const int columns = s.nx * s.ny;
  const int column = blockIdx.x * blockDim.x + threadIdx.x, k = blockIdx.y;
  if (column >= columns) return;
  const std::int64_t rec = std::int64_t(k) * columns + column;
  const int ix = column % s.nx, iy = column / s.nx;
  const SfGpuView v = views[k];
  ColumnFootprint f;
  double den;
  columnRows<Trapezoidal>(v, ix, iy, f, den);
  int reachLo, reachHi;
  rowsOfSlices<Trapezoidal>(f, -0.5f, float(s.nz) - 0.5f, reachLo, reachHi);
  std::uint32_t key = std::uint32_t(count) << colBits;
  int n = 0;
  if (reachHi >= 0 && reachLo < s.rows) {
    columnTransaxial(v, ix, iy, s, den, f);
    if (f.first <= f.last) {
      if (f.last - f.first >= Cells) {
        atomicOr(overflow, 1);
      } else {
        n = f.last - f.first + 1;
        key = (std::uint32_t(k) << colBits) | std::uint32_t(f.first);
      }
    }
  }
  keys[rec] = key;
  values[rec] = std::int32_t(rec);
  widths[rec] = static_cast<unsigned char>(n);
  float* w = weights + rec * Cells;
#pragma unroll
  for (int c = 0; c < Cells; ++c) w[c] = c < n ? transaxialWeight(f, f.first + c) : 0.0f;
  double* l = lines + rec * (Trapezoidal ? 6 : 2);
  l[0] = f.centre.row0;
  l[1] = f.centre.slope;
  if (Trapezoidal) {
    l[2] = f.nearest.row0;
    l[3] = f.nearest.slope;
    l[4] = f.farthest.row0;
    l[5] = f.farthest.slope;
  }
}

__device__ __forceinline__ int lowerBound(const std::uint32_t* __restrict__ keys, int n,
                                          std::uint32_t key) {
  int lo = 0, hi = n;
  while (lo < hi) {
    const int mid = (lo + hi) >> 1;
    if (__ldg(keys + mid) < key)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

// Kernel 2: one block per (group of `group` detector columns, tile of Threads rows, view), a
// thread per row. The block walks the voxel columns whose first detector column lies in its group
// (a contiguous run of the sorted keys, in a fixed order), sums each column's row (the axial sum
// h, once per column and row) and spreads it over the column's footprint in a per-thread array
// in shared memory. Groups of one parity at a time add their arrays into the views: a group's
// array reaches into the next group only (group >= Cells - 1), so the two launches never write one
// cell at once and every cell gets its sums in the same order every run.
template <int Cells, int Threads, bool Trapezoidal>
__global__ void __launch_bounds__(Threads)
    wuFesslerForwardKernel(const float* __restrict__ volume, const std::uint32_t* __restrict__ keys,
                           const std::int32_t* __restrict__ values, int items,
                           const float* __restrict__ weights, const double* __restrict__ lines,
                           const unsigned char* __restrict__ widths,
                           const std::int64_t* __restrict__ outView, SfGpuShape s, int group,
                           int parity, int colBits, float* __restrict__ out) {
  extern __shared__ float acc[];
  const int k = blockIdx.z;
  const int col0 = (2 * blockIdx.x + parity) * group;
  if (col0 >= s.cols) return;
  const int row = blockIdx.y * Threads + threadIdx.x;
  const int span = group + Cells - 1;
  for (int c = 0; c < span; ++c) acc[c * Threads + threadIdx.x] = 0.0f;
  const std::uint32_t viewKey = std::uint32_t(k) << colBits;
  const int lo = lowerBound(keys, items, viewKey | std::uint32_t(col0));
  const int hi = lowerBound(keys, items, viewKey | std::uint32_t(col0 + group));
  if (row >= s.rows) return;
  const std::uint32_t mask = (std::uint32_t(1) << colBits) - 1;
  const std::int64_t columns = std::int64_t(s.nx) * s.ny;
  for (int i = lo; i < hi; ++i) {
    const std::int32_t rec = __ldg(values + i);
    const double* l = lines + std::int64_t(rec) * (Trapezoidal ? 6 : 2);
    ColumnFootprint f;
    f.centre = axialLine(__ldg(l), __ldg(l + 1));
    if (Trapezoidal) {
      f.nearest = axialLine(__ldg(l + 2), __ldg(l + 3));
      f.farthest = axialLine(__ldg(l + 4), __ldg(l + 5));
    }
    int zLo, zHi;
    slicesOfRowFast<Trapezoidal>(f, row, s.nz, zLo, zHi);
    if (zLo > zHi) continue;
    const float* voxels = volume + (std::int64_t(rec) % columns) * s.nz;
    float h = 0.0f;
    Anchored at;
    for (int iz = zLo; iz <= zHi; ++iz) {
      anchorAt<Trapezoidal>(f, axialAnchor(iz), at);
      const float f2 =
          axialWeight<Trapezoidal>(f, sliceRows<Trapezoidal>(f, at, iz), float(row - at.base));
      if (f2 > 0.0f) h += f2 * __ldg(voxels + iz);
    }
    if (h == 0.0f) continue;
    const int n = __ldg(widths + rec);
    const float* w = weights + std::int64_t(rec) * Cells;
    float* a = acc + (int(__ldg(keys + i) & mask) - col0) * Threads + threadIdx.x;
#pragma unroll
    for (int c = 0; c < Cells; ++c) {
      if (c >= n) break;
      a[c * Threads] += __ldg(w + c) * h;
    }
  }
  float* to = out + (outView[k] * s.rows + row) * std::int64_t(s.cols);
  for (int c = 0; c < span && col0 + c < s.cols; ++c)
    to[col0 + c] += acc[c * Threads + threadIdx.x];
}

// Zeroes the listed views (before the groups add into them).
__global__ void zeroViewsKernel(const std::int64_t* __restrict__ outView, SfGpuShape s,
                                float* __restrict__ out) {
  const std::int64_t pixels = std::int64_t(s.rows) * s.cols;
  float* to = out + outView[blockIdx.y] * pixels;
  for (std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < pixels;
       i += std::int64_t(gridDim.x) * blockDim.x)
    to[i] = 0.0f;
}

// Applies each cell's amplitude to the listed views in place (the sums' last step, as in the
// other forward kernels).
__global__ void amplitudeInPlaceKernel(const std::int64_t* __restrict__ outView,
                                       const SfGpuView* __restrict__ views, SfGpuShape s,
                                       float* __restrict__ out) {
  const int k = blockIdx.y;
  const std::int64_t pixels = std::int64_t(s.rows) * s.cols;
  float* to = out + outView[k] * pixels;
  const SfGpuView v = views[k];
  for (std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < pixels;
       i += std::int64_t(gridDim.x) * blockDim.x) {
    const float g = to[i];
    to[i] = g == 0.0f ? 0.0f : g * cellAmplitude(v, s, int(i % s.cols), int(i / s.cols));
  }
}

// ---- Wu and Fessler's transpose: footprints, the transaxial sums h, the axial spread
// -------------

// Kernel 1: one thread per (voxel column, view of the batch): the column's first detector column,
// width, weights u F1 and axial lines, stored by record (k * columns + column), weights and lines
// one array per index so that neighbouring columns read neighbouring words.
template <int Cells, bool Trapezoidal>
__global__ void __launch_bounds__(256)
    wuFesslerBackFootprintKernel(const SfGpuView* __restrict__ views, SfGpuShape s, int items,
                                 std::int32_t* __restrict__ firsts,
                                 unsigned char* __restrict__ widths, float* __restrict__ weights,
                                 double* __restrict__ lines, int* overflow) {
  const int columns = s.nx * s.ny;
  const int column = blockIdx.x * blockDim.x + threadIdx.x, k = blockIdx.y;
  if (column >= columns) return;
  const int rec = k * columns + column;
  const int ix = column % s.nx, iy = column / s.nx;
  const SfGpuView v = views[k];
  ColumnFootprint f;
  double den;
  columnRows<Trapezoidal>(v, ix, iy, f, den);
  int reachLo, reachHi, n = 0;
  rowsOfSlices<Trapezoidal>(f, -0.5f, float(s.nz) - 0.5f, reachLo, reachHi);
  if (reachHi >= 0 && reachLo < s.rows) {
    columnTransaxial(v, ix, iy, s, den, f);
    if (f.first <= f.last) {
      if (f.last - f.first >= Cells)
        atomicOr(overflow, 1);
      else
        n = f.last - f.first + 1;
    }
  }
  firsts[rec] = n ? f.first : 0;
  widths[rec] = static_cast<unsigned char>(n);
#pragma unroll
  for (int c = 0; c < Cells; ++c)
    weights[std::int64_t(c) * items + rec] = c < n ? transaxialWeight(f, f.first + c) : 0.0f;
  lines[rec] = f.centre.row0;
  lines[std::int64_t(items) + rec] = f.centre.slope;
  if (Trapezoidal) {
    lines[2 * std::int64_t(items) + rec] = f.nearest.row0;
    lines[3 * std::int64_t(items) + rec] = f.nearest.slope;
    lines[4 * std::int64_t(items) + rec] = f.farthest.row0;
    lines[5 * std::int64_t(items) + rec] = f.farthest.slope;
  }
}

// Kernel 2: h(row; column) = sum over the footprint of u F1 times the amplitude-scaled view, one
// thread per (voxel column, row, view), into h[(k rows + row) columns + column].
template <int Cells>
__global__ void __launch_bounds__(256)
    wuFesslerTransaxialKernel(const float* __restrict__ scaled,
                              const std::int32_t* __restrict__ firsts,
                              const unsigned char* __restrict__ widths,
                              const float* __restrict__ weights, int items, SfGpuShape s,
                              float* __restrict__ h) {
  const int columns = s.nx * s.ny;
  const int column = blockIdx.x * blockDim.x + threadIdx.x, row = blockIdx.y, k = blockIdx.z;
  if (column >= columns) return;
  const int rec = k * columns + column;
  const int n = widths[rec];
  float sum = 0.0f;
  if (n) {
    const float* line =
        scaled + (std::int64_t(k) * s.rows + row) * std::int64_t(s.cols) + firsts[rec];
#pragma unroll
    for (int c = 0; c < Cells; ++c) {
      if (c >= n) break;
      sum += __ldg(weights + std::int64_t(c) * items + rec) * __ldg(line + c);
    }
  }
  h[(std::int64_t(k) * s.rows + row) * columns + column] = sum;
}

// Kernel 3: one thread per voxel column and chunk of Slices slices (chunks from firstChunk on),
// looping over the batch's views in order: b += sum over rows of F2 h. Every thread owns its
// voxels: no write conflicts, the same bits every run.
template <int Slices, bool Trapezoidal>
__global__ void __launch_bounds__(128)
    wuFesslerBackKernel(const float* __restrict__ h, const unsigned char* __restrict__ widths,
                        const double* __restrict__ lines, int items, int count, SfGpuShape s,
                        int firstChunk, float* __restrict__ volume) {
  const int ix = blockIdx.x * blockDim.x + threadIdx.x;
  const int iy = blockIdx.y * blockDim.y + threadIdx.y;
  if (ix >= s.nx || iy >= s.ny) return;
  const int columns = s.nx * s.ny, column = iy * s.nx + ix;
  const int z0 = (firstChunk + int(blockIdx.z)) * Slices, z1 = min(s.nz, z0 + Slices);
  if (z0 >= z1) return;
  const int anchor = axialAnchor(z0);
  float sum[Slices];
#pragma unroll
  for (int j = 0; j < Slices; ++j) sum[j] = 0.0f;
  for (int k = 0; k < count; ++k) {
    const int rec = k * columns + column;
    if (!widths[rec]) continue;
    ColumnFootprint f;
    f.centre = axialLine(__ldg(lines + rec), __ldg(lines + std::int64_t(items) + rec));
    if (Trapezoidal) {
      f.nearest = axialLine(__ldg(lines + 2 * std::int64_t(items) + rec),
                            __ldg(lines + 3 * std::int64_t(items) + rec));
      f.farthest = axialLine(__ldg(lines + 4 * std::int64_t(items) + rec),
                             __ldg(lines + 5 * std::int64_t(items) + rec));
    }
    int reachLo, reachHi;
    rowsOfSlices<Trapezoidal>(f, float(z0) - 0.5f, float(z1) - 0.5f, reachLo, reachHi);
    if (reachHi < 0 || reachLo >= s.rows) continue;
    Anchored at;
    anchorAt<Trapezoidal>(f, anchor, at);
    const float* hk = h + std::int64_t(k) * s.rows * columns + column;
    const int step = f.centre.slopeF >= 0.0f ? 1 : -1;
#pragma unroll
    for (int j = 0; j < Slices; ++j) {
      const int iz = z0 + j;
      if (iz >= z1) break;
      const SliceRows r = sliceRows<Trapezoidal>(f, at, iz);
      int l0, l1;
      rowsOfSlice<Trapezoidal>(f, at, r, l0, l1);
      l0 = max(l0, 0);
      l1 = min(l1, s.rows - 1);
      float acc = 0.0f;
      for (int i = 0; i <= l1 - l0; ++i) {
        const int l = step > 0 ? l0 + i : l1 - i;
        const float f2 = axialWeight<Trapezoidal>(f, r, float(l - at.base));
        if (f2 > 0.0f) acc += f2 * __ldg(hk + std::int64_t(l) * columns);
      }
      sum[j] += acc;
    }
  }
#pragma unroll
  for (int j = 0; j < Slices; ++j) {
    const int iz = z0 + j;
    if (iz < z1) volume[(std::int64_t(iz) * s.ny + iy) * s.nx + ix] += sum[j];
  }
}

constexpr int kCapacities[] = {2, 3, 4, 6, 8, 12, 16, 24, 32};

template <int Cells, bool Trapezoidal>
void forwardAtomicAs(const float* volume, const SfGpuView* views, const std::int64_t* outView,
                     int count, const SfGpuShape& shape, int tileRows, float* out, int* overflow,
                     cudaStream_t stream) {
  const std::size_t bytes = std::size_t(tileRows) * std::size_t(shape.cols) * sizeof(float);
  auto kernel = forwardAtomicKernel<Cells, Trapezoidal>;
  TOMOWB_CUDA_CHECK(
      cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(bytes)),
      "separable-footprint forward: shared memory");
  const dim3 grid((shape.rows + tileRows - 1) / tileRows, count);
  kernel<<<grid, 256, bytes, stream>>>(volume, views, outView, shape, tileRows, out, overflow);
  TOMOWB_CUDA_CHECK(cudaGetLastError(), "separable-footprint forward (atomic)");
}

template <int Cells, int Slices, bool Trapezoidal>
void backGatherAs(const float* scaled, const SfGpuView* views, const std::int32_t* chunkStart,
                  const std::int32_t* chunkViews, const SfGpuShape& shape, float* volume,
                  int* overflow, cudaStream_t stream) {
  const dim3 block(32, 4);
  const dim3 grid((shape.nx + 31) / 32, (shape.ny + 3) / 4, (shape.nz + Slices - 1) / Slices);
  backGatherKernel<Cells, Slices, Trapezoidal>
      <<<grid, block, 0, stream>>>(scaled, views, chunkStart, chunkViews, shape, volume, overflow);
  TOMOWB_CUDA_CHECK(cudaGetLastError(), "separable-footprint transpose (gather)");
}

// Calls fn(std::integral_constant<int, C>) for the instantiated capacity C = `cells`.
template <typename Fn>
void withCapacity(int cells, Fn&& fn) {
  switch (cells) {
    case 2:
      fn(std::integral_constant<int, 2>{});
      break;
    case 3:
      fn(std::integral_constant<int, 3>{});
      break;
    case 4:
      fn(std::integral_constant<int, 4>{});
      break;
    case 6:
      fn(std::integral_constant<int, 6>{});
      break;
    case 8:
      fn(std::integral_constant<int, 8>{});
      break;
    case 12:
      fn(std::integral_constant<int, 12>{});
      break;
    case 16:
      fn(std::integral_constant<int, 16>{});
      break;
    case 24:
      fn(std::integral_constant<int, 24>{});
      break;
    default:
      fn(std::integral_constant<int, 32>{});
      break;
  }
}

}  // namespace

int footprintCapacity(int cells) {
  for (int c : kCapacities)
    if (c >= cells) return c;
  return 0;
}

void launchForwardAtomic(const float* volume, const SfGpuView* views, const std::int64_t* outView,
                         int count, const SfGpuShape& shape, int cells, int tileRows, float* out,
                         int* overflow, cudaStream_t stream) {
  if (count <= 0) return;
  withCapacity(cells, [&](auto capacity) {
    constexpr int C = decltype(capacity)::value;
    if (shape.trapezoid)
      forwardAtomicAs<C, true>(volume, views, outView, count, shape, tileRows, out, overflow,
                               stream);
    else
      forwardAtomicAs<C, false>(volume, views, outView, count, shape, tileRows, out, overflow,
                                stream);
  });
}

void launchForwardGather(const float* volumeZFirst, const SfGpuView* views,
                         const std::int64_t* outView, int count, const SfGpuShape& shape,
                         const std::int32_t* /*lineAxis*/, float* out, int* overflow,
                         cudaStream_t stream) {
  if (count <= 0) return;
  auto launch = [&](auto threads) {
    constexpr int T = decltype(threads)::value;
    const dim3 grid(shape.cols, count, (shape.rows + T - 1) / T);
    if (shape.trapezoid)
      forwardGatherKernel<T, true>
          <<<grid, T, 0, stream>>>(volumeZFirst, views, outView, shape, out, overflow);
    else
      forwardGatherKernel<T, false>
          <<<grid, T, 0, stream>>>(volumeZFirst, views, outView, shape, out, overflow);
  };
  if (shape.rows <= 64)
    launch(std::integral_constant<int, 64>{});
  else
    launch(std::integral_constant<int, 128>{});
  TOMOWB_CUDA_CHECK(cudaGetLastError(), "separable-footprint forward (gather)");
}

void launchTransposeToZFirst(const float* volume, float* zFirst, const SfGpuShape& shape,
                             cudaStream_t stream) {
  const dim3 grid((shape.nx + 31) / 32, (shape.nz + 31) / 32, shape.ny);
  transposeKernel<<<grid, dim3(32, 8), 0, stream>>>(volume, zFirst, shape);
  TOMOWB_CUDA_CHECK(cudaGetLastError(), "separable-footprint forward (z-first copy)");
}

void launchTransposeXy(const float* volume, float* swapped, const SfGpuShape& shape,
                       cudaStream_t stream) {
  const dim3 grid((shape.nx + 31) / 32, (shape.ny + 31) / 32, shape.nz);
  transposeXyKernel<<<grid, dim3(32, 8), 0, stream>>>(volume, swapped, shape);
  TOMOWB_CUDA_CHECK(cudaGetLastError(), "separable-footprint forward (x-y swapped copy)");
}

void launchScaleCells(const float* in, const std::int64_t* inView, const SfGpuView* views,
                      int count, const SfGpuShape& shape, float* out, cudaStream_t stream) {
  if (count <= 0) return;
  const std::int64_t pixels = std::int64_t(shape.rows) * shape.cols;
  const dim3 grid(unsigned(std::min<std::int64_t>((pixels + 255) / 256, 64)), count);
  scaleCellsKernel<<<grid, 256, 0, stream>>>(in, inView, views, shape, out);
  TOMOWB_CUDA_CHECK(cudaGetLastError(), "separable-footprint transpose (cell amplitudes)");
}

void launchBackGather(const float* scaled, const SfGpuView* views, const std::int32_t* chunkStart,
                      const std::int32_t* chunkViews, const SfGpuShape& shape, int cells,
                      int sliceChunk, float* volume, int* overflow, cudaStream_t stream) {
  withCapacity(cells, [&](auto capacity) {
    constexpr int C = decltype(capacity)::value;
    auto launch = [&](auto slices) {
      constexpr int Z = decltype(slices)::value;
      if (shape.trapezoid)
        backGatherAs<C, Z, true>(scaled, views, chunkStart, chunkViews, shape, volume, overflow,
                                 stream);
      else
        backGatherAs<C, Z, false>(scaled, views, chunkStart, chunkViews, shape, volume, overflow,
                                  stream);
    };
    if (sliceChunk == 8)
      launch(std::integral_constant<int, 8>{});
    else
      launch(std::integral_constant<int, 16>{});
  });
}

int wuFesslerGroup(int cells) {
  return std::max(8, cells);
}

int wuFesslerColumnBits(const SfGpuShape& shape, int cells) {
  int bits = 1;
  while ((std::int64_t(1) << bits) <= std::int64_t(shape.cols) + wuFesslerGroup(cells)) ++bits;
  return bits;
}

std::size_t wuFesslerSortBytes(int items, int endBit) {
  std::size_t bytes = 0;
  cub::DoubleBuffer<std::uint32_t> keys(nullptr, nullptr);
  cub::DoubleBuffer<std::int32_t> values(nullptr, nullptr);
  TOMOWB_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, bytes, keys, values, items, 0, endBit),
                    "separable-footprint forward (Wu-Fessler): sort storage");
  return bytes;
}

void launchWuFesslerFootprints(const SfGpuView* views, int count, const SfGpuShape& shape,
                               int cells, const WuFesslerRecords& r, int* overflow,
                               cudaStream_t stream) {
  if (count <= 0) return;
  const int columns = shape.nx * shape.ny;
  const int colBits = wuFesslerColumnBits(shape, cells);
  const dim3 grid((columns + 255) / 256, count);
  withCapacity(cells, [&](auto capacity) {
    constexpr int C = decltype(capacity)::value;
    if (shape.trapezoid)
      wuFesslerFootprintKernel<C, true><<<grid, 256, 0, stream>>>(views, shape, count, colBits,
                                                                  r.keys[0], r.values[0], r.weights,
                                                                  r.lines, r.widths, overflow);
    else
      wuFesslerFootprintKernel<C, false>
          <<<grid, 256, 0, stream>>>(views, shape, count, colBits, r.keys[0], r.values[0],
                                     r.weights, r.lines, r.widths, overflow);
  });
  TOMOWB_CUDA_CHECK(cudaGetLastError(), "separable-footprint forward (Wu-Fessler footprints)");
  // Group the columns by view and first detector column: a stable radix sort of the keys.
  const int items = count * columns;
  int endBit = colBits;
  while ((std::int64_t(1) << (endBit - colBits)) <= count) ++endBit;
  cub::DoubleBuffer<std::uint32_t> keys(r.keys[0], r.keys[1]);
  cub::DoubleBuffer<std::int32_t> values(r.values[0], r.values[1]);
  std::size_t bytes = r.sortBytes;
  TOMOWB_CUDA_CHECK(
      cub::DeviceRadixSort::SortPairs(r.sortStorage, bytes, keys, values, items, 0, endBit, stream),
      "separable-footprint forward (Wu-Fessler): sorting the voxel columns");
  // The sorted run ends in buffer 0 (copy it there when the sort left it in buffer 1).
  if (keys.Current() != r.keys[0]) {
    TOMOWB_CUDA_CHECK(cudaMemcpyAsync(r.keys[0], keys.Current(), std::size_t(items) * 4,
                                      cudaMemcpyDeviceToDevice, stream),
                      "separable-footprint forward (Wu-Fessler): sorted keys");
    TOMOWB_CUDA_CHECK(cudaMemcpyAsync(r.values[0], values.Current(), std::size_t(items) * 4,
                                      cudaMemcpyDeviceToDevice, stream),
                      "separable-footprint forward (Wu-Fessler): sorted columns");
  }
}

void launchWuFesslerForward(const float* volumeZFirst, const SfGpuView* views,
                            const std::int64_t* outView, int count, const SfGpuShape& shape,
                            int cells, const WuFesslerRecords& r, float* out, cudaStream_t stream) {
  if (count <= 0) return;
  const std::int64_t pixels = std::int64_t(shape.rows) * shape.cols;
  const dim3 viewsGrid(unsigned(std::min<std::int64_t>((pixels + 255) / 256, 64)), count);
  zeroViewsKernel<<<viewsGrid, 256, 0, stream>>>(outView, shape, out);
  const int items = count * shape.nx * shape.ny;
  const int group = wuFesslerGroup(cells), colBits = wuFesslerColumnBits(shape, cells);
  const int groups = (shape.cols + group - 1) / group;
  withCapacity(cells, [&](auto capacity) {
    constexpr int C = decltype(capacity)::value;
    auto launch = [&](auto threads) {
      constexpr int T = decltype(threads)::value;
      const std::size_t bytes = std::size_t(group + C - 1) * T * sizeof(float);
      auto kernel = shape.trapezoid ? wuFesslerForwardKernel<C, T, true>
                                    : wuFesslerForwardKernel<C, T, false>;
      TOMOWB_CUDA_CHECK(
          cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(bytes)),
          "separable-footprint forward (Wu-Fessler): shared memory");
      for (int parity = 0; parity < 2; ++parity) {
        const dim3 grid((groups + 1 - parity) / 2, (shape.rows + T - 1) / T, count);
        if (grid.x == 0) continue;
        kernel<<<grid, T, bytes, stream>>>(volumeZFirst, r.keys[0], r.values[0], items, r.weights,
                                           r.lines, r.widths, outView, shape, group, parity,
                                           colBits, out);
      }
    };
    if (shape.rows <= 64)
      launch(std::integral_constant<int, 64>{});
    else
      launch(std::integral_constant<int, 128>{});
  });
  TOMOWB_CUDA_CHECK(cudaGetLastError(), "separable-footprint forward (Wu-Fessler)");
  amplitudeInPlaceKernel<<<viewsGrid, 256, 0, stream>>>(outView, views, shape, out);
  TOMOWB_CUDA_CHECK(cudaGetLastError(), "separable-footprint forward (cell amplitudes)");
}

void launchWuFesslerBack(const float* scaled, const SfGpuView* views, int count,
                         const SfGpuShape& shape, int cells, int sliceChunk, int firstSlice,
                         int lastSlice, const WuFesslerBackBuffers& b, float* volume, int* overflow,
                         cudaStream_t stream) {
  if (count <= 0 || lastSlice < firstSlice) return;
  const int columns = shape.nx * shape.ny, items = count * columns;
  withCapacity(cells, [&](auto capacity) {
    constexpr int C = decltype(capacity)::value;
    const dim3 grid((columns + 255) / 256, count);
    if (shape.trapezoid)
      wuFesslerBackFootprintKernel<C, true><<<grid, 256, 0, stream>>>(
          views, shape, items, b.firsts, b.widths, b.weights, b.lines, overflow);
    else
      wuFesslerBackFootprintKernel<C, false><<<grid, 256, 0, stream>>>(
          views, shape, items, b.firsts, b.widths, b.weights, b.lines, overflow);
    const dim3 rowsGrid((columns + 255) / 256, shape.rows, count);
    wuFesslerTransaxialKernel<C>
        <<<rowsGrid, 256, 0, stream>>>(scaled, b.firsts, b.widths, b.weights, items, shape, b.h);
  });
  TOMOWB_CUDA_CHECK(cudaGetLastError(), "separable-footprint transpose (Wu-Fessler footprints)");
  const dim3 block(32, 4);
  const int firstChunk = firstSlice / sliceChunk, lastChunk = lastSlice / sliceChunk;
  const dim3 grid((shape.nx + 31) / 32, (shape.ny + 3) / 4, lastChunk - firstChunk + 1);
  auto launch = [&](auto slices) {
    constexpr int Z = decltype(slices)::value;
    if (shape.trapezoid)
      wuFesslerBackKernel<Z, true><<<grid, block, 0, stream>>>(b.h, b.widths, b.lines, items, count,
                                                               shape, firstChunk, volume);
    else
      wuFesslerBackKernel<Z, false><<<grid, block, 0, stream>>>(b.h, b.widths, b.lines, items,
                                                                count, shape, firstChunk, volume);
  };
  if (sliceChunk == 8)
    launch(std::integral_constant<int, 8>{});
  else
    launch(std::integral_constant<int, 16>{});
  TOMOWB_CUDA_CHECK(cudaGetLastError(), "separable-footprint transpose (Wu-Fessler)");
}

}  // namespace tomowb::cuda::sfgpu
