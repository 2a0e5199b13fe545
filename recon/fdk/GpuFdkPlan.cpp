#include "recon/fdk/GpuFdkPlan.h"

#include <algorithm>
#include <cmath>

#include "recon/core/MemoryBudget.h"
#include "recon/fdk/GpuFdkKernelTable.h"

namespace tomowb::fdk {

namespace {

std::uint64_t u64(std::int64_t v) {
  return static_cast<std::uint64_t>(std::max<std::int64_t>(v, 0));
}

std::int64_t ceilDiv(std::int64_t a, std::int64_t b) {
  return (a + b - 1) / b;
}

// The largest multiple of `multiple` up to `chunk` where there is one; else `chunk`.
std::int64_t roundedDownToMultiple(std::int64_t chunk, std::int64_t multiple) {
  return multiple > 1 && chunk >= multiple ? chunk - chunk % multiple : chunk;
}

}  // namespace

std::uint64_t gpuFdkChunkBytes(const GpuFdkPlanInput& in, std::int64_t views) {
  const std::uint64_t rows = u64(in.rows);
  // Raw rows (double-buffered uploads), one in-place R2C/C2R buffer of fftLength + 2 floats per
  // row, and the kernel's input (double-buffered so a chunk uploads while the last one is read).
  const std::uint64_t raw = 2 * rows * u64(in.cols) * 4;
  const std::uint64_t fft = rows * (u64(in.fftLength) + 2) * 4;
  const std::uint64_t input =
      2 * (rows + 3) * (u64(in.filteredCols) + 3) * u64(in.inputBytesPerPixel);
  return u64(views) * (raw + fft + input);
}

GpuKernelFootprint gpuKernelFootprint(const std::string& variant) {
  const GpuFdkKernel* kernel = findGpuFdkKernel(variant);
  return kernel ? footprintOf(*kernel) : GpuKernelFootprint{};
}

std::string GpuFdkPlan::summary() const {
  if (!fits) return message;
  const char* unit = axis == GpuSplitAxis::Z         ? "slab"
                     : axis == GpuSplitAxis::ZMirror ? "mirrored slab pair"
                                                     : "block";
  std::string text = tasks == 1 ? std::string("one ") + unit
                                : std::to_string(tasks) + " " + unit + "s of " +
                                      std::to_string(taskSlices) +
                                      (axis == GpuSplitAxis::Y ? " rows" : " slices");
  text += ", " + std::to_string(chunks) + (chunks == 1 ? " chunk of " : " chunks of ") +
          std::to_string(chunkViews) + " views, " + formatBytes(deviceBytes) + " per GPU";
  return text;
}

GpuFdkPlan planGpuFdk(const GpuFdkPlanInput& in) {
  GpuFdkPlan plan;
  plan.axis = in.axis;
  if (in.shape.nx < 1 || in.shape.ny < 1 || in.shape.nz < 1 || in.rows < 1 || in.cols < 1 ||
      in.filteredCols < 1 || in.fftLength < 1 || in.inputBytesPerPixel < 1) {
    // The sizes below divide by a slice's and a view's bytes: an empty one has nothing to plan.
    plan.fits = false;
    plan.message = "nothing to plan: the volume (" + std::to_string(in.shape.nx) + " x " +
                   std::to_string(in.shape.ny) + " x " + std::to_string(in.shape.nz) +
                   ") and the detector (" + std::to_string(in.rows) + " rows x " +
                   std::to_string(in.cols) + " columns) must not be empty";
    return plan;
  }
  const std::int64_t views = std::max<std::int64_t>(in.views, 1);
  const bool alongZ = in.axis != GpuSplitAxis::Y;
  const std::int64_t slices = std::max<std::int64_t>(alongZ ? in.shape.nz : in.shape.ny, 1);
  const std::uint64_t sliceBytes = u64(in.shape.nx) * u64(alongZ ? in.shape.ny : in.shape.nz) * 4;
  const std::uint64_t usable =
      in.deviceBytes > in.reserveBytes ? in.deviceBytes - in.reserveBytes : 0;
  const std::int64_t wantChunk = std::clamp<std::int64_t>(in.maxChunkViews, 1, views);
  const std::uint64_t perView = gpuFdkChunkBytes(in, 1);
  plan.perViewBytes = perView;
  const int gpus = std::max(in.gpus, 1);

  // Smallest useful chunk: 8 views (or all, if fewer), so kernels keep enough work per launch.
  const std::int64_t minChunk = std::min<std::int64_t>(views, 8);
  if (sliceBytes + perView > usable) {
    // What would fit: the largest square slice beside one view, or the view rows beside a slice.
    // A view's bytes are rows x (per row) + a fixed part (the kernel input's border rows).
    const std::uint64_t sliceRoom = usable > perView ? usable - perView : 0;
    auto side = static_cast<std::int64_t>(std::sqrt(double(sliceRoom / 4)));
    while (side > 0 && u64(side) * u64(side) * 4 > sliceRoom) --side;
    while (u64(side + 1) * u64(side + 1) * 4 <= sliceRoom) ++side;
    GpuFdkPlanInput oneRow = in;
    oneRow.rows = 1;
    const std::uint64_t withOneRow = gpuFdkChunkBytes(oneRow, 1);
    oneRow.rows = 2;
    const std::uint64_t perRow = gpuFdkChunkBytes(oneRow, 1) - withOneRow;
    const std::uint64_t fixed = withOneRow - perRow;
    const std::uint64_t rowRoom = usable > sliceBytes + fixed ? usable - sliceBytes - fixed : 0;
    plan.fits = false;
    plan.message =
        "does not fit on the GPU: one " + std::string(alongZ ? "slice" : "y-row") +
        " of the volume (" + formatBytes(sliceBytes) + ") and the buffers of one view (" +
        formatBytes(perView) + ") need " + formatBytes(sliceBytes + perView + in.reserveBytes) +
        " with the reserve, but " + formatBytes(in.deviceBytes) +
        " are available; what would fit: " + (alongZ ? "slices" : "y-rows") + " of at most " +
        std::to_string(side) + " x " + std::to_string(side) + " voxels, or a detector of at most " +
        std::to_string(perRow ? rowRoom / perRow : 0) + " rows";
    return plan;
  }
  // Tallest task that leaves room for the preferred chunk, else for the smallest chunk.
  std::int64_t taskSlices = slices;
  const auto tallest = [&](std::int64_t chunk) -> std::int64_t {
    const std::uint64_t need = perView * u64(chunk);
    if (need >= usable) return 0;
    return std::int64_t((usable - need) / sliceBytes);
  };
  std::int64_t fitPreferred = tallest(wantChunk);
  if (fitPreferred >= 1) {
    taskSlices = std::min(slices, fitPreferred);
  } else {
    taskSlices = std::max<std::int64_t>(std::min(slices, tallest(minChunk)), 1);
  }
  // Balance the tasks (3 x 100, not 2 x 128 + 44). Every GPU gets a task where there are enough
  // slices: ceil(slices / (slices / gpus)) >= gpus, whereas ceil(slices / ceil(slices / gpus))
  // may be less (4 slices on 3 GPUs: 2 tasks of 2).
  taskSlices = ceilDiv(slices, ceilDiv(slices, taskSlices));
  if (ceilDiv(slices, taskSlices) < gpus) {
    taskSlices = ceilDiv(slices, gpus);  // no taller than the task that fits: it gave fewer
    if (ceilDiv(slices, taskSlices) < gpus) taskSlices = std::max<std::int64_t>(slices / gpus, 1);
  }
  std::int64_t tasks = ceilDiv(slices, taskSlices);
  if (in.axis == GpuSplitAxis::ZMirror) {
    // Pairs of n lower slices and their mirrors over the lower half; the same balancing.
    const std::int64_t half = (slices + 1) / 2;
    std::int64_t lower = std::max<std::int64_t>(taskSlices / 2, 1);
    lower = ceilDiv(half, ceilDiv(half, lower));
    if (ceilDiv(half, lower) < gpus) {
      lower = ceilDiv(half, gpus);
      if (ceilDiv(half, lower) < gpus) lower = std::max<std::int64_t>(half / gpus, 1);
    }
    tasks = ceilDiv(half, lower);
    taskSlices = std::min(2 * lower, slices);
    if (u64(taskSlices) * sliceBytes + perView > usable) {
      plan.fits = false;
      plan.message =
          "does not fit on the GPU: the z-mirror kernel needs two slices of the volume (" +
          formatBytes(2 * sliceBytes) + ") beside the buffers of one view (" +
          formatBytes(perView) + ") and the reserve (" + formatBytes(in.reserveBytes) + "), but " +
          formatBytes(in.deviceBytes) +
          " are available; a kernel without the mirror (fdk.bp.layered16) needs one slice";
      return plan;
    }
  }
  const std::uint64_t taskBytes = sliceBytes * u64(taskSlices);
  const std::int64_t chunk = roundedDownToMultiple(
      std::clamp<std::int64_t>(std::int64_t((usable - taskBytes) / perView), 1, wantChunk),
      in.chunkMultiple);
  plan.tasks = tasks;
  plan.taskSlices = taskSlices;
  plan.chunkViews = chunk;
  plan.chunks = ceilDiv(views, chunk);
  plan.taskBytes = taskBytes;
  plan.chunkBytes = perView * u64(chunk);
  plan.deviceBytes = taskBytes + plan.chunkBytes + in.reserveBytes;
  return plan;
}

std::vector<GpuFdkChunk> gpuFdkChunkSchedule(std::int64_t views, int chunkViews, bool ramp) {
  constexpr int kSmallestChunkViews = 8;
  std::vector<GpuFdkChunk> chunks;
  if (views <= 0 || chunkViews <= 0) return chunks;
  std::vector<int> sizes;
  std::int64_t left = views;
  if (ramp)
    for (int n = kSmallestChunkViews; n < chunkViews && left > 0; n *= 2) {
      sizes.push_back(int(std::min<std::int64_t>(n, left)));
      left -= sizes.back();
    }
  if (ramp && left % chunkViews != 0) {  // the odd chunk before the full ones
    sizes.push_back(int(left % chunkViews));
    left -= left % chunkViews;
  }
  for (; left > 0; left -= chunkViews)
    sizes.push_back(int(std::min<std::int64_t>(chunkViews, left)));
  std::int64_t v0 = 0;
  for (const int n : sizes) {
    chunks.push_back({v0, n});
    v0 += n;
  }
  return chunks;
}

int gpuFdkHostLead(double taskVoxels, int chunkViews) {
  constexpr double kQueuedSeconds = 0.6, kUpdatesPerSecond = 1e12;
  constexpr int kFewest = 2, kMost = 8;
  const double chunkSeconds =
      std::max(taskVoxels, 0.0) * std::max(chunkViews, 1) / kUpdatesPerSecond;
  if (!(chunkSeconds > 0)) return kMost;
  return int(std::clamp(std::floor(kQueuedSeconds / chunkSeconds), double(kFewest), double(kMost)));
}

}  // namespace tomowb::fdk
