// GPU FDK benchmark of issue #6 in the layout of seed 000's Table I (fdk-and-large-data.md,
// part A), with the honesty rules of DESIGN.md "Measuring" (issue #17 point 6): a RabbitCT-like
// scan (496 views over 360 degrees, flat 1248 x 960 detector of 0.6 mm, source-to-isocentre
// 750 mm, source-to-detector 1250 mm) and a 256 mm cube at the isocentre, so every voxel is seen
// from every view, at the sizes asked (--sizes).
//  1. Kernel only (cuda::DeviceBackprojection): filtered projections already on the GPU, all
//     views in one resident buffer, the variant's kernels timed with CUDA events. Per variant:
//     the texel format, min / median / max of --repeats (>= 5) runs after a warm-up, GUPS (1e9
//     and seed 000's 2^30 basis), the fraction of the sampling ceiling of the kernel's texel
//     format (reference/gpu-limits-h100.md), the relative L2 error at sampled voxels against a
//     float64 reference on zero-mean random data AND on the positive line integrals of the
//     modified Shepp-Logan phantom (references computed once per size), the NRMSE of the whole
//     FDK against fdk.bp.cpu-f64 at --phantom-sizes, and the speed-up over the previous row.
//     A headline names the fastest kernel with its texel format, and the fastest float32 ones.
//  2. End to end (fdk::reconstructFdk): projections in host memory (pinned), weighting and ramp
//     filtering, backprojection, volume back in host memory; min / median / max of the wall
//     time, and the median run's stages split so that the serial columns add up to the wall
//     time, the overlapped upload beside them.
//  3. Why tables differ for one kernel (--cross-check): the same variant timed three ways (one
//     launch sequence over all views; the same views in pipeline-sized chunks, each from its
//     own buffer; inside reconstructFdk), in this geometry and in the case of `tomowb-cli sweep
//     --algorithm fdk --size 256 --views 360` (bench/results/2026-11-23-h100-qa-sweep.md).
//  4. One GPU against two, when two are visible.
// Writes Markdown (stdout, --out) and JSON (--json). Progress goes to stderr. Peer figures are
// never typed in here: reference/gpu-limits-h100.md's ASTRA and TIGRE figures are printed only
// in a table headed "cited", with their source, date and device.
#include <omp.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "bench/BenchSupport.h"
#include "recon/catalog/Builtins.h"
#include "recon/core/Error.h"
#include "recon/core/HostMemory.h"
#include "recon/core/MemoryBudget.h"
#include "recon/device/GpuDevices.h"
#include "recon/fdk/Fdk.h"
#include "recon/fdk/cuda/GpuFdk.h"
#include "recon/geometry/ScanBuilders.h"
#include "recon/io/RabbitCtReader.h"
#include "recon/metrics/ImageMetrics.h"
#include "recon/phantom/AnalyticProjector.h"
#include "recon/phantom/Phantom.h"
#include "recon/variant/VariantRegistry.h"

namespace {

using namespace tomowb;
using bench::fixed;
using bench::RunStats;
using bench::scientific;
using Clock = std::chrono::steady_clock;
using nlohmann::json;

// Views of the RabbitCT-like scan: 496 unless --views says otherwise (quick checks).
std::int64_t scanViews = 496;
constexpr double kCubeMm = 256.0;
// The skull's largest semi-axis is 0.92 x this: 110 mm, inside the 128 mm half-cube.
constexpr double kPhantomScaleMm = 120.0;
const std::vector<std::string> kTableOrder{
    "naive", "tex",         "tex-multi",        "slab",         "layered16", "mirror-float2",
    "soft",  "soft-mirror", "soft-mirror-half", "mirror-half2", "fast"};

struct Options {
  std::vector<std::int64_t> sizes{256, 512, 1024};
  std::vector<std::string> variants = kTableOrder;
  std::vector<std::string> endToEndVariants{"fast", "mirror-float2", "soft-mirror", "soft"};
  std::vector<std::int64_t> phantomSizes{256};
  std::vector<std::string> slowVariants{"naive", "tex"};
  std::vector<std::string> crossCheckVariants{"soft", "soft-mirror", "fast"};
  std::int64_t crossCheckSize = 512;
  std::int64_t chunkViews = 64;
  std::int64_t slowMaxSize = 512;
  int repeats = bench::kMinTimedRuns;
  int samples = 4096;
  int device = 0;
  bool multiGpu = true;
  bool crossCheck = true;
  bool kernelOnly = false;  // no phantom, no end-to-end, cross-check or multi-GPU rows (for ncu)
  std::string out, jsonPath, rabbitct;
};

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

CircularConeParams rabbitLikeScan() {
  CircularConeParams p;
  p.sourceToIsocentreMm = 750;
  p.sourceToDetectorMm = 1250;
  p.detector.cols = 1248;
  p.detector.rows = 960;
  p.detector.pitchUMm = p.detector.pitchVMm = 0.6;
  p.anglesRad = fullScanAnglesRad(scanViews);
  return p;
}

// The case `tomowb-cli sweep --algorithm fdk --size 256 --views 360` runs (cli/QaCommands.cpp,
// GeometryOptions' defaults): SOD 500 mm, SDD 1000 mm, 256 x 300 pixels of 1.6 mm, 360 views,
// 256^3 voxels of 0.8 mm, the modified Shepp-Logan of scale 100 mm.
constexpr std::int64_t kSweepSize = 256, kSweepViews = 360;
CircularConeParams sweepScan() {
  CircularConeParams p;
  p.sourceToIsocentreMm = 500;
  p.sourceToDetectorMm = 1000;
  p.detector.cols = kSweepSize;
  p.detector.rows = std::int64_t(std::ceil(double(kSweepSize) * 300.0 / 256.0));
  p.detector.pitchUMm = p.detector.pitchVMm = 2.0 * 204.8 / double(kSweepSize);
  p.anglesRad = fullScanAnglesRad(kSweepViews);
  return p;
}

fdk::VolumeGrid cubeGrid(std::int64_t size, double sideMm = kCubeMm) {
  return fdk::VolumeGrid::centred({size, size, size},
                                  Eigen::Vector3d::Constant(sideMm / double(size)));
}

Volume emptyVolume(const fdk::VolumeGrid& grid) {
  return Volume(grid.shape, grid.voxelSizeMm, grid.originMm);
}

double updates(std::int64_t size, std::int64_t views = scanViews) {
  return double(size) * double(size) * double(size) * double(views);
}

double gupsOf(double voxelUpdates, double seconds) {
  return seconds > 0 ? voxelUpdates / seconds / 1e9 : NAN;
}

json toJson(const RunStats& s) {
  return {{"min", s.min}, {"median", s.median}, {"max", s.max}, {"runs", s.runs}};
}

// ---- rows ---------------------------------------------------------------------------------

struct KernelRow {
  std::string variant, kernel, note;
  std::int64_t size = 0;
  bool skipped = false;
  RunStats seconds;
  double relativeL2Random = NAN, relativeL2Positive = NAN;
  std::optional<double> sheppLoganNrmse;  // whole FDK against fdk.bp.cpu-f64
  double speedUp = NAN;
  double uploadSeconds = 0;
};

struct EndToEndRow {
  std::string variant, kernel, plan;
  std::int64_t size = 0;
  RunStats wall;
  fdk::FdkReport report;  // of the median run
  bench::StageBreakdown stages;
  bool inputPinned = false;
  double kernelOnlyGups = NAN;  // the kernel table's median at this size, when it ran
};

struct MultiGpuRow {
  std::string variant;
  std::int64_t size = 0;
  RunStats oneGpu, twoGpus;
  double maxAbsDifference = 0;
};

struct Context {
  Options options;
  int multiprocessors = 0;
  std::string deviceName;
  ProjectionStack random;   // zero-mean random, the RabbitCT-like geometry
  ProjectionStack phantom;  // positive Shepp-Logan line integrals, same geometry
  std::vector<KernelRow> kernelRows;
  json report;
};

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

double sheppLoganNrmse(const ProjectionStack& phantomProjections, const Volume& reference,
                       std::int64_t size, const std::string& variant, int device) {
  JobContext context;
  const Volume volume = fdk::reconstructFdk(phantomProjections,
                                            fdkParams(cubeGrid(size), variant, {device}), context);
  metrics::CompareOptions options;
  options.computeSsim = false;
  return metrics::compareVolumes(volume, reference, metrics::Region::whole(), options).nrmse;
}

// Appends each finished part to stdout and --out, and rewrites --json, so that a run stopped by
// a time limit keeps what it measured.
class ReportWriter {
 public:
  explicit ReportWriter(const Options& options) : options_(options) {}
  void add(const std::string& markdown) {
    std::printf("%s", markdown.c_str());
    std::fflush(stdout);
    if (!options_.out.empty()) std::ofstream(options_.out, std::ios::app) << markdown;
  }
  void save(const json& figures) const {
    if (!options_.jsonPath.empty()) std::ofstream(options_.jsonPath) << figures.dump(2) << "\n";
  }

 private:
  const Options& options_;
};

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
    // zeroing the host volume, timed alone (the median of 3).
    std::vector<double> probes;
    for (int r = 0; r < 3; ++r) {
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
  row.stages.hostAlloc = hostAllocation;
  row.stages.filter = p.filterSeconds;
  row.stages.backproject = p.backprojectSeconds;
  row.stages.download = p.downloadSeconds;
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
  auto run = [&](std::vector<int> devices, RunStats& stats) {
    std::vector<double> times;
    Volume volume;
    for (int r = 0; r <= ctx.options.repeats; ++r) {
      JobContext context;
      fdk::FdkReport report;
      volume = fdk::reconstructFdk(ctx.phantom, fdkParams(cubeGrid(size), variant, devices),
                                   context, &report);
      if (r > 0) times.push_back(report.totalSeconds);
    }
    stats = bench::summarize(times);
    return volume;
  };
  const Volume one = run({0}, row.oneGpu);
  const Volume two = run({0, 1}, row.twoGpus);
  metrics::CompareOptions options;
  options.computeSsim = false;
  row.maxAbsDifference =
      metrics::compareVolumes(two, one, metrics::Region::whole(), options).maxAbsDifference;
  return row;
}

// ---- output ---------------------------------------------------------------------------------

std::string kernelTableHeader() {
  std::ostringstream t;
  t << "| Configuration | Texels | Volume | Runs | Total (ms) min / median / max | Mean per view "
       "(ms) | GUPS (1e9) | GUPS (2^30) | Ceiling (G samples/s) | Fraction of ceiling | rel. L2 "
       "err, random zero-mean | rel. L2 err, Shepp-Logan (positive) | NRMSE whole FDK vs "
       "cpu-f64 | Speed-Up |\n"
    << "|---|---|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n";
  return t.str();
}

std::string kernelTableRows(const Context& ctx, const std::vector<KernelRow>& rows) {
  std::ostringstream t;
  for (const KernelRow& r : rows) {
    t << "| " << r.variant << (r.note.empty() || r.skipped ? "" : " (" + r.note + ")") << " | ";
    if (r.skipped) {
      t << " | " << r.size << "³ | " << r.note << " | | | | | | | | | | |\n";
      continue;
    }
    const double u = updates(r.size);
    const double ceiling = ceilingFor(ctx, r.kernel);
    const double gups = gupsOf(u, r.seconds.median);
    t << bench::fdkTexelFormat(r.kernel) << " | " << r.size << "³ | " << r.seconds.runs << " | "
      << bench::minMedianMax(r.seconds, 1e3, 2) << " | "
      << fixed(r.seconds.median / double(scanViews) * 1e3, 3) << " | " << fixed(gups, 1) << " | "
      << fixed(u / r.seconds.median / double(1u << 30), 1) << " | "
      << (std::isfinite(ceiling) ? fixed(ceiling, 0) : "n/a") << " | "
      << bench::fractionOfCeiling(gups, ceiling) << " | " << scientific(r.relativeL2Random) << " | "
      << scientific(r.relativeL2Positive) << " | "
      << (r.sheppLoganNrmse ? scientific(*r.sheppLoganNrmse) : "–") << " | "
      << (std::isfinite(r.speedUp) ? fixed(r.speedUp, 2) : "N/A") << " |\n";
  }
  return t.str();
}

// The headline: at the largest size measured, the fastest kernel, the fastest with float32
// texels or buffers and the fastest software-interpolation kernel, each with its texel format.
std::string headline(const Context& ctx) {
  std::int64_t size = 0;
  for (const KernelRow& r : ctx.kernelRows)
    if (!r.skipped) size = std::max(size, r.size);
  if (size == 0) return "";
  auto best = [&](auto&& keep) -> const KernelRow* {
    const KernelRow* found = nullptr;
    for (const KernelRow& r : ctx.kernelRows)
      if (!r.skipped && r.size == size && keep(r) &&
          (!found || r.seconds.median < found->seconds.median))
        found = &r;
    return found;
  };
  auto describe = [&](const char* label, const KernelRow* r) -> std::string {
    if (!r) return std::string("- ") + label + ": none ran\n";
    const double gups = gupsOf(updates(size), r->seconds.median);
    const double ceiling = ceilingFor(ctx, r->kernel);
    std::string line =
        std::string("- ") + label + ": **" + r->variant +
        (r->kernel != splitVariant(r->variant).first ? " (ran " + r->kernel + ")" : "") + ", " +
        bench::fdkTexelFormat(r->kernel) + "**: " + fixed(gups, 1) +
        " GUPS kernel only (median of " + std::to_string(r->seconds.runs) + "; " +
        fixed(gupsOf(updates(size), r->seconds.max), 1) + " to " +
        fixed(gupsOf(updates(size), r->seconds.min), 1) + ")";
    if (std::isfinite(ceiling))
      line += ", of its ceiling " + bench::fractionOfCeiling(gups, ceiling);
    return line + "; rel. L2 error " + scientific(r->relativeL2Random) + " on zero-mean data, " +
           scientific(r->relativeL2Positive) + " on the Shepp-Logan line integrals.\n";
  };
  auto isFloat32 = [](const KernelRow& r) {
    return r.kernel != "fdk.bp.mirror-half2" && r.kernel != "fdk.bp.soft-mirror-half" &&
           r.kernel.rfind("fdk.bp.cpu", 0) != 0;
  };
  auto isSoftware = [&](const KernelRow& r) {
    return isFloat32(r) && (r.kernel == "fdk.bp.naive" || r.kernel == "fdk.bp.soft" ||
                            r.kernel == "fdk.bp.soft-mirror");
  };
  std::ostringstream t;
  t << "\n**Headline, " << size << "³ x " << scanViews << " views, " << ctx.deviceName << ":**\n\n"
    << describe("fastest", best([](const KernelRow&) { return true; }))
    << describe("fastest with float32 data", best(isFloat32))
    << describe("fastest with software (float32) interpolation", best(isSoftware));
  return t.str();
}

std::string endToEndTable(const std::vector<EndToEndRow>& rows) {
  std::ostringstream t;
  t << "| Variant (kernel) | Texels | Volume | Runs | Wall (s) min / median / max | Host volume "
       "alloc (s) | Filter (s) | Backproject (s) | Download (s) | Rest (s) | Upload (s, GB/s), "
       "overlapped | Every stage summed (s) | H2D floor (s) | Fraction of H2D floor | "
       "GUPS end to end | GUPS backprojection in the pipeline | GUPS kernel only (table above) "
       "|\n"
    << "|---|---|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n";
  for (const EndToEndRow& r : rows) {
    const fdk::FdkReport& p = r.report;
    const bench::StageBreakdown& s = r.stages;
    const double floor = p.uploadBytes / (bench::kH100PinnedH2DGBs * 1e9);
    t << "| " << r.variant << (r.kernel == r.variant ? "" : " (" + r.kernel + ")") << " | "
      << bench::fdkTexelFormat(r.kernel) << " | " << r.size << "³ | " << r.wall.runs << " | "
      << bench::minMedianMax(r.wall, 1.0, 3) << " | " << fixed(s.hostAlloc, 3) << " | "
      << fixed(s.filter, 3) << " | " << fixed(s.backproject, 3) << " | " << fixed(s.download, 3)
      << " | " << fixed(s.rest(), 3) << " | " << fixed(s.upload, 3) << ", "
      << (s.upload > 0 ? fixed(p.uploadBytes / s.upload / 1e9, 1) : "–") << " | "
      << fixed(s.allStages(), 3) << " | " << fixed(floor, 3) << " | "
      << fixed(100.0 * floor / s.wall, 0) << " % | " << fixed(gupsOf(updates(r.size), s.wall), 1)
      << " | " << fixed(p.backprojectGups(), 1) << " | " << fixed(r.kernelOnlyGups, 1) << " |\n";
  }
  return t.str();
}

std::string multiGpuTable(const std::vector<MultiGpuRow>& rows) {
  std::ostringstream t;
  t << "| Variant | Volume | Runs | 1 GPU wall (s) min / median / max | 2 GPUs wall (s) min / "
       "median / max | Speed-Up (medians) | max abs difference |\n"
    << "|---|---|---:|---|---|---:|---:|\n";
  for (const MultiGpuRow& r : rows)
    t << "| " << r.variant << " | " << r.size << "³ | " << r.oneGpu.runs << " | "
      << bench::minMedianMax(r.oneGpu, 1.0, 3) << " | " << bench::minMedianMax(r.twoGpus, 1.0, 3)
      << " | " << fixed(r.oneGpu.median / r.twoGpus.median, 2) << " | "
      << scientific(r.maxAbsDifference) << " |\n";
  return t.str();
}

json toJson(const Context& ctx, const KernelRow& r) {
  json j{{"variant", r.variant}, {"kernel", r.kernel}, {"size", r.size}, {"skipped", r.skipped}};
  if (!r.note.empty()) j["note"] = r.note;
  if (r.skipped) return j;
  const double u = updates(r.size);
  j["texels"] = bench::fdkTexelFormat(r.kernel);
  j["seconds"] = toJson(r.seconds);
  j["meanMsPerView"] = r.seconds.median / double(scanViews) * 1e3;
  j["gups1e9"] = u / r.seconds.median / 1e9;
  j["gups2pow30"] = u / r.seconds.median / double(1u << 30);
  const double ceiling = ceilingFor(ctx, r.kernel);
  if (std::isfinite(ceiling)) {
    j["ceilingGSamplesPerSecond"] = ceiling;
    j["ceilingSource"] = bench::fdkKernelCeiling(r.kernel)->source;
    j["fractionOfCeiling"] = u / r.seconds.median / 1e9 / ceiling;
  }
  j["relativeL2Random"] = r.relativeL2Random;
  if (std::isfinite(r.relativeL2Positive)) j["relativeL2SheppLogan"] = r.relativeL2Positive;
  j["uploadSeconds"] = r.uploadSeconds;
  if (r.sheppLoganNrmse) j["nrmseWholeFdkSheppLogan"] = *r.sheppLoganNrmse;
  if (std::isfinite(r.speedUp)) j["speedUpOverPrevious"] = r.speedUp;
  return j;
}

json toJson(const EndToEndRow& r) {
  const fdk::FdkReport& p = r.report;
  const bench::StageBreakdown& s = r.stages;
  return {{"variant", r.variant},
          {"kernel", r.kernel},
          {"size", r.size},
          {"plan", r.plan},
          {"device", p.device},
          {"wallSeconds", toJson(r.wall)},
          {"medianRun",
           {{"wallSeconds", s.wall},
            {"hostVolumeAllocationSeconds", s.hostAlloc},
            {"filterSeconds", s.filter},
            {"backprojectSeconds", s.backproject},
            {"downloadSeconds", s.download},
            {"restSeconds", s.rest()},
            {"uploadSecondsOverlapped", s.upload},
            {"uploadBytes", p.uploadBytes},
            {"downloadBytes", p.downloadBytes}}},
          {"gupsEndToEnd", updates(r.size) / s.wall / 1e9},
          {"gupsBackprojectionInPipeline", p.backprojectGups()},
          {"gupsKernelOnly", std::isfinite(r.kernelOnlyGups) ? json(r.kernelOnlyGups) : json()},
          {"inputPinned", r.inputPinned}};
}

// ---- why tables differ: one kernel timed three ways
// ------------------------------------------------

struct CrossCheckRow {
  std::string caseName, variant, kernel;
  std::int64_t size = 0, views = 0, chunkViews = 0;
  RunStats allViews, chunked, inPipeline;
};

// (a) one launch sequence over all views from one resident buffer (the kernel table's method);
// (b) the same random views in chunks of `chunkViews`, each chunk from its own buffer, the sum of
//     the chunks' kernel times (the pipeline's kernel work without the filtering between);
// (c) inside reconstructFdk on the phantom: the sum of the per-chunk backprojection events
//     (the end-to-end table's "Backproject" and the QA sweep's "median s").
CrossCheckRow crossCheck(const Context& ctx, const std::string& caseName,
                         const ProjectionStack& random, const ProjectionStack& phantom,
                         const fdk::VolumeGrid& grid, const std::string& variant) {
  const Options& o = ctx.options;
  CrossCheckRow row;
  row.caseName = caseName;
  row.variant = variant;
  row.size = grid.shape.nx;
  row.views = random.viewCount();
  row.chunkViews = std::min(o.chunkViews, random.viewCount());
  Volume volume = emptyVolume(grid);
  row.allViews = timeKernel(random, variant, o.device, o.repeats, volume, row.kernel, nullptr);
  {
    const auto [name, tunables] = splitVariant(variant);
    std::vector<std::unique_ptr<cuda::DeviceBackprojection>> chunks;
    for (std::int64_t v0 = 0; v0 < random.viewCount(); v0 += row.chunkViews) {
      const ProjectionStack part =
          bench::viewRange(random, v0, std::min(row.chunkViews, random.viewCount() - v0));
      chunks.push_back(
          std::make_unique<cuda::DeviceBackprojection>(part, volume, name, tunables, o.device));
    }
    for (auto& c : chunks) c->run();  // warm-up
    std::vector<double> sums;
    for (int r = 0; r < o.repeats; ++r) {
      double sum = 0;
      for (auto& c : chunks) sum += c->run();
      sums.push_back(sum);
    }
    row.chunked = bench::summarize(sums);
  }
  std::vector<double> inPipeline;
  for (int r = 0; r <= o.repeats; ++r) {
    JobContext context;
    fdk::FdkReport report;
    fdk::reconstructFdk(phantom, fdkParams(grid, variant, {o.device}), context, &report);
    if (r > 0) inPipeline.push_back(report.backprojectSeconds);
  }
  row.inPipeline = bench::summarize(inPipeline);
  return row;
}

std::string crossCheckTable(const Context& ctx, const std::vector<CrossCheckRow>& rows) {
  std::ostringstream t;
  t << "| Case | Variant (kernel) | Texels | Volume, views | (a) all views, one buffer: GUPS "
       "median (min-max) | (b) chunks, own buffers: GUPS median (min-max) | (c) inside "
       "reconstructFdk: GUPS median (min-max) | (b) / (a) | (c) / (a) | (a) of ceiling |\n"
    << "|---|---|---|---|---|---|---|---:|---:|---:|\n";
  for (const CrossCheckRow& r : rows) {
    const double u = updates(r.size, r.views);
    auto cell = [&](const RunStats& s) {
      return fixed(gupsOf(u, s.median), 0) + " (" + fixed(gupsOf(u, s.max), 0) + "-" +
             fixed(gupsOf(u, s.min), 0) + ")";
    };
    t << "| " << r.caseName << " | " << r.variant
      << (r.kernel == splitVariant(r.variant).first ? "" : " (" + r.kernel + ")") << " | "
      << bench::fdkTexelFormat(r.kernel) << " | " << r.size << "³, " << r.views << " | "
      << cell(r.allViews) << " | " << cell(r.chunked) << " (" << r.chunkViews << " views) | "
      << cell(r.inPipeline) << " | " << fixed(r.allViews.median / r.chunked.median, 2) << " | "
      << fixed(r.allViews.median / r.inPipeline.median, 2) << " | ";
    const double ceiling = ceilingFor(ctx, r.kernel);
    t << (std::isfinite(ceiling) ? bench::fractionOfCeiling(gupsOf(u, r.allViews.median), ceiling)
                                 : "n/a")
      << " |\n";
  }
  return t.str();
}

void crossCheckSection(Context& ctx, ReportWriter& writer) {
  const Options& o = ctx.options;
  std::ostringstream md;
  md << "\n### Why figures for one kernel differ between tables: the same kernel timed three "
        "ways\n\n"
        "(a) the kernel table's method: every view in one resident buffer, one launch sequence. "
        "(b) the same views in chunks of "
     << o.chunkViews
     << " (what the pipeline hands the kernel), each chunk from its own buffer, the chunks' "
        "kernel times summed. (c) inside reconstructFdk on the Shepp-Logan projections: the "
        "per-chunk backprojection events summed, with filtering between the chunks (the "
        "end-to-end table's Backproject and `tomowb-cli sweep`'s median s). The last case is "
        "the QA sweep's (bench/results/2026-11-23-h100-qa-sweep.md: 256³ from 360 views of 256 "
        "x 300 pixels): a detector 15x smaller than RabbitCT's, so GUPS differ from the "
        "RabbitCT-like rows with the case, not with the method. Ratios > 1: faster than (a). "
        "Each: median of "
     << o.repeats << " runs after a warm-up, (slowest-fastest) in brackets.\n\n";
  writer.add(md.str());
  std::vector<CrossCheckRow> rows;
  std::ostringstream failures;
  const auto run = [&](const std::string& caseName, const ProjectionStack& random,
                       const ProjectionStack& phantom, const fdk::VolumeGrid& grid) {
    for (const std::string& name : o.crossCheckVariants) {
      try {
        rows.push_back(crossCheck(ctx, caseName, random, phantom, grid, fullName(name)));
        const CrossCheckRow& r = rows.back();
        progress("cross-check " + caseName + " " + r.variant + ": (a) " +
                 fixed(r.allViews.median * 1e3, 2) + " ms, (b) " +
                 fixed(r.chunked.median * 1e3, 2) + " ms, (c) " +
                 fixed(r.inPipeline.median * 1e3, 2) + " ms");
        ctx.report["crossCheck"].push_back({{"case", r.caseName},
                                            {"variant", r.variant},
                                            {"kernel", r.kernel},
                                            {"size", r.size},
                                            {"views", r.views},
                                            {"chunkViews", r.chunkViews},
                                            {"allViewsSeconds", toJson(r.allViews)},
                                            {"chunkedSeconds", toJson(r.chunked)},
                                            {"inPipelineSeconds", toJson(r.inPipeline)}});
      } catch (const std::exception& e) {
        failures << "- " << caseName << " " << fullName(name) << " failed: " << e.what() << "\n";
      }
    }
  };
  run("RabbitCT-like", ctx.random, ctx.phantom, cubeGrid(o.crossCheckSize));
  {
    const Geometry sweep = circularConeBeam(sweepScan());
    ProjectionStack random(sweep);
    bench::fillZeroMeanRandom(random);
    const ProjectionStack phantom =
        phantom::projectPhantom(phantom::modifiedSheppLogan3d(100.0), sweep);
    run("QA sweep's demo", random, phantom, cubeGrid(kSweepSize, 204.8));
  }
  writer.add(crossCheckTable(ctx, rows) + failures.str());
  writer.save(ctx.report);
}

// ---- RabbitCT --------------------------------------------------------------------------------

std::string rabbitCtSection(const Context& ctx) {
  const Options& o = ctx.options;
  std::ostringstream t;
  t << "\n### RabbitCT data: " << o.rabbitct << "\n\n";
  io::RabbitCtProjections data;
  try {
    data = io::readRabbitCt(o.rabbitct);
  } catch (const std::exception& e) {
    t << "Could not read it: " << e.what() << "\n";
    return t.str();
  }
  const std::int64_t views = data.projections.viewCount();
  t << views << " filtered views of " << data.projections.cols() << " x " << data.projections.rows()
    << ". RabbitCT's MSE (HU^2) is not reported: recon/io/RabbitCtReader reads the projections "
       "only, not RabbitCT's reference volumes. rel. L2 err: at "
    << o.samples << " sampled voxels against the float64 reference of the same data.\n\n"
    << "| Variant | Texels | Volume | Runs | Total (ms) min / median / max | Mean per view (ms) "
       "| GUPS (1e9) | GUPS (2^30) | Fraction of ceiling | rel. L2 err vs float64 |\n"
    << "|---|---|---|---:|---|---:|---:|---:|---:|---:|\n";
  for (const std::int64_t size : o.sizes) {
    // RabbitCT's volume: R_L = 256 mm / L, origin -R_L (L - 1) / 2: our centred cube.
    Volume volume = emptyVolume(cubeGrid(size));
    const std::vector<bench::VoxelSample> samples = bench::sampleVoxels(volume.shape(), o.samples);
    const std::vector<double> reference =
        bench::referenceAtSamples(data.projections, volume, samples);
    const std::string name = "fdk.bp.fast";
    try {
      std::string kernel;
      const RunStats s =
          timeKernel(data.projections, name, o.device, o.repeats, volume, kernel, nullptr);
      const double u = updates(size, views);
      const double ceiling = ceilingFor(ctx, kernel);
      t << "| " << name << (kernel == name ? "" : " (ran " + kernel + ")") << " | "
        << bench::fdkTexelFormat(kernel) << " | " << size << "³ | " << s.runs << " | "
        << bench::minMedianMax(s, 1e3, 2) << " | " << fixed(s.median / double(views) * 1e3, 3)
        << " | " << fixed(u / s.median / 1e9, 1) << " | "
        << fixed(u / s.median / double(1u << 30), 1) << " | "
        << bench::fractionOfCeiling(u / s.median / 1e9, ceiling) << " | "
        << scientific(bench::relativeL2AtSamples(volume, samples, reference)) << " |\n";
    } catch (const std::exception& e) {
      t << "| " << name << " | | " << size << "³ | failed: " << e.what() << " | | | | | | |\n";
    }
  }
  return t.str();
}

// ---- sections
// ------------------------------------------------------------------------------------

std::string citedPeers() {
  const char* source = "reference/gpu-limits-h100.md, \"The peers, same H100, same geometry\"";
  const char* date = "2026-11-23";
  const char* device = "NVIDIA H100 80GB HBM3 (driver 580.159.04)";
  return bench::citedTable(
             "the peers in the same geometry (random projections; not re-measured here)",
             {{"ASTRA 2.5.99, 512³, kernels only (projections in the texture array), GUPS", "462",
               source, date, device},
              {"ASTRA 2.5.99, 1024³, kernels only, GUPS", "482", source, date, device},
              {"TIGRE 2026-06, 512³, kernels only (projections on the GPU), GUPS", "420", source,
               date, device},
              {"TIGRE 2026-06, 1024³, kernels only, GUPS", "440", source, date, device},
              {"ASTRA, 512³, host to host (pageable copies + backprojection), GUPS", "135", source,
               date, device},
              {"TIGRE, 512³, its full call (pin, copy in, kernels, copy out), GUPS", "185", source,
               date, device}}) +
         "\nThese come from another run of code that is not part of the project; no ratio to "
         "them is printed. To compare, build the peers and time them in the same device call "
         "on the same case.\n";
}

void kernelSection(Context& ctx, ReportWriter& writer) {
  const Options& o = ctx.options;
  writer.add(
      "\n### Kernel only: filtered projections on the GPU, CUDA-event time (CPU rows: wall "
      "clock)\n\n"
      "Texels: the storage and interpolation of the kernel that ran. Total: one backprojection "
      "of all " +
      std::to_string(scanViews) + " views, min / median / max of " + std::to_string(o.repeats) +
      " runs after a warm-up; GUPS from the median. Ceiling: interpolated samples per second of "
      "the kernel's texel format and fetch path, from reference/gpu-limits-h100.md Table 1 "
      "(measured 2026-11-23 on an H100, 132 SMs at 1980 MHz; scaled by SM count for another "
      "device; the software rows' ceilings are loop rates, not unit limits); one voxel update "
      "needs one sample. rel. L2 err: at " +
      std::to_string(o.samples) +
      " sampled voxels against a float64 reference of the same backprojection, on zero-mean "
      "uniform [-1, 1) projections (like filtered data) and on the positive line integrals of "
      "the modified Shepp-Logan phantom (unfiltered). NRMSE whole FDK: the whole FDK of the "
      "phantom (GPU filtering included) against fdk.bp.cpu-f64, at --phantom-sizes only. "
      "Speed-Up: median over the previous row's median.\n\n" +
      kernelTableHeader());
  for (const std::int64_t size : o.sizes) {
    const std::vector<KernelRow> rows = kernelRowsForSize(ctx, size);
    for (const KernelRow& r : rows) {
      ctx.report["kernel"].push_back(toJson(ctx, r));
      ctx.kernelRows.push_back(r);
    }
    writer.add(kernelTableRows(ctx, rows));
    writer.save(ctx.report);
  }
  writer.add(headline(ctx));
  writer.add(citedPeers());
}

void endToEndSection(Context& ctx, ReportWriter& writer) {
  const Options& o = ctx.options;
  std::ostringstream md;
  md << "\n### End to end: host projections (pinned: "
     << (isPinnedHostBuffer(ctx.phantom.data()) ? "yes" : "no")
     << ") -> weighting, ramp filter, backprojection -> host volume (reconstructFdk)\n\n"
     << "Wall: reconstructFdk's totalSeconds, min / median / max of " << o.repeats
     << " runs after a warm-up; the stage columns are the median run's. What overlaps: the "
        "pipeline uploads the next chunk of views on a copy stream while the compute stream "
        "filters and backprojects the current one; filter, backprojection and download follow "
        "one another on the compute stream, after the host volume is allocated. So Host volume "
        "alloc + Filter + Backproject + Download + Rest = Wall, where Host volume alloc is "
        "timed alone (median of 3 allocations of the volume) and Rest is the time in no timed "
        "stage (planning, device buffers, the first chunk's upload that nothing hides, launch "
        "gaps). Upload is overlapped and not in that sum; Every stage summed (upload included) "
        "minus Wall is what the overlap saves. H2D floor: the bytes uploaded at "
     << fixed(bench::kH100PinnedH2DGBs, 0)
     << " GB/s, the pinned copy rate of reference/gpu-limits-h100.md (the end-to-end ceiling "
        "when every copy is hidden). GUPS backprojection in the pipeline: the per-chunk kernel "
        "events summed; GUPS kernel only: the kernel table's median for the same variant and "
        "size (one launch sequence; the cross-check below compares the two).\n\n";
  std::vector<EndToEndRow> rows;
  std::ostringstream failures;
  for (const std::int64_t size : o.sizes) {
    for (const std::string& name : o.endToEndVariants) {
      try {
        rows.push_back(endToEnd(ctx, size, fullName(name)));
        const EndToEndRow& r = rows.back();
        progress("end to end L=" + std::to_string(size) + " " + r.variant + ": " +
                 fixed(r.wall.median, 3) + " s (median)");
        ctx.report["endToEnd"].push_back(toJson(r));
        writer.save(ctx.report);
      } catch (const std::exception& e) {
        failures << "- " << fullName(name) << " at " << size << "³ failed: " << e.what() << "\n";
        progress(failures.str());
      }
    }
  }
  md << endToEndTable(rows) << failures.str();
  for (const EndToEndRow& r : rows)
    if (!r.plan.empty()) md << "\n- " << r.variant << " " << r.size << "³: " << r.plan;
  md << "\n";
  writer.add(md.str());
}

void multiGpuSection(Context& ctx, std::size_t gpuCount, ReportWriter& writer) {
  const Options& o = ctx.options;
  std::ostringstream md;
  if (!o.multiGpu || gpuCount < 2 || o.endToEndVariants.empty()) {
    md << "\nOne GPU against two: skipped (" << gpuCount << " GPU visible"
       << (o.multiGpu ? "" : ", --no-multi-gpu") << ").\n";
    writer.add(md.str());
    return;
  }
  const std::string variant = fullName(o.endToEndVariants.front());
  md << "\n### One GPU against two (end to end, " << variant << ")\n\n"
     << "Wall times only: with two GPUs the stages run side by side on both, so per-stage sums "
        "would not add up to the wall time and are not shown.\n\n";
  std::vector<MultiGpuRow> rows;
  std::ostringstream failures;
  for (const std::int64_t size : o.sizes) {
    try {
      rows.push_back(multiGpu(ctx, size, variant));
      const MultiGpuRow& r = rows.back();
      progress("multi-GPU L=" + std::to_string(size) + ": " + fixed(r.oneGpu.median, 3) + " s -> " +
               fixed(r.twoGpus.median, 3) + " s");
      ctx.report["multiGpu"].push_back({{"variant", r.variant},
                                        {"size", r.size},
                                        {"oneGpuSeconds", toJson(r.oneGpu)},
                                        {"twoGpuSeconds", toJson(r.twoGpus)},
                                        {"maxAbsDifference", r.maxAbsDifference}});
      writer.save(ctx.report);
    } catch (const std::exception& e) {
      failures << "- " << size << "³ failed: " << e.what() << "\n";
    }
  }
  md << multiGpuTable(rows) << failures.str();
  writer.add(md.str());
}

bool onlyCpuVariants(const Options& o) {
  for (const std::string& v : o.variants)
    if (VariantRegistry::builtins().require(splitVariant(fullName(v)).first).needsGpu) return false;
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  tomowb::catalog::installBuiltinVariants();  // the composition root (recon/catalog/Builtins.h)
  CLI::App app{"GPU FDK benchmark, seed 000's Table I layout (RabbitCT-like geometry)"};
  Context ctx;
  Options& o = ctx.options;
  app.add_option("--sizes", o.sizes, "cubic volume edges L")->capture_default_str();
  app.add_option("--variants", o.variants, "kernel variants, table order (fdk.bp. optional)")
      ->capture_default_str();
  app.add_option("--e2e-variants", o.endToEndVariants, "variants for the end-to-end rows")
      ->capture_default_str();
  app.add_option("--phantom-sizes", o.phantomSizes,
                 "sizes with the whole-FDK Shepp-Logan NRMSE against fdk.bp.cpu-f64 (CPU cost: "
                 "seconds at 256, minutes at 512)")
      ->capture_default_str();
  app.add_option("--slow-variants", o.slowVariants, "variants skipped above --slow-max-size")
      ->capture_default_str();
  app.add_option("--slow-max-size", o.slowMaxSize, "largest L at which slow variants run")
      ->capture_default_str();
  app.add_option("--repeats", o.repeats, "timed runs per case after a warm-up (at least 5)")
      ->capture_default_str()
      ->check(CLI::Range(bench::kMinTimedRuns, 1000));
  app.add_option("--samples", o.samples, "voxels sampled for the errors against float64")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  app.add_option("--device", o.device, "CUDA device for the single-GPU rows")
      ->capture_default_str();
  app.add_flag("!--no-multi-gpu", o.multiGpu, "skip the one- versus two-GPU rows");
  app.add_flag("!--no-cross-check", o.crossCheck,
               "skip timing the cross-check variants three ways");
  app.add_option("--cross-check-variants", o.crossCheckVariants,
                 "variants timed three ways (all views / chunks / in the pipeline)")
      ->capture_default_str();
  app.add_option("--cross-check-size", o.crossCheckSize, "L of the RabbitCT-like cross-check")
      ->capture_default_str();
  app.add_option("--chunk-views", o.chunkViews, "views per chunk in the cross-check's (b)")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  app.add_option("--views", scanViews,
                 "views of the RabbitCT-like scan over 360 degrees (496 is RabbitCT's; fewer for "
                 "a quick check of the program)")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  app.add_flag("--kernel-only", o.kernelOnly,
               "only the kernel rows, without the Shepp-Logan errors (quick; for profilers)");
  app.add_option("--out", o.out, "append the Markdown report to this file");
  app.add_option("--json", o.jsonPath, "write the figures as JSON");
  app.add_option("--rabbitct", o.rabbitct, "a RabbitCT projection file to time as well");
  CLI11_PARSE(app, argc, argv);

  try {
    const auto benchStart = Clock::now();
    const std::vector<cuda::GpuDevice> devices = cuda::listGpuDevices();
    const std::string command = bench::commandLine(argc, argv);
    const bool haveDevice = o.device >= 0 && o.device < static_cast<int>(devices.size());
    if (haveDevice) {
      const cuda::GpuDevice& d = devices[static_cast<std::size_t>(o.device)];
      ctx.deviceName = d.name;
      ctx.multiprocessors = d.multiprocessors;
    } else {
      ctx.deviceName = "no CUDA device (" + cuda::gpuStatus() + ")";
    }
    // Without a GPU only CPU variants can run (a check of the program itself, not a benchmark
    // of the GPU): no end-to-end, cross-check or multi-GPU parts then.
    const bool cpuOnly = !haveDevice && onlyCpuVariants(o);
    std::ostringstream md;
    md << "\n## " << bench::utcNow() << ": GPU FDK, seed 000 Table I layout\n\n"
       << "Device: " << ctx.deviceName << " (" << devices.size() << " visible GPU"
       << (devices.size() == 1 ? "" : "s") << ", " << ctx.multiprocessors << " SMs), host "
       << omp_get_num_procs() << " CPUs.\n"
       << "Command: `" << command << "`\n\n"
       << "Geometry: " << scanViews << " views over 360°, flat detector 1248 x 960 of 0.6 mm, "
       << "source-isocentre 750 mm, source-detector 1250 mm, 256 mm cube at the isocentre "
       << "(voxel 256/L mm). GUPS = L³·" << scanViews
       << " / time. Every time: min / median / max of " << o.repeats << " runs after a warm-up.\n";
    ReportWriter writer(o);
    writer.add(md.str());
    ctx.report = {{"date", bench::utcNow()},
                  {"device", ctx.deviceName},
                  {"multiprocessors", ctx.multiprocessors},
                  {"gpuCount", devices.size()},
                  {"command", command},
                  {"views", scanViews},
                  {"repeats", o.repeats}};
    if (!haveDevice && !cpuOnly) {
      writer.add("\nNo CUDA device: nothing to measure (only CPU variants run without one).\n");
    } else {
      const Geometry geometry = circularConeBeam(rabbitLikeScan());
      auto start = Clock::now();
      ctx.random = ProjectionStack(geometry);
      bench::fillZeroMeanRandom(ctx.random);
      progress("random projections (" + formatBytes(ctx.random.pixelCount() * 4) +
               ", pinned: " + (isPinnedHostBuffer(ctx.random.data()) ? "yes" : "no") + ") in " +
               fixed(secondsSince(start), 1) + " s");
      if (!o.kernelOnly) {
        start = Clock::now();
        ctx.phantom =
            phantom::projectPhantom(phantom::modifiedSheppLogan3d(kPhantomScaleMm), geometry);
        progress("Shepp-Logan projections (pinned: " +
                 std::string(isPinnedHostBuffer(ctx.phantom.data()) ? "yes" : "no") + ") in " +
                 fixed(secondsSince(start), 1) + " s");
      }
      kernelSection(ctx, writer);
      if (!o.kernelOnly && !cpuOnly) {
        endToEndSection(ctx, writer);
        if (o.crossCheck) crossCheckSection(ctx, writer);
        multiGpuSection(ctx, devices.size(), writer);
      }
      ctx.random = ProjectionStack();
      ctx.phantom = ProjectionStack();
      if (!o.rabbitct.empty()) writer.add(rabbitCtSection(ctx));
    }
    writer.add("\nBenchmark wall time: " + fixed(secondsSince(benchStart), 1) + " s.\n");
    ctx.report["wallSeconds"] = secondsSince(benchStart);
    writer.save(ctx.report);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tomowb-bench-fdk-gpu: %s\n", e.what());
    return 1;
  }
  return 0;
}
