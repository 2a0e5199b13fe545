// FdkBatch: what a GPU FDK kernel's launch function gets for one launch (at most
// kernels::kMaxViewsPerLaunch views of a chunk): the views as the kernel's input holds them
// (recon/fdk/GpuFdkKernelTable.h, GpuFdkInput), their matrices, the task's volume and the
// tunables. The pipeline (GpuFdk.cpp) fills it; each row of the descriptor table names the
// function that launches its kernel from it. Included by CUDA-side sources only.
#pragma once

#include <cuda_runtime.h>

#include "recon/fdk/cuda/FdkKernels.cuh"

namespace tomowb::cuda {

struct FdkBatch {
  // The chunk's filtered views, by the row's input: one layered texture (Layered and the mirror
  // textures), one texture per view (TexturePerView, indexed by view), or a device buffer
  // (Linear, Padded, the soft-mirror grids).
  cudaTextureObject_t layered = 0;
  const cudaTextureObject_t* perView = nullptr;
  const void* linear = nullptr;
  // The hybrid kernels' load-path views: those v of the chunk with (v + hybridPhase) %
  // hybridEvery == hybridEvery - 1, element (v + hybridPhase) / hybridEvery of hybridGrid.
  const void* hybridGrid = nullptr;
  int hybridEvery = 0, hybridPhase = 0;
  int rows = 0, cols = 0;    // the chunk's filtered detector rows and columns, before any border
  int first = 0, count = 0;  // this launch's views [first, first + count) of the chunk
  // The chunk's view matrices, view 0 first, on the host and on the device (the built-in kernels'
  // constant bank is filled from the device copy, kernels::setViewMatrices).
  const kernels::ViewMatrix* hostMatrices = nullptr;
  const kernels::ViewMatrix* deviceMatrices = nullptr;
  // >= 0: the pipeline copied the task's matrices into the constant bank at its start, and the
  // chunk's view 0 is matrix residentMatrixFirst there; -1: each batch copies its own.
  int residentMatrixFirst = -1;
  float* volume = nullptr;
  kernels::TaskShape shape;
  int viewsPerLaunch = 4;  // tunable K
  int zPerThread = 4;      // tunable z-per-thread
  cudaStream_t stream = nullptr;
};

}  // namespace tomowb::cuda
