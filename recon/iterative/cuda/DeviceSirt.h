// The fused GPU SIRT on one device (FusedSirt.cpp's run, the fast path of SIRT, OS-SIRT and SART;
// docs/architecture.md, seam 2): what a run's device threads share (SirtRun), the device bytes a
// slab needs, and DeviceSirt, which holds one slab's arrays on one GPU and runs the weights, the
// forward projection with the residual fused into its epilogue and the backprojection with the
// update fused into its own. Moved out of GpuEt.cpp unchanged (issue #18, point 5; the planner and
// the device threads are FusedSirt.cpp); included by FusedSirt.cpp only.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cassert>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "recon/core/Error.h"
#include "recon/core/MemoryBudget.h"
#include "recon/device/CudaCheck.h"
#include "recon/device/CudaResources.h"
#include "recon/device/GpuRunSupport.h"
#include "recon/iterative/IterativeReconstruction.h"
#include "recon/projector/JosephProjector.h"
#include "recon/projector/SingleAxisGeometry.h"
#include "recon/projector/cuda/EtDeviceProjector.h"
#include "recon/projector/cuda/EtKernels.cuh"
#include "recon/projector/cuda/GpuEt.h"

namespace tomowb::cuda::etgpu {

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
  // Live previews of lock-step runs: whether the context wants one at the next publishing
  // iteration, asked between iterations so that every device thread downloads its slab for the
  // same iterations (a download per iteration would slow a fast run for previews the window
  // drops).
  std::atomic<bool> previewWanted{true};
  std::atomic<std::int64_t> nextSlab{0}, nextMaskSlab{0};
  std::atomic<unsigned> rowMaxBits{0};
};

// Device bytes one DeviceSirt takes for a capacity of `slices` and `sets` buffer sets.
inline std::uint64_t sirtBytes(const SirtRun& run, std::int64_t slices, int sets) {
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
inline std::uint64_t streamedBytes(const SirtRun& run, std::int64_t slices) {
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

}  // namespace tomowb::cuda::etgpu
