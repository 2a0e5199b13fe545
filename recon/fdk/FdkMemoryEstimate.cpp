#include "recon/fdk/FdkMemoryEstimate.h"

#include <omp.h>

#include <algorithm>
#include <string>

#include "recon/core/Error.h"
#include "recon/core/MemoryBudget.h"
#include "recon/fdk/RampFilter.h"

namespace tomowb::fdk {

namespace {

constexpr std::uint64_t kFloatBytes = sizeof(float);
// Eigen's half-spectrum FFT of n real samples keeps a complex plan of n/2 points (twiddles and
// scratch), real twiddles and two n/2+1 buffers: about 5 x n/2 complex floats. With the
// filter's own padded row, spectrum and response that is ~32 bytes per padded sample.
constexpr std::uint64_t kRampBytesPerPaddedSample = 32;
// The CPU backprojector copies blocks of up to 32 views, at most 16 Mi floats, with a one-pixel
// zero border (BackprojectorCpu.cpp: kMaxViewsPerBlock, kBlockFloatBudget).
constexpr std::int64_t kCpuMaxViewsPerBlock = 32;
constexpr std::int64_t kCpuBlockFloatBudget = 16ll << 20;

std::uint64_t u64(std::int64_t v) {
  return static_cast<std::uint64_t>(std::max<std::int64_t>(v, 0));
}

}  // namespace

GpuFdkPlanInput gpuFdkPlanInput(const VolumeShape& shape, std::int64_t views, std::int64_t rows,
                                std::int64_t cols, std::int64_t filteredCols,
                                const std::string& variant) {
  GpuFdkPlanInput in;
  in.shape = shape;
  in.views = views;
  in.rows = rows;
  in.cols = cols;
  in.filteredCols = filteredCols;
  in.fftLength = paddedRowLength(std::max<std::int64_t>(filteredCols, 1));
  // What the kernel keeps per pixel and how it splits the volume: the pipeline's own figures.
  const GpuKernelFootprint footprint = gpuKernelFootprint(variant);
  in.inputBytesPerPixel = footprint.inputBytesPerPixel;
  in.axis = footprint.axis;
  in.chunkMultiple = footprint.chunkMultiple;
  in.maxChunkViews = 64;
  return in;
}

FdkMemoryEstimate estimateFdkMemory(const Geometry& geometry, const FdkParams& params,
                                    const FdkMemoryOptions& options) {
  const VolumeShape& shape = params.volume.shape;
  if (shape.nx < 1 || shape.ny < 1 || shape.nz < 1)
    throw ParameterError("volume.shape",
                         "every axis must be >= 1, got " + std::to_string(shape.nx) + " x " +
                             std::to_string(shape.ny) + " x " + std::to_string(shape.nz));
  FdkMemoryEstimate e;
  const std::int64_t views = geometry.viewCount();
  const std::int64_t rows = geometry.detector().rows, cols = geometry.detector().cols;

  std::int64_t filteredCols = cols;
  if (views > 0) {
    try {
      const FdkWeightPlan plan(geometry, params.redundancy);
      filteredCols += plan.filterExtension().before + plan.filterExtension().after;
    } catch (const Error& error) {
      e.warnings.push_back(std::string("FDK cannot run on this geometry: ") + error.what());
    }
  }

  e.projectionBytes = u64(views) * u64(rows) * u64(cols) * kFloatBytes;
  e.filteredBytes = u64(views) * u64(rows) * u64(filteredCols) * kFloatBytes;
  e.volumeBytes = u64(shape.nx) * u64(shape.ny) * u64(shape.nz) * kFloatBytes;
  e.threads = options.hostThreads > 0 ? options.hostThreads : std::max(1, omp_get_max_threads());
  const std::uint64_t rampBytes =
      u64(paddedRowLength(std::max<std::int64_t>(filteredCols, 1))) * kRampBytesPerPaddedSample;
  e.perThreadBytes = rampBytes + u64(rows) * u64(cols) * kFloatBytes;
  e.previewBytes = u64(std::max(options.previewCopies, 0)) * e.volumeBytes;

  e.onGpu = options.deviceMemoryBytes > 0;
  if (e.onGpu) {
    // Weighting and filtering run on the device: no filtered copy, no per-thread filters; the
    // chunks upload from the input stack.
    e.filteredBytes = 0;
    e.perThreadBytes = 0;
    const std::uint64_t limit =
        options.gpuMemoryLimitBytes > 0 ? options.gpuMemoryLimitBytes : params.gpu.memoryLimitBytes;
    e.deviceMemoryBytes =
        limit > 0 ? std::min(limit, options.deviceMemoryBytes) : options.deviceMemoryBytes;
    e.gpus = std::max(options.gpus, 1);
    e.planInput = gpuFdkPlanInput(shape, views, rows, cols, filteredCols, params.variant);
    e.planInput.gpus = e.gpus;
    e.planInput.deviceBytes = e.deviceMemoryBytes;
    e.planInput.reserveBytes = options.deviceReserveBytes;
    e.plan = planGpuFdk(e.planInput);
    if (e.plan.fits) {
      e.gpuBytes = e.plan.deviceBytes;
      e.gpuSummary = e.plan.summary() + " (of " + formatBytes(e.deviceMemoryBytes) +
                     (e.gpus > 1 ? " on each of " + std::to_string(e.gpus) + " GPUs)" : ")");
    } else {
      e.gpuSummary = e.plan.message;
      e.warnings.push_back("GPU run: " + e.plan.message);
    }
  } else {
    const std::int64_t paddedView = (filteredCols + 2) * (rows + 2);
    const std::int64_t blockViews = std::clamp<std::int64_t>(
        kCpuBlockFloatBudget / std::max<std::int64_t>(paddedView, 1), 1, kCpuMaxViewsPerBlock);
    e.blockBytes =
        u64(std::min(blockViews, std::max<std::int64_t>(views, 1))) * u64(paddedView) * kFloatBytes;
    e.plan.taskSlices = shape.nz;
    e.plan.chunkViews = views;
    e.plan.chunks = 1;
  }
  // Peak: filtering runs with the input, the empty volume and the per-thread buffers alive; the
  // backprojection with the filtered copy and its block instead of the per-thread buffers.
  const std::uint64_t filterPhase = u64(e.threads) * e.perThreadBytes;
  const std::uint64_t backprojectPhase = e.blockBytes;
  e.hostNewBytes =
      e.filteredBytes + e.volumeBytes + e.previewBytes + std::max(filterPhase, backprojectPhase);
  e.hostPeakBytes = e.projectionBytes + e.hostNewBytes;
  e.availableHostBytes = options.availableHostBytes;
  e.hostFits = options.availableHostBytes == 0 || e.hostNewBytes <= options.availableHostBytes;
  if (!e.hostFits)
    e.warnings.push_back("the run needs " + formatBytes(e.hostNewBytes) + " more host memory, " +
                         formatBytes(options.availableHostBytes) + " is available");

  e.summary = "host " + formatBytes(e.hostPeakBytes);
  if (e.onGpu) e.summary += "; GPU " + e.gpuSummary;
  return e;
}

}  // namespace tomowb::fdk
