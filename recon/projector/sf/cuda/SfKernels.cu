// The separable-footprint GPU kernels (SfKernels.cuh). Every weight comes from three device
// functions shared by all kernels: columnFootprint (a voxel column's transaxial trapezoid, its
// first and last detector column and the amplitude u), axialFootprint (a voxel's rectangle or
// trapezoid across the rows) and cellAverage (a trapezoid averaged over one cell), so forward and
// transpose agree to float32 rounding. Quotients of the projective maps are taken in float64 and
// kept as float32 offsets from a whole cell (SfGpuTypes.h).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cub/block/block_scan.cuh>
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

// A voxel column (ix, iy) in one view.
struct ColumnFootprint {
  int ref;          // the whole cell the transaxial trapezoid is relative to
  Trapezoid tau;    // the four corners' columns, sorted
  int first, last;  // detector columns reached (clipped to the detector); first > last: none
  float amplitude;  // u: l_phi0 of the voxel centre's ray (A2) or 1 (A1)
  // Rows at slice 0 and per slice, at the voxel centre's depth (SF-TR) or at the nearest and
  // farthest corner's (SF-TT).
  double rowCentre, slopeCentre, rowNear, slopeNear, rowFar, slopeFar;
};

__device__ __forceinline__ ColumnFootprint columnFootprint(const SfGpuView& v, int ix, int iy,
                                                           const SfGpuShape& s) {
  ColumnFootprint f;
  const double x = ix, y = iy;
  const double num = v.a0 * x + v.a1 * y + v.a3, den = v.d0 * x + v.d1 * y + v.d3;
  const double centre = num / den;
  f.ref = int(floor(centre + 0.5));
  float tau[4];
  double depth[4], rowNum[4];
  int near = 0, far = 0;
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    const double dx = (i & 1) ? 0.5 : -0.5, dy = (i & 2) ? 0.5 : -0.5;
    depth[i] = den + v.d0 * dx + v.d1 * dy;
    tau[i] = float((num + v.a0 * dx + v.a1 * dy) / depth[i] - double(f.ref));
    rowNum[i] = v.r0 * (x + dx) + v.r1 * (y + dy) + v.r3;
    if (depth[i] < depth[near]) near = i;
    if (depth[i] > depth[far]) far = i;
  }
  f.tau = sorted(tau[0], tau[1], tau[2], tau[3]);
  f.first = max(0, f.ref + cellOf(f.tau.t0));
  f.last = min(s.cols - 1, f.ref + cellOf(f.tau.t3));
  f.amplitude = s.amplitudeA1 ? 1.0f
                              : transaxialChord(float((x - v.sx) * s.voxelX),
                                                float((y - v.sy) * s.voxelY), s.voxelX, s.voxelY);
  f.rowCentre = (v.r0 * x + v.r1 * y + v.r3) / den;
  f.slopeCentre = v.r2 / den;
  f.rowNear = rowNum[near] / depth[near];
  f.slopeNear = v.r2 / depth[near];
  f.rowFar = rowNum[far] / depth[far];
  f.slopeFar = v.r2 / depth[far];
  return f;
}

// u F1 of detector column `col` (absolute).
__device__ __forceinline__ float transaxialWeight(const ColumnFootprint& f, int col) {
  return f.amplitude * cellAverage(f.tau, col - f.ref);
}

// The axial footprint of slice iz, relative to row `ref`.
template <bool Trapezoidal>
__device__ __forceinline__ Trapezoid axialFootprint(const ColumnFootprint& f, int iz, int& ref) {
  if (!Trapezoidal) {
    const double c = f.rowCentre + f.slopeCentre * double(iz);
    ref = int(floor(c + 0.5));
    const float local = float(c - double(ref)), half = float(0.5 * fabs(f.slopeCentre));
    return {local - half, local - half, local + half, local + half};
  }
  const double n = f.rowNear + f.slopeNear * double(iz);
  const double r = f.rowFar + f.slopeFar * double(iz);
  ref = int(floor(n + 0.5));
  const float hn = float(0.5 * f.slopeNear), hf = float(0.5 * f.slopeFar);
  const float ln = float(n - double(ref)), lf = float(r - double(ref));
  return sorted(ln - hn, ln + hn, lf - hf, lf + hf);
}

// The slices whose axial footprints may reach row `row` (a superset: their weights decide).
template <bool Trapezoidal>
__device__ __forceinline__ void slicesNearRow(const ColumnFootprint& f, int row, int nz, int& lo,
                                              int& hi) {
  double a, b;
  {
    const double reach = 0.5 + 0.5 * fabs(f.slopeCentre);
    a = (double(row) - reach - f.rowCentre) / f.slopeCentre;
    b = (double(row) + reach - f.rowCentre) / f.slopeCentre;
  }
  if (Trapezoidal) {
    const double rn = 0.5 + 0.5 * fabs(f.slopeNear), rf = 0.5 + 0.5 * fabs(f.slopeFar);
    const double n0 = (double(row) - rn - f.rowNear) / f.slopeNear;
    const double n1 = (double(row) + rn - f.rowNear) / f.slopeNear;
    const double f0 = (double(row) - rf - f.rowFar) / f.slopeFar;
    const double f1 = (double(row) + rf - f.rowFar) / f.slopeFar;
    const double low = fmin(fmin(a, b), fmin(fmin(n0, n1), fmin(f0, f1)));
    const double high = fmax(fmax(a, b), fmax(fmax(n0, n1), fmax(f0, f1)));
    a = low;
    b = high;
  }
  lo = max(0, int(floor(fmin(a, b))) - 1);
  hi = min(nz - 1, int(ceil(fmax(a, b))) + 1);
}

// 1/cos(theta) of the ray through cell (col, row), times its transaxial chord for A1.
__device__ __forceinline__ float cellAmplitude(const SfGpuView& v, const SfGpuShape& s, int col,
                                               int row) {
  const float dx = v.baseX + float(col) * v.uX + float(row) * v.vX;
  const float dy = v.baseY + float(col) * v.uY + float(row) * v.vY;
  const float dz = v.baseZ + float(col) * v.uZ + float(row) * v.vZ;
  const float xy = hypotf(dx, dy);
  const float lTheta = sqrtf(xy * xy + dz * dz) / xy;
  return s.amplitudeA1 ? lTheta * transaxialChord(dx, dy, s.voxelX, s.voxelY) : lTheta;
}

// ---- forward, atomic scatter -------------------------------------------------------------------

template <int Cells, bool Trapezoidal>
__global__ void forwardAtomicKernel(const float* __restrict__ volume,
                                    const SfGpuView* __restrict__ views,
                                    const std::int64_t* __restrict__ outView, SfGpuShape s,
                                    int tileRows, float* __restrict__ out, int* overflow) {
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
    const ColumnFootprint f = columnFootprint(v, ix, iy, s);
    if (f.first > f.last) continue;
    // The rows of this tile the column's slices reach.
    int ref0, ref1;
    const Trapezoid bottom = axialFootprint<Trapezoidal>(f, 0, ref0);
    const Trapezoid top = axialFootprint<Trapezoidal>(f, s.nz - 1, ref1);
    const int reachLo = max(rowLo, min(ref0 + cellOf(bottom.t0), ref1 + cellOf(top.t0)));
    const int reachHi = min(rowHi - 1, max(ref0 + cellOf(bottom.t3), ref1 + cellOf(top.t3)));
    if (reachLo > reachHi) continue;
    if (f.last - f.first >= Cells) {
      atomicOr(overflow, 1);
      continue;
    }
    float w[Cells];
#pragma unroll
    for (int c = 0; c < Cells; ++c)
      w[c] = f.first + c <= f.last ? transaxialWeight(f, f.first + c) : 0.0f;
    const float* voxels = volume + column;
    for (int row = reachLo; row <= reachHi; ++row) {
      int zLo, zHi;
      slicesNearRow<Trapezoidal>(f, row, s.nz, zLo, zHi);
      float h = 0.0f;
      for (int iz = zLo; iz <= zHi; ++iz) {
        int ref;
        const Trapezoid t = axialFootprint<Trapezoidal>(f, iz, ref);
        const float f2 = cellAverage(t, row - ref);
        if (f2 != 0.0f) h += f2 * __ldg(voxels + std::int64_t(iz) * slice);
      }
      if (h == 0.0f) continue;
      float* line = tile + (row - rowLo) * s.cols + f.first;
#pragma unroll
      for (int c = 0; c < Cells; ++c)
        if (f.first + c <= f.last) atomicAdd(line + c, w[c] * h);
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

constexpr int kGatherThreads = 128;
// Voxel columns listed per pass of kGatherThreads lines (static shared memory under 48 KiB).
template <bool Trapezoidal>
constexpr int kGatherEntries = Trapezoidal ? 768 : 1536;

struct GatherEntry {
  std::int32_t column;  // iy nx + ix
  float weight;         // u F1 of the block's detector column
  double rowCentre, slopeCentre;
};
struct GatherEntryTt {
  double rowNear, slopeNear, rowFar, slopeFar;
};

template <bool Trapezoidal>
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
  // Lines across the rays: constant iy when the column changes faster along x.
  const double c = col;
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
          const double q = double(line) + (side ? 0.5 : -0.5), e = c + (edge ? 0.5 : -0.5);
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
      const ColumnFootprint f = columnFootprint(v, ix, iy, s);
      const bool reached = col >= f.first && col <= f.last;
      GatherEntry& e = entries[offset + p - lo];
      e.column = iy * s.nx + ix;
      e.weight = reached ? transaxialWeight(f, col) : 0.0f;
      e.rowCentre = f.rowCentre;
      e.slopeCentre = f.slopeCentre;
      if (Trapezoidal) entriesTt[offset + p - lo] = {f.rowNear, f.slopeNear, f.rowFar, f.slopeFar};
    }
    __syncthreads();
    if (row < s.rows)
      for (int i = 0; i < n; ++i) {
        const GatherEntry e = entries[i];
        if (e.weight == 0.0f) continue;
        ColumnFootprint f;
        f.rowCentre = e.rowCentre;
        f.slopeCentre = e.slopeCentre;
        if (Trapezoidal) {
          const GatherEntryTt t = entriesTt[i];
          f.rowNear = t.rowNear;
          f.slopeNear = t.slopeNear;
          f.rowFar = t.rowFar;
          f.slopeFar = t.slopeFar;
        }
        int zLo, zHi;
        slicesNearRow<Trapezoidal>(f, row, s.nz, zLo, zHi);
        const float* voxels = volume + std::int64_t(e.column) * s.nz;
        float h = 0.0f;
        for (int iz = zLo; iz <= zHi; ++iz) {
          int ref;
          const Trapezoid t = axialFootprint<Trapezoidal>(f, iz, ref);
          const float f2 = cellAverage(t, row - ref);
          if (f2 != 0.0f) h += f2 * __ldg(voxels + iz);
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
__global__ void backGatherKernel(const float* __restrict__ scaled,
                                 const SfGpuView* __restrict__ views,
                                 const std::int32_t* __restrict__ chunkStart,
                                 const std::int32_t* __restrict__ chunkViews, SfGpuShape s,
                                 float* __restrict__ volume, int* overflow) {
  const int ix = blockIdx.x * blockDim.x + threadIdx.x;
  const int iy = blockIdx.y * blockDim.y + threadIdx.y;
  if (ix >= s.nx || iy >= s.ny) return;
  const int chunk = blockIdx.z, z0 = chunk * Slices;
  const std::int64_t pixels = std::int64_t(s.rows) * s.cols;
  float sum[Slices];
#pragma unroll
  for (int j = 0; j < Slices; ++j) sum[j] = 0.0f;
  for (int e = chunkStart[chunk]; e < chunkStart[chunk + 1]; ++e) {
    const int k = chunkViews[e];
    const ColumnFootprint f = columnFootprint(views[k], ix, iy, s);
    if (f.first > f.last) continue;
    if (f.last - f.first >= Cells) {
      atomicOr(overflow, 1);
      continue;
    }
    float w[Cells];
#pragma unroll
    for (int c = 0; c < Cells; ++c)
      w[c] = f.first + c <= f.last ? transaxialWeight(f, f.first + c) : 0.0f;
    const float* y = scaled + std::int64_t(k) * pixels + f.first;
#pragma unroll
    for (int j = 0; j < Slices; ++j) {
      const int iz = z0 + j;
      if (iz >= s.nz) break;
      int ref;
      const Trapezoid t = axialFootprint<Trapezoidal>(f, iz, ref);
      const int l0 = max(0, ref + cellOf(t.t0)), l1 = min(s.rows - 1, ref + cellOf(t.t3));
      float acc = 0.0f;
      for (int l = l0; l <= l1; ++l) {
        const float f2 = cellAverage(t, l - ref);
        if (f2 == 0.0f) continue;
        const float* line = y + std::int64_t(l) * s.cols;
        float h = 0.0f;
#pragma unroll
        for (int c = 0; c < Cells; ++c)
          if (f.first + c <= f.last) h += w[c] * __ldg(line + c);
        acc += f2 * h;
      }
      sum[j] += acc;
    }
  }
#pragma unroll
  for (int j = 0; j < Slices; ++j) {
    const int iz = z0 + j;
    if (iz < s.nz) volume[(std::int64_t(iz) * s.ny + iy) * s.nx + ix] += sum[j];
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
  const dim3 grid(shape.cols, count, (shape.rows + kGatherThreads - 1) / kGatherThreads);
  if (shape.trapezoid)
    forwardGatherKernel<true>
        <<<grid, kGatherThreads, 0, stream>>>(volumeZFirst, views, outView, shape, out, overflow);
  else
    forwardGatherKernel<false>
        <<<grid, kGatherThreads, 0, stream>>>(volumeZFirst, views, outView, shape, out, overflow);
  TOMOWB_CUDA_CHECK(cudaGetLastError(), "separable-footprint forward (gather)");
}

void launchTransposeToZFirst(const float* volume, float* zFirst, const SfGpuShape& shape,
                             cudaStream_t stream) {
  const dim3 grid((shape.nx + 31) / 32, (shape.nz + 31) / 32, shape.ny);
  transposeKernel<<<grid, dim3(32, 8), 0, stream>>>(volume, zFirst, shape);
  TOMOWB_CUDA_CHECK(cudaGetLastError(), "separable-footprint forward (z-first copy)");
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
    if (sliceChunk == 4)
      launch(std::integral_constant<int, 4>{});
    else if (sliceChunk == 16)
      launch(std::integral_constant<int, 16>{});
    else
      launch(std::integral_constant<int, 8>{});
  });
}

}  // namespace tomowb::cuda::sfgpu
