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

std::int64_t ceilDiv(std::int64_t a, std::int64_t b) {
  return (a + b - 1) / b;
}

std::string countText(std::int64_t n, const char* one, const char* many) {
  if (n == 1) return std::string("one ") + one;
  return std::to_string(n) + " " + many;
}

std::string planText(const FdkStreamingPlan& p) {
  if (!p.fits) return "does not fit (not even one slice and one view)";
  std::string text = countText(p.slabs, "slab", "slabs");
  if (p.slabs > 1) text += " of " + std::to_string(p.slabSlices) + " slices";
  text += ", " + countText(p.batches, "batch", "batches") + " of " + std::to_string(p.batchViews) +
          " views";
  return text;
}

}  // namespace

FdkStreamingPlan planFdkStreaming(const VolumeShape& shape, std::int64_t views,
                                  std::uint64_t viewBytes, std::uint64_t usableBytes,
                                  std::int64_t maxBatchViews) {
  FdkStreamingPlan plan;
  const std::uint64_t sliceBytes = u64(shape.nx) * u64(shape.ny) * kFloatBytes;
  const std::int64_t batchCap = std::max<std::int64_t>(1, std::min(views, maxBatchViews));
  views = std::max<std::int64_t>(views, 1);
  const std::int64_t nz = std::max<std::int64_t>(shape.nz, 1);
  if (sliceBytes + viewBytes > usableBytes || sliceBytes == 0 || viewBytes == 0) {
    plan.fits = sliceBytes + viewBytes <= usableBytes;
    plan.slabs = nz;
    plan.slabSlices = 1;
    plan.batchViews = 1;
    plan.batches = views;
    plan.slabBytes = sliceBytes;
    plan.batchBytes = viewBytes;
    return plan;
  }
  // Level 1: the tallest slab that leaves room for a full batch (seed 001: fill the device with
  // slices first, then views); if not even that, the tallest slab beside a single view.
  const std::uint64_t fullBatchBytes = u64(batchCap) * viewBytes;
  std::int64_t slabSlices = 0;
  if (usableBytes > fullBatchBytes)
    slabSlices = static_cast<std::int64_t>((usableBytes - fullBatchBytes) / sliceBytes);
  if (slabSlices < 1)
    slabSlices = static_cast<std::int64_t>((usableBytes - viewBytes) / sliceBytes);
  slabSlices = std::clamp<std::int64_t>(slabSlices, 1, nz);
  plan.slabs = ceilDiv(nz, slabSlices);
  plan.slabSlices = ceilDiv(nz, plan.slabs);  // balance the slabs: 3 x 100, not 2 x 128 + 44
  plan.slabBytes = u64(plan.slabSlices) * sliceBytes;
  // Level 2: the views that fit beside the slab, at most the staging cap, balanced likewise.
  const auto roomViews = static_cast<std::int64_t>((usableBytes - plan.slabBytes) / viewBytes);
  const std::int64_t batchViews = std::clamp<std::int64_t>(roomViews, 1, batchCap);
  plan.batches = ceilDiv(views, batchViews);
  plan.batchViews = ceilDiv(views, plan.batches);
  plan.batchBytes = u64(plan.batchViews) * viewBytes;
  return plan;
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
  const std::uint64_t viewBytes = u64(rows) * u64(filteredCols) * kFloatBytes;
  if (e.onGpu) {
    e.deviceMemoryBytes = options.deviceMemoryBytes;
    const std::uint64_t usable = options.deviceMemoryBytes > options.deviceReserveBytes
                                     ? options.deviceMemoryBytes - options.deviceReserveBytes
                                     : 0;
    e.plan = planFdkStreaming(shape, views, viewBytes, usable, options.maxBatchViews);
    e.gpuBytes = e.plan.slabBytes + e.plan.batchBytes + options.deviceReserveBytes;
    e.blockBytes = 2 * e.plan.batchBytes;  // double-buffered pinned staging
    if (!e.plan.fits)
      e.warnings.push_back("one volume slice and one view (" + formatBytes(viewBytes) +
                           ") do not fit in the GPU's " + formatBytes(usable) + " usable");
  } else {
    const std::int64_t paddedView = (filteredCols + 2) * (rows + 2);
    const std::int64_t blockViews = std::clamp<std::int64_t>(
        kCpuBlockFloatBudget / std::max<std::int64_t>(paddedView, 1), 1, kCpuMaxViewsPerBlock);
    e.blockBytes =
        u64(std::min(blockViews, std::max<std::int64_t>(views, 1))) * u64(paddedView) * kFloatBytes;
    e.plan.slabSlices = shape.nz;
    e.plan.batchViews = views;
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
  if (e.onGpu)
    e.summary += "; GPU " + formatBytes(e.gpuBytes) + " of " + formatBytes(e.deviceMemoryBytes) +
                 ": " + planText(e.plan);
  return e;
}

}  // namespace tomowb::fdk
