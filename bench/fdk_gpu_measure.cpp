// fdk_gpu_measure.cpp: what tomowb-bench-fdk-gpu measures with: variant names, grids, rates, the
// timed kernel and the FDK parameters; and the measured rows: kernel only, end to end, two GPUs.
#include <algorithm>
#include <cmath>
#include <vector>

#include "bench/fdk_gpu_internal.h"
#include "recon/core/Error.h"
#include "recon/core/HostMemory.h"
#include "recon/fdk/cuda/GpuFdk.h"
#include "recon/metrics/ImageMetrics.h"
#include "recon/variant/VariantRegistry.h"

namespace fdk_gpu {

namespace {

// One untimed run of the kernel over `stack`, the result in `volume`.
void runOnce(const ProjectionStack& stack, const std::string& variant, int device, Volume& volume) {
  const auto [name, tunables] = splitVariant(variant);
  const KernelVariant& registered = VariantRegistry::builtins().require(name);
  std::fill(volume.voxels().begin(), volume.voxels().end(), 0.0f);
  if (!registered.needsGpu) {
    JobContext context;
    registered.backproject(stack, volume, context);
    return;
  }
  cuda::DeviceBackprojection harness(stack, volume, name, tunables, device);
  harness.run();
  harness.download(volume);
}

double sheppLoganNrmse(const ProjectionStack& phantomProjections, const Volume& reference,
                       std::int64_t size, const std::string& variant, int device) {
  JobContext context;
  const Volume volume = fdk::reconstructFdk(phantomProjections,
                                            fdkParams(cubeGrid(size), variant, {device}), context);
  metrics::CompareOptions options;
  options.computeSsim = false;
  return metrics::compareVolumes(volume, reference, metrics::Region::whole(), options).nrmse;
}

}  // namespace

double secondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

std::string fullName(const std::string& name) {
  return name.rfind("fdk.bp.", 0) == 0 ? name : "fdk.bp." + name;
}

// "fdk.bp.soft-mirror:z-per-thread=16,K=4" -> the registered name and its tunables.
std::pair<std::string, std::map<std::string, std::string>> splitVariant(const std::string& spec) {
  const std::size_t colon = spec.find(':');
  std::map<std::string, std::string> tunables;
  if (colon == std::string::npos) return {spec, tunables};
  std::string rest = spec.substr(colon + 1);
  while (!rest.empty()) {
    const std::size_t comma = rest.find(',');
    const std::string item = rest.substr(0, comma);
    const std::size_t eq = item.find('=');
    if (eq == std::string::npos)
      throw ParameterError("--variants", "expected NAME=VALUE in '" + spec + "'");
    tunables[item.substr(0, eq)] = item.substr(eq + 1);
    rest = comma == std::string::npos ? "" : rest.substr(comma + 1);
  }
  return {spec.substr(0, colon), tunables};
}

void progress(const std::string& line) {
  std::fprintf(stderr, "[bench-fdk-gpu] %s\n", line.c_str());
  std::fflush(stderr);
}

fdk::VolumeGrid cubeGrid(std::int64_t size, double sideMm) {
  return fdk::VolumeGrid::centred({size, size, size},
                                  Eigen::Vector3d::Constant(sideMm / double(size)));
}

Volume emptyVolume(const fdk::VolumeGrid& grid) {
  return Volume(grid.shape, grid.voxelSizeMm, grid.originMm);
}

double updates(std::int64_t size, std::int64_t views) {
  return double(size) * double(size) * double(size) * double(views);
}

double gupsOf(double voxelUpdates, double seconds) {
  return seconds > 0 ? voxelUpdates / seconds / 1e9 : NAN;
}

json toJson(const RunStats& s) {
  return {{"min", s.min}, {"median", s.median}, {"max", s.max}, {"runs", s.runs}};
}

double ceilingFor(const Context& ctx, const std::string& kernel) {
  const auto c = bench::fdkKernelCeiling(kernel);
  return c ? bench::scaledToDevice(c->gSamplesPerSecond, ctx.multiprocessors) : NAN;
}

// Kernel only over `stack`: one warm-up, then `repeats` timed runs; leaves the last result in
// `volume`. CPU variants (e.g. --variants cpu) run the host backprojection on the wall clock.
RunStats timeKernel(const ProjectionStack& stack, const std::string& variant, int device,
                    int repeats, Volume& volume, std::string& kernel, double* uploadSeconds) {
  const auto [name, tunables] = splitVariant(variant);
  const KernelVariant& registered = VariantRegistry::builtins().require(name);
  std::vector<double> times;
  if (!registered.needsGpu) {
    kernel = name;
    for (int r = 0; r <= repeats; ++r) {
      std::fill(volume.voxels().begin(), volume.voxels().end(), 0.0f);
      JobContext context;
      const auto start = Clock::now();
      registered.backproject(stack, volume, context);
      if (r > 0) times.push_back(secondsSince(start));
    }
    return bench::summarize(times);
  }
  const auto uploadStart = Clock::now();
  cuda::DeviceBackprojection harness(stack, volume, name, tunables, device);
  if (uploadSeconds) *uploadSeconds = secondsSince(uploadStart);
  kernel = harness.kernel();
  harness.run();  // warm-up: first launch, caches, clocks
  for (int r = 0; r < repeats; ++r) times.push_back(harness.run());
  harness.download(volume);
  return bench::summarize(times);
}

fdk::FdkParams fdkParams(const fdk::VolumeGrid& grid, const std::string& variant,
                         std::vector<int> devices) {
  fdk::FdkParams params;
  params.volume = grid;
  auto [name, tunables] = splitVariant(variant);
  params.variant = name;
  params.gpu.tunables = std::move(tunables);
  params.gpu.devices = std::move(devices);
  return params;
}

std::vector<KernelRow> kernelRowsForSize(Context& ctx, std::int64_t size) {
  const Options& o = ctx.options;
  const Volume grid = emptyVolume(cubeGrid(size));
  const std::vector<bench::VoxelSample> samples = bench::sampleVoxels(grid.shape(), o.samples);
  auto start = Clock::now();
  const std::vector<double> randomReference = bench::referenceAtSamples(ctx.random, grid, samples);
  std::vector<double> positiveReference;
  if (!ctx.phantom.empty())
    positiveReference = bench::referenceAtSamples(ctx.phantom, grid, samples);
  progress("L=" + std::to_string(size) + ": float64 references at " +
           std::to_string(samples.size()) + " voxels in " + fixed(secondsSince(start), 2) + " s");

  // The whole FDK of the phantom in float64 on the CPU, once per size, only where asked (it
  // costs seconds at 256, minutes at 512).
  std::optional<Volume> sheppLoganReference;
  if (!ctx.phantom.empty() &&
      std::find(o.phantomSizes.begin(), o.phantomSizes.end(), size) != o.phantomSizes.end()) {
    start = Clock::now();
    JobContext context;
    sheppLoganReference =
        fdk::reconstructFdk(ctx.phantom, fdkParams(cubeGrid(size), "fdk.bp.cpu-f64", {}), context);
    progress("L=" + std::to_string(size) + ": Shepp-Logan fdk.bp.cpu-f64 reference in " +
             fixed(secondsSince(start), 1) + " s");
  }

  Volume volume = grid;  // one host volume per size, reused by every variant
  std::vector<KernelRow> rows;
  double previousSeconds = NAN;
  for (const std::string& shortName : o.variants) {
    KernelRow row;
    row.variant = fullName(shortName);
    row.size = size;
    const bool slow =
        std::find(o.slowVariants.begin(), o.slowVariants.end(), shortName) != o.slowVariants.end();
    if (slow && size > o.slowMaxSize) {
      row.skipped = true;
      row.note = "skipped (slow)";
      rows.push_back(row);
      continue;
    }
    start = Clock::now();
    try {
      row.seconds = timeKernel(ctx.random, row.variant, o.device, o.repeats, volume, row.kernel,
                               &row.uploadSeconds);
      row.relativeL2Random = bench::relativeL2AtSamples(volume, samples, randomReference);
      if (!ctx.phantom.empty()) {
        runOnce(ctx.phantom, row.variant, o.device, volume);
        row.relativeL2Positive = bench::relativeL2AtSamples(volume, samples, positiveReference);
      }
      if (sheppLoganReference)
        row.sheppLoganNrmse =
            sheppLoganNrmse(ctx.phantom, *sheppLoganReference, size, row.variant, o.device);
    } catch (const std::exception& e) {
      row.skipped = true;
      row.note = std::string("failed: ") + e.what();
    }
    if (!row.skipped) {
      if (std::isfinite(previousSeconds)) row.speedUp = previousSeconds / row.seconds.median;
      previousSeconds = row.seconds.median;
      if (row.kernel != splitVariant(row.variant).first) row.note = "ran " + row.kernel;
    }
    progress("L=" + std::to_string(size) + " " + row.variant + ": " +
             (row.skipped ? row.note
                          : fixed(row.seconds.median * 1e3, 2) + " ms kernel (median), " +
                                fixed(gupsOf(updates(size), row.seconds.median), 0) + " GUPS") +
             " (" + fixed(secondsSince(start), 1) + " s with uploads and checks)");
    rows.push_back(row);
  }
  return rows;
}

EndToEndRow endToEnd(const Context& ctx, std::int64_t size, const std::string& variant) {
  const Options& o = ctx.options;
  EndToEndRow row;
  row.variant = variant;
  row.size = size;
  row.inputPinned = isPinnedHostBuffer(ctx.phantom.data());
  double hostAllocation = 0;
  {
    // What reconstructFdk's total includes before any GPU work: allocating (pinning) and
    // zeroing the host volume, timed alone (the median of 3), each a first allocation (nothing
    // kept for reuse: HostMemory.h's pool would hand back the last probe's block).
    std::vector<double> probes;
    for (int r = 0; r < 3; ++r) {
      releaseKeptPinnedBlocks();
      const auto start = Clock::now();
      const Volume probe = emptyVolume(cubeGrid(size));
      probes.push_back(secondsSince(start));
    }
    hostAllocation = bench::summarize(probes).median;
  }
  std::vector<fdk::FdkReport> reports;
  std::vector<double> walls;
  for (int r = 0; r <= o.repeats; ++r) {  // run 0 warms up (context, cuFFT plans)
    JobContext context;
    fdk::FdkReport report;
    fdk::reconstructFdk(ctx.phantom, fdkParams(cubeGrid(size), variant, {o.device}), context,
                        &report);
    if (r > 0) {
      reports.push_back(report);
      walls.push_back(report.totalSeconds);
    }
  }
  row.wall = bench::summarize(walls);
  std::sort(reports.begin(), reports.end(),
            [](const auto& a, const auto& b) { return a.totalSeconds < b.totalSeconds; });
  row.report = reports[reports.size() / 2];
  row.kernel = row.report.kernel;
  row.plan = row.report.plan;
  const fdk::FdkReport& p = row.report;
  row.stages.wall = p.totalSeconds;
  // The allocation inside the run (on its own thread) and the devices' wait for it; the probe
  // above times it alone.
  row.stages.hostAlloc = p.hostVolumeSeconds > 0 ? p.hostVolumeSeconds : hostAllocation;
  row.stages.hostWait = p.hostVolumeWaitSeconds;
  row.stages.filter = p.filterSeconds;
  row.stages.backproject = p.backprojectSeconds;
  row.stages.download = p.downloadTailSeconds;  // the part the backprojection did not hide
  row.stages.upload = p.uploadSeconds;
  for (const KernelRow& k : ctx.kernelRows)
    if (k.variant == variant && k.size == size && !k.skipped)
      row.kernelOnlyGups = gupsOf(updates(size), k.seconds.median);
  return row;
}

MultiGpuRow multiGpu(const Context& ctx, std::int64_t size, const std::string& variant) {
  MultiGpuRow row;
  row.variant = variant;
  row.size = size;
  // reuse: every run into the volume of the warm-up run (reconstructFdkInto).
  auto run = [&](std::vector<int> devices, RunStats& stats, fdk::FdkReport& median, bool reuse) {
    std::vector<double> times;
    std::vector<fdk::FdkReport> reports;
    Volume volume;
    for (int r = 0; r <= ctx.options.repeats; ++r) {
      JobContext context;
      fdk::FdkReport report;
      const fdk::FdkParams params = fdkParams(cubeGrid(size), variant, devices);
      if (reuse && !volume.empty())
        fdk::reconstructFdkInto(ctx.phantom, params, volume, context, &report);
      else
        volume = fdk::reconstructFdk(ctx.phantom, params, context, &report);
      if (r > 0) {
        times.push_back(report.totalSeconds);
        reports.push_back(report);
      }
    }
    stats = bench::summarize(times);
    std::sort(reports.begin(), reports.end(),
              [](const auto& a, const auto& b) { return a.totalSeconds < b.totalSeconds; });
    median = reports[reports.size() / 2];
    return volume;
  };
  const Volume one = run({0}, row.oneGpu, row.oneReport, false);
  const Volume two = run({0, 1}, row.twoGpus, row.twoReport, false);
  fdk::FdkReport unused;
  {  // one volume at a time besides the two above
    (void)run({0}, row.oneGpuReused, unused, true);
  }
  const Volume twoReused = run({0, 1}, row.twoGpusReused, row.twoReusedReport, true);
  row.reusedSameAsFresh = std::equal(two.voxels().begin(), two.voxels().end(),
                                     twoReused.voxels().begin(), twoReused.voxels().end());
  metrics::CompareOptions options;
  options.computeSsim = false;
  row.maxAbsDifference =
      metrics::compareVolumes(two, one, metrics::Region::whole(), options).maxAbsDifference;
  return row;
}

}  // namespace fdk_gpu
