// The GPU FDK pipeline (issues #6, #22): per device, one host thread takes tasks (z-slabs, or
// mirrored slab pairs for the z-mirror kernels) from a shared queue; each task streams its views
// in chunks through double-buffered device buffers: the detector rows the task needs (for a pair,
// those of its lower slices and their mirror rows) are uploaded on a copy stream, weighted,
// ramp-filtered (batched cuFFT R2C/C2R, in place) and converted on a filter stream, and
// backprojected on a compute stream, three chunks in three stages at once; the finished task is
// copied back into the host volume, whose allocation runs beside all this (PendingVolume).
// The device buffers (kernel input, cuFFT filter, pinned staging) are FdkDeviceBuffers.h; the
// kernels' rows are recon/fdk/GpuFdkKernelTable.h.
#include "recon/fdk/cuda/GpuFdk.h"

#include <cuda_runtime.h>
#include <cufft.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <mutex>
#include <optional>
#include <set>
#include <thread>
#include <utility>

#include "recon/core/Error.h"
#include "recon/core/HostMemory.h"
#include "recon/core/MemoryBudget.h"
#include "recon/core/PendingVolume.h"
#include "recon/core/SecondsSince.h"
#include "recon/core/VolumeGrid.h"
#include "recon/device/CudaCheck.h"
#include "recon/device/CudaResources.h"
#include "recon/device/GpuDevices.h"
#include "recon/device/GpuRunSupport.h"
#include "recon/fdk/Fdk.h"
#include "recon/fdk/FdkWeights.h"
#include "recon/fdk/GpuFdkGeometry.h"
#include "recon/fdk/GpuFdkKernelTable.h"
#include "recon/fdk/GpuFdkPlan.h"
#include "recon/fdk/RampFilter.h"
#include "recon/fdk/cuda/FdkBatch.h"
#include "recon/fdk/cuda/FdkDeviceBuffers.h"
#include "recon/fdk/cuda/FdkKernels.cuh"

namespace tomowb::cuda {

namespace {

using kernels::TaskShape;
using kernels::ViewMatrix;
using namespace fdkgpu;  // NOLINT(google-build-using-namespace): its own internals

// ---- the kernel's tunables ---------------------------------------------------------------------

KernelSpec specFor(const std::map<std::string, std::string>& tunables) {
  KernelSpec spec;
  spec.viewsPerLaunch = tunableInt(tunables, "K", fdk::kGpuFdkDefaultViewsPerLaunch, 1, 64);
  // Defaults measured on the H100 at 512^3 x 496 views: slab 4/8 gave 738/664 GUPS; the
  // software mirror kernels 4/8/16 pairs 935/890/727 (float) and 1111/970 (half).
  spec.zPerThread = tunableInt(tunables, "z-per-thread", 4, 4, 16);
  if (spec.zPerThread != 4 && spec.zPerThread != 8 && spec.zPerThread != 16)
    throw ParameterError("tunable z-per-thread", "must be 4, 8 or 16");
  return spec;
}

// The row of a GPU backprojection kernel by name (the DeviceBackprojection harness's entry).
const fdk::GpuFdkKernel& requireKernel(const std::string& name) {
  const fdk::GpuFdkKernel* kernel = fdk::findGpuFdkKernel(name);
  if (!kernel) throw ParameterError("variant", "'" + name + "' is not a GPU backprojection kernel");
  return *kernel;
}

// ---- geometry on the host ----------------------------------------------------------------------

using fdk::voxelMatrices;
using fdk::VoxelMatrix;

// A box of the volume: x whole, y in [y0, y0 + ny), z in [z0, z0 + nz).
struct TaskBox {
  std::int64_t y0 = 0, ny = 0, z0 = 0, nz = 0;
};

// A task: the box the kernel computes and the slices its device slab holds. Slab slice k is
// volume slice z0 + k for k < lower and upperZ0 + (k - lower) from there on: a z-slab (lower =
// slices), or a mirrored slab pair of the z-mirror kernels (the box's slices, then their mirrors
// nz-1-z in increasing order; contiguous for the pair across the centre).
struct Task {
  TaskBox box;               // for the z-mirror kernels: the lower slices only
  std::int64_t slices = 0;   // slices of the device slab (the kernel's shape.nz)
  std::int64_t lower = 0;    // slab slices [0, lower) are box.z0 + k
  std::int64_t upperZ0 = 0;  // slab slices [lower, slices) are upperZ0 + (k - lower)
};

// Task-local matrices: voxel (x, y, z) of the box, detector rows counted from firstRow.
std::vector<ViewMatrix> taskMatrices(const std::vector<VoxelMatrix>& whole, const TaskBox& box,
                                     std::int64_t firstRow) {
  std::vector<ViewMatrix> out(whole.size());
  for (std::size_t i = 0; i < whole.size(); ++i) {
    VoxelMatrix m = whole[i];
    m.col(3) += double(box.y0) * m.col(1) + double(box.z0) * m.col(2);
    m.row(1) -= double(firstRow) * m.row(2);
    for (int r = 0; r < 3; ++r)
      for (int c = 0; c < 4; ++c) out[i].m[4 * r + c] = static_cast<float>(m(r, c));
  }
  return out;
}

// Detector rows [first, last) that the box's voxels project onto in any view (one-row margin
// for the bilinear taps), clamped to the detector.
std::pair<std::int64_t, std::int64_t> rowsSeenBy(const std::vector<VoxelMatrix>& whole,
                                                 const VolumeGrid& volume, const TaskBox& box,
                                                 std::int64_t rows) {
  double lo = 1e300, hi = -1e300;
  const double xs[2] = {-0.5, double(volume.shape.nx) - 0.5};
  const double ys[2] = {double(box.y0) - 0.5, double(box.y0 + box.ny) - 0.5};
  const double zs[2] = {double(box.z0) - 0.5, double(box.z0 + box.nz) - 0.5};
  for (const VoxelMatrix& m : whole)
    for (double x : xs)
      for (double y : ys)
        for (double z : zs) {
          const fdk::DetectorPoint p = fdk::projectVoxel(m, x, y, z);
          if (!(p.w > 0)) return {0, rows};  // a corner behind the source: keep every row
          lo = std::min(lo, p.r);
          hi = std::max(hi, p.r);
        }
  const std::int64_t first = std::clamp<std::int64_t>(std::int64_t(std::floor(lo)) - 1, 0, rows);
  const std::int64_t last = std::clamp<std::int64_t>(std::int64_t(std::ceil(hi)) + 2, 0, rows);
  return last > first ? std::make_pair(first, last)
                      : std::make_pair(std::int64_t(0), std::int64_t(1));
}

// Whether the z column of the matrices moves u or w enough to matter along 16 voxels.
bool zMovesUW(const std::vector<VoxelMatrix>& whole, const VolumeGrid& volume) {
  for (const VoxelMatrix& m : whole) {
    const double w = fdk::projectVoxel(m, 0.5 * double(volume.shape.nx),
                                       0.5 * double(volume.shape.ny), 0.5 * double(volume.shape.nz))
                         .w;
    if (std::abs(m(0, 2)) * 16.0 / std::abs(w) > 1e-3 ||
        std::abs(m(2, 2)) * 16.0 / std::abs(w) > 1e-6)
      return true;
  }
  return false;
}

// ---- everything a run shares between its device threads ----------------------------------------

struct RunSetup {
  const ProjectionStack* projections = nullptr;
  PendingVolume* volume = nullptr;  // waited for when the first slab comes back
  VolumeGrid grid;
  const fdk::GpuFdkKernel* kernel = nullptr;  // the row that runs (after any fallback)
  KernelSpec spec;
  std::string kernelName;
  fdk::GpuFdkPlan plan;
  std::vector<Task> tasks;
  std::vector<VoxelMatrix> voxelMatrices;  // against the filtered (widened) detector
  std::int64_t rows = 0, cols = 0, filteredCols = 0, before = 0;
  // The host stack: `hostRows` rows per view, holding detector rows [first, first + rows) of each
  // band in turn (one band of every row, or a mirrored slab pair's bands, fdk::FdkMirrorPair).
  std::int64_t hostRows = 0;
  std::vector<fdk::FdkMirrorPair::RowBand> hostBands;
  // The host volume: slices [lowerZ0, lowerZ1) of `grid` and then their mirrors (a mirrored slab
  // pair), or every slice (lowerZ1 = 0).
  std::int64_t lowerZ0 = 0, lowerZ1 = 0;
  int fftLength = 0, fftStride = 0;
  bool cone = true, zMovesUW = false;
  std::vector<kernels::ViewWeights> viewWeights;
  std::vector<float> columnWeights;  // [view][col]
  std::vector<float> response;       // scaled by 1 / fftLength
};

// The host stack's row that holds detector row `first`, whose band (or the bands that go on from
// it without a gap) must also hold the `count` - 1 rows after it.
std::int64_t hostRowOf(const RunSetup& setup, std::int64_t first, std::int64_t count) {
  std::int64_t hostFirst = 0;
  const auto& bands = setup.hostBands;
  for (std::size_t i = 0; i < bands.size(); ++i) {
    if (first >= bands[i].first && first < bands[i].first + bands[i].rows) {
      // The rows may run on into the next bands where those go on from this one's last row.
      std::int64_t end = bands[i].first + bands[i].rows;
      for (std::size_t j = i + 1; j < bands.size() && bands[j].first == end; ++j)
        end += bands[j].rows;
      if (first + count <= end) return hostFirst + first - bands[i].first;
      break;
    }
    hostFirst += bands[i].rows;
  }
  throw Error("internal: detector rows " + std::to_string(first) + ".." +
              std::to_string(first + count - 1) + " are not in the host stack's bands");
}

// The host volume's slice that holds slice z of the grid.
std::int64_t hostSliceOf(const RunSetup& setup, std::int64_t z) {
  if (setup.lowerZ1 == 0) return z;
  const std::int64_t lower = setup.lowerZ1 - setup.lowerZ0;
  if (z >= setup.lowerZ0 && z < setup.lowerZ1) return z - setup.lowerZ0;
  return lower + z - (setup.grid.shape.nz - setup.lowerZ1);
}

struct ChunkTimes {
  Event uploadStart, uploadEnd, filterStart, filterEnd, bpStart, bpEnd;
  double uploadBytes = 0;
  std::int64_t views = 0;
  double enqueuedMs = 0;  // host time the upload was enqueued, from the task's start (timeline)
};

struct SharedProgress {
  std::mutex mutex;
  std::atomic<std::int64_t> nextTask{0};
  std::int64_t doneChunks = 0, totalChunks = 0;
  std::exception_ptr error;
  double uploadSeconds = 0, uploadBytes = 0, downloadSeconds = 0, downloadBytes = 0;
  double downloadTailSeconds = 0;
  // The longest a task's finished slab waited on the GPU for the host volume (its first download
  // started after its last backprojection), when its downloads ran in pieces; -1: no task did.
  double volumeWaitSeconds = -1;
  double filterSeconds = 0, backprojectSeconds = 0, voxelUpdates = 0;
  double deviceSetupSeconds = 0, firstChunkSeconds = 0;  // the slowest device's
  // The slowest device's: its tasks' kernel inputs (texture arrays, staging) built, and the time
  // from its last slab's download to the end of its thread (buffers freed).
  double inputsSeconds = 0, teardownSeconds = 0;
};

// A partial sum goes out as a preview when the context wants one now (the window takes one
// every half second): a GPU run of a few seconds shows its volume filling in (issue #21).
bool previewDue(SharedProgress& shared, const JobContext& context) {
  if (!context.wantsIntermediates()) return false;
  std::lock_guard lock(shared.mutex);
  return context.intermediateWantedNow();
}

// The detector rows a task uploads and filters, and how its kernel input holds them: a z-slab
// needs the rows its box projects onto; a mirrored slab pair the rows of its lower slices and
// their mirror rows (two bands, or one across the centre when they meet), of which the kernel's
// texture holds the first band (the second is the texels' mirror channel).
struct TaskRows {
  kernels::RowBands bands;    // what is uploaded and filtered, per view
  int inputRows = 0;          // rows of the kernel input (texture height)
  int mirrorRows = 0;         // the fill's pairing (bands.rows), 0 for kernels without the mirror
  std::int64_t firstRow = 0;  // detector row of the input's row 0 (the matrices' shift)
};

TaskRows rowsOf(const RunSetup& setup, const Task& task) {
  const std::int64_t rows = setup.rows;
  TaskRows out;
  if (setup.kernel->zMirror && setup.lowerZ1 == 0 && task.slices == setup.grid.shape.nz &&
      task.box.z0 == 0) {
    // One pair holds the whole volume: every row, as the mirror texels pair rows r, rows-1-r.
    out.bands = {int(rows), 0, int(rows), 0};
    out.inputRows = out.mirrorRows = int(rows);
    return out;
  }
  auto [a, b] = rowsSeenBy(setup.voxelMatrices, setup.grid, task.box, rows);
  if (setup.lowerZ1 > 0) {
    // A mirrored slab pair: its first band holds every row its lower slab's voxels reach (the
    // slab plan's band, with its own margin), and the second band that one's mirror image.
    const fdk::FdkMirrorPair::RowBand& held = setup.hostBands.front();
    a = std::clamp(a, held.first, held.first + held.rows - 1);
    b = std::clamp(b, a + 1, held.first + held.rows);
  }
  if (!setup.kernel->zMirror) {
    out.bands = {int(b - a), int(a), int(b - a), 0};
    out.inputRows = int(b - a);
    out.firstRow = a;
    return out;
  }
  const std::int64_t mirrorFirst = rows - b, mirrorLast = rows - a;
  if (std::max(a, mirrorFirst) <= std::min(b, mirrorLast)) {
    // The bands meet: one band, symmetric about the centre (first + last = rows).
    const std::int64_t first = std::min(a, mirrorFirst), last = std::max(b, mirrorLast);
    out.bands = {int(last - first), int(first), int(last - first), 0};
    out.inputRows = int(last - first);
    out.firstRow = first;
  } else {
    const std::int64_t h = b - a;
    out.bands = {int(2 * h), int(a), int(h), int(mirrorFirst)};
    out.inputRows = int(h);
    out.firstRow = a;
  }
  out.mirrorRows = out.bands.rows;
  return out;
}

// Uploads detector rows [firstRow, firstRow + bandRows) of views [v0, v0 + n) from the host
// stack (hostRowOf) to `device` (views `deviceViewRows` rows apart there) on `stream`.
void uploadBand(char* device, const RunSetup& setup, std::int64_t v0, std::int64_t n,
                std::int64_t firstRow, std::int64_t bandRows, std::int64_t deviceViewRows,
                PinnedStaging* staging, cudaStream_t stream) {
  const std::int64_t rows = setup.hostRows, cols = setup.cols;
  const float* src =
      setup.projections->data() + (v0 * rows + hostRowOf(setup, firstRow, bandRows)) * cols;
  const std::size_t width = std::size_t(bandRows * cols) * 4;
  const std::size_t devicePitch = std::size_t(deviceViewRows * cols) * 4;
  const std::size_t hostPitch = std::size_t(rows * cols) * 4;
  if (staging) {
    staging->upload(device, reinterpret_cast<const char*>(src), n, width, hostPitch, stream,
                    devicePitch);
  } else {
    TOMOWB_CUDA_CHECK(cudaMemcpy2DAsync(device, devicePitch, src, hostPitch, width, std::size_t(n),
                                        cudaMemcpyHostToDevice, stream),
                      "uploading projections");
  }
}

// Chunks the host enqueues beyond the last one it waited for (the streams' events keep the
// buffers apart however far ahead it is): fdk::gpuFdkHostLead's (8 for the benchmark's 512^3 and
// 1024^3 tasks, fewer for tasks whose chunks take longer), or TOMOWB_FDK_HOST_LEAD (2 to 16). The
// host volume's cudaHostRegister, on its own thread, holds the driver's lock for its whole length
// (0.11 s for 4 GiB; bench/results/2026-11-27r-registration-pieces-probe-h100.md), and every CUDA
// call of this thread waits meanwhile: with two chunks enqueued the GPU ran dry (a 9 ms hole in a
// 512^3 run, 2026-11-27m).
std::int64_t chunksAhead(double taskVoxels, int chunkViews) {
  static const long asked = [] {
    const char* text = std::getenv("TOMOWB_FDK_HOST_LEAD");  // NOLINT(concurrency-mt-unsafe)
    return text != nullptr ? std::strtol(text, nullptr, 10) : 0L;
  }();
  if (asked >= 2 && asked <= 16) return asked;
  return fdk::gpuFdkHostLead(taskVoxels, chunkViews);
}

// A task's last chunk is backprojected in this many pieces of rows (kernels that honour
// TaskShape::yFirst/yCount), each downloaded while the next one runs: the download of a slab
// (0.5 GB for 512^3, 10 ms) then mostly hides under the last backprojection.
constexpr int kLastChunkPieces = 4;

// Times the end of a device thread: from finished() (the last slab is home) until the object goes
// (declared first in runDevice, it goes last, after every buffer).
struct TeardownClock {
  SharedProgress& shared;
  std::optional<std::chrono::steady_clock::time_point> from;
  void finished() { from = std::chrono::steady_clock::now(); }
  ~TeardownClock() {
    if (!from) return;
    std::lock_guard lock(shared.mutex);
    shared.teardownSeconds = std::max(shared.teardownSeconds, secondsSince(*from));
  }
};

// A device thread's large buffers: freed on the release thread after the run (releaseAfterRun,
// recon/device/GpuRunSupport.h), since freeing 2.4 GB takes 3 ms the caller need not wait for.
struct DeviceRunBuffers {
  DeviceMemory volume, raw[2], fft;
  std::unique_ptr<RowFilter> filter;
  std::unique_ptr<KernelInput> inputs[2];
};

// TOMOWB_FDK_TIMELINE=1: every task prints its chunks' stage spans to stderr (from the CUDA
// events the telemetry reads), to see where a pipeline waits.
bool timelineWanted() {
  static const bool wanted = [] {
    const char* text = std::getenv("TOMOWB_FDK_TIMELINE");  // NOLINT(concurrency-mt-unsafe)
    return text != nullptr && std::string(text) == "1";
  }();
  return wanted;
}

// One device thread: buffers sized by the plan, tasks taken from the shared queue. Three streams
// overlap the stages of successive chunks: `copy` uploads chunk c + 1 while `filter` weights,
// ramp-filters and converts it and `compute` backprojects chunk c.
void runDevice(int device, const RunSetup& setup, SharedProgress& shared, JobContext& context) {
  TeardownClock teardown{shared, std::nullopt};
  const auto started = std::chrono::steady_clock::now();
  TOMOWB_CUDA_CHECK(cudaSetDevice(device), "selecting the GPU");
  const fdk::GpuFdkPlan& plan = setup.plan;
  const int chunkViews = int(plan.chunkViews);
  const std::int64_t rows = setup.rows, cols = setup.cols, fcols = setup.filteredCols;
  const std::int64_t views = setup.projections->viewCount();
  const VolumeShape& whole = setup.grid.shape;
  const bool alongY = plan.axis == fdk::GpuSplitAxis::Y;
  const std::int64_t sliceFloats = whole.nx * (alongY ? whole.nz : whole.ny);
  // The filter stream goes first where both have work: a filtered chunk must be ready before
  // the backprojection of the previous one ends.
  int leastPriority = 0, greatestPriority = 0;
  cudaDeviceGetStreamPriorityRange(&leastPriority, &greatestPriority);
  Stream copy, compute, filterStream(greatestPriority), download;
  // The large buffers, freed after the run has returned (releaseAfterRun) unless it fails.
  auto buffers = std::make_shared<DeviceRunBuffers>();
  DeviceMemory& volume = buffers->volume;
  DeviceMemory(&raw)[2] = buffers->raw;
  DeviceMemory& fft = buffers->fft;
  volume = DeviceMemory(std::size_t(sliceFloats) * std::size_t(plan.taskSlices) * 4,
                        "the volume slab on the GPU");
  for (DeviceMemory& r : raw)
    r = DeviceMemory(std::size_t(chunkViews) * rows * cols * 4, "raw views");
  fft = DeviceMemory(std::size_t(chunkViews) * rows * setup.fftStride * 4, "filter rows");
  DeviceMemory weights(setup.viewWeights.size() * sizeof(kernels::ViewWeights), "view weights");
  DeviceMemory columnWeights(setup.columnWeights.size() * 4, "column weights");
  DeviceMemory matrices(std::size_t(views) * sizeof(ViewMatrix), "view matrices");
  copyNow(weights.as<void>(), setup.viewWeights.data(),
          setup.viewWeights.size() * sizeof(kernels::ViewWeights), cudaMemcpyHostToDevice, compute,
          "view weights");
  copyNow(columnWeights.as<void>(), setup.columnWeights.data(), setup.columnWeights.size() * 4,
          cudaMemcpyHostToDevice, compute, "column weights");
  buffers->filter =
      std::make_unique<RowFilter>(setup.fftLength, setup.fftStride, setup.response, filterStream);
  RowFilter& filter = *buffers->filter;
  {  // cuFFT plans for every chunk of every task, before the clock runs
    std::vector<long long> rowCounts;
    const std::vector<fdk::GpuFdkChunk> schedule =
        fdk::gpuFdkChunkSchedule(views, chunkViews, !uniformPipeline());
    std::set<int> bandRows;
    for (const Task& task : setup.tasks) bandRows.insert(rowsOf(setup, task).bands.rows);
    for (const int r : bandRows)
      for (const fdk::GpuFdkChunk& chunk : schedule)
        rowCounts.push_back(static_cast<long long>(chunk.views) * r);
    filter.prepare(rowCounts);
  }
  Event rawFree[2], uploaded[2], filled[2], bpDone[2];
  Event taskStart, taskEnd, downloadStart, downloadEnd, lastBackprojection;
  Event pieceDone[kLastChunkPieces];
  const float* host = setup.projections->data();
  // A stack in pageable memory goes through a small pinned double buffer (seed 001).
  std::unique_ptr<PinnedStaging> staging;
  if (!isPinnedHostBuffer(host)) {
    staging = std::make_unique<PinnedStaging>(std::size_t(setup.hostRows * cols) * 4);
    if (!staging->usable()) staging.reset();
  }
  TOMOWB_CUDA_CHECK(cudaStreamSynchronize(compute), "the GPU's buffers");
  {
    std::lock_guard lock(shared.mutex);
    shared.deviceSetupSeconds = std::max(shared.deviceSetupSeconds, secondsSince(started));
  }

  bool firstChunk = true;
  double inputsSeconds = 0;
  for (;;) {
    const std::int64_t t = shared.nextTask.fetch_add(1);
    if (t >= std::int64_t(setup.tasks.size())) break;
    const Task& task = setup.tasks[std::size_t(t)];
    const TaskBox& box = task.box;
    const TaskRows taskRows = rowsOf(setup, task);
    const kernels::RowBands& bands = taskRows.bands;
    const std::vector<ViewMatrix> taskMats =
        taskMatrices(setup.voxelMatrices, box, taskRows.firstRow);
    TOMOWB_CUDA_CHECK(
        cudaMemcpyAsync(matrices.as<void>(), taskMats.data(), taskMats.size() * sizeof(ViewMatrix),
                        cudaMemcpyHostToDevice, compute),
        "view matrices");
    // Every matrix of the task into constant memory once (when they fit): an update of constant
    // memory waits for the kernels that read it, so one per chunk held this thread until the
    // chunk's filtering had ended, and the next upload with it (TOMOWB_FDK_TIMELINE).
    const bool residentMatrices = views <= kernels::kMaxViewsPerLaunch && !uniformPipeline();
    if (residentMatrices) kernels::setViewMatrices(matrices.as<ViewMatrix>(), int(views), compute);
    TOMOWB_CUDA_CHECK(cudaGetLastError(), "view matrices into constant memory");
    TaskShape shape;
    shape.nx = int(whole.nx);
    shape.ny = int(box.ny);
    shape.nz = int(alongY ? box.nz : task.slices);
    shape.cone = setup.cone;
    shape.zMovesUW = setup.zMovesUW;
    const std::size_t taskFloats =
        std::size_t(shape.nx) * std::size_t(shape.ny) * std::size_t(shape.nz);
    // The slab on the GPU into its place in the host volume, on the compute stream (waits for
    // the host volume's allocation the first time).
    const auto downloadSlab = [&] {
      float* dst = setup.volume->get().data();
      const std::size_t nx = std::size_t(whole.nx), ny = std::size_t(whole.ny);
      if (alongY) {
        TOMOWB_CUDA_CHECK(
            cudaMemcpy2DAsync(dst + std::size_t(box.y0) * nx, nx * ny * 4, volume.as<void>(),
                              nx * std::size_t(box.ny) * 4, nx * std::size_t(box.ny) * 4,
                              std::size_t(box.nz), cudaMemcpyDeviceToHost, compute),
            "downloading the volume");
        return;
      }
      const std::size_t sliceBytes = nx * ny * 4;
      TOMOWB_CUDA_CHECK(cudaMemcpyAsync(dst + std::size_t(hostSliceOf(setup, box.z0)) * nx * ny,
                                        volume.as<void>(), std::size_t(task.lower) * sliceBytes,
                                        cudaMemcpyDeviceToHost, compute),
                        "downloading the volume");
      if (task.slices > task.lower)
        TOMOWB_CUDA_CHECK(
            cudaMemcpyAsync(dst + std::size_t(hostSliceOf(setup, task.upperZ0)) * nx * ny,
                            volume.as<char>() + std::size_t(task.lower) * sliceBytes,
                            std::size_t(task.slices - task.lower) * sliceBytes,
                            cudaMemcpyDeviceToHost, compute),
            "downloading the volume");
    };
    // Rows [y0, y1) of every slice of a z-slab task into the host volume, on `stream`.
    const auto downloadRows = [&](std::int64_t y0, std::int64_t y1, cudaStream_t stream) {
      float* dst = setup.volume->get().data();
      const std::size_t nx = std::size_t(whole.nx), ny = std::size_t(whole.ny);
      const std::size_t width = nx * std::size_t(y1 - y0) * 4, slice = nx * ny * 4;
      const char* src = volume.as<char>() + nx * std::size_t(y0) * 4;
      const auto part = [&](std::int64_t z0, std::int64_t slices, std::int64_t deviceSlice) {
        if (slices <= 0) return;
        z0 = hostSliceOf(setup, z0);
        TOMOWB_CUDA_CHECK(
            cudaMemcpy2DAsync(
                reinterpret_cast<char*>(dst) + (std::size_t(z0) * ny + std::size_t(y0)) * nx * 4,
                slice, src + std::size_t(deviceSlice) * slice, slice, width, std::size_t(slices),
                cudaMemcpyDeviceToHost, stream),
            "downloading the volume");
      };
      part(box.z0, task.lower, 0);
      part(task.upperZ0, task.slices - task.lower, task.lower);
    };
    TOMOWB_CUDA_CHECK(cudaMemsetAsync(volume.as<void>(), 0, taskFloats * 4, compute),
                      "zeroing the slab");
    const auto inputsStarted = std::chrono::steady_clock::now();
    std::unique_ptr<KernelInput>(&inputs)[2] = buffers->inputs;
    for (std::unique_ptr<KernelInput>& input : inputs) input.reset();  // the last task's first
    for (std::unique_ptr<KernelInput>& input : inputs)
      input =
          std::make_unique<KernelInput>(*setup.kernel, chunkViews, taskRows.inputRows, int(fcols));
    inputsSeconds += secondsSince(inputsStarted);
    std::vector<std::unique_ptr<ChunkTimes>> times;
    TOMOWB_CUDA_CHECK(cudaEventRecord(taskStart, compute), "timing");
    const auto taskStartedOnHost = std::chrono::steady_clock::now();
    const std::vector<fdk::GpuFdkChunk> schedule =
        fdk::gpuFdkChunkSchedule(views, chunkViews, !uniformPipeline());
    const auto chunks = std::int64_t(schedule.size());
    const std::int64_t lead = chunksAhead(double(taskFloats), chunkViews);
    // The last chunk in pieces of rows, each downloaded on its own stream as it finishes.
    const int pieces =
        setup.kernel->rowPieces && !alongY && shape.ny >= 2 * kLastChunkPieces && !uniformPipeline()
            ? kLastChunkPieces
            : 1;
    for (std::int64_t c = 0; c < chunks; ++c) {
      context.throwIfCancelled();
      const int b = int(c % 2);
      const std::int64_t v0 = schedule[std::size_t(c)].first;
      const int n = schedule[std::size_t(c)].views;
      auto ct = std::make_unique<ChunkTimes>();
      ct->views = n;
      ct->enqueuedMs = 1e3 * secondsSince(taskStartedOnHost);
      // Upload the task's rows of views [v0, v0 + n) once the buffer is free.
      if (c >= 2) TOMOWB_CUDA_CHECK(cudaStreamWaitEvent(copy, rawFree[b], 0), "ordering");
      TOMOWB_CUDA_CHECK(cudaEventRecord(ct->uploadStart, copy), "timing");
      uploadBand(raw[b].as<char>(), setup, v0, n, bands.firstRow, bands.splitRow, bands.rows,
                 staging.get(), copy);
      if (bands.splitRow < bands.rows)
        uploadBand(raw[b].as<char>() + std::size_t(bands.splitRow * cols) * 4, setup, v0, n,
                   bands.secondFirstRow, bands.rows - bands.splitRow, bands.rows, staging.get(),
                   copy);
      ct->uploadBytes = double(n) * double(bands.rows * cols) * 4.0;
      TOMOWB_CUDA_CHECK(cudaEventRecord(ct->uploadEnd, copy), "timing");
      TOMOWB_CUDA_CHECK(cudaEventRecord(uploaded[b], copy), "ordering");
      // Weight, filter and convert on the filter stream.
      TOMOWB_CUDA_CHECK(cudaStreamWaitEvent(filterStream, uploaded[b], 0), "ordering");
      TOMOWB_CUDA_CHECK(cudaEventRecord(ct->filterStart, filterStream), "timing");
      kernels::launchWeightRows(
          raw[b].as<float>(), n, bands, int(cols), weights.as<kernels::ViewWeights>() + v0,
          columnWeights.as<float>() + v0 * cols, setup.cone, int(setup.before), setup.fftLength,
          setup.fftStride, fft.as<float>(), filterStream);
      TOMOWB_CUDA_CHECK(cudaGetLastError(), "weighting kernel");
      TOMOWB_CUDA_CHECK(cudaEventRecord(rawFree[b], filterStream), "ordering");
      filter.filter(fft.as<float>(), static_cast<long long>(n) * bands.rows, filterStream);
      TOMOWB_CUDA_CHECK(cudaGetLastError(), "ramp filter");
      // The input of chunk c - 2 must have been backprojected.
      if (c >= 2) TOMOWB_CUDA_CHECK(cudaStreamWaitEvent(filterStream, bpDone[b], 0), "ordering");
      inputs[b]->fill(fft.as<float>(), n, setup.fftStride, filterStream, taskRows.mirrorRows, v0);
      TOMOWB_CUDA_CHECK(cudaEventRecord(ct->filterEnd, filterStream), "timing");
      TOMOWB_CUDA_CHECK(cudaEventRecord(filled[b], filterStream), "ordering");
      // Backproject on the compute stream.
      TOMOWB_CUDA_CHECK(cudaStreamWaitEvent(compute, filled[b], 0), "ordering");
      TOMOWB_CUDA_CHECK(cudaEventRecord(ct->bpStart, compute), "timing");
      if (c + 1 < chunks || pieces == 1) {
        inputs[b]->backproject(taskMats.data() + v0, matrices.as<ViewMatrix>() + v0,
                               volume.as<float>(), shape, setup.spec, compute,
                               residentMatrices ? int(v0) : -1);
      } else {
        const auto firstRow = [&](int p) { return int(std::int64_t(shape.ny) * p / pieces); };
        for (int p = 0; p < pieces; ++p) {
          TaskShape piece = shape;
          piece.yFirst = firstRow(p);
          piece.yCount = firstRow(p + 1) - piece.yFirst;
          inputs[b]->backproject(taskMats.data() + v0, matrices.as<ViewMatrix>() + v0,
                                 volume.as<float>(), piece, setup.spec, compute,
                                 residentMatrices ? int(v0) : -1);
          TOMOWB_CUDA_CHECK(cudaEventRecord(pieceDone[p], compute), "ordering");
        }
        // The backprojection's end, recorded before the host may wait for the volume below (an
        // event recorded after that wait would time the wait as backprojection).
        TOMOWB_CUDA_CHECK(cudaEventRecord(ct->bpEnd, compute), "timing");
        TOMOWB_CUDA_CHECK(cudaEventRecord(lastBackprojection, compute), "timing");
        // Every piece is enqueued before the downloads, which may wait here for the host volume's
        // allocation (two GPUs: 0.2 to 0.3 s for 4 GiB) without holding the backprojection back;
        // the wait comes before downloadStart is recorded, so that the event times it.
        (void)setup.volume->get();
        for (int p = 0; p < pieces; ++p) {
          TOMOWB_CUDA_CHECK(cudaStreamWaitEvent(download, pieceDone[p], 0), "ordering");
          if (p == 0) TOMOWB_CUDA_CHECK(cudaEventRecord(downloadStart, download), "timing");
          downloadRows(firstRow(p), firstRow(p + 1), download);
        }
      }
      if (c + 1 < chunks || pieces == 1)
        TOMOWB_CUDA_CHECK(cudaEventRecord(ct->bpEnd, compute), "timing");
      TOMOWB_CUDA_CHECK(cudaEventRecord(bpDone[b], compute), "ordering");
      times.push_back(std::move(ct));
      // One slab holds the whole volume: its partial sum over views [0, v0 + n) is a preview,
      // downloaded in stream order and scaled to the final units like the CPU backprojector's.
      if (setup.tasks.size() == 1 && setup.lowerZ1 == 0 && c + 1 < chunks &&
          previewDue(shared, context)) {
        downloadSlab();
        TOMOWB_CUDA_CHECK(cudaStreamSynchronize(compute), "a preview of the volume");
        const std::int64_t done = v0 + n;
        std::lock_guard lock(shared.mutex);
        context.publishIntermediate(
            setup.volume->get(),
            "backprojected " + std::to_string(done) + " of " + std::to_string(views) + " views",
            double(views) / double(done));
      }
      // The streams' events keep the two buffers of each kind apart, so the host may enqueue
      // ahead: it waits only for the backprojection `lead` chunks back (a wait for the previous
      // one would hold the next upload until then and leave the compute stream idle while that
      // chunk uploads and filters), and reports it.
      if (c >= lead) {
        TOMOWB_CUDA_CHECK(cudaEventSynchronize(times[std::size_t(c - lead)]->bpEnd),
                          "backprojection");
        std::lock_guard lock(shared.mutex);
        ++shared.doneChunks;
        context.reportProgress("backproject",
                               double(shared.doneChunks) / double(shared.totalChunks));
      }
    }
    // The task's slab back into the host volume (already on its way in pieces, or now).
    if (pieces == 1) {
      TOMOWB_CUDA_CHECK(cudaEventRecord(lastBackprojection, compute), "timing");
      TOMOWB_CUDA_CHECK(cudaEventRecord(downloadStart, compute), "timing");
      downloadSlab();
      TOMOWB_CUDA_CHECK(cudaEventRecord(downloadEnd, compute), "timing");
    } else {
      TOMOWB_CUDA_CHECK(cudaEventRecord(downloadEnd, download), "timing");
      TOMOWB_CUDA_CHECK(cudaStreamWaitEvent(compute, downloadEnd, 0), "ordering");
    }
    TOMOWB_CUDA_CHECK(cudaEventRecord(taskEnd, compute), "timing");
    TOMOWB_CUDA_CHECK(cudaEventSynchronize(taskEnd), "the GPU task");
    // Several slabs: each finished one is a preview (the others still zero).
    if (setup.tasks.size() > 1 && setup.lowerZ1 == 0 && t + 1 < std::int64_t(setup.tasks.size()) &&
        previewDue(shared, context)) {
      std::lock_guard lock(shared.mutex);
      context.publishIntermediate(setup.volume->get(),
                                  "backprojected slab " + std::to_string(t + 1) + " of " +
                                      std::to_string(setup.tasks.size()),
                                  1.0);
    }

    // Telemetry of the task: per chunk, from the CUDA events.
    std::lock_guard lock(shared.mutex);
    shared.doneChunks += std::min<std::int64_t>(chunks, lead);  // not reported in the loop
    context.reportProgress("backproject", double(shared.doneChunks) / double(shared.totalChunks));
    shared.inputsSeconds = std::max(shared.inputsSeconds, inputsSeconds);
    teardown.finished();
    std::size_t freeBytes = 0, totalBytes = 0;
    cudaMemGetInfo(&freeBytes, &totalBytes);
    const double inUse = double(totalBytes - freeBytes);
    if (firstChunk && !times.empty()) {
      shared.firstChunkSeconds = std::max(
          shared.firstChunkSeconds, elapsedSeconds(times[0]->uploadStart, times[0]->filterEnd));
      firstChunk = false;
    }
    if (timelineWanted()) {  // TOMOWB_FDK_TIMELINE=1: each stage's span, ms from the task's start
      std::string line =
          "[fdk timeline] GPU " + std::to_string(device) + " task " + std::to_string(t) + ":";
      const auto at = [&](const Event& e) { return 1e3 * elapsedSeconds(taskStart, e); };
      for (std::size_t c = 0; c < times.size(); ++c) {
        const ChunkTimes& ct = *times[c];
        char text[192];
        std::snprintf(
            text, sizeof text,
            "\n  chunk %2zu (%3lld views): enqueued %6.2f up %6.2f-%6.2f filt %6.2f-%6.2f "
            "bp %6.2f-%6.2f",
            c, static_cast<long long>(ct.views), ct.enqueuedMs, at(ct.uploadStart),
            at(ct.uploadEnd), at(ct.filterStart), at(ct.filterEnd), at(ct.bpStart), at(ct.bpEnd));
        line += text;
      }
      char text[96];
      std::snprintf(text, sizeof text, "\n  download %6.2f-%6.2f, task end %6.2f",
                    at(downloadStart), at(downloadEnd), at(taskEnd));
      std::fprintf(stderr, "%s%s\n", line.c_str(), text);
    }
    for (std::size_t c = 0; c < times.size(); ++c) {
      const ChunkTimes& ct = *times[c];
      const double up = elapsedSeconds(ct.uploadStart, ct.uploadEnd);
      const double filt = elapsedSeconds(ct.filterStart, ct.filterEnd);
      const double bp = elapsedSeconds(ct.bpStart, ct.bpEnd);
      // The kernel computes the lower slices of a mirrored pair and writes their mirrors too.
      const double updates = double(taskFloats) * double(ct.views);
      shared.uploadSeconds += up;
      shared.uploadBytes += ct.uploadBytes;
      shared.filterSeconds += filt;
      shared.backprojectSeconds += bp;
      shared.voxelUpdates += updates;
      TelemetryEvent e{"fdk.upload", setup.kernelName, up, 0.0, ct.uploadBytes};
      e.device = device;
      e.deviceMemoryBytes = inUse;
      context.publishTelemetry(e);
      e = TelemetryEvent{"fdk.filter", setup.kernelName, filt, 0.0, 0.0};
      e.device = device;
      e.deviceMemoryBytes = inUse;
      context.publishTelemetry(e);
      e = TelemetryEvent{"fdk.backproject", setup.kernelName, bp, updates, 0.0};
      e.device = device;
      e.deviceMemoryBytes = inUse;
      context.publishTelemetry(e);
    }
    // With pieces the copies ran from the first piece's end; the run waited only for what came
    // after the last piece.
    const double down = elapsedSeconds(downloadStart, downloadEnd);
    shared.downloadSeconds += down;
    // A download that could start only after the last backprojection waited for the host volume
    // (the host enqueues it once the volume is there, however far ahead it is): that wait is the
    // report's, not the download's.
    const double volumeWait =
        pieces > 1 ? std::max(0.0, elapsedSeconds(lastBackprojection, downloadStart)) : 0.0;
    if (pieces > 1) shared.volumeWaitSeconds = std::max(shared.volumeWaitSeconds, volumeWait);
    shared.downloadTailSeconds +=
        std::max(0.0, elapsedSeconds(lastBackprojection, downloadEnd) - volumeWait);
    shared.downloadBytes += double(taskFloats) * 4.0;
    TelemetryEvent e{"fdk.download", setup.kernelName, down, 0.0, double(taskFloats) * 4.0};
    e.device = device;
    e.deviceMemoryBytes = inUse;
    context.publishTelemetry(e);
  }
  // Every copy and kernel has finished (taskEnd): the buffers may go after the run returns.
  releaseAfterRun(device, [held = std::move(buffers)]() mutable { held.reset(); });
}

// The row that runs `kernel` on this geometry: a variant that runs another row runs it, and a
// z-mirror row falls back when the geometry lacks the mirror symmetry.
struct ResolvedKernel {
  const fdk::GpuFdkKernel* kernel = nullptr;
  std::string why;  // empty, or the reason for a fallback
};

ResolvedKernel resolve(const fdk::GpuFdkKernel& kernel, const std::vector<VoxelMatrix>& matrices,
                       const VolumeGrid& volume, std::int64_t rows) {
  const fdk::GpuFdkKernel* runs =
      kernel.runs.empty() ? &kernel : fdk::findGpuFdkKernel(kernel.runs);
  ResolvedKernel chosen{runs, ""};
  if (!kernel.fallback.empty()) {
    const std::string why = fdk::zMirrorProblem(matrices, volume, rows);
    if (!why.empty())
      chosen = {fdk::findGpuFdkKernel(kernel.fallback), "z-mirror kernels not usable: " + why};
  }
  // The hybrid kernel steps v along a z-column: where z moves u or 1/w (a tilted detector or
  // axis) layered16's general path runs, without the hybrid's grid.
  if (chosen.kernel->input == fdk::GpuFdkInput::Hybrid && zMovesUW(matrices, volume)) {
    const std::string why = "the detector or the rotation axis is tilted (z moves u and 1/w)";
    chosen = {fdk::findGpuFdkKernel("fdk.bp.layered16"),
              chosen.why.empty() ? why : chosen.why + "; then " + why};
  }
  return chosen;
}

// The detector rows and columns, the widened (filtered) detector and the FFT row layout; returns
// the filtered stack's geometry.
Geometry fillDetectorShape(RunSetup& setup, const Geometry& geometry,
                           const fdk::FdkWeightPlan& weightPlan) {
  const fdk::FdkWeightPlan::ColumnExtension ext = weightPlan.filterExtension();
  Geometry filteredGeometry = fdk::extendedGeometry(geometry, ext);
  setup.rows = geometry.detector().rows;
  setup.cols = geometry.detector().cols;
  setup.hostRows = setup.rows;
  setup.hostBands = {{0, setup.rows}};
  setup.filteredCols = filteredGeometry.detector().cols;
  setup.before = ext.before;
  setup.fftLength = int(fdk::paddedRowLength(setup.filteredCols));
  setup.fftStride = setup.fftLength + 2;
  setup.cone = geometry.beam() == BeamKind::Cone;
  return filteredGeometry;
}

// Weights: per view the cosine geometry, per view and column redundancy x step / pitch (the same
// FdkWeightPlan as the CPU), and the ramp response scaled by 1 / fftLength.
void fillWeightsAndResponse(RunSetup& setup, const Geometry& g,
                            const fdk::FdkWeightPlan& weightPlan,
                            const fdk::RampFilterParams& filter) {
  const std::int64_t views = g.viewCount();
  setup.viewWeights.resize(std::size_t(views));
  setup.columnWeights.resize(std::size_t(views * setup.cols));
  for (std::int64_t v = 0; v < views; ++v) {
    kernels::ViewWeights& w = setup.viewWeights[std::size_t(v)];
    const Eigen::Vector3d p00 = g.pixelPosition(v, 0, 0);
    const Eigen::Vector3d o = p00 - g.view(v).source;
    const Eigen::Vector3d u = g.pixelPosition(v, 1, 0) - p00;
    const Eigen::Vector3d r = g.pixelPosition(v, 0, 1) - p00;
    for (int a = 0; a < 3; ++a) {
      w.origin[a] = float(o[a]);
      w.u[a] = float(u[a]);
      w.v[a] = float(r[a]);
    }
    const fdk::ViewFrame& f = weightPlan.frame(v);
    w.sourceToDetector = float(f.sourceToDetectorMm);
    const double scale = weightPlan.angularStepRad(v) / f.isocentrePitchMm;
    for (std::int64_t c = 0; c < setup.cols; ++c)
      setup.columnWeights[std::size_t(v * setup.cols + c)] =
          float(scale * weightPlan.redundancyWeight(v, double(c)));
  }
  const fdk::RampFilter<float> ramp(setup.filteredCols, 1.0, filter);
  setup.response = ramp.response();
  for (float& x : setup.response) x /= float(setup.fftLength);
}

// The plan's tasks: z-slabs, y-blocks, or mirrored slab pairs (the lower half cut into runs of
// taskSlices / 2 slices, each with its mirror slices; the last run's pair is one slab across the
// centre). A mirrored slab pair of a slab run (lowerZ1 > 0): only the runs of its lower slices
// [lowerZ0, lowerZ1).
std::vector<Task> tasksOf(const fdk::GpuFdkPlan& plan, const VolumeShape& shape,
                          std::int64_t lowerZ0 = 0, std::int64_t lowerZ1 = 0) {
  std::vector<Task> tasks;
  switch (plan.axis) {
    case fdk::GpuSplitAxis::Z:
      for (std::int64_t z0 = 0; z0 < shape.nz; z0 += plan.taskSlices) {
        const std::int64_t n = std::min(plan.taskSlices, shape.nz - z0);
        tasks.push_back({TaskBox{0, shape.ny, z0, n}, n, n, z0 + n});
      }
      break;
    case fdk::GpuSplitAxis::Y:
      for (std::int64_t y0 = 0; y0 < shape.ny; y0 += plan.taskSlices) {
        const std::int64_t n = std::min(plan.taskSlices, shape.ny - y0);
        tasks.push_back({TaskBox{y0, n, 0, shape.nz}, shape.nz, shape.nz, shape.nz});
      }
      break;
    case fdk::GpuSplitAxis::ZMirror: {
      const std::int64_t half = (shape.nz + 1) / 2;
      const std::int64_t step = std::max<std::int64_t>(plan.taskSlices / 2, 1);
      const std::int64_t end = lowerZ1 > 0 ? lowerZ1 : half;
      for (std::int64_t z0 = lowerZ0; z0 < end; z0 += step) {
        const std::int64_t lower = std::min(step, end - z0);
        // The pair across the centre holds every slice from z0 to its mirror nz-1-z0.
        const std::int64_t slices = z0 + lower == half ? shape.nz - 2 * z0 : 2 * lower;
        const std::int64_t lowerOfKernel = (slices + 1) / 2;  // what the kernel computes
        tasks.push_back({TaskBox{0, shape.ny, z0, lowerOfKernel}, slices, lowerOfKernel,
                         shape.nz - z0 - slices + lowerOfKernel});
      }
      break;
    }
  }
  return tasks;
}

void reconstructOnGpu(const ProjectionStack& projections, const fdk::FdkWeightPlan& weightPlan,
                      const fdk::FdkParams& params, PendingVolume& volume, JobContext& context,
                      fdk::FdkReport& report, const fdk::GpuFdkKernel& variant) {
  const auto started = std::chrono::steady_clock::now();
  const std::vector<int> devices = devicesToUse(params.gpu.devices);
  RunSetup setup;
  setup.projections = &projections;
  setup.volume = &volume;
  const fdk::FdkMirrorPair* pair = params.mirrorPair;
  setup.grid = pair != nullptr ? pair->whole : volume.grid();
  const VolumeShape& shape = setup.grid.shape;
  const Geometry& geometry = pair != nullptr ? pair->geometry : projections.geometry();
  const Geometry filteredGeometry = fillDetectorShape(setup, geometry, weightPlan);
  setup.voxelMatrices = voxelMatrices(filteredGeometry, setup.grid);
  setup.zMovesUW = zMovesUW(setup.voxelMatrices, setup.grid);
  const ResolvedKernel choice = resolve(variant, setup.voxelMatrices, setup.grid, setup.rows);
  if (pair != nullptr) {
    std::int64_t held = 0;
    for (const fdk::FdkMirrorPair::RowBand& band : pair->bands) held += band.rows;
    const VolumeShape pairShape{shape.nx, shape.ny, 2 * (pair->z1 - pair->z0)};
    if (!choice.kernel->zMirror || pair->bands.empty() || held != projections.rows() ||
        pair->z0 < 0 || pair->z1 <= pair->z0 || 2 * pair->z1 > shape.nz ||
        volume.grid().shape.nx != pairShape.nx || volume.grid().shape.ny != pairShape.ny ||
        volume.grid().shape.nz != pairShape.nz)
      throw Error("internal: a mirrored slab pair needs a z-mirror kernel (" + choice.why +
                  "), bands holding the stack's rows and a volume of both slabs");
    setup.hostRows = held;
    setup.hostBands = pair->bands;
    setup.lowerZ0 = pair->z0;
    setup.lowerZ1 = pair->z1;
  }
  setup.kernel = choice.kernel;
  setup.kernelName = choice.kernel->name;
  setup.spec = specFor(params.gpu.tunables);
  report.kernel = choice.kernel->name;
  if (!choice.why.empty())
    report.warnings.push_back(variant.name + " ran as " + choice.kernel->name + ": " + choice.why);

  fillWeightsAndResponse(setup, geometry, weightPlan, params.filter);
  const std::int64_t views = projections.viewCount();

  // Plan against the smallest usable memory of the devices; retry smaller on out-of-memory.
  std::uint64_t usable = ~std::uint64_t{0};
  std::string names;
  for (int d : devices) {
    std::size_t freeBytes = 0, totalBytes = 0;
    TOMOWB_CUDA_CHECK(cudaSetDevice(d), "selecting the GPU");
    cuda::freeDeviceMemory(freeBytes, totalBytes);
    usable = std::min<std::uint64_t>(usable, freeBytes);
  }
  if (params.gpu.memoryLimitBytes) usable = std::min(usable, params.gpu.memoryLimitBytes);
  {
    // The name only: cudaGetDeviceProperties, not listGpuDevices() (which also asks NVML for
    // every GPU's free memory).
    cudaDeviceProp prop{};
    const std::string name =
        cudaGetDeviceProperties(&prop, devices[0]) == cudaSuccess ? prop.name : "GPU";
    report.device = devices.size() == 1 ? name + " (GPU " + std::to_string(devices[0]) + ")"
                                        : std::to_string(devices.size()) + " x " + name;
  }
  for (int attempt = 0;; ++attempt) {
    fdk::GpuFdkPlanInput in;
    // A mirrored slab pair is planned as the volume of its two slabs.
    in.shape = pair != nullptr ? volume.grid().shape : shape;
    in.views = views;
    in.rows = setup.rows;
    in.cols = setup.cols;
    in.filteredCols = setup.filteredCols;
    in.fftLength = setup.fftLength;
    const fdk::GpuKernelFootprint footprint = fdk::footprintOf(*setup.kernel);
    in.inputBytesPerPixel = footprint.inputBytesPerPixel;
    in.axis = footprint.axis;
    in.chunkMultiple = footprint.chunkMultiple;
    in.gpus = int(devices.size());
    in.deviceBytes = usable;
    setup.plan = fdk::planGpuFdk(in);
    if (!setup.plan.fits) throw ParameterError("GPU memory", setup.plan.message);
    report.plan = setup.plan.summary();
    setup.tasks.clear();
    setup.tasks = tasksOf(setup.plan, shape, setup.lowerZ0, setup.lowerZ1);
    report.hostSetupSeconds = secondsSince(started);
    SharedProgress shared;
    shared.totalChunks =
        std::int64_t(setup.tasks.size()) *
        std::int64_t(fdk::gpuFdkChunkSchedule(setup.projections->viewCount(),
                                              int(setup.plan.chunkViews), !uniformPipeline())
                         .size());
    std::vector<std::thread> threads;
    for (int d : devices)
      threads.emplace_back([&, d] {
        try {
          runDevice(d, setup, shared, context);
        } catch (...) {
          std::lock_guard lock(shared.mutex);
          if (!shared.error) shared.error = std::current_exception();
          shared.nextTask = std::int64_t(setup.tasks.size());  // the others stop after their task
        }
      });
    for (std::thread& t : threads) t.join();
    if (shared.error) {
      try {
        std::rethrow_exception(shared.error);
      } catch (const CudaError& e) {
        if (isOutOfMemory(e) && attempt < 3 && usable > (std::uint64_t{64} << 20)) {
          // Other processes took memory since we asked, or cuFFT needed more: stream harder.
          report.warnings.push_back("GPU out of memory with " + report.plan +
                                    "; retrying with less");
          usable = usable / 2;
          fdkgpu::dropIdleFftPlans();
          Volume& partial = volume.get();
          std::fill(partial.data(), partial.data() + partial.voxelCount(), 0.0f);
          continue;
        }
        if (isOutOfMemory(e))
          throw Error("GPU out of memory: " + std::string(e.what()) + " (plan: " + report.plan +
                      "); try --gpu-mem-limit with less than the free memory");
        throw;
      }
    }
    report.uploadSeconds = shared.uploadSeconds;
    report.uploadBytes = shared.uploadBytes;
    report.downloadSeconds = shared.downloadSeconds;
    report.downloadTailSeconds = shared.downloadTailSeconds;
    // The wait on the GPU when the downloads ran in pieces; else the host's wait in get().
    report.hostVolumeWaitSeconds =
        shared.volumeWaitSeconds >= 0 ? shared.volumeWaitSeconds : volume.waitedSeconds();
    report.downloadBytes = shared.downloadBytes;
    report.filterSeconds = shared.filterSeconds;
    report.backprojectSeconds = shared.backprojectSeconds;
    report.voxelUpdates = shared.voxelUpdates;
    report.deviceSetupSeconds = shared.deviceSetupSeconds;
    report.firstChunkSeconds = shared.firstChunkSeconds;
    report.inputsSeconds = shared.inputsSeconds;
    report.teardownSeconds = shared.teardownSeconds;
    break;
  }
  context.throwIfCancelled();
}

// The backproject entry of a GPU variant: filtered host views -> volume, with the same kernels
// (the benchmark's and the tests' path; no filtering).
void backprojectFiltered(const ProjectionStack& filtered, Volume& volume, JobContext& context,
                         const fdk::GpuFdkKernel& variant) {
  DeviceBackprojection bp(filtered, volume, variant, {}, devicesToUse({})[0]);
  const double seconds = bp.run();
  Volume result(volume.shape(), volume.voxelSizeMm(), volume.originMm());
  bp.download(result);
  float* out = volume.data();
  const float* in = result.data();
  for (std::int64_t i = 0; i < volume.voxelCount(); ++i) out[i] += in[i];
  context.publishTelemetry({"fdk.backproject", bp.kernel(), seconds,
                            double(volume.voxelCount()) * double(filtered.viewCount()), 0.0});
  context.reportProgress("backproject", 1.0);
}

}  // namespace

// ---- public API
// -----------------------------------------------------------------------------------

ProjectionStack filterProjectionsOnGpu(const ProjectionStack& projections,
                                       const fdk::FdkWeightPlan& weightPlan,
                                       const fdk::RampFilterParams& filter, int device) {
  TOMOWB_CUDA_CHECK(cudaSetDevice(device), "selecting the GPU");
  RunSetup setup;
  const Geometry filteredGeometry = fillDetectorShape(setup, projections.geometry(), weightPlan);
  fillWeightsAndResponse(setup, projections.geometry(), weightPlan, filter);
  const std::int64_t views = projections.viewCount();
  const std::size_t rowCount = std::size_t(views * setup.rows);
  Stream stream;
  DeviceMemory raw(rowCount * std::size_t(setup.cols) * 4, "raw views");
  DeviceMemory fft(rowCount * std::size_t(setup.fftStride) * 4, "filter rows");
  DeviceMemory weights(setup.viewWeights.size() * sizeof(kernels::ViewWeights), "view weights");
  DeviceMemory columnWeights(setup.columnWeights.size() * 4, "column weights");
  copyNow(raw.as<void>(), projections.data(), rowCount * std::size_t(setup.cols) * 4,
          cudaMemcpyHostToDevice, stream, "uploading projections");
  copyNow(weights.as<void>(), setup.viewWeights.data(),
          setup.viewWeights.size() * sizeof(kernels::ViewWeights), cudaMemcpyHostToDevice, stream,
          "view weights");
  copyNow(columnWeights.as<void>(), setup.columnWeights.data(), setup.columnWeights.size() * 4,
          cudaMemcpyHostToDevice, stream, "column weights");
  const kernels::RowBands allRows{int(setup.rows), 0, int(setup.rows), 0};
  kernels::launchWeightRows(raw.as<float>(), int(views), allRows, int(setup.cols),
                            weights.as<kernels::ViewWeights>(), columnWeights.as<float>(),
                            setup.cone, int(setup.before), setup.fftLength, setup.fftStride,
                            fft.as<float>(), stream);
  TOMOWB_CUDA_CHECK(cudaGetLastError(), "weighting kernel");
  RowFilter rowFilter(setup.fftLength, setup.fftStride, setup.response, stream);
  rowFilter.filter(fft.as<float>(), static_cast<long long>(rowCount), stream);
  TOMOWB_CUDA_CHECK(cudaGetLastError(), "ramp filter");
  ProjectionStack out(filteredGeometry);
  TOMOWB_CUDA_CHECK(
      cudaMemcpy2DAsync(out.data(), std::size_t(setup.filteredCols) * 4, fft.as<void>(),
                        std::size_t(setup.fftStride) * 4, std::size_t(setup.filteredCols) * 4,
                        rowCount, cudaMemcpyDeviceToHost, stream),
      "downloading the filtered views");
  TOMOWB_CUDA_CHECK(cudaStreamSynchronize(stream), "downloading the filtered views");
  return out;
}

KernelChoice chooseKernel(const std::string& variant, const ProjectionStack& projections,
                          const Volume& volume) {
  const fdk::GpuFdkKernel* kernel = fdk::findGpuFdkKernel(variant);
  if (!kernel) return {variant, ""};
  const VolumeGrid grid = VolumeGrid::of(volume);
  const ResolvedKernel choice =
      resolve(*kernel, voxelMatrices(projections.geometry(), grid), grid, projections.rows());
  return {choice.kernel->name, choice.why};
}

struct DeviceBackprojection::Impl {
  int device = 0;
  KernelSpec spec;
  std::string kernel;
  TaskShape shape;
  std::vector<ViewMatrix> matrices;
  DeviceMemory deviceMatrices;
  DeviceMemory volume;
  std::unique_ptr<KernelInput> input;
  std::unique_ptr<Stream> stream;
};

DeviceBackprojection::DeviceBackprojection(const ProjectionStack& filtered, const Volume& grid,
                                           const std::string& variant,
                                           const std::map<std::string, std::string>& tunables,
                                           int device)
    : DeviceBackprojection(filtered, grid, requireKernel(variant), tunables, device) {}

DeviceBackprojection::DeviceBackprojection(const ProjectionStack& filtered, const Volume& grid,
                                           const fdk::GpuFdkKernel& variant,
                                           const std::map<std::string, std::string>& tunables,
                                           int device)
    : impl_(std::make_unique<Impl>()) {
  Impl& m = *impl_;
  m.device = device;
  TOMOWB_CUDA_CHECK(cudaSetDevice(device), "selecting the GPU");
  const std::vector<VoxelMatrix> whole = voxelMatrices(filtered.geometry(), VolumeGrid::of(grid));
  const ResolvedKernel choice = resolve(variant, whole, VolumeGrid::of(grid), filtered.rows());
  m.kernel = choice.kernel->name;
  m.spec = specFor(tunables);
  m.matrices = taskMatrices(whole, TaskBox{0, grid.ny(), 0, grid.nz()}, 0);
  m.shape.nx = int(grid.nx());
  m.shape.ny = int(grid.ny());
  m.shape.nz = int(grid.nz());
  m.shape.cone = filtered.geometry().beam() == BeamKind::Cone;
  m.shape.zMovesUW = zMovesUW(whole, VolumeGrid::of(grid));
  m.stream = std::make_unique<Stream>();
  m.deviceMatrices = DeviceMemory(m.matrices.size() * sizeof(ViewMatrix), "view matrices");
  copyNow(m.deviceMatrices.as<void>(), m.matrices.data(), m.matrices.size() * sizeof(ViewMatrix),
          cudaMemcpyHostToDevice, *m.stream, "view matrices");
  m.volume = DeviceMemory(std::size_t(grid.voxelCount()) * 4, "the volume on the GPU");
  const int views = int(filtered.viewCount()), rows = int(filtered.rows()),
            cols = int(filtered.cols());
  m.input = std::make_unique<KernelInput>(*choice.kernel, views, rows, cols);
  // fill() reads every view from device memory: stage them all, then drop the staging copy.
  DeviceMemory all(std::size_t(views) * rows * cols * 4, "filtered views");
  copyNow(all.as<void>(), filtered.data(), std::size_t(views) * rows * cols * 4,
          cudaMemcpyHostToDevice, *m.stream, "uploading filtered views");
  m.input->fill(all.as<float>(), views, cols, *m.stream);
  TOMOWB_CUDA_CHECK(cudaStreamSynchronize(*m.stream), "preparing the kernel's input");
}

DeviceBackprojection::~DeviceBackprojection() = default;

double DeviceBackprojection::run() {
  Impl& m = *impl_;
  TOMOWB_CUDA_CHECK(cudaSetDevice(m.device), "selecting the GPU");
  Event start, end;
  TOMOWB_CUDA_CHECK(
      cudaMemsetAsync(m.volume.as<void>(), 0, std::size_t(m.shape.nx) * m.shape.ny * m.shape.nz * 4,
                      *m.stream),
      "zeroing the volume");
  TOMOWB_CUDA_CHECK(cudaEventRecord(start, *m.stream), "timing");
  m.input->backproject(m.matrices.data(), m.deviceMatrices.as<ViewMatrix>(), m.volume.as<float>(),
                       m.shape, m.spec, *m.stream);
  TOMOWB_CUDA_CHECK(cudaEventRecord(end, *m.stream), "timing");
  TOMOWB_CUDA_CHECK(cudaEventSynchronize(end), "backprojection");
  return elapsedSeconds(start, end);
}

void DeviceBackprojection::download(Volume& volume) const {
  const Impl& m = *impl_;
  TOMOWB_CUDA_CHECK(cudaSetDevice(m.device), "selecting the GPU");
  copyNow(volume.data(), m.volume.as<void>(), std::size_t(volume.voxelCount()) * 4,
          cudaMemcpyDeviceToHost, *m.stream, "downloading the volume");
}

const std::string& DeviceBackprojection::kernel() const {
  return impl_->kernel;
}

void addGpuFdkVariant(VariantRegistry& r, const fdk::GpuFdkKernel& kernel) {
  KernelVariant v;
  v.name = kernel.name;
  v.role = VariantRole::FdkBackprojector;
  v.description = kernel.description;
  v.tunables = kernel.tunables;
  v.needsGpu = true;
  v.accuracyClass = kernel.accuracy;
  const fdk::GpuFdkKernel* row = &kernel;
  // Helical FDK weights each voxel over its conjugate rays inside the backprojection; these
  // kernels take projections that carry every weight, so a helix goes to the CPU.
  v.supports = [name = kernel.name](const Geometry& geometry,
                                    const VolumeGrid& /*grid*/) -> std::optional<std::string> {
    // Arc detectors reach the kernels resampled onto flat ones (fdk::reconstructFdk).
    if (!fdk::HelicalOrbit::sourcesLeaveThePlane(geometry)) return std::nullopt;
    return name +
           ": the GPU FDK kernels have no per-voxel helical redundancy weight, so they cannot "
           "reconstruct a helical orbit; helical FDK runs on the CPU (fdk.bp.cpu)";
  };
  v.backproject = [row](const ProjectionStack& filtered, Volume& volume, JobContext& context) {
    backprojectFiltered(filtered, volume, context, *row);
  };
  v.reconstruct = [row](const ProjectionStack& projections, const fdk::FdkWeightPlan& plan,
                        const fdk::FdkParams& params, PendingVolume& volume, JobContext& context,
                        fdk::FdkReport& report) {
    reconstructOnGpu(projections, plan, params, volume, context, report, *row);
  };
  r.add(std::move(v));
}

void registerGpuVariants(VariantRegistry& r) {
  for (const fdk::GpuFdkKernel& kernel : fdk::gpuFdkKernels()) addGpuFdkVariant(r, kernel);
}

}  // namespace tomowb::cuda
