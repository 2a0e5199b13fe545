// The 3-D kernels of the GPU ET projectors' general path (EtKernels.cuh): any parallel-beam
// geometry, the texture forward projector, the matched pair and the voxel-driven backprojector,
// with their view tables in constant memory.
#include <cuda_fp16.h>

#include <cstdint>

#include "recon/projector/cuda/EtKernelCommon.cuh"
#include "recon/projector/cuda/EtKernels.cuh"

namespace tomowb::cuda::et {

namespace {

__constant__ VolumeFpView cVolumeFp[kVolumeViewsPerLaunch];
__constant__ VolumeBpView cVolumeBp[kVolumeViewsPerLaunch];

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

}  // namespace

void setVolumeFpViews(const VolumeFpView* deviceTable, int count, cudaStream_t stream) {
  cudaMemcpyToSymbolAsync(cVolumeFp, deviceTable, std::size_t(count) * sizeof(VolumeFpView), 0,
                          cudaMemcpyDeviceToDevice, stream);
}
void setVolumeBpViews(const VolumeBpView* deviceTable, int count, cudaStream_t stream) {
  cudaMemcpyToSymbolAsync(cVolumeBp, deviceTable, std::size_t(count) * sizeof(VolumeBpView), 0,
                          cudaMemcpyDeviceToDevice, stream);
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

}  // namespace tomowb::cuda::et
