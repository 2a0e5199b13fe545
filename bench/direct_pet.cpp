// DIRECT TOF-PET on the GPU in the layout of seed 003's Tables II-IV (issue #20;
// reference/direct-tof-pet.md, sections 4.4 and 9): per-view forward and back-projection times of
// every GPU scheme for the invariant and variant LOR kernels on the paper's 144x144x48 grid at
// 4 mm with 40 x 3 views and 400 ps, the Table II kernel (900 ps, radial 10-100 mm, axial 10 mm),
// whole EM iterations, and the deposition of list-mode events. Each row: min / median / max of
// at least 5 runs after a warm-up; projector times are wall-clock around one call over all views
// (the call waits for its kernels), divided by the view count.
#include <omp.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <functional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "bench/BenchSupport.h"
#include "recon/catalog/Builtins.h"
#include "recon/iterative/EmRule.h"
#include "recon/iterative/OrderedSubsetSolver.h"
#include "recon/pet/GpuDirect.h"
#include "recon/pet/ScannerModel.h"

namespace tomowb::bench {
namespace {

using pet::DirectKernelParams;
using pet::GpuDirectScheme;
using pet::LorWidthProfile;
using Clock = std::chrono::steady_clock;

double secondsOf(const std::function<void()>& f) {
  const auto t = Clock::now();
  f();
  return std::chrono::duration<double>(Clock::now() - t).count();
}

RunStats timed(int runs, const std::function<void()>& f) {
  f();  // warm-up
  std::vector<double> s;
  for (int i = 0; i < runs; ++i) s.push_back(secondsOf(f));
  return summarize(s);
}

pet::DirectProblem paperProblem(const DirectKernelParams& kernel) {
  pet::DirectProblem p;
  p.grid = VolumeGrid::centred({144, 144, 48}, Eigen::Vector3d::Constant(4.0));
  p.views = {40, 3, 10.0 * M_PI / 180.0};
  p.kernel = kernel;
  return p;
}

// A cylinder of radius 175 mm with six hot spheres at 75 mm (4:1), the seed's phantom, voxelised.
Volume phantomImage(const VolumeGrid& grid) {
  Volume v = grid.makeVolume();
  for (std::int64_t z = 0; z < v.nz(); ++z)
    for (std::int64_t y = 0; y < v.ny(); ++y)
      for (std::int64_t x = 0; x < v.nx(); ++x) {
        const Eigen::Vector3d p = v.worldPosition(double(x), double(y), double(z));
        float value = std::hypot(p.x(), p.y()) < 175 && std::abs(p.z()) < 90 ? 1.0f : 0.0f;
        for (int k = 0; k < 6; ++k) {
          const double a = k * M_PI / 3;
          if ((p - Eigen::Vector3d(75 * std::cos(a), 75 * std::sin(a), 0)).norm() < 5) value = 4;
        }
        v.at(x, y, z) = value;
      }
  return v;
}

struct Row {
  std::string text;
};

std::string schemeName(GpuDirectScheme s) {
  return s == GpuDirectScheme::GatherTex   ? "gather-tex"
         : s == GpuDirectScheme::GatherReg ? "gather-reg"
                                           : "fft";
}

double meanOffsets(const pet::DirectKernels& k) {
  double sum = 0;
  for (int v = 0; v < k.views().count(); ++v) sum += k.offsetCount(v);
  return sum / k.views().count();
}

}  // namespace
}  // namespace tomowb::bench

int main(int argc, char** argv) {
  using namespace tomowb;         // NOLINT(google-build-using-namespace)
  using namespace tomowb::bench;  // NOLINT(google-build-using-namespace)
  catalog::installBuiltinVariants();
  CLI::App app{"DIRECT TOF-PET GPU benchmark (seed 003, Tables II-IV)"};
  std::string out = "bench-direct.md";
  int runs = kMinTimedRuns;
  std::vector<double> eventCounts{1e7, 1e8, 4.3e8};
  int iterations = 5;
  app.add_option("--out", out, "Markdown report");
  app.add_option("--runs", runs, "timed runs per row (>= 5)")->check(CLI::Range(5, 100));
  app.add_option("--events", eventCounts, "event counts for the deposition rows");
  app.add_option("--iterations", iterations, "timed EM iterations")->check(CLI::Range(5, 100));
  CLI11_PARSE(app, argc, argv);

  std::ostringstream md;
  md << "# DIRECT TOF-PET on the GPU (issue #20)\n\n"
     << utcNow() << ", `" << commandLine(argc, argv) << "`\n\n";
  JobContext context;

  // --- Per-view projector times, paper case.
  md << "## Per-view projection times, 144x144x48 at 4 mm, 40 x 3 views, 400 ps (Table III)\n\n"
     << "ms per view: min / median / max of " << runs
     << " calls over all 120 views, divided by 120. G MAC/s = voxels x offsets / time. Seed (GTX "
        "285): FP 43.9 ms invariant, 72.0 ms variant1 (derived from Table IV).\n\n"
     << "| LOR kernel | scheme | offsets (mean) | FP ms/view | BP ms/view | FP G MAC/s | BP G "
        "MAC/s "
        "| seed FP ms/view |\n|---|---|---|---|---|---|---|---|\n";
  struct KernelCase {
    const char* name;
    LorWidthProfile profile;
    const char* seed;
  };
  const KernelCase kernels[] = {{"invariant", LorWidthProfile::Invariant, "43.9"},
                                {"variant1", LorWidthProfile::Variant1, "72.0"},
                                {"variant2", LorWidthProfile::Variant2, "-"},
                                {"variant3", LorWidthProfile::Variant3, "-"}};
  double bestInvariantFp = 1e9;
  for (const KernelCase& kc : kernels) {
    DirectKernelParams kp;
    kp.profile = kc.profile;
    const pet::DirectProblem problem = paperProblem(kp);
    auto k = std::make_shared<const pet::DirectKernels>(problem.grid, problem.views, kp);
    const Volume image = phantomImage(problem.grid);
    for (GpuDirectScheme s :
         {GpuDirectScheme::GatherTex, GpuDirectScheme::GatherReg, GpuDirectScheme::Fft}) {
      std::string why;
      auto pair = pet::makeGpuDirectPair(problem, k, s, s, why);
      if (!pair) {
        md << "| " << kc.name << " | " << schemeName(s) << " | | refused: " << why
           << " | | | | |\n";
        continue;
      }
      auto x = pair->useVolume(image);
      auto y = pair->makeProjections();
      auto b = pair->makeVolume();
      const RunStats fp = timed(runs, [&] { pair->forward(*x, *y, {}, context); });
      const RunStats bp = timed(runs, [&] { pair->adjoint(*y, *b, {}, context); });
      const double views = problem.views.count();
      const double macs = double(problem.grid.shape.voxelCount()) * meanOffsets(*k);
      if (kc.profile == LorWidthProfile::Invariant)
        bestInvariantFp = std::min(bestInvariantFp, fp.median / views);
      md << "| " << kc.name << " | " << schemeName(s) << " | " << fixed(meanOffsets(*k), 0) << " | "
         << minMedianMax(fp, 1e3 / views, 3) << " | " << minMedianMax(bp, 1e3 / views, 3) << " | "
         << fixed(macs / (fp.median / views) * 1e-9, 0) << " | "
         << fixed(macs / (bp.median / views) * 1e-9, 0) << " | " << kc.seed << " |\n";
      std::fflush(stdout);
      std::printf("%s %s: FP %.3f ms/view, BP %.3f ms/view\n", kc.name, schemeName(s).c_str(),
                  fp.median / views * 1e3, bp.median / views * 1e3);
    }
  }
  md << "\nTarget (issue #20): forward projection per view <= 0.7 ms for the best variant: "
     << fixed(bestInvariantFp * 1e3, 3) << " ms (invariant) -> "
     << (bestInvariantFp <= 0.7e-3 ? "met" : "missed") << ".\n\n";

  // --- Table II kernel: 900 ps, radial 10 -> 100 mm, axial 10 mm; views 0-7.
  {
    DirectKernelParams kp;
    kp.tofFwhmPs = 900;
    kp.profile = LorWidthProfile::Variant2;
    kp.radialFwhmMm = 10;
    kp.edgeFwhmMm = 100;
    kp.axialFwhmMm = 10;
    pet::DirectProblem problem = paperProblem(kp);
    auto k = std::make_shared<const pet::DirectKernels>(problem.grid, problem.views, kp);
    md << "## Table II kernel (900 ps, radial 10-100 mm, axial 10 mm), 8 views\n\n"
       << "| scheme | offsets (mean) | FP ms/view | BP ms/view | seed FP / BP s/view "
          "|\n|---|---|---|---|---|\n";
    const Volume image = phantomImage(problem.grid);
    const std::vector<std::int64_t> eight{0, 1, 2, 3, 40, 41, 80, 81};
    for (GpuDirectScheme s : {GpuDirectScheme::GatherTex, GpuDirectScheme::GatherReg}) {
      std::string why;
      auto pair = pet::makeGpuDirectPair(problem, k, s, s, why);
      if (!pair) {
        md << "| " << schemeName(s) << " | refused: " << why << " | | | |\n";
        continue;
      }
      auto x = pair->useVolume(image);
      auto y = pair->makeProjections();
      auto b = pair->makeVolume();
      const RunStats fp = timed(runs, [&] { pair->forward(*x, *y, eight, context); });
      const RunStats bp = timed(runs, [&] { pair->adjoint(*y, *b, eight, context); });
      md << "| " << schemeName(s) << " | " << fixed(meanOffsets(*k), 0) << " | "
         << minMedianMax(fp, 1e3 / 8, 2) << " | " << minMedianMax(bp, 1e3 / 8, 2)
         << " | 2.59 / 2.56 |\n";
    }
    md << "\n";
  }

  // --- Whole EM iterations on the paper case (data: the phantom's forward projection).
  md << "## One full iteration (120 views forward and back, EM update on the GPU)\n\n"
     << "Seconds per iteration, min / median / max of " << iterations
     << " iterations. Seed (Table III, GTX 285 with CPU update): 15.63 s invariant, 22.43 s "
        "variant1, 25.66 s variant2, 24.68 s variant3.\n\n"
     << "| LOR kernel | scheme | update | subsets | s / iteration |\n|---|---|---|---|---|\n";
  double bestVariantIteration = 1e9;
  for (const KernelCase& kc : kernels) {
    DirectKernelParams kp;
    kp.profile = kc.profile;
    const pet::DirectProblem problem = paperProblem(kp);
    auto k = std::make_shared<const pet::DirectKernels>(problem.grid, problem.views, kp);
    for (GpuDirectScheme s : {GpuDirectScheme::GatherReg, GpuDirectScheme::GatherTex}) {
      std::string why;
      auto pair = pet::makeGpuDirectPair(problem, k, s, s, why);
      if (!pair) continue;
      const Volume truth = phantomImage(problem.grid);
      auto t = pair->useVolume(truth);
      auto data = pair->makeProjections();
      pair->forward(*t, *data, {}, context);
      for (int subsets : {120, 12}) {
        iterative::SubsetProblem sp{*pair, *data, nullptr, 0.0f, INFINITY, {}};
        for (int q = 0; q < subsets; ++q) {
          std::vector<std::int64_t> views;
          for (int v = q; v < problem.views.count(); v += subsets) views.push_back(v);
          sp.subsets.push_back(views);
        }
        iterative::EmOptions options;
        options.ramla = subsets == 120;
        iterative::EmRule rule(options);
        auto x = pair->makeVolume();
        pair->ops().fill(*x, 1.0f);
        iterative::IterativeParams params;
        params.iterations = iterations;
        iterative::IterativeReport report;
        iterative::runOrderedSubsets(sp, rule, *x, params, 1.0, report, context);
        std::vector<double> seconds;
        for (const auto& r : report.iterations) seconds.push_back(r.seconds);
        const RunStats st = summarize(seconds);
        if (kc.profile != LorWidthProfile::Invariant)
          bestVariantIteration = std::min(bestVariantIteration, st.median);
        md << "| " << kc.name << " | " << schemeName(s) << " | "
           << (options.ramla ? "block RAMLA" : "OSEM") << " | " << subsets << " | "
           << minMedianMax(st, 1, 3) << " |\n";
      }
    }
  }
  md << "\nTarget: one full DIRECT iteration with variant kernels <= 0.2 s: "
     << fixed(bestVariantIteration, 3) << " s -> "
     << (bestVariantIteration <= 0.2 ? "met" : "missed") << ".\n\n";

  // --- Deposition of events resident on the GPU (synthetic LORs through the FOV).
  md << "## Deposition of list-mode events (nearest voxel, uint32 atomics, events resident)\n\n"
     << "Synthetic events: random crystal pairs of the penn-labr3 scanner (opposite halves), "
        "delta t uniform in +-1.5 ns; kernel time (CUDA events), min / median / max of "
     << runs
     << " runs.\n\n| events | upload s | deposit s | deposited | events / s "
        "|\n|---|---|---|---|---|\n";
  const pet::ScannerModel scanner = pet::scannerPreset("penn-labr3");
  const VolumeGrid grid = VolumeGrid::centred({144, 144, 48}, Eigen::Vector3d::Constant(4.0));
  const pet::ViewBinning views{40, 3, 10.0 * M_PI / 180.0};
  for (double count : eventCounts) {
    const auto n = static_cast<std::size_t>(count);
    std::vector<pet::ListModeEvent> events(n);
#pragma omp parallel
    {
      std::mt19937_64 rng(1234 + omp_get_thread_num());
      std::uniform_int_distribution<int> crystal(0, scanner.crystalsPerRing - 1),
          ring(0, scanner.rings - 1), tof(-60, 60), spread(0, scanner.crystalsPerRing / 3);
#pragma omp for schedule(static)
      for (std::int64_t i = 0; i < std::int64_t(n); ++i) {
        pet::ListModeEvent& e = events[std::size_t(i)];
        e.crystal1 = std::uint16_t(crystal(rng));
        e.crystal2 = std::uint16_t((e.crystal1 + scanner.crystalsPerRing / 2 + spread(rng) -
                                    scanner.crystalsPerRing / 6 + scanner.crystalsPerRing) %
                                   scanner.crystalsPerRing);
        e.ring1 = std::uint16_t(ring(rng));
        e.ring2 = std::uint16_t(ring(rng));
        e.tofLsb = std::int16_t(tof(rng));
      }
    }
    pet::GpuEventDeposition deposition(scanner, grid, views, events, {});
    std::vector<double> seconds;
    pet::DepositionReport last;
    for (int r = 0; r <= runs; ++r) {
      last = deposition.deposit({}, nullptr);
      if (r > 0) seconds.push_back(last.seconds);
    }
    const RunStats st = summarize(seconds);
    md << "| " << scientific(count) << " | " << fixed(deposition.uploadSeconds(), 3) << " | "
       << minMedianMax(st, 1, 4) << " | " << last.deposited << " | "
       << scientific(count / st.median) << " |\n";
    std::printf("deposit %.1e events: %.4f s\n", count, st.median);
  }
  md << "\nTarget: deposition of 4.3e8 events <= 0.1 s (events on the device).\n";

  std::ofstream(out) << md.str();
  std::printf("%s", md.str().c_str());
  return 0;
}
