// The slice kernels of the GPU ET projectors (EtKernels.cuh): seed 004's forward-projection
// orderings, our multi-slice texture kernels and the matched software pair on aligned single-axis
// tilt series, with their view tables in constant memory. Positions are float32; the matched
// pair evaluates them with explicitly rounded operations in shared helpers
// (EtKernelCommon.cuh), so the forward projector and the gather backprojector compute the same
// weights bit for bit and are each other's transpose up to the rounding of the sums.
#include <cuda_fp16.h>

#include <cstdint>

#include "recon/projector/cuda/EtKernelCommon.cuh"
#include "recon/projector/cuda/EtKernels.cuh"

namespace tomowb::cuda::et {

namespace {

__constant__ SliceFpView cSliceFp[kSliceViewsPerLaunch];
__constant__ SliceBpView cSliceBp[kSliceViewsPerLaunch];

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

}  // namespace

void setSliceFpViews(const SliceFpView* deviceTable, int count, cudaStream_t stream) {
  cudaMemcpyToSymbolAsync(cSliceFp, deviceTable, std::size_t(count) * sizeof(SliceFpView), 0,
                          cudaMemcpyDeviceToDevice, stream);
}
void setSliceBpViews(const SliceBpView* deviceTable, int count, cudaStream_t stream) {
  cudaMemcpyToSymbolAsync(cSliceBp, deviceTable, std::size_t(count) * sizeof(SliceBpView), 0,
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

}  // namespace tomowb::cuda::et
