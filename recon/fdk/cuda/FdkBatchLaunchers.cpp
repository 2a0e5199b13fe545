// The launch functions of the built-in GPU FDK kernels (FdkKernels.cu), one per row of the
// descriptor table (recon/fdk/GpuFdkKernelTable.cpp): each puts the batch's matrices where its
// kernel reads them and launches it over the batch's views. The pipeline checks the launch.
#include <algorithm>
#include <cstddef>

#include "recon/fdk/cuda/FdkBatch.h"

namespace tomowb::cuda {

namespace {

// The layered and texture kernels read the batch's matrices from the constant bank: where the
// pipeline put the task's matrices there at its start, the shape points the kernel at them; else
// they are copied there for this batch (from their device copy).
kernels::TaskShape withMatrices(const FdkBatch& b) {
  kernels::TaskShape shape = b.shape;
  if (b.residentMatrixFirst >= 0) {
    shape.matrixFirst = b.residentMatrixFirst + b.first;
  } else {
    kernels::setViewMatrices(b.deviceMatrices + b.first, b.count, b.stream);
    shape.matrixFirst = 0;
  }
  return shape;
}

}  // namespace

void fdkBpNaive(const FdkBatch& b) {
  const float* views = static_cast<const float*>(b.linear);
  for (int k = b.first; k < b.first + b.count; ++k)
    kernels::launchNaive(views + std::size_t(k) * b.rows * b.cols, b.rows, b.cols, b.cols,
                         b.deviceMatrices + k, b.volume, b.shape, b.stream);
}

void fdkBpTex(const FdkBatch& b) {
  const kernels::TaskShape shape = withMatrices(b);
  for (int k = 0; k < b.count; ++k)
    kernels::launchTexture(b.perView[b.first + k], k, b.volume, shape, b.stream);
}

void fdkBpTexMulti(const FdkBatch& b) {
  const kernels::TaskShape shape = withMatrices(b);
  for (int k = 0; k < b.count; k += b.viewsPerLaunch)
    kernels::launchTextureMulti(b.layered, k, b.first + k, std::min(b.viewsPerLaunch, b.count - k),
                                b.volume, shape, b.stream);
}

void fdkBpSlab(const FdkBatch& b) {
  const kernels::TaskShape shape = withMatrices(b);
  kernels::launchSlab(b.layered, b.first, b.count, b.zPerThread, b.volume, shape, b.stream);
}

void fdkBpLayered16(const FdkBatch& b) {
  const kernels::TaskShape shape = withMatrices(b);
  kernels::launchLayered16(b.layered, b.first, b.count, b.volume, shape, b.stream);
}

// mirror-half2 and mirror-float2: one kernel, the texture's channel format differs.
void fdkBpMirrorTexture(const FdkBatch& b) {
  const kernels::TaskShape shape = withMatrices(b);
  kernels::launchMirrorHalf2(b.layered, b.first, b.count, b.volume, shape, b.stream);
}

// An input of fewer views than N has no load path (fdk::loadPathEvery): the texture kernels then.
void fdkBpMirrorHybrid(const FdkBatch& b) {
  const kernels::TaskShape shape = withMatrices(b);
  if (b.hybridEvery == 0) {
    kernels::launchMirrorHalf2(b.layered, b.first, b.count, b.volume, shape, b.stream);
    return;
  }
  kernels::launchMirrorHybrid(b.layered, b.hybridGrid, b.hybridEvery, b.hybridPhase, b.rows, b.cols,
                              b.first, b.count, b.volume, shape, b.stream);
}

// A tilted detector or rotation axis moves u and 1/w along z: the general layered16 then (the
// hybrid kernel steps v along a z-column; the pipeline resolves such geometries to layered16).
void fdkBpHybrid(const FdkBatch& b) {
  const kernels::TaskShape shape = withMatrices(b);
  if (shape.zMovesUW || b.hybridEvery == 0)
    kernels::launchLayered16(b.layered, b.first, b.count, b.volume, shape, b.stream);
  else
    kernels::launchLayeredHybrid(b.layered, b.hybridGrid, b.hybridEvery, b.hybridPhase, b.rows,
                                 b.cols, b.first, b.count, b.volume, shape, b.stream);
}

void fdkBpSoft(const FdkBatch& b) {
  const kernels::TaskShape shape = withMatrices(b);
  const float* padded = static_cast<const float*>(b.linear);
  kernels::launchSoft(padded + std::size_t(b.first) * (b.rows + 3) * (b.cols + 3), b.rows + 3,
                      b.cols + 3, b.count, b.volume, shape, b.stream);
}

void fdkBpSoftMirror(const FdkBatch& b) {
  const kernels::TaskShape shape = withMatrices(b);
  kernels::launchSoftMirror(b.linear, false, b.rows, b.cols, b.first, b.count, b.zPerThread,
                            b.volume, shape, b.stream);
}

void fdkBpSoftMirrorHalf(const FdkBatch& b) {
  const kernels::TaskShape shape = withMatrices(b);
  kernels::launchSoftMirror(b.linear, true, b.rows, b.cols, b.first, b.count, b.zPerThread,
                            b.volume, shape, b.stream);
}

}  // namespace tomowb::cuda
