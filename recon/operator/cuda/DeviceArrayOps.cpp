// Device arrays and element-wise algebra (DeviceArrayOps.cuh); the kernels are in
// DeviceArrayKernels.cu.
#include "recon/operator/cuda/DeviceArrayOps.cuh"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "recon/core/Error.h"
#include "recon/operator/cuda/DeviceArrayKernels.cuh"

namespace tomowb::cuda {

namespace {

using namespace arrays;  // NOLINT(google-build-using-namespace): the launchers of this class

void checkLaunch(const char* what) {
  TOMOWB_CUDA_CHECK(cudaGetLastError(), what);
}

void requireSameSize(const op::Array& a, const op::Array& b, const char* what) {
  if (a.size() != b.size())
    throw ParameterError(what, "the arrays differ in size (" + std::to_string(a.size()) + " and " +
                                   std::to_string(b.size()) + " elements)");
}

}  // namespace

DeviceArray::DeviceArray(std::size_t size, cudaStream_t stream, const char* what)
    : memory_(size * sizeof(float), what), size_(size) {
  TOMOWB_CUDA_CHECK(cudaMemsetAsync(memory_.as<void>(), 0, size * sizeof(float), stream), what);
}

DeviceArrayOps::DeviceArrayOps(int device, cudaStream_t stream)
    : device_(device),
      stream_(stream),
      partials_(3 * kReductionBlocks * sizeof(double), "reduction buffer") {}

std::string DeviceArrayOps::describe() const {
  cudaDeviceProp prop{};
  if (cudaGetDeviceProperties(&prop, device_) != cudaSuccess) {
    (void)cudaGetLastError();
    return "GPU " + std::to_string(device_);
  }
  return "GPU " + std::to_string(device_) + " (" + prop.name + ")";
}

void DeviceArrayOps::upload(std::span<const float> host, op::Array& to) const {
  if (host.size() != to.size())
    throw ParameterError("upload", "the host data and the array differ in size");
  copyNow(to.data(), host.data(), host.size() * sizeof(float), cudaMemcpyHostToDevice, stream_,
          "uploading an array");
}

void DeviceArrayOps::download(const op::Array& from, std::span<float> host) const {
  if (host.size() != from.size())
    throw ParameterError("download", "the array and the host buffer differ in size");
  copyNow(host.data(), from.data(), host.size() * sizeof(float), cudaMemcpyDeviceToHost, stream_,
          "downloading an array");
}

void DeviceArrayOps::fill(op::Array& a, float value) const {
  launchFill(a.data(), a.size(), value, stream_);
  checkLaunch("fill");
}

void DeviceArrayOps::copy(const op::Array& from, op::Array& to) const {
  requireSameSize(from, to, "copy");
  TOMOWB_CUDA_CHECK(cudaMemcpyAsync(to.data(), from.data(), from.size() * sizeof(float),
                                    cudaMemcpyDeviceToDevice, stream_),
                    "copying an array");
}

void DeviceArrayOps::axpy(double alpha, const op::Array& x, op::Array& y) const {
  requireSameSize(x, y, "axpy");
  launchAxpy(alpha, x.data(), y.data(), x.size(), stream_);
  checkLaunch("axpy");
}

void DeviceArrayOps::xpby(const op::Array& x, double beta, op::Array& y) const {
  requireSameSize(x, y, "xpby");
  launchXpby(x.data(), beta, y.data(), x.size(), stream_);
  checkLaunch("xpby");
}

void DeviceArrayOps::addProduct(const op::Array& c, const op::Array& u, op::Array& x) const {
  requireSameSize(c, x, "addProduct");
  requireSameSize(u, x, "addProduct");
  launchAddProduct(c.data(), u.data(), x.data(), x.size(), stream_);
  checkLaunch("addProduct");
}

void DeviceArrayOps::invertSums(op::Array& a, double relativeThreshold, double scale) const {
  const double largest = std::max(0.0, maxValue(a));
  launchInvertSums(a.data(), a.size(), relativeThreshold * largest, scale, stream_);
  checkLaunch("invertSums");
}

void DeviceArrayOps::clampMasked(op::Array& x, const op::Array* mask, float lower,
                                 float upper) const {
  if (mask) requireSameSize(*mask, x, "mask");
  launchClampMasked(x.data(), mask ? mask->data() : nullptr, x.size(), lower, upper, stream_);
  checkLaunch("clampMasked");
}

void DeviceArrayOps::indicator(const op::Array* mask, op::Array& a) const {
  if (!mask) {
    fill(a, 1.0f);
    return;
  }
  requireSameSize(*mask, a, "mask");
  launchIndicator(mask->data(), a.data(), a.size(), stream_);
  checkLaunch("indicator");
}

double DeviceArrayOps::dot(const op::Array& a, const op::Array& b) const {
  requireSameSize(a, b, "dot");
  const int blocks = launchDot(a.data(), b.data(), a.size(), partials_.as<double>(), stream_);
  checkLaunch("dot");
  std::vector<double> sums(std::size_t(blocks), 0.0);
  copyNow(sums.data(), partials_.as<void>(), sums.size() * sizeof(double), cudaMemcpyDeviceToHost,
          stream_, "dot product");
  double total = 0;
  for (const double s : sums) total += s;
  return total;
}

double DeviceArrayOps::maxValue(const op::Array& a) const {
  if (a.size() == 0) return -std::numeric_limits<double>::infinity();
  const int blocks = launchMax(a.data(), a.size(), partials_.as<double>(), stream_);
  checkLaunch("max");
  std::vector<double> maxima(std::size_t(blocks), 0.0);
  copyNow(maxima.data(), partials_.as<void>(), maxima.size() * sizeof(double),
          cudaMemcpyDeviceToHost, stream_, "maximum");
  return *std::max_element(maxima.begin(), maxima.end());
}

op::ResidualNorms DeviceArrayOps::weightResidual(const op::Array& b, const op::Array& w,
                                                 op::Array& r,
                                                 const op::ViewSelection& selection) const {
  requireSameSize(b, r, "weightResidual");
  requireSameSize(w, r, "weightResidual");
  const bool all = selection.views.empty();
  const std::size_t ppv = std::size_t(selection.pixelsPerView);
  const std::size_t count = (all ? std::size_t(selection.viewCount) : selection.views.size()) * ppv;
  const std::int64_t* views = all ? nullptr : uploadViewList(selection);
  const int blocks = launchWeightResidual(b.data(), w.data(), r.data(), views, count, ppv,
                                          partials_.as<double>(), stream_);
  checkLaunch("weightResidual");
  std::vector<double> sums(2 * std::size_t(blocks), 0.0);
  copyNow(sums.data(), partials_.as<void>(), sums.size() * sizeof(double), cudaMemcpyDeviceToHost,
          stream_, "residual norms");
  op::ResidualNorms norms;
  for (int i = 0; i < blocks; ++i) {
    norms.residual2 += sums[std::size_t(i)];
    norms.weighted2 += sums[std::size_t(blocks + i)];
  }
  return norms;
}

const std::int64_t* DeviceArrayOps::uploadViewList(const op::ViewSelection& selection) const {
  const std::size_t bytes = selection.views.size() * sizeof(std::int64_t);
  if (bytes > viewListCapacity_) {
    viewList_ = DeviceMemory(bytes, "view list");
    viewListCapacity_ = bytes;
  }
  copyNow(viewList_.as<void>(), selection.views.data(), bytes, cudaMemcpyHostToDevice, stream_,
          "view list");
  return viewList_.as<std::int64_t>();
}

op::PoissonSums DeviceArrayOps::poissonRatio(const op::Array& d, op::Array& q, const op::Array* m,
                                             const op::Array* b,
                                             const op::ViewSelection& selection) const {
  requireSameSize(d, q, "poissonRatio");
  if (m) requireSameSize(*m, q, "poissonRatio");
  if (b) requireSameSize(*b, q, "poissonRatio");
  const bool all = selection.views.empty();
  const std::size_t ppv = std::size_t(selection.pixelsPerView);
  const std::size_t count = (all ? std::size_t(selection.viewCount) : selection.views.size()) * ppv;
  const std::int64_t* views = all ? nullptr : uploadViewList(selection);
  const int blocks =
      launchPoissonRatio(d.data(), q.data(), m ? m->data() : nullptr, b ? b->data() : nullptr,
                         views, count, ppv, partials_.as<double>(), stream_);
  checkLaunch("poissonRatio");
  std::vector<double> sums(3 * std::size_t(blocks), 0.0);
  copyNow(sums.data(), partials_.as<void>(), sums.size() * sizeof(double), cudaMemcpyDeviceToHost,
          stream_, "Poisson sums");
  op::PoissonSums out;
  for (int i = 0; i < blocks; ++i) {
    out.logLikelihood += sums[std::size_t(i)];
    out.expected += sums[std::size_t(blocks + i)];
    out.measured += sums[std::size_t(2 * blocks + i)];
  }
  return out;
}

void DeviceArrayOps::relaxedEmStep(op::Array& x, const op::Array& backprojected,
                                   const op::Array& subsetSensitivity,
                                   const op::Array& stepSensitivity, double lambda) const {
  requireSameSize(backprojected, x, "relaxedEmStep");
  requireSameSize(subsetSensitivity, x, "relaxedEmStep");
  requireSameSize(stepSensitivity, x, "relaxedEmStep");
  launchRelaxedEmStep(x.data(), backprojected.data(), subsetSensitivity.data(),
                      stepSensitivity.data(), lambda, x.size(), stream_);
  checkLaunch("relaxedEmStep");
}

void DeviceArrayOps::multiply(const op::Array& c, op::Array& x) const {
  requireSameSize(c, x, "multiply");
  launchMultiply(c.data(), x.data(), x.size(), stream_);
  checkLaunch("multiply");
}

double DeviceArrayOps::hyperbolaPenalty(const op::Array& x, const VolumeShape& shape, double delta,
                                        double beta, op::Array& gradient,
                                        op::Array* curvature) const {
  if (static_cast<std::int64_t>(x.size()) != shape.voxelCount())
    throw ParameterError("hyperbolaPenalty", "the volume does not have the shape given");
  requireSameSize(x, gradient, "hyperbolaPenalty");
  if (curvature) requireSameSize(x, *curvature, "hyperbolaPenalty");
  if (!(delta > 0)) throw ParameterError("delta", "must be > 0");
  if (x.size() == 0) return 0.0;
  const int blocks = launchHyperbolaPenalty(
      x.data(), shape.nx, shape.ny, shape.nz, delta, beta, gradient.data(),
      curvature ? curvature->data() : nullptr, partials_.as<double>(), stream_);
  checkLaunch("hyperbolaPenalty");
  std::vector<double> sums(std::size_t(blocks), 0.0);
  copyNow(sums.data(), partials_.as<void>(), sums.size() * sizeof(double), cudaMemcpyDeviceToHost,
          stream_, "penalty");
  double total = 0;
  for (const double s : sums) total += s;
  return beta * total;
}

void DeviceArrayOps::sqsStep(op::Array& x, const op::Array& descent, double scale,
                             const op::Array* penaltyGradient, const op::Array& denominator,
                             const op::Array* curvature, const op::Array* mask, float lower,
                             float upper) const {
  requireSameSize(descent, x, "sqsStep");
  requireSameSize(denominator, x, "sqsStep");
  if (penaltyGradient) requireSameSize(*penaltyGradient, x, "sqsStep");
  if (curvature) requireSameSize(*curvature, x, "sqsStep");
  if (mask) requireSameSize(*mask, x, "mask");
  launchSqsStep(x.data(), descent.data(), scale,
                penaltyGradient ? penaltyGradient->data() : nullptr, denominator.data(),
                curvature ? curvature->data() : nullptr, mask ? mask->data() : nullptr, x.size(),
                lower, upper, stream_);
  checkLaunch("sqsStep");
}

}  // namespace tomowb::cuda
