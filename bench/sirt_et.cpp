// GPU SIRT benchmark of issue #7 in the layout of seed 004's Tables 1-3 (reference/sirt-et.md
// sections 5 and 9), with the seed's GTX 280/480 figures and ASTRA's on the same H100 beside ours:
//  Table 1: forward projection alone, per slice, 2048^2 slices from 180 views over 180 degrees:
//           the seed's four thread-block orderings (a)-(d) and our fastest kernel.
//  Table 2: one SIRT iteration and one OS-SIRT-5 sweep per slice, 512^2 to 4096^2 at 180 and
//           360 views, on the seed's 10-slice stacks and on stacks of ASTRA's "8 GB" sizes.
//  Table 3: the ET-shaped slices (356 x 148, 712 x 296, 1424 x 591 from 61 views over 120
//           degrees).
//  Big:     a full SIRT iteration of a 2048 (x) x 512 (thickness) x 2048 (slices) tomogram from
//           121 views over 120 degrees.
// Kernel-only figures come from cuda::IterativeBenchmark (problem resident on the GPU, CUDA
// events around the iterations after a warm-up, element passes and texture packing included);
// end-to-end ones from cuda::reconstructIterativeGpu as the seed timed: (t(50 it) - t(10 it)) /
// 40, everything in the loop included (upload, weights and download cancel out). G updates/s =
// 2 x pixels x views / time per iteration (1 x for a forward projection alone).
// The inputs are random (uniform [0, 1) volume and projections), never zeros.
#include <omp.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <iostream>
#include <map>
#include <numbers>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "recon/core/Error.h"
#include "recon/cuda/GpuDevices.h"
#include "recon/cuda/GpuEt.h"
#include "recon/geometry/ScanBuilders.h"
#include "recon/iterative/IterativeReconstruction.h"

namespace {

using namespace tomowb;
using Clock = std::chrono::steady_clock;
using Tunables = std::map<std::string, std::string>;
constexpr double kDeg = std::numbers::pi / 180.0;

struct Options {
  std::vector<std::string> tables{"1", "2", "3", "big"};
  int slices = 10;
  bool filledStacks = true;
  bool endToEnd = true;
  bool sweep = false;
  std::vector<std::int64_t> sizes{512, 1024, 2048, 4096};
  std::string fp = "et.fp.fast", bp = "et.bp.fast";
  Tunables tunables;
  int device = 0;
  std::string out;
};

std::string today() {
  const std::time_t now = std::time(nullptr);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%d %H:%M UTC", std::gmtime(&now));
  return text;
}

std::string fixed(double value, int digits) {
  char text[64];
  std::snprintf(text, sizeof text, "%.*f", digits, value);
  return text;
}

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

struct Timing {
  double iteration = 0, forward = 0, back = 0;  // seconds, kernel only
  std::string summary;
};

// Kernel-only: one warm-up iteration, then enough iterations for ~0.3 s, the mean.
Timing kernelTiming(const Problem& pr, bool projectors) {
  cuda::IterativeBenchmark bench(pr.projections, pr.params, pr.start, pr.params.gpu.devices[0]);
  Timing t;
  t.summary = bench.summary();
  const double warm = bench.iterationSeconds(1);
  const int n = std::clamp(int(std::ceil(0.3 / std::max(warm, 1e-6))), 3, 20);
  t.iteration = bench.iterationSeconds(n);
  if (projectors) {
    bench.forwardSeconds(1);
    t.forward = bench.forwardSeconds(n);
    bench.backprojectSeconds(1);
    t.back = bench.backprojectSeconds(n);
  }
  return t;
}

// End to end as the seed timed it: (t(50 it) - t(10 it)) / 40 of the whole GPU SIRT call.
double endToEndTiming(const Problem& pr, int low = 10, int high = 50) {
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
  const double a = run(low), b = run(high);
  return (b - a) / double(high - low);
}

double gups(double pixels, double views, double seconds, double factor = 2.0) {
  return seconds > 0 ? factor * pixels * views / seconds / 1e9 : 0.0;
}

// ---- Table 1 -----------------------------------------------------------------------------------

void table1(const Options& o, Report& report) {
  struct Row {
    std::string variant, label;
    std::optional<double> gtx280, gtx480;
    Tunables tunables;
  };
  const std::vector<Row> rows = {
      {"et.fp.unordered", "(a) unordered", 507.103, 278.622, {}},
      {"et.fp.strips", "(b) ray strips", 154.976, 85.068, {}},
      {"et.fp.strips-angles", "(c) strips x consecutive angles", 77.863, 34.340, {}},
      {"et.fp.segments", "(d) strip segments (8 per ray)", 25.326, 27.883, {}},
      {"et.fp.fast",
       "ours: et.fp.fast, float32 texels",
       std::nullopt,
       std::nullopt,
       {{"fp-texel", "float2"}}},
      {"et.fp.fast", "ours: et.fp.fast (default)", std::nullopt, std::nullopt, {}},
  };
  Case c{2048, 2048, 180, o.slices, 180};
  std::ostringstream md;
  md << "\n### Table 1: forward projection alone, 2048² slices, 180 views over 180°, " << c.slices
     << "-slice stack (ms per slice)\n\n"
     << "Kernel only (CUDA events, mean after a warm-up; texture packing of the volume "
        "included). G updates/s = pixels x views / time. Seed figures: GTX 280 / GTX 480, "
        "[S4] Table 1. ASTRA on the same H100 (reference/sirt-et.md section 9): 1.64 ms.\n\n"
     << "| ordering | variant as run | GTX 280 | GTX 480 | H100 ours (ms) | G updates/s | "
        "speed-up over (a) |\n|---|---|---:|---:|---:|---:|---:|\n";
  report.add(md.str());
  double first = 0;
  for (const Row& r : rows) {
    Options one = o;
    one.fp = r.variant;
    for (const auto& [k, v] : r.tunables) one.tunables[k] = v;
    Problem pr = makeProblem(c, one, iterative::IterativeMethod::Sirt);
    std::ostringstream line;
    try {
      cuda::IterativeBenchmark bench(pr.projections, pr.params, pr.start, o.device);
      bench.forwardSeconds(1);
      const double t = bench.forwardSeconds(3);
      const double perSlice = t / double(c.slices) * 1e3;
      if (first == 0) first = perSlice;
      const std::string summary = bench.summary();
      line << "| " << r.label << " | " << summary.substr(0, summary.find(" + ")) << " | "
           << (r.gtx280 ? fixed(*r.gtx280, 3) : "–") << " | "
           << (r.gtx480 ? fixed(*r.gtx480, 3) : "–") << " | " << fixed(perSlice, 3) << " | "
           << fixed(gups(double(c.width * c.thickness * c.slices), double(c.views), t, 1.0), 0)
           << " | " << fixed(first / perSlice, 1) << "x |\n";
    } catch (const std::exception& e) {
      line << "| " << r.label << " | " << r.variant << " | | | failed: " << e.what() << " | | |\n";
    }
    report.add(line.str());
  }
  report.add("| ASTRA 2.x, H100 (2-D par_fp, section 9) | | | | 1.64 | 460 | |\n");
}

// ---- Table 2 / 3 -------------------------------------------------------------------------------

struct AstraRow {
  double twoD, threeD, stack;
  std::int64_t stackSlices;
};

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

// One row: SIRT and OS-SIRT-5 per slice at `slices`, kernel only (and SIRT end to end).
void sirtRow(const Options& o, Case c, Report& report, bool table3) {
  std::ostringstream line;
  const double pixels = double(c.width * c.thickness);
  try {
    Problem sirt = makeProblem(c, o, iterative::IterativeMethod::Sirt);
    const Timing t = kernelTiming(sirt, true);
    sirt.params.method = iterative::IterativeMethod::OsSirt;
    const Timing os = kernelTiming(sirt, false);
    sirt.params.method = iterative::IterativeMethod::Sirt;
    const double e2e = o.endToEnd && c.slices <= 64 ? endToEndTiming(sirt) : 0.0;
    const double n = double(c.slices);
    const double ms = t.iteration / n * 1e3, osMs = os.iteration / n * 1e3;
    const std::optional<AstraRow> a = astra(c.width, c.thickness, c.views);
    const double faster = a ? std::min({a->twoD, a->threeD, a->stack}) : 0.0;
    line << "| " << c.label() << " | " << c.slices << " | " << fixed(t.forward / n * 1e3, 3)
         << " | " << fixed(t.back / n * 1e3, 3) << " | " << fixed(ms, 3) << " | "
         << fixed(gups(pixels, double(c.views), t.iteration / n), 0) << " | " << fixed(osMs, 3)
         << " | " << fixed(osMs / ms, 2) << " | " << (e2e > 0 ? fixed(e2e / n * 1e3, 3) : "–")
         << " | ";
    if (a)
      line << fixed(a->twoD, 3) << " | " << fixed(a->threeD, 3) << " | " << fixed(a->stack, 3)
           << " (" << a->stackSlices << ") | " << fixed(faster / ms, 2) << "x | ";
    else
      line << "– | – | – | – | ";
    if (table3) {
      line << "\n";
    } else {
      const std::optional<SeedRow> s = seedTable2(c.width, c.views);
      line << (s ? fixed(s->sirt480, 1) + " | " + fixed(s->os480, 1) + " | " +
                       fixed(s->sirt480 / ms, 0) + "x"
                 : "– | – | –")
           << " |\n";
    }
    if (c.width == 2048 && c.views == 180 && c.slices == o.slices)
      std::cerr << "kernels: " << t.summary << "\n";
  } catch (const std::exception& e) {
    line << "| " << c.label() << " | " << c.slices << " | failed: " << e.what() << " |\n";
  }
  report.add(line.str());
}

void table2(const Options& o, Report& report) {
  std::ostringstream md;
  md << "\n### Table 2: one SIRT iteration and one OS-SIRT-5 sweep, per slice (ms)\n\n"
     << "Pair " << o.fp << " + " << o.bp
     << ". FP, BP: one forward projection / backprojection of all views alone. SIRT, OS5: "
        "kernel only (residual, weighting and update fused into the projectors; texture "
        "packing included). e2e: reconstructIterativeGpu, (t(50) - t(10)) / 40 (10-slice "
        "stacks). ASTRA 2-D / 3-D / 8 GB stack: the same H100, section 9 of "
        "reference/sirt-et.md; x ASTRA = ASTRA's faster path / ours (target >= 2). Seed: GTX "
        "480, [S4] Table 2.\n\n"
     << "| slice, views | slices | FP | BP | SIRT | G upd/s | OS5 sweep | OS5 / SIRT | e2e SIRT "
        "| ASTRA 2-D | ASTRA 3-D | ASTRA stack | x ASTRA | seed 480 SIRT | seed 480 OS5 | x seed "
        "|\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n";
  report.add(md.str());
  for (const std::int64_t size : o.sizes)
    for (const std::int64_t views : {180, 360}) {
      Case c{size, size, views, o.slices, 180};
      sirtRow(o, c, report, false);
      const std::optional<AstraRow> a = astra(size, size, views);
      if (o.filledStacks && a) {
        c.slices = a->stackSlices;
        sirtRow(o, c, report, false);
      }
    }
}

void table3(const Options& o, Report& report) {
  std::ostringstream md;
  md << "\n### Table 3: ET-shaped slices, 61 views over 120°, per slice and iteration (ms)\n\n"
     << "Columns as Table 2. [S4] Table 3 (SIRT, ms per slice): Xu et al. GTX 280 4.2 / 10.5 / "
        "28.8, seed GTX 280 0.9 / 2.0 / 5.5, GTX 480 0.7 / 1.8 / 5.6, C2070 1.2 / 2.7 / 7.6 "
        "for 356 x 148 / 712 x 296 / 1424 x 591.\n\n"
     << "| slice, views | slices | FP | BP | SIRT | G upd/s | OS5 sweep | OS5 / SIRT | e2e SIRT "
        "| ASTRA 2-D | ASTRA 3-D | ASTRA stack | x ASTRA |\n"
     << "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n";
  report.add(md.str());
  for (const auto& [w, t] :
       std::vector<std::pair<std::int64_t, std::int64_t>>{{356, 148}, {712, 296}, {1424, 591}}) {
    Case c{w, t, 61, o.slices, 120};
    sirtRow(o, c, report, true);
    if (o.filledStacks) {
      c.slices = w == 1424 ? 538 : 1024;
      sirtRow(o, c, report, true);
    }
  }
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
    const Timing t = kernelTiming(pr, false);
    md << "Kernels: " << t.summary << ".\n\n"
       << "| figure | value |\n|---|---:|\n"
       << "| SIRT iteration, kernel only (s) | " << fixed(t.iteration, 3) << " |\n"
       << "| G updates/s | "
       << fixed(gups(double(c.width * c.thickness * c.slices), double(c.views), t.iteration), 0)
       << " |\n";
    if (o.endToEnd) {
      // Whole calls: upload of 2 GB of projections and 8.6 GB of volume, weights, download.
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
      md << "| end to end, 2 iterations (s) | " << fixed(t2, 2) << " |\n"
         << "| end to end, 6 iterations (s) | " << fixed(t6, 2) << " |\n"
         << "| per iteration, (t(6) - t(2)) / 4 (s) | " << fixed((t6 - t2) / 4, 3) << " |\n"
         << "| host data set-up (s, not in the figures) | " << fixed(hostSetup, 2) << " |\n"
         << "\nPlan: " << device << "\n";
    }
  } catch (const std::exception& e) {
    md << "failed: " << e.what() << "\n";
  }
  report.add(md.str());
}

// The fast kernels' tunables on 2048^2 and 4096^2 x 180 views (FP and BP alone).
void sweep(const Options& o, Report& report) {
  report.add("\n### Sweep: et.fp.fast and et.bp.fast tunables, 180 views, " +
             std::to_string(o.slices) +
             " slices (ms per slice, kernel only)\n\n| slice | tunables | FP | BP "
             "|\n|---|---|---:|---:|\n");
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
        bench.forwardSeconds(1);
        bench.backprojectSeconds(1);
        line << "| " << size << "² | " << name << " | "
             << (fp ? fixed(bench.forwardSeconds(3) / double(c.slices) * 1e3, 3) : "") << " | "
             << (fp ? "" : fixed(bench.backprojectSeconds(3) / double(c.slices) * 1e3, 3))
             << " |\n";
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
      "only)\n\n| case | tunables | SIRT | OS5 | OS5 / SIRT |\n|---|---|---:|---:|---:|\n");
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
        const Timing sirt = kernelTiming(pr, false);
        pr.params.method = iterative::IterativeMethod::OsSirt;
        const Timing os = kernelTiming(pr, false);
        const double n = double(c.slices);
        total += os.iteration / n;
        line << "| " << c.label() << " (" << c.slices << " slices) | " << name << " | "
             << fixed(sirt.iteration / n * 1e3, 3) << " | " << fixed(os.iteration / n * 1e3, 3)
             << " | " << fixed(os.iteration / sirt.iteration, 2) << " |\n";
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
  CLI::App app{"GPU SIRT benchmark, seed 004's Tables 1-3 with ASTRA's H100 figures"};
  Options o;
  std::vector<std::string> tunables;
  app.add_option("--tables", o.tables, "parts to run: sweep, os, 1, 2, 3, big")
      ->capture_default_str();
  app.add_option("--slices", o.slices, "slices of the seed-sized stacks")->capture_default_str();
  app.add_option("--sizes", o.sizes, "Table 2 slice sizes")->capture_default_str();
  app.add_option("--fp", o.fp, "forward projector of Tables 2, 3 and big")->capture_default_str();
  app.add_option("--bp", o.bp, "backprojector of Tables 2, 3 and big")->capture_default_str();
  app.add_option("--tunable", tunables, "NAME=VALUE for the fast kernels (repeatable)");
  app.add_flag("!--no-filled-stacks", o.filledStacks, "only the 10-slice stacks");
  app.add_flag("!--no-e2e", o.endToEnd, "no end-to-end timings");
  app.add_option("--device", o.device, "CUDA device")->capture_default_str();
  app.add_option("--out", o.out, "append the Markdown report to this file");
  CLI11_PARSE(app, argc, argv);
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
  std::string command;
  for (int i = 0; i < argc; ++i) command += (i ? " " : "") + std::string(argv[i]);
  std::ostringstream head;
  head << "\n## " << today() << ": GPU SIRT for ET, seed 004 Tables 1-3\n\n"
       << "Device: "
       << (o.device < int(devices.size()) ? devices[std::size_t(o.device)].name
                                          : "no CUDA device (" + cuda::gpuStatus() + ")")
       << ", host " << omp_get_num_procs() << " CPUs.\nCommand: `" << command << "`\n";
  report.add(head.str());
  if (devices.empty()) {
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
  } catch (const std::exception& e) {
    report.add(std::string("\nfailed: ") + e.what() + "\n");
    return 1;
  }
  return 0;
}
