// DIRECT TOF-PET on the GPU in the layout of seed 003's Tables II-IV (issue #20;
// reference/direct-tof-pet.md, sections 4.4 and 9): per-view forward and back-projection times of
// every GPU scheme for the invariant and variant LOR kernels on the paper's 144x144x48 grid at
// 4 mm with 40 x 3 views and 400 ps, the Table II kernel (900 ps, radial 10-100 mm, axial 10 mm),
// whole EM iterations, and the deposition of list-mode events. Each row: min / median / max of
// at least 5 runs after a warm-up; projector times are wall-clock around one call over all views
// (the call waits for its kernels), divided by the view count.
#include <omp.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "bench/BenchSupport.h"
#include "recon/catalog/Builtins.h"
#include "recon/iterative/EmRule.h"
#include "recon/iterative/OrderedSubsetSolver.h"
#include "recon/pet/GpuDirect.h"
#include "recon/pet/GpuListModeSimulator.h"
#include "recon/pet/ListModeSimulator.h"
#include "recon/pet/PetImageQuality.h"
#include "recon/pet/PetPipeline.h"
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

// parallelproj's images, measured with our ROI code: one row per image, sorted by name.
int measurePeerImages(const std::string& folder, const std::string& out) {
  const pet::PetPhantom phantom;
  const VolumeGrid grid = VolumeGrid::centred({144, 144, 48}, Eigen::Vector3d::Constant(4.0));
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(folder))
    if (entry.path().extension() == ".raw" &&
        entry.path().filename().string().rfind("pp_lm_", 0) == 0)
      files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  std::ostringstream md;
  md << "## parallelproj's images measured with PetImageQuality\n\n"
     << "| image | mean hot CRC | noise |\n|---|---|---|\n";
  for (const auto& f : files) {
    Volume v = grid.makeVolume();
    std::ifstream in(f, std::ios::binary);
    in.read(reinterpret_cast<char*>(v.data()), std::streamsize(v.voxels().size() * sizeof(float)));
    if (!in) {
      md << "| " << f.filename().string() << " | unreadable (size?) | |\n";
      continue;
    }
    const pet::PetImageQuality q = pet::measurePetImageQuality(v, phantom);
    md << "| " << f.filename().string() << " | " << fixed(q.meanHotCrc, 3) << " | "
       << fixed(100 * q.noise, 1) << " % |\n";
  }
  std::ofstream(out) << md.str();
  std::printf("%s", md.str().c_str());
  return 0;
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
  std::vector<double> qualityEvents;
  std::string qualityDir;
  bool sweeps = true;
  app.add_option("--quality-events", qualityEvents,
                 "prompt counts of the simulated phantom for the image-quality rows (none: skip)");
  app.add_option("--quality-dir", qualityDir, "write the simulated list-mode files here");
  app.add_flag("!--no-sweeps", sweeps, "skip the kernel-size sweeps");
  double ramlaLambda0 = 1.0;
  app.add_option("--ramla-lambda0", ramlaLambda0, "RAMLA's first relaxation in the quality rows");
  bool gpuSimulator = false;
  app.add_flag("--gpu-simulator", gpuSimulator, "simulate the quality rows' events on the GPU");
  bool qualityAttenuation = true;
  app.add_flag("!--no-attenuation", qualityAttenuation,
               "simulate the image-quality phantom without attenuation (and correct for none)");
  bool timing = true;
  app.add_flag("!--no-timing", timing,
               "skip the projector, iteration and deposition timings (image quality only)");
  std::string peerImages;
  app.add_option(
      "--peer-images", peerImages,
      "only measure parallelproj's images (pp_lm_<events>_it<k>.raw, 144x144x48 at 4 mm) "
      "in this folder with PetImageQuality, and write that table");
  CLI11_PARSE(app, argc, argv);
  if (!peerImages.empty()) return measurePeerImages(peerImages, out);

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
    if (!timing) break;
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
  if (timing) {
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
    if (!timing) break;
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

  // --- Seed Fig. 4: time per view against the kernel size (TOF, radial width, voxel size), with
  // the straight-line fit of time on the offset count (digest test 10: R^2 > 0.95).
  if (sweeps) {
    md << "## Kernel-size sweeps (seed Fig. 4), forward projection of all 120 views\n\n"
       << "ms per view (median of " << runs
       << "). The spatial schemes' time should grow with the offset count, the FFT's not.\n\n"
       << "| sweep | case | grid | offsets | gather-tex | gather-reg | fft "
          "|\n|---|---|---|---|---|---|---|\n";
    struct SweepCase {
      std::string sweep, name;
      double tofPs, radialMm, axialMm, voxelMm;
      VolumeShape shape;
    };
    std::vector<SweepCase> cases;
    for (double ps : {300.0, 600.0, 900.0, 1200.0})
      cases.push_back({"TOF", fixed(ps, 0) + " ps, r 10, a 5", ps, 10, 5, 4, {144, 144, 48}});
    for (double r : {5.0, 10.0, 15.0, 20.0})
      cases.push_back(
          {"radial", "300 ps, r " + fixed(r, 0) + ", a 5", 300, r, 5, 4, {144, 144, 48}});
    cases.push_back({"voxel", "375 ps, 6.5 mm, 4 mm voxels", 375, 6.5, 6.5, 4, {144, 144, 48}});
    cases.push_back(
        {"voxel", "375 ps, 6.5 mm, 2 mm voxels (caption)", 375, 6.5, 6.5, 2, {144, 144, 48}});
    cases.push_back(
        {"voxel", "375 ps, 6.5 mm, 2 mm voxels (text)", 375, 6.5, 6.5, 2, {288, 288, 96}});
    std::map<std::string, std::vector<std::pair<double, double>>> fits;  // scheme -> (offsets, t)
    for (const SweepCase& c : cases) {
      DirectKernelParams kp;
      kp.tofFwhmPs = c.tofPs;
      kp.radialFwhmMm = c.radialMm;
      kp.axialFwhmMm = c.axialMm;
      pet::DirectProblem problem = paperProblem(kp);
      problem.grid = VolumeGrid::centred(c.shape, Eigen::Vector3d::Constant(c.voxelMm));
      auto k = std::make_shared<const pet::DirectKernels>(problem.grid, problem.views, kp);
      const Volume image = phantomImage(problem.grid);
      md << "| " << c.sweep << " | " << c.name << " | " << c.shape.nx << "x" << c.shape.ny << "x"
         << c.shape.nz << " | " << fixed(meanOffsets(*k), 0);
      for (GpuDirectScheme s :
           {GpuDirectScheme::GatherTex, GpuDirectScheme::GatherReg, GpuDirectScheme::Fft}) {
        std::string why;
        auto pair = pet::makeGpuDirectPair(problem, k, s, s, why);
        if (!pair) {
          md << " | refused";
          continue;
        }
        auto x = pair->useVolume(image);
        auto y = pair->makeProjections();
        const RunStats fp = timed(runs, [&] { pair->forward(*x, *y, {}, context); });
        const double perView = fp.median / problem.views.count();
        md << " | " << fixed(perView * 1e3, 3);
        if (c.sweep != "voxel") fits[schemeName(s)].push_back({meanOffsets(*k), perView});
      }
      md << " |\n";
    }
    md << "\nStraight-line fit of time per view on the offset count (TOF and radial sweeps):\n\n"
       << "| scheme | ms per 1000 offsets | R^2 |\n|---|---|---|\n";
    for (const auto& [scheme, points] : fits) {
      double sx = 0, sy = 0, sxx = 0, sxy = 0, syy = 0;
      const double n = double(points.size());
      for (const auto& [x, y] : points) {
        sx += x;
        sy += y;
        sxx += x * x;
        sxy += x * y;
        syy += y * y;
      }
      const double slope = (n * sxy - sx * sy) / (n * sxx - sx * sx);
      const double r = (n * sxy - sx * sy) / std::sqrt((n * sxx - sx * sx) * (n * syy - sy * sy));
      md << "| " << scheme << " | " << fixed(slope * 1e6, 4) << " | " << fixed(r * r, 3) << " |\n";
    }
    md << "\n";
  }

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
    if (!timing) break;
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

  // --- Image quality on simulated data of the seed's phantom (the same events parallelproj gets:
  // one simulation of the largest count, each smaller count its first prompts).
  std::sort(qualityEvents.begin(), qualityEvents.end());
  const pet::ScannerModel qs = pet::scannerPreset("penn-labr3");
  const pet::PetPhantom phantom;
  pet::SimulatedListMode sim;
  pet::ListModeHeader fullHeader;
  double simSeconds = 0;
  const VolumeGrid fine = VolumeGrid::centred({288, 288, 96}, Eigen::Vector3d::Constant(2.0));
  const Volume mu = qualityEvents.empty() ? Volume() : phantom.attenuation(fine);
  const Volume* muUsed = qualityAttenuation ? &mu : nullptr;
  if (!qualityEvents.empty()) {
    const Volume activity = phantom.activity(fine);
    pet::ListModeSimulationParams sp;
    sp.seed = 20261126;
    sp.requestedPrompts = static_cast<std::int64_t>(qualityEvents.back());
    const double simStart = omp_get_wtime();
    if (gpuSimulator)
      sim = pet::simulateListModeGpu(qs, activity, muUsed, sp, {}, context);
    else
      sim = pet::simulateListMode(qs, activity, muUsed, sp, context);
    simSeconds = omp_get_wtime() - simStart;
    fullHeader = pet::simulatedListModeHeader(qs, sp, sim.report);
    if (!qualityDir.empty()) {
      pet::ListModeWriter writer(qualityDir + "/phantom.tlm", fullHeader);
      writer.append(sim.events);
      writer.commit(fullHeader);
    }
    std::printf("simulated %lld prompts in %.1f s\n", (long long)sim.report.prompts(), simSeconds);
  }
  for (double count : qualityEvents) {
    // The first `count` prompts (and the delayed events among them).
    std::size_t end = 0;
    std::int64_t prompts = 0;
    while (end < sim.events.size() && prompts < std::int64_t(count)) {
      if ((sim.events[end].flags & pet::kEventDelayed) == 0) ++prompts;
      ++end;
    }
    const std::span<const pet::ListModeEvent> events(sim.events.data(), end);
    pet::ListModeHeader header = fullHeader;
    header.acquisitionSeconds *=
        double(prompts) / double(std::max<std::int64_t>(sim.report.prompts(), 1));
    pet::HistoImagingParams hp;
    hp.grid = VolumeGrid::centred({144, 144, 48}, Eigen::Vector3d::Constant(4.0));
    const double histoStart = omp_get_wtime();
    const pet::PetHistoSet set = pet::makeHistoSet(header, events, muUsed, hp, context);
    const double histoSeconds = omp_get_wtime() - histoStart;
    md << "## Image quality, " << scientific(count) << " prompts of the seed's phantom\n\n"
       << "penn-labr3, 400 ps, " << (qualityAttenuation ? "attenuation and " : "no attenuation, ")
       << "randoms (10 %) simulated and corrected; simulation of "
       << scientific(double(sim.report.prompts())) << " prompts " << fixed(simSeconds, 1) << " s ("
       << (gpuSimulator ? "GPU" : "CPU, " + std::to_string(omp_get_max_threads()))
       << " threads), deposition and corrections " << fixed(histoSeconds, 1)
       << " s (CPU). gather-reg on the GPU; RAMLA lambda0 " << fixed(ramlaLambda0, 3)
       << ", beta 5 passes. Mean hot-sphere CRC / noise (SD / mean, 50 mm disc) per iteration.\n\n"
       << "| algorithm | LOR kernel | it 1 | it 2 | it 5 | it 10 | it 20 | CRC hot at 8 % noise | "
          "s / "
          "iteration |\n|---|---|---|---|---|---|---|---|---|\n";
    struct AlgorithmCase {
      const char* name;
      pet::EmAlgorithm algorithm;
      int subsets;
    };
    const AlgorithmCase algorithms[] = {{"ML-EM", pet::EmAlgorithm::Mlem, 1},
                                        {"OSEM 12", pet::EmAlgorithm::Osem, 12},
                                        {"RAMLA 120", pet::EmAlgorithm::Ramla, 120}};
    for (const AlgorithmCase& ac : algorithms)
      for (const KernelCase& kc : kernels) {
        if (kc.profile == LorWidthProfile::Variant3) continue;
        pet::PetReconParams rp;
        rp.recon.algorithm = ac.algorithm;
        rp.recon.iterations = 20;
        rp.recon.subsets = ac.subsets;
        rp.recon.lambda0 = ramlaLambda0;
        rp.recon.kernel.profile = kc.profile;
        rp.recon.device = VariantDevice::Gpu;
        rp.recon.publishEvery = 0;
        const pet::PetReconResult r = pet::reconstructHistoSet(
            set, rp, context,
            [&](const Volume& image) -> std::vector<std::pair<std::string, double>> {
              const pet::PetImageQuality q = pet::measurePetImageQuality(image, phantom);
              return {{"crc-hot", q.meanHotCrc}, {"noise", q.noise}};
            });
        auto metric = [&](const IterationRecord& rec, const char* name) {
          for (const auto& [k, v] : rec.metrics)
            if (k == name) return v;
          return 0.0;
        };
        md << "| " << ac.name << " | " << kc.name;
        for (int it : {1, 2, 5, 10, 20}) {
          const IterationRecord& rec = r.report.iterations[std::size_t(it - 1)];
          md << " | " << fixed(metric(rec, "crc-hot"), 3) << " / "
             << fixed(100 * metric(rec, "noise"), 1) << " %";
        }
        // CRC at 8 % noise: linear between the iterations around it.
        std::string atEight = "not reached";
        for (std::size_t i = 0; i < r.report.iterations.size(); ++i) {
          const double n0 = i == 0 ? 0.0 : metric(r.report.iterations[i - 1], "noise");
          const double n1 = metric(r.report.iterations[i], "noise");
          if (n0 <= 0.08 && n1 >= 0.08 && n1 > n0) {
            const double f = (0.08 - n0) / (n1 - n0);
            const double c0 = i == 0 ? 0.0 : metric(r.report.iterations[i - 1], "crc-hot");
            atEight = fixed(c0 * (1 - f) + metric(r.report.iterations[i], "crc-hot") * f, 3);
            break;
          }
        }
        std::vector<double> seconds;
        for (const auto& rec : r.report.iterations) seconds.push_back(rec.seconds);
        md << " | " << atEight << " | " << fixed(summarize(seconds).median, 3) << " |\n";
        std::printf("quality %.1e %s %s done\n", count, ac.name, kc.name);
        std::ofstream(out) << md.str();  // what is done so far, should the call be cut short
      }
    md << "\n";
  }

  std::ofstream(out) << md.str();
  std::printf("%s", md.str().c_str());
  return 0;
}
