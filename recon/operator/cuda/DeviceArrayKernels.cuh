// Launchers of the element-wise kernels behind DeviceArrayOps (DeviceArrayOps.cuh): plain
// pointers, no C++20 headers, so the .cu compiles with nvcc's default standard. Launches are
// asynchronous on `s`; the reductions leave one float64 per block in the buffer (at most
// kReductionBlocks; the weighted residual 2 x that many: residual sums, then weighted sums) and
// return the block count. Included by CUDA sources only.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

namespace tomowb::cuda::arrays {

// 256 threads x at most 1024 blocks, each a grid-stride loop: enough to fill an H100 (132 SMs) and
// few enough block sums to add on the host.
constexpr int kReductionBlocks = 1024;

void launchFill(float* a, std::size_t n, float value, cudaStream_t s);
void launchAxpy(double alpha, const float* x, float* y, std::size_t n, cudaStream_t s);
void launchXpby(const float* x, double beta, float* y, std::size_t n, cudaStream_t s);
void launchAddProduct(const float* c, const float* u, float* x, std::size_t n, cudaStream_t s);
void launchInvertSums(float* a, std::size_t n, double threshold, double scale, cudaStream_t s);
void launchClampMasked(float* x, const float* mask, std::size_t n, float lower, float upper,
                       cudaStream_t s);
void launchIndicator(const float* mask, float* a, std::size_t n, cudaStream_t s);
int launchDot(const float* a, const float* b, std::size_t n, double* blockSums, cudaStream_t s);
int launchMax(const float* a, std::size_t n, double* blockMaxima, cudaStream_t s);
void launchMultiply(const float* c, float* x, std::size_t n, cudaStream_t s);
// The hyperbola penalty's stencil (recon/operator/HyperbolaStencil.h) over an nx x ny x nz volume:
// gradient and (if not null) curvature per voxel, block sums of the penalty (unscaled by beta).
int launchHyperbolaPenalty(const float* x, long long nx, long long ny, long long nz, double delta,
                           double beta, float* gradient, float* curvature, double* blockSums,
                           cudaStream_t s);
void launchSqsStep(float* x, const float* descent, double scale, const float* penaltyGradient,
                   const float* denominator, const float* curvature, const float* mask,
                   std::size_t n, float lower, float upper, cudaStream_t s);
int launchWeightResidual(const float* b, const float* w, float* r, const std::int64_t* views,
                         std::size_t count, std::size_t pixelsPerView, double* blockSums,
                         cudaStream_t s);

// EM's ratio on the selected pixels (views null: all `count`): qbar = m q + b, q = m d / qbar
// (0 where qbar <= 0); block sums of the log-likelihood, then of qbar, then of d (3 x blocks).
int launchPoissonRatio(const float* d, float* q, const float* m, const float* b,
                       const std::int64_t* views, std::size_t count, std::size_t pixelsPerView,
                       double* blockSums, cudaStream_t s);
void launchRelaxedEmStep(float* x, const float* backprojected, const float* subsetSensitivity,
                         const float* stepSensitivity, double lambda, std::size_t n,
                         cudaStream_t s);

}  // namespace tomowb::cuda::arrays
