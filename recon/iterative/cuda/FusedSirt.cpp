// SIRT, OS-SIRT and SART fused on the GPU(s) (FusedSirt.h). How a run goes:
//  1. The problem: parallel beam only. SingleAxisGeometry decides between the slice kernels (an
//     aligned single-axis tilt series) and the general 3-D kernels; the per-view numbers become
//     device tables, copied into constant memory before each launch (1024 views per launch for
//     the slice kernels, 128 for the volume kernels), so any number of views works.
//  2. The plan: in the aligned case the slices that have a detector row are cut into slabs (the
//     slices are independent, so a slab needs no halo and a slab's result does not depend on
//     where it was cut); a slab is as large as the device's free memory (or
//     params.gpu.memoryLimitBytes) allows. If every GPU can hold its share of the volume at once,
//     each runs one slab and the GPUs iterate in lock-step (a barrier per iteration sums the
//     residuals); otherwise each GPU thread takes slabs from a shared counter and runs all
//     iterations on one before the next, the next slab's upload overlapping on a copy stream
//     (two buffer sets when they fit). The general 3-D path is one slab on one GPU when the
//     whole problem fits; otherwise it is streamed (planStreamed): b, the residual and R (and
//     the per-view tables) stay on the GPU, x stays on the host and goes through in z-slabs.
//     Per subset the forward projection is the sum of the slabs' partial ray sums (every
//     bilinear tap belongs to the slab holding its z, EtKernels.cuh), the residual epilogue runs
//     on the last slab's launch, then each slab (in reverse order) is backprojected, updated and
//     downloaded. Traffic per subset of V voxels in K slabs: x up 2 (K - 1) / K * 4V bytes (the
//     slab resident at a pass's turn is reused), x down 4V, C_s up 4V (kept on the host for up
//     to kHostColumnWeightSubsets subsets; beyond that recomputed per slab, one more
//     backprojection of ones and no upload), the mask as x at 1 byte a voxel. The result equals
//     the resident run's up to the order of the ray sums' float32 additions.
//  3. Per device: R = 1 / FP(1) and C_s = lambda / BP_s(1), sums below 1e-6 of their largest set
//     to 0 (IterativeReconstruction.cpp). In the aligned case every slice has the same weights,
//     so R is one [view][col] map and each C_s one [y][x] map, computed on a single slice; with a
//     mask R is per row and its threshold's maximum comes from a first pass over every slab.
//  4. Per subset: the forward kernel's epilogue writes R (b - A x) and adds ||b - A x||^2 and
//     ||b - A x||_R^2; the texture kernels' inputs are packed from the linear buffers (several
//     slices per texel for the fast kernels); the backprojector's epilogue does
//     x = clamp(x + C_s A^T r), 0 outside the mask.
// Rows that no slice maps to are never uploaded; their data enter the residual norm as a
// constant (their A x is 0), as on the CPU.
// This file holds the plan, the device threads and the entry points; one device's slab is
// DeviceSirt.h; the projectors it runs are recon/projector/cuda/ (EtDeviceProjector.h).
#include "recon/iterative/cuda/FusedSirt.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cassert>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <exception>
#include <functional>
#include <limits>
#include <map>
#include <mutex>
#include <span>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

#include "recon/core/Error.h"
#include "recon/core/MemoryBudget.h"
#include "recon/device/CudaCheck.h"
#include "recon/device/CudaResources.h"
#include "recon/device/GpuDevices.h"
#include "recon/device/GpuRunSupport.h"
#include "recon/iterative/IterationLog.h"
#include "recon/iterative/cuda/DeviceSirt.h"
#include "recon/projector/JosephProjector.h"
#include "recon/projector/SingleAxisGeometry.h"
#include "recon/projector/cuda/EtDeviceProjector.h"
#include "recon/projector/cuda/EtKernels.cuh"

namespace tomowb::cuda {

namespace {

using Clock = std::chrono::steady_clock;
using namespace etgpu;  // NOLINT(google-build-using-namespace): its own internals

double secondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// A barrier for the device threads of a lock-step run. The last thread to arrive runs the
// leader function (its exception aborts the barrier and is kept); abort() releases everyone.
class PhaseBarrier {
 public:
  explicit PhaseBarrier(int parties) : parties_(parties) {}
  bool arrive(const std::function<void()>& leader = {}) {
    std::unique_lock lock(mutex_);
    if (aborted_) return false;
    const std::uint64_t generation = generation_;
    if (++arrived_ == parties_) {
      if (leader) {
        try {
          leader();
        } catch (...) {
          if (!error_) error_ = std::current_exception();
          aborted_ = true;
          changed_.notify_all();
          return false;
        }
      }
      arrived_ = 0;
      ++generation_;
      changed_.notify_all();
      return true;
    }
    changed_.wait(lock, [&] { return generation_ != generation || aborted_; });
    return !aborted_;
  }
  void abort() {
    std::lock_guard lock(mutex_);
    aborted_ = true;
    changed_.notify_all();
  }
  std::exception_ptr error() {
    std::lock_guard lock(mutex_);
    return error_;
  }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  int parties_;
  int arrived_ = 0;
  std::uint64_t generation_ = 0;
  bool aborted_ = false;
  std::exception_ptr error_;
};

// Per slab (streamed) or per device (lock-step): the iteration curve's parts.
struct SlabCurve {
  std::vector<double> residual2, weighted2, seconds, forward, back;
  void resize(int n) {
    residual2.assign(std::size_t(n), 0.0);
    weighted2.assign(std::size_t(n), 0.0);
    seconds.assign(std::size_t(n), 0.0);
    forward.assign(std::size_t(n), 0.0);
    back.assign(std::size_t(n), 0.0);
  }
};

struct RunOutcome {
  std::vector<IterationRecord> records;
  std::string stopReason;
  double forwardSeconds = 0, backSeconds = 0, voxelUpdates = 0, setupSeconds = 0;
  double uploadSeconds = 0, uploadBytes = 0, downloadBytes = 0;
  bool publishedLast = false;
  int iterationsDone = 0;
};

IterationRecord makeRecord(const SirtRun& run, int iteration, double residual2, double weighted2,
                           double seconds) {
  IterationRecord r;
  r.algorithm = iterative::toString(run.params->method);
  r.iteration = iteration;
  r.maxIterations = run.params->iterations;
  r.residualNorm = std::sqrt(residual2 + run.unmappedResidual2);
  r.weightedResidualNorm = std::sqrt(weighted2);
  r.relativeResidual = run.dataNorm > 0 ? r.residualNorm / run.dataNorm : 0.0;
  r.seconds = seconds;
  return r;
}

void publishIterationTelemetry(SirtRun& run, int device, const IterationTimes& t, double voxels) {
  const double updates = voxels * double(run.problem.views);
  std::lock_guard lock(run.contextMutex);
  TelemetryEvent e{"iterative.forward", run.fp.name, t.forward, updates, 0.0};
  e.device = device;
  run.context->publishTelemetry(e);
  e = TelemetryEvent{"iterative.backproject", run.bp.name, t.back, updates, 0.0};
  e.device = device;
  run.context->publishTelemetry(e);
}

// Lock-step: thread `index` owns slab `index` on its device.
void runLockStep(SirtRun& run, DeviceSirt& gpu, std::size_t index, PhaseBarrier& barrier,
                 std::vector<SlabCurve>& parts, RunOutcome& outcome, std::atomic<bool>& stop,
                 Clock::time_point& iterationStart) {
  const Slab slab = run.slabs[index];
  const iterative::IterativeParams& params = *run.params;
  gpu.upload(0, slab);
  gpu.beginSlab(0, slab);
  SlabCurve& part = parts[index];
  const double voxels = double(slab.slices) * double(run.problem.slice2d());
  for (int it = 1; it <= params.iterations; ++it) {
    const IterationTimes t = gpu.iterate(0, slab, it, true);
    const auto [r2, w2] = gpu.norms(it);
    part.residual2[std::size_t(it - 1)] = r2;
    part.weighted2[std::size_t(it - 1)] = w2;
    part.forward[std::size_t(it - 1)] = t.forward;
    part.back[std::size_t(it - 1)] = t.back;
    publishIterationTelemetry(run, gpu.device(), t, voxels);
    const bool last = it == params.iterations;
    // Every publishEvery iterations when the context wants a volume then (run.previewWanted,
    // the same for every device thread), and the last iterate.
    const bool publish = run.context->wantsIntermediates() && params.publishEvery > 0 &&
                         ((it % params.publishEvery == 0 && run.previewWanted.load()) || last);
    if (publish) gpu.download(0, slab, false);
    const bool ok = barrier.arrive([&] {
      double residual2 = 0, weighted2 = 0, fp = 0, bp = 0;
      for (const SlabCurve& c : parts) {
        residual2 += c.residual2[std::size_t(it - 1)];
        weighted2 += c.weighted2[std::size_t(it - 1)];
        fp += c.forward[std::size_t(it - 1)];
        bp += c.back[std::size_t(it - 1)];
      }
      const IterationRecord record =
          makeRecord(run, it, residual2, weighted2, secondsSince(iterationStart));
      iterationStart = Clock::now();
      outcome.records.push_back(record);
      outcome.forwardSeconds += fp;
      outcome.backSeconds += bp;
      outcome.voxelUpdates +=
          2.0 * double(run.problem.shape.nx * run.problem.shape.ny) *
          double(run.problem.axis.aligned ? run.problem.axis.sliceCount : run.problem.shape.nz) *
          double(run.problem.views);
      outcome.iterationsDone = it;
      std::lock_guard lock(run.contextMutex);
      run.context->reportIteration(record);
      run.context->reportProgress(
          "iteration " + std::to_string(it) + "/" + std::to_string(params.iterations),
          double(it) / params.iterations);
      bool converged = false;
      if (params.stopRelativeChange > 0 && it > 1) {
        const double before = outcome.records[outcome.records.size() - 2].weightedResidualNorm;
        const double change = before > 0 ? (before - record.weightedResidualNorm) / before : 0.0;
        if (change < params.stopRelativeChange) {
          converged = true;
          char text[160];
          std::snprintf(text, sizeof text,
                        "the weighted residual fell by %.3g (< %.3g) in iteration %d", change,
                        params.stopRelativeChange, it);
          outcome.stopReason = text;
        }
      }
      // "Stop and keep" (JobContext::stopRequested): every slab ends after this iteration, so
      // the volume is the whole iterate it; the intermediate follows from publishedLast.
      if (!converged && it < params.iterations && run.context->stopRequested()) {
        outcome.stopReason = iterative::stoppedByUser(it, params.iterations);
        converged = true;
      }
      if (publish) {
        run.context->publishIntermediate(*run.volume, "iteration " + std::to_string(it));
        outcome.publishedLast = true;
      } else {
        outcome.publishedLast = false;
      }
      if (converged) stop = true;
      run.previewWanted = run.context->intermediateWantedNow();
    });
    if (!ok) return;  // another thread failed: it reports the error
    if (stop) break;
  }
  gpu.download(0, slab, false);
}

// Streamed: slabs from the shared counter, all iterations on one before the next.
void runStreamed(SirtRun& run, DeviceSirt& gpu, std::vector<SlabCurve>& curves,
                 std::atomic<std::int64_t>& doneSlabIterations) {
  const iterative::IterativeParams& params = *run.params;
  const auto take = [&](std::size_t& index) {
    const std::int64_t i = run.nextSlab.fetch_add(1);
    if (i >= std::int64_t(run.slabs.size())) return false;
    index = std::size_t(i);
    return true;
  };
  const bool overlap = run.bufferSets == 2;
  std::size_t current = 0, next = 0;
  bool have = take(current);
  int set = 0;
  if (have) gpu.upload(set, run.slabs[current]);
  const double total = double(run.slabs.size()) * params.iterations;
  while (have) {
    const bool haveNext = take(next);
    if (haveNext && overlap) gpu.upload(1 - set, run.slabs[next]);
    const Slab& slab = run.slabs[current];
    gpu.beginSlab(set, slab);
    SlabCurve& curve = curves[current];
    const double voxels = double(slab.slices) * double(run.problem.slice2d());
    for (int it = 1; it <= params.iterations; ++it) {
      const auto started = Clock::now();
      const IterationTimes t = gpu.iterate(set, slab, it, true);
      const auto [r2, w2] = gpu.norms(it);
      curve.residual2[std::size_t(it - 1)] = r2;
      curve.weighted2[std::size_t(it - 1)] = w2;
      curve.forward[std::size_t(it - 1)] = t.forward;
      curve.back[std::size_t(it - 1)] = t.back;
      curve.seconds[std::size_t(it - 1)] = secondsSince(started);
      publishIterationTelemetry(run, gpu.device(), t, voxels);
      const std::int64_t done = ++doneSlabIterations;
      std::lock_guard lock(run.contextMutex);
      run.context->reportProgress("slab " + std::to_string(current + 1) + "/" +
                                      std::to_string(run.slabs.size()) + ", iteration " +
                                      std::to_string(it) + "/" + std::to_string(params.iterations),
                                  double(done) / total);
    }
    gpu.download(set, slab, overlap);
    // A finished slab is a preview (the slabs not yet run are zero) when the context wants one.
    if (haveNext && run.context->wantsIntermediates() && params.publishEvery > 0) {
      std::lock_guard lock(run.contextMutex);
      if (run.context->intermediateWantedNow()) {
        gpu.finish();  // the slab's download has landed
        run.context->publishIntermediate(*run.volume,
                                         "slab " + std::to_string(current + 1) + " of " +
                                             std::to_string(run.slabs.size()) + " done (" +
                                             std::to_string(params.iterations) + " iterations)");
      }
    }
    if (haveNext && !overlap) gpu.upload(set, run.slabs[next]);
    if (overlap) set = 1 - set;
    current = next;
    have = haveNext;
  }
  gpu.finish();
}

// The general 3-D path when the whole problem does not fit: the projections stay on the GPU and
// the volume goes through it in z-slabs, as many slices as fit, a multiple of the voxel-driven
// backprojector's z-block where possible (then each slab's voxels are computed as in the whole
// volume). Throws ParameterError, saying what would fit, when not even one slice does.
void planStreamed(SirtRun& run, std::uint64_t usable) {
  const EtProblem& p = run.problem;
  run.hostColumnWeights = run.subsets.size() <= kHostColumnWeightSubsets;
  std::int64_t lo = 0, hi = p.shape.nz;
  while (lo < hi) {
    const std::int64_t mid = (lo + hi + 1) / 2;
    if (streamedBytes(run, mid) <= usable)
      lo = mid;
    else
      hi = mid - 1;
  }
  if (lo < 1) {
    const std::uint64_t one = streamedBytes(run, 1);
    const double perView =
        double((run.hostColumnWeights ? 3 : 4) * 4 * p.rows * p.cols) * (1.0 + 1.0 / 32.0) +
        64.0 * 3.0;
    const double fixed = double(one) - perView * double(p.views);
    const auto views = std::int64_t(std::max(0.0, (double(usable) - fixed) / perView));
    throw ParameterError(
        "GPU memory",
        "the general 3-D path (" + p.axis.reason +
            ") keeps the projections on the GPU and streams the volume in z-slabs: the "
            "projections and one slice need " +
            formatBytes(one) + ", the GPU has " + formatBytes(usable) + " usable; about " +
            std::to_string(views) + " views of " + std::to_string(p.cols) + " x " +
            std::to_string(p.rows) + " pixels (with " + std::to_string(p.shape.nx) + " x " +
            std::to_string(p.shape.ny) + " slices) would fit");
  }
  constexpr std::int64_t kAlign = et::kVolumeZPerThread;
  if (lo >= kAlign) lo -= lo % kAlign;
  const std::int64_t count = (p.shape.nz + lo - 1) / lo;
  std::int64_t size = (p.shape.nz + count - 1) / count;
  if (lo >= kAlign) size = std::min(lo, (size + kAlign - 1) / kAlign * kAlign);
  for (std::int64_t z0 = 0; z0 < p.shape.nz; z0 += size)
    run.zSlabs.push_back({z0, std::min(size, p.shape.nz - z0)});
  run.slabCapacity = size;
  run.planText = "general 3-D path streamed in " + std::to_string(run.zSlabs.size()) +
                 " z-slabs of up to " + std::to_string(size) + " slices on GPU " +
                 std::to_string(run.devices[0]) + " (projections resident, column weights " +
                 (run.hostColumnWeights ? "on the host" : "recomputed per slab") + ")";
}

// The plan: slabs, lock-step or streamed, buffer sets, stored weights. Throws ParameterError
// when nothing fits.
void planRun(SirtRun& run, std::uint64_t usable) {
  const EtProblem& p = run.problem;
  const int gpus = int(run.devices.size());
  run.slabs.clear();
  // Column weights are stored when they take at most an eighth of the memory.
  const std::uint64_t perSubset =
      (p.singleAxis() ? std::uint64_t(p.slice2d()) : std::uint64_t(p.shape.voxelCount())) * 4;
  run.storeColumnWeights =
      run.subsets.size() == 1 || perSubset * std::uint64_t(run.subsets.size()) <= usable / 8;
  run.zSlabs.clear();
  if (!p.singleAxis()) {
    run.devices.resize(1);
    run.lockStep = true;
    run.bufferSets = 1;
    run.slabs.push_back({0, p.shape.nz});
    if (sirtBytes(run, p.shape.nz, 1) <= usable) {
      run.slabCapacity = p.shape.nz;
      run.planText = "1 slab (general 3-D path) on GPU " + std::to_string(run.devices[0]);
      return;
    }
    planStreamed(run, usable);
    return;
  }
  const std::int64_t count = p.axis.sliceCount;
  std::int64_t cap = count;
  if (forwardUsesTexture(run.fp)) cap = std::min(cap, kMaxLayers * et::texelSlices(run.fp.texel));
  if (backUsesTexture(run.bp)) cap = std::min(cap, kMaxLayers * et::texelSlices(run.bp.texel));
  cap = std::min<std::int64_t>(cap, 65535);
  const auto largest = [&](int sets) {
    std::int64_t lo = 0, hi = cap;
    while (lo < hi) {
      const std::int64_t mid = (lo + hi + 1) / 2;
      if (sirtBytes(run, mid, sets) <= usable)
        lo = mid;
      else
        hi = mid - 1;
    }
    return lo;
  };
  const std::int64_t lockCap = largest(1);
  if (lockCap < 1)
    throw ParameterError("GPU memory", "one slice needs " + formatBytes(sirtBytes(run, 1, 1)) +
                                           " on the GPU (" + std::to_string(p.shape.nx) + " x " +
                                           std::to_string(p.shape.ny) + " voxels, " +
                                           std::to_string(p.views) + " views of " +
                                           std::to_string(p.cols) + " columns), the GPU has " +
                                           formatBytes(usable) + " usable");
  const std::int64_t parts = std::min<std::int64_t>(gpus, count);
  const std::int64_t share = (count + parts - 1) / parts;
  if (share <= lockCap) {
    run.lockStep = true;
    run.bufferSets = 1;
    run.devices.resize(std::size_t(parts));
    for (std::int64_t i = 0; i < parts; ++i) {
      const std::int64_t z0 = count * i / parts, z1 = count * (i + 1) / parts;
      run.slabs.push_back({p.axis.firstSlice + z0, z1 - z0});
    }
    run.slabCapacity = share;
  } else {
    run.lockStep = false;
    std::int64_t size = largest(2);
    run.bufferSets = 2;
    if (size < std::max<std::int64_t>(1, lockCap / 4)) {  // overlap would cost too much slab
      size = lockCap;
      run.bufferSets = 1;
    }
    const std::int64_t slabs = std::max<std::int64_t>((count + size - 1) / size, gpus);
    const std::int64_t even = (count + slabs - 1) / slabs;
    for (std::int64_t z0 = 0; z0 < count; z0 += even)
      run.slabs.push_back({p.axis.firstSlice + z0, std::min(even, count - z0)});
    run.slabCapacity = even;
  }
  run.planText =
      std::to_string(run.slabs.size()) + " slab(s) of up to " + std::to_string(run.slabCapacity) +
      " slices on " + std::to_string(run.devices.size()) + " GPU(s), " +
      (run.lockStep ? "lock-step" : "streamed") +
      (run.lockStep ? "" : (run.bufferSets == 2 ? ", uploads overlapped" : ", no overlap")) +
      (run.storeColumnWeights ? "" : ", column weights recomputed per subset");
}

void checkParams(const ProjectionStack& projections, const iterative::IterativeParams& p,
                 const Volume& volume) {
  if (projections.empty()) throw ParameterError("projections", "no projections to reconstruct");
  if (volume.empty()) throw ParameterError("volume", "the volume is empty");
  if (p.iterations < 1 || p.iterations > 1000000)
    throw ParameterError("iterations", "must be 1..1000000, got " + std::to_string(p.iterations));
  if (!(p.relaxation > 0.0 && p.relaxation < 2.0))
    throw ParameterError("relaxation", "must lie in (0, 2), got " + std::to_string(p.relaxation));
  if (p.method == iterative::IterativeMethod::OsSirt &&
      (p.subsets < 1 || p.subsets > projections.viewCount()))
    throw ParameterError("subsets", "must be 1.." + std::to_string(projections.viewCount()) +
                                        " (the view count), got " + std::to_string(p.subsets));
  if (p.lowerBound && p.upperBound && *p.lowerBound > *p.upperBound)
    throw ParameterError("bounds", "the lower bound exceeds the upper bound");
  if (p.mask && p.mask->shape() != volume.shape())
    throw ParameterError("mask", "its shape differs from the reconstruction grid's");
}

// The run's inputs that do not depend on the plan.
void setupRun(SirtRun& run, const ProjectionStack& projections,
              const iterative::IterativeParams& params, Volume& volume, JobContext& context) {
  run.projections = &projections;
  run.params = &params;
  run.volume = &volume;
  run.context = &context;
  run.problem = analyseProblem(projections.geometry(), volume.shape(), volume.voxelSizeMm(),
                               volume.originMm());
  run.fp = forwardSpecFor(params.forwardVariant, params.gpu.tunables);
  run.bp = backSpecFor(params.backVariant, params.gpu.tunables);
  run.subsets = iterative::viewSubsets(params.method, projections.viewCount(), params.subsets);
  for (const auto& s : run.subsets)
    run.maxSubsetViews = std::max<std::int64_t>(run.maxSubsetViews, std::int64_t(s.size()));
  if (params.mask) {
    run.mask.resize(std::size_t(volume.voxelCount()));
    const float* m = params.mask->data();
    for (std::size_t i = 0; i < run.mask.size(); ++i) run.mask[i] = m[i] != 0.0f ? 1 : 0;
  }
  if (params.lowerBound) run.lower = float(*params.lowerBound);
  if (params.upperBound) run.upper = float(*params.upperBound);
  double data2 = 0;
  for (const float b : projections.pixels()) data2 += double(b) * b;
  run.dataNorm = std::sqrt(data2);
  // Rows no slice maps to: A x is 0 there, so b - A x = b every iteration.
  if (run.problem.singleAxis()) {
    const projector::SingleAxisGeometry& a = run.problem.axis;
    const std::int64_t r0 =
        std::min(a.rowOf(a.firstSlice), a.rowOf(a.firstSlice + a.sliceCount - 1));
    const std::int64_t r1 = r0 + a.sliceCount;  // mapped rows [r0, r1)
    double unmapped = 0;
    for (std::int64_t v = 0; v < projections.viewCount(); ++v)
      for (std::int64_t r = 0; r < projections.rows(); ++r) {
        if (r >= r0 && r < r1) continue;
        for (std::int64_t c = 0; c < projections.cols(); ++c) {
          const double b = projections.at(v, r, c);
          unmapped += b * b;
        }
      }
    run.unmappedResidual2 = unmapped;
  }
}

// One attempt at the whole run with `usable` bytes per device. Throws what a device thread
// threw; `beforeWork` tells whether that happened before any slab's result reached the host.
RunOutcome runOnDevices(SirtRun& run, bool& beforeWork) {
  RunOutcome outcome;
  const iterative::IterativeParams& params = *run.params;
  const int threads = int(run.lockStep ? run.slabs.size() : run.devices.size());
  PhaseBarrier barrier(threads);
  std::vector<SlabCurve> parts(run.lockStep ? run.slabs.size() : run.slabs.size());
  for (SlabCurve& c : parts) c.resize(params.iterations);
  std::atomic<bool> stop{false}, failedBeforeWork{false};
  std::atomic<std::int64_t> doneSlabIterations{0};
  std::mutex errorMutex;
  std::exception_ptr error;
  const std::size_t n = std::size_t(threads);
  std::vector<double> setupSeconds(n, 0.0), uploadSeconds(n, 0.0), uploadBytes(n, 0.0),
      downloadBytes(n, 0.0);
  Clock::time_point iterationStart = Clock::now();
  const auto started = Clock::now();
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) {
    const int device = run.devices[std::size_t(run.lockStep ? t : t)];
    pool.emplace_back([&, t, device] {
      bool ready = false;
      try {
        TOMOWB_CUDA_CHECK(cudaSetDevice(device), "selecting the GPU");
        std::lock_guard deviceGuard(deviceLock(device));
        DeviceSirt gpu(run, device, run.slabCapacity, run.bufferSets);
        gpu.prepareWeights();
        if (run.problem.singleAxis() && !run.mask.empty()) {
          for (std::int64_t i;
               (i = run.nextMaskSlab.fetch_add(1)) < std::int64_t(run.slabs.size());) {
            const unsigned bits = gpu.maskRowMax(run.slabs[std::size_t(i)]);
            unsigned seen = run.rowMaxBits.load();
            while (bits > seen && !run.rowMaxBits.compare_exchange_weak(seen, bits)) {
            }
          }
        }
        setupSeconds[std::size_t(t)] = secondsSince(started);
        // Every device allocated and prepared before any result reaches the host: an out-of-
        // memory error up to here can be retried with a smaller plan.
        if (!barrier.arrive([&] {
              iterationStart = Clock::now();
              std::lock_guard lock(run.contextMutex);
              run.context->reportProgress("weights", 1.0);
            }))
          return;
        ready = true;
        if (run.lockStep)
          runLockStep(run, gpu, std::size_t(t), barrier, parts, outcome, stop, iterationStart);
        else
          runStreamed(run, gpu, parts, doneSlabIterations);
        gpu.finish();
        uploadSeconds[std::size_t(t)] = gpu.uploadSeconds(0);
        uploadBytes[std::size_t(t)] = gpu.uploadBytes();
        downloadBytes[std::size_t(t)] = gpu.downloadBytes();
      } catch (...) {
        {
          std::lock_guard lock(errorMutex);
          if (!error) {
            error = std::current_exception();
            if (!ready) failedBeforeWork = true;
          }
        }
        run.nextSlab = std::int64_t(run.slabs.size());
        barrier.abort();
      }
    });
  }
  for (std::thread& th : pool) th.join();
  if (!error) error = barrier.error();
  beforeWork = failedBeforeWork;
  if (error) std::rethrow_exception(error);
  outcome.setupSeconds = *std::max_element(setupSeconds.begin(), setupSeconds.end());
  for (int t = 0; t < threads; ++t) {
    outcome.uploadSeconds += uploadSeconds[std::size_t(t)];
    outcome.uploadBytes += uploadBytes[std::size_t(t)];
    outcome.downloadBytes += downloadBytes[std::size_t(t)];
  }
  if (!run.lockStep) {
    // The summed curve, reported now that every slab has finished.
    for (int it = 1; it <= params.iterations; ++it) {
      double r2 = 0, w2 = 0, seconds = 0;
      for (const SlabCurve& c : parts) {
        r2 += c.residual2[std::size_t(it - 1)];
        w2 += c.weighted2[std::size_t(it - 1)];
        seconds += c.seconds[std::size_t(it - 1)];
        outcome.forwardSeconds += c.forward[std::size_t(it - 1)];
        outcome.backSeconds += c.back[std::size_t(it - 1)];
      }
      outcome.records.push_back(makeRecord(run, it, r2, w2, seconds));
      run.context->reportIteration(outcome.records.back());
    }
    outcome.iterationsDone = params.iterations;
    outcome.voxelUpdates = 2.0 * double(run.problem.slice2d()) *
                           double(run.problem.axis.sliceCount) * double(run.problem.views) *
                           params.iterations;
  }
  return outcome;
}

}  // namespace

// ---- public API --------------------------------------------------------------------------------

void reconstructIterativeGpu(const ProjectionStack& projections,
                             const iterative::IterativeParams& params, Volume& volume,
                             JobContext& context, iterative::IterativeReport& report) {
  const auto started = Clock::now();
  checkParams(projections, params, volume);
  SirtRun run;
  setupRun(run, projections, params, volume, context);
  report.method = iterative::toString(params.method);
  report.forwardVariant = params.forwardVariant;
  report.backVariant = params.backVariant;
  const KernelVariant* bpVariant = VariantRegistry::builtins().find(params.backVariant);
  if (bpVariant && !bpVariant->adjointOf.empty() && bpVariant->adjointOf != params.forwardVariant) {
    const std::string text = params.backVariant + " is the transpose of " + bpVariant->adjointOf +
                             ", not of " + params.forwardVariant + ": the pair is unmatched";
    if (std::find(report.warnings.begin(), report.warnings.end(), text) == report.warnings.end())
      report.warnings.push_back(text);
  }
  if (!run.problem.singleAxis())
    report.warnings.push_back(
        "the GPU projectors ran the general 3-D kernels: not an aligned "
        "single-axis problem (" +
        run.problem.axis.reason + ")");
  const std::vector<int> devices = devicesToUse(params.gpu.devices);
  std::uint64_t usable = usableBytes(devices, params.gpu.memoryLimitBytes);
  context.reportProgress("weights", 0.0);
  RunOutcome outcome;
  for (int attempt = 0;; ++attempt) {
    run.devices = devices;
    planRun(run, usable);
    run.nextSlab = 0;
    run.previewWanted = true;
    run.nextMaskSlab = 0;
    run.rowMaxBits = 0;
    bool beforeWork = false;
    try {
      outcome = runOnDevices(run, beforeWork);
      break;
    } catch (const CudaError& e) {
      if (isOutOfMemory(e) && beforeWork && attempt < 3 && usable > (std::uint64_t{64} << 20)) {
        report.warnings.push_back("GPU out of memory with " + run.planText +
                                  "; retrying with half the memory");
        usable /= 2;
        continue;
      }
      if (isOutOfMemory(e))
        throw Error("GPU out of memory: " + std::string(e.what()) + " (plan: " + run.planText +
                    "); try a GPU memory limit below the free memory");
      throw;
    }
  }
  const std::string name = deviceName(run.devices[0]);
  report.device = run.devices.size() == 1
                      ? name + " (GPU " + std::to_string(run.devices[0]) + "), " + run.planText
                      : std::to_string(run.devices.size()) + " x " + name + ", " + run.planText;
  report.iterations = outcome.records;
  report.stopReason = outcome.stopReason.empty()
                          ? std::to_string(outcome.iterationsDone) + " iterations"
                          : outcome.stopReason;
  if (!run.lockStep && params.stopRelativeChange > 0)
    report.warnings.push_back(
        "the stop rule (relative change " + std::to_string(params.stopRelativeChange) +
        ") was not applied: the volume ran as " + std::to_string(run.slabs.size()) +
        " slabs one after another, so the whole volume's residual was known only at the end");
  if (!run.lockStep && context.stopRequested())
    report.warnings.push_back(
        "the request to stop and keep the iterate was not honoured: the volume ran as " +
        std::to_string(run.slabs.size()) + " slabs one after another, each through all iterations");
  report.setupSeconds = outcome.setupSeconds;
  report.forwardSeconds = outcome.forwardSeconds;
  report.backprojectSeconds = outcome.backSeconds;
  report.voxelUpdates = outcome.voxelUpdates;
  report.totalSeconds = secondsSince(started);
  {
    TelemetryEvent up{"iterative.upload", params.forwardVariant, outcome.uploadSeconds, 0.0,
                      outcome.uploadBytes};
    up.device = run.devices[0];
    context.publishTelemetry(up);
  }
  // Intermediates: the last iterate when it was not published in the loop (streamed runs, or a
  // run stopped by the rule between two publications).
  if (context.wantsIntermediates() && params.publishEvery > 0 && !outcome.publishedLast)
    context.publishIntermediate(volume, "iteration " + std::to_string(outcome.iterationsDone));
  context.reportProgress("done", 1.0);
}

struct IterativeBenchmark::Impl {
  SirtRun run;
  iterative::IterativeParams params;
  std::unique_ptr<DeviceSirt> gpu;
  Slab slab;
  int device = 0;
  JobContext context;
  Volume start;
  int iterationsDone = 0;
};

IterativeBenchmark::IterativeBenchmark(const ProjectionStack& projections,
                                       const iterative::IterativeParams& params,
                                       const Volume& start, int device)
    : impl_(std::make_unique<Impl>()) {
  Impl& m = *impl_;
  m.params = params;
  m.params.iterations = std::max(params.iterations, 1000);  // room for the norms of every call
  m.device = device;
  m.start = start;
  checkParams(projections, m.params, m.start);
  TOMOWB_CUDA_CHECK(cudaSetDevice(device), "selecting the GPU");
  setupRun(m.run, projections, m.params, m.start, m.context);
  m.run.devices = {device};
  planRun(m.run, usableBytes({device}, params.gpu.memoryLimitBytes));
  if (m.run.slabs.size() != 1 || !m.run.zSlabs.empty())
    throw ParameterError(
        "benchmark", "the problem does not fit on one GPU as one slab (" + m.run.planText + ")");
  m.slab = m.run.slabs[0];
  m.run.slabCapacity = m.slab.slices;
  m.gpu = std::make_unique<DeviceSirt>(m.run, device, m.slab.slices, 1);
  m.gpu->prepareWeights();
  if (m.run.problem.singleAxis() && !m.run.mask.empty())
    m.run.rowMaxBits = m.gpu->maskRowMax(m.slab);
  m.gpu->upload(0, m.slab);
  m.gpu->beginSlab(0, m.slab);
  m.gpu->finish();
}

IterativeBenchmark::~IterativeBenchmark() = default;

double IterativeBenchmark::forwardSeconds(int repeats) {
  Impl& m = *impl_;
  TOMOWB_CUDA_CHECK(cudaSetDevice(m.device), "selecting the GPU");
  Event start, end;
  const cudaStream_t s = m.gpu->computeStream();
  et::FpEpilogue e;
  e.out = m.gpu->residual();
  TOMOWB_CUDA_CHECK(cudaEventRecord(start, s), "timing");
  for (int i = 0; i < repeats; ++i)
    m.gpu->projector().forward(m.gpu->x(0), m.gpu->dims(m.slab), m.gpu->allViews(), e, s);
  TOMOWB_CUDA_CHECK(cudaEventRecord(end, s), "timing");
  TOMOWB_CUDA_CHECK(cudaEventSynchronize(end), "forward projection");
  return elapsedSeconds(start, end) / std::max(repeats, 1);
}

double IterativeBenchmark::backprojectSeconds(int repeats) {
  Impl& m = *impl_;
  TOMOWB_CUDA_CHECK(cudaSetDevice(m.device), "selecting the GPU");
  Event start, end;
  const cudaStream_t s = m.gpu->computeStream();
  DeviceMemory out(std::size_t(m.slab.slices * m.run.problem.slice2d()) * 4, "benchmark volume");
  DeviceMemory partial(
      DeviceProjector::needsPartial(m.run.problem, m.run.problem.views) ? out.bytes() : 0,
      "benchmark partial sums");
  TOMOWB_CUDA_CHECK(cudaMemsetAsync(out.as<void>(), 0, out.bytes(), s), "benchmark volume");
  et::BpEpilogue e;
  e.volume = out.as<float>();
  TOMOWB_CUDA_CHECK(cudaEventRecord(start, s), "timing");
  for (int i = 0; i < repeats; ++i)
    m.gpu->projector().backproject(m.gpu->residual(), m.gpu->dims(m.slab), m.gpu->allViews(), e,
                                   partial.as<float>(), s);
  TOMOWB_CUDA_CHECK(cudaEventRecord(end, s), "timing");
  TOMOWB_CUDA_CHECK(cudaEventSynchronize(end), "backprojection");
  return elapsedSeconds(start, end) / std::max(repeats, 1);
}

double IterativeBenchmark::iterationSeconds(int iterations) {
  Impl& m = *impl_;
  TOMOWB_CUDA_CHECK(cudaSetDevice(m.device), "selecting the GPU");
  Event start, end;
  const cudaStream_t s = m.gpu->computeStream();
  TOMOWB_CUDA_CHECK(cudaEventRecord(start, s), "timing");
  for (int i = 0; i < iterations; ++i) {
    m.iterationsDone = m.iterationsDone % m.params.iterations + 1;
    m.gpu->iterate(0, m.slab, m.iterationsDone, false);
  }
  TOMOWB_CUDA_CHECK(cudaEventRecord(end, s), "timing");
  TOMOWB_CUDA_CHECK(cudaEventSynchronize(end), "iterations");
  return elapsedSeconds(start, end) / std::max(iterations, 1);
}

void IterativeBenchmark::download(Volume& volume) const {
  Impl& m = *impl_;
  TOMOWB_CUDA_CHECK(cudaSetDevice(m.device), "selecting the GPU");
  const std::size_t offset = std::size_t(m.slab.z0 * m.run.problem.slice2d());
  copyNow(volume.data() + offset, m.gpu->x(0),
          std::size_t(m.slab.slices * m.run.problem.slice2d()) * 4, cudaMemcpyDeviceToHost,
          m.gpu->computeStream(), "downloading the volume");
}

std::string IterativeBenchmark::summary() const {
  const Impl& m = *impl_;
  return m.gpu->projector().forwardLabel() + " + " + m.gpu->projector().backLabel() + ", " +
         pathText(m.run.problem) + ", " + m.run.planText + ", " + deviceName(m.device);
}

}  // namespace tomowb::cuda
