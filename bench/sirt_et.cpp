// GPU SIRT benchmark of issue #7 in the layout of seed 004's Tables 1-3 (reference/sirt-et.md
// sections 5 and 9), with the honesty rules of DESIGN.md "Measuring" (issue #17 point 6):
//  Table 1: forward projection alone, per slice, 2048^2 slices from 180 views over 180 degrees:
//           the seed's four thread-block orderings (a)-(d), as implemented here, and our fastest
//           kernel with float32 and with its default (half2) texels.
//  Table 2: one SIRT iteration and one OS-SIRT-5 sweep per slice, --sizes at 180 and 360 views,
//           on --slices-slice stacks and (unless --no-filled-stacks) on stacks of ASTRA's "8 GB"
//           sizes.
//  Table 3: the ET-shaped slices (356 x 148, 712 x 296, 1424 x 591 from 61 views over 120
//           degrees).
//  Big:     a full SIRT iteration of a 2048 (x) x 512 (thickness) x 2048 (slices) tomogram from
//           121 views over 120 degrees.
// Every measured figure is the min / median / max of --repeats (>= 5) timed runs after a warm-up,
// with the fraction of the sampling ceiling of the kernels' texel formats
// (reference/gpu-limits-h100.md Table 1). Kernel-only figures come from cuda::IterativeBenchmark
// (problem resident on the GPU, CUDA events; each run is the mean over enough iterations for
// ~50 ms); end-to-end ones from cuda::reconstructIterativeGpu as the seed timed: (t(high it) -
// t(low it)) / (high - low), everything in the loop included (upload, weights and download cancel
// out). G updates/s = 2 x pixels x views / time per iteration (1 x for a projection alone).
// The figures of the seed's GPUs ([S4]) and of ASTRA on the H100 (reference/sirt-et.md section 9)
// are printed only in tables headed "cited", with source, date and device, never beside or
// divided by this run's figures. The inputs are random (uniform [0, 1) volume and projections).
#include <omp.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <numbers>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "bench/BenchSupport.h"
#include "recon/catalog/Builtins.h"
#include "recon/core/Error.h"
#include "recon/device/GpuDevices.h"
#include "recon/geometry/ScanBuilders.h"
#include "recon/iterative/IterativeReconstruction.h"
#include "recon/iterative/cuda/FusedSirt.h"
#include "recon/projector/cuda/GpuEt.h"
#include "recon/variant/VariantRegistry.h"

namespace {

using namespace tomowb;
using bench::fixed;
using bench::RunStats;
using Clock = std::chrono::steady_clock;
using Tunables = std::map<std::string, std::string>;
constexpr double kDeg = std::numbers::pi / 180.0;
constexpr int kErrorViews = 6;  // views of Table 1's error against et.fp.cpu

struct Options {
  std::vector<std::string> tables{"1", "2", "3", "big"};
  int slices = 10;
  bool filledStacks = true;
  bool endToEnd = true;
  std::vector<int> endToEndIterations{10, 50};
  std::vector<std::int64_t> sizes{512, 1024, 2048, 4096};
  std::string fp = "et.fp.fast", bp = "et.bp.fast";
  Tunables tunables;
  int device = 0;
  int repeats = bench::kMinTimedRuns;
  int multiprocessors = 0;
  std::string out;
};

// Markdown goes to stdout and, as each part ends, to --out (a time-out keeps what was measured).
class Report {
 public:
  explicit Report(std::string path) : path_(std::move(path)) {}
  void add(const std::string& text) {
    std::cout << text << std::flush;
    if (path_.empty()) return;
    std::ofstream f(path_, std::ios::app);
    f << text;
  }

 private:
  std::string path_;
};

// A uniform [0, 1) value per index (a hash: parallel and repeatable).
float noise(std::uint64_t i, std::uint64_t salt) {
  std::uint64_t z = i * 0x9E3779B97F4A7C15ull + salt;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return float(z >> 40) * (1.0f / 16777216.0f);
}

void fillNoise(std::span<float> data, std::uint64_t salt) {
  const auto n = static_cast<std::int64_t>(data.size());
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < n; ++i) data[std::size_t(i)] = noise(std::uint64_t(i), salt);
}

// A tilt series of `views` views evenly over `rangeDeg` (both ends for ET ranges; the seed's
// 180-degree sets at 1 and 0.5 degree steps leave out the repeated end), cols = slice width,
// rows = slices; the tomogram grid of `thickness` is then aligned row for slice.
struct Case {
  std::int64_t width = 0, thickness = 0, views = 0, slices = 0;
  double rangeDeg = 180;
  std::string label() const {
    return std::to_string(width) + (width == thickness ? "²" : " x " + std::to_string(thickness)) +
           ", " + std::to_string(views);
  }
};

struct Problem {
  ProjectionStack projections;
  iterative::IterativeParams params;
  Volume start;
};

Problem makeProblem(const Case& c, const Options& o, iterative::IterativeMethod method) {
  TiltSeriesParams p;
  p.cols = c.width;
  p.rows = c.slices;
  p.pixelSizeMm = 1.0;
  if (c.rangeDeg >= 180) {
    const double step = 180.0 / double(c.views);
    for (std::int64_t k = 0; k < c.views; ++k) p.tiltAnglesRad.push_back((-90 + step * k) * kDeg);
  } else {
    p.tiltAnglesRad = arcAnglesRad(c.views, c.rangeDeg * kDeg, -0.5 * c.rangeDeg * kDeg);
  }
  Problem out;
  out.projections = ProjectionStack(tiltSeries(p));
  fillNoise(out.projections.pixels(), 17);
  out.params.volume = iterative::tomogramGrid(out.projections.geometry(), c.thickness);
  out.params.method = method;
  out.params.subsets = 5;
  out.params.forwardVariant = o.fp;
  out.params.backVariant = o.bp;
  out.params.gpu.tunables = o.tunables;
  out.params.gpu.devices = {o.device};
  out.start =
      Volume(out.params.volume.shape, out.params.volume.voxelSizeMm, out.params.volume.originMm);
  fillNoise(out.start.voxels(), 5);
  return out;
}

// `measure(n)` returns the mean seconds of n repetitions; one warm-up call, then `repeats` calls
// of n, n chosen for ~50 ms a call (at least 1, at most 20): the min / median / max of the means.
RunStats timeRepeated(const std::function<double(int)>& measure, int repeats) {
  const double warm = measure(1);
  const int n = std::clamp(int(std::ceil(0.05 / std::max(warm, 1e-6))), 1, 20);
  std::vector<double> means;
  for (int r = 0; r < repeats; ++r) means.push_back(measure(n));
  return bench::summarize(means);
}

struct Timing {
  RunStats iteration, forward, back;  // seconds, kernel only
  std::string summary;
};

Timing kernelTiming(const Problem& pr, bool projectors, int repeats) {
  cuda::IterativeBenchmark bench(pr.projections, pr.params, pr.start, pr.params.gpu.devices[0]);
  Timing t;
  t.summary = bench.summary();
  t.iteration = timeRepeated([&](int n) { return bench.iterationSeconds(n); }, repeats);
  if (projectors) {
    t.forward = timeRepeated([&](int n) { return bench.forwardSeconds(n); }, repeats);
    t.back = timeRepeated([&](int n) { return bench.backprojectSeconds(n); }, repeats);
  }
  return t;
}

// End to end as the seed timed it: (t(high it) - t(low it)) / (high - low) of the whole GPU SIRT
// call, `repeats` such pairs after one warm-up call.
RunStats endToEndTiming(const Problem& pr, int low, int high, int repeats) {
  const auto run = [&](int iterations) {
    iterative::IterativeParams p = pr.params;
    p.iterations = iterations;
    Volume x = pr.start;
    JobContext context;
    iterative::IterativeReport report;
    const auto started = Clock::now();
    cuda::reconstructIterativeGpu(pr.projections, p, x, context, report);
    return std::chrono::duration<double>(Clock::now() - started).count();
  };
  run(low);  // warm-up
  std::vector<double> perIteration;
  for (int r = 0; r < repeats; ++r) {
    const double a = run(low), b = run(high);
    perIteration.push_back((b - a) / double(high - low));
  }
  return bench::summarize(perIteration);
}

double gups(double pixels, double views, double seconds, double factor = 2.0) {
  return seconds > 0 ? factor * pixels * views / seconds / 1e9 : 0.0;
}

// The forward and back labels of IterativeBenchmark::summary ("FP label + BP label, path, ...").
std::pair<std::string, std::string> kernelLabels(const std::string& summary) {
  const std::size_t plus = summary.find(" + ");
  if (plus == std::string::npos) return {summary, ""};
  std::string back = summary.substr(plus + 3);
  // The back label ends where the path begins (", " outside brackets).
  int depth = 0;
  for (std::size_t i = 0; i < back.size(); ++i) {
    if (back[i] == '(') ++depth;
    if (back[i] == ')') --depth;
    if (depth == 0 && back[i] == ',') {
      back.resize(i);
      break;
    }
  }
  return {summary.substr(0, plus), back};
}

// Time floor of `updates` samples through the kernel's ceiling (NaN without one).
double floorSeconds(const std::string& label, double updates, int multiprocessors) {
  const auto c = bench::etProjectorCeiling(label);
  if (!c) return NAN;
  return updates / (bench::scaledToDevice(c->gSamplesPerSecond, multiprocessors) * 1e9);
}

std::string percent(double floor, double seconds) {
  // floor / seconds is the rate over the ceiling.
  return std::isfinite(floor) && seconds > 0 ? bench::fractionOfCeiling(floor, seconds) : "n/a";
}

std::string texelsOf(const std::string& label) {
  const auto c = bench::etProjectorCeiling(label);
  return c ? c->texel : "software interpolation (float32)";
}

// ---- Table 1 -----------------------------------------------------------------------------------

// The forward projectors' error against et.fp.cpu (float64 sums, the family's reference) on a
// few views, for a positive volume (uniform [0, 1)) and a zero-mean one (uniform [-1, 1)); the
// references are computed once.
struct ForwardReference {
  std::vector<std::int64_t> views;
  Volume positive, zeroMean;
  ProjectionStack positiveReference, zeroMeanReference;
};

ForwardReference forwardReference(const Problem& pr, int viewCount) {
  ForwardReference r;
  const std::int64_t views = pr.projections.viewCount();
  for (int k = 0; k < viewCount; ++k) r.views.push_back(views * k / viewCount);
  r.positive = pr.start;
  r.zeroMean = pr.start;
  for (float& x : r.zeroMean.voxels()) x = 2.0f * x - 1.0f;
  const KernelVariant& cpu = VariantRegistry::builtins().require("et.fp.cpu");
  JobContext context;
  r.positiveReference = ProjectionStack(pr.projections.geometry());
  r.zeroMeanReference = ProjectionStack(pr.projections.geometry());
  cpu.forwardProject(r.positive, r.positiveReference, r.views, context);
  cpu.forwardProject(r.zeroMean, r.zeroMeanReference, r.views, context);
  return r;
}

double relativeL2OnViews(const ProjectionStack& a, const ProjectionStack& reference,
                         const std::vector<std::int64_t>& views) {
  double difference = 0, norm = 0;
  for (const std::int64_t v : views) {
    const auto x = a.viewPixels(v), y = reference.viewPixels(v);
    for (std::size_t i = 0; i < x.size(); ++i) {
      const double d = double(x[i]) - double(y[i]);
      difference += d * d;
      norm += double(y[i]) * double(y[i]);
    }
  }
  return norm > 0 ? std::sqrt(difference / norm) : NAN;
}

// {positive, zero-mean} relative L2 errors of `variant` with `tunables`.
std::pair<double, double> forwardErrors(const ForwardReference& r, const std::string& variant,
                                        const Tunables& tunables) {
  JobContext context;
  ProjectionStack out(r.positiveReference.geometry());
  cuda::forwardProjectOnGpu(variant, tunables, r.positive, out, r.views, context);
  const double positive = relativeL2OnViews(out, r.positiveReference, r.views);
  cuda::forwardProjectOnGpu(variant, tunables, r.zeroMean, out, r.views, context);
  return {positive, relativeL2OnViews(out, r.zeroMeanReference, r.views)};
}

void table1(const Options& o, Report& report) {
  struct Row {
    std::string variant, label;
    Tunables tunables;
  };
  const std::vector<Row> rows = {
      {"et.fp.unordered", "(a) unordered", {}},
      {"et.fp.strips", "(b) ray strips", {}},
      {"et.fp.strips-angles", "(c) strips x consecutive angles", {}},
      {"et.fp.segments", "(d) strip segments (8 per ray)", {}},
      {"et.fp.fast", "ours: et.fp.fast, float32 data (float2 texels)", {{"fp-texel", "float2"}}},
      {"et.fp.fast", "ours: et.fp.fast (default texels)", {}},
  };
  Case c{2048, 2048, 180, o.slices, 180};
  const double updates = double(c.width * c.thickness * c.slices) * double(c.views);
  std::ostringstream md;
  md << "\n### Table 1: forward projection alone, 2048² slices, 180 views over 180°, " << c.slices
     << "-slice stack (ms per slice)\n\n"
     << "Kernel only (CUDA events; texture packing of the volume included). Orderings (a)-(d) "
        "are the seed's schemes as implemented here, measured in this run. Time: min / median / "
        "max of "
     << o.repeats
     << " runs after a warm-up; G updates/s = pixels x views / median. Ceiling: the sampling "
        "rate of the kernel's texel format (reference/gpu-limits-h100.md Table 1, one sample per "
        "update). rel. L2 err: the projections of "
     << kErrorViews
     << " of the views against et.fp.cpu (float64 sums), for a positive volume (uniform [0, 1), "
        "the timed one) and a zero-mean one (uniform [-1, 1)).\n\n"
     << "| ordering | variant as run | texels | runs | ms per slice min / median / max | G "
        "updates/s | fraction of ceiling | speed-up over (a) | rel. L2 err, positive | rel. L2 "
        "err, zero-mean |\n"
        "|---|---|---|---:|---|---:|---:|---:|---:|---:|\n";
  report.add(md.str());
  std::optional<ForwardReference> reference;
  try {
    const auto started = Clock::now();
    reference = forwardReference(makeProblem(c, o, iterative::IterativeMethod::Sirt), kErrorViews);
    std::cerr << "Table 1: et.fp.cpu reference on " << kErrorViews << " views in "
              << fixed(std::chrono::duration<double>(Clock::now() - started).count(), 1) << " s\n";
  } catch (const std::exception& e) {
    report.add("(no error columns: the CPU reference failed: " + std::string(e.what()) + ")\n");
  }
  double first = 0;
  for (const Row& r : rows) {
    Options one = o;
    one.fp = r.variant;
    for (const auto& [k, v] : r.tunables) one.tunables[k] = v;
    Problem pr = makeProblem(c, one, iterative::IterativeMethod::Sirt);
    std::ostringstream line;
    try {
      cuda::IterativeBenchmark bench(pr.projections, pr.params, pr.start, o.device);
      const RunStats t = timeRepeated([&](int n) { return bench.forwardSeconds(n); }, o.repeats);
      const double perSlice = t.median / double(c.slices) * 1e3;
      if (first == 0) first = perSlice;
      const std::string fpLabel = kernelLabels(bench.summary()).first;
      line << "| " << r.label << " | " << fpLabel << " | " << texelsOf(fpLabel) << " | " << t.runs
           << " | " << bench::minMedianMax(t, 1e3 / double(c.slices), 3) << " | "
           << fixed(gups(double(c.width * c.thickness * c.slices), double(c.views), t.median, 1.0),
                    0)
           << " | " << percent(floorSeconds(fpLabel, updates, o.multiprocessors), t.median) << " | "
           << fixed(first / perSlice, 1) << "x | ";
      if (reference) {
        const auto [positive, zeroMean] = forwardErrors(*reference, r.variant, one.tunables);
        line << bench::scientific(positive) << " | " << bench::scientific(zeroMean) << " |\n";
      } else {
        line << "– | – |\n";
      }
    } catch (const std::exception& e) {
      line << "| " << r.label << " | " << r.variant << " | | | failed: " << e.what()
           << " | | | | | |\n";
    }
    report.add(line.str());
  }
  const std::string s4 =
      "[S4] Table 1 (Palenstijn, Batenburg, Sijbers, J. Struct. Biol. 2011; reference/sirt-et.md)";
  report.add(bench::citedTable(
      "Table 1's other GPUs and ASTRA (ms per slice, 2048², 180 views)",
      {{"(a) unordered", "507.103 / 278.622", s4, "2011", "GTX 280 / GTX 480"},
       {"(b) ray strips", "154.976 / 85.068", s4, "2011", "GTX 280 / GTX 480"},
       {"(c) strips x consecutive angles", "77.863 / 34.340", s4, "2011", "GTX 280 / GTX 480"},
       {"(d) strip segments", "25.326 / 27.883", s4, "2011", "GTX 280 / GTX 480"},
       {"ASTRA 2.x, 2-D par_fp, forward projection alone", "1.64",
        "reference/sirt-et.md section 9 (ASTRA built from its sources, 2026-08 commit)",
        "2026-11-23", "NVIDIA H100 80GB HBM3 (an earlier device call)"}}));
}

// ---- Table 2 / 3 -------------------------------------------------------------------------------

struct AstraRow {
  double twoD, threeD, stack;
  std::int64_t stackSlices;
};

// ASTRA's figures on the H100 (reference/sirt-et.md section 9), cited, and the stack sizes its
// "8 GB" runs used, which the filled stacks below reproduce.
std::optional<AstraRow> astra(std::int64_t width, std::int64_t thickness, std::int64_t views) {
  const std::map<std::pair<std::int64_t, std::int64_t>, AstraRow> table = {
      {{512, 180}, {0.622, 0.345, 0.255, 1411}}, {{512, 360}, {0.738, 0.586, 0.468, 1120}},
      {{1024, 180}, {1.086, 1.148, 0.913, 405}}, {{1024, 360}, {1.413, 2.070, 1.743, 352}},
      {{2048, 180}, {2.48, 3.985, 3.467, 109}},  {{2048, 360}, {3.963, 7.303, 6.531, 101}},
      {{4096, 180}, {9.180, 14.71, 13.87, 28}},  {{4096, 360}, {16.58, 27.67, 26.59, 27}},
      {{1424, 61}, {0.829, 0.747, 0.340, 538}},
  };
  if (width != thickness && width != 1424) return std::nullopt;
  const auto it = table.find({width, views});
  if (it == table.end()) return std::nullopt;
  return it->second;
}

struct SeedRow {
  double sirt280, os280, sirt480, os480;
};

std::optional<SeedRow> seedTable2(std::int64_t width, std::int64_t views) {
  const std::map<std::pair<std::int64_t, std::int64_t>, SeedRow> table = {
      {{512, 180}, {3.8, 9.7, 3.5, 7.6}},          {{512, 360}, {6.8, 11.9, 6.4, 10.2}},
      {{1024, 180}, {12.4, 30.0, 12.9, 22.4}},     {{1024, 360}, {22.9, 36.0, 23.8, 34.2}},
      {{2048, 180}, {45.1, 110.9, 48.0, 73.7}},    {{2048, 360}, {84.8, 124.7, 91.0, 118.5}},
      {{4096, 180}, {171.5, 416.9, 184.1, 263.5}}, {{4096, 360}, {326.5, 459.6, 354.0, 438.9}},
  };
  const auto it = table.find({width, views});
  if (it == table.end()) return std::nullopt;
  return it->second;
}

const char* kAstraSource =
    "reference/sirt-et.md section 9 (ASTRA built from its sources, 2026-08 commit; ms per slice "
    "per iteration, mean of 10, first excluded)";
const char* kAstraDevice = "NVIDIA H100 80GB HBM3 (an earlier device call)";

std::vector<bench::CitedFigure> astraCited(const Case& c) {
  const std::optional<AstraRow> a = astra(c.width, c.thickness, c.views);
  if (!a) return {};
  const std::string what = c.label() + ": SIRT iteration, ms per slice, ASTRA ";
  return {{what + "2-D (10 slices)", fixed(a->twoD, 3), kAstraSource, "2026-11-23", kAstraDevice},
          {what + "3-D (10 slices)", fixed(a->threeD, 3), kAstraSource, "2026-11-23", kAstraDevice},
          {what + "3-D, 8 GB stack (" + std::to_string(a->stackSlices) + " slices)",
           fixed(a->stack, 3), kAstraSource, "2026-11-23", kAstraDevice}};
}

std::string sirtHeader() {
  return "| slice, views | slices | runs | FP min / median / max | BP min / median / max | SIRT "
         "min / median / max | G upd/s | fraction of ceiling | OS5 sweep min / median / max | "
         "OS5 / SIRT | e2e SIRT min / median / max | FP err positive / zero-mean | BP err "
         "positive / zero-mean |\n"
         "|---|---:|---:|---|---|---|---:|---:|---|---:|---|---|---|\n";
}

// The backprojector's CPU reference: the exact transpose for a matched one, else the voxel-driven
// CPU backprojector (float64 sums), as the QA sweep pairs them.
std::string backReference(const std::string& bp) {
  return VariantRegistry::builtins().require(bp).adjointOf.empty() ? "et.bp.cpu-voxel"
                                                                   : "et.bp.cpu-matched";
}

double relativeL2(const Volume& a, const Volume& reference) {
  double difference = 0, norm = 0;
  const auto x = a.voxels(), y = reference.voxels();
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double d = double(x[i]) - double(y[i]);
    difference += d * d;
    norm += double(y[i]) * double(y[i]);
  }
  return norm > 0 ? std::sqrt(difference / norm) : NAN;
}

// "positive / zero-mean" relative L2 errors of the pair's forward projector against et.fp.cpu
// and of its backprojector against backReference(), on kErrorViews views: the projector of the
// problem's positive volume (uniform [0, 1)) and of 2x - 1; the backprojection of its positive
// projections and of 2p - 1.
std::pair<std::string, std::string> pairErrors(const Problem& pr, const Options& o) {
  const ForwardReference f = forwardReference(pr, kErrorViews);
  const auto [fpPositive, fpZeroMean] = forwardErrors(f, o.fp, o.tunables);
  const KernelVariant& cpu = VariantRegistry::builtins().require(backReference(o.bp));
  ProjectionStack zeroMean = pr.projections;
  for (float& p : zeroMean.pixels()) p = 2.0f * p - 1.0f;
  double bp[2] = {NAN, NAN};
  int k = 0;
  const ProjectionStack* inputs[2] = {&pr.projections, &zeroMean};
  for (const ProjectionStack* projections : inputs) {
    JobContext context;
    Volume reference(pr.start.shape(), pr.start.voxelSizeMm(), pr.start.originMm());
    Volume gpu = reference;
    cpu.backprojectViews(*projections, reference, f.views, context);
    cuda::backprojectOnGpu(o.bp, o.tunables, *projections, gpu, f.views, context);
    bp[k++] = relativeL2(gpu, reference);
  }
  return {bench::scientific(fpPositive) + " / " + bench::scientific(fpZeroMean),
          bench::scientific(bp[0]) + " / " + bench::scientific(bp[1])};
}

// One row: SIRT and OS-SIRT-5 per slice at `slices`, kernel only (and SIRT end to end).
void sirtRow(const Options& o, Case c, Report& report, std::string& kernels) {
  std::ostringstream line;
  const double pixels = double(c.width * c.thickness);
  try {
    Problem sirt = makeProblem(c, o, iterative::IterativeMethod::Sirt);
    const Timing t = kernelTiming(sirt, true, o.repeats);
    sirt.params.method = iterative::IterativeMethod::OsSirt;
    const Timing os = kernelTiming(sirt, false, o.repeats);
    sirt.params.method = iterative::IterativeMethod::Sirt;
    std::optional<RunStats> e2e;
    if (o.endToEnd && c.slices <= 64)
      e2e = endToEndTiming(sirt, o.endToEndIterations[0], o.endToEndIterations[1], o.repeats);
    const double n = double(c.slices);
    const double perSlice = 1e3 / n;
    const auto [fpLabel, bpLabel] = kernelLabels(t.summary);
    const double samples = pixels * n * double(c.views);  // per projector per iteration
    const double floor = floorSeconds(fpLabel, samples, o.multiprocessors) +
                         floorSeconds(bpLabel, samples, o.multiprocessors);
    line << "| " << c.label() << " | " << c.slices << " | " << t.iteration.runs << " | "
         << bench::minMedianMax(t.forward, perSlice, 3) << " | "
         << bench::minMedianMax(t.back, perSlice, 3) << " | "
         << bench::minMedianMax(t.iteration, perSlice, 3) << " | "
         << fixed(gups(pixels, double(c.views), t.iteration.median / n), 0) << " | "
         << percent(floor, t.iteration.median) << " | "
         << bench::minMedianMax(os.iteration, perSlice, 3) << " | "
         << fixed(os.iteration.median / t.iteration.median, 2) << " | "
         << (e2e ? bench::minMedianMax(*e2e, perSlice, 3) : "–") << " | ";
    if (c.slices <= 64) {
      const auto [fp, bp] = pairErrors(sirt, o);
      line << fp << " | " << bp << " |\n";
    } else {
      line << "– | – |\n";
    }
    if (kernels.empty()) kernels = t.summary;
  } catch (const std::exception& e) {
    line << "| " << c.label() << " | " << c.slices << " | failed: " << e.what()
         << " | | | | | | | | | | |\n";
  }
  report.add(line.str());
}

std::string sirtNotes(const Options& o) {
  return "Pair " + o.fp + " + " + o.bp +
         ". ms per slice. FP, BP: one forward projection / backprojection of all views alone. "
         "SIRT, OS5: one iteration / one sweep over 5 subsets, kernel only (residual, weighting "
         "and update fused into the projectors; texture packing included). Each: min / median / "
         "max of " +
         std::to_string(o.repeats) +
         " runs after a warm-up, a run being the mean over enough iterations for ~50 ms. "
         "Fraction of ceiling: the time the FP and BP samples need at their texel formats' "
         "sampling rates (reference/gpu-limits-h100.md Table 1) over the SIRT median. e2e: "
         "reconstructIterativeGpu, (t(" +
         std::to_string(o.endToEndIterations[1]) + ") - t(" +
         std::to_string(o.endToEndIterations[0]) + ")) / " +
         std::to_string(o.endToEndIterations[1] - o.endToEndIterations[0]) + ", " +
         std::to_string(o.repeats) +
         " such pairs (stacks of at most 64 slices). FP err, BP err (stacks of at most 64 "
         "slices): relative L2 on " +
         std::to_string(kErrorViews) + " views against et.fp.cpu and " + backReference(o.bp) +
         " (float64 sums), on positive data (uniform [0, 1) volume or projections) and on "
         "zero-mean data (2x - 1).\n\n";
}

void table2(const Options& o, Report& report) {
  report.add("\n### Table 2: one SIRT iteration and one OS-SIRT-5 sweep, per slice (ms)\n\n" +
             sirtNotes(o) + sirtHeader());
  std::vector<bench::CitedFigure> cited;
  std::string kernels;
  for (const std::int64_t size : o.sizes)
    for (const std::int64_t views : {180, 360}) {
      Case c{size, size, views, o.slices, 180};
      sirtRow(o, c, report, kernels);
      const std::optional<AstraRow> a = astra(size, size, views);
      if (o.filledStacks && a) {
        Case filled = c;
        filled.slices = a->stackSlices;
        sirtRow(o, filled, report, kernels);
      }
      for (const bench::CitedFigure& f : astraCited(c)) cited.push_back(f);
      if (const auto s = seedTable2(size, views)) {
        const std::string what = c.label() + ": ms per slice per iteration, seed ";
        const std::string src = "[S4] Table 2 (J. Struct. Biol. 2011; reference/sirt-et.md)";
        cited.push_back({what + "SIRT / OS-SIRT-5",
                         fixed(s->sirt280, 1) + " / " + fixed(s->os280, 1), src, "2011",
                         "GTX 280"});
        cited.push_back({what + "SIRT / OS-SIRT-5",
                         fixed(s->sirt480, 1) + " / " + fixed(s->os480, 1), src, "2011",
                         "GTX 480"});
      }
    }
  if (!kernels.empty()) report.add("\nKernels: " + kernels + "\n");
  report.add(bench::citedTable("ASTRA and the seed on Table 2's cases", cited) +
             "\nNo ratio to these is printed: they come from other runs. A target against ASTRA "
             "needs ASTRA timed in the same device call on the same case.\n");
}

void table3(const Options& o, Report& report) {
  report.add(
      "\n### Table 3: ET-shaped slices, 61 views over 120°, per slice and iteration (ms)\n\n" +
      sirtNotes(o) + sirtHeader());
  std::string kernels;
  for (const auto& [w, t] :
       std::vector<std::pair<std::int64_t, std::int64_t>>{{356, 148}, {712, 296}, {1424, 591}}) {
    Case c{w, t, 61, o.slices, 120};
    sirtRow(o, c, report, kernels);
    if (o.filledStacks) {
      c.slices = w == 1424 ? 538 : 1024;
      sirtRow(o, c, report, kernels);
    }
  }
  if (!kernels.empty()) report.add("\nKernels: " + kernels + "\n");
  const std::string s4 = "[S4] Table 3 (J. Struct. Biol. 2011; reference/sirt-et.md)";
  std::vector<bench::CitedFigure> cited = {
      {"SIRT, ms per slice: 356 x 148 / 712 x 296 / 1424 x 591", "4.2 / 10.5 / 28.8",
       s4 + ", Xu et al.", "2011", "GTX 280"},
      {"same", "0.9 / 2.0 / 5.5", s4 + ", the seed", "2011", "GTX 280"},
      {"same", "0.7 / 1.8 / 5.6", s4 + ", the seed", "2011", "GTX 480"},
      {"same", "1.2 / 2.7 / 7.6", s4 + ", the seed", "2011", "Tesla C2070"}};
  for (const bench::CitedFigure& f : astraCited(Case{1424, 591, 61, o.slices, 120}))
    cited.push_back(f);
  report.add(bench::citedTable("Table 3's other implementations", cited));
}

void bigVolume(const Options& o, Report& report) {
  Case c{2048, 512, 121, 2048, 120};
  std::ostringstream md;
  md << "\n### A full tomogram: 2048 (x) x 512 (thickness) x 2048 slices from 121 views over "
        "120°\n\n";
  try {
    const auto built = Clock::now();
    Problem pr = makeProblem(c, o, iterative::IterativeMethod::Sirt);
    const double hostSetup = std::chrono::duration<double>(Clock::now() - built).count();
    const Timing t = kernelTiming(pr, false, o.repeats);
    const auto [fpLabel, bpLabel] = kernelLabels(t.summary);
    const double samples = double(c.width * c.thickness * c.slices) * double(c.views);
    const double floor = floorSeconds(fpLabel, samples, o.multiprocessors) +
                         floorSeconds(bpLabel, samples, o.multiprocessors);
    md << "Kernels: " << t.summary << ".\n\n"
       << "| figure | value |\n|---|---:|\n"
       << "| SIRT iteration, kernel only (s), min / median / max of " << t.iteration.runs << " | "
       << bench::minMedianMax(t.iteration, 1.0, 3) << " |\n"
       << "| G updates/s (median) | "
       << fixed(gups(double(c.width * c.thickness * c.slices), double(c.views), t.iteration.median),
                0)
       << " |\n"
       << "| fraction of the texel formats' sampling ceiling | "
       << percent(floor, t.iteration.median) << " |\n";
    if (o.endToEnd) {
      // Whole calls: upload of 2 GB of projections and 8.6 GB of volume, weights, download. One
      // pair only (each call takes seconds): not a min / median / max row.
      const auto run = [&](int iterations) {
        iterative::IterativeParams p = pr.params;
        p.iterations = iterations;
        Volume x = pr.start;
        JobContext context;
        iterative::IterativeReport r;
        const auto started = Clock::now();
        cuda::reconstructIterativeGpu(pr.projections, p, x, context, r);
        return std::make_pair(std::chrono::duration<double>(Clock::now() - started).count(),
                              r.device);
      };
      const auto [t2, device] = run(2);
      const auto [t6, unused] = run(6);
      md << "| end to end, 2 iterations (s, 1 run) | " << fixed(t2, 2) << " |\n"
         << "| end to end, 6 iterations (s, 1 run) | " << fixed(t6, 2) << " |\n"
         << "| per iteration, (t(6) - t(2)) / 4 (s, 1 pair: no spread) | "
         << fixed((t6 - t2) / 4, 3) << " |\n"
         << "| host data set-up (s, not in the figures) | " << fixed(hostSetup, 2) << " |\n"
         << "\nPlan: " << device << "\n";
    }
  } catch (const std::exception& e) {
    md << "failed: " << e.what() << "\n";
  }
  report.add(md.str());
}

// Issue #22 point 1: SIRT on two GPUs against one, the whole call (upload, 50 iterations,
// download; a fresh volume each run), on a tilt series that splits into slabs over the GPUs:
// 61 views over 120 degrees, 1024 columns, 1024 slices, a tomogram 256 thick (the weak stage's
// two-GPU SIRT, twice as many slices). One warm-up per device set, then `repeats` runs each,
// alternating; the two volumes are compared bit for bit.
void multiGpu(const Options& o, Report& report) {
  std::ostringstream md;
  const std::vector<cuda::GpuDevice> devices = cuda::listGpuDevices();
  md << "\n### SIRT on two GPUs against one (end to end, issue #22 point 1)\n\n";
  if (devices.size() < 2) {
    md << "Needs two GPUs; this machine has " << devices.size() << ".\n";
    report.add(md.str());
    return;
  }
  try {
    const Case c{1024, 256, 61, 1024, 120};
    const int iterations = 50;
    Problem pr = makeProblem(c, o, iterative::IterativeMethod::Sirt);
    pr.params.iterations = iterations;
    const auto run = [&](std::vector<int> use, Volume& x, std::string& device) {
      iterative::IterativeParams p = pr.params;
      p.gpu.devices = std::move(use);
      x = Volume(p.volume.shape, p.volume.voxelSizeMm, p.volume.originMm);
      JobContext context;
      iterative::IterativeReport r;
      const auto started = Clock::now();
      cuda::reconstructIterativeGpu(pr.projections, p, x, context, r);
      device = r.device;
      return std::chrono::duration<double>(Clock::now() - started).count();
    };
    Volume one, two;
    std::string oneDevice, twoDevice;
    (void)run({o.device}, one, oneDevice);
    (void)run({0, 1}, two, twoDevice);
    std::vector<double> tOne, tTwo;
    for (int r = 0; r < o.repeats; ++r) {
      tOne.push_back(run({o.device}, one, oneDevice));
      tTwo.push_back(run({0, 1}, two, twoDevice));
    }
    const RunStats a = bench::summarize(tOne), b = bench::summarize(tTwo);
    const bool same = std::equal(one.voxels().begin(), one.voxels().end(), two.voxels().begin(),
                                 two.voxels().end());
    md << "Tilt series " << c.views << " views over " << c.rangeDeg << "°, " << c.width
       << " columns x " << c.slices << " slices; tomogram " << c.width << " x " << c.thickness
       << " x " << c.slices << "; SIRT, " << iterations << " iterations, " << o.fp << " + " << o.bp
       << ". Whole calls of `reconstructIterativeGpu` (seconds), min / median / max of "
       << o.repeats << " after a warm-up each.\n\n"
       << "| GPUs | wall s | speed-up (medians) | target |\n|---|---|---:|---:|\n"
       << "| 1 | " << bench::minMedianMax(a, 1.0, 3) << " | | |\n"
       << "| 2 | " << bench::minMedianMax(b, 1.0, 3) << " | " << fixed(a.median / b.median, 2)
       << " | 1.8 |\n\n"
       << "Volumes of one and two GPUs the same, bit for bit: " << (same ? "yes" : "NO")
       << ".\n\nPlans: one GPU: " << oneDevice << "; two: " << twoDevice << ".\n";
  } catch (const std::exception& e) {
    md << "failed: " << e.what() << "\n";
  }
  report.add(md.str());
}

// The fast kernels' tunables on 2048^2 and 4096^2 x 180 views (FP and BP alone).
void sweep(const Options& o, Report& report) {
  report.add(
      "\n### Sweep: et.fp.fast and et.bp.fast tunables, 180 views, " + std::to_string(o.slices) +
      " slices (ms per slice, kernel only, min / median / max of " + std::to_string(o.repeats) +
      " runs after a warm-up)\n\n| slice | tunables | FP | BP |\n|---|---|---|---|\n");
  for (const std::int64_t size : {2048, 4096}) {
    const Case c{size, size, 180, o.slices, 180};
    std::vector<Tunables> settings;
    for (const char* texel : {"half2", "float2"})
      for (const char* band : {"-1", "256", "512", "1024"})
        settings.push_back({{"fp-texel", texel}, {"fp-layers", "1"}, {"band-planes", band}});
    for (const char* angles : {"4", "16"})
      settings.push_back({{"angles", angles}, {"band-planes", size > 2048 ? "1024" : "-1"}});
    settings.push_back({{"fp-layers", "2"}});
    settings.push_back({{"segment-planes", "128"}});
    for (const char* texel : {"half2", "float2", "float"})
      for (const char* layers : {"1", "2", "4"})
        settings.push_back({{"bp-texel", texel}, {"bp-layers", layers}});
    for (const Tunables& t : settings) {
      Options one = o;
      for (const auto& [k, v] : t) one.tunables[k] = v;
      Problem pr = makeProblem(c, one, iterative::IterativeMethod::Sirt);
      std::string name;
      for (const auto& [k, v] : t) name += k + "=" + v + " ";
      std::ostringstream line;
      try {
        cuda::IterativeBenchmark bench(pr.projections, pr.params, pr.start, o.device);
        const bool fp = t.begin()->first.rfind("bp-", 0) != 0;
        const double perSlice = 1e3 / double(c.slices);
        const RunStats stats =
            fp ? timeRepeated([&](int n) { return bench.forwardSeconds(n); }, o.repeats)
               : timeRepeated([&](int n) { return bench.backprojectSeconds(n); }, o.repeats);
        line << "| " << size << "² | " << name << " | "
             << (fp ? bench::minMedianMax(stats, perSlice, 3) : "") << " | "
             << (fp ? "" : bench::minMedianMax(stats, perSlice, 3)) << " |\n";
      } catch (const std::exception& e) {
        line << "| " << size << "² | " << name << " | failed: " << e.what() << " | |\n";
      }
      report.add(line.str());
    }
  }
}

// OS-SIRT-5 against SIRT on filled stacks for a few settings of the fast pair; returns the
// setting with the smallest OS5 sweep (summed over the cases), which the later parts then use.
Tunables osSweep(const Options& o, Report& report) {
  report.add(
      "\n### OS-SIRT-5 sweep against one SIRT iteration, filled stacks (ms per slice, kernel "
      "only, min / median / max of " +
      std::to_string(o.repeats) +
      " runs after a warm-up; the choice goes by the OS5 medians)\n\n| case | tunables | SIRT "
      "| OS5 | OS5 / SIRT (medians) |\n|---|---|---|---|---:|\n");
  const std::vector<Case> cases = {{1424, 591, 61, 538, 120}, {2048, 2048, 180, 109, 180}};
  std::vector<Tunables> settings;
  for (const char* angles : {"4", "8"})
    for (const char* maxima : {"0", "1"})
      settings.push_back({{"angles", angles}, {"bp-maxima", maxima}});
  Tunables best;
  double bestTime = 1e300;
  for (const Tunables& t : settings) {
    double total = 0;
    for (const Case& c : cases) {
      Options one = o;
      for (const auto& [k, v] : t) one.tunables[k] = v;
      std::string name;
      for (const auto& [k, v] : t) name += k + "=" + v + " ";
      std::ostringstream line;
      try {
        Problem pr = makeProblem(c, one, iterative::IterativeMethod::Sirt);
        const Timing sirt = kernelTiming(pr, false, o.repeats);
        pr.params.method = iterative::IterativeMethod::OsSirt;
        const Timing os = kernelTiming(pr, false, o.repeats);
        const double n = double(c.slices);
        total += os.iteration.median / n;
        line << "| " << c.label() << " (" << c.slices << " slices) | " << name << " | "
             << bench::minMedianMax(sirt.iteration, 1e3 / n, 3) << " | "
             << bench::minMedianMax(os.iteration, 1e3 / n, 3) << " | "
             << fixed(os.iteration.median / sirt.iteration.median, 2) << " |\n";
      } catch (const std::exception& e) {
        total += 1e9;
        line << "| " << c.label() << " | " << name << " | failed: " << e.what() << " | | |\n";
      }
      report.add(line.str());
    }
    if (total < bestTime) {
      bestTime = total;
      best = t;
    }
  }
  std::string chosen;
  for (const auto& [k, v] : best) chosen += k + "=" + v + " ";
  report.add("\nThe following parts run with " + chosen + "\n");
  return best;
}

}  // namespace

int main(int argc, char** argv) {
  tomowb::catalog::installBuiltinVariants();  // the composition root (recon/catalog/Builtins.h)
  CLI::App app{"GPU SIRT benchmark, seed 004's Tables 1-3 (peer figures printed as cited)"};
  Options o;
  std::vector<std::string> tunables;
  app.add_option("--tables", o.tables, "parts to run: sweep, os, 1, 2, 3, big, multi")
      ->capture_default_str();
  app.add_option("--slices", o.slices, "slices of the seed-sized stacks")->capture_default_str();
  app.add_option("--sizes", o.sizes, "Table 2 slice sizes")->capture_default_str();
  app.add_option("--fp", o.fp, "forward projector of Tables 2, 3 and big")->capture_default_str();
  app.add_option("--bp", o.bp, "backprojector of Tables 2, 3 and big")->capture_default_str();
  app.add_option("--tunable", tunables, "NAME=VALUE for the fast kernels (repeatable)");
  app.add_flag("!--no-filled-stacks", o.filledStacks, "only the 10-slice stacks");
  app.add_flag("!--no-e2e", o.endToEnd, "no end-to-end timings");
  app.add_option("--device", o.device, "CUDA device")->capture_default_str();
  app.add_option("--repeats", o.repeats, "timed runs per figure after a warm-up (at least 5)")
      ->capture_default_str()
      ->check(CLI::Range(bench::kMinTimedRuns, 1000));
  app.add_option("--e2e-iterations", o.endToEndIterations,
                 "LOW HIGH: end to end per iteration = (t(HIGH) - t(LOW)) / (HIGH - LOW)")
      ->expected(2)
      ->capture_default_str();
  app.add_option("--out", o.out, "append the Markdown report to this file");
  CLI11_PARSE(app, argc, argv);
  if (o.endToEndIterations.size() != 2 || o.endToEndIterations[0] < 1 ||
      o.endToEndIterations[1] <= o.endToEndIterations[0]) {
    std::cerr << "--e2e-iterations expects LOW HIGH with 1 <= LOW < HIGH\n";
    return 2;
  }
  for (const std::string& t : tunables) {
    const std::size_t eq = t.find('=');
    if (eq == std::string::npos) {
      std::cerr << "--tunable expects NAME=VALUE, got '" << t << "'\n";
      return 2;
    }
    o.tunables[t.substr(0, eq)] = t.substr(eq + 1);
  }
  Report report(o.out);
  const std::vector<cuda::GpuDevice> devices = cuda::listGpuDevices();
  const bool haveDevice = o.device >= 0 && o.device < int(devices.size());
  if (haveDevice) o.multiprocessors = devices[std::size_t(o.device)].multiprocessors;
  std::ostringstream head;
  head << "\n## " << bench::utcNow() << ": GPU SIRT for ET, seed 004 Tables 1-3\n\n"
       << "Device: "
       << (haveDevice ? devices[std::size_t(o.device)].name + " (" +
                            std::to_string(o.multiprocessors) + " SMs)"
                      : "no CUDA device (" + cuda::gpuStatus() + ")")
       << ", host " << omp_get_num_procs() << " CPUs.\nCommand: `" << bench::commandLine(argc, argv)
       << "`\n\nEvery measured figure: min / median / max of " << o.repeats
       << " runs after a warm-up. Figures of other implementations appear only in tables headed "
          "\"cited\".\n";
  report.add(head.str());
  if (!haveDevice) {
    report.add("\nNo CUDA device: nothing to measure.\n");
    return 0;
  }
  const auto wants = [&](const char* part) {
    return std::find(o.tables.begin(), o.tables.end(), part) != o.tables.end();
  };
  try {
    if (wants("sweep")) sweep(o, report);
    if (wants("os"))
      for (const auto& [k, v] : osSweep(o, report)) o.tunables[k] = v;
    if (wants("1")) table1(o, report);
    if (wants("2")) table2(o, report);
    if (wants("3")) table3(o, report);
    if (wants("big")) bigVolume(o, report);
    if (wants("multi")) multiGpu(o, report);
  } catch (const std::exception& e) {
    report.add(std::string("\nfailed: ") + e.what() + "\n");
    return 1;
  }
  return 0;
}
