// The GPU ET projectors' element passes (EtKernels.cuh): packing slices and rows into textures
// (half, float, float2, float4 texels), maxima and half-precision scales, weights, fills.
#include <cuda_fp16.h>

#include <cstdint>

#include "recon/projector/cuda/EtKernelCommon.cuh"
#include "recon/projector/cuda/EtKernels.cuh"

namespace tomowb::cuda::et {

namespace {

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

}  // namespace

int texelSlices(Texel t) {
  return t == Texel::Float ? 1 : t == Texel::Float4 ? 4 : 2;
}

int texelBytes(Texel t) {
  return t == Texel::Float ? 4 : t == Texel::Float2 ? 8 : t == Texel::Float4 ? 16 : 4;
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
