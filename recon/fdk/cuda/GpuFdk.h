// GPU FDK through a plain C++ header (no CUDA types; DESIGN.md): the kernel variants of issue #6
// for the registry, the whole-FDK pipeline they run (GPU weighting and cuFFT ramp filtering,
// streamed z-slabs and view chunks, several GPUs from one task queue; recon/fdk/GpuFdkPlan.h),
// and a kernel-only harness for the benchmark. A build without CUDA registers no GPU variant and
// DeviceBackprojection throws.
#pragma once

#include <map>
#include <memory>
#include <string>

#include "recon/core/Volume.h"
#include "recon/data/ProjectionStack.h"
#include "recon/fdk/FdkWeights.h"
#include "recon/fdk/RampFilter.h"
#include "recon/variant/VariantRegistry.h"

namespace tomowb::fdk {
struct GpuFdkKernel;  // a row of the family's descriptor table (recon/fdk/GpuFdkKernelTable.h)
}  // namespace tomowb::fdk

namespace tomowb::cuda {

// Adds every row of the descriptor table (fdk::gpuFdkKernels(): fdk.bp.naive ... fdk.bp.fast) as
// an FDK backprojector (CUDA builds only).
void registerGpuVariants(VariantRegistry& registry);
// Adds one row as a GPU FDK backprojector that runs the whole pipeline with it: what
// registerGpuVariants does per built-in row, and how a test registers a kernel of its own. The
// row must outlive the registry. A build without CUDA adds nothing.
void addGpuFdkVariant(VariantRegistry& registry, const fdk::GpuFdkKernel& kernel);

// Whether `variant`'s kernel can run this geometry as is (the z-mirror kernel needs an untilted
// detector centred on the source plane and a volume centred on it); if not, `why` says why and
// the pipeline runs `fallback` instead.
struct KernelChoice {
  std::string kernel;  // the variant that will run
  std::string why;     // empty, or the reason for a fallback
};
KernelChoice chooseKernel(const std::string& variant, const ProjectionStack& projections,
                          const Volume& volume);

// The GPU pipeline's weighting and cuFFT ramp filter alone (the same FdkWeightPlan and response as
// fdk::filterProjections on the CPU): the weighted, filtered stack on the widened detector, for
// tests that hold the GPU filter to the CPU's. Throws without CUDA.
ProjectionStack filterProjectionsOnGpu(const ProjectionStack& projections,
                                       const fdk::FdkWeightPlan& weightPlan,
                                       const fdk::RampFilterParams& filter, int device = 0);

// Kernel-only timing for the benchmark: uploads the filtered stack once into the variant's input
// (texture array or padded buffer) on `device`; run() zeroes the device volume, launches the
// variant over all views and returns the kernels' time from CUDA events (seconds).
class DeviceBackprojection {
 public:
  DeviceBackprojection(const ProjectionStack& filtered, const Volume& grid,
                       const std::string& variant,
                       const std::map<std::string, std::string>& tunables = {}, int device = 0);
  DeviceBackprojection(const ProjectionStack& filtered, const Volume& grid,
                       const fdk::GpuFdkKernel& variant,
                       const std::map<std::string, std::string>& tunables = {}, int device = 0);
  ~DeviceBackprojection();
  DeviceBackprojection(const DeviceBackprojection&) = delete;
  DeviceBackprojection& operator=(const DeviceBackprojection&) = delete;

  double run();
  void download(Volume& volume) const;  // the last run's result, into a volume of the grid's shape
  const std::string& kernel() const;    // after a fallback, the kernel that runs

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace tomowb::cuda
