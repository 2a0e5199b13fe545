#include "recon/operator/ArrayOps.h"

#include <omp.h>

#include <algorithm>
#include <cassert>
#include <cmath>
#include <limits>

#include "recon/core/Error.h"
#include "recon/operator/HyperbolaStencil.h"

namespace tomowb::op {

namespace {

void requireSameSize(const Array& a, const Array& b, const char* what) {
  if (a.size() != b.size())
    throw ParameterError(what, "the arrays differ in size (" + std::to_string(a.size()) + " and " +
                                   std::to_string(b.size()) + " elements)");
}

std::int64_t length(const Array& a) {
  return static_cast<std::int64_t>(a.size());
}

}  // namespace

float* HostVolumeArray::data() noexcept {
  assert(!borrowed_);
  return owned_.data();
}

Volume& HostVolumeArray::volume() noexcept {
  assert(!borrowed_);
  return owned_;
}

Volume HostVolumeArray::take() && {
  if (!borrowed_) return std::move(owned_);
  Volume copy(volume_->shape(), volume_->voxelSizeMm(), volume_->originMm());
  std::copy(volume_->voxels().begin(), volume_->voxels().end(), copy.voxels().begin());
  return copy;
}

float* HostProjectionArray::data() noexcept {
  assert(!borrowed_);
  return owned_.data();
}

ProjectionStack& HostProjectionArray::stack() noexcept {
  assert(!borrowed_);
  return owned_;
}

std::string HostArrayOps::describe() const {
  return "CPU, " + std::to_string(omp_get_max_threads()) + " threads";
}

void HostArrayOps::upload(std::span<const float> host, Array& to) const {
  if (host.size() != to.size())
    throw ParameterError("upload", "the host data and the array differ in size");
  std::copy(host.begin(), host.end(), to.data());
}

void HostArrayOps::download(const Array& from, std::span<float> host) const {
  if (host.size() != from.size())
    throw ParameterError("download", "the array and the host buffer differ in size");
  std::copy(from.data(), from.data() + from.size(), host.begin());
}

void HostArrayOps::fill(Array& a, float value) const {
  float* v = a.data();
  const std::int64_t n = length(a);
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < n; ++i) v[i] = value;
}

void HostArrayOps::copy(const Array& from, Array& to) const {
  requireSameSize(from, to, "copy");
  const float* f = from.data();
  float* t = to.data();
  const std::int64_t n = length(from);
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < n; ++i) t[i] = f[i];
}

void HostArrayOps::axpy(double alpha, const Array& x, Array& y) const {
  requireSameSize(x, y, "axpy");
  const float* xv = x.data();
  float* yv = y.data();
  const std::int64_t n = length(x);
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < n; ++i)
    yv[i] = static_cast<float>(static_cast<double>(yv[i]) + alpha * static_cast<double>(xv[i]));
}

void HostArrayOps::xpby(const Array& x, double beta, Array& y) const {
  requireSameSize(x, y, "xpby");
  const float* xv = x.data();
  float* yv = y.data();
  const std::int64_t n = length(x);
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < n; ++i)
    yv[i] = static_cast<float>(static_cast<double>(xv[i]) + beta * static_cast<double>(yv[i]));
}

void HostArrayOps::addProduct(const Array& c, const Array& u, Array& x) const {
  requireSameSize(c, x, "addProduct");
  requireSameSize(u, x, "addProduct");
  const float* cv = c.data();
  const float* uv = u.data();
  float* xv = x.data();
  const std::int64_t n = length(x);
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < n; ++i) xv[i] += cv[i] * uv[i];
}

void HostArrayOps::invertSums(std::span<float> sums, double relativeThreshold, double scale) {
  float largest = 0.0f;
  for (const float s : sums) largest = std::max(largest, s);
  const double threshold = relativeThreshold * static_cast<double>(largest);
  const auto n = static_cast<std::int64_t>(sums.size());
  float* v = sums.data();
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < n; ++i) {
    const double s = v[i];
    v[i] = s > threshold && s > 0 ? static_cast<float>(scale / s) : 0;
  }
}

void HostArrayOps::invertSums(Array& a, double relativeThreshold, double scale) const {
  invertSums(std::span<float>(a.data(), a.size()), relativeThreshold, scale);
}

void HostArrayOps::clampMasked(std::span<float> x, const float* mask, float lower, float upper) {
  const auto n = static_cast<std::int64_t>(x.size());
  float* v = x.data();
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < n; ++i) {
    float value = std::clamp(v[i], lower, upper);
    if (mask && mask[i] == 0.0f) value = 0.0f;
    v[i] = value;
  }
}

void HostArrayOps::clampMasked(Array& x, const Array* mask, float lower, float upper) const {
  if (mask) requireSameSize(*mask, x, "mask");
  clampMasked(std::span<float>(x.data(), x.size()), mask ? mask->data() : nullptr, lower, upper);
}

void HostArrayOps::indicator(const Array* mask, Array& a) const {
  if (!mask) {
    fill(a, 1.0f);
    return;
  }
  requireSameSize(*mask, a, "mask");
  const float* m = mask->data();
  float* v = a.data();
  const std::int64_t n = length(a);
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < n; ++i) v[i] = m[i] != 0.0f ? 1.0f : 0.0f;
}

double HostArrayOps::dot(const Array& a, const Array& b) const {
  requireSameSize(a, b, "dot");
  const float* av = a.data();
  const float* bv = b.data();
  const std::int64_t n = length(a);
  double sum = 0;
#pragma omp parallel for schedule(static) reduction(+ : sum)
  for (std::int64_t i = 0; i < n; ++i) sum += static_cast<double>(av[i]) * bv[i];
  return sum;
}

double HostArrayOps::maxValue(const Array& a) const {
  const float* v = a.data();
  const std::int64_t n = length(a);
  float largest = -std::numeric_limits<float>::infinity();
#pragma omp parallel for schedule(static) reduction(max : largest)
  for (std::int64_t i = 0; i < n; ++i) largest = std::max(largest, v[i]);
  return largest;
}

ResidualNorms HostArrayOps::weightResidual(const Array& b, const Array& w, Array& r,
                                           const ViewSelection& selection) const {
  requireSameSize(b, r, "weightResidual");
  requireSameSize(w, r, "weightResidual");
  const std::int64_t pixelsPerView = selection.pixelsPerView;
  const bool all = selection.views.empty();
  const std::int64_t viewsSelected =
      all ? selection.viewCount : static_cast<std::int64_t>(selection.views.size());
  const std::int64_t count = viewsSelected * pixelsPerView;
  const float* bv = b.data();
  const float* wv = w.data();
  float* rv = r.data();
  const std::int64_t* views = selection.views.data();
  double r2 = 0, w2 = 0;
#pragma omp parallel for schedule(static) reduction(+ : r2, w2)
  for (std::int64_t j = 0; j < count; ++j) {
    const std::int64_t i = all ? j : views[j / pixelsPerView] * pixelsPerView + j % pixelsPerView;
    const double diff = static_cast<double>(bv[i]) - static_cast<double>(rv[i]);
    const double weight = wv[i];
    r2 += diff * diff;
    w2 += weight * diff * diff;
    rv[i] = static_cast<float>(diff * weight);
  }
  return {r2, w2};
}

void HostArrayOps::multiply(const Array& c, Array& x) const {
  requireSameSize(c, x, "multiply");
  const float* cv = c.data();
  float* xv = x.data();
  const std::int64_t n = length(x);
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < n; ++i) xv[i] *= cv[i];
}

double HostArrayOps::hyperbolaPenalty(const Array& x, const VolumeShape& shape, double delta,
                                      double beta, Array& gradient, Array* curvature) const {
  if (static_cast<std::int64_t>(x.size()) != shape.voxelCount())
    throw ParameterError("hyperbolaPenalty", "the volume does not have the shape given");
  requireSameSize(x, gradient, "hyperbolaPenalty");
  if (curvature) requireSameSize(x, *curvature, "hyperbolaPenalty");
  if (!(delta > 0)) throw ParameterError("delta", "must be > 0");
  const float* xv = x.data();
  float* g = gradient.data();
  float* c = curvature ? curvature->data() : nullptr;
  const std::int64_t nx = shape.nx, ny = shape.ny, nz = shape.nz;
  const std::int64_t rows = ny * nz;
  double sum = 0;
  // Row by row (z, y): each voxel gathers its own neighbours, so no two threads write one voxel.
#pragma omp parallel for schedule(static) reduction(+ : sum)
  for (std::int64_t row = 0; row < rows; ++row) {
    const std::int64_t iz = row / ny, iy = row % ny;
    for (std::int64_t ix = 0; ix < nx; ++ix) {
      const penalty::VoxelPenalty p = penalty::hyperbolaAt(xv, nx, ny, nz, ix, iy, iz, delta);
      const std::int64_t i = row * nx + ix;
      g[i] = static_cast<float>(beta * p.gradient);
      if (c) c[i] = static_cast<float>(2.0 * beta * p.curvature);
      sum += p.value;
    }
  }
  return beta * sum;
}

void HostArrayOps::sqsStep(Array& x, const Array& descent, double scale,
                           const Array* penaltyGradient, const Array& denominator,
                           const Array* curvature, const Array* mask, float lower,
                           float upper) const {
  requireSameSize(descent, x, "sqsStep");
  requireSameSize(denominator, x, "sqsStep");
  if (penaltyGradient) requireSameSize(*penaltyGradient, x, "sqsStep");
  if (curvature) requireSameSize(*curvature, x, "sqsStep");
  if (mask) requireSameSize(*mask, x, "mask");
  float* xv = x.data();
  const float* u = descent.data();
  const float* g = penaltyGradient ? penaltyGradient->data() : nullptr;
  const float* d = denominator.data();
  const float* c = curvature ? curvature->data() : nullptr;
  const float* m = mask ? mask->data() : nullptr;
  const std::int64_t n = length(x);
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < n; ++i) {
    const double denom = static_cast<double>(d[i]) + (c ? static_cast<double>(c[i]) : 0.0);
    float value = xv[i];
    if (denom > 0) {
      const double numerator =
          scale * static_cast<double>(u[i]) - (g ? static_cast<double>(g[i]) : 0.0);
      value = static_cast<float>(static_cast<double>(value) + numerator / denom);
    }
    value = std::clamp(value, lower, upper);
    if (m && m[i] == 0.0f) value = 0.0f;
    xv[i] = value;
  }
}

PoissonSums HostArrayOps::poissonRatio(const Array& d, Array& q, const Array* m, const Array* b,
                                       const ViewSelection& selection) const {
  requireSameSize(d, q, "poissonRatio");
  if (m) requireSameSize(*m, q, "poissonRatio");
  if (b) requireSameSize(*b, q, "poissonRatio");
  const std::int64_t pixelsPerView = selection.pixelsPerView;
  const bool all = selection.views.empty();
  const std::int64_t viewsSelected =
      all ? selection.viewCount : static_cast<std::int64_t>(selection.views.size());
  const std::int64_t count = viewsSelected * pixelsPerView;
  const float* dv = d.data();
  const float* mv = m ? m->data() : nullptr;
  const float* bv = b ? b->data() : nullptr;
  float* qv = q.data();
  const std::int64_t* views = selection.views.data();
  double logL = 0, expected = 0, measured = 0;
#pragma omp parallel for schedule(static) reduction(+ : logL, expected, measured)
  for (std::int64_t j = 0; j < count; ++j) {
    const std::int64_t i = all ? j : views[j / pixelsPerView] * pixelsPerView + j % pixelsPerView;
    const double factor = mv ? double(mv[i]) : 1.0;
    const double qbar = factor * double(qv[i]) + (bv ? double(bv[i]) : 0.0);
    const double data = dv[i];
    measured += data;
    if (qbar > 0) {
      expected += qbar;
      logL += (data > 0 ? data * std::log(qbar) : 0.0) - qbar;
      qv[i] = static_cast<float>(factor * data / qbar);
    } else {
      qv[i] = 0.0f;
    }
  }
  return {logL, expected, measured};
}

void HostArrayOps::relaxedEmStep(Array& x, const Array& backprojected,
                                 const Array& subsetSensitivity, const Array& stepSensitivity,
                                 double lambda) const {
  requireSameSize(backprojected, x, "relaxedEmStep");
  requireSameSize(subsetSensitivity, x, "relaxedEmStep");
  requireSameSize(stepSensitivity, x, "relaxedEmStep");
  float* xv = x.data();
  const float* bp = backprojected.data();
  const float* s = subsetSensitivity.data();
  const float* sbar = stepSensitivity.data();
  const std::int64_t n = length(x);
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < n; ++i) {
    const double step = sbar[i];
    if (!(step > 0)) continue;
    const double next = double(xv[i]) * (step + lambda * (double(bp[i]) - double(s[i]))) / step;
    xv[i] = static_cast<float>(std::max(0.0, next));
  }
}

}  // namespace tomowb::op
