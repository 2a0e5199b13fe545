// The DIRECT GPU kernels (DirectGpuKernels.cuh).
#include "recon/pet/cuda/DirectGpuKernels.cuh"

namespace tomowb::pet::gpu {

namespace {

// 32 x 4 threads over (x, y): a warp reads 32 consecutive voxels of a row.
constexpr int kBlockX = 32, kBlockY = 4;

dim3 gridFor(Shape s, int slices, int third) {
  return dim3((s.nx + kBlockX - 1) / kBlockX * ((s.ny + kBlockY - 1) / kBlockY),
              (s.nz + slices - 1) / slices, third);
}

__device__ bool columnOf(Shape s, int& x, int& y) {
  const int tilesX = (s.nx + kBlockX - 1) / kBlockX;
  x = (blockIdx.x % tilesX) * kBlockX + threadIdx.x;
  y = (blockIdx.x / tilesX) * kBlockY + threadIdx.y;
  return x < s.nx && y < s.ny;
}

// The seed's forward projector (section 3.4): a thread per (x, y) column and kTexSlices outputs
// along z; per offset one class look-up at the SOURCE column and kTexSlices texture fetches.
__global__ void forwardTexKernel(cudaTextureObject_t image, const ViewTable* tables,
                                 const int* views, Shape s, float* out) {
  int x, y;
  if (!columnOf(s, x, y)) return;
  const int view = views[blockIdx.z];
  const ViewTable t = tables[view];
  const int z0 = blockIdx.y * kTexSlices;
  float acc[kTexSlices] = {};
  const int n = t.offsetCount;
  for (int i = 0; i < n; ++i) {
    const int4 o = __ldg(t.offsets + i);
    const int sx = x + o.x, sy = y + o.y;
    if (sx < 0 || sx >= s.nx || sy < 0 || sy >= s.ny) continue;
    const int cls = s.classCount == 1 ? 0 : __ldg(t.classMap + sy * s.nx + sx);
    const float w = __ldg(t.values + std::size_t(cls) * n + (n - 1 - i));
#pragma unroll
    for (int j = 0; j < kTexSlices; ++j)
      acc[j] += w * tex3D<float>(image, sx + 0.5f, sy + 0.5f, float(z0 + j + o.z) + 0.5f);
  }
  const std::size_t plane = std::size_t(s.nx) * s.ny;
  float* dst = out + std::size_t(view) * plane * s.nz + std::size_t(y) * s.nx + x;
#pragma unroll
  for (int j = 0; j < kTexSlices; ++j)
    if (z0 + j < s.nz) dst[std::size_t(z0 + j) * plane] = acc[j];
}

__global__ void backTexKernel(cudaTextureObject_t histo, const ViewTable* table, Shape s,
                              float* out) {
  int x, y;
  if (!columnOf(s, x, y)) return;
  const ViewTable t = *table;
  const int z0 = blockIdx.y * kTexSlices;
  const int cls = s.classCount == 1 ? 0 : __ldg(t.classMap + y * s.nx + x);
  const int n = t.offsetCount;
  const float* w = t.values + std::size_t(cls) * n;
  float acc[kTexSlices] = {};
  for (int i = 0; i < n; ++i) {
    const int4 o = __ldg(t.offsets + i);
    const float wi = __ldg(w + i);
#pragma unroll
    for (int j = 0; j < kTexSlices; ++j)
      acc[j] +=
          wi * tex3D<float>(histo, x + o.x + 0.5f, y + o.y + 0.5f, float(z0 + j + o.z) + 0.5f);
  }
  const std::size_t plane = std::size_t(s.nx) * s.ny;
  float* dst = out + std::size_t(y) * s.nx + x;
#pragma unroll
  for (int j = 0; j < kTexSlices; ++j)
    if (z0 + j < s.nz) dst[std::size_t(z0 + j) * plane] += acc[j];
}

// Register reuse: per (dx, dy) group the thread loads the input column once into a window of
// kRegSlices + kRun - 1 registers and each loaded value serves up to kRun outputs; the group's
// kRun weights (zero past its count) are read once per group and column.
__device__ __forceinline__ void gatherGroups(const float* __restrict__ in, const ViewTable& t,
                                             const float* __restrict__ weights, int cls, int x,
                                             int y, int z0, Shape s, bool sourceClass,
                                             float (&acc)[kRegSlices]) {
  const std::size_t plane = std::size_t(s.nx) * s.ny;
  const int groups = t.groupCount;
  for (int g = 0; g < groups; ++g) {
    const Group e = t.groups[g];
    const int sx = x + e.dx, sy = y + e.dy;
    if (sx < 0 || sx >= s.nx || sy < 0 || sy >= s.ny) continue;
    const int c = sourceClass ? (s.classCount == 1 ? 0 : __ldg(t.classMap + sy * s.nx + sx)) : cls;
    const float4 w4 =
        __ldg(reinterpret_cast<const float4*>(weights) + (std::size_t(c) * groups + g));
    const float w[kRun] = {w4.x, w4.y, w4.z, w4.w};
    const float* column = in + std::size_t(sy) * s.nx + sx;
    float window[kRegSlices + kRun - 1];
    const int first = z0 + e.dz0;
#pragma unroll
    for (int k = 0; k < kRegSlices + kRun - 1; ++k) {
      const int z = first + k;
      window[k] = (z >= 0 && z < s.nz) ? __ldg(column + std::size_t(z) * plane) : 0.0f;
    }
#pragma unroll
    for (int j = 0; j < kRegSlices; ++j)
#pragma unroll
      for (int r = 0; r < kRun; ++r) acc[j] += w[r] * window[j + r];
  }
}

__global__ void forwardRegKernel(const float* __restrict__ image, const ViewTable* tables,
                                 const int* views, Shape s, float* out) {
  int x, y;
  if (!columnOf(s, x, y)) return;
  const int view = views[blockIdx.z];
  const ViewTable t = tables[view];
  const int z0 = blockIdx.y * kRegSlices;
  float acc[kRegSlices] = {};
  gatherGroups(image, t, t.groupForward, 0, x, y, z0, s, true, acc);
  const std::size_t plane = std::size_t(s.nx) * s.ny;
  float* dst = out + std::size_t(view) * plane * s.nz + std::size_t(y) * s.nx + x;
#pragma unroll
  for (int j = 0; j < kRegSlices; ++j)
    if (z0 + j < s.nz) dst[std::size_t(z0 + j) * plane] = acc[j];
}

__global__ void backRegKernel(const float* __restrict__ histo, const ViewTable* tables,
                              const int* views, int viewCount, Shape s, float* out) {
  int x, y;
  if (!columnOf(s, x, y)) return;
  const int z0 = blockIdx.y * kRegSlices;
  const std::size_t plane = std::size_t(s.nx) * s.ny;
  // Each view summed on its own, then added to the total: one long float sum over every view's
  // offsets would lose about sqrt(views) in precision.
  float total[kRegSlices] = {};
  for (int k = 0; k < viewCount; ++k) {
    const int view = views[k];
    const ViewTable t = tables[view];
    const int cls = s.classCount == 1 ? 0 : __ldg(t.classMap + y * s.nx + x);
    float acc[kRegSlices] = {};
    gatherGroups(histo + std::size_t(view) * plane * s.nz, t, t.groupBack, cls, x, y, z0, s, false,
                 acc);
#pragma unroll
    for (int j = 0; j < kRegSlices; ++j) total[j] += acc[j];
  }
  float* dst = out + std::size_t(y) * s.nx + x;
#pragma unroll
  for (int j = 0; j < kRegSlices; ++j)
    if (z0 + j < s.nz) dst[std::size_t(z0 + j) * plane] += total[j];
}

// Per-block counters, added to the global ones once per block.
struct BlockCounters {
  unsigned int values[kDepositionCounters];
};

__device__ void flushCounters(BlockCounters& shared, unsigned long long* counters) {
  __syncthreads();
  if (threadIdx.x < kDepositionCounters && shared.values[threadIdx.x])
    atomicAdd(counters + threadIdx.x, (unsigned long long)shared.values[threadIdx.x]);
}

// The event's view and most likely point when it belongs to the stream, lies within the tilt
// acceptance and joins two crystals; counted in the block's counters either way.
__device__ bool locateInStream(const ListModeEvent& e, const EventGeometryTables& t, bool delayed,
                               BlockCounters& c, EventPoint& p) {
  if (((e.flags & kEventDelayed) != 0) != delayed) return false;
  atomicAdd(&c.values[0], 1u);
  if (e.crystal1 == e.crystal2 && e.ring1 == e.ring2) {
    atomicAdd(&c.values[4], 1u);
    return false;
  }
  p = locateEvent(t, e.crystal1, e.ring1, e.crystal2, e.ring2, e.tofLsb);
  if (p.view < 0) {
    atomicAdd(&c.values[2], 1u);
    return false;
  }
  return true;
}

__global__ void depositNearestKernel(const ListModeEvent* events, std::size_t count,
                                     EventGeometryTables t, bool delayed, unsigned int* counts,
                                     unsigned long long* counters) {
  __shared__ BlockCounters c;
  if (threadIdx.x < kDepositionCounters) c.values[threadIdx.x] = 0;
  __syncthreads();
  const std::size_t perView = std::size_t(t.nx) * t.ny * t.nz;
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < count;
       i += std::size_t(gridDim.x) * blockDim.x) {
    EventPoint p;
    if (!locateInStream(events[i], t, delayed, c, p)) continue;
    const std::int64_t voxel = nearestVoxel(t, p.x, p.y, p.z);
    if (voxel < 0) {
      atomicAdd(&c.values[3], 1u);
      continue;
    }
    atomicAdd(&c.values[1], 1u);
    atomicAdd(counts + std::size_t(p.view) * perView + std::size_t(voxel), 1u);
  }
  flushCounters(c, counters);
}

__device__ bool trilinearAdd(const EventGeometryTables& t, float* histo, float px, float py,
                             float pz, float weight) {
  const float f[3] = {(px - t.originMm[0]) * t.inverseVoxelMm[0],
                      (py - t.originMm[1]) * t.inverseVoxelMm[1],
                      (pz - t.originMm[2]) * t.inverseVoxelMm[2]};
  const long long n[3] = {t.nx, t.ny, t.nz};
  long long base[3];
  float frac[3];
  for (int a = 0; a < 3; ++a) {
    if (!(f[a] > -1.0f && f[a] < float(n[a]))) return false;
    const float fl = floorf(f[a]);
    base[a] = (long long)fl;
    frac[a] = f[a] - fl;
  }
  for (int corner = 0; corner < 8; ++corner) {
    long long idx[3];
    float w = weight;
    bool inside = true;
    for (int a = 0; a < 3; ++a) {
      const int step = (corner >> a) & 1;
      idx[a] = base[a] + step;
      w *= step ? frac[a] : 1.0f - frac[a];
      inside = inside && idx[a] >= 0 && idx[a] < n[a];
    }
    if (inside && w > 0) atomicAdd(histo + (idx[2] * t.ny + idx[1]) * t.nx + idx[0], w);
  }
  return true;
}

__global__ void depositWeightedKernel(const ListModeEvent* events, std::size_t count,
                                      EventGeometryTables t, bool delayed, int half, float step,
                                      float sigma, float norm, float* histo,
                                      unsigned long long* counters) {
  __shared__ BlockCounters c;
  if (threadIdx.x < kDepositionCounters) c.values[threadIdx.x] = 0;
  __syncthreads();
  const std::size_t perView = std::size_t(t.nx) * t.ny * t.nz;
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < count;
       i += std::size_t(gridDim.x) * blockDim.x) {
    EventPoint p;
    if (!locateInStream(events[i], t, delayed, c, p)) continue;
    float* view = histo + std::size_t(p.view) * perView;
    bool any = false;
    if (half == 0) {
      any = trilinearAdd(t, view, p.x, p.y, p.z, 1.0f);
    } else {
      for (int k = -half; k <= half; ++k) {
        const float s = k * step;
        const float w = expf(-0.5f * s * s / (sigma * sigma)) / norm;
        any = trilinearAdd(t, view, p.x + s * p.ux, p.y + s * p.uy, p.z + s * p.uz, w) || any;
      }
    }
    atomicAdd(&c.values[any ? 1 : 3], 1u);
  }
  flushCounters(c, counters);
}

__global__ void addCountsKernel(const unsigned int* counts, std::size_t n, float* out) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n;
       i += std::size_t(gridDim.x) * blockDim.x)
    out[i] += float(counts[i]);
}

int eventBlocks(std::size_t count) {
  const std::size_t blocks = (count + 255) / 256;
  return int(blocks < 1 ? 1 : (blocks > 65536 ? 65536 : blocks));
}

}  // namespace

void launchForwardTex(cudaTextureObject_t texture, const ViewTable* tables, const int* views,
                      int viewCount, Shape shape, float* out, cudaStream_t stream) {
  forwardTexKernel<<<gridFor(shape, kTexSlices, viewCount), dim3(kBlockX, kBlockY), 0, stream>>>(
      texture, tables, views, shape, out);
}
void launchForwardReg(const float* image, const ViewTable* tables, const int* views, int viewCount,
                      Shape shape, float* out, cudaStream_t stream) {
  forwardRegKernel<<<gridFor(shape, kRegSlices, viewCount), dim3(kBlockX, kBlockY), 0, stream>>>(
      image, tables, views, shape, out);
}
void launchBackTex(cudaTextureObject_t texture, const ViewTable* table, Shape shape, float* out,
                   cudaStream_t stream) {
  backTexKernel<<<gridFor(shape, kTexSlices, 1), dim3(kBlockX, kBlockY), 0, stream>>>(
      texture, table, shape, out);
}
void launchBackReg(const float* histo, const ViewTable* tables, const int* views, int viewCount,
                   Shape shape, float* out, cudaStream_t stream) {
  backRegKernel<<<gridFor(shape, kRegSlices, 1), dim3(kBlockX, kBlockY), 0, stream>>>(
      histo, tables, views, viewCount, shape, out);
}
void launchDepositNearest(const ListModeEvent* events, std::size_t count, EventGeometryTables t,
                          bool delayed, unsigned int* counts, unsigned long long* counters,
                          cudaStream_t stream) {
  depositNearestKernel<<<eventBlocks(count), 256, 0, stream>>>(events, count, t, delayed, counts,
                                                               counters);
}
void launchDepositWeighted(const ListModeEvent* events, std::size_t count, EventGeometryTables t,
                           bool delayed, int half, float step, float sigma, float norm,
                           float* histo, unsigned long long* counters, cudaStream_t stream) {
  depositWeightedKernel<<<eventBlocks(count), 256, 0, stream>>>(events, count, t, delayed, half,
                                                                step, sigma, norm, histo, counters);
}
void launchAddCounts(const unsigned int* counts, std::size_t n, float* out, cudaStream_t stream) {
  addCountsKernel<<<eventBlocks(n), 256, 0, stream>>>(counts, n, out);
}

}  // namespace tomowb::pet::gpu
