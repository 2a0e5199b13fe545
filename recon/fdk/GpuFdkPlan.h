// GpuFdkPlan: how a GPU FDK run uses device memory (reference/fdk-and-large-data.md, seed 001's
// two-level scheme). The volume is cut into tasks (z-slabs; for the z-mirror kernels, which
// compute slice z and its mirror nz-1-z together, mirrored slab pairs: slices [z0, z0 + n) with
// [nz - z0 - n, nz - z0), the innermost pair being one slab across the centre); each task is
// backprojected from chunks of views that go through double-buffered device buffers: raw rows
// uploaded, weighted and ramp-filtered in place with cuFFT, copied into the kernel's input (texture
// array or padded buffer), then backprojected while the next chunk uploads. Pure arithmetic, so the
// GUI's estimate before a run and the CUDA pipeline use the same numbers, and CPU tests cover them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "recon/core/Volume.h"

namespace tomowb::fdk {

// Z: z-slabs; ZMirror: mirrored z-slab pairs (taskSlices counts both halves; the tasks split the
// lower half of the volume, (nz + 1) / 2 slices); Y: y-blocks of whole columns.
enum class GpuSplitAxis { Z, Y, ZMirror };

struct GpuFdkPlanInput {
  VolumeShape shape;
  std::int64_t views = 0;
  std::int64_t rows = 0, cols = 0;  // raw detector
  std::int64_t filteredCols = 0;    // detector columns after the offset-detector extension
  std::int64_t fftLength = 0;       // padded row length of the ramp filter
  // Bytes per detector pixel of the kernel's input (float 4, half2 mirror 4) and extra border.
  std::int64_t inputBytesPerPixel = 4;
  GpuSplitAxis axis = GpuSplitAxis::Z;
  std::int64_t maxChunkViews = 64;  // views per chunk when memory allows
  std::int64_t chunkMultiple = 1;   // chunks of a multiple of this (GpuKernelFootprint)
  // The kernel wants all of a task's views in one input array (the kernel-only benchmark and
  // the z-mirror kernel): chunkViews = views when it fits.
  int gpus = 1;
  std::uint64_t deviceBytes = 0;  // usable bytes per device (free memory or --gpu-mem-limit)
  // Kept free for the CUDA context, cuFFT's plans and the driver.
  std::uint64_t reserveBytes = std::uint64_t{256} << 20;
};

struct GpuFdkPlan {
  GpuSplitAxis axis = GpuSplitAxis::Z;
  std::int64_t tasks = 1;          // slabs (or blocks) of the volume
  std::int64_t taskSlices = 0;     // slices (z) or rows (y) per task, the last may hold fewer
  std::int64_t chunkViews = 0;     // views per chunk
  std::int64_t chunks = 0;         // chunks per task
  std::uint64_t taskBytes = 0;     // device volume buffer of one task
  std::uint64_t chunkBytes = 0;    // all per-chunk buffers (raw x2, FFT x1, kernel input x2)
  std::uint64_t perViewBytes = 0;  // chunkBytes / chunkViews
  std::uint64_t deviceBytes = 0;   // taskBytes + chunkBytes + reserve
  bool fits = true;
  std::string message;  // why it does not fit and what would; empty when it fits
  // "one slab, 8 chunks of 62 views, 3.1 GiB per GPU" / "4 slabs of 128 slices, ..."
  std::string summary() const;
};

// What a GPU kernel variant keeps per detector pixel of a chunk (its input, double-buffered in
// the chunk figure, plus any staging), and how it splits the volume (the z-mirror kernels in
// mirrored slab pairs). fdk.bp.fast is planned as its mirror choice.
struct GpuKernelFootprint {
  std::int64_t inputBytesPerPixel = 4;
  GpuSplitAxis axis = GpuSplitAxis::Z;
  // Chunks of a multiple of this many views where they hold that many (the hybrid kernels' N:
  // their grid of every N-th view is counted as 16 / N bytes a pixel, which holds for such chunks).
  std::int64_t chunkMultiple = 1;
};
GpuKernelFootprint gpuKernelFootprint(const std::string& variant);

// Device bytes one chunk of `views` views needs (all rows).
std::uint64_t gpuFdkChunkBytes(const GpuFdkPlanInput& in, std::int64_t views);

// Makes the task as large as the device allows (fewest slabs: the fewest times a detector row
// is uploaded and filtered), then fills what is left with views. With several GPUs there are at
// least as many tasks as GPUs. Never throws: an impossible request gives fits = false and a
// message naming what would fit.
GpuFdkPlan planGpuFdk(const GpuFdkPlanInput& in);

// A task's chunks of views, in order (issue #22). With `ramp`: the first ones small, doubling up
// to `chunkViews`, then the odd chunk, then full ones (8, 16, 32, 56, 64, ..., 64 for 496 views in
// chunks of 64). The upload of the projections is the pipeline's floor (496 views of
// 1248 x 960: 2.4 GB, 44 ms at 55 GB/s), and a first chunk of 64 views (6 ms to upload, 4 ms to
// filter) held back the first backprojection; with 8 views that is about 1 ms. The last chunk
// stays a full one: its backprojection, in pieces of rows, hides the slab's download. Tried and
// worse: halving again at the end (..., 32, 16, 8), which leaves the download nothing to hide
// under (1024^3 on one H100: 0.43 s against 0.38 s; bench/results/2026-11-27m-fdk-pipeline-
// ends-h100x2.md). Without `ramp`: chunks of chunkViews, the odd one last (the pipeline before).
struct GpuFdkChunk {
  std::int64_t first = 0;
  int views = 0;
};
std::vector<GpuFdkChunk> gpuFdkChunkSchedule(std::int64_t views, int chunkViews, bool ramp = true);

// How many chunks the host enqueues ahead of the GPU for a task of `taskVoxels` voxels in chunks
// of `chunkViews` views: as many as make about 0.6 s of work at 10^12 voxel updates a second (the
// kernels without mirror symmetry; the mirror ones run twice as fast), at least 2 and at most 8.
// Far ahead, the host volume's registration (which holds the driver's lock) cannot stall the
// GPU: eight chunks are a whole 512^3 or 1024^3 task of 496 views (1024^3 on one H100: 0.378 to
// 0.390 s against 0.406 to 0.413 s with two; bench/results/2026-11-27s-host-lead-h100x2.md).
// Bounded by time, a cancel waits for at most that much queued work (ux-and-robustness.md U7:
// cancel within 1 s): a 2048^3 task keeps 2.
int gpuFdkHostLead(double taskVoxels, int chunkViews);

}  // namespace tomowb::fdk
