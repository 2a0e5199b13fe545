// GPU deposition of list-mode events into DIRECT histo-images (GpuDirect.h).
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "recon/core/Error.h"
#include "recon/core/MemoryBudget.h"
#include "recon/device/CudaCheck.h"
#include "recon/device/CudaResources.h"
#include "recon/device/GpuRunSupport.h"
#include "recon/pet/GpuDirect.h"
#include "recon/pet/cuda/DirectGpuKernels.cuh"

namespace tomowb::pet {

using cuda::DeviceMemory;

struct GpuEventDeposition::Impl {
  int device = 0;
  cuda::Stream stream;
  EventGeometryTableSet host;
  EventGeometryTables tables;  // pointing into `tableMemory`
  DeviceMemory tableMemory, events, counts, histo, counters;
  std::size_t eventCount = 0, cells = 0;
  double uploadSeconds = 0;
  std::string describe;
  double tofSigmaMm = 0;

  Impl(const ScannerModel& scanner, const VolumeGrid& grid, const ViewBinning& views)
      : host(scanner, grid, views), tofSigmaMm(scanner.tofSigmaMm()) {}
};

namespace {

// One device block holding the float tables of EventGeometry.h; `t` gets its pointers.
DeviceMemory uploadTables(const EventGeometryTableSet& set, EventGeometryTables& t,
                          cudaStream_t stream) {
  const std::vector<float>* parts[] = {&set.crystalX(),   &set.crystalY(),   &set.ringZ(),
                                       &set.azimuthCos(), &set.azimuthSin(), &set.tiltEdgeSin()};
  std::size_t total = 0;
  for (const auto* p : parts) total += p->size();
  std::vector<float> packed;
  packed.reserve(total);
  for (const auto* p : parts) packed.insert(packed.end(), p->begin(), p->end());
  DeviceMemory memory(total * sizeof(float), "deposition tables");
  cuda::copyNow(memory.as<void>(), packed.data(), total * sizeof(float), cudaMemcpyHostToDevice,
                stream, "deposition tables");
  t = set.tables();
  const float* base = memory.as<float>();
  const float** pointers[] = {&t.crystalX,   &t.crystalY,   &t.ringZ,
                              &t.azimuthCos, &t.azimuthSin, &t.tiltEdgeSin};
  std::size_t at = 0;
  for (int i = 0; i < 6; ++i) {
    *pointers[i] = base + at;
    at += parts[i]->size();
  }
  return memory;
}

}  // namespace

GpuEventDeposition::GpuEventDeposition(const ScannerModel& scanner, const VolumeGrid& grid,
                                       const ViewBinning& views,
                                       std::span<const ListModeEvent> events,
                                       const GpuRunOptions& gpu)
    : impl_(std::make_unique<Impl>(scanner, grid, views)) {
  Impl& m = *impl_;
  m.device = cuda::devicesToUse(gpu.devices).front();
  TOMOWB_CUDA_CHECK(cudaSetDevice(m.device), "selecting the GPU");
  m.cells = std::size_t(grid.shape.voxelCount()) * std::size_t(views.count());
  const std::uint64_t needed = std::uint64_t(events.size()) * sizeof(ListModeEvent) + m.cells * 8;
  std::size_t freeBytes = 0, total = 0;
  cuda::freeDeviceMemory(freeBytes, total);
  const std::uint64_t usable =
      gpu.memoryLimitBytes ? std::min<std::uint64_t>(freeBytes, gpu.memoryLimitBytes) : freeBytes;
  if (needed + (std::uint64_t{256} << 20) > usable)
    throw OutOfMemoryError("depositing " + std::to_string(events.size()) + " events needs " +
                           formatBytes(needed) + " on GPU " + std::to_string(m.device) + ", " +
                           formatBytes(usable) + " usable: deposit in chunks (depositEventsGpu)");
  m.tableMemory = uploadTables(m.host, m.tables, m.stream);
  cuda::Event start, stop;
  TOMOWB_CUDA_CHECK(cudaEventRecord(start, m.stream), "deposition upload");
  m.events = DeviceMemory(std::max<std::size_t>(events.size(), 1) * sizeof(ListModeEvent),
                          "list-mode events");
  cuda::copyNow(m.events.as<void>(), events.data(), events.size() * sizeof(ListModeEvent),
                cudaMemcpyHostToDevice, m.stream, "list-mode events");
  TOMOWB_CUDA_CHECK(cudaEventRecord(stop, m.stream), "deposition upload");
  TOMOWB_CUDA_CHECK(cudaEventSynchronize(stop), "deposition upload");
  m.uploadSeconds = cuda::elapsedSeconds(start, stop);
  m.eventCount = events.size();
  m.counts = DeviceMemory(m.cells * sizeof(unsigned int), "histo-image counts");
  m.histo = DeviceMemory(m.cells * sizeof(float), "histo-images");
  m.counters =
      DeviceMemory(gpu::kDepositionCounters * sizeof(unsigned long long), "deposition counters");
  cudaDeviceProp prop{};
  TOMOWB_CUDA_CHECK(cudaGetDeviceProperties(&prop, m.device), "GPU properties");
  m.describe = "GPU " + std::to_string(m.device) + " (" + prop.name + ")";
}

GpuEventDeposition::~GpuEventDeposition() = default;

double GpuEventDeposition::uploadSeconds() const noexcept {
  return impl_->uploadSeconds;
}

namespace {

// The TOF kernel's samples along the LOR (TofKernel mode): half-width, spacing, sigma, sum.
struct TofSamples {
  int half = 0;
  float step = 0, sigma = 1, norm = 1;
};

TofSamples tofSamples(const EventGeometryTables& t, double tofSigmaMm, double sigmas) {
  TofSamples k;
  k.step = 0.5f / std::max({t.inverseVoxelMm[0], t.inverseVoxelMm[1], t.inverseVoxelMm[2]});
  k.sigma = static_cast<float>(tofSigmaMm);
  k.half = static_cast<int>(std::ceil(sigmas * k.sigma / k.step));
  double sum = 0;
  for (int i = -k.half; i <= k.half; ++i) {
    const double s = double(i) * double(k.step);
    sum += std::exp(-0.5 * s * s / (double(k.sigma) * double(k.sigma)));
  }
  k.norm = static_cast<float>(sum);
  return k;
}

}  // namespace

void GpuEventDeposition::launch(const DepositionParams& params) {
  Impl& m = *impl_;
  const bool delayed = params.stream == EventStream::Delayed;
  if (params.mode == DepositionMode::Nearest) {
    gpu::launchDepositNearest(m.events.as<ListModeEvent>(), m.eventCount, m.tables, delayed,
                              m.counts.as<unsigned int>(), m.counters.as<unsigned long long>(),
                              m.stream);
    return;
  }
  const TofSamples k = params.mode == DepositionMode::TofKernel
                           ? tofSamples(m.host.tables(), m.tofSigmaMm, params.tofKernelSigmas)
                           : TofSamples{};
  gpu::launchDepositWeighted(m.events.as<ListModeEvent>(), m.eventCount, m.tables, delayed, k.half,
                             k.step, k.sigma, k.norm, m.histo.as<float>(),
                             m.counters.as<unsigned long long>(), m.stream);
}

void GpuEventDeposition::addInto(const DepositionParams& params, HistoImages& histo) {
  Impl& m = *impl_;
  if (params.mode == DepositionMode::Nearest) {
    TOMOWB_CUDA_CHECK(cudaMemsetAsync(m.histo.as<void>(), 0, m.cells * sizeof(float), m.stream),
                      "deposition");
    gpu::launchAddCounts(m.counts.as<unsigned int>(), m.cells, m.histo.as<float>(), m.stream);
  }
  // The device sum goes to a host buffer, then adds into what `histo` holds.
  std::vector<float> sums(m.cells);
  cuda::copyNow(sums.data(), m.histo.as<void>(), m.cells * sizeof(float), cudaMemcpyDeviceToHost,
                m.stream, "histo-images");
  float* out = histo.data();
  for (std::size_t i = 0; i < m.cells; ++i) out[i] += sums[i];
}

DepositionReport GpuEventDeposition::deposit(const DepositionParams& params, HistoImages* histo) {
  Impl& m = *impl_;
  TOMOWB_CUDA_CHECK(cudaSetDevice(m.device), "selecting the GPU");
  TOMOWB_CUDA_CHECK(
      cudaMemsetAsync(m.counters.as<void>(), 0,
                      gpu::kDepositionCounters * sizeof(unsigned long long), m.stream),
      "deposition");
  const bool nearest = params.mode == DepositionMode::Nearest;
  TOMOWB_CUDA_CHECK(
      cudaMemsetAsync(nearest ? m.counts.as<void>() : m.histo.as<void>(), 0, m.cells * 4, m.stream),
      "deposition");
  cuda::Event start, stop;
  TOMOWB_CUDA_CHECK(cudaEventRecord(start, m.stream), "deposition");
  launch(params);
  TOMOWB_CUDA_CHECK(cudaGetLastError(), "deposition kernel");
  TOMOWB_CUDA_CHECK(cudaEventRecord(stop, m.stream), "deposition");
  TOMOWB_CUDA_CHECK(cudaEventSynchronize(stop), "deposition");
  DepositionReport report;
  report.seconds = cuda::elapsedSeconds(start, stop);
  report.device = m.describe;
  unsigned long long c[gpu::kDepositionCounters] = {};
  cuda::copyNow(c, m.counters.as<void>(), sizeof c, cudaMemcpyDeviceToHost, m.stream,
                "deposition counters");
  report.events = c[0];
  report.deposited = c[1];
  report.outsideTilt = c[2];
  report.outsideGrid = c[3];
  report.degenerate = c[4];
  if (histo) addInto(params, *histo);
  return report;
}

DepositionReport depositEventsGpu(const ScannerModel& scanner,
                                  std::span<const ListModeEvent> events,
                                  const DepositionParams& params, HistoImages& histo,
                                  const GpuRunOptions& gpu, JobContext& context) {
  constexpr std::size_t kChunk = std::size_t{64} << 20;  // events per upload (768 MB)
  DepositionReport total;
  for (std::size_t begin = 0; begin < std::max<std::size_t>(events.size(), 1); begin += kChunk) {
    context.throwIfCancelled();
    const std::size_t n = std::min(kChunk, events.size() - std::min(begin, events.size()));
    GpuEventDeposition chunk(scanner, histo.grid(), histo.views(), events.subspan(begin, n), gpu);
    const DepositionReport r = chunk.deposit(params, &histo);
    total.events += r.events;
    total.deposited += r.deposited;
    total.outsideTilt += r.outsideTilt;
    total.outsideGrid += r.outsideGrid;
    total.degenerate += r.degenerate;
    total.seconds += r.seconds + chunk.uploadSeconds();
    total.device = r.device;
    context.reportProgress("deposit",
                           double(begin + n) / double(std::max<std::size_t>(events.size(), 1)));
    if (events.empty()) break;
  }
  return total;
}

}  // namespace tomowb::pet
