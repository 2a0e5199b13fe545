// FdkMemoryEstimate: how much host and GPU memory an FDK run needs, and the streaming plan that
// a GPU run would follow when the volume and the views do not fit on the device at once
// (reference/fdk-and-large-data.md, seed 001's two-level scheme: z-slabs of the volume, each
// backprojected from batches of views; the slab is made as tall as the device allows, which
// keeps the slice-to-texture ratio low, and the batch fills what is left). This is the single
// source of truth for the GUI's estimate (UX goal U12: shown before a run, within +-20 %) and
// for the check before a run starts; the CUDA FDK's planner replaces plan() when it arrives.
// Host figures follow what reconstructFdk allocates: the projections it is given, the weighted
// and filtered copy (widened by the offset-detector extension), the volume, one ramp filter and
// one weighted view per thread, and the backprojector's padded view block.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "recon/fdk/Fdk.h"
#include "recon/geometry/Geometry.h"

namespace tomowb::fdk {

struct FdkMemoryOptions {
  int hostThreads = 0;                   // 0: OpenMP's default thread count
  std::uint64_t availableHostBytes = 0;  // 0: unknown (hostFits stays true)
  // Device memory of the GPU that would run the backprojection; 0: the run is on the CPU.
  std::uint64_t deviceMemoryBytes = 0;
  // Kept free on the device for the CUDA context, cuFFT and the driver.
  std::uint64_t deviceReserveBytes = std::uint64_t{512} << 20;
  // At most this many views per batch: the pinned staging buffer (two batches, double-buffered
  // uploads while the kernel runs) stays small, as seed 001 advises.
  std::int64_t maxBatchViews = 128;
  // Copies of the volume the caller keeps for live previews (the GUI: one shown, one in flight).
  int previewCopies = 0;
};

// Seed 001's two-level partition. One slab and one batch when everything fits.
struct FdkStreamingPlan {
  std::int64_t slabs = 1;        // z-slabs of the volume, each slabSlices tall (the last less)
  std::int64_t slabSlices = 0;   // volume slices per slab
  std::int64_t batches = 1;      // view batches per slab
  std::int64_t batchViews = 0;   // views per batch (the last batch may hold fewer)
  std::uint64_t slabBytes = 0;   // device bytes of one slab
  std::uint64_t batchBytes = 0;  // device bytes of one batch of filtered views (the texture)
  bool fits = true;              // false: not even one slice and one view fit on the device
};

struct FdkMemoryEstimate {
  // --- host ---
  std::uint64_t projectionBytes = 0;  // the input stack (already loaded by the caller)
  std::uint64_t filteredBytes = 0;    // the weighted, filtered copy
  std::uint64_t volumeBytes = 0;      // the result
  std::uint64_t perThreadBytes = 0;   // ramp filter (padded row, spectrum, FFT plan) + one view
  int threads = 1;
  std::uint64_t blockBytes = 0;          // CPU backprojector's padded view block, or GPU staging
  std::uint64_t previewBytes = 0;        // previewCopies x volumeBytes
  std::uint64_t hostPeakBytes = 0;       // everything above at its peak, input included
  std::uint64_t hostNewBytes = 0;        // what the run allocates beyond the loaded input
  std::uint64_t availableHostBytes = 0;  // as given (0: unknown)
  bool hostFits = true;                  // hostNewBytes <= availableHostBytes (or unknown)

  // --- GPU (onGpu only) ---
  bool onGpu = false;
  std::uint64_t deviceMemoryBytes = 0;
  std::uint64_t gpuBytes = 0;  // slab + batch + reserve at the plan's sizes
  FdkStreamingPlan plan;

  std::vector<std::string> warnings;
  // "host 1.20 GiB; GPU 912 MiB of 80.0 GiB: one slab, 4 batches of 124 views"
  std::string summary;
};

// Sizes only: reads the geometry's shape and the filter extension (from FdkWeightPlan when the
// geometry allows one; otherwise no extension and a warning). Throws ParameterError for a volume
// grid with a non-positive size.
FdkMemoryEstimate estimateFdkMemory(const Geometry& geometry, const FdkParams& params,
                                    const FdkMemoryOptions& options = {});

// The streaming plan alone: a `nx x ny x nz` volume of float32 backprojected from `views` views
// of `viewBytes` each, on a device with `usableBytes` for the slab and the batch.
FdkStreamingPlan planFdkStreaming(const VolumeShape& shape, std::int64_t views,
                                  std::uint64_t viewBytes, std::uint64_t usableBytes,
                                  std::int64_t maxBatchViews);

}  // namespace tomowb::fdk
