// GPU projectors and device SIRT for electron tomography (issue #7, seed 004; reference/
// sirt-et.md sections 4, 5 and 9) through a plain C++ header (no CUDA types; DESIGN.md):
//  - the "et.fp." and "et.bp." GPU variants for the registry: seed 004's four forward-projection
//    orderings, our multi-slice texture kernels, a matched software pair and the voxel-driven
//    backprojector; aligned single-axis tilt series run the slice kernels
//    (recon/projector/SingleAxisGeometry.h), every other parallel-beam geometry the general 3-D
//    kernels (the report says why);
//  - SIRT, OS-SIRT and SART entirely on the GPU(s), the same algorithm as
//    recon/iterative/IterativeReconstruction.cpp: data resident across iterations, the residual
//    fused into the forward projector and the update into the backprojector, single-axis volumes
//    split into slabs of slices over every GPU, general 3-D volumes that do not fit streamed
//    through one GPU in z-slabs every subset (GpuEt.cpp says how);
//  - a kernel-only harness for the benchmark (bench/sirt_et.cpp).
// A build without CUDA registers nothing, and the functions throw ParameterError.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>

#include "recon/core/ProjectionStack.h"
#include "recon/core/Volume.h"
#include "recon/iterative/IterativeReconstruction.h"
#include "recon/job/JobContext.h"
#include "recon/operator/ProjectorPair.h"
#include "recon/variant/VariantRegistry.h"

namespace tomowb::cuda {

// Adds et.fp.unordered, et.fp.strips, et.fp.strips-angles, et.fp.segments, et.fp.fast,
// et.fp.matched, et.bp.voxel, et.bp.fast and et.bp.matched (CUDA builds only).
void registerGpuEtVariants(VariantRegistry& registry);

// The host-to-host entry points of the GPU variants with explicit tunables (the registry's
// entries use the defaults): upload, project on the first visible GPU, download; aligned
// single-axis problems slab by slab. As KernelVariant::forwardProject / backprojectViews.
void forwardProjectOnGpu(const std::string& variant,
                         const std::map<std::string, std::string>& tunables, const Volume& volume,
                         ProjectionStack& projections, std::span<const std::int64_t> views,
                         JobContext& context);
void backprojectOnGpu(const std::string& variant,
                      const std::map<std::string, std::string>& tunables,
                      const ProjectionStack& projections, Volume& volume,
                      std::span<const std::int64_t> views, JobContext& context);

// Runs params.method with params.forwardVariant and params.backVariant (both GPU variants) on
// the GPUs of params.gpu (devices, memory limit, tunables). `volume` has the grid's shape and
// already holds the start (warm start or zero, masked and clamped); it receives the result.
// Fills every field of `report` (appending to its warnings). Throws ParameterError for cone
// beams, unusable parameters or a problem that cannot fit, Cancelled when asked.
//
// Several slabs: when every slab fits on its own GPU at once they run in lock-step (the residual
// of the whole volume is known after each iteration: live iteration records, the stop rule and
// intermediate volumes as on the CPU); otherwise each slab runs all its iterations in turn, the
// residual curve summed over slabs is reported at the end, intermediates are not published and
// the stop rule is not applied (a warning says so). 1 slab and k slabs give bit-identical
// volumes. The general 3-D path keeps the projection data on one GPU and, when the volume does
// not fit beside them, cycles its z-slabs through the GPU in every subset (the partial ray sums
// of the slabs add up to the whole forward projection; float32 rounding apart, the same result).
void reconstructIterativeGpu(const ProjectionStack& projections,
                             const iterative::IterativeParams& params, Volume& volume,
                             JobContext& context, iterative::IterativeReport& report);

// The device-resident pair of two GPU projectors (every GPU et. variant's bindDevicePair): the
// problem held on the first GPU of problem.gpu.devices, forward and adjoint on device arrays,
// device ArrayOps, so CGLS and the ordered-subset solver copy nothing to the host between
// iterations. Null, with the reason in `why`, when one of the two runs on the CPU, the problem
// exceeds the textures, or the pair and a solver's arrays (six volumes and three projection
// stacks) do not fit the GPU; the caller then runs the pair on host arrays. Throws
// ParameterError for cone beams.
std::unique_ptr<op::ProjectorPair> bindGpuEtPair(const KernelVariant& forward,
                                                 const KernelVariant& back,
                                                 const op::ProjectorProblem& problem,
                                                 std::string& why);

// Kernel-only timing for the benchmark: the problem of `params` resident on one GPU as one slab
// (it must fit), the weights computed once; times from CUDA events around the kernels (element
// passes and texture packing included, no host transfers, no host synchronisation between
// iterations).
class IterativeBenchmark {
 public:
  IterativeBenchmark(const ProjectionStack& projections, const iterative::IterativeParams& params,
                     const Volume& start, int device = 0);
  ~IterativeBenchmark();
  IterativeBenchmark(const IterativeBenchmark&) = delete;
  IterativeBenchmark& operator=(const IterativeBenchmark&) = delete;

  double forwardSeconds(int repeats);      // mean of one forward projection of all views
  double backprojectSeconds(int repeats);  // mean of one backprojection of all views
  // Mean per iteration (one sweep over all subsets of params.method) over `iterations`.
  double iterationSeconds(int iterations);
  void download(Volume& volume) const;  // the current iterate
  std::string summary() const;          // kernels, path and slab, device
 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace tomowb::cuda
