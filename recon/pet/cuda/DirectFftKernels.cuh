// Element-wise kernels of the cuFFT DIRECT variant (direct.fp.fft / direct.bp.fft): zero padding,
// the spectrum product (overwrite or accumulate) and the crop back to the grid. Included by CUDA
// sources only.
#pragma once

#include <cuda_runtime.h>
#include <cufft.h>

#include <cstddef>

namespace tomowb::pet::gpu {

// padded (px, py, pz) <- in (nx, ny, nz) at the origin, zeros elsewhere.
void launchPad(const float* in, int nx, int ny, int nz, float* padded, int px, int py, int pz,
               cudaStream_t stream);
// out = a * k (accumulate: out += a * k), n complex values.
void launchSpectrumProduct(const cufftComplex* a, const cufftComplex* k, cufftComplex* out,
                           std::size_t n, bool accumulate, cudaStream_t stream);
// out (nx, ny, nz) = (or +=) scale * padded (px, py, pz) at the origin.
void launchCrop(const float* padded, int px, int py, float scale, float* out, int nx, int ny,
                int nz, bool add, cudaStream_t stream);

}  // namespace tomowb::pet::gpu
