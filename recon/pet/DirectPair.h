// The DIRECT projector pair (reference/direct-tof-pet.md, section 3): forward projection K_v x of
// an image into view v's histo-image and its exact transpose K_v^T, on the pair's own arrays
// (host or device), behind the projector-pair interface of recon/operator/, so the
// ordered-subset solver runs ML-EM, OSEM and block RAMLA (recon/iterative/EmRule.h) on it like on
// any CT pair. "Projections" are the histo-images: [view][z][y][x], one image-sized block per view.
//
// Variants (registered in recon/catalog/registerBuiltins.cpp, model "direct"):
//   direct.fp.cpu / direct.bp.cpu                float64 sums, OpenMP (the reference)
//   direct.fp.gather-tex / direct.bp.gather-tex  the seed's GPU gather (3-D texture, class table)
//   direct.fp.gather-reg / direct.bp.gather-reg  register reuse along z, tables in shared memory
//   direct.fp.fft / direct.bp.fft                cuFFT convolution (invariant symmetric kernels)
#pragma once

#include <memory>
#include <span>
#include <string>

#include "recon/core/GpuRunOptions.h"
#include "recon/operator/ProjectorPair.h"
#include "recon/pet/HistoImages.h"
#include "recon/pet/SystemResponse.h"

namespace tomowb::pet {

struct DirectProblem {
  VolumeGrid grid;
  ViewBinning views;
  DirectKernelParams kernel;
  GpuRunOptions gpu;  // GPU pairs: the device (the first listed), memory limit
};

class DirectPair : public op::ProjectorPair {
 public:
  // The histo-images (data or correction factors) in the pair's memory space: borrowed on the
  // host, uploaded once on a device. ParameterError if the grid or views differ.
  virtual std::unique_ptr<const op::Array> useHistoImages(const HistoImages& histo) const = 0;
  // The histo-images an array holds, on the host.
  virtual HistoImages takeHistoImages(const op::Array& array) const = 0;
  virtual const DirectKernels& kernels() const noexcept = 0;
  virtual const DirectProblem& directProblem() const noexcept = 0;

  // Projection arrays hold histo-images: every view one image.
  op::ViewSelection select(std::span<const std::int64_t> views) const noexcept override;
  // CT projections make no sense here: ParameterError.
  std::unique_ptr<const op::Array> useProjections(const ProjectionStack& stack) const override;
};

// A host float array of one block of memory (histo-images on the host), owned or borrowed.
class HostBlockArray final : public op::Array {
 public:
  explicit HostBlockArray(std::size_t size);  // zero-filled; OutOfMemoryError naming the size
  HostBlockArray(const float* borrowed, std::size_t size) : borrowed_(borrowed), size_(size) {}
  std::size_t size() const noexcept override { return size_; }
  op::MemorySpace space() const noexcept override { return op::MemorySpace::Host; }
  float* data() noexcept override;  // asserts the array is owned
  const float* data() const noexcept override { return borrowed_ ? borrowed_ : owned_.data(); }

 private:
  std::vector<float, HostBufferAllocator<float>> owned_;
  const float* borrowed_ = nullptr;
  std::size_t size_ = 0;
};

// The CPU reference pair (float64 sums, OpenMP over output slices; the same bits for any thread
// count). `forwardName`/`adjointName` are the registry's names.
std::unique_ptr<DirectPair> makeCpuDirectPair(const DirectProblem& problem,
                                              std::shared_ptr<const DirectKernels> kernels,
                                              std::string forwardName = "direct.fp.cpu",
                                              std::string adjointName = "direct.bp.cpu");

// The float64 operators of one view on plain arrays (the adjoint tests at 1e-12):
//   forward: y = K_v x (overwrites y);  back: b += K_v^T z.
void directForwardView(const DirectKernels& kernels, int view, std::span<const double> x,
                       std::span<double> y);
void directBackView(const DirectKernels& kernels, int view, std::span<const double> z,
                    std::span<double> b);

// Binds the registered DIRECT projectors `forwardName` and `adjointName` (the registry's
// bindDirectPair). ParameterError naming the projector and the reason when they cannot.
std::unique_ptr<DirectPair> bindDirectPair(const VariantRegistry& registry,
                                           const std::string& forwardName,
                                           const std::string& adjointName,
                                           const DirectProblem& problem);

}  // namespace tomowb::pet
