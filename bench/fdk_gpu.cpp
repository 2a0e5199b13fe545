// GPU FDK benchmark of issue #6 in the layout of seed 000's Table I (fdk-and-large-data.md,
// part A): a RabbitCT-like scan (496 views over 360 degrees, flat 1248 x 960 detector of 0.6 mm,
// source-to-isocentre 750 mm, source-to-detector 1250 mm) and a 256 mm cube at the isocentre,
// so every voxel is seen from every view, at L = 256, 512 and 1024.
//  1. Kernel only (cuda::DeviceBackprojection): filtered projections already on the GPU, the
//     variant's kernels timed with CUDA events. Per variant: total, mean per projection, GUPS
//     on the 1e9 and on seed 000's 2^30 basis, the relative L2 error on zero-mean random data at
//     a sample of voxels against a float64 reference computed here (same convention as
//     recon/fdk/BackprojectorCpu.cpp), the NRMSE of the whole FDK of the modified Shepp-Logan
//     against fdk.bp.cpu-f64, and the speed-up over the previous row.
//  2. End to end (fdk::reconstructFdk): projections in host memory (pinned, HostMemory.h),
//     weighting and ramp filtering, backprojection, volume back in host memory.
//  3. One GPU against two, when two are visible: times, speed-up, max |difference|.
// Writes Markdown (stdout, --out) and JSON (--json). Progress goes to stderr.
#include <omp.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "recon/core/Error.h"
#include "recon/core/HostMemory.h"
#include "recon/core/MemoryBudget.h"
#include "recon/cuda/GpuDevices.h"
#include "recon/cuda/GpuFdk.h"
#include "recon/fdk/Fdk.h"
#include "recon/geometry/ScanBuilders.h"
#include "recon/io/RabbitCtReader.h"
#include "recon/metrics/ImageMetrics.h"
#include "recon/phantom/AnalyticProjector.h"
#include "recon/phantom/Phantom.h"
#include "recon/variant/VariantRegistry.h"

namespace {

using namespace tomowb;
using Clock = std::chrono::steady_clock;
using nlohmann::json;

constexpr std::int64_t kViews = 496;
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
  std::int64_t slowMaxSize = 512;
  int repeats = 3;
  int samples = 4096;
  int device = 0;
  bool multiGpu = true;
  bool kernelOnly = false;  // no phantom, no end-to-end or multi-GPU rows (for ncu)
  std::string out, jsonPath, rabbitct;
};

double secondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

std::string today() {
  const std::time_t now = std::time(nullptr);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%d %H:%M UTC", std::gmtime(&now));
  return text;
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

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

std::string fixed(double value, int digits) {
  char text[64];
  std::snprintf(text, sizeof text, "%.*f", digits, value);
  return text;
}

std::string scientific(double value) {
  if (!std::isfinite(value)) return "n/a";
  char text[32];
  std::snprintf(text, sizeof text, "%.1e", value);
  return text;
}

void progress(const std::string& line) {
  std::fprintf(stderr, "[bench-fdk-gpu] %s\n", line.c_str());
  std::fflush(stderr);
}

Geometry rabbitLikeGeometry() {
  CircularConeParams p;
  p.sourceToIsocentreMm = 750;
  p.sourceToDetectorMm = 1250;
  p.detector.cols = 1248;
  p.detector.rows = 960;
  p.detector.pitchUMm = p.detector.pitchVMm = 0.6;
  p.anglesRad = fullScanAnglesRad(kViews);
  return circularConeBeam(p);
}

fdk::VolumeGrid cubeGrid(std::int64_t size) {
  return fdk::VolumeGrid::centred({size, size, size},
                                  Eigen::Vector3d::Constant(kCubeMm / double(size)));
}

Volume emptyVolume(const fdk::VolumeGrid& grid) {
  return Volume(grid.shape, grid.voxelSizeMm, grid.originMm);
}

// Zero-mean uniform [-1, 1): like ramp-filtered data, it exposes interpolation error that
// positive data hides. One generator per view keeps it fast and independent of threads.
ProjectionStack randomFilteredProjections(const Geometry& geometry) {
  ProjectionStack stack(geometry);
#pragma omp parallel for schedule(static)
  for (std::int64_t view = 0; view < stack.viewCount(); ++view) {
    std::mt19937 rng(static_cast<std::uint32_t>(1000 + view));
    std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
    for (float& x : stack.viewPixels(view)) x = uniform(rng);
  }
  return stack;
}

// ---- float64 reference at sampled voxels -------------------------------------------------

struct VoxelSample {
  std::int64_t x = 0, y = 0, z = 0;
};

std::vector<VoxelSample> sampleVoxels(std::int64_t size, int count) {
  std::mt19937_64 rng(static_cast<std::uint64_t>(size) * 7919u);
  std::uniform_int_distribution<std::int64_t> pick(0, size - 1);
  std::vector<VoxelSample> samples{{size / 2, size / 2, size / 2}};
  while (static_cast<int>(samples.size()) < count)
    samples.push_back({pick(rng), pick(rng), pick(rng)});
  return samples;
}

// Bilinear with pixel centres at integer (col, row) and zero outside the detector, weight 1/w^2
// with w = 1 at the isocentre: what fdk.bp.cpu-f64 computes, voxel by voxel.
std::vector<double> referenceAtSamples(const ProjectionStack& filtered, const fdk::VolumeGrid& grid,
                                       const std::vector<VoxelSample>& samples) {
  const std::int64_t cols = filtered.cols(), rows = filtered.rows();
  std::vector<ProjectionMatrix> matrices;
  for (std::int64_t view = 0; view < filtered.viewCount(); ++view)
    matrices.push_back(filtered.geometry().projectionMatrix(view));
  std::vector<double> reference(samples.size(), 0.0);
#pragma omp parallel for schedule(dynamic, 16)
  for (std::size_t i = 0; i < samples.size(); ++i) {
    const Eigen::Vector3d world =
        grid.originMm + grid.voxelSizeMm.cwiseProduct(Eigen::Vector3d(
                            double(samples[i].x), double(samples[i].y), double(samples[i].z)));
    double sum = 0.0;
    for (std::int64_t view = 0; view < filtered.viewCount(); ++view) {
      const Eigen::Vector3d h = matrices[static_cast<std::size_t>(view)] * world.homogeneous();
      const double w = h[2];
      if (!(w > 0)) continue;
      const double col = h[0] / w, row = h[1] / w;
      const double c0 = std::floor(col), r0 = std::floor(row);
      const double tc = col - c0, tr = row - r0;
      auto tap = [&](double c, double r) -> double {
        if (c < 0 || r < 0 || c >= double(cols) || r >= double(rows)) return 0.0;
        return filtered.at(view, static_cast<std::int64_t>(r), static_cast<std::int64_t>(c));
      };
      const double top = tap(c0, r0) + tc * (tap(c0 + 1, r0) - tap(c0, r0));
      const double bottom = tap(c0, r0 + 1) + tc * (tap(c0 + 1, r0 + 1) - tap(c0, r0 + 1));
      sum += (top + tr * (bottom - top)) / (w * w);
    }
    reference[i] = sum;
  }
  return reference;
}

double relativeL2AtSamples(const Volume& volume, const std::vector<VoxelSample>& samples,
                           const std::vector<double>& reference) {
  double difference = 0.0, norm = 0.0;
  for (std::size_t i = 0; i < samples.size(); ++i) {
    const double d = double(volume.at(samples[i].x, samples[i].y, samples[i].z)) - reference[i];
    difference += d * d;
    norm += reference[i] * reference[i];
  }
  return norm > 0 ? std::sqrt(difference / norm) : NAN;
}

// ---- rows ---------------------------------------------------------------------------------

struct KernelRow {
  std::string variant, kernel, note;
  std::int64_t size = 0;
  bool skipped = false;
  double seconds = 0, relativeL2 = NAN;
  std::optional<double> sheppLoganNrmse;
  double speedUp = NAN;
  double uploadSeconds = 0;
};

double updates(std::int64_t size) {
  return double(size) * double(size) * double(size) * double(kViews);
}

struct EndToEndRow {
  std::string variant, kernel, plan;
  std::int64_t size = 0;
  fdk::FdkReport report;  // of the median run
  double hostAllocationSeconds = 0;
  bool inputPinned = false;
};

struct MultiGpuRow {
  std::string variant;
  std::int64_t size = 0;
  double oneGpuSeconds = 0, twoGpuSeconds = 0, maxAbsDifference = 0;
};

// Times one variant's kernels over the random stack; fills seconds, kernel and the sampled
// error, leaving the result in `volume`.
void timeKernel(const ProjectionStack& random, const std::string& variant, int device, int repeats,
                Volume& volume, const std::vector<VoxelSample>& samples,
                const std::vector<double>& reference, KernelRow& row) {
  const auto [name, tunables] = splitVariant(variant);
  const KernelVariant& registered = VariantRegistry::builtins().require(name);
  std::vector<double> times;
  if (!registered.needsGpu) {
    // A CPU row (e.g. --variants cpu): host backprojection, wall clock.
    row.kernel = variant;
    for (int r = 0; r < repeats; ++r) {
      std::fill(volume.voxels().begin(), volume.voxels().end(), 0.0f);
      JobContext context;
      const auto start = Clock::now();
      registered.backproject(random, volume, context);
      times.push_back(secondsSince(start));
    }
  } else {
    const auto uploadStart = Clock::now();
    cuda::DeviceBackprojection harness(random, volume, name, tunables, device);
    row.uploadSeconds = secondsSince(uploadStart);
    row.kernel = harness.kernel();
    harness.run();  // warm-up: first launch, caches, clocks
    for (int r = 0; r < repeats; ++r) times.push_back(harness.run());
    harness.download(volume);
  }
  row.seconds = median(times);
  row.relativeL2 = relativeL2AtSamples(volume, samples, reference);
}

fdk::FdkParams fdkParams(std::int64_t size, const std::string& variant, std::vector<int> devices) {
  fdk::FdkParams params;
  params.volume = cubeGrid(size);
  auto [name, tunables] = splitVariant(variant);
  params.variant = name;
  params.gpu.tunables = std::move(tunables);
  params.gpu.devices = std::move(devices);
  return params;
}

double sheppLoganNrmse(const ProjectionStack& phantomProjections, const Volume& reference,
                       std::int64_t size, const std::string& variant, int device) {
  JobContext context;
  const Volume volume =
      fdk::reconstructFdk(phantomProjections, fdkParams(size, variant, {device}), context);
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

struct Context {
  Options options;
  Geometry geometry;
  std::optional<ProjectionStack> random;
  std::optional<ProjectionStack> phantom;
  json report;
};

std::vector<KernelRow> kernelRowsForSize(Context& ctx, std::int64_t size) {
  const Options& o = ctx.options;
  const fdk::VolumeGrid grid = cubeGrid(size);
  const std::vector<VoxelSample> samples = sampleVoxels(size, o.samples);
  auto start = Clock::now();
  const std::vector<double> reference = referenceAtSamples(*ctx.random, grid, samples);
  progress("L=" + std::to_string(size) + ": float64 reference at " +
           std::to_string(samples.size()) + " voxels in " + fixed(secondsSince(start), 2) + " s");

  // Shepp-Logan: the float64 CPU FDK, once per size, only where asked (it costs minutes at 512).
  std::optional<Volume> sheppLoganReference;
  if (ctx.phantom &&
      std::find(o.phantomSizes.begin(), o.phantomSizes.end(), size) != o.phantomSizes.end()) {
    start = Clock::now();
    JobContext context;
    sheppLoganReference =
        fdk::reconstructFdk(*ctx.phantom, fdkParams(size, "fdk.bp.cpu-f64", {}), context);
    progress("L=" + std::to_string(size) + ": Shepp-Logan fdk.bp.cpu-f64 reference in " +
             fixed(secondsSince(start), 1) + " s");
  }

  Volume volume = emptyVolume(grid);  // one host volume per size, reused by every variant
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
      timeKernel(*ctx.random, row.variant, o.device, o.repeats, volume, samples, reference, row);
      if (sheppLoganReference)
        row.sheppLoganNrmse =
            sheppLoganNrmse(*ctx.phantom, *sheppLoganReference, size, row.variant, o.device);
    } catch (const std::exception& e) {
      row.skipped = true;
      row.note = std::string("failed: ") + e.what();
    }
    if (!row.skipped) {
      if (std::isfinite(previousSeconds)) row.speedUp = previousSeconds / row.seconds;
      previousSeconds = row.seconds;
      if (row.kernel != row.variant) row.note = "ran " + row.kernel;
    }
    progress("L=" + std::to_string(size) + " " + row.variant + ": " +
             (row.skipped ? row.note
                          : fixed(row.seconds * 1e3, 2) + " ms kernel, " +
                                fixed(updates(size) / row.seconds / 1e9, 0) + " GUPS") +
             " (" + fixed(secondsSince(start), 1) + " s with upload and checks)");
    rows.push_back(row);
  }
  return rows;
}

EndToEndRow endToEnd(const Context& ctx, std::int64_t size, const std::string& variant) {
  const Options& o = ctx.options;
  EndToEndRow row;
  row.variant = variant;
  row.size = size;
  row.inputPinned = isPinnedHostBuffer(ctx.phantom->data());
  {
    // What reconstructFdk's total includes before any GPU work: allocating (pinning) and
    // zeroing the host volume.
    const auto start = Clock::now();
    const Volume probe = emptyVolume(cubeGrid(size));
    row.hostAllocationSeconds = secondsSince(start);
  }
  std::vector<fdk::FdkReport> reports;
  for (int r = 0; r <= o.repeats; ++r) {  // run 0 warms up (context, cuFFT plans)
    JobContext context;
    fdk::FdkReport report;
    fdk::reconstructFdk(*ctx.phantom, fdkParams(size, variant, {o.device}), context, &report);
    if (r > 0) reports.push_back(report);
  }
  std::sort(reports.begin(), reports.end(),
            [](const auto& a, const auto& b) { return a.totalSeconds < b.totalSeconds; });
  row.report = reports[reports.size() / 2];
  row.kernel = row.report.kernel;
  row.plan = row.report.plan;
  return row;
}

MultiGpuRow multiGpu(const Context& ctx, std::int64_t size, const std::string& variant) {
  MultiGpuRow row;
  row.variant = variant;
  row.size = size;
  auto run = [&](std::vector<int> devices, double& seconds) {
    std::vector<double> times;
    Volume volume;
    for (int r = 0; r <= ctx.options.repeats; ++r) {
      JobContext context;
      fdk::FdkReport report;
      volume =
          fdk::reconstructFdk(*ctx.phantom, fdkParams(size, variant, devices), context, &report);
      if (r > 0) times.push_back(report.totalSeconds);
    }
    seconds = median(times);
    return volume;
  };
  const Volume one = run({0}, row.oneGpuSeconds);
  const Volume two = run({0, 1}, row.twoGpuSeconds);
  metrics::CompareOptions options;
  options.computeSsim = false;
  row.maxAbsDifference =
      metrics::compareVolumes(two, one, metrics::Region::whole(), options).maxAbsDifference;
  return row;
}

// ---- output ---------------------------------------------------------------------------------

std::string kernelTableHeader() {
  std::ostringstream t;
  t << "| Configuration | Volume | Total (s) | Mean (ms) | GUPS (1e9) | GUPS (2^30) | "
       "rel. L2 err, random | NRMSE, Shepp-Logan | Speed-Up |\n"
    << "|---|---|---:|---:|---:|---:|---:|---:|---:|\n";
  return t.str();
}

std::string kernelTableRows(const std::vector<KernelRow>& rows) {
  std::ostringstream t;
  for (const KernelRow& r : rows) {
    t << "| " << r.variant << (r.note.empty() || r.skipped ? "" : " (" + r.note + ")") << " | "
      << r.size << "³ | ";
    if (r.skipped) {
      t << r.note << " | | | | | | |\n";
      continue;
    }
    const double u = updates(r.size);
    t << fixed(r.seconds, 4) << " | " << fixed(r.seconds / double(kViews) * 1e3, 3) << " | "
      << fixed(u / r.seconds / 1e9, 1) << " | " << fixed(u / r.seconds / double(1u << 30), 1)
      << " | " << scientific(r.relativeL2) << " | "
      << (r.sheppLoganNrmse ? scientific(*r.sheppLoganNrmse) : "–") << " | "
      << (std::isfinite(r.speedUp) ? fixed(r.speedUp, 2) : "N/A") << " |\n";
  }
  return t.str();
}

std::string bandwidth(double bytes, double seconds) {
  return seconds > 0 ? fixed(bytes / seconds / 1e9, 1) : "–";
}

std::string endToEndTable(const std::vector<EndToEndRow>& rows) {
  std::ostringstream t;
  t << "| Variant (kernel) | Volume | Total (s) | Filter (s) | Backproject (s) | Upload (s, GB/s) "
       "| "
       "Download (s, GB/s) | GUPS end to end (1e9) | GUPS backprojection | Host volume alloc (s) "
       "|\n"
    << "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|\n";
  for (const EndToEndRow& r : rows) {
    const fdk::FdkReport& p = r.report;
    t << "| " << r.variant << (r.kernel == r.variant ? "" : " (" + r.kernel + ")") << " | "
      << r.size << "³ | " << fixed(p.totalSeconds, 3) << " | " << fixed(p.filterSeconds, 3) << " | "
      << fixed(p.backprojectSeconds, 3) << " | " << fixed(p.uploadSeconds, 3) << ", "
      << bandwidth(p.uploadBytes, p.uploadSeconds) << " | " << fixed(p.downloadSeconds, 3) << ", "
      << bandwidth(p.downloadBytes, p.downloadSeconds) << " | "
      << fixed(updates(r.size) / p.totalSeconds / 1e9, 1) << " | " << fixed(p.backprojectGups(), 1)
      << " | " << fixed(r.hostAllocationSeconds, 3) << " |\n";
  }
  return t.str();
}

std::string multiGpuTable(const std::vector<MultiGpuRow>& rows) {
  std::ostringstream t;
  t << "| Variant | Volume | 1 GPU (s) | 2 GPUs (s) | Speed-Up | max abs difference |\n"
    << "|---|---|---:|---:|---:|---:|\n";
  for (const MultiGpuRow& r : rows)
    t << "| " << r.variant << " | " << r.size << "³ | " << fixed(r.oneGpuSeconds, 3) << " | "
      << fixed(r.twoGpuSeconds, 3) << " | " << fixed(r.oneGpuSeconds / r.twoGpuSeconds, 2) << " | "
      << scientific(r.maxAbsDifference) << " |\n";
  return t.str();
}

json toJson(const KernelRow& r) {
  json j{{"variant", r.variant}, {"kernel", r.kernel}, {"size", r.size}, {"skipped", r.skipped}};
  if (!r.note.empty()) j["note"] = r.note;
  if (r.skipped) return j;
  const double u = updates(r.size);
  j["seconds"] = r.seconds;
  j["meanMsPerView"] = r.seconds / double(kViews) * 1e3;
  j["gups1e9"] = u / r.seconds / 1e9;
  j["gups2pow30"] = u / r.seconds / double(1u << 30);
  j["relativeL2Random"] = r.relativeL2;
  j["uploadSeconds"] = r.uploadSeconds;
  if (r.sheppLoganNrmse) j["nrmseSheppLogan"] = *r.sheppLoganNrmse;
  if (std::isfinite(r.speedUp)) j["speedUpOverPrevious"] = r.speedUp;
  return j;
}

json toJson(const EndToEndRow& r) {
  const fdk::FdkReport& p = r.report;
  return {{"variant", r.variant},
          {"kernel", r.kernel},
          {"size", r.size},
          {"plan", r.plan},
          {"device", p.device},
          {"totalSeconds", p.totalSeconds},
          {"filterSeconds", p.filterSeconds},
          {"backprojectSeconds", p.backprojectSeconds},
          {"uploadSeconds", p.uploadSeconds},
          {"uploadBytes", p.uploadBytes},
          {"downloadSeconds", p.downloadSeconds},
          {"downloadBytes", p.downloadBytes},
          {"gupsEndToEnd", updates(r.size) / p.totalSeconds / 1e9},
          {"gupsBackprojection", p.backprojectGups()},
          {"hostVolumeAllocationSeconds", r.hostAllocationSeconds},
          {"inputPinned", r.inputPinned}};
}

// ---- RabbitCT --------------------------------------------------------------------------------

std::string rabbitCtSection(const Options& o) {
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
    << ". RabbitCT's MSE (HU^2) is not reported: "
    << "recon/io/RabbitCtReader reads the projections only, not RabbitCT's reference volumes.\n\n"
    << "| Variant | Volume | Total (s) | Mean (ms) | GUPS (1e9) | GUPS (2^30) |\n"
    << "|---|---|---:|---:|---:|---:|\n";
  for (const std::int64_t size : o.sizes) {
    // RabbitCT's volume: R_L = 256 mm / L, origin -R_L (L - 1) / 2: our centred cube.
    Volume volume = emptyVolume(cubeGrid(size));
    for (const std::string& name : {std::string("fdk.bp.fast")}) {
      try {
        cuda::DeviceBackprojection harness(data.projections, volume, name, {}, o.device);
        harness.run();
        std::vector<double> times;
        for (int r = 0; r < o.repeats; ++r) times.push_back(harness.run());
        const double s = median(times);
        const double u = double(size) * double(size) * double(size) * double(views);
        t << "| " << name << " | " << size << "³ | " << fixed(s, 4) << " | "
          << fixed(s / double(views) * 1e3, 3) << " | " << fixed(u / s / 1e9, 1) << " | "
          << fixed(u / s / double(1u << 30), 1) << " |\n";
      } catch (const std::exception& e) {
        t << "| " << name << " | " << size << "³ | failed: " << e.what() << " | | | |\n";
      }
    }
  }
  return t.str();
}

void kernelSection(Context& ctx, ReportWriter& writer) {
  const Options& o = ctx.options;
  const auto start = Clock::now();
  ctx.random = randomFilteredProjections(ctx.geometry);
  progress("random projections (" + formatBytes(ctx.random->pixelCount() * 4) +
           ", pinned: " + (isPinnedHostBuffer(ctx.random->data()) ? "yes" : "no") + ") in " +
           fixed(secondsSince(start), 1) + " s");
  writer.add(
      "\n### Kernel only: filtered projections on the GPU, CUDA-event time\n\n"
      "rel. L2 err, random: zero-mean uniform [-1, 1) projections, " +
      std::to_string(o.samples) +
      " voxels against a float64 reference. NRMSE, Shepp-Logan: the whole FDK (GPU "
      "filtering included) of the modified Shepp-Logan against fdk.bp.cpu-f64, over the "
      "reference's range. Speed-Up: over the previous row that ran.\n\n" +
      kernelTableHeader());
  for (const std::int64_t size : o.sizes) {
    const std::vector<KernelRow> rows = kernelRowsForSize(ctx, size);
    for (const KernelRow& r : rows) ctx.report["kernel"].push_back(toJson(r));
    writer.add(kernelTableRows(rows));
    writer.save(ctx.report);
  }
  ctx.random.reset();  // 2.4 GB back before the end-to-end runs
}

void endToEndSection(Context& ctx, ReportWriter& writer) {
  const Options& o = ctx.options;
  std::ostringstream md;
  md << "\n### End to end: host projections (pinned: "
     << (isPinnedHostBuffer(ctx.phantom->data()) ? "yes" : "no")
     << ") -> weighting, ramp filter, backprojection -> host volume (reconstructFdk)\n\n"
     << "Total is reconstructFdk's totalSeconds, which includes allocating the host volume; the "
        "last column times that allocation (pinning and zeroing) alone.\n\n";
  std::vector<EndToEndRow> rows;
  std::ostringstream failures;
  for (const std::int64_t size : o.sizes) {
    for (const std::string& name : o.endToEndVariants) {
      try {
        rows.push_back(endToEnd(ctx, size, fullName(name)));
        const EndToEndRow& r = rows.back();
        progress("end to end L=" + std::to_string(size) + " " + r.variant + ": " +
                 fixed(r.report.totalSeconds, 3) + " s");
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
  md << "\n### One GPU against two (end to end, " << variant << ")\n\n";
  std::vector<MultiGpuRow> rows;
  std::ostringstream failures;
  for (const std::int64_t size : o.sizes) {
    try {
      rows.push_back(multiGpu(ctx, size, variant));
      const MultiGpuRow& r = rows.back();
      progress("multi-GPU L=" + std::to_string(size) + ": " + fixed(r.oneGpuSeconds, 3) + " s -> " +
               fixed(r.twoGpuSeconds, 3) + " s");
      ctx.report["multiGpu"].push_back({{"variant", r.variant},
                                        {"size", r.size},
                                        {"oneGpuSeconds", r.oneGpuSeconds},
                                        {"twoGpuSeconds", r.twoGpuSeconds},
                                        {"maxAbsDifference", r.maxAbsDifference}});
      writer.save(ctx.report);
    } catch (const std::exception& e) {
      failures << "- " << size << "³ failed: " << e.what() << "\n";
    }
  }
  md << multiGpuTable(rows) << failures.str();
  writer.add(md.str());
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"GPU FDK benchmark, seed 000's Table I layout (RabbitCT-like geometry)"};
  Context ctx;
  Options& o = ctx.options;
  app.add_option("--sizes", o.sizes, "cubic volume edges L")->capture_default_str();
  app.add_option("--variants", o.variants, "kernel variants, table order (fdk.bp. optional)")
      ->capture_default_str();
  app.add_option("--e2e-variants", o.endToEndVariants, "variants for the end-to-end rows")
      ->capture_default_str();
  app.add_option("--phantom-sizes", o.phantomSizes,
                 "sizes with the Shepp-Logan NRMSE against fdk.bp.cpu-f64 (CPU cost: seconds at "
                 "256, minutes at 512)")
      ->capture_default_str();
  app.add_option("--slow-variants", o.slowVariants, "variants skipped above --slow-max-size")
      ->capture_default_str();
  app.add_option("--slow-max-size", o.slowMaxSize, "largest L at which slow variants run")
      ->capture_default_str();
  app.add_option("--repeats", o.repeats, "timed runs per case (the median is reported)")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  app.add_option("--samples", o.samples, "voxels sampled for the random-data error")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  app.add_option("--device", o.device, "CUDA device for the single-GPU rows")
      ->capture_default_str();
  app.add_flag("!--no-multi-gpu", o.multiGpu, "skip the one- versus two-GPU rows");
  app.add_flag("--kernel-only", o.kernelOnly,
               "only the kernel rows, without the Shepp-Logan error (quick; for profilers)");
  app.add_option("--out", o.out, "append the Markdown report to this file");
  app.add_option("--json", o.jsonPath, "write the figures as JSON");
  app.add_option("--rabbitct", o.rabbitct, "a RabbitCT projection file to time as well");
  CLI11_PARSE(app, argc, argv);

  const auto benchStart = Clock::now();
  const std::vector<cuda::GpuDevice> devices = cuda::listGpuDevices();
  std::ostringstream md;
  std::string command;
  for (int i = 0; i < argc; ++i) command += (i ? " " : "") + std::string(argv[i]);
  const std::string deviceName = o.device >= 0 && o.device < static_cast<int>(devices.size())
                                     ? devices[static_cast<std::size_t>(o.device)].name
                                     : "no CUDA device (" + cuda::gpuStatus() + ")";
  md << "\n## " << today() << ": GPU FDK, seed 000 Table I layout\n\n"
     << "Device: " << deviceName << " (" << devices.size() << " visible GPU"
     << (devices.size() == 1 ? "" : "s") << "), host " << omp_get_num_procs() << " CPUs.\n"
     << "Command: `" << command << "`\n\n"
     << "Geometry: " << kViews << " views over 360°, flat detector 1248 x 960 of 0.6 mm, "
     << "source-isocentre 750 mm, source-detector 1250 mm, 256 mm cube at the isocentre "
     << "(voxel 256/L mm). GUPS = L³·" << kViews << " / time. Median of " << o.repeats
     << " runs after a warm-up.\n";
  ReportWriter writer(o);
  writer.add(md.str());
  ctx.report = {{"date", today()},    {"device", deviceName}, {"gpuCount", devices.size()},
                {"command", command}, {"views", kViews},      {"repeats", o.repeats}};
  if (devices.empty()) {
    writer.add("\nNo CUDA device: nothing to measure.\n");
  } else {
    ctx.geometry = rabbitLikeGeometry();
    if (!o.kernelOnly) {
      const auto start = Clock::now();
      ctx.phantom =
          phantom::projectPhantom(phantom::modifiedSheppLogan3d(kPhantomScaleMm), ctx.geometry);
      progress("Shepp-Logan projections (pinned: " +
               std::string(isPinnedHostBuffer(ctx.phantom->data()) ? "yes" : "no") + ") in " +
               fixed(secondsSince(start), 1) + " s");
    }
    kernelSection(ctx, writer);
    if (!o.kernelOnly) {
      endToEndSection(ctx, writer);
      multiGpuSection(ctx, devices.size(), writer);
    }
    ctx.phantom.reset();
    if (!o.rabbitct.empty()) writer.add(rabbitCtSection(o));
  }
  writer.add("\nBenchmark wall time: " + fixed(secondsSince(benchStart), 1) + " s.\n");
  ctx.report["wallSeconds"] = secondsSince(benchStart);
  writer.save(ctx.report);
  return 0;
}
