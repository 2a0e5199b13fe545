// The iterative algorithms' GPU projectors (EtKernels.cuh): seed 004's forward-projection
// orderings, our multi-slice texture kernels, the matched software pair, and the 3-D kernels of
// the general path. Positions are float32; the matched pair evaluates them with explicitly
// rounded operations (__fmaf_rn, __fsub_rn, __fmul_rn) in shared helpers, so the forward
// projector and the gather backprojector compute the same weights bit for bit and are each
// other's transpose up to the rounding of the sums.
#include <cuda_fp16.h>

#include <cstdint>

#include "recon/cuda/EtKernels.cuh"

namespace tomowb::cuda::et {

namespace {

__constant__ SliceFpView cSliceFp[kSliceViewsPerLaunch];
__constant__ SliceBpView cSliceBp[kSliceViewsPerLaunch];
__constant__ VolumeFpView cVolumeFp[kVolumeViewsPerLaunch];
__constant__ VolumeBpView cVolumeBp[kVolumeViewsPerLaunch];

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

// ---- slice forward projectors ----------------------------------------------------------------

template <int kOrdering>
__global__ void __launch_bounds__(kSeedRays* kSeedViews)
    sliceForwardSeed(cudaTextureObject_t volume, SlabDims d, int count, int segmentPlanes,
                     FpEpilogue e) {
  int col = 0, k = 0;
  if (kOrdering == 0) {  // unordered: spread over the detector and the views
    col = int(threadIdx.x) * int(gridDim.x) + int(blockIdx.x);
    k = int(threadIdx.y) * int(gridDim.y) + int(blockIdx.y);
  } else if (kOrdering == 1) {  // ray strips, views spread
    col = int(blockIdx.x) * kSeedRays + int(threadIdx.x);
    k = int(threadIdx.y) * int(gridDim.y) + int(blockIdx.y);
  } else {  // strips x consecutive views (and segments)
    col = int(blockIdx.x) * kSeedRays + int(threadIdx.x);
    k = int(blockIdx.y) * kSeedViews + int(threadIdx.y);
  }
  const int slice = int(blockIdx.z);
  const bool active = col < d.cols && k < count;
  const SliceFpView v = cSliceFp[active ? k : 0];
  const SliceRay ray = sliceRay(v, col, d.nx, d.ny);
  const int last = active ? ray.last : ray.first - 1;
  float sum = 0.0f;
  if (kOrdering == 3) {
    const int planes = max(d.nx, d.ny);
    for (int s0 = 0; s0 < planes; s0 += segmentPlanes) {
      const int hi = min(last, s0 + segmentPlanes - 1);
      for (int p = max(ray.first, s0); p <= hi; ++p)
        sum += tex2DLayered<float>(volume, fmaf(float(p), ray.dx, ray.x0),
                                   fmaf(float(p), ray.dy, ray.y0), slice);
      __syncthreads();
    }
  } else {
    for (int p = ray.first; p <= last; ++p)
      sum += tex2DLayered<float>(volume, fmaf(float(p), ray.dx, ray.x0),
                                 fmaf(float(p), ray.dy, ray.y0), slice);
  }
  const float sums[1] = {sum};
  fpFinish<1>(e, d, v.slot, col, slice, active, sums, v.weight);
}

template <int G, int P>
__global__ void __launch_bounds__(512)
    sliceForwardFast(cudaTextureObject_t volume, SlabDims d, int count, int layers,
                     int segmentPlanes, FpEpilogue e) {
  const int col = int(blockIdx.x) * kSeedRays + int(threadIdx.x);
  const int k = int(blockIdx.y) * int(blockDim.y) + int(threadIdx.y);
  const int layer0 = int(blockIdx.z) * P;
  const bool active = col < d.cols && k < count;
  const SliceFpView v = cSliceFp[active ? k : 0];
  SliceRay ray = sliceRay(v, col, d.nx, d.ny);
  ray.first = max(ray.first, e.planeFirst);
  const int last = active ? min(ray.last, e.planeLast) : ray.first - 1;
  int layer[P];
#pragma unroll
  for (int l = 0; l < P; ++l) layer[l] = min(layer0 + l, layers - 1);
  float acc[P * G];
#pragma unroll
  for (int n = 0; n < P * G; ++n) acc[n] = 0.0f;
  const auto walk = [&](int lo, int hi) {
#pragma unroll 2
    for (int p = lo; p <= hi; ++p) {
      const float x = fmaf(float(p), ray.dx, ray.x0), y = fmaf(float(p), ray.dy, ray.y0);
#pragma unroll
      for (int l = 0; l < P; ++l) {
        float t[G];
        fetchTexel<G>(volume, x, y, layer[l], t);
#pragma unroll
        for (int g = 0; g < G; ++g) acc[l * G + g] += t[g];
      }
    }
  };
  if (segmentPlanes <= 0) {
    walk(ray.first, last);
  } else {
    const int planes = max(d.nx, d.ny);
    for (int s0 = 0; s0 < planes; s0 += segmentPlanes) {
      walk(max(ray.first, s0), min(last, s0 + segmentPlanes - 1));
      __syncthreads();
    }
  }
  fpFinish<P * G>(e, d, v.slot, col, layer0 * G, active, acc, v.weight);
}

__global__ void __launch_bounds__(kTileX* kTileY)
    sliceForwardMatched(const float* __restrict__ volume, SlabDims d, int count, FpEpilogue e) {
  const int col = int(blockIdx.x) * kTileX + int(threadIdx.x);
  const int k = int(blockIdx.y) * kTileY + int(threadIdx.y);
  const int slice0 = int(blockIdx.z) * kMatchedSlices;
  const bool active = col < d.cols && k < count;
  const SliceFpView v = cSliceFp[active ? k : 0];
  const int na = v.axis == 0 ? d.nx : d.ny, nb = v.axis == 0 ? d.ny : d.nx;
  // Plane p, tap t: voxel (i, j) = (p, t) or (t, p).
  const std::size_t planeStride = v.axis == 0 ? 1 : std::size_t(d.nx);
  const std::size_t tapStride = v.axis == 0 ? std::size_t(d.nx) : 1;
  const std::size_t sliceStride = std::size_t(d.nx) * d.ny;
  int first = 0, last = na - 1;
  clipPlanes(__fmaf_rn(float(col), v.rayStep, v.rayOffset), v.planeStep, -1.0f, float(nb), first,
             last);
  if (!active) last = first - 1;
  const int slices = min(kMatchedSlices, d.slices - slice0);
  const float* base = volume + std::size_t(slice0) * sliceStride;
  float acc[kMatchedSlices] = {0.0f, 0.0f, 0.0f, 0.0f};
  for (int p = first; p <= last; ++p) {
    const Taps t = linearTaps(slicePlanePosition(v, col, p));
    const bool in0 = t.t0 >= 0 && t.t0 < nb, in1 = t.t0 + 1 >= 0 && t.t0 + 1 < nb;
    if (!in0 && !in1) continue;
    const float* at = base + std::size_t(p) * planeStride +
                      std::ptrdiff_t(t.t0) * static_cast<std::ptrdiff_t>(tapStride);
#pragma unroll
    for (int s = 0; s < kMatchedSlices; ++s) {
      if (s >= slices) break;
      const float* q = at + s * sliceStride;
      const float a = in0 ? __ldg(q) : 0.0f;
      const float b = in1 ? __ldg(q + tapStride) : 0.0f;
      acc[s] = __fadd_rn(acc[s], __fadd_rn(__fmul_rn(t.w0, a), __fmul_rn(t.w1, b)));
    }
  }
  fpFinish<kMatchedSlices>(e, d, v.slot, col, slice0, active, acc, v.weight);
}

// ---- slice backprojectors --------------------------------------------------------------------

__global__ void __launch_bounds__(kSeedTileX* kSeedTileY)
    sliceBackVoxel(cudaTextureObject_t residual, SlabDims d, int count, BpEpilogue e) {
  const int i = int(blockIdx.x) * kSeedTileX + int(threadIdx.x);
  const int j = int(blockIdx.y) * kSeedTileY + int(threadIdx.y);
  const int slice = int(blockIdx.z);
  if (i >= d.nx || j >= d.ny) return;
  const float fi = float(i), fj = float(j);
  float sum = 0.0f;
  for (int k = 0; k < count; ++k) {
    const SliceBpView v = cSliceBp[k];
    const float c = fmaf(v.cx, fi, fmaf(v.cy, fj, v.c0));
    sum = fmaf(v.weight, tex2DLayered<float>(residual, c + 0.5f, float(v.slot) + 0.5f, slice), sum);
  }
  if (e.invScale) sum *= e.invScale[slice];
  const std::size_t idx2 = std::size_t(j) * d.nx + i;
  bpFinish(e, std::size_t(slice) * d.nx * d.ny + idx2, idx2, sum);
}

template <int G, int P>
__global__ void __launch_bounds__(kTileX* kTileY)
    sliceBackFast(cudaTextureObject_t residual, SlabDims d, int count, int layers, BpEpilogue e) {
  const int i = int(blockIdx.x) * kTileX + int(threadIdx.x);
  const int j = int(blockIdx.y) * kTileY + int(threadIdx.y);
  const int layer0 = int(blockIdx.z) * P;
  // No early return: the warps reduce the slices' maxima together (sliceMaxBits).
  const bool inside = i < d.nx && j < d.ny;
  int layer[P];
#pragma unroll
  for (int l = 0; l < P; ++l) layer[l] = min(layer0 + l, layers - 1);
  float acc[P * G];
#pragma unroll
  for (int n = 0; n < P * G; ++n) acc[n] = 0.0f;
  const float fi = float(i), fj = float(j);
#pragma unroll 2
  for (int k = 0; k < (inside ? count : 0); ++k) {
    const SliceBpView v = cSliceBp[k];
    const float c = fmaf(v.cx, fi, fmaf(v.cy, fj, v.c0)) + 0.5f;
    const float y = float(v.slot) + 0.5f;
#pragma unroll
    for (int l = 0; l < P; ++l) {
      float t[G];
      fetchTexel<G>(residual, c, y, layer[l], t);
#pragma unroll
      for (int g = 0; g < G; ++g) acc[l * G + g] = fmaf(v.weight, t[g], acc[l * G + g]);
    }
  }
  const std::size_t idx2 = std::size_t(j) * d.nx + i;
  const bool maxima = e.sliceMaxBits && e.update && e.last;
  __shared__ unsigned blockMax[P * G];
  if (maxima) {
    const int t = int(threadIdx.x + blockDim.x * threadIdx.y);
    if (t < P * G) blockMax[t] = 0;
    __syncthreads();
  }
#pragma unroll
  for (int n = 0; n < P * G; ++n) {
    const int slice = layer0 * G + n;
    if (slice >= d.slices) break;
    float x = 0.0f;
    if (inside) {
      float s = acc[n];
      if (e.invScale) s *= e.invScale[slice];
      x = bpFinish(e, std::size_t(slice) * d.nx * d.ny + idx2, idx2, s);
    }
    if (maxima) {
      // A block is 32 x 8 voxels of the same slices: reduce over the warp, then the block in
      // shared memory, then one global atomic per block and slice (per-warp atomics on one
      // address per slice serialised in L2 and cost a third of an OS-SIRT sweep).
      const float a = fabsf(x);
      const unsigned bits = __reduce_max_sync(0xffffffffu, a == a ? __float_as_uint(a) : 0u);
      if ((threadIdx.x & 31) == 0 && bits) atomicMax(&blockMax[n], bits);
    }
  }
  if (maxima) {
    __syncthreads();
    const int t = int(threadIdx.x + blockDim.x * threadIdx.y);
    if (t < P * G && layer0 * G + t < d.slices && blockMax[t])
      atomicMax(e.sliceMaxBits + layer0 * G + t, blockMax[t]);
  }
}

// Gather transpose of sliceForwardMatched (reads the forward table cSliceFp).
__global__ void __launch_bounds__(kTileX* kTileY)
    sliceBackMatched(const float* __restrict__ residual, SlabDims d, int count, BpEpilogue e) {
  const int i = int(blockIdx.x) * kTileX + int(threadIdx.x);
  const int j = int(blockIdx.y) * kTileY + int(threadIdx.y);
  const int slice0 = int(blockIdx.z) * kMatchedSlices;
  if (i >= d.nx || j >= d.ny) return;
  const int slices = min(kMatchedSlices, d.slices - slice0);
  const std::size_t rowStride = std::size_t(d.cols);
  float acc[kMatchedSlices] = {0.0f, 0.0f, 0.0f, 0.0f};
  for (int k = 0; k < count; ++k) {
    const SliceFpView v = cSliceFp[k];
    const int plane = v.axis == 0 ? i : j, target = v.axis == 0 ? j : i;
    // Columns whose sample on this plane lies within one voxel of `target`, with slack.
    const float base = fmaf(float(plane), v.planeStep, v.rayOffset);
    float c0 = (float(target) - 1.0f - base) / v.rayStep;
    float c1 = (float(target) + 1.0f - base) / v.rayStep;
    if (c0 > c1) {
      const float t = c0;
      c0 = c1;
      c1 = t;
    }
    c0 = fminf(fmaxf(c0, -2.0f), float(d.cols) + 1.0f);
    c1 = fminf(fmaxf(c1, -2.0f), float(d.cols) + 1.0f);
    const int cFirst = max(0, int(floorf(c0)) - 1), cLast = min(d.cols - 1, int(ceilf(c1)) + 1);
    const float* row = residual + (std::size_t(v.slot) * d.rows + slice0) * rowStride;
    for (int c = cFirst; c <= cLast; ++c) {
      const float w = tapWeight(linearTaps(slicePlanePosition(v, c, plane)), target);
      if (w == 0.0f) continue;
      const float ww = __fmul_rn(w, v.weight);
#pragma unroll
      for (int s = 0; s < kMatchedSlices; ++s) {
        if (s >= slices) break;
        acc[s] = __fadd_rn(acc[s], __fmul_rn(ww, __ldg(row + s * rowStride + c)));
      }
    }
  }
  const std::size_t idx2 = std::size_t(j) * d.nx + i;
  for (int s = 0; s < slices; ++s) {
    float sum = acc[s];
    if (e.invScale) sum *= e.invScale[slice0 + s];
    bpFinish(e, std::size_t(slice0 + s) * d.nx * d.ny + idx2, idx2, sum);
  }
}

// ---- packing into textures -------------------------------------------------------------------

template <Texel kTexel>
__device__ inline void writeTexel(cudaSurfaceObject_t s, int x, int y, int layer, const float* v) {
  if constexpr (kTexel == Texel::Float) {
    surf2DLayeredwrite(v[0], s, x * 4, y, layer);
  } else if constexpr (kTexel == Texel::Float2) {
    surf2DLayeredwrite(make_float2(v[0], v[1]), s, x * 8, y, layer);
  } else if constexpr (kTexel == Texel::Float4) {
    surf2DLayeredwrite(make_float4(v[0], v[1], v[2], v[3]), s, x * 16, y, layer);
  } else {
    const __half2 h = __floats2half2_rn(v[0], v[1]);
    surf2DLayeredwrite(*reinterpret_cast<const unsigned*>(&h), s, x * 4, y, layer);
  }
}

template <Texel kTexel, int G>
__global__ void packSlices(const float* __restrict__ volume, SlabDims d, const float* scale,
                           cudaSurfaceObject_t surface) {
  const int i = int(blockIdx.x) * kTileX + int(threadIdx.x);
  const int j = int(blockIdx.y) * kTileY + int(threadIdx.y);
  const int layer = int(blockIdx.z);
  if (i >= d.nx || j >= d.ny) return;
  float v[4] = {0.0f, 0.0f, 0.0f, 0.0f};
#pragma unroll
  for (int g = 0; g < G; ++g) {
    const int s = layer * G + g;
    if (s < d.slices) {
      v[g] = volume[(std::size_t(s) * d.ny + j) * d.nx + i];
      if (scale) v[g] *= scale[s];
    }
  }
  writeTexel<kTexel>(surface, i, j, layer, v);
}

template <Texel kTexel, int G>
__global__ void packRows(const float* __restrict__ sinogram, SlabDims d, const int* slots,
                         int slotCount, const float* scale, cudaSurfaceObject_t surface) {
  const int col = int(blockIdx.x) * 128 + int(threadIdx.x);
  const int n = int(blockIdx.y);
  const int layer = int(blockIdx.z);
  if (col >= d.cols || n >= slotCount) return;
  const int slot = slots[n];
  float v[4] = {0.0f, 0.0f, 0.0f, 0.0f};
#pragma unroll
  for (int g = 0; g < G; ++g) {
    const int r = layer * G + g;
    if (r < d.rows) {
      v[g] = sinogram[(std::size_t(slot) * d.rows + r) * d.cols + col];
      if (scale) v[g] *= scale[r];
    }
  }
  writeTexel<kTexel>(surface, col, slot, layer, v);
}

// ---- maxima and weights ----------------------------------------------------------------------

__device__ inline unsigned blockMaxBits(unsigned bits) {
  __shared__ unsigned partial[32];
  for (int offset = 16; offset > 0; offset >>= 1)
    bits = max(bits, __shfl_down_sync(0xffffffffu, bits, offset));
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  if (lane == 0) partial[warp] = bits;
  __syncthreads();
  bits = 0;
  if (warp == 0) {
    bits = lane < int(blockDim.x >> 5) ? partial[lane] : 0u;
    for (int offset = 16; offset > 0; offset >>= 1)
      bits = max(bits, __shfl_down_sync(0xffffffffu, bits, offset));
  }
  return bits;
}

__global__ void maxAbs(const float* __restrict__ data, std::size_t count, unsigned* maxBits) {
  unsigned bits = 0;
  for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
       i += std::size_t(gridDim.x) * blockDim.x) {
    const float a = fabsf(data[i]);
    if (a == a) bits = max(bits, __float_as_uint(a));  // NaN never becomes the largest
  }
  bits = blockMaxBits(bits);
  if (threadIdx.x == 0 && bits) atomicMax(maxBits, bits);
}

// grid (blocks per slice, slices)
__global__ void sliceMaxAbs(const float* __restrict__ volume, int sliceSize, unsigned* maxBits) {
  const float* slice = volume + std::size_t(blockIdx.y) * sliceSize;
  unsigned bits = 0;
  for (int i = int(blockIdx.x) * blockDim.x + threadIdx.x; i < sliceSize;
       i += gridDim.x * blockDim.x) {
    const float a = fabsf(slice[i]);
    if (a == a) bits = max(bits, __float_as_uint(a));
  }
  bits = blockMaxBits(bits);
  if (threadIdx.x == 0 && bits) atomicMax(maxBits + blockIdx.y, bits);
}

// grid (blocks, rows): row blockIdx.y of every listed slot
__global__ void rowMaxAbs(const float* __restrict__ sinogram, SlabDims d, const int* slots,
                          int slotCount, unsigned* maxBits) {
  const int row = int(blockIdx.y);
  const long long total = static_cast<long long>(slotCount) * d.cols;
  unsigned bits = 0;
  for (long long n = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; n < total;
       n += static_cast<long long>(gridDim.x) * blockDim.x) {
    const int slot = slots[n / d.cols], col = int(n % d.cols);
    const float a = fabsf(sinogram[(std::size_t(slot) * d.rows + row) * d.cols + col]);
    if (a == a) bits = max(bits, __float_as_uint(a));
  }
  bits = blockMaxBits(bits);
  if (threadIdx.x == 0 && bits) atomicMax(maxBits + row, bits);
}

__global__ void halfScales(const unsigned* maxBits, int count, float* scale, float* invScale) {
  const int i = int(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= count) return;
  const float m = __uint_as_float(maxBits[i]);
  int e = 0;
  if (m > 0.0f && isfinite(m)) frexpf(m, &e);
  scale[i] = ldexpf(1.0f, -e);
  invScale[i] = ldexpf(1.0f, e);
}

__global__ void invertSums(float* data, std::size_t count, const unsigned* maxBits, double scale) {
  const double threshold = 1e-6 * double(__uint_as_float(*maxBits));
  for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
       i += std::size_t(gridDim.x) * blockDim.x) {
    const double s = data[i];
    data[i] = s > threshold && s > 0 ? float(scale / s) : 0.0f;
  }
}

__global__ void fill(float* data, std::size_t count, float value) {
  for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
       i += std::size_t(gridDim.x) * blockDim.x)
    data[i] = value;
}

__global__ void maskToFloat(const unsigned char* mask, std::size_t count, float* out) {
  for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
       i += std::size_t(gridDim.x) * blockDim.x)
    out[i] = mask[i] != 0 ? 1.0f : 0.0f;
}

// ---- volume (3-D) kernels --------------------------------------------------------------------

// Slices of the whole volume (SlabDims::volumeSlices; 0: the slab is the volume).
__device__ inline int volumeSlicesOf(const SlabDims& d) {
  return d.volumeSlices > 0 ? d.volumeSlices : d.slices;
}

// Per view: the dominant axis a, the two others b < c, their sizes in the whole volume and their
// strides in the slab. z is a (planes of constant z) or c, never b.
struct VolumeAxes {
  int a, b, c;
  int na, nb, nc;
  std::size_t sa, sb, sc;
};

__device__ inline VolumeAxes volumeAxes(int axis, const SlabDims& d) {
  const std::size_t sx = 1, sy = std::size_t(d.nx), sz = std::size_t(d.nx) * d.ny;
  const int nz = volumeSlicesOf(d);
  VolumeAxes x;
  x.a = axis;
  if (axis == 0) {
    x.b = 1, x.c = 2, x.na = d.nx, x.nb = d.ny, x.nc = nz, x.sa = sx, x.sb = sy, x.sc = sz;
  } else if (axis == 1) {
    x.b = 0, x.c = 2, x.na = d.ny, x.nb = d.nx, x.nc = nz, x.sa = sy, x.sb = sx, x.sc = sz;
  } else {
    x.b = 0, x.c = 1, x.na = nz, x.nb = d.nx, x.nc = d.ny, x.sa = sz, x.sb = sx, x.sc = sy;
  }
  return x;
}

// The value of world axis `axis` among (dominant, b, c) values.
__device__ __forceinline__ float onAxis(int axis, const VolumeAxes& x, float va, float vb,
                                        float vc) {
  return axis == x.a ? va : (axis == x.b ? vb : vc);
}

// grid (cols / 32, rows / 4, views): one thread per detector pixel.
__global__ void __launch_bounds__(128)
    volumeForwardTex(cudaTextureObject_t volume, SlabDims d, int count, FpEpilogue e) {
  const int col = int(blockIdx.x) * 32 + int(threadIdx.x);
  const int row = int(blockIdx.y) * 4 + int(threadIdx.y);
  const int k = int(blockIdx.z);
  const bool active = col < d.cols && row < d.rows && k < count;
  const VolumeFpView v = cVolumeFp[active ? k : 0];
  const VolumeAxes ax = volumeAxes(v.axis, d);
  const float fc = float(col), fr = float(row);
  const float baseB = fmaf(fr, v.pbr, fmaf(fc, v.pbc, v.pb0));
  const float baseC = fmaf(fr, v.pcr, fmaf(fc, v.pcc, v.pc0));
  int first = 0, last = ax.na - 1;
  clipPlanes(baseB, v.gb, -1.0f, float(ax.nb), first, last);
  clipPlanes(baseC, v.gc, -1.0f, float(ax.nc), first, last);
  // A z-slab: only the planes that can have a tap in it (the others read the zero border).
  const int zLo = d.zFirst, zHi = d.zFirst + d.slices;
  if (zLo > 0 || zHi < volumeSlicesOf(d)) {
    if (ax.a == 2) {
      first = max(first, zLo);
      last = min(last, zHi - 1);
    } else {
      clipPlanes(baseC, v.gc, float(zLo) - 1.0f, float(zHi), first, last);
    }
  }
  if (!active) last = first - 1;
  const float x0 = onAxis(0, ax, 0.5f, baseB + 0.5f, baseC + 0.5f);
  const float y0 = onAxis(1, ax, 0.5f, baseB + 0.5f, baseC + 0.5f);
  const float z0 = onAxis(2, ax, 0.5f, baseB + 0.5f, baseC + 0.5f);
  const float dx = onAxis(0, ax, 1.0f, v.gb, v.gc);
  const float dy = onAxis(1, ax, 1.0f, v.gb, v.gc);
  const float dz = onAxis(2, ax, 1.0f, v.gb, v.gc);
  // The slab's texture starts at slice zFirst. Where a tap lies in the slab the coordinate is at
  // least zFirst - 0.5 and the subtraction of the integer zFirst is exact (Sterbenz, or a
  // multiple of the coordinate's ulp): the texture unit sees the whole volume's fraction.
  const float zShift = float(d.zFirst);
  float sum = 0.0f;
  for (int p = first; p <= last; ++p) {
    const float fp = float(p);
    sum += tex3D<float>(volume, fmaf(fp, dx, x0), fmaf(fp, dy, y0), fmaf(fp, dz, z0) - zShift);
  }
  const float sums[1] = {sum};
  fpFinish<1>(e, d, v.slot, col, row, active, sums, v.weight);
}

__global__ void __launch_bounds__(128)
    volumeForwardMatched(const float* __restrict__ volume, SlabDims d, int count, FpEpilogue e) {
  const int col = int(blockIdx.x) * 32 + int(threadIdx.x);
  const int row = int(blockIdx.y) * 4 + int(threadIdx.y);
  const int k = int(blockIdx.z);
  const bool active = col < d.cols && row < d.rows && k < count;
  const VolumeFpView v = cVolumeFp[active ? k : 0];
  const VolumeAxes ax = volumeAxes(v.axis, d);
  // A z-slab: planes of constant z in the slab, or taps along c (= z) in [cLo, cHi).
  const int zLo = d.zFirst, zHi = d.zFirst + d.slices;
  int first = 0, last = ax.na - 1, cLo = 0, cHi = ax.nc;
  if (ax.a == 2) {
    first = max(first, zLo);
    last = min(last, zHi - 1);
  } else {
    cLo = max(cLo, zLo);
    cHi = min(cHi, zHi);
  }
  const std::size_t zOffset = std::size_t(zLo) * d.nx * d.ny;
  {
    float qb = 0.0f, qc = 0.0f;
    volumePlanePosition(v, col, row, 0, qb, qc);
    clipPlanes(qb, v.gb, -1.0f, float(ax.nb), first, last);
    clipPlanes(qc, v.gc, float(cLo) - 1.0f, float(cHi), first, last);
  }
  if (!active) last = first - 1;
  float sum = 0.0f;
  for (int p = first; p <= last; ++p) {
    float qb = 0.0f, qc = 0.0f;
    volumePlanePosition(v, col, row, p, qb, qc);
    const Taps tb = linearTaps(qb), tc = linearTaps(qc);
    const float wb[2] = {tb.w0, tb.w1}, wc[2] = {tc.w0, tc.w1};
    for (int dc = 0; dc < 2; ++dc) {
      const int ic = tc.t0 + dc;
      if (ic < cLo || ic >= cHi) continue;
      for (int db = 0; db < 2; ++db) {
        const int ib = tb.t0 + db;
        if (ib < 0 || ib >= ax.nb) continue;
        const float w = __fmul_rn(wb[db], wc[dc]);
        sum = __fadd_rn(
            sum, __fmul_rn(w, __ldg(volume + (std::size_t(p) * ax.sa + std::size_t(ib) * ax.sb +
                                              std::size_t(ic) * ax.sc - zOffset))));
      }
    }
  }
  const float sums[1] = {sum};
  fpFinish<1>(e, d, v.slot, col, row, active, sums, v.weight);
}

// grid (nx / 32, ny / 8, nz / kVolumeZ)
__global__ void __launch_bounds__(kTileX* kTileY)
    volumeBackVoxel(cudaTextureObject_t residual, SlabDims d, int count, BpEpilogue e) {
  const int i = int(blockIdx.x) * kTileX + int(threadIdx.x);
  const int j = int(blockIdx.y) * kTileY + int(threadIdx.y);
  const int k0 = int(blockIdx.z) * kVolumeZ;
  if (i >= d.nx || j >= d.ny) return;
  // The voxel's position in the whole volume (a z-slab starts at zFirst).
  const float fi = float(i), fj = float(j), fk = float(d.zFirst + k0);
  float acc[kVolumeZ] = {0.0f, 0.0f, 0.0f, 0.0f};
  for (int l = 0; l < count; ++l) {
    const VolumeBpView v = cVolumeBp[l];
    const float c = fmaf(v.m[0], fi, fmaf(v.m[1], fj, fmaf(v.m[2], fk, v.m[3]))) + 0.5f;
    const float r = fmaf(v.m[4], fi, fmaf(v.m[5], fj, fmaf(v.m[6], fk, v.m[7]))) + 0.5f;
#pragma unroll
    for (int z = 0; z < kVolumeZ; ++z)
      acc[z] = fmaf(
          v.weight,
          tex2DLayered<float>(residual, fmaf(float(z), v.m[2], c), fmaf(float(z), v.m[6], r), l),
          acc[z]);
  }
  const std::size_t idx2 = std::size_t(j) * d.nx + i;
  for (int z = 0; z < kVolumeZ && k0 + z < d.slices; ++z)
    bpFinish(e, std::size_t(k0 + z) * d.nx * d.ny + idx2, idx2, acc[z]);
}

__global__ void gatherViews(const float* __restrict__ sinogram, SlabDims d, int count,
                            cudaSurfaceObject_t surface) {
  const int col = int(blockIdx.x) * 128 + int(threadIdx.x);
  const int row = int(blockIdx.y);
  const int l = int(blockIdx.z);
  if (col >= d.cols || l >= count) return;
  const int slot = cVolumeBp[l].slot;
  surf2DLayeredwrite(sinogram[(std::size_t(slot) * d.rows + row) * d.cols + col], surface, col * 4,
                     row, l);
}

// Gather transpose of volumeForwardMatched (reads the forward table cVolumeFp).
__global__ void __launch_bounds__(kTileX* kTileY)
    volumeBackMatched(const float* __restrict__ residual, SlabDims d, int count, BpEpilogue e) {
  const int i = int(blockIdx.x) * kTileX + int(threadIdx.x);
  const int j = int(blockIdx.y) * kTileY + int(threadIdx.y);
  const int kz = int(blockIdx.z);  // in the slab
  const int k = d.zFirst + kz;     // in the whole volume
  if (i >= d.nx || j >= d.ny) return;
  float sum = 0.0f;
  for (int l = 0; l < count; ++l) {
    const VolumeFpView v = cVolumeFp[l];
    // Dominant axis a, the others b < c (volumeAxes).
    const int plane = v.axis == 0 ? i : (v.axis == 1 ? j : k);
    const int tb = v.axis == 0 ? j : i;
    const int tc = v.axis == 2 ? j : k;
    // Pixels whose sample on this plane lies within one voxel of (tb, tc): a parallelogram in
    // (col, row); its bounding box, with slack.
    const float bb = float(tb) - fmaf(float(plane), v.gb, v.pb0);
    const float bc = float(tc) - fmaf(float(plane), v.gc, v.pc0);
    const float det = v.pbc * v.pcr - v.pbr * v.pcc;
    if (det == 0.0f) continue;
    float cMin = 1e30f, cMax = -1e30f, rMin = 1e30f, rMax = -1e30f;
    for (int s = 0; s < 4; ++s) {
      const float xb = bb + ((s & 1) ? 1.0f : -1.0f), xc = bc + ((s & 2) ? 1.0f : -1.0f);
      const float cc = (v.pcr * xb - v.pbr * xc) / det;
      const float rr = (v.pbc * xc - v.pcc * xb) / det;
      cMin = fminf(cMin, cc);
      cMax = fmaxf(cMax, cc);
      rMin = fminf(rMin, rr);
      rMax = fmaxf(rMax, rr);
    }
    cMin = fminf(fmaxf(cMin, -2.0f), float(d.cols) + 1.0f);
    cMax = fminf(fmaxf(cMax, -2.0f), float(d.cols) + 1.0f);
    rMin = fminf(fmaxf(rMin, -2.0f), float(d.rows) + 1.0f);
    rMax = fminf(fmaxf(rMax, -2.0f), float(d.rows) + 1.0f);
    const int c0 = max(0, int(floorf(cMin)) - 1), c1 = min(d.cols - 1, int(ceilf(cMax)) + 1);
    const int r0 = max(0, int(floorf(rMin)) - 1), r1 = min(d.rows - 1, int(ceilf(rMax)) + 1);
    for (int row = r0; row <= r1; ++row)
      for (int col = c0; col <= c1; ++col) {
        float qb = 0.0f, qc = 0.0f;
        volumePlanePosition(v, col, row, plane, qb, qc);
        const float wb = tapWeight(linearTaps(qb), tb);
        if (wb == 0.0f) continue;
        const float wc = tapWeight(linearTaps(qc), tc);
        if (wc == 0.0f) continue;
        const float w = __fmul_rn(__fmul_rn(wb, wc), v.weight);
        sum = __fadd_rn(
            sum,
            __fmul_rn(w, __ldg(residual + (std::size_t(v.slot) * d.rows + row) * d.cols + col)));
      }
  }
  const std::size_t idx2 = std::size_t(j) * d.nx + i;
  bpFinish(e, std::size_t(kz) * d.nx * d.ny + idx2, idx2, sum);
}

int gridBlocks(std::size_t count, int threads) {
  const std::size_t blocks = (count + threads - 1) / threads;
  return int(blocks < 65536 ? (blocks ? blocks : 1) : 65536);
}

}  // namespace

int texelSlices(Texel t) {
  return t == Texel::Float ? 1 : t == Texel::Float4 ? 4 : 2;
}

int texelBytes(Texel t) {
  return t == Texel::Float ? 4 : t == Texel::Float2 ? 8 : t == Texel::Float4 ? 16 : 4;
}

void setSliceFpViews(const SliceFpView* deviceTable, int count, cudaStream_t stream) {
  cudaMemcpyToSymbolAsync(cSliceFp, deviceTable, std::size_t(count) * sizeof(SliceFpView), 0,
                          cudaMemcpyDeviceToDevice, stream);
}
void setSliceBpViews(const SliceBpView* deviceTable, int count, cudaStream_t stream) {
  cudaMemcpyToSymbolAsync(cSliceBp, deviceTable, std::size_t(count) * sizeof(SliceBpView), 0,
                          cudaMemcpyDeviceToDevice, stream);
}
void setVolumeFpViews(const VolumeFpView* deviceTable, int count, cudaStream_t stream) {
  cudaMemcpyToSymbolAsync(cVolumeFp, deviceTable, std::size_t(count) * sizeof(VolumeFpView), 0,
                          cudaMemcpyDeviceToDevice, stream);
}
void setVolumeBpViews(const VolumeBpView* deviceTable, int count, cudaStream_t stream) {
  cudaMemcpyToSymbolAsync(cVolumeBp, deviceTable, std::size_t(count) * sizeof(VolumeBpView), 0,
                          cudaMemcpyDeviceToDevice, stream);
}

void launchSliceForwardSeed(int ordering, cudaTextureObject_t volume, const SlabDims& d, int count,
                            int segmentPlanes, const FpEpilogue& e, cudaStream_t stream) {
  const dim3 block(kSeedRays, kSeedViews);
  const dim3 grid(ceilDiv(d.cols, kSeedRays), ceilDiv(count, kSeedViews), d.slices);
  switch (ordering) {
    case 0:
      sliceForwardSeed<0><<<grid, block, 0, stream>>>(volume, d, count, segmentPlanes, e);
      break;
    case 1:
      sliceForwardSeed<1><<<grid, block, 0, stream>>>(volume, d, count, segmentPlanes, e);
      break;
    case 2:
      sliceForwardSeed<2><<<grid, block, 0, stream>>>(volume, d, count, segmentPlanes, e);
      break;
    default:
      sliceForwardSeed<3><<<grid, block, 0, stream>>>(volume, d, count,
                                                      segmentPlanes > 0 ? segmentPlanes : 256, e);
      break;
  }
}

template <int G>
void sliceForwardFastG(int layers, int angles, int segmentPlanes, cudaTextureObject_t volume,
                       const SlabDims& d, int count, const FpEpilogue& e, cudaStream_t stream) {
  const int totalLayers = ceilDiv(d.slices, G);
  const dim3 block(kSeedRays, angles);
  const dim3 grid(ceilDiv(d.cols, kSeedRays), ceilDiv(count, angles), ceilDiv(totalLayers, layers));
  if (layers == 1)
    sliceForwardFast<G, 1>
        <<<grid, block, 0, stream>>>(volume, d, count, totalLayers, segmentPlanes, e);
  else if (layers == 2)
    sliceForwardFast<G, 2>
        <<<grid, block, 0, stream>>>(volume, d, count, totalLayers, segmentPlanes, e);
  else
    sliceForwardFast<G, 4>
        <<<grid, block, 0, stream>>>(volume, d, count, totalLayers, segmentPlanes, e);
}

void launchSliceForwardFast(Texel texel, int layers, int angles, int segmentPlanes,
                            cudaTextureObject_t volume, const SlabDims& d, int count,
                            const FpEpilogue& e, cudaStream_t stream) {
  switch (texelSlices(texel)) {
    case 1:
      sliceForwardFastG<1>(layers, angles, segmentPlanes, volume, d, count, e, stream);
      break;
    case 2:
      sliceForwardFastG<2>(layers, angles, segmentPlanes, volume, d, count, e, stream);
      break;
    default:
      sliceForwardFastG<4>(layers, angles, segmentPlanes, volume, d, count, e, stream);
      break;
  }
}

void launchSliceForwardMatched(const float* volume, const SlabDims& d, int count,
                               const FpEpilogue& e, cudaStream_t stream) {
  const dim3 block(kTileX, kTileY);
  const dim3 grid(ceilDiv(d.cols, kTileX), ceilDiv(count, kTileY),
                  ceilDiv(d.slices, kMatchedSlices));
  sliceForwardMatched<<<grid, block, 0, stream>>>(volume, d, count, e);
}

void launchSliceBackVoxel(cudaTextureObject_t residual, const SlabDims& d, int count,
                          const BpEpilogue& e, cudaStream_t stream) {
  const dim3 block(kSeedTileX, kSeedTileY);
  const dim3 grid(ceilDiv(d.nx, kSeedTileX), ceilDiv(d.ny, kSeedTileY), d.slices);
  sliceBackVoxel<<<grid, block, 0, stream>>>(residual, d, count, e);
}

template <int G>
void sliceBackFastG(int layers, cudaTextureObject_t residual, const SlabDims& d, int count,
                    const BpEpilogue& e, cudaStream_t stream) {
  const int totalLayers = ceilDiv(d.slices, G);
  const dim3 block(kTileX, kTileY);
  const dim3 grid(ceilDiv(d.nx, kTileX), ceilDiv(d.ny, kTileY), ceilDiv(totalLayers, layers));
  switch (layers) {
    case 1:
      sliceBackFast<G, 1><<<grid, block, 0, stream>>>(residual, d, count, totalLayers, e);
      break;
    case 2:
      sliceBackFast<G, 2><<<grid, block, 0, stream>>>(residual, d, count, totalLayers, e);
      break;
    case 4:
      sliceBackFast<G, 4><<<grid, block, 0, stream>>>(residual, d, count, totalLayers, e);
      break;
    default:
      sliceBackFast<G, 8><<<grid, block, 0, stream>>>(residual, d, count, totalLayers, e);
      break;
  }
}

void launchSliceBackFast(Texel texel, int layers, cudaTextureObject_t residual, const SlabDims& d,
                         int count, const BpEpilogue& e, cudaStream_t stream) {
  switch (texelSlices(texel)) {
    case 1:
      sliceBackFastG<1>(layers, residual, d, count, e, stream);
      break;
    case 2:
      sliceBackFastG<2>(layers, residual, d, count, e, stream);
      break;
    default:
      sliceBackFastG<4>(layers, residual, d, count, e, stream);
      break;
  }
}

void launchSliceBackMatched(const float* residual, const SlabDims& d, int count,
                            const BpEpilogue& e, cudaStream_t stream) {
  const dim3 block(kTileX, kTileY);
  const dim3 grid(ceilDiv(d.nx, kTileX), ceilDiv(d.ny, kTileY), ceilDiv(d.slices, kMatchedSlices));
  sliceBackMatched<<<grid, block, 0, stream>>>(residual, d, count, e);
}

void launchPackSlices(Texel texel, const float* volume, const SlabDims& d, const float* scale,
                      cudaSurfaceObject_t surface, cudaStream_t stream) {
  const int g = texelSlices(texel);
  const dim3 block(kTileX, kTileY);
  const dim3 grid(ceilDiv(d.nx, kTileX), ceilDiv(d.ny, kTileY), ceilDiv(d.slices, g));
  switch (texel) {
    case Texel::Float:
      packSlices<Texel::Float, 1><<<grid, block, 0, stream>>>(volume, d, nullptr, surface);
      break;
    case Texel::Float2:
      packSlices<Texel::Float2, 2><<<grid, block, 0, stream>>>(volume, d, nullptr, surface);
      break;
    case Texel::Float4:
      packSlices<Texel::Float4, 4><<<grid, block, 0, stream>>>(volume, d, nullptr, surface);
      break;
    case Texel::Half2:
      packSlices<Texel::Half2, 2><<<grid, block, 0, stream>>>(volume, d, scale, surface);
      break;
  }
}

void launchPackRows(Texel texel, const float* sinogram, const SlabDims& d, const int* slots,
                    int slotCount, const float* scale, cudaSurfaceObject_t surface,
                    cudaStream_t stream) {
  if (slotCount < 1) return;
  const int g = texelSlices(texel);
  const dim3 block(128);
  const dim3 grid(ceilDiv(d.cols, 128), slotCount, ceilDiv(d.rows, g));
  switch (texel) {
    case Texel::Float:
      packRows<Texel::Float, 1>
          <<<grid, block, 0, stream>>>(sinogram, d, slots, slotCount, nullptr, surface);
      break;
    case Texel::Float2:
      packRows<Texel::Float2, 2>
          <<<grid, block, 0, stream>>>(sinogram, d, slots, slotCount, nullptr, surface);
      break;
    case Texel::Float4:
      packRows<Texel::Float4, 4>
          <<<grid, block, 0, stream>>>(sinogram, d, slots, slotCount, nullptr, surface);
      break;
    case Texel::Half2:
      packRows<Texel::Half2, 2>
          <<<grid, block, 0, stream>>>(sinogram, d, slots, slotCount, scale, surface);
      break;
  }
}

void launchSliceMaxAbs(const float* volume, const SlabDims& d, unsigned* maxBits,
                       cudaStream_t stream) {
  const int sliceSize = d.nx * d.ny;
  const dim3 grid(std::min(64, ceilDiv(sliceSize, 256 * 8)), d.slices);
  sliceMaxAbs<<<grid, 256, 0, stream>>>(volume, sliceSize, maxBits);
}

void launchRowMaxAbs(const float* sinogram, const SlabDims& d, const int* slots, int slotCount,
                     unsigned* maxBits, cudaStream_t stream) {
  if (slotCount < 1) return;
  const dim3 grid(std::min(64, ceilDiv(slotCount * d.cols, 256 * 8)), d.rows);
  rowMaxAbs<<<grid, 256, 0, stream>>>(sinogram, d, slots, slotCount, maxBits);
}

void launchHalfScales(const unsigned* maxBits, int count, float* scale, float* invScale,
                      cudaStream_t stream) {
  halfScales<<<ceilDiv(count, 256), 256, 0, stream>>>(maxBits, count, scale, invScale);
}

void launchVolumeForwardTex(cudaTextureObject_t volume, const SlabDims& d, int count,
                            const FpEpilogue& e, cudaStream_t stream) {
  const dim3 grid(ceilDiv(d.cols, 32), ceilDiv(d.rows, 4), count);
  volumeForwardTex<<<grid, dim3(32, 4), 0, stream>>>(volume, d, count, e);
}

void launchVolumeForwardMatched(const float* volume, const SlabDims& d, int count,
                                const FpEpilogue& e, cudaStream_t stream) {
  const dim3 grid(ceilDiv(d.cols, 32), ceilDiv(d.rows, 4), count);
  volumeForwardMatched<<<grid, dim3(32, 4), 0, stream>>>(volume, d, count, e);
}

void launchVolumeBackVoxel(cudaTextureObject_t residual, const SlabDims& d, int count,
                           const BpEpilogue& e, cudaStream_t stream) {
  const dim3 grid(ceilDiv(d.nx, kTileX), ceilDiv(d.ny, kTileY), ceilDiv(d.slices, kVolumeZ));
  volumeBackVoxel<<<grid, dim3(kTileX, kTileY), 0, stream>>>(residual, d, count, e);
}

void launchGatherViews(const float* sinogram, const SlabDims& d, int count,
                       cudaSurfaceObject_t surface, cudaStream_t stream) {
  const dim3 grid(ceilDiv(d.cols, 128), d.rows, count);
  gatherViews<<<grid, 128, 0, stream>>>(sinogram, d, count, surface);
}

void launchVolumeBackMatched(const float* residual, const SlabDims& d, int count,
                             const BpEpilogue& e, cudaStream_t stream) {
  const dim3 grid(ceilDiv(d.nx, kTileX), ceilDiv(d.ny, kTileY), d.slices);
  volumeBackMatched<<<grid, dim3(kTileX, kTileY), 0, stream>>>(residual, d, count, e);
}

void launchFill(float* data, std::size_t count, float value, cudaStream_t stream) {
  fill<<<gridBlocks(count, 256), 256, 0, stream>>>(data, count, value);
}

void launchMaskToFloat(const unsigned char* mask, std::size_t count, float* out,
                       cudaStream_t stream) {
  maskToFloat<<<gridBlocks(count, 256), 256, 0, stream>>>(mask, count, out);
}

void launchMaxAbs(const float* data, std::size_t count, unsigned* maxBits, cudaStream_t stream) {
  maxAbs<<<std::min(gridBlocks(count, 256), 1024), 256, 0, stream>>>(data, count, maxBits);
}

void launchInvertSums(float* data, std::size_t count, const unsigned* maxBits, double scale,
                      cudaStream_t stream) {
  invertSums<<<gridBlocks(count, 256), 256, 0, stream>>>(data, count, maxBits, scale);
}

}  // namespace tomowb::cuda::et
