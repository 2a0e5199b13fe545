// Device arrays and the element-wise algebra of the solvers on one GPU (the device side of
// recon/operator/ArrayOps.h). Every operation is ordered on the owner's stream; the ones that
// return a number (dot products, maxima, residual norms) wait for it. Reductions are
// deterministic: a fixed grid of blocks, each summing its grid-stride share in float64 in a fixed
// order, the block sums added on the host in block order. Included by CUDA sources only.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <string>

#include "recon/device/CudaResources.h"
#include "recon/operator/ArrayOps.h"

namespace tomowb::cuda {

class DeviceArray final : public op::Array {
 public:
  // Zero-filled, on the current device.
  DeviceArray(std::size_t size, cudaStream_t stream, const char* what);
  std::size_t size() const noexcept override { return size_; }
  op::MemorySpace space() const noexcept override { return op::MemorySpace::Device; }
  float* data() noexcept override { return memory_.as<float>(); }
  const float* data() const noexcept override { return memory_.as<float>(); }

 private:
  DeviceMemory memory_;
  std::size_t size_;
};

class DeviceArrayOps final : public op::ArrayOps {
 public:
  // Operations on `device`, ordered on `stream` (the projector pair's).
  DeviceArrayOps(int device, cudaStream_t stream);
  op::MemorySpace space() const noexcept override { return op::MemorySpace::Device; }
  std::string describe() const override;
  cudaStream_t stream() const noexcept { return stream_; }
  int device() const noexcept { return device_; }

  void upload(std::span<const float> host, op::Array& to) const override;
  void download(const op::Array& from, std::span<float> host) const override;
  void fill(op::Array& a, float value) const override;
  void copy(const op::Array& from, op::Array& to) const override;
  void axpy(double alpha, const op::Array& x, op::Array& y) const override;
  void xpby(const op::Array& x, double beta, op::Array& y) const override;
  void addProduct(const op::Array& c, const op::Array& u, op::Array& x) const override;
  void invertSums(op::Array& a, double relativeThreshold, double scale) const override;
  void clampMasked(op::Array& x, const op::Array* mask, float lower, float upper) const override;
  void indicator(const op::Array* mask, op::Array& a) const override;
  double dot(const op::Array& a, const op::Array& b) const override;
  double maxValue(const op::Array& a) const override;
  op::ResidualNorms weightResidual(const op::Array& b, const op::Array& w, op::Array& r,
                                   const op::ViewSelection& views) const override;
  void multiply(const op::Array& c, op::Array& x) const override;
  double hyperbolaPenalty(const op::Array& x, const VolumeShape& shape, double delta, double beta,
                          op::Array& gradient, op::Array* curvature) const override;
  void sqsStep(op::Array& x, const op::Array& descent, double scale,
               const op::Array* penaltyGradient, const op::Array& denominator,
               const op::Array* curvature, const op::Array* mask, float lower,
               float upper) const override;
  op::PoissonSums poissonRatio(const op::Array& d, op::Array& q, const op::Array* m,
                               const op::Array* b, const op::ViewSelection& views) const override;
  void relaxedEmStep(op::Array& x, const op::Array& backprojected,
                     const op::Array& subsetSensitivity, const op::Array& stepSensitivity,
                     double lambda) const override;

 private:
  const std::int64_t* uploadViewList(const op::ViewSelection& selection) const;
  int device_;
  cudaStream_t stream_;
  DeviceMemory partials_;  // block sums: 2 x kReductionBlocks doubles
  mutable DeviceMemory viewList_;
  mutable std::size_t viewListCapacity_ = 0;
};

}  // namespace tomowb::cuda
