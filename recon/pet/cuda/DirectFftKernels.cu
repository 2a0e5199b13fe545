// The cuFFT DIRECT variant's element-wise kernels (DirectFftKernels.cuh).
#include "recon/pet/cuda/DirectFftKernels.cuh"

namespace tomowb::pet::gpu {

namespace {

int blocksFor(std::size_t n) {
  const std::size_t b = (n + 255) / 256;
  return int(b < 1 ? 1 : (b > 65536 ? 65536 : b));
}

__global__ void padKernel(const float* in, int nx, int ny, int nz, float* padded, int px, int py,
                          int pz) {
  const std::size_t n = std::size_t(px) * py * pz;
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n;
       i += std::size_t(gridDim.x) * blockDim.x) {
    const int x = int(i % px), y = int((i / px) % py), z = int(i / (std::size_t(px) * py));
    padded[i] = (x < nx && y < ny && z < nz) ? in[(std::size_t(z) * ny + y) * nx + x] : 0.0f;
  }
}

__global__ void productKernel(const cufftComplex* a, const cufftComplex* k, cufftComplex* out,
                              std::size_t n, bool accumulate) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n;
       i += std::size_t(gridDim.x) * blockDim.x) {
    const cufftComplex u = a[i], v = k[i];
    const cufftComplex p = {u.x * v.x - u.y * v.y, u.x * v.y + u.y * v.x};
    if (accumulate) {
      out[i].x += p.x;
      out[i].y += p.y;
    } else {
      out[i] = p;
    }
  }
}

__global__ void cropKernel(const float* padded, int px, int py, float scale, float* out, int nx,
                           int ny, int nz, bool add) {
  const std::size_t n = std::size_t(nx) * ny * nz;
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n;
       i += std::size_t(gridDim.x) * blockDim.x) {
    const int x = int(i % nx), y = int((i / nx) % ny), z = int(i / (std::size_t(nx) * ny));
    const float v = scale * padded[(std::size_t(z) * py + y) * px + x];
    out[i] = add ? out[i] + v : v;
  }
}

}  // namespace

void launchPad(const float* in, int nx, int ny, int nz, float* padded, int px, int py, int pz,
               cudaStream_t stream) {
  padKernel<<<blocksFor(std::size_t(px) * py * pz), 256, 0, stream>>>(in, nx, ny, nz, padded, px,
                                                                      py, pz);
}
void launchSpectrumProduct(const cufftComplex* a, const cufftComplex* k, cufftComplex* out,
                           std::size_t n, bool accumulate, cudaStream_t stream) {
  productKernel<<<blocksFor(n), 256, 0, stream>>>(a, k, out, n, accumulate);
}
void launchCrop(const float* padded, int px, int py, float scale, float* out, int nx, int ny,
                int nz, bool add, cudaStream_t stream) {
  cropKernel<<<blocksFor(std::size_t(nx) * ny * nz), 256, 0, stream>>>(padded, px, py, scale, out,
                                                                       nx, ny, nz, add);
}

}  // namespace tomowb::pet::gpu
