// The host-to-host entries of the GPU projector variants (GpuEt.h: forwardProjectOnGpu,
// backprojectOnGpu; what a registered et.fp. / et.bp. GPU variant runs when its pair is not
// resident): the listed views and the volume go up, the kernels of EtDeviceProjector.h run in
// slabs of slices as large as 80 % of the free memory allows, the result comes down. Moved out of
// GpuEt.cpp unchanged (issue #18, point 5).
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "recon/core/Error.h"
#include "recon/core/MemoryBudget.h"
#include "recon/device/CudaCheck.h"
#include "recon/device/CudaResources.h"
#include "recon/device/GpuRunSupport.h"
#include "recon/projector/cuda/EtDeviceProjector.h"
#include "recon/projector/cuda/EtKernels.cuh"
#include "recon/projector/cuda/GpuEt.h"

namespace tomowb::cuda {

namespace {

using Clock = std::chrono::steady_clock;
using namespace etgpu;  // NOLINT(google-build-using-namespace): its own internals

double secondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// Slices per slab for a host-to-host call: the buffers of one slice times the count within 80 %
// of the free memory.
std::int64_t hostCallSlabSlices(const EtProblem& p, const ForwardSpec& fp, const BackSpec& bp,
                                int device, bool partial) {
  std::size_t freeBytes = 0, totalBytes = 0;
  TOMOWB_CUDA_CHECK(cudaSetDevice(device), "selecting the GPU");
  cuda::freeDeviceMemory(freeBytes, totalBytes);
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

}  // namespace tomowb::cuda
