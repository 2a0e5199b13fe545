// Arrays and element-wise algebra for the solvers (architecture-next.md, seam 1). A solver is
// written once against ArrayOps and runs where its projector pair keeps the data: HostArrayOps
// (OpenMP over host memory) or the device's operations (recon/cuda/DeviceArrayOps), which never
// copy an array to the host behind the solver's back. Arrays are float32; every reduction sums
// in float64. Operations on projection arrays can be limited to a list of views (the subset an
// ordered-subset update works on).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include "recon/core/Volume.h"
#include "recon/data/ProjectionStack.h"

namespace tomowb::op {

enum class MemorySpace { Host, Device };

// A float32 array owned by one memory space. Volume arrays hold voxels (x fastest, then y, then
// z); projection arrays hold [view][row][col], `pixelsPerView` per view.
class Array {
 public:
  Array() = default;
  Array(const Array&) = delete;
  Array& operator=(const Array&) = delete;
  virtual ~Array() = default;
  virtual std::size_t size() const noexcept = 0;
  virtual MemorySpace space() const noexcept = 0;
  // The host address (Host) or the device address (Device) of element 0.
  virtual float* data() noexcept = 0;
  virtual const float* data() const noexcept = 0;
};

// A view list as a projection array sees it: `views` empty means every view.
struct ViewSelection {
  std::span<const std::int64_t> views;
  std::int64_t viewCount = 0;
  std::int64_t pixelsPerView = 0;
};

// ||b - y||^2 and ||b - y||_W^2 over the selected pixels (ArrayOps::weightResidual).
struct ResidualNorms {
  double residual2 = 0;
  double weighted2 = 0;
};

// The Poisson figures of an EM step over the selected pixels (ArrayOps::poissonRatio).
struct PoissonSums {
  double logLikelihood = 0;  // sum of d log qbar - qbar over pixels with qbar > 0
  double expected = 0;       // sum of qbar
  double measured = 0;       // sum of d
};

class ArrayOps {
 public:
  virtual ~ArrayOps() = default;
  virtual MemorySpace space() const noexcept = 0;
  virtual std::string describe() const = 0;  // "CPU, 16 threads", "GPU 0 (NVIDIA H100 ...)"

  virtual void upload(std::span<const float> host, Array& to) const = 0;
  virtual void download(const Array& from, std::span<float> host) const = 0;

  virtual void fill(Array& a, float value) const = 0;
  virtual void copy(const Array& from, Array& to) const = 0;
  // y += alpha x
  virtual void axpy(double alpha, const Array& x, Array& y) const = 0;
  // y = x + beta y
  virtual void xpby(const Array& x, double beta, Array& y) const = 0;
  // x += c * u, element by element
  virtual void addProduct(const Array& c, const Array& u, Array& x) const = 0;
  // a[i] = scale / a[i] where a[i] > relativeThreshold * max(a) and a[i] > 0, else 0: inverse
  // row or column sums, with rays that miss the grid and voxels no ray sees set to 0.
  virtual void invertSums(Array& a, double relativeThreshold, double scale) const = 0;
  // x[i] = clamp(x[i], lower, upper), and 0 where mask (if given) is 0. Infinite bounds: none.
  virtual void clampMasked(Array& x, const Array* mask, float lower, float upper) const = 0;
  // a[i] = 1 where mask[i] != 0, else 0 (no mask: all 1).
  virtual void indicator(const Array* mask, Array& a) const = 0;
  virtual double dot(const Array& a, const Array& b) const = 0;
  virtual double maxValue(const Array& a) const = 0;  // -inf for an empty array

  // On the selected views of projection arrays: r = (b - y) * w, returning ||b - y||^2 and
  // ||b - y||_w^2 (y is r's content on entry: the forward projection of the iterate).
  virtual ResidualNorms weightResidual(const Array& b, const Array& w, Array& r,
                                       const ViewSelection& views) const = 0;

  // x[i] *= c[i], element by element.
  virtual void multiply(const Array& c, Array& x) const = 0;
  // The edge-preserving hyperbola penalty of a volume of `shape` (PWLS, reference/sf-projectors.md
  // section 6): beta R(x), R(x) = sum over the voxel pairs of the 26-neighbourhood, each pair
  // once, of kappa psi(x_j - x_k), kappa = 1 / distance in voxel units (1, 1/sqrt 2, 1/sqrt 3),
  // psi(t) = delta^2 (sqrt(1 + (t/delta)^2) - 1). Writes gradient[j] = beta dR/dx_j = beta sum_k
  // kappa psi'(x_j - x_k) and, when asked, curvature[j] = 2 beta sum_k kappa omega(x_j - x_k),
  // omega(t) = psi'(t)/t = 1/sqrt(1 + (t/delta)^2) <= 1: the separable quadratic surrogate's
  // curvature at x (Huber's, tighter than the bound omega = 1). Returns beta R(x), summed in
  // float64. delta > 0; pairs reach no voxel outside the grid.
  virtual double hyperbolaPenalty(const Array& x, const VolumeShape& shape, double delta,
                                  double beta, Array& gradient, Array* curvature) const = 0;
  // One separable-quadratic-surrogate step: where d = denominator (+ curvature) > 0,
  //   x <- x + (scale * descent - penaltyGradient) / d
  // (elsewhere x stays), then x <- clamp(x, lower, upper), and 0 where mask (if given) is 0.
  // `descent` is the backprojected weighted residual B W (y - A x) (minus the data term's
  // gradient), the penalty arrays may be null.
  virtual void sqsStep(Array& x, const Array& descent, double scale, const Array* penaltyGradient,
                       const Array& denominator, const Array* curvature, const Array* mask,
                       float lower, float upper) const = 0;

  // EM's data ratio on the selected views of projection arrays (recon/iterative/EmRule.h): with
  // q = A x on entry, the expected data qbar = m q + b (m, b may be null: 1 and 0) and on return
  // q = m d / qbar where qbar > 0, else 0.
  virtual PoissonSums poissonRatio(const Array& d, Array& q, const Array* m, const Array* b,
                                   const ViewSelection& views) const = 0;
  // The relaxed EM step (OSEM for lambda = 1 and stepSensitivity = subsetSensitivity, block RAMLA
  // otherwise), element by element where stepSensitivity > 0 (x stays elsewhere):
  //   x <- max(0, x (stepSensitivity + lambda (backprojected - subsetSensitivity)) /
  //   stepSensitivity)
  virtual void relaxedEmStep(Array& x, const Array& backprojected, const Array& subsetSensitivity,
                             const Array& stepSensitivity, double lambda) const = 0;
};

// Host arrays are a Volume or a ProjectionStack (pinned when a GPU is present), owned or
// borrowed read-only from the caller (the measured projections: no copy), so the host projectors
// run on them directly (the borrowing constructors take a pointer to the caller's data).
class HostVolumeArray final : public Array {
 public:
  explicit HostVolumeArray(Volume&& volume) : owned_(std::move(volume)), volume_(&owned_) {}
  explicit HostVolumeArray(const Volume* borrowed) : volume_(borrowed), borrowed_(true) {}
  std::size_t size() const noexcept override { return volume_->voxels().size(); }
  MemorySpace space() const noexcept override { return MemorySpace::Host; }
  float* data() noexcept override;  // asserts the array is owned
  const float* data() const noexcept override { return volume_->data(); }
  const Volume& volume() const noexcept { return *volume_; }
  Volume& volume() noexcept;  // asserts the array is owned
  Volume take() &&;           // the owned volume (a copy of a borrowed one)

 private:
  Volume owned_;
  const Volume* volume_;
  bool borrowed_ = false;
};

class HostProjectionArray final : public Array {
 public:
  explicit HostProjectionArray(ProjectionStack&& stack)
      : owned_(std::move(stack)), stack_(&owned_) {}
  explicit HostProjectionArray(const ProjectionStack* borrowed)
      : stack_(borrowed), borrowed_(true) {}
  std::size_t size() const noexcept override { return stack_->pixels().size(); }
  MemorySpace space() const noexcept override { return MemorySpace::Host; }
  float* data() noexcept override;  // asserts the array is owned
  const float* data() const noexcept override { return stack_->data(); }
  const ProjectionStack& stack() const noexcept { return *stack_; }
  ProjectionStack& stack() noexcept;  // asserts the array is owned

 private:
  ProjectionStack owned_;
  const ProjectionStack* stack_;
  bool borrowed_ = false;
};

class HostArrayOps final : public ArrayOps {
 public:
  MemorySpace space() const noexcept override { return MemorySpace::Host; }
  std::string describe() const override;
  void upload(std::span<const float> host, Array& to) const override;
  void download(const Array& from, std::span<float> host) const override;
  void fill(Array& a, float value) const override;
  void copy(const Array& from, Array& to) const override;
  void axpy(double alpha, const Array& x, Array& y) const override;
  void xpby(const Array& x, double beta, Array& y) const override;
  void addProduct(const Array& c, const Array& u, Array& x) const override;
  void invertSums(Array& a, double relativeThreshold, double scale) const override;
  void clampMasked(Array& x, const Array* mask, float lower, float upper) const override;
  void indicator(const Array* mask, Array& a) const override;
  double dot(const Array& a, const Array& b) const override;
  double maxValue(const Array& a) const override;
  ResidualNorms weightResidual(const Array& b, const Array& w, Array& r,
                               const ViewSelection& views) const override;
  void multiply(const Array& c, Array& x) const override;
  double hyperbolaPenalty(const Array& x, const VolumeShape& shape, double delta, double beta,
                          Array& gradient, Array* curvature) const override;
  void sqsStep(Array& x, const Array& descent, double scale, const Array* penaltyGradient,
               const Array& denominator, const Array* curvature, const Array* mask, float lower,
               float upper) const override;
  PoissonSums poissonRatio(const Array& d, Array& q, const Array* m, const Array* b,
                           const ViewSelection& views) const override;
  void relaxedEmStep(Array& x, const Array& backprojected, const Array& subsetSensitivity,
                     const Array& stepSensitivity, double lambda) const override;

  // The same operations on plain spans (volumes and stacks the host code holds directly).
  static void invertSums(std::span<float> sums, double relativeThreshold, double scale);
  static void clampMasked(std::span<float> x, const float* mask, float lower, float upper);
};

}  // namespace tomowb::op
