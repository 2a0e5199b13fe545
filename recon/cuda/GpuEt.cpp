// The GPU side of the iterative algorithms (GpuEt.h). How a run goes:
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
#include "recon/cuda/GpuEt.h"

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
#include "recon/cuda/CudaCheck.h"
#include "recon/cuda/CudaResources.h"
#include "recon/cuda/EtDeviceProjector.h"
#include "recon/cuda/EtKernels.cuh"
#include "recon/cuda/GpuDevices.h"
#include "recon/cuda/GpuRunSupport.h"
#include "recon/projector/JosephProjector.h"
#include "recon/projector/SingleAxisGeometry.h"

namespace tomowb::cuda {

namespace {

using Clock = std::chrono::steady_clock;
using namespace etgpu;  // NOLINT(google-build-using-namespace): its own internals

double secondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// ---- device SIRT -------------------------------------------------------------------------------

struct Slab {
  std::int64_t z0 = 0, slices = 0;  // volume slices (single axis: all have rows); general: all
};

struct IterationTimes {
  double forward = 0, back = 0;
};

// Everything a run's device threads share.
struct SirtRun {
  const ProjectionStack* projections = nullptr;
  const iterative::IterativeParams* params = nullptr;
  Volume* volume = nullptr;
  JobContext* context = nullptr;
  EtProblem problem;
  ForwardSpec fp;
  BackSpec bp;
  std::vector<std::vector<std::int64_t>> subsets;
  std::int64_t maxSubsetViews = 0;
  std::vector<std::uint8_t> mask;  // one byte per voxel; empty: no mask
  float lower = -INFINITY, upper = INFINITY;
  double dataNorm = 0, unmappedResidual2 = 0;
  // The plan.
  std::vector<int> devices;
  std::vector<Slab> slabs;
  // The general 3-D path streamed (the volume does not fit): its z-slabs, run one after another
  // through one GPU within every subset (slabs then holds the one whole volume). Empty: resident.
  std::vector<Slab> zSlabs;
  bool hostColumnWeights = true;  // streamed: C_s kept on the host (else recomputed per slab)
  std::int64_t slabCapacity = 0;
  int bufferSets = 1;
  bool lockStep = true;
  bool storeColumnWeights = true;
  std::string planText;
  // Run state.
  std::mutex contextMutex;  // calls into the context from device threads
  std::atomic<std::int64_t> nextSlab{0}, nextMaskSlab{0};
  std::atomic<unsigned> rowMaxBits{0};
};

// Device bytes one DeviceSirt takes for a capacity of `slices` and `sets` buffer sets.
std::uint64_t sirtBytes(const SirtRun& run, std::int64_t slices, int sets) {
  const EtProblem& p = run.problem;
  const bool masked = !run.mask.empty();
  const std::uint64_t subsets = run.subsets.size();
  std::uint64_t vox = 0, sino = 0, bytes = 0;
  if (p.singleAxis()) {
    vox = std::uint64_t(slices) * std::uint64_t(p.slice2d());
    sino = std::uint64_t(slices) * std::uint64_t(p.views * p.cols);
    const std::uint64_t map = std::uint64_t(p.slice2d()) * 4,
                        sino1 = std::uint64_t(p.views * p.cols) * 4;
    bytes += sets * (vox * 4 + sino * 4 + (masked ? vox : 0));
    bytes += sino * 4;                                              // residual
    bytes += masked ? sino * 4 : sino1;                             // R
    bytes += run.storeColumnWeights ? subsets * map : map + sino1;  // C (or one map + ones)
    bytes += 2 * map + sino1;  // setup: ones slice, its partial, ones
    if (masked || DeviceProjector::needsPartial(p, run.maxSubsetViews)) bytes += vox * 4;
  } else {
    vox = std::uint64_t(p.shape.voxelCount());
    sino = std::uint64_t(p.views * p.rows * p.cols);
    bytes += vox * 4 + sino * 4 + (masked ? vox : 0);  // x, b, mask
    bytes += 2 * sino * 4;                             // residual, R
    bytes += (run.storeColumnWeights ? subsets : 1) * vox * 4;
    bytes += vox * 4;  // scratch: ones or mask for R, partial sums
  }
  bytes += DeviceProjector::bytesFor(p, run.fp, run.bp, slices);
  bytes += std::uint64_t(run.params->iterations) * 16 + 64 * std::uint64_t(p.views) * 3;
  return bytes + bytes / 32 + (8u << 20);  // array padding, tables, allocation granularity
}

// Streamed general 3-D path: C_s stay on the host for at most this many subsets (host memory:
// one volume per subset); more (SART) recompute C_s per slab, one extra backprojection of ones.
constexpr std::size_t kHostColumnWeightSubsets = 8;

// Device bytes of the streamed general 3-D path with z-slabs of `slices` slices: the sinogram-
// sized arrays stay (b, residual, R, and ones when C_s is recomputed), the slab buffers (x, C_s,
// scratch, mask) and the projector's inputs are slab-sized.
std::uint64_t streamedBytes(const SirtRun& run, std::int64_t slices) {
  const EtProblem& p = run.problem;
  const std::uint64_t vox = std::uint64_t(slices) * std::uint64_t(p.slice2d());
  const std::uint64_t sino = std::uint64_t(p.views * p.rows * p.cols);
  std::uint64_t bytes = (run.hostColumnWeights ? 3 : 4) * sino * 4;
  bytes += vox * (12 + (run.mask.empty() ? 0 : 1));
  bytes += DeviceProjector::bytesFor(p, run.fp, run.bp, slices);
  bytes += std::uint64_t(run.params->iterations) * 16 + 64 * std::uint64_t(p.views) * 3 +
           4 * std::uint64_t(run.subsets.size());
  return bytes + bytes / 32 + (8u << 20);
}

// One GPU's share of a run: buffers for slabs of up to `capacity` slices, `sets` buffer sets.
// The streamed general 3-D path (run.zSlabs) has slab buffers of `capacity` slices and the
// whole sinogram; the volume x lives on the host (run.volume) and passes through slab by slab.
class DeviceSirt {
 public:
  DeviceSirt(SirtRun& run, int device, std::int64_t capacity, int sets)
      : run_(run),
        p_(run.problem),
        device_(device),
        projector_(run.problem, run.fp, run.bp, capacity),
        capacity_(capacity) {
    const bool masked = !run.mask.empty();
    const std::size_t vox = std::size_t(capacity) * std::size_t(p_.slice2d());
    const std::size_t sino = p_.singleAxis()
                                 ? std::size_t(capacity) * std::size_t(p_.views * p_.cols)
                                 : std::size_t(p_.views * p_.rows * p_.cols);
    for (int s = 0; s < sets; ++s) {
      x_[s] = DeviceMemory(vox * 4, "the volume slab");
      b_[s] = DeviceMemory(sino * 4, "the projections of the slab");
      if (masked) mask_[s] = DeviceMemory(vox, "the mask of the slab");
    }
    r_ = DeviceMemory(sino * 4, "the residual");
    if (!p_.singleAxis() || masked)
      rowWeights_ = DeviceMemory(sino * 4, "the row weights");
    else
      rowWeights_ = DeviceMemory(std::size_t(p_.views * p_.cols) * 4, "the row weights");
    if (!p_.singleAxis() || masked || DeviceProjector::needsPartial(p_, run.maxSubsetViews))
      scratch_ = DeviceMemory(vox * 4, "scratch volume");
    norms_ = DeviceMemory(std::size_t(run.params->iterations) * 16, "residual norms");
    maxBits_ = DeviceMemory(8, "maxima");
    if (streamed() && !run.hostColumnWeights) ones_ = DeviceMemory(sino * 4, "ones");
    const bool byAxis = run.fp.kind == FpKind::Fast;
    for (const auto& views : run.subsets)
      tables_.push_back(makeViewTable(p_, views, compute_, byAxis));
    std::vector<std::int64_t> all(std::size_t(p_.views));
    for (std::size_t i = 0; i < all.size(); ++i) all[i] = std::int64_t(i);
    allViews_ = makeViewTable(p_, all, compute_, byAxis);
    events_.resize(run.subsets.size() * 3);
    for (auto& e : events_) e = std::make_unique<Event>();
  }

  // R (aligned without mask) and every C_s that is stored.
  void prepareWeights() {
    const std::size_t map = std::size_t(p_.slice2d());
    const double relaxation = run_.params->relaxation;
    if (streamed()) {
      prepareStreamedColumns(relaxation);
    } else if (p_.singleAxis()) {
      const et::SlabDims d1 = sliceDims(p_, 1);
      const std::size_t sino1 = std::size_t(p_.views * p_.cols);
      DeviceMemory partial2d(DeviceProjector::needsPartial(p_, run_.maxSubsetViews) ? map * 4 : 0,
                             "weights");
      if (run_.mask.empty()) {
        DeviceMemory ones(map * 4, "weights");
        et::launchFill(ones.as<float>(), map, 1.0f, compute_);
        et::FpEpilogue e;
        e.out = rowWeights_.as<float>();
        projector_.forward(ones.as<float>(), d1, allViews_, e, compute_);
        invert(rowWeights_.as<float>(), sino1, 1.0);
        TOMOWB_CUDA_CHECK(cudaStreamSynchronize(compute_), "computing the weights");
      }
      onesRow_ = DeviceMemory(sino1 * 4, "weights");
      et::launchFill(onesRow_.as<float>(), sino1, 1.0f, compute_);
      const std::size_t stored = run_.storeColumnWeights ? run_.subsets.size() : 1;
      for (std::size_t s = 0; s < stored; ++s) {
        columnWeights_.emplace_back(map * 4, "column weights");
        if (run_.storeColumnWeights) columnMap(s, columnWeights_.back(), partial2d, relaxation);
      }
      if (run_.storeColumnWeights) onesRow_ = DeviceMemory();
      partial2d_ = std::move(partial2d);
      if (run_.storeColumnWeights) partial2d_ = DeviceMemory();
    } else {
      const std::size_t stored = run_.storeColumnWeights ? run_.subsets.size() : 1;
      for (std::size_t s = 0; s < stored; ++s) {
        columnWeights_.emplace_back(std::size_t(p_.shape.voxelCount()) * 4, "column weights");
        if (run_.storeColumnWeights) columnVolume(s, columnWeights_.back(), relaxation);
      }
    }
    TOMOWB_CUDA_CHECK(cudaStreamSynchronize(compute_), "computing the weights");
  }

  // Single axis with a mask: the largest FP(mask) over the slab's rays (for R's threshold).
  unsigned maskRowMax(const Slab& slab) {
    const et::SlabDims d = sliceDims(p_, slab.slices);
    uploadMask(0, slab, compute_);
    et::launchMaskToFloat(mask_[0].as<unsigned char>(), voxels(slab), scratch_.as<float>(),
                          compute_);
    et::FpEpilogue e;
    e.out = rowWeights_.as<float>();
    projector_.forward(scratch_.as<float>(), d, allViews_, e, compute_);
    TOMOWB_CUDA_CHECK(cudaMemsetAsync(maxBits_.as<unsigned>(), 0, 4, compute_), "maxima");
    et::launchMaxAbs(rowWeights_.as<float>(), sinogramFloats(slab), maxBits_.as<unsigned>(),
                     compute_);
    unsigned bits = 0;
    copyNow(&bits, maxBits_.as<void>(), 4, cudaMemcpyDeviceToHost, compute_, "maxima");
    return bits;
  }

  // Starts the upload of slab's start volume, data and mask into buffer set `set` (copy stream).
  // Streamed 3-D path: the projections only (x and the mask go slab by slab in iterate).
  void upload(int set, const Slab& slab) {
    TOMOWB_CUDA_CHECK(cudaSetDevice(device_), "selecting the GPU");
    TOMOWB_CUDA_CHECK(cudaEventRecord(uploadStart_[set], copy_), "timing");
    if (streamed()) {
      const std::size_t sino = std::size_t(p_.views * p_.rows * p_.cols);
      TOMOWB_CUDA_CHECK(cudaMemcpyAsync(b_[0].as<void>(), run_.projections->data(), sino * 4,
                                        cudaMemcpyHostToDevice, copy_),
                        "uploading projections");
      TOMOWB_CUDA_CHECK(cudaEventRecord(uploaded_[set], copy_), "ordering");
      uploadBytes_ += double(sino) * 4.0;
      resident_ = -1;
      return;
    }
    const std::size_t vox2 = std::size_t(p_.slice2d());
    TOMOWB_CUDA_CHECK(
        cudaMemcpyAsync(x_[set].as<void>(), run_.volume->data() + std::size_t(slab.z0) * vox2,
                        voxels(slab) * 4, cudaMemcpyHostToDevice, copy_),
        "uploading the start volume");
    if (p_.singleAxis())
      uploadSliceRows(p_, run_.projections->data(), slab.z0, slab.slices, b_[set].as<float>(),
                      copy_);
    else
      TOMOWB_CUDA_CHECK(cudaMemcpyAsync(b_[set].as<void>(), run_.projections->data(),
                                        sinogramFloats(slab) * 4, cudaMemcpyHostToDevice, copy_),
                        "uploading projections");
    if (!run_.mask.empty()) uploadMask(set, slab, copy_);
    TOMOWB_CUDA_CHECK(cudaEventRecord(uploaded_[set], copy_), "ordering");
    uploadBytes_ +=
        double(voxels(slab)) * (run_.mask.empty() ? 4.0 : 5.0) + double(sinogramFloats(slab)) * 4.0;
  }

  // Waits (on the compute stream) for the set's upload, then the slab's row weights.
  void beginSlab(int set, const Slab& slab) {
    TOMOWB_CUDA_CHECK(cudaStreamWaitEvent(compute_, uploaded_[set], 0), "ordering");
    const et::SlabDims d = dims(slab);
    const bool masked = !run_.mask.empty();
    if (streamed()) {
      streamedRowWeights();
    } else if (!p_.singleAxis() || masked) {
      if (masked)
        et::launchMaskToFloat(mask_[set].as<unsigned char>(), voxels(slab), scratch_.as<float>(),
                              compute_);
      else
        et::launchFill(scratch_.as<float>(), voxels(slab), 1.0f, compute_);
      et::FpEpilogue e;
      e.out = rowWeights_.as<float>();
      projector_.forward(scratch_.as<float>(), d, allViews_, e, compute_);
      if (p_.singleAxis()) {
        const unsigned bits = run_.rowMaxBits.load();
        TOMOWB_CUDA_CHECK(cudaMemcpyAsync(maxBits_.as<unsigned>() + 1, &bits, 4,
                                          cudaMemcpyHostToDevice, compute_),
                          "maxima");
        TOMOWB_CUDA_CHECK(cudaStreamSynchronize(compute_), "maxima");
        et::launchInvertSums(rowWeights_.as<float>(), sinogramFloats(slab),
                             maxBits_.as<unsigned>() + 1, 1.0, compute_);
      } else {
        invert(rowWeights_.as<float>(), sinogramFloats(slab), 1.0);
      }
    }
    TOMOWB_CUDA_CHECK(
        cudaMemsetAsync(norms_.as<void>(), 0, std::size_t(run_.params->iterations) * 16, compute_),
        "residual norms");
    maximaReady_ = false;
    TOMOWB_CUDA_CHECK(cudaGetLastError(), "row weights");
  }

  // One iteration (every subset) on the slab in set `set`; with `synchronise`, waits for it and
  // returns the kernels' times.
  IterationTimes iterate(int set, const Slab& slab, int iteration, bool synchronise) {
    const et::SlabDims d = dims(slab);
    const bool masked = !run_.mask.empty();
    double* norms = norms_.as<double>() + 2 * std::size_t(iteration - 1);
    for (std::size_t s = 0; s < run_.subsets.size(); ++s) {
      if (streamed()) {
        run_.context->throwIfCancelled();
        streamedSubset(s, norms);
        continue;
      }
      run_.context->throwIfCancelled();
      const float* columnWeights = columnWeightsFor(s, slab);
      TOMOWB_CUDA_CHECK(cudaEventRecord(*events_[3 * s], compute_), "timing");
      et::FpEpilogue fe;
      fe.out = r_.as<float>();
      fe.data = b_[set].as<float>();
      fe.rowWeights = rowWeights_.as<float>();
      fe.rowWeightsPerRow = !p_.singleAxis() || masked;
      fe.norms = norms;
      projector_.forward(x_[set].as<float>(), d, tables_[s], fe, compute_, maximaReady_);
      TOMOWB_CUDA_CHECK(cudaEventRecord(*events_[3 * s + 1], compute_), "timing");
      et::BpEpilogue be;
      be.volume = x_[set].as<float>();
      be.update = true;
      be.columnWeights = columnWeights;
      be.columnWeightsPerSlice = !p_.singleAxis();
      be.mask = masked ? mask_[set].as<unsigned char>() : nullptr;
      be.lower = run_.lower;
      be.upper = run_.upper;
      // The fast backprojector leaves max |x| per slice for the next half2 packing.
      unsigned* maxima =
          run_.bp.kind == BpKind::Fast && run_.bp.maxima ? projector_.forwardMaxima() : nullptr;
      if (maxima) {
        TOMOWB_CUDA_CHECK(cudaMemsetAsync(maxima, 0, std::size_t(d.slices) * 4, compute_),
                          "slice maxima");
        be.sliceMaxBits = maxima;
      }
      projector_.backproject(r_.as<float>(), d, tables_[s], be, scratch_.as<float>(), compute_);
      maximaReady_ = maxima != nullptr;
      TOMOWB_CUDA_CHECK(cudaEventRecord(*events_[3 * s + 2], compute_), "timing");
    }
    IterationTimes t;
    if (!synchronise) return t;
    TOMOWB_CUDA_CHECK(cudaStreamSynchronize(compute_), "the iteration");
    for (std::size_t s = 0; s < run_.subsets.size(); ++s) {
      t.forward += elapsedSeconds(*events_[3 * s], *events_[3 * s + 1]);
      t.back += elapsedSeconds(*events_[3 * s + 1], *events_[3 * s + 2]);
    }
    return t;
  }

  // The residual sums of an iteration (after it was synchronised).
  std::pair<double, double> norms(int iteration) {
    double n[2] = {0, 0};
    copyNow(n, norms_.as<double>() + 2 * std::size_t(iteration - 1), 16, cudaMemcpyDeviceToHost,
            compute_, "residual norms");
    return {n[0], n[1]};
  }

  // The slab's iterate into the host volume. `overlap`: on the copy stream after the compute
  // stream's work so far (returns at once); else on the compute stream, waiting for it.
  void download(int set, const Slab& slab, bool overlap) {
    if (streamed()) return;  // every subset's update already reached the host volume
    const std::size_t vox2 = std::size_t(p_.slice2d());
    float* dst = run_.volume->data() + std::size_t(slab.z0) * vox2;
    if (overlap) {
      TOMOWB_CUDA_CHECK(cudaEventRecord(computed_[set], compute_), "ordering");
      TOMOWB_CUDA_CHECK(cudaStreamWaitEvent(copy_, computed_[set], 0), "ordering");
      TOMOWB_CUDA_CHECK(
          cudaMemcpyAsync(dst, x_[set].as<void>(), voxels(slab) * 4, cudaMemcpyDeviceToHost, copy_),
          "downloading the volume");
    } else {
      copyNow(dst, x_[set].as<void>(), voxels(slab) * 4, cudaMemcpyDeviceToHost, compute_,
              "downloading the volume");
    }
    downloadBytes_ += double(voxels(slab)) * 4.0;
  }

  void finish() {
    TOMOWB_CUDA_CHECK(cudaStreamSynchronize(copy_), "transfers");
    TOMOWB_CUDA_CHECK(cudaStreamSynchronize(compute_), "the GPU work");
  }

  double uploadSeconds(int set) const { return elapsedSeconds(uploadStart_[set], uploaded_[set]); }
  double uploadBytes() const { return uploadBytes_; }
  double downloadBytes() const { return downloadBytes_; }
  int device() const { return device_; }
  DeviceProjector& projector() { return projector_; }
  cudaStream_t computeStream() const { return compute_; }
  float* x(int set) { return x_[set].as<float>(); }
  float* residual() { return r_.as<float>(); }
  float* scratch() { return scratch_.as<float>(); }
  const ViewTable& allViews() const { return allViews_; }
  et::SlabDims dims(const Slab& slab) const {
    return p_.singleAxis() ? sliceDims(p_, slab.slices) : volumeDims(p_);
  }

 private:
  std::size_t voxels(const Slab& slab) const {
    return std::size_t(slab.slices) * std::size_t(p_.slice2d());
  }
  std::size_t sinogramFloats(const Slab& slab) const {
    return p_.singleAxis() ? std::size_t(slab.slices) * std::size_t(p_.views * p_.cols)
                           : std::size_t(p_.views * p_.rows * p_.cols);
  }

  void uploadMask(int set, const Slab& slab, cudaStream_t stream) {
    TOMOWB_CUDA_CHECK(cudaMemcpyAsync(mask_[set].as<void>(),
                                      run_.mask.data() + std::size_t(slab.z0) * p_.slice2d(),
                                      voxels(slab), cudaMemcpyHostToDevice, stream),
                      "uploading the mask");
  }

  // data = scale / data where data > 1e-6 max (the maximum of this buffer).
  void invert(float* data, std::size_t count, double scale) {
    TOMOWB_CUDA_CHECK(cudaMemsetAsync(maxBits_.as<unsigned>(), 0, 4, compute_), "maxima");
    et::launchMaxAbs(data, count, maxBits_.as<unsigned>(), compute_);
    et::launchInvertSums(data, count, maxBits_.as<unsigned>(), scale, compute_);
  }

  // C_s of the aligned case: lambda / BP_s(1) on one slice.
  void columnMap(std::size_t s, DeviceMemory& out, DeviceMemory& partial, double relaxation) {
    const std::size_t map = std::size_t(p_.slice2d());
    TOMOWB_CUDA_CHECK(cudaMemsetAsync(out.as<void>(), 0, map * 4, compute_), "column weights");
    et::BpEpilogue e;
    e.volume = out.as<float>();
    projector_.backproject(onesRow_.as<float>(), sliceDims(p_, 1), tables_[s], e,
                           partial.as<float>(), compute_);
    invert(out.as<float>(), map, relaxation);
  }

  // C_s of the general path: lambda / BP_s(1) over the volume (the residual buffer holds ones).
  void columnVolume(std::size_t s, DeviceMemory& out, double relaxation) {
    const std::size_t vox = std::size_t(p_.shape.voxelCount());
    et::launchFill(r_.as<float>(), std::size_t(p_.views * p_.rows * p_.cols), 1.0f, compute_);
    TOMOWB_CUDA_CHECK(cudaMemsetAsync(out.as<void>(), 0, vox * 4, compute_), "column weights");
    et::BpEpilogue e;
    e.volume = out.as<float>();
    projector_.backproject(r_.as<float>(), volumeDims(p_), tables_[s], e, scratch_.as<float>(),
                           compute_);
    invert(out.as<float>(), vox, relaxation);
  }

  // ---- the streamed general 3-D path ----

  bool streamed() const { return !run_.zSlabs.empty(); }

  std::size_t capacityVoxels() const { return std::size_t(capacity_) * std::size_t(p_.slice2d()); }

  et::SlabDims zSlabDims(const Slab& slab) const {
    return volumeSlabDims(p_, slab.z0, slab.slices);
  }

  // Zeroes a slab buffer past the slab's slices: the last slab may be shorter than the capacity,
  // and the 3-D texture is filled from the whole buffer (beyond the volume it must read zero).
  void zeroTail(float* buffer, const Slab& slab) {
    const std::size_t used = voxels(slab), all = capacityVoxels();
    if (used < all)
      TOMOWB_CUDA_CHECK(cudaMemsetAsync(buffer + used, 0, (all - used) * 4, compute_),
                        "clearing the slab buffer");
  }

  // Slab k's x (and mask) into the slab buffers, unless they hold it already. The host volume
  // is current: every update was downloaded before (ordered on the compute stream).
  void loadSlab(std::size_t k) {
    if (resident_ == std::int64_t(k)) return;
    const Slab& slab = run_.zSlabs[k];
    const std::size_t n = voxels(slab);
    TOMOWB_CUDA_CHECK(
        cudaMemcpyAsync(x_[0].as<void>(),
                        run_.volume->data() + std::size_t(slab.z0) * std::size_t(p_.slice2d()),
                        n * 4, cudaMemcpyHostToDevice, compute_),
        "uploading a slab of the volume");
    zeroTail(x_[0].as<float>(), slab);
    if (!run_.mask.empty()) uploadMask(0, slab, compute_);
    uploadBytes_ += double(n) * (run_.mask.empty() ? 4.0 : 5.0);
    resident_ = std::int64_t(k);
  }

  // BP_s(ones) of slab `slab` into `out` (slab-sized).
  void columnSums(std::size_t s, const Slab& slab, const float* ones, float* out) {
    TOMOWB_CUDA_CHECK(cudaMemsetAsync(out, 0, voxels(slab) * 4, compute_), "column weights");
    et::BpEpilogue e;
    e.volume = out;
    projector_.backproject(ones, zSlabDims(slab), tables_[s], e, scratch_.as<float>(), compute_);
  }

  // The threshold of every C_s is relative to the largest column sum of the whole volume: a first
  // pass over the slabs finds it (columnMax_[s]); then C_s of every slab goes to the host, or is
  // recomputed per slab in each subset (streamedColumns).
  void prepareStreamedColumns(double relaxation) {
    const std::size_t subsets = run_.subsets.size();
    columnMax_ = DeviceMemory(subsets * 4, "column weight maxima");
    TOMOWB_CUDA_CHECK(cudaMemsetAsync(columnMax_.as<void>(), 0, subsets * 4, compute_), "maxima");
    columnWeights_.emplace_back(capacityVoxels() * 4, "column weights of a slab");
    float* column = columnWeights_[0].as<float>();
    // The residual buffer is free until the first subset.
    float* ones = run_.hostColumnWeights ? r_.as<float>() : ones_.as<float>();
    et::launchFill(ones, std::size_t(p_.views * p_.rows * p_.cols), 1.0f, compute_);
    for (std::size_t s = 0; s < subsets; ++s)
      for (const Slab& slab : run_.zSlabs) {
        columnSums(s, slab, ones, column);
        et::launchMaxAbs(column, voxels(slab), columnMax_.as<unsigned>() + s, compute_);
      }
    if (run_.hostColumnWeights) {
      hostColumns_.assign(subsets, std::vector<float>(std::size_t(p_.shape.voxelCount())));
      for (std::size_t s = 0; s < subsets; ++s)
        for (const Slab& slab : run_.zSlabs) {
          columnSums(s, slab, ones, column);
          et::launchInvertSums(column, voxels(slab), columnMax_.as<unsigned>() + s, relaxation,
                               compute_);
          copyNow(hostColumns_[s].data() + std::size_t(slab.z0) * std::size_t(p_.slice2d()), column,
                  voxels(slab) * 4, cudaMemcpyDeviceToHost, compute_, "downloading column weights");
        }
    }
    TOMOWB_CUDA_CHECK(cudaGetLastError(), "column weights");
  }

  // C_s of slab k on the device.
  const float* streamedColumns(std::size_t s, std::size_t k) {
    const Slab& slab = run_.zSlabs[k];
    float* column = columnWeights_[0].as<float>();
    if (run_.hostColumnWeights) {
      TOMOWB_CUDA_CHECK(
          cudaMemcpyAsync(column,
                          hostColumns_[s].data() + std::size_t(slab.z0) * std::size_t(p_.slice2d()),
                          voxels(slab) * 4, cudaMemcpyHostToDevice, compute_),
          "uploading column weights");
      uploadBytes_ += double(voxels(slab)) * 4.0;
    } else {
      columnSums(s, slab, ones_.as<float>(), column);
      et::launchInvertSums(column, voxels(slab), columnMax_.as<unsigned>() + s,
                           run_.params->relaxation, compute_);
    }
    return column;
  }

  // R = 1 / FP(ones or mask), the forward projection summed over the slabs.
  void streamedRowWeights() {
    const std::size_t slabs = run_.zSlabs.size();
    for (std::size_t k = 0; k < slabs; ++k) {
      const Slab& slab = run_.zSlabs[k];
      if (run_.mask.empty()) {
        et::launchFill(scratch_.as<float>(), voxels(slab), 1.0f, compute_);
      } else {
        uploadMask(0, slab, compute_);
        et::launchMaskToFloat(mask_[0].as<unsigned char>(), voxels(slab), scratch_.as<float>(),
                              compute_);
      }
      zeroTail(scratch_.as<float>(), slab);
      et::FpEpilogue e;
      e.out = rowWeights_.as<float>();
      e.first = k == 0;
      e.last = k + 1 == slabs;
      projector_.forward(scratch_.as<float>(), zSlabDims(slab), allViews_, e, compute_);
    }
    invert(rowWeights_.as<float>(), std::size_t(p_.views * p_.rows * p_.cols), 1.0);
    resident_ = -1;  // the mask buffer was overwritten
  }

  // One subset of the streamed path: the forward projection as partial ray sums over the slabs
  // in order (the last slab's launch applies the residual epilogue), then per slab, in reverse
  // order (the last slab is still resident), the backprojection with the update and the download
  // of the slab's new x.
  void streamedSubset(std::size_t s, double* norms) {
    const std::size_t slabs = run_.zSlabs.size();
    TOMOWB_CUDA_CHECK(cudaEventRecord(*events_[3 * s], compute_), "timing");
    for (std::size_t k = 0; k < slabs; ++k) {
      loadSlab(k);
      et::FpEpilogue fe;
      fe.out = r_.as<float>();
      fe.first = k == 0;
      fe.last = k + 1 == slabs;
      if (fe.last) {
        fe.data = b_[0].as<float>();
        fe.rowWeights = rowWeights_.as<float>();
        fe.rowWeightsPerRow = true;
        fe.norms = norms;
      }
      projector_.forward(x_[0].as<float>(), zSlabDims(run_.zSlabs[k]), tables_[s], fe, compute_);
    }
    TOMOWB_CUDA_CHECK(cudaEventRecord(*events_[3 * s + 1], compute_), "timing");
    for (std::size_t k = slabs; k-- > 0;) {
      const Slab& slab = run_.zSlabs[k];
      loadSlab(k);
      et::BpEpilogue be;
      be.volume = x_[0].as<float>();
      be.update = true;
      be.columnWeights = streamedColumns(s, k);
      be.columnWeightsPerSlice = true;
      be.mask = run_.mask.empty() ? nullptr : mask_[0].as<unsigned char>();
      be.lower = run_.lower;
      be.upper = run_.upper;
      projector_.backproject(r_.as<float>(), zSlabDims(slab), tables_[s], be, scratch_.as<float>(),
                             compute_);
      copyNow(run_.volume->data() + std::size_t(slab.z0) * std::size_t(p_.slice2d()),
              x_[0].as<void>(), voxels(slab) * 4, cudaMemcpyDeviceToHost, compute_,
              "downloading a slab of the volume");
      downloadBytes_ += double(voxels(slab)) * 4.0;
    }
    TOMOWB_CUDA_CHECK(cudaEventRecord(*events_[3 * s + 2], compute_), "timing");
  }

  const float* columnWeightsFor(std::size_t s, const Slab& /*slab*/) {
    if (run_.storeColumnWeights) return columnWeights_[s].as<float>();
    // Recomputed per subset (they did not fit): one extra backprojection of ones.
    if (p_.singleAxis())
      columnMap(s, columnWeights_[0], partial2d_, run_.params->relaxation);
    else
      columnVolume(s, columnWeights_[0], run_.params->relaxation);
    return columnWeights_[0].as<float>();
  }

  SirtRun& run_;
  const EtProblem& p_;
  int device_;
  Stream compute_, copy_;
  DeviceProjector projector_;
  std::int64_t capacity_;
  DeviceMemory x_[2], b_[2], mask_[2];
  DeviceMemory r_, rowWeights_, scratch_, norms_, maxBits_, onesRow_, partial2d_;
  // Streamed 3-D path: ones for recomputed C_s, the largest column sum per subset, the C_s on the
  // host, and which slab x_[0] holds (-1: none).
  DeviceMemory ones_, columnMax_;
  std::vector<std::vector<float>> hostColumns_;
  std::int64_t resident_ = -1;
  std::vector<DeviceMemory> columnWeights_;
  std::vector<ViewTable> tables_;
  ViewTable allViews_;
  std::vector<std::unique_ptr<Event>> events_;
  Event uploadStart_[2], uploaded_[2], computed_[2];
  double uploadBytes_ = 0, downloadBytes_ = 0;
  bool maximaReady_ = false;  // the forward input's slice maxima match x (see iterate)
};

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
    const bool publish = run.context->wantsIntermediates() && params.publishEvery > 0 &&
                         (it % params.publishEvery == 0 || last);
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
      if (publish) {
        run.context->publishIntermediate(*run.volume, "iteration " + std::to_string(it));
        outcome.publishedLast = true;
      } else {
        outcome.publishedLast = false;
      }
      if (converged) stop = true;
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

// ---- host-to-host variant entry points ---------------------------------------------------------

// Slices per slab for a host-to-host call: the buffers of one slice times the count within 80 %
// of the free memory.
std::int64_t hostCallSlabSlices(const EtProblem& p, const ForwardSpec& fp, const BackSpec& bp,
                                int device, bool partial) {
  std::size_t freeBytes = 0, totalBytes = 0;
  TOMOWB_CUDA_CHECK(cudaSetDevice(device), "selecting the GPU");
  TOMOWB_CUDA_CHECK(cudaMemGetInfo(&freeBytes, &totalBytes), "reading free GPU memory");
  const std::uint64_t usable = std::uint64_t(double(freeBytes) * 0.8);
  std::int64_t cap = p.axis.sliceCount;
  if (forwardUsesTexture(fp)) cap = std::min(cap, kMaxLayers * et::texelSlices(fp.texel));
  if (backUsesTexture(bp)) cap = std::min(cap, kMaxLayers * et::texelSlices(bp.texel));
  const auto bytes = [&](std::int64_t n) {
    const std::uint64_t vox = std::uint64_t(n) * std::uint64_t(p.slice2d());
    const std::uint64_t sino = std::uint64_t(n) * std::uint64_t(p.views * p.cols);
    const std::uint64_t b =
        vox * (partial ? 8 : 4) + sino * 4 + DeviceProjector::bytesFor(p, fp, bp, n);
    return b + b / 32 + (8u << 20);
  };
  std::int64_t lo = 0, hi = cap;
  while (lo < hi) {
    const std::int64_t mid = (lo + hi + 1) / 2;
    if (bytes(mid) <= usable)
      lo = mid;
    else
      hi = mid - 1;
  }
  if (lo < 1)
    throw ParameterError("GPU memory", "one slice of the projector needs " + formatBytes(bytes(1)) +
                                           ", the GPU has " + formatBytes(usable) + " usable");
  return lo;
}

void forwardProjectGpu(const std::string& variant, const Tunables& tunables, const Volume& volume,
                       ProjectionStack& projections, std::span<const std::int64_t> viewList,
                       JobContext& context) {
  if (volume.empty()) throw ParameterError("volume", "the volume is empty");
  const std::vector<std::int64_t> views =
      projector::checkedViewList(projections.geometry(), viewList);
  const EtProblem p = analyseProblem(projections.geometry(), volume.shape(), volume.voxelSizeMm(),
                                     volume.originMm());
  const ForwardSpec fp = forwardSpecFor(variant, tunables);
  BackSpec none;
  none.name = "none";
  none.kind = BpKind::Matched;  // no input to allocate
  const int device = devicesToUse({})[0];
  TOMOWB_CUDA_CHECK(cudaSetDevice(device), "selecting the GPU");
  std::lock_guard guard(deviceLock(device));
  const auto started = Clock::now();
  Stream stream;
  const ViewTable table = makeViewTable(p, views, stream, fp.kind == FpKind::Fast);
  const std::size_t cols = std::size_t(p.cols), rows = std::size_t(p.rows);
  float* out = projections.data();
  if (p.singleAxis()) {
    const std::int64_t slab = hostCallSlabSlices(p, fp, none, device, false);
    DeviceProjector projector(p, fp, none, slab);
    DeviceMemory x(std::size_t(slab * p.slice2d()) * 4, "the volume slab");
    DeviceMemory sino(std::size_t(slab * p.views * p.cols) * 4, "the projections of the slab");
    std::vector<float> staging;
    for (std::int64_t z0 = p.axis.firstSlice; z0 < p.axis.firstSlice + p.axis.sliceCount;
         z0 += slab) {
      context.throwIfCancelled();
      const std::int64_t n = std::min(slab, p.axis.firstSlice + p.axis.sliceCount - z0);
      TOMOWB_CUDA_CHECK(
          cudaMemcpyAsync(x.as<void>(), volume.data() + std::size_t(z0 * p.slice2d()),
                          std::size_t(n * p.slice2d()) * 4, cudaMemcpyHostToDevice, stream),
          "uploading the volume");
      et::FpEpilogue e;
      e.out = sino.as<float>();
      projector.forward(x.as<float>(), sliceDims(p, n), table, e, stream);
      const std::size_t slabRow = std::size_t(n) * cols;
      if (p.axis.rowDirection > 0) {
        for (const std::int64_t v : views)
          TOMOWB_CUDA_CHECK(
              cudaMemcpyAsync(out + (std::size_t(v) * rows + std::size_t(p.axis.rowOf(z0))) * cols,
                              sino.as<float>() + std::size_t(v) * slabRow, slabRow * 4,
                              cudaMemcpyDeviceToHost, stream),
              "downloading projections");
        TOMOWB_CUDA_CHECK(cudaStreamSynchronize(stream), "forward projection");
      } else {
        staging.resize(std::size_t(p.views) * slabRow);
        copyNow(staging.data(), sino.as<void>(), staging.size() * 4, cudaMemcpyDeviceToHost, stream,
                "downloading projections");
        for (const std::int64_t v : views)
          for (std::int64_t s = 0; s < n; ++s)
            std::memcpy(out + (std::size_t(v) * rows + std::size_t(p.axis.rowOf(z0 + s))) * cols,
                        staging.data() + std::size_t(v) * slabRow + std::size_t(s) * cols,
                        cols * 4);
      }
    }
    // Rows on no slice see nothing.
    const std::int64_t r0 = std::min(p.axis.rowOf(p.axis.firstSlice),
                                     p.axis.rowOf(p.axis.firstSlice + p.axis.sliceCount - 1));
    for (const std::int64_t v : views)
      for (std::int64_t r = 0; r < p.rows; ++r)
        if (r < r0 || r >= r0 + p.axis.sliceCount)
          std::fill_n(out + (std::size_t(v) * rows + std::size_t(r)) * cols, cols, 0.0f);
  } else {
    DeviceProjector projector(p, fp, none, p.shape.nz);
    DeviceMemory x(std::size_t(volume.voxelCount()) * 4, "the volume");
    DeviceMemory sino(std::size_t(p.views) * rows * cols * 4, "the projections");
    TOMOWB_CUDA_CHECK(
        cudaMemcpyAsync(x.as<void>(), volume.data(), std::size_t(volume.voxelCount()) * 4,
                        cudaMemcpyHostToDevice, stream),
        "uploading the volume");
    et::FpEpilogue e;
    e.out = sino.as<float>();
    projector.forward(x.as<float>(), volumeDims(p), table, e, stream);
    for (const std::int64_t v : views)
      TOMOWB_CUDA_CHECK(cudaMemcpyAsync(out + std::size_t(v) * rows * cols,
                                        sino.as<float>() + std::size_t(v) * rows * cols,
                                        rows * cols * 4, cudaMemcpyDeviceToHost, stream),
                        "downloading projections");
    TOMOWB_CUDA_CHECK(cudaStreamSynchronize(stream), "forward projection");
  }
  TelemetryEvent e{"et.forward", variant, secondsSince(started),
                   double(volume.voxelCount()) * double(views.size()), 0.0};
  e.device = device;
  context.publishTelemetry(e);
}

void backprojectGpu(const std::string& variant, const Tunables& tunables,
                    const ProjectionStack& projections, Volume& volume,
                    std::span<const std::int64_t> viewList, JobContext& context) {
  if (volume.empty()) throw ParameterError("volume", "the volume is empty");
  const std::vector<std::int64_t> views =
      projector::checkedViewList(projections.geometry(), viewList);
  const EtProblem p = analyseProblem(projections.geometry(), volume.shape(), volume.voxelSizeMm(),
                                     volume.originMm());
  const BackSpec bp = backSpecFor(variant, tunables);
  ForwardSpec none;
  none.name = "none";
  none.kind = FpKind::Matched;
  const int device = devicesToUse({})[0];
  TOMOWB_CUDA_CHECK(cudaSetDevice(device), "selecting the GPU");
  std::lock_guard guard(deviceLock(device));
  const auto started = Clock::now();
  Stream stream;
  const ViewTable table = makeViewTable(p, views, stream);
  const bool partial = DeviceProjector::needsPartial(p, std::int64_t(views.size()));
  if (p.singleAxis()) {
    const std::int64_t slab = hostCallSlabSlices(p, none, bp, device, partial);
    DeviceProjector projector(p, none, bp, slab);
    DeviceMemory x(std::size_t(slab * p.slice2d()) * 4, "the volume slab");
    DeviceMemory sums(partial ? std::size_t(slab * p.slice2d()) * 4 : 0, "partial sums");
    DeviceMemory sino(std::size_t(slab * p.views * p.cols) * 4, "the projections of the slab");
    for (std::int64_t z0 = p.axis.firstSlice; z0 < p.axis.firstSlice + p.axis.sliceCount;
         z0 += slab) {
      context.throwIfCancelled();
      const std::int64_t n = std::min(slab, p.axis.firstSlice + p.axis.sliceCount - z0);
      float* host = volume.data() + std::size_t(z0 * p.slice2d());
      TOMOWB_CUDA_CHECK(cudaMemcpyAsync(x.as<void>(), host, std::size_t(n * p.slice2d()) * 4,
                                        cudaMemcpyHostToDevice, stream),
                        "uploading the volume");
      uploadSliceRows(p, projections.data(), z0, n, sino.as<float>(), stream);
      et::BpEpilogue e;
      e.volume = x.as<float>();
      projector.backproject(sino.as<float>(), sliceDims(p, n), table, e, sums.as<float>(), stream);
      copyNow(host, x.as<void>(), std::size_t(n * p.slice2d()) * 4, cudaMemcpyDeviceToHost, stream,
              "downloading the volume");
    }
  } else {
    DeviceProjector projector(p, none, bp, p.shape.nz);
    const std::size_t vox = std::size_t(volume.voxelCount());
    DeviceMemory x(vox * 4, "the volume");
    DeviceMemory sums(partial ? vox * 4 : 0, "partial sums");
    DeviceMemory sino(std::size_t(projections.pixelCount()) * 4, "the projections");
    TOMOWB_CUDA_CHECK(
        cudaMemcpyAsync(x.as<void>(), volume.data(), vox * 4, cudaMemcpyHostToDevice, stream),
        "uploading the volume");
    TOMOWB_CUDA_CHECK(
        cudaMemcpyAsync(sino.as<void>(), projections.data(),
                        std::size_t(projections.pixelCount()) * 4, cudaMemcpyHostToDevice, stream),
        "uploading projections");
    et::BpEpilogue e;
    e.volume = x.as<float>();
    projector.backproject(sino.as<float>(), volumeDims(p), table, e, sums.as<float>(), stream);
    copyNow(volume.data(), x.as<void>(), vox * 4, cudaMemcpyDeviceToHost, stream,
            "downloading the volume");
  }
  TelemetryEvent e{"et.backproject", variant, secondsSince(started),
                   double(volume.voxelCount()) * double(views.size()), 0.0};
  e.device = device;
  context.publishTelemetry(e);
}

}  // namespace

// ---- public API --------------------------------------------------------------------------------

void forwardProjectOnGpu(const std::string& variant,
                         const std::map<std::string, std::string>& tunables, const Volume& volume,
                         ProjectionStack& projections, std::span<const std::int64_t> views,
                         JobContext& context) {
  forwardProjectGpu(variant, tunables, volume, projections, views, context);
}

void backprojectOnGpu(const std::string& variant,
                      const std::map<std::string, std::string>& tunables,
                      const ProjectionStack& projections, Volume& volume,
                      std::span<const std::int64_t> views, JobContext& context) {
  backprojectGpu(variant, tunables, projections, volume, views, context);
}

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
