#include <cuda_fp16.h>

#include <cassert>
#include <cstdio>
#include <cstdlib>

#include "recon/fdk/cuda/FdkKernels.cuh"

namespace tomowb::cuda::kernels {

namespace {

__constant__ float cMatrices[kMaxViewsPerLaunch * 12];

constexpr int kBlockX = 32;
constexpr int kBlockY = 8;

__host__ __device__ inline int ceilDiv(int a, int b) {
  return (a + b - 1) / b;
}

// Bilinear sample with pixel centres on integers and zero outside the detector.
__device__ inline float sampleGlobal(const float* p, int rows, int cols, int pitch, float c,
                                     float r) {
  if (!(c > -1.0f && c < float(cols) && r > -1.0f && r < float(rows))) return 0.0f;
  const float fc = floorf(c), fr = floorf(r);
  const int ic = int(fc), ir = int(fr);
  const float tc = c - fc, tr = r - fr;
  const bool c0 = ic >= 0, c1 = ic + 1 < cols, r0 = ir >= 0, r1 = ir + 1 < rows;
  const float p00 = (r0 && c0) ? p[ir * pitch + ic] : 0.0f;
  const float p01 = (r0 && c1) ? p[ir * pitch + ic + 1] : 0.0f;
  const float p10 = (r1 && c0) ? p[(ir + 1) * pitch + ic] : 0.0f;
  const float p11 = (r1 && c1) ? p[(ir + 1) * pitch + ic + 1] : 0.0f;
  const float top = fmaf(tc, p01 - p00, p00);
  const float bottom = fmaf(tc, p11 - p10, p10);
  return fmaf(tr, bottom - top, top);
}

// Bilinear sample from a zero-bordered buffer: (c, r) already shifted by the one-pixel border.
__device__ inline float samplePadded(const float* p, int paddedRows, int paddedCols, float c,
                                     float r) {
  if (!(c >= 0.0f && c < float(paddedCols - 1) && r >= 0.0f && r < float(paddedRows - 1)))
    return 0.0f;
  const float fc = floorf(c), fr = floorf(r);
  const float tc = c - fc, tr = r - fr;
  const float* q = p + int(fr) * paddedCols + int(fc);
  const float p00 = __ldg(q), p01 = __ldg(q + 1);
  const float p10 = __ldg(q + paddedCols), p11 = __ldg(q + paddedCols + 1);
  const float top = fmaf(tc, p01 - p00, p00);
  const float bottom = fmaf(tc, p11 - p10, p10);
  return fmaf(tr, bottom - top, top);
}

struct Projected {
  float c, r, weight;
};

__device__ inline Projected project(const float* m, float x, float y, float z, bool cone) {
  const float w = fmaf(m[8], x, fmaf(m[9], y, fmaf(m[10], z, m[11])));
  const float inv = 1.0f / w;
  const float c = fmaf(m[0], x, fmaf(m[1], y, fmaf(m[2], z, m[3]))) * inv;
  const float r = fmaf(m[4], x, fmaf(m[5], y, fmaf(m[6], z, m[7]))) * inv;
  // A voxel behind the source (w <= 0) is not seen: weight 0, as on the CPU.
  const float weight = w > 0.0f ? (cone ? inv * inv : 1.0f) : 0.0f;
  return {c, r, weight};
}

__device__ inline long long voxelIndex(const TaskShape& s, int x, int y, int z) {
  return (static_cast<long long>(z) * s.ny + y) * s.nx + x;
}

// u, the first row, the row step along z and the FDK weight of a thread's column (x, y, from fz on)
// in one view, texel offsets not applied. Mirror: the z column of the matrix moves only v
// (m[2] = m[10] = 0 in mirror geometries).
struct ColumnProjection {
  float u, r0, dr, weight;
};
template <bool Mirror>
__device__ __forceinline__ ColumnProjection projectColumn(const float* m, float fx, float fy,
                                                          float fz, bool cone) {
  const float w = Mirror ? fmaf(m[8], fx, fmaf(m[9], fy, m[11]))
                         : fmaf(m[8], fx, fmaf(m[9], fy, fmaf(m[10], fz, m[11])));
  const float inv = 1.0f / w;
  const float u = (Mirror ? fmaf(m[0], fx, fmaf(m[1], fy, m[3]))
                          : fmaf(m[0], fx, fmaf(m[1], fy, fmaf(m[2], fz, m[3])))) *
                  inv;
  return {u, fmaf(m[4], fx, fmaf(m[5], fy, fmaf(m[6], fz, m[7]))) * inv, m[6] * inv,
          w > 0.0f ? (cone ? inv * inv : 1.0f) : 0.0f};
}

// Adds a thread's column of Z sums to voxels z0 .. z0 + Z - 1 (those inside the box).
template <int Z>
__device__ __forceinline__ void addColumn(float* volume, const TaskShape& s, int x, int y, int z0,
                                          const float (&acc)[Z]) {
#pragma unroll
  for (int j = 0; j < Z; ++j)
    if (z0 + j < s.nz) volume[voxelIndex(s, x, y, z0 + j)] += acc[j];
}

// Adds a z-mirror thread's sums: voxel z = z0 + j of the lower half and its mirror nz-1-z.
template <int Z>
__device__ __forceinline__ void addMirrorPairs(float* volume, const TaskShape& s, int x, int y,
                                               int z0, const float (&acc)[Z],
                                               const float (&mirrored)[Z]) {
  const int lower = (s.nz + 1) / 2;
#pragma unroll
  for (int j = 0; j < Z; ++j) {
    const int z = z0 + j;
    if (z >= lower) break;
    volume[voxelIndex(s, x, y, z)] += acc[j];
    const int zm = s.nz - 1 - z;
    if (zm != z) volume[voxelIndex(s, x, y, zm)] += mirrored[j];
  }
}

// One view of a float32 layered texture for a column: rows r0 + j dr (texel offsets applied).
template <int Z>
__device__ __forceinline__ void sampleColumn(cudaTextureObject_t layered, int layer, float c,
                                             float r0, float dr, float weight, float (&acc)[Z]) {
#pragma unroll
  for (int j = 0; j < Z; ++j)
    acc[j] = fmaf(weight, tex2DLayered<float>(layered, c, fmaf(float(j), dr, r0), layer), acc[j]);
}

// One view of a half2 or float2 mirror texture: channel x to voxel z, y to its mirror nz-1-z.
template <int Z>
__device__ __forceinline__ void sampleMirrorColumn(cudaTextureObject_t layered, int layer, float c,
                                                   float r0, float dr, float weight,
                                                   float (&acc)[Z], float (&mirrored)[Z]) {
#pragma unroll
  for (int j = 0; j < Z; ++j) {
    const float2 t = tex2DLayered<float2>(layered, c, fmaf(float(j), dr, r0), layer);
    acc[j] = fmaf(weight, t.x, acc[j]);
    mirrored[j] = fmaf(weight, t.y, mirrored[j]);
  }
}

__global__ void naiveKernel(const float* projection, int rows, int cols, int pitch,
                            const ViewMatrix* matrix, float* volume, TaskShape s) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = s.yFirst + blockIdx.y * blockDim.y + threadIdx.y;
  const int z = blockIdx.z;
  if (x >= s.nx || y >= yEnd(s)) return;
  const Projected p = project(matrix->m, float(x), float(y), float(z), s.cone);
  const long long i = voxelIndex(s, x, y, z);
  volume[i] += p.weight * sampleGlobal(projection, rows, cols, pitch, p.c, p.r);
}

__global__ void textureKernel(cudaTextureObject_t texture, int view, float* volume, TaskShape s) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = s.yFirst + blockIdx.y * blockDim.y + threadIdx.y;
  const int z = blockIdx.z;
  if (x >= s.nx || y >= yEnd(s)) return;
  const long long i = voxelIndex(s, x, y, z);
  const float old = volume[i];  // prefetch: the projection below hides the load's latency
  const Projected p =
      project(cMatrices + 12 * (s.matrixFirst + view), float(x), float(y), float(z), s.cone);
  volume[i] = old + p.weight * tex2D<float>(texture, p.c + 0.5f, p.r + 0.5f);
}

__global__ void textureMultiKernel(cudaTextureObject_t layered, int matrixFirst, int layerFirst,
                                   int count, float* volume, TaskShape s) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = s.yFirst + blockIdx.y * blockDim.y + threadIdx.y;
  const int z = blockIdx.z;
  if (x >= s.nx || y >= yEnd(s)) return;
  const long long i = voxelIndex(s, x, y, z);
  const float old = volume[i];
  float sum = 0.0f;
  for (int k = 0; k < count; ++k) {
    const Projected p = project(cMatrices + 12 * (s.matrixFirst + matrixFirst + k), float(x),
                                float(y), float(z), s.cone);
    sum = fmaf(p.weight, tex2DLayered<float>(layered, p.c + 0.5f, p.r + 0.5f, layerFirst + k), sum);
  }
  volume[i] = old + sum;
}

template <int Z>
__global__ void slabKernel(cudaTextureObject_t layered, int layerFirst, int count, float* volume,
                           TaskShape s) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = s.yFirst + blockIdx.y * blockDim.y + threadIdx.y;
  const int z0 = blockIdx.z * Z;
  if (x >= s.nx || y >= yEnd(s)) return;
  float acc[Z];
#pragma unroll
  for (int j = 0; j < Z; ++j) acc[j] = 0.0f;
  for (int k = 0; k < count; ++k) {
    const float* m = cMatrices + 12 * (s.matrixFirst + k);
#pragma unroll
    for (int j = 0; j < Z; ++j) {
      const Projected p = project(m, float(x), float(y), float(z0 + j), s.cone);
      acc[j] = fmaf(p.weight, tex2DLayered<float>(layered, p.c + 0.5f, p.r + 0.5f, layerFirst + k),
                    acc[j]);
    }
  }
#pragma unroll
  for (int j = 0; j < Z; ++j)
    if (z0 + j < s.nz) volume[voxelIndex(s, x, y, z0 + j)] += acc[j];
}

constexpr int kColumn = 16;

// Per (x, y, view): u, 1/w and the weight; v steps by dv along z. General: everything per voxel.
template <bool General>
__global__ void layered16Kernel(cudaTextureObject_t layered, int layerFirst, int count,
                                float* volume, TaskShape s) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = s.yFirst + blockIdx.y * blockDim.y + threadIdx.y;
  const int z0 = blockIdx.z * kColumn;
  if (x >= s.nx || y >= yEnd(s)) return;
  const float fx = float(x), fy = float(y), fz = float(z0);
  float acc[kColumn];
#pragma unroll
  for (int j = 0; j < kColumn; ++j) acc[j] = 0.0f;
  for (int k = 0; k < count; ++k) {
    const float* m = cMatrices + 12 * (s.matrixFirst + k);
    if (General) {
#pragma unroll
      for (int j = 0; j < kColumn; ++j) {
        const Projected p = project(m, fx, fy, fz + float(j), s.cone);
        acc[j] = fmaf(p.weight,
                      tex2DLayered<float>(layered, p.c + 0.5f, p.r + 0.5f, layerFirst + k), acc[j]);
      }
    } else {
      const float w = fmaf(m[8], fx, fmaf(m[9], fy, fmaf(m[10], fz, m[11])));
      const float inv = 1.0f / w;
      const float c = fmaf(m[0], fx, fmaf(m[1], fy, fmaf(m[2], fz, m[3]))) * inv + 0.5f;
      const float r0 = fmaf(m[4], fx, fmaf(m[5], fy, fmaf(m[6], fz, m[7]))) * inv + 0.5f;
      const float dr = m[6] * inv;
      const float weight = w > 0.0f ? (s.cone ? inv * inv : 1.0f) : 0.0f;
      sampleColumn(layered, layerFirst + k, c, r0, dr, weight, acc);
    }
  }
  addColumn(volume, s, x, y, z0, acc);
}

// layered16 with the load path beside the texture unit (fdk.bp.hybrid; no mirror needed): the
// input's views v with v % every == every - 1 are sampled in software, in float32, from a grid of
// float4 quads (the taps (r, c), (r, c + 1), (r + 1, c), (r + 1, c + 1), zero-bordered,
// launchToQuads) holding only those views (grid view v / every), the others by the float32
// texture. The same idea as mirrorHybridKernel below; 16 z-voxels per thread, at most 64
// registers.
__global__ void __launch_bounds__(256, 4)
    layeredHybridKernel(cudaTextureObject_t layered, const float4* __restrict__ quads, int gridRows,
                        int gridCols, int rows, int cols, int every, int phase, int layerFirst,
                        int count, float* volume, TaskShape s) {
  const int x = int(blockIdx.x * blockDim.x + threadIdx.x);
  const int y = s.yFirst + int(blockIdx.y * blockDim.y + threadIdx.y);
  const int z0 = int(blockIdx.z) * kColumn;
  if (x >= s.nx || y >= yEnd(s)) return;
  const float fx = float(x), fy = float(y), fz = float(z0);
  const long long viewElements = static_cast<long long>(gridRows) * gridCols;
  float acc[kColumn];
#pragma unroll
  for (int j = 0; j < kColumn; ++j) acc[j] = 0.0f;
  for (int k = 0; k < count; ++k) {
    const auto [u, r0, dr, weight] =
        projectColumn<false>(cMatrices + 12 * (s.matrixFirst + k), fx, fy, fz, s.cone);
    const int view = layerFirst + k;
    if ((view + phase) % every == every - 1) {
      const float c = fminf(fmaxf(u, -1.0f), float(cols));
      const float fc = floorf(c);
      const float tc = c - fc;
      const float4* column =
          quads + ((view + phase) / every) * viewElements + int(fc) + 1 + gridCols;
#pragma unroll
      for (int j = 0; j < kColumn; ++j) {
        const float r = fminf(fmaxf(fmaf(float(j), dr, r0), -1.0f), float(rows));
        const float fr = floorf(r);
        const float tr = r - fr;
        const float4 q = __ldg(column + int(fr) * gridCols);
        const float top = fmaf(tc, q.y - q.x, q.x), bottom = fmaf(tc, q.w - q.z, q.z);
        acc[j] = fmaf(weight, fmaf(tr, bottom - top, top), acc[j]);
      }
    } else {
      sampleColumn(layered, view, u + 0.5f, r0 + 0.5f, dr, weight, acc);
    }
  }
  addColumn(volume, s, x, y, z0, acc);
}

// Thread (x, y, group): voxels z = group * Z + j of the lower half and their mirrors nz-1-z.
template <int Z>
__global__ void mirrorHalf2Kernel(cudaTextureObject_t layered, int layerFirst, int count,
                                  float* volume, TaskShape s) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = s.yFirst + blockIdx.y * blockDim.y + threadIdx.y;
  const int z0 = blockIdx.z * Z;
  if (x >= s.nx || y >= yEnd(s)) return;
  const float fx = float(x), fy = float(y), fz = float(z0);
  float acc[Z], mirrored[Z];
#pragma unroll
  for (int j = 0; j < Z; ++j) acc[j] = mirrored[j] = 0.0f;
  for (int k = 0; k < count; ++k) {
    const float* m = cMatrices + 12 * (s.matrixFirst + k);
    const float w = fmaf(m[8], fx, fmaf(m[9], fy, m[11]));
    const float inv = 1.0f / w;
    const float c = fmaf(m[0], fx, fmaf(m[1], fy, m[3])) * inv + 0.5f;
    const float r0 = fmaf(m[4], fx, fmaf(m[5], fy, fmaf(m[6], fz, m[7]))) * inv + 0.5f;
    const float dr = m[6] * inv;
    const float weight = w > 0.0f ? (s.cone ? inv * inv : 1.0f) : 0.0f;
    sampleMirrorColumn(layered, layerFirst + k, c, r0, dr, weight, acc, mirrored);
  }
  addMirrorPairs(volume, s, x, y, z0, acc, mirrored);
}

// Texture unit and load path together, z-mirror (fdk.bp.mirror-hybrid). The texture unit samples
// most views (half2 texels, as mirrorHalf2Kernel); the input's views v with v % every ==
// every - 1 are sampled in software from a pair-major half grid holding only those views (grid
// view v / every, launchToSoftMirror): one 16-byte load gives the taps (p00, q00), (p01, q01),
// (p10, q10), (p11, q11) of a voxel and its mirror, and the bilinear weights are applied in half2
// arithmetic (11-bit weights, finer than the texture unit's 8 bits). The two paths use different
// units of the SM (texture filtering against load, FMA and half2 pipes), so the software views
// add samples beyond the texture unit's rate (bench/results/2026-11-28c-*). The choice is per
// view: the same for every thread of a warp, and every voxel gets the same mixture of both.
// kHybridPairs voxel pairs per thread, at most 64 registers (four blocks of 256 threads an SM).
constexpr int kHybridPairs = 8;

__global__ void __launch_bounds__(256, 4)
    mirrorHybridKernel(cudaTextureObject_t layered, const uint4* __restrict__ grid, int gridRows,
                       int gridCols, int rows, int cols, int every, int phase, int layerFirst,
                       int count, float* volume, TaskShape s) {
  constexpr int Z = kHybridPairs;
  const int x = int(blockIdx.x * blockDim.x + threadIdx.x);
  const int y = s.yFirst + int(blockIdx.y * blockDim.y + threadIdx.y);
  const int z0 = int(blockIdx.z) * Z;
  if (x >= s.nx || y >= yEnd(s)) return;
  const float fx = float(x), fy = float(y), fz = float(z0);
  const long long viewElements = static_cast<long long>(gridRows) * gridCols;
  float acc[Z], mirrored[Z];
#pragma unroll
  for (int j = 0; j < Z; ++j) acc[j] = mirrored[j] = 0.0f;
  for (int k = 0; k < count; ++k) {
    const auto [u, r0, dr, weight] =
        projectColumn<true>(cMatrices + 12 * (s.matrixFirst + k), fx, fy, fz, s.cone);
    const int view = layerFirst + k;
    if ((view + phase) % every == every - 1) {
      // Coordinates clamped into the zero border instead of branching, as softMirrorKernel.
      const float c = fminf(fmaxf(u, -1.0f), float(cols));
      const float fc = floorf(c);
      const __half2 tc = __float2half2_rn(c - fc);
      const uint4* column = grid + ((view + phase) / every) * viewElements + int(fc) + 1 + gridCols;
#pragma unroll
      for (int j = 0; j < Z; ++j) {
        const float r = fminf(fmaxf(fmaf(float(j), dr, r0), -1.0f), float(rows));
        const float fr = floorf(r);
        const uint4 a = __ldg(column + int(fr) * gridCols);
        const __half2 e00 = *reinterpret_cast<const __half2*>(&a.x);
        const __half2 e01 = *reinterpret_cast<const __half2*>(&a.y);
        const __half2 e10 = *reinterpret_cast<const __half2*>(&a.z);
        const __half2 e11 = *reinterpret_cast<const __half2*>(&a.w);
        const __half2 top = __hfma2(tc, __hsub2(e01, e00), e00);
        const __half2 bottom = __hfma2(tc, __hsub2(e11, e10), e10);
        const float2 v =
            __half22float2(__hfma2(__float2half2_rn(r - fr), __hsub2(bottom, top), top));
        acc[j] = fmaf(weight, v.x, acc[j]);
        mirrored[j] = fmaf(weight, v.y, mirrored[j]);
      }
    } else {
      sampleMirrorColumn(layered, view, u + 0.5f, r0 + 0.5f, dr, weight, acc, mirrored);
    }
  }
  addMirrorPairs(volume, s, x, y, z0, acc, mirrored);
}

template <bool General>
__global__ void softKernel(const float* __restrict__ padded, int paddedRows, int paddedCols,
                           int count, float* volume, TaskShape s) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = s.yFirst + blockIdx.y * blockDim.y + threadIdx.y;
  const int z0 = blockIdx.z * kColumn;
  if (x >= s.nx || y >= yEnd(s)) return;
  const float fx = float(x), fy = float(y), fz = float(z0);
  const long long viewPixels = static_cast<long long>(paddedRows) * paddedCols;
  const float rows = float(paddedRows - 3), cols = float(paddedCols - 3);
  float acc[kColumn];
#pragma unroll
  for (int j = 0; j < kColumn; ++j) acc[j] = 0.0f;
  for (int k = 0; k < count; ++k) {
    const float* m = cMatrices + 12 * (s.matrixFirst + k);
    const float* view = padded + k * viewPixels;
    if (General) {
#pragma unroll
      for (int j = 0; j < kColumn; ++j) {
        const Projected p = project(m, fx, fy, fz + float(j), s.cone);
        acc[j] = fmaf(p.weight, samplePadded(view, paddedRows, paddedCols, p.c + 1.0f, p.r + 1.0f),
                      acc[j]);
      }
    } else {
      // Coordinates clamped into the zero border (two pixels wide at the far edges) instead of
      // branching; the column and its weights once per view.
      const float w = fmaf(m[8], fx, fmaf(m[9], fy, fmaf(m[10], fz, m[11])));
      const float inv = 1.0f / w;
      const float c =
          fminf(fmaxf(fmaf(m[0], fx, fmaf(m[1], fy, fmaf(m[2], fz, m[3]))) * inv, -1.0f), cols) +
          1.0f;
      const float r0 = fmaf(m[4], fx, fmaf(m[5], fy, fmaf(m[6], fz, m[7]))) * inv;
      const float dr = m[6] * inv;
      const float weight = w > 0.0f ? (s.cone ? inv * inv : 1.0f) : 0.0f;
      const float fc = floorf(c);
      const float tc = c - fc;
      const float* column = view + int(fc);
#pragma unroll
      for (int j = 0; j < kColumn; ++j) {
        const float r = fminf(fmaxf(fmaf(float(j), dr, r0), -1.0f), rows) + 1.0f;
        const float fr = floorf(r);
        const float tr = r - fr;
        const float* q = column + int(fr) * paddedCols;
        const float p00 = __ldg(q), p01 = __ldg(q + 1);
        const float p10 = __ldg(q + paddedCols), p11 = __ldg(q + paddedCols + 1);
        const float top = fmaf(tc, p01 - p00, p00);
        const float bottom = fmaf(tc, p11 - p10, p10);
        acc[j] = fmaf(weight, fmaf(tr, bottom - top, top), acc[j]);
      }
    }
  }
  addColumn(volume, s, x, y, z0, acc);
}

// Software bilinear with the z-mirror: element (r, c) of the zero-bordered grid holds the taps of
// rows r and r + 1 (or r and its mirror row) for columns c and c + 1, so that one or two 16-byte
// loads serve voxel z and its mirror nz-1-z. Coordinates are clamped into the zero border instead
// of branching. Float: float4 (p[r][c], p[r][c+1], pm[r][c], pm[r][c+1]), rows -1..V+1; half:
// 8 halves (p[r][c], p[r][c+1], p[r+1][c], p[r+1][c+1], then the same of pm), rows -1..V.
template <bool Half, int Z>
__global__ void softMirrorKernel(const uint4* __restrict__ grid, int gridRows, int gridCols,
                                 int rows, int cols, int layerFirst, int count, float* volume,
                                 TaskShape s) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = s.yFirst + blockIdx.y * blockDim.y + threadIdx.y;
  const int z0 = blockIdx.z * Z;
  if (x >= s.nx || y >= yEnd(s)) return;
  const float fx = float(x), fy = float(y), fz = float(z0);
  const long long viewElements = static_cast<long long>(gridRows) * gridCols;
  float acc[Z], mirrored[Z];
#pragma unroll
  for (int j = 0; j < Z; ++j) acc[j] = mirrored[j] = 0.0f;
  for (int k = 0; k < count; ++k) {
    const float* m = cMatrices + 12 * (s.matrixFirst + k);
    const float w = fmaf(m[8], fx, fmaf(m[9], fy, m[11]));
    const float inv = 1.0f / w;
    const float c = fminf(fmaxf(fmaf(m[0], fx, fmaf(m[1], fy, m[3])) * inv, -1.0f), float(cols));
    const float r0 = fmaf(m[4], fx, fmaf(m[5], fy, fmaf(m[6], fz, m[7]))) * inv;
    const float dr = m[6] * inv;
    const float weight = w > 0.0f ? (s.cone ? inv * inv : 1.0f) : 0.0f;
    const float fc = floorf(c);
    const float tc = c - fc;
    const uint4* column = grid + (layerFirst + k) * viewElements + int(fc) + 1 + gridCols;
#pragma unroll
    for (int j = 0; j < Z; ++j) {
      const float r = fminf(fmaxf(fmaf(float(j), dr, r0), -1.0f), float(rows));
      const float fr = floorf(r);
      const float tr = r - fr;
      const uint4* e = column + int(fr) * gridCols;
      float p00, p01, p10, p11, q00, q01, q10, q11;
      if (Half) {
        const uint4 a = __ldg(e);
        const float2 t0 = __half22float2(*reinterpret_cast<const __half2*>(&a.x));
        const float2 t1 = __half22float2(*reinterpret_cast<const __half2*>(&a.y));
        const float2 m0 = __half22float2(*reinterpret_cast<const __half2*>(&a.z));
        const float2 m1 = __half22float2(*reinterpret_cast<const __half2*>(&a.w));
        p00 = t0.x, p01 = t0.y, p10 = t1.x, p11 = t1.y;
        q00 = m0.x, q01 = m0.y, q10 = m1.x, q11 = m1.y;
      } else {
        const float4 a = __ldg(reinterpret_cast<const float4*>(e));
        const float4 b = __ldg(reinterpret_cast<const float4*>(e + gridCols));
        p00 = a.x, p01 = a.y, q00 = a.z, q01 = a.w;
        p10 = b.x, p11 = b.y, q10 = b.z, q11 = b.w;
      }
      const float top = fmaf(tc, p01 - p00, p00), bottom = fmaf(tc, p11 - p10, p10);
      const float mtop = fmaf(tc, q01 - q00, q00), mbottom = fmaf(tc, q11 - q10, q10);
      acc[j] = fmaf(weight, fmaf(tr, bottom - top, top), acc[j]);
      mirrored[j] = fmaf(weight, fmaf(tr, mbottom - mtop, mtop), mirrored[j]);
    }
  }
  addMirrorPairs(volume, s, x, y, z0, acc, mirrored);
}

dim3 columnGrid(const TaskShape& s, int zPerThread) {
  return dim3(unsigned(ceilDiv(s.nx, kBlockX)), unsigned(ceilDiv(yEnd(s) - s.yFirst, kBlockY)),
              unsigned(ceilDiv(s.nz, zPerThread)));
}

const dim3 kBlock(kBlockX, kBlockY);

}  // namespace

void setViewMatrices(const ViewMatrix* device, int count, cudaStream_t stream) {
  cudaMemcpyToSymbolAsync(cMatrices, device, sizeof(ViewMatrix) * size_t(count), 0,
                          cudaMemcpyDeviceToDevice, stream);
}

void launchNaive(const float* projection, int rows, int cols, int pitch, const ViewMatrix* matrix,
                 float* volume, const TaskShape& shape, cudaStream_t stream) {
  naiveKernel<<<columnGrid(shape, 1), kBlock, 0, stream>>>(projection, rows, cols, pitch, matrix,
                                                           volume, shape);
}

void launchTexture(cudaTextureObject_t texture, int view, float* volume, const TaskShape& shape,
                   cudaStream_t stream) {
  textureKernel<<<columnGrid(shape, 1), kBlock, 0, stream>>>(texture, view, volume, shape);
}

void launchTextureMulti(cudaTextureObject_t layered, int matrixFirst, int layerFirst, int count,
                        float* volume, const TaskShape& shape, cudaStream_t stream) {
  textureMultiKernel<<<columnGrid(shape, 1), kBlock, 0, stream>>>(layered, matrixFirst, layerFirst,
                                                                  count, volume, shape);
}

void launchSlab(cudaTextureObject_t layered, int layerFirst, int count, int zPerThread,
                float* volume, const TaskShape& shape, cudaStream_t stream) {
  if (zPerThread <= 4)
    slabKernel<4>
        <<<columnGrid(shape, 4), kBlock, 0, stream>>>(layered, layerFirst, count, volume, shape);
  else if (zPerThread <= 8)
    slabKernel<8>
        <<<columnGrid(shape, 8), kBlock, 0, stream>>>(layered, layerFirst, count, volume, shape);
  else
    slabKernel<16>
        <<<columnGrid(shape, 16), kBlock, 0, stream>>>(layered, layerFirst, count, volume, shape);
}

void launchLayered16(cudaTextureObject_t layered, int layerFirst, int count, float* volume,
                     const TaskShape& shape, cudaStream_t stream) {
  if (shape.zMovesUW)
    layered16Kernel<true><<<columnGrid(shape, kColumn), kBlock, 0, stream>>>(layered, layerFirst,
                                                                             count, volume, shape);
  else
    layered16Kernel<false><<<columnGrid(shape, kColumn), kBlock, 0, stream>>>(layered, layerFirst,
                                                                              count, volume, shape);
}

namespace {
// The mirror kernel's launch shape: threads per block along x and y, voxel pairs per thread along
// z. TOMOWB_FDK_MIRROR_LAUNCH="BXxBYxZ" (Z 8, 16 or 32) overrides the default 32x8x16, for
// measuring others (bench/run-mirror-launch-on-gpu.sh).
struct MirrorLaunch {
  int bx = kBlockX, by = kBlockY, z = kColumn;
};
MirrorLaunch mirrorLaunch() {
  static const MirrorLaunch launch = [] {
    MirrorLaunch l;
    const char* text = std::getenv("TOMOWB_FDK_MIRROR_LAUNCH");  // NOLINT(concurrency-mt-unsafe)
    int bx = 0, by = 0, z = 0;
    if (text != nullptr && std::sscanf(text, "%dx%dx%d", &bx, &by, &z) == 3 && bx > 0 && by > 0 &&
        bx * by <= 1024 && bx * by % 32 == 0 && (z == 8 || z == 16 || z == 32))
      l = {bx, by, z};
    return l;
  }();
  return launch;
}
}  // namespace

void launchMirrorHalf2(cudaTextureObject_t layeredHalf2, int layerFirst, int count, float* volume,
                       const TaskShape& shape, cudaStream_t stream) {
  const MirrorLaunch l = mirrorLaunch();
  const dim3 block(unsigned(l.bx), unsigned(l.by));
  const dim3 grid(unsigned(ceilDiv(shape.nx, l.bx)),
                  unsigned(ceilDiv(yEnd(shape) - shape.yFirst, l.by)),
                  unsigned(ceilDiv((shape.nz + 1) / 2, l.z)));
  if (l.z == 8)
    mirrorHalf2Kernel<8>
        <<<grid, block, 0, stream>>>(layeredHalf2, layerFirst, count, volume, shape);
  else if (l.z == 32)
    mirrorHalf2Kernel<32>
        <<<grid, block, 0, stream>>>(layeredHalf2, layerFirst, count, volume, shape);
  else
    mirrorHalf2Kernel<16>
        <<<grid, block, 0, stream>>>(layeredHalf2, layerFirst, count, volume, shape);
}

void launchLayeredHybrid(cudaTextureObject_t layered, const void* quads, int every, int phase,
                         int rows, int cols, int layerFirst, int count, float* volume,
                         const TaskShape& shape, cudaStream_t stream) {
  layeredHybridKernel<<<columnGrid(shape, kColumn), kBlock, 0, stream>>>(
      layered, static_cast<const float4*>(quads), rows + 2, cols + 2, rows, cols, every, phase,
      layerFirst, count, volume, shape);
}

void launchMirrorHybrid(cudaTextureObject_t layeredHalf2, const void* pairMajorGrid, int every,
                        int phase, int rows, int cols, int layerFirst, int count, float* volume,
                        const TaskShape& shape, cudaStream_t stream) {
  const dim3 g(unsigned(ceilDiv(shape.nx, kBlockX)),
               unsigned(ceilDiv(yEnd(shape) - shape.yFirst, kBlockY)),
               unsigned(ceilDiv((shape.nz + 1) / 2, kHybridPairs)));
  mirrorHybridKernel<<<g, kBlock, 0, stream>>>(
      layeredHalf2, static_cast<const uint4*>(pairMajorGrid), rows + 2, cols + 2, rows, cols, every,
      phase, layerFirst, count, volume, shape);
}

void launchSoftMirror(const void* grid, bool half, int rows, int cols, int layerFirst, int count,
                      int zPerThread, float* volume, const TaskShape& shape, cudaStream_t stream) {
  const int z = zPerThread <= 4 ? 4 : zPerThread <= 8 ? 8 : kColumn;
  const dim3 g(unsigned(ceilDiv(shape.nx, kBlockX)),
               unsigned(ceilDiv(yEnd(shape) - shape.yFirst, kBlockY)),
               unsigned(ceilDiv((shape.nz + 1) / 2, z)));
  const uint4* e = static_cast<const uint4*>(grid);
  const int gridRows = half ? rows + 2 : rows + 3, gridCols = cols + 2;
  if (z == 4 && half)
    softMirrorKernel<true, 4><<<g, kBlock, 0, stream>>>(e, gridRows, gridCols, rows, cols,
                                                        layerFirst, count, volume, shape);
  else if (z == 4)
    softMirrorKernel<false, 4><<<g, kBlock, 0, stream>>>(e, gridRows, gridCols, rows, cols,
                                                         layerFirst, count, volume, shape);
  else if (z == 8 && half)
    softMirrorKernel<true, 8><<<g, kBlock, 0, stream>>>(e, gridRows, gridCols, rows, cols,
                                                        layerFirst, count, volume, shape);
  else if (z == 8)
    softMirrorKernel<false, 8><<<g, kBlock, 0, stream>>>(e, gridRows, gridCols, rows, cols,
                                                         layerFirst, count, volume, shape);
  else if (half)
    softMirrorKernel<true, kColumn><<<g, kBlock, 0, stream>>>(e, gridRows, gridCols, rows, cols,
                                                              layerFirst, count, volume, shape);
  else
    softMirrorKernel<false, kColumn><<<g, kBlock, 0, stream>>>(e, gridRows, gridCols, rows, cols,
                                                               layerFirst, count, volume, shape);
}

void launchSoft(const float* padded, int paddedRows, int paddedCols, int count, float* volume,
                const TaskShape& shape, cudaStream_t stream) {
  if (shape.zMovesUW)
    softKernel<true><<<columnGrid(shape, kColumn), kBlock, 0, stream>>>(
        padded, paddedRows, paddedCols, count, volume, shape);
  else
    softKernel<false><<<columnGrid(shape, kColumn), kBlock, 0, stream>>>(
        padded, paddedRows, paddedCols, count, volume, shape);
}

// --- filtering -------------------------------------------------------------------------------

namespace {

__global__ void weightRowsKernel(const float* raw, int views, int rows, int firstRow, int splitRow,
                                 int secondFirstRow, int cols, const ViewWeights* weights,
                                 const float* columnWeights, bool cone, int before, int fftLength,
                                 int fftStride, float* fft) {
  const int j = blockIdx.x * blockDim.x + threadIdx.x;
  const long long row = blockIdx.y + static_cast<long long>(gridDim.y) * blockIdx.z;
  if (j >= fftLength || row >= static_cast<long long>(views) * rows) return;
  const int view = int(row / rows);
  const int r = int(row % rows);
  const int col = j - before;
  float value = 0.0f;
  if (col >= 0 && col < cols) {
    value = raw[row * cols + col] * columnWeights[static_cast<long long>(view) * cols + col];
    if (cone) {
      const ViewWeights& g = weights[view];
      const float fr = float(r < splitRow ? r + firstRow : r - splitRow + secondFirstRow);
      const float fc = float(col);
      const float dx = g.origin[0] + fc * g.u[0] + fr * g.v[0];
      const float dy = g.origin[1] + fc * g.u[1] + fr * g.v[1];
      const float dz = g.origin[2] + fc * g.u[2] + fr * g.v[2];
      value *= g.sourceToDetector * rsqrtf(dx * dx + dy * dy + dz * dz);
    }
  }
  fft[row * fftStride + j] = value;
}

__global__ void applyResponseKernel(float2* spectrum, long long rowCount, int bins,
                                    int complexStride, const float* response) {
  const int k = blockIdx.x * blockDim.x + threadIdx.x;
  const long long row = blockIdx.y + static_cast<long long>(gridDim.y) * blockIdx.z;
  if (k >= bins || row >= rowCount) return;
  float2& s = spectrum[row * complexStride + k];
  const float g = response[k];
  s.x *= g;
  s.y *= g;
}

__global__ void toPaddedKernel(const float* fft, int views, int rows, int filteredCols,
                               int fftStride, float* padded) {
  const int pc = blockIdx.x * blockDim.x + threadIdx.x;
  const long long prow = blockIdx.y + static_cast<long long>(gridDim.y) * blockIdx.z;
  const int paddedCols = filteredCols + 3, paddedRows = rows + 3;
  if (pc >= paddedCols || prow >= static_cast<long long>(views) * paddedRows) return;
  const int view = int(prow / paddedRows);
  const int r = int(prow % paddedRows) - 1;
  const int c = pc - 1;
  float value = 0.0f;
  if (r >= 0 && r < rows && c >= 0 && c < filteredCols)
    value = fft[(static_cast<long long>(view) * rows + r) * fftStride + c];
  padded[prow * paddedCols + pc] = value;
}

// Output row r of a view pairs buffer row r with buffer row bufferRows-1-r of that view (the
// detector's mirror row when the buffer holds rows symmetric about the centre: RowBands).
__global__ void toMirrorHalf2Kernel(const float* fft, int views, int rows, int bufferRows,
                                    int filteredCols, int fftStride, __half2* out) {
  const int c = blockIdx.x * blockDim.x + threadIdx.x;
  const long long row = blockIdx.y + static_cast<long long>(gridDim.y) * blockIdx.z;
  if (c >= filteredCols || row >= static_cast<long long>(views) * rows) return;
  const int view = int(row / rows);
  const int r = int(row % rows);
  const long long own = static_cast<long long>(view) * bufferRows + r;
  const long long mirrorRow = static_cast<long long>(view) * bufferRows + (bufferRows - 1 - r);
  out[row * filteredCols + c] =
      __floats2half2_rn(fft[own * fftStride + c], fft[mirrorRow * fftStride + c]);
}

// The 16-byte grids of the software kernels. Element (gr, gc): detector row r = gr - 1, column
// c = gc - 1, zero outside the detector; p is row r of the view, pm its mirror row bufferRows-1-r.
enum class GridLayout {
  FloatPairs,     // (p[r][c], p[r][c+1], pm[r][c], pm[r][c+1]) floats, rows -1..V+1 (soft-mirror)
  HalfQuads,      // half2 (p[r][c], p[r][c+1]), (p[r+1][c], p[r+1][c+1]), the same of pm
  HalfPairMajor,  // half2 (p, pm) at (r, c), (r, c+1), (r+1, c), (r+1, c+1) (mirror-hybrid)
  FloatQuads,     // floats p at (r, c), (r, c+1), (r+1, c), (r+1, c+1) (hybrid; no mirror)
};

__host__ __device__ constexpr int gridRowsOf(GridLayout layout, int rows) {
  return layout == GridLayout::FloatPairs ? rows + 3 : rows + 2;
}

// Grid view k from fft view k * viewStep (views bufferRows rows apart).
template <GridLayout L>
__global__ void toGridKernel(const float* fft, int views, int rows, int bufferRows,
                             int filteredCols, int fftStride, int viewStep, uint4* out) {
  const int gridCols = filteredCols + 2, gridRows = gridRowsOf(L, rows);
  const int gc = blockIdx.x * blockDim.x + threadIdx.x;
  const long long grow = blockIdx.y + static_cast<long long>(gridDim.y) * blockIdx.z;
  if (gc >= gridCols || grow >= static_cast<long long>(views) * gridRows) return;
  const int view = int(grow / gridRows);
  const int r = int(grow % gridRows) - 1;
  const int c = gc - 1;
  const float* base = fft + static_cast<long long>(view) * viewStep * bufferRows * fftStride;
  auto at = [&](int rr, int cc) {
    return cc >= 0 && cc < filteredCols ? base[rr * fftStride + cc] : 0.0f;
  };
  auto p = [&](int rr, int cc) { return rr >= 0 && rr < rows ? at(rr, cc) : 0.0f; };
  auto pm = [&](int rr, int cc) {
    return rr >= 0 && rr < rows ? at(bufferRows - 1 - rr, cc) : 0.0f;
  };
  auto bits = [](__half2 h) { return *reinterpret_cast<const unsigned*>(&h); };
  uint4 e;
  if (L == GridLayout::HalfPairMajor) {
    e.x = bits(__floats2half2_rn(p(r, c), pm(r, c)));
    e.y = bits(__floats2half2_rn(p(r, c + 1), pm(r, c + 1)));
    e.z = bits(__floats2half2_rn(p(r + 1, c), pm(r + 1, c)));
    e.w = bits(__floats2half2_rn(p(r + 1, c + 1), pm(r + 1, c + 1)));
  } else if (L == GridLayout::HalfQuads) {
    e.x = bits(__floats2half2_rn(p(r, c), p(r, c + 1)));
    e.y = bits(__floats2half2_rn(p(r + 1, c), p(r + 1, c + 1)));
    e.z = bits(__floats2half2_rn(pm(r, c), pm(r, c + 1)));
    e.w = bits(__floats2half2_rn(pm(r + 1, c), pm(r + 1, c + 1)));
  } else if (L == GridLayout::FloatQuads) {
    e = make_uint4(__float_as_uint(p(r, c)), __float_as_uint(p(r, c + 1)),
                   __float_as_uint(p(r + 1, c)), __float_as_uint(p(r + 1, c + 1)));
  } else {
    e = make_uint4(__float_as_uint(p(r, c)), __float_as_uint(p(r, c + 1)),
                   __float_as_uint(pm(r, c)), __float_as_uint(pm(r, c + 1)));
  }
  out[grow * gridCols + gc] = e;
}

__global__ void toMirrorFloat2Kernel(const float* fft, int views, int rows, int bufferRows,
                                     int filteredCols, int fftStride, float2* out) {
  const int c = blockIdx.x * blockDim.x + threadIdx.x;
  const long long row = blockIdx.y + static_cast<long long>(gridDim.y) * blockIdx.z;
  if (c >= filteredCols || row >= static_cast<long long>(views) * rows) return;
  const int view = int(row / rows);
  const int r = int(row % rows);
  const long long own = static_cast<long long>(view) * bufferRows + r;
  const long long mirrorRow = static_cast<long long>(view) * bufferRows + (bufferRows - 1 - r);
  out[row * filteredCols + c] =
      make_float2(fft[own * fftStride + c], fft[mirrorRow * fftStride + c]);
}

// Rows can exceed the 65535 limit of grid.y: split them over y and z.
dim3 rowGrid(int width, long long rowCount, int threads) {
  const unsigned gy = unsigned(rowCount < 65535 ? rowCount : 65535);
  const unsigned gz = unsigned((rowCount + gy - 1) / gy);
  return dim3(unsigned(ceilDiv(width, threads)), gy, gz);
}

template <GridLayout L>
void launchToGrid(const float* fft, int views, int rows, int bufferRows, int filteredCols,
                  int fftStride, int viewStep, void* out, cudaStream_t stream) {
  const long long gridRows = static_cast<long long>(views) * gridRowsOf(L, rows);
  toGridKernel<L><<<rowGrid(filteredCols + 2, gridRows, 128), 128, 0, stream>>>(
      fft, views, rows, bufferRows, filteredCols, fftStride, viewStep, static_cast<uint4*>(out));
}

}  // namespace

void launchWeightRows(const float* raw, int views, const RowBands& bands, int cols,
                      const ViewWeights* weights, const float* columnWeights, bool cone, int before,
                      int fftLength, int fftStride, float* fft, cudaStream_t stream) {
  const long long rowCount = static_cast<long long>(views) * bands.rows;
  weightRowsKernel<<<rowGrid(fftLength, rowCount, 256), 256, 0, stream>>>(
      raw, views, bands.rows, bands.firstRow, bands.splitRow, bands.secondFirstRow, cols, weights,
      columnWeights, cone, before, fftLength, fftStride, fft);
}

void launchApplyResponse(float* fft, long long rowCount, int fftLength, int fftStride,
                         const float* response, cudaStream_t stream) {
  const int bins = fftLength / 2 + 1;
  applyResponseKernel<<<rowGrid(bins, rowCount, 256), 256, 0, stream>>>(
      reinterpret_cast<float2*>(fft), rowCount, bins, fftStride / 2, response);
}

void launchToPadded(const float* fft, int views, int rows, int filteredCols, int fftStride,
                    float* padded, cudaStream_t stream) {
  toPaddedKernel<<<rowGrid(filteredCols + 3, static_cast<long long>(views) * (rows + 3), 128), 128,
                   0, stream>>>(fft, views, rows, filteredCols, fftStride, padded);
}

void launchToSoftMirror(const float* fft, int views, int rows, int bufferRows, int filteredCols,
                        int fftStride, bool half, void* out, cudaStream_t stream, int viewStep,
                        bool pairMajor) {
  assert(half || !pairMajor);  // the pair-major layout holds half taps only
  if (half && pairMajor)
    launchToGrid<GridLayout::HalfPairMajor>(fft, views, rows, bufferRows, filteredCols, fftStride,
                                            viewStep, out, stream);
  else if (half)
    launchToGrid<GridLayout::HalfQuads>(fft, views, rows, bufferRows, filteredCols, fftStride,
                                        viewStep, out, stream);
  else
    launchToGrid<GridLayout::FloatPairs>(fft, views, rows, bufferRows, filteredCols, fftStride,
                                         viewStep, out, stream);
}

void launchToQuads(const float* fft, int views, int rows, int bufferRows, int filteredCols,
                   int fftStride, int viewStep, void* out, cudaStream_t stream) {
  launchToGrid<GridLayout::FloatQuads>(fft, views, rows, bufferRows, filteredCols, fftStride,
                                       viewStep, out, stream);
}

void launchToMirrorFloat2(const float* fft, int views, int rows, int bufferRows, int filteredCols,
                          int fftStride, void* out, cudaStream_t stream) {
  toMirrorFloat2Kernel<<<rowGrid(filteredCols, static_cast<long long>(views) * rows, 128), 128, 0,
                         stream>>>(fft, views, rows, bufferRows, filteredCols, fftStride,
                                   static_cast<float2*>(out));
}

void launchToMirrorHalf2(const float* fft, int views, int rows, int bufferRows, int filteredCols,
                         int fftStride, void* half2Out, cudaStream_t stream) {
  toMirrorHalf2Kernel<<<rowGrid(filteredCols, static_cast<long long>(views) * rows, 128), 128, 0,
                        stream>>>(fft, views, rows, bufferRows, filteredCols, fftStride,
                                  static_cast<__half2*>(half2Out));
}

}  // namespace tomowb::cuda::kernels
