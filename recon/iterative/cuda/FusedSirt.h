// SIRT, OS-SIRT and SART entirely on the GPU(s): the fast path of the GPU parallel-beam projector
// pair (recon/projector/cuda/GpuEt.h), taken by recon/iterative/IterativeReconstruction.cpp when
// both projectors offer it (KernelVariant::fusedSirt). The same algorithm as the ordered-subset
// solver (recon/iterative/OrderedSubsetSolver.h) with the SIRT rule: data resident across
// iterations, the residual fused into the forward projector and the update into the
// backprojector, single-axis volumes split into slabs of slices over every GPU, general 3-D
// volumes that do not fit streamed through one GPU in z-slabs every subset (FusedSirt.cpp says
// how); and a kernel-only harness for the benchmark (bench/sirt_et.cpp). Plain C++ (no CUDA
// types); a build without CUDA throws ParameterError (FusedSirtNoCuda.cpp).
#pragma once

#include <memory>
#include <string>

#include "recon/core/Volume.h"
#include "recon/data/ProjectionStack.h"
#include "recon/iterative/IterativeReconstruction.h"
#include "recon/job/JobContext.h"

namespace tomowb::cuda {

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
