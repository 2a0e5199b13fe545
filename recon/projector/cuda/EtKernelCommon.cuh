// Shared by the GPU ET kernels' translation units (EtSliceKernels.cu, EtVolumeKernels.cu,
// EtPackKernels.cu): block shapes, residual norms, the epilogues, geometry helpers and texel
// fetches, moved unchanged out of EtKernels.cu (issue #18, point 5). Device code only; each .cu
// gets its own copy (an anonymous namespace), as when they were one file.
#pragma once

#include <cuda_fp16.h>

#include <cstdint>

#include "recon/projector/cuda/EtKernels.cuh"

namespace tomowb::cuda::et {

namespace {

// Block shapes. Seed 004: 32 rays x 16 views (forward) and 16 x 32 voxels (backward); ours:
// 32 rays x `angles` views and 32 x 8 voxels, several texels per thread. Measured on the H100
// (bench/results/2026-11-23-h100-sirt-et.md): 4, 8 or 16 views per block within 3 %; one half2
// texel per forward thread and two per backprojection thread fastest.
constexpr int kSeedRays = 32, kSeedViews = 16;
constexpr int kSeedTileX = 16, kSeedTileY = 32;
constexpr int kTileX = 32, kTileY = 8;
// Slices per thread of the matched slice kernels (one position, four slices).
constexpr int kMatchedSlices = 4;
// Voxels along z per thread of the 3-D backprojectors.
constexpr int kVolumeZ = kVolumeZPerThread;

__host__ __device__ inline int ceilDiv(int a, int b) {
  return (a + b - 1) / b;
}

// ---- residual norms
// ------------------------------------------------------------------------------

__device__ inline double warpSum(double v) {
  for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_down_sync(0xffffffffu, v, offset);
  return v;
}

// Adds the block's r2 and w2 into norms[0..1]: one atomic per block. Every thread must call it.
__device__ void blockAddNorms(double r2, double w2, double* norms) {
  __shared__ double partial[2][32];
  const int thread = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  const int lane = thread & 31, warp = thread >> 5;
  const int warps = (blockDim.x * blockDim.y * blockDim.z + 31) >> 5;
  r2 = warpSum(r2);
  w2 = warpSum(w2);
  if (lane == 0) {
    partial[0][warp] = r2;
    partial[1][warp] = w2;
  }
  __syncthreads();
  if (warp == 0) {
    r2 = lane < warps ? partial[0][lane] : 0.0;
    w2 = lane < warps ? partial[1][lane] : 0.0;
    r2 = warpSum(r2);
    w2 = warpSum(w2);
    if (lane == 0) {
      atomicAdd(norms, r2);
      atomicAdd(norms + 1, w2);
    }
  }
}

// ---- epilogues -------------------------------------------------------------------------------

// Rows row0 .. row0+N-1 of (slot, col) get the weighted sums (FpEpilogue).
template <int N>
__device__ inline void fpFinish(const FpEpilogue& e, const SlabDims& d, int slot, int col, int row0,
                                bool active, const float (&sums)[N], float weight) {
  double r2 = 0.0, w2 = 0.0;
  if (active) {
#pragma unroll
    for (int n = 0; n < N; ++n) {
      const int row = row0 + n;
      if (row >= d.rows) break;
      float s = sums[n] * weight;
      if (e.invScale) s *= e.invScale[row];
      const std::size_t idx = (std::size_t(slot) * d.rows + row) * d.cols + col;
      if (!e.first || !e.last) {  // a ray walked in segments by several launches
        const float total = e.first ? sums[n] : __fadd_rn(e.out[idx], sums[n]);
        if (!e.last) {
          e.out[idx] = total;
          continue;
        }
        s = total * weight;
        if (e.invScale) s *= e.invScale[row];
      }
      if (!e.data) {
        e.out[idx] = s;
        continue;
      }
      const double diff = double(e.data[idx]) - double(s);
      const double rw = e.rowWeights[e.rowWeightsPerRow ? idx : std::size_t(slot) * d.cols + col];
      r2 += diff * diff;
      w2 += rw * diff * diff;
      e.out[idx] = float(diff * rw);
    }
  }
  if (e.norms) blockAddNorms(r2, w2, e.norms);
}

// std::clamp's semantics (a NaN stays NaN).
__device__ inline float clampTo(float x, float lo, float hi) {
  return x < lo ? lo : (hi < x ? hi : x);
}

// Returns the voxel's new value in update mode (0 otherwise).
__device__ inline float bpFinish(const BpEpilogue& e, std::size_t idx, std::size_t idx2,
                                 float sum) {
  const float total = e.first ? sum : __fadd_rn(e.partial[idx], sum);
  if (!e.last) {
    e.partial[idx] = total;
    return 0.0f;
  }
  if (!e.update) {
    e.volume[idx] = __fadd_rn(e.volume[idx], total);
    return 0.0f;
  }
  const float c = e.columnWeights[e.columnWeightsPerSlice ? idx : idx2];
  float x = clampTo(__fadd_rn(e.volume[idx], __fmul_rn(c, total)), e.lower, e.upper);
  if (e.mask && e.mask[idx] == 0) x = 0.0f;
  e.volume[idx] = x;
  return x;
}

// ---- shared geometry helpers -----------------------------------------------------------------

// Planes p in [first, last] whose sample p0 + p g can lie in (lo, hi), with a plane of slack
// either way (the taps check their own bounds): the CPU's clipPlanes in float.
__device__ inline void clipPlanes(float p0, float g, float lo, float hi, int& first, int& last) {
  if (fabsf(g) < 1e-20f) {
    if (!(p0 > lo && p0 < hi)) last = first - 1;
    return;
  }
  float t0 = (lo - p0) / g, t1 = (hi - p0) / g;
  if (t0 > t1) {
    const float t = t0;
    t0 = t1;
    t1 = t;
  }
  t0 = fminf(fmaxf(t0, -1e8f), 1e8f);
  t1 = fminf(fmaxf(t1, -1e8f), 1e8f);
  first = max(first, int(floorf(t0)) - 1);
  last = min(last, int(ceilf(t1)) + 1);
}

// The matched pair's positions: the same rounded operations in the forward and the gather.
__device__ __forceinline__ float slicePlanePosition(const SliceFpView& v, int col, int plane) {
  return __fmaf_rn(float(plane), v.planeStep, __fmaf_rn(float(col), v.rayStep, v.rayOffset));
}

__device__ __forceinline__ void volumePlanePosition(const VolumeFpView& v, int col, int row,
                                                    int plane, float& qb, float& qc) {
  const float fc = float(col), fr = float(row), fp = float(plane);
  qb = __fmaf_rn(fp, v.gb, __fmaf_rn(fr, v.pbr, __fmaf_rn(fc, v.pbc, v.pb0)));
  qc = __fmaf_rn(fp, v.gc, __fmaf_rn(fr, v.pcr, __fmaf_rn(fc, v.pcc, v.pc0)));
}

struct Taps {
  int t0;
  float w0, w1;  // weights of taps t0 and t0 + 1
};

__device__ __forceinline__ Taps linearTaps(float q) {
  const float fl = floorf(q);
  Taps t;
  t.t0 = int(fl);
  t.w1 = __fsub_rn(q, fl);
  t.w0 = __fsub_rn(1.0f, t.w1);
  return t;
}

// The weight of tap `target` in `t` (0 if it is neither tap).
__device__ __forceinline__ float tapWeight(const Taps& t, int target) {
  return t.t0 == target ? t.w0 : (t.t0 + 1 == target ? t.w1 : 0.0f);
}

// A slice ray walked with a texture: coordinates (x0 + p dx, y0 + p dy) of plane p, texel
// centres at +0.5.
struct SliceRay {
  float x0, dx, y0, dy;
  int first, last;
};

__device__ inline SliceRay sliceRay(const SliceFpView& v, int col, int nx, int ny) {
  const float base = __fmaf_rn(float(col), v.rayStep, v.rayOffset);
  SliceRay r;
  r.first = 0;
  if (v.axis == 0) {
    r.last = nx - 1;
    clipPlanes(base, v.planeStep, -1.0f, float(ny), r.first, r.last);
    r.x0 = 0.5f;
    r.dx = 1.0f;
    r.y0 = base + 0.5f;
    r.dy = v.planeStep;
  } else {
    r.last = ny - 1;
    clipPlanes(base, v.planeStep, -1.0f, float(nx), r.first, r.last);
    r.x0 = base + 0.5f;
    r.dx = v.planeStep;
    r.y0 = 0.5f;
    r.dy = 1.0f;
  }
  return r;
}

template <int G>
__device__ __forceinline__ void fetchTexel(cudaTextureObject_t t, float x, float y, int layer,
                                           float* out) {
  if constexpr (G == 1) {
    out[0] = tex2DLayered<float>(t, x, y, layer);
  } else if constexpr (G == 2) {
    const float2 v = tex2DLayered<float2>(t, x, y, layer);
    out[0] = v.x;
    out[1] = v.y;
  } else {
    const float4 v = tex2DLayered<float4>(t, x, y, layer);
    out[0] = v.x;
    out[1] = v.y;
    out[2] = v.z;
    out[3] = v.w;
  }
}

int gridBlocks(std::size_t count, int threads) {
  const std::size_t blocks = (count + threads - 1) / threads;
  return int(blocks < 65536 ? (blocks ? blocks : 1) : 65536);
}

}  // namespace

}  // namespace tomowb::cuda::et
