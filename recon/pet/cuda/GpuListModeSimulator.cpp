// GpuListModeSimulator: the host side of the GPU list-mode simulator: checks (SimulationSetup),
// device tables, launches of ListModeSimulatorCuda.cu in batches, randoms per launch, the copies
// to the host and the report.
#include "recon/pet/GpuListModeSimulator.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <numbers>
#include <string>
#include <vector>

#include "recon/core/Error.h"
#include "recon/core/HostMemory.h"
#include "recon/device/CudaResources.h"
#include "recon/device/GpuDevices.h"
#include "recon/pet/SimulationSetup.h"
#include "recon/pet/cuda/ListModeSimulatorKernels.cuh"

namespace tomowb::pet {

namespace {

using ::tomowb::cuda::DeviceMemory;
namespace cuda = ::tomowb::cuda;
using Clock = std::chrono::steady_clock;

// Subsequences of the curand streams: launch b's trues threads start at b * 2^32, its randoms
// at 2^63 + b * 2^32, so no two threads or events of a run share a stream.
constexpr std::uint64_t kRandomsSubsequenceBase = std::uint64_t{1} << 63;

void checkOptions(const GpuListModeOptions& o) {
  if (o.decaysPerLaunch < 1024 || o.decaysPerLaunch > (std::int64_t{1} << 31))
    throw ParameterError("decaysPerLaunch",
                         "must be in 1024..2^31, got " + std::to_string(o.decaysPerLaunch));
  if (o.threadsPerBlock < 32 || o.threadsPerBlock > 1024 || o.threadsPerBlock % 32 != 0)
    throw ParameterError("threadsPerBlock", "must be a multiple of 32 in 32..1024, got " +
                                                std::to_string(o.threadsPerBlock));
  if (o.blocksPerSm < 1 || o.blocksPerSm > 64)
    throw ParameterError("blocksPerSm", "must be in 1..64, got " + std::to_string(o.blocksPerSm));
}

template <typename T>
DeviceMemory upload(const std::vector<T>& host, cudaStream_t stream, const char* what) {
  DeviceMemory device(host.size() * sizeof(T), what);
  cuda::copyNow(device.as<void>(), host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice,
                stream, what);
  return device;
}

std::vector<gpu::DeviceEmissionEntry> emissionEntries(const EmissionTable& t) {
  std::vector<gpu::DeviceEmissionEntry> entries(t.size());
  for (std::size_t j = 0; j < t.size(); ++j) {
    const std::int64_t voxel = t.voxels[j];
    const std::int64_t index[3] = {voxel % t.nx, (voxel / t.nx) % t.ny, voxel / (t.nx * t.ny)};
    for (int k = 0; k < 3; ++k)
      entries[j].cornerMm[k] =
          static_cast<float>(t.originMm[k] + t.voxelSizeMm[k] * (double(index[k]) - 0.5));
    entries[j].threshold = static_cast<float>(t.threshold[j]);
    entries[j].alias = t.alias[j];
  }
  return entries;
}

// How much of a launch's events to keep: all, or (requested prompts) the share of the last
// launch that completes the count, trues and randoms in proportion.
struct Kept {
  std::int64_t trues = 0, randoms = 0, delayed = 0, decays = 0;
};

Kept keptOf(std::int64_t trues, const RandomsCount& r, std::int64_t decays, std::int64_t need) {
  const std::int64_t prompts = trues + r.randoms;
  if (need <= 0 || prompts < need) return {trues, r.randoms, r.delayed, decays};
  const double share = double(need) / double(prompts);
  Kept k;
  k.trues = std::min<std::int64_t>(trues, std::llround(double(trues) * share));
  k.randoms = need - k.trues;
  if (k.randoms > r.randoms) {  // rounding: keep every random, the rest trues (need <= prompts)
    k.randoms = r.randoms;
    k.trues = need - r.randoms;
  }
  k.delayed = std::min<std::int64_t>(r.delayed, std::llround(double(r.delayed) * share));
  k.decays = std::llround(double(decays) * share);
  return k;
}

// Checks that GPU `device` exists and makes it the calling thread's current device.
int selectDevice(int device) {
  const std::vector<cuda::GpuDevice> devices = cuda::listGpuDevices();
  if (device < 0 || device >= int(devices.size()))
    throw ParameterError("device", "GPU " + std::to_string(device) + " does not exist (" +
                                       std::to_string(devices.size()) + " found)");
  TOMOWB_CUDA_CHECK(cudaSetDevice(device), "selecting the GPU");
  return device;
}

class GpuRun {
 public:
  GpuRun(const SimulationSetup& setup, const ListModeSimulationParams& params,
         const GpuListModeOptions& options, GpuListModeTimings& timings)
      : setup_(setup),
        params_(params),
        options_(options),
        timings_(timings),
        device_(selectDevice(options.device)) {
    cudaDeviceProp properties{};
    TOMOWB_CUDA_CHECK(cudaGetDeviceProperties(&properties, device_), "GPU properties");
    timings_.device = properties.name;
    blocks_ = properties.multiProcessorCount * options.blocksPerSm;
    emission_ = upload(emissionEntries(setup.emission), stream_, "list-mode emission table");
    if (setup.attenuation.mu) {
      const auto& a = setup.attenuation;
      const std::vector<float> mu(a.mu, a.mu + a.nx * a.ny * a.nz);
      mu_ = upload(mu, stream_, "list-mode attenuation map");
    }
    trues_ = DeviceMemory(std::size_t(options.decaysPerLaunch) * 12, "list-mode trues buffer");
    count_ = DeviceMemory(sizeof(unsigned long long), "list-mode event counter");
  }

  int threads() const noexcept { return blocks_ * options_.threadsPerBlock; }

  // Launch `launch` over `decays` annihilations; hands the kept events to `sink` and adds the
  // counts to the report. `need`: prompts still wanted (requested mode), else 0.
  void run(std::int64_t launch, std::int64_t decays, std::int64_t need,
           const ListModeEventSink& sink, ListModeSimulationReport& report) {
    const std::int64_t trues = simulateTrues(launch, decays);
    const RandomsCount randoms = sampleRandomsCount(setup_, params_, std::uint64_t(launch), trues);
    simulateRandoms(launch, randoms);
    const Kept kept = keptOf(trues, randoms, decays, need);
    if (sink) copyOut(kept, randoms, sink);
    report.bandDecays += kept.decays;
    report.trues += kept.trues;
    report.randoms += kept.randoms;
    report.delayed += kept.delayed;
    ++timings_.launches;
  }

 private:
  std::int64_t simulateTrues(std::int64_t launch, std::int64_t decays) {
    gpu::TruesLaunch l;
    l.hits = setup_.hits;
    l.emission = emission_.as<gpu::DeviceEmissionEntry>();
    l.emissionSize = static_cast<std::uint32_t>(setup_.emission.size());
    for (int k = 0; k < 3; ++k) l.voxelMm[k] = static_cast<float>(setup_.emission.voxelSizeMm[k]);
    l.attenuation = setup_.attenuation;
    l.attenuation.mu = setup_.attenuation.mu ? mu_.as<float>() : nullptr;
    l.bandSin = static_cast<float>(setup_.bandSin);
    l.tofSigmaPs = static_cast<float>(setup_.tofSigmaPs);
    l.halfWindowPs = static_cast<float>(setup_.halfWindowPs);
    l.tofLsbPs = static_cast<float>(setup_.tofLsbPs);
    l.positioningSigmaMm = static_cast<float>(setup_.positioningSigmaMm);
    l.acollinearitySigmaRad = static_cast<float>(setup_.acollinearitySigmaRad);
    l.seed = params_.seed;
    l.subsequence = std::uint64_t(launch) << 32;
    l.decays = std::uint64_t(decays);
    l.out = trues_.as<std::uint32_t>();
    l.count = count_.as<unsigned long long>();
    l.capacity = std::uint64_t(options_.decaysPerLaunch);
    l.blocks = blocks_;
    l.threads = options_.threadsPerBlock;
    TOMOWB_CUDA_CHECK(cudaMemsetAsync(l.count, 0, sizeof(unsigned long long), stream_),
                      "list-mode event counter");
    TOMOWB_CUDA_CHECK(cudaEventRecord(start_, stream_), "list-mode timing");
    gpu::launchTrues(l, stream_);
    TOMOWB_CUDA_CHECK(cudaEventRecord(stop_, stream_), "list-mode timing");
    unsigned long long count = 0;
    cuda::copyNow(&count, l.count, sizeof count, cudaMemcpyDeviceToHost, stream_,
                  "list-mode event counter");
    timings_.kernelSeconds += cuda::elapsedSeconds(start_, stop_);
    if (count > l.capacity)
      throw Error("GPU list-mode simulation: " + std::to_string(count) +
                  " events overflowed the launch's buffer of " + std::to_string(l.capacity));
    return static_cast<std::int64_t>(count);
  }

  void simulateRandoms(std::int64_t launch, const RandomsCount& r) {
    const std::size_t n = std::size_t(r.randoms + r.delayed);
    if (n == 0) return;
    if (randoms_.bytes() < n * 12)
      randoms_ = DeviceMemory(n * 12 + (n * 12) / 4, "list-mode randoms buffer");
    gpu::RandomsLaunch l;
    l.hits = setup_.hits;
    l.halfWindowPs = static_cast<float>(setup_.halfWindowPs);
    l.tofLsbPs = static_cast<float>(setup_.tofLsbPs);
    l.seed = params_.seed;
    l.subsequence = kRandomsSubsequenceBase + (std::uint64_t(launch) << 32);
    l.randoms = std::uint64_t(r.randoms);
    l.delayed = std::uint64_t(r.delayed);
    l.out = randoms_.as<std::uint32_t>();
    TOMOWB_CUDA_CHECK(cudaEventRecord(start_, stream_), "list-mode timing");
    gpu::launchRandoms(l, stream_);
    TOMOWB_CUDA_CHECK(cudaEventRecord(stop_, stream_), "list-mode timing");
    TOMOWB_CUDA_CHECK(cudaStreamSynchronize(stream_), "list-mode randoms");
    timings_.kernelSeconds += cuda::elapsedSeconds(start_, stop_);
  }

  // Trues [0, kept.trues), randoms [0, kept.randoms), delayed [r.randoms, + kept.delayed).
  void copyOut(const Kept& kept, const RandomsCount& r, const ListModeEventSink& sink) {
    const std::size_t n = std::size_t(kept.trues + kept.randoms + kept.delayed);
    if (n == 0) return;
    const auto start = Clock::now();
    if (staging_.size() < n) staging_.resize(n);
    static_assert(sizeof(ListModeEvent) == 12);
    char* host = reinterpret_cast<char*>(staging_.data());
    const auto piece = [&](const DeviceMemory& from, std::size_t first, std::size_t count,
                           std::size_t& at) {
      cuda::copyNow(host + at * 12, from.as<char>() + first * 12, count * 12,
                    cudaMemcpyDeviceToHost, stream_, "list-mode events to the host");
      at += count;
    };
    std::size_t at = 0;
    piece(trues_, 0, std::size_t(kept.trues), at);
    piece(randoms_, 0, std::size_t(kept.randoms), at);
    piece(randoms_, std::size_t(r.randoms), std::size_t(kept.delayed), at);
    timings_.copySeconds += std::chrono::duration<double>(Clock::now() - start).count();
    sink(std::span<const ListModeEvent>(staging_.data(), n));
  }

  const SimulationSetup& setup_;
  const ListModeSimulationParams& params_;
  const GpuListModeOptions& options_;
  GpuListModeTimings& timings_;
  int blocks_ = 1;
  // Selected before the stream, events and buffers are made: they belong to the current device
  // (a thread left on another GPU by an earlier run made the stream there, and the first
  // cudaMemsetAsync on it failed with "invalid argument" on a two-GPU machine).
  int device_;
  cuda::Stream stream_;
  cuda::Event start_, stop_;
  DeviceMemory emission_, mu_, trues_, randoms_, count_;
  std::vector<ListModeEvent, HostBufferAllocator<ListModeEvent>> staging_;
};

}  // namespace

bool gpuListModeSimulatorAvailable() {
  return !cuda::listGpuDevices().empty();
}

ListModeSimulationReport simulateListModeGpu(
    const ScannerModel& scanner, const Volume& activityBqPerMl, const Volume* attenuationPerMm,
    const ListModeSimulationParams& params, const GpuListModeOptions& options,
    const ListModeEventSink& sink, JobContext& context, GpuListModeTimings* timings) {
  const auto start = Clock::now();
  checkOptions(options);
  const SimulationSetup setup =
      prepareSimulation(scanner, activityBqPerMl, attenuationPerMm, params);
  GpuListModeTimings ownTimings;
  GpuListModeTimings& t = timings ? *timings : ownTimings;
  t = {};
  GpuRun run(setup, params, options, t);
  t.setupSeconds = std::chrono::duration<double>(Clock::now() - start).count();

  ListModeSimulationReport report;
  report.bandFraction = setup.bandSin;
  const bool requested = params.requestedPrompts > 0;
  const std::int64_t total = requested ? 0 : sampleBandDecays(setup, params.seed);
  std::int64_t simulated = 0;
  for (std::int64_t launch = 0;; ++launch) {
    context.throwIfCancelled();
    if (requested ? report.prompts() >= params.requestedPrompts : simulated >= total) break;
    if (requested && simulated >= params.maxBandDecays)
      throw ParameterError("requestedPrompts",
                           std::to_string(simulated) + " annihilations gave only " +
                               std::to_string(report.prompts()) + " of " +
                               std::to_string(params.requestedPrompts) +
                               " prompts (maxBandDecays); is the activity seen by the scanner?");
    const std::int64_t decays =
        requested ? options.decaysPerLaunch : std::min(options.decaysPerLaunch, total - simulated);
    run.run(launch, decays, requested ? params.requestedPrompts - report.prompts() : 0, sink,
            report);
    simulated += decays;
    context.reportProgress("simulate list mode (GPU)",
                           requested
                               ? double(report.prompts()) / double(params.requestedPrompts)
                               : double(simulated) / double(std::max<std::int64_t>(total, 1)));
  }
  const double perBq = setup.expectedBandDecays / setup.emission.totalActivityBq;
  report.activityBq =
      requested ? double(report.bandDecays) / perBq : setup.emission.totalActivityBq;
  report.expectedDecays =
      requested ? report.activityBq * (setup.expectedDecays / setup.emission.totalActivityBq)
                : setup.expectedDecays;
  report.threads = run.threads();
  report.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  return report;
}

SimulatedListMode simulateListModeGpu(const ScannerModel& scanner, const Volume& activityBqPerMl,
                                      const Volume* attenuationPerMm,
                                      const ListModeSimulationParams& params,
                                      const GpuListModeOptions& options, JobContext& context,
                                      GpuListModeTimings* timings) {
  SimulatedListMode out;
  const ListModeEventSink sink = [&out](std::span<const ListModeEvent> events) {
    out.events.insert(out.events.end(), events.begin(), events.end());
  };
  out.report = simulateListModeGpu(scanner, activityBqPerMl, attenuationPerMm, params, options,
                                   sink, context, timings);
  return out;
}

}  // namespace tomowb::pet
