// A test-only GPU FDK kernel, the proof of issue #18 point 6 (a new FDK kernel is one kernel file
// plus one registration line): voxel-driven, software bilinear in float32 from the views in global
// memory (GpuFdkInput::Linear), the matrices read from device memory, the batch's views summed in
// a register before one read-modify-write per voxel. GpuFdkTestKernelCudaTest.cpp registers it
// into its own registry; the built-in registry never sees it.
#include "recon/fdk/cuda/FdkBatch.h"

namespace tomowb::cuda {

namespace {

__global__ void gatherKernel(const float* views, int rows, int cols, int first, int count,
                             const kernels::ViewMatrix* matrices, float* volume,
                             kernels::TaskShape s) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  const int z = blockIdx.z;
  if (x >= s.nx || y >= s.ny) return;
  float sum = 0.0f;
  for (int k = first; k < first + count; ++k) {
    const float* m = matrices[k].m;
    const float w = m[8] * x + m[9] * y + m[10] * z + m[11];
    if (!(w > 0.0f)) continue;  // behind the source: not seen
    const float c = (m[0] * x + m[1] * y + m[2] * z + m[3]) / w;
    const float r = (m[4] * x + m[5] * y + m[6] * z + m[7]) / w;
    if (!(c > -1.0f && c < float(cols) && r > -1.0f && r < float(rows))) continue;
    const int ic = int(floorf(c)), ir = int(floorf(r));
    const float tc = c - float(ic), tr = r - float(ir);
    const float* p = views + (long long)k * rows * cols;
    const auto at = [&](int rr, int cc) {
      return rr >= 0 && rr < rows && cc >= 0 && cc < cols ? p[rr * cols + cc] : 0.0f;
    };
    const float top = at(ir, ic) + tc * (at(ir, ic + 1) - at(ir, ic));
    const float bottom = at(ir + 1, ic) + tc * (at(ir + 1, ic + 1) - at(ir + 1, ic));
    sum += (s.cone ? 1.0f / (w * w) : 1.0f) * (top + tr * (bottom - top));
  }
  volume[(static_cast<long long>(z) * s.ny + y) * s.nx + x] += sum;
}

}  // namespace

void fdkBpTestGather(const FdkBatch& b) {
  const dim3 block(16, 16);
  const dim3 grid((b.shape.nx + 15) / 16, (b.shape.ny + 15) / 16, b.shape.nz);
  gatherKernel<<<grid, block, 0, b.stream>>>(static_cast<const float*>(b.linear), b.rows, b.cols,
                                             b.first, b.count, b.deviceMatrices, b.volume, b.shape);
}

}  // namespace tomowb::cuda
