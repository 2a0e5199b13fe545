// Kernels of the device arrays' element-wise algebra (DeviceArrayKernels.cuh).
#include <algorithm>
#include <cmath>

#include "recon/operator/HyperbolaStencil.h"
#include "recon/operator/cuda/DeviceArrayKernels.cuh"

namespace tomowb::cuda::arrays {

namespace {

constexpr int kThreads = 256;

int blocksFor(std::size_t n) {
  return int(std::clamp<std::size_t>((n + kThreads - 1) / kThreads, 1, kReductionBlocks));
}

__global__ void fillKernel(float* a, std::size_t n, float value) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n;
       i += std::size_t(gridDim.x) * blockDim.x)
    a[i] = value;
}

__global__ void axpyKernel(double alpha, const float* x, float* y, std::size_t n) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n;
       i += std::size_t(gridDim.x) * blockDim.x)
    y[i] = float(double(y[i]) + alpha * double(x[i]));
}

__global__ void xpbyKernel(const float* x, double beta, float* y, std::size_t n) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n;
       i += std::size_t(gridDim.x) * blockDim.x)
    y[i] = float(double(x[i]) + beta * double(y[i]));
}

__global__ void addProductKernel(const float* c, const float* u, float* x, std::size_t n) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n;
       i += std::size_t(gridDim.x) * blockDim.x)
    x[i] += c[i] * u[i];
}

__global__ void invertSumsKernel(float* a, std::size_t n, double threshold, double scale) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n;
       i += std::size_t(gridDim.x) * blockDim.x) {
    const double s = a[i];
    a[i] = s > threshold && s > 0 ? float(scale / s) : 0.0f;
  }
}

__global__ void clampMaskedKernel(float* x, const float* mask, std::size_t n, float lower,
                                  float upper) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n;
       i += std::size_t(gridDim.x) * blockDim.x) {
    float value = fminf(fmaxf(x[i], lower), upper);
    if (mask && mask[i] == 0.0f) value = 0.0f;
    x[i] = value;
  }
}

__global__ void indicatorKernel(const float* mask, float* a, std::size_t n) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n;
       i += std::size_t(gridDim.x) * blockDim.x)
    a[i] = mask[i] != 0.0f ? 1.0f : 0.0f;
}

// Sums `value` over the block into out[blockIdx.x] (float64, a fixed tree: deterministic).
__device__ void blockSum(double value, double* out) {
  __shared__ double sums[kThreads];
  sums[threadIdx.x] = value;
  __syncthreads();
  for (int stride = kThreads / 2; stride > 0; stride /= 2) {
    if (int(threadIdx.x) < stride) sums[threadIdx.x] += sums[threadIdx.x + stride];
    __syncthreads();
  }
  if (threadIdx.x == 0) out[blockIdx.x] = sums[0];
}

__global__ void dotKernel(const float* a, const float* b, std::size_t n, double* out) {
  double sum = 0;
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n;
       i += std::size_t(gridDim.x) * blockDim.x)
    sum += double(a[i]) * double(b[i]);
  blockSum(sum, out);
}

__global__ void maxKernel(const float* a, std::size_t n, double* out) {
  __shared__ float largest[kThreads];
  float m = -INFINITY;
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n;
       i += std::size_t(gridDim.x) * blockDim.x)
    m = fmaxf(m, a[i]);
  largest[threadIdx.x] = m;
  __syncthreads();
  for (int stride = kThreads / 2; stride > 0; stride /= 2) {
    if (int(threadIdx.x) < stride)
      largest[threadIdx.x] = fmaxf(largest[threadIdx.x], largest[threadIdx.x + stride]);
    __syncthreads();
  }
  if (threadIdx.x == 0) out[blockIdx.x] = largest[0];
}

// r = (b - r) * w on the selected views; block sums of (b - r)^2 and w (b - r)^2.
__global__ void weightResidualKernel(const float* b, const float* w, float* r,
                                     const std::int64_t* views, std::size_t count,
                                     std::size_t pixelsPerView, double* out) {
  double r2 = 0, w2 = 0;
  for (std::size_t j = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; j < count;
       j += std::size_t(gridDim.x) * blockDim.x) {
    const std::size_t i =
        views ? std::size_t(views[j / pixelsPerView]) * pixelsPerView + j % pixelsPerView : j;
    const double diff = double(b[i]) - double(r[i]);
    const double weight = w[i];
    r2 += diff * diff;
    w2 += weight * diff * diff;
    r[i] = float(diff * weight);
  }
  blockSum(r2, out);
  __syncthreads();
  blockSum(w2, out + gridDim.x);
}

__global__ void multiplyKernel(const float* c, float* x, std::size_t n) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n;
       i += std::size_t(gridDim.x) * blockDim.x)
    x[i] *= c[i];
}

// One voxel per thread (grid-stride, x fastest, so a warp reads neighbouring voxels); the stencil
// is HyperbolaStencil.h's, the same code the host runs.
__global__ void hyperbolaPenaltyKernel(const float* x, long long nx, long long ny, long long nz,
                                       double delta, double beta, float* gradient, float* curvature,
                                       double* out) {
  const std::size_t n = std::size_t(nx) * std::size_t(ny) * std::size_t(nz);
  double sum = 0;
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n;
       i += std::size_t(gridDim.x) * blockDim.x) {
    const long long ix = (long long)(i % std::size_t(nx));
    const long long row = (long long)(i / std::size_t(nx));
    const long long iy = row % ny, iz = row / ny;
    const op::penalty::VoxelPenalty p = op::penalty::hyperbolaAt(x, nx, ny, nz, ix, iy, iz, delta);
    gradient[i] = float(beta * p.gradient);
    if (curvature) curvature[i] = float(2.0 * beta * p.curvature);
    sum += p.value;
  }
  blockSum(sum, out);
}

__global__ void sqsStepKernel(float* x, const float* descent, double scale,
                              const float* penaltyGradient, const float* denominator,
                              const float* curvature, const float* mask, std::size_t n, float lower,
                              float upper) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n;
       i += std::size_t(gridDim.x) * blockDim.x) {
    const double denom = double(denominator[i]) + (curvature ? double(curvature[i]) : 0.0);
    float value = x[i];
    if (denom > 0) {
      const double numerator =
          scale * double(descent[i]) - (penaltyGradient ? double(penaltyGradient[i]) : 0.0);
      value = float(double(value) + numerator / denom);
    }
    value = fminf(fmaxf(value, lower), upper);
    if (mask && mask[i] == 0.0f) value = 0.0f;
    x[i] = value;
  }
}

// EM's ratio (launchPoissonRatio): qbar = m q + b, q = m d / qbar where qbar > 0, else 0.
__global__ void poissonRatioKernel(const float* d, float* q, const float* m, const float* b,
                                   const std::int64_t* views, std::size_t count,
                                   std::size_t pixelsPerView, double* out) {
  double logL = 0, expected = 0, measured = 0;
  for (std::size_t j = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; j < count;
       j += std::size_t(gridDim.x) * blockDim.x) {
    const std::size_t i =
        views ? std::size_t(views[j / pixelsPerView]) * pixelsPerView + j % pixelsPerView : j;
    const double factor = m ? double(m[i]) : 1.0;
    const double qbar = factor * double(q[i]) + (b ? double(b[i]) : 0.0);
    const double data = d[i];
    measured += data;
    if (qbar > 0) {
      expected += qbar;
      logL += (data > 0 ? data * log(qbar) : 0.0) - qbar;
      q[i] = float(factor * data / qbar);
    } else {
      q[i] = 0.0f;
    }
  }
  blockSum(logL, out);
  __syncthreads();
  blockSum(expected, out + gridDim.x);
  __syncthreads();
  blockSum(measured, out + 2 * gridDim.x);
}

__global__ void relaxedEmStepKernel(float* x, const float* bp, const float* s, const float* sbar,
                                    double lambda, std::size_t n) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n;
       i += std::size_t(gridDim.x) * blockDim.x) {
    const double step = sbar[i];
    if (!(step > 0)) continue;
    const double next = double(x[i]) * (step + lambda * (double(bp[i]) - double(s[i]))) / step;
    x[i] = float(fmax(0.0, next));
  }
}

}  // namespace

int launchPoissonRatio(const float* d, float* q, const float* m, const float* b,
                       const std::int64_t* views, std::size_t count, std::size_t pixelsPerView,
                       double* blockSums, cudaStream_t s) {
  const int blocks = blocksFor(count);
  poissonRatioKernel<<<blocks, kThreads, 0, s>>>(d, q, m, b, views, count, pixelsPerView,
                                                 blockSums);
  return blocks;
}
void launchRelaxedEmStep(float* x, const float* backprojected, const float* subsetSensitivity,
                         const float* stepSensitivity, double lambda, std::size_t n,
                         cudaStream_t s) {
  relaxedEmStepKernel<<<blocksFor(n), kThreads, 0, s>>>(x, backprojected, subsetSensitivity,
                                                        stepSensitivity, lambda, n);
}

void launchMultiply(const float* c, float* x, std::size_t n, cudaStream_t s) {
  multiplyKernel<<<blocksFor(n), kThreads, 0, s>>>(c, x, n);
}
int launchHyperbolaPenalty(const float* x, long long nx, long long ny, long long nz, double delta,
                           double beta, float* gradient, float* curvature, double* blockSums,
                           cudaStream_t s) {
  const int blocks = blocksFor(std::size_t(nx) * std::size_t(ny) * std::size_t(nz));
  hyperbolaPenaltyKernel<<<blocks, kThreads, 0, s>>>(x, nx, ny, nz, delta, beta, gradient,
                                                     curvature, blockSums);
  return blocks;
}
void launchSqsStep(float* x, const float* descent, double scale, const float* penaltyGradient,
                   const float* denominator, const float* curvature, const float* mask,
                   std::size_t n, float lower, float upper, cudaStream_t s) {
  sqsStepKernel<<<blocksFor(n), kThreads, 0, s>>>(x, descent, scale, penaltyGradient, denominator,
                                                  curvature, mask, n, lower, upper);
}

void launchFill(float* a, std::size_t n, float value, cudaStream_t s) {
  fillKernel<<<blocksFor(n), kThreads, 0, s>>>(a, n, value);
}
void launchAxpy(double alpha, const float* x, float* y, std::size_t n, cudaStream_t s) {
  axpyKernel<<<blocksFor(n), kThreads, 0, s>>>(alpha, x, y, n);
}
void launchXpby(const float* x, double beta, float* y, std::size_t n, cudaStream_t s) {
  xpbyKernel<<<blocksFor(n), kThreads, 0, s>>>(x, beta, y, n);
}
void launchAddProduct(const float* c, const float* u, float* x, std::size_t n, cudaStream_t s) {
  addProductKernel<<<blocksFor(n), kThreads, 0, s>>>(c, u, x, n);
}
void launchInvertSums(float* a, std::size_t n, double threshold, double scale, cudaStream_t s) {
  invertSumsKernel<<<blocksFor(n), kThreads, 0, s>>>(a, n, threshold, scale);
}
void launchClampMasked(float* x, const float* mask, std::size_t n, float lower, float upper,
                       cudaStream_t s) {
  clampMaskedKernel<<<blocksFor(n), kThreads, 0, s>>>(x, mask, n, lower, upper);
}
void launchIndicator(const float* mask, float* a, std::size_t n, cudaStream_t s) {
  indicatorKernel<<<blocksFor(n), kThreads, 0, s>>>(mask, a, n);
}
int launchDot(const float* a, const float* b, std::size_t n, double* blockSums, cudaStream_t s) {
  const int blocks = blocksFor(n);
  dotKernel<<<blocks, kThreads, 0, s>>>(a, b, n, blockSums);
  return blocks;
}
int launchMax(const float* a, std::size_t n, double* blockMaxima, cudaStream_t s) {
  const int blocks = blocksFor(n);
  maxKernel<<<blocks, kThreads, 0, s>>>(a, n, blockMaxima);
  return blocks;
}
int launchWeightResidual(const float* b, const float* w, float* r, const std::int64_t* views,
                         std::size_t count, std::size_t pixelsPerView, double* blockSums,
                         cudaStream_t s) {
  const int blocks = blocksFor(count);
  weightResidualKernel<<<blocks, kThreads, 0, s>>>(b, w, r, views, count, pixelsPerView, blockSums);
  return blocks;
}

}  // namespace tomowb::cuda::arrays
