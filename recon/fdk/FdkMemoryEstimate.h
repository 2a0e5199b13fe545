// FdkMemoryEstimate: how much host and GPU memory an FDK run needs, and for a GPU run the plan it
// would follow when the volume and the views do not fit on the device at once: the GPU FDK's own
// planner (planGpuFdk, recon/fdk/GpuFdkPlan.h: z-slabs or mirrored slab pairs of the volume, each
// backprojected from double-buffered chunks of views), given the sizes the CUDA pipeline uses.
// This is the single source of truth for the GUI's estimate (UX goal U12: shown before a run,
// within +-20 %) and for the check before a run starts. Host figures follow what reconstructFdk
// allocates: on the CPU the projections it is given, the weighted and filtered copy (widened by
// the offset-detector extension), the volume, one ramp filter and one weighted view per thread,
// and the backprojector's padded view block; on the GPU the projections and the volume only
// (weighting and filtering happen on the device, and chunks upload straight from the input).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "recon/fdk/Fdk.h"
#include "recon/fdk/GpuFdkPlan.h"
#include "recon/geometry/Geometry.h"

namespace tomowb::fdk {

struct FdkMemoryOptions {
  int hostThreads = 0;                   // 0: OpenMP's default thread count
  std::uint64_t availableHostBytes = 0;  // 0: unknown (hostFits stays true)
  // Device memory of each GPU that would run the backprojection (its free memory, which the run
  // plans with); 0: the run is on the CPU.
  std::uint64_t deviceMemoryBytes = 0;
  // At most this much of each GPU (--gpu-mem-limit); 0: params.gpu.memoryLimitBytes, and where
  // that is 0 too, all of deviceMemoryBytes.
  std::uint64_t gpuMemoryLimitBytes = 0;
  int gpus = 1;  // GPUs sharing the run: the volume is cut into at least this many tasks
  // Kept free on each device for the CUDA context, cuFFT's plans and the driver.
  std::uint64_t deviceReserveBytes = GpuFdkPlanInput{}.reserveBytes;
  // Copies of the volume the caller keeps for live previews (the GUI: one shown, one in flight).
  int previewCopies = 0;
};

struct FdkMemoryEstimate {
  // --- host ---
  std::uint64_t projectionBytes = 0;  // the input stack (already loaded by the caller)
  std::uint64_t filteredBytes = 0;    // the weighted, filtered copy (CPU runs)
  std::uint64_t volumeBytes = 0;      // the result
  std::uint64_t perThreadBytes = 0;   // ramp filter (padded row, spectrum, FFT plan) + one view
  int threads = 1;
  std::uint64_t blockBytes = 0;          // CPU backprojector's padded view block
  std::uint64_t previewBytes = 0;        // previewCopies x volumeBytes
  std::uint64_t hostPeakBytes = 0;       // everything above at its peak, input included
  std::uint64_t hostNewBytes = 0;        // what the run allocates beyond the loaded input
  std::uint64_t availableHostBytes = 0;  // as given (0: unknown)
  bool hostFits = true;                  // hostNewBytes <= availableHostBytes (or unknown)

  // --- GPU (onGpu only) ---
  bool onGpu = false;
  std::uint64_t deviceMemoryBytes = 0;  // per GPU as the plan sees it: the device's or the limit
  int gpus = 1;
  std::uint64_t gpuBytes = 0;  // per GPU: task + chunk buffers + reserve at the plan's sizes
  GpuFdkPlanInput planInput;   // what planGpuFdk was given
  GpuFdkPlan plan;             // CPU runs: one task of every slice, one chunk of every view

  std::vector<std::string> warnings;
  // The GPU part of the summary: "one slab, 8 chunks of 64 views, 3.10 GiB per GPU (of 79.1 GiB)"
  // or the planner's message when it does not fit; empty for CPU runs.
  std::string gpuSummary;
  // "host 1.20 GiB" and, on a GPU, "; GPU " + gpuSummary.
  std::string summary;
};

// Sizes only: reads the geometry's shape and the filter extension (from FdkWeightPlan when the
// geometry allows one; otherwise no extension and a warning). Throws ParameterError for a volume
// grid with a non-positive size.
FdkMemoryEstimate estimateFdkMemory(const Geometry& geometry, const FdkParams& params,
                                    const FdkMemoryOptions& options = {});

// What planGpuFdk is given for a GPU run of `variant`, as the CUDA pipeline fills it: the FFT
// length of the ramp filter's padded row (paddedRowLength(filteredCols)), 4 input bytes per pixel
// (8 and mirrored slab pairs for the z-mirror kernel, fdk.bp.mirror-half2; fdk.bp.fast may choose
// that kernel at run time, but is estimated in z-slabs), at most 64 views per chunk. deviceBytes,
// gpus and reserveBytes are left to the caller.
GpuFdkPlanInput gpuFdkPlanInput(const VolumeShape& shape, std::int64_t views, std::int64_t rows,
                                std::int64_t cols, std::int64_t filteredCols,
                                const std::string& variant);

}  // namespace tomowb::fdk
