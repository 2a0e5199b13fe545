// The separable-footprint GPU projectors (issue #19, point 6; ../shared/reference/sf-projectors.md
// sections 5 and 9) on the cases of bench/leap/SfBenchCases.h, which the LEAP driver measures too:
// the seed's Table I (one helical turn, forward) and Table II (8 turns, forward and back), and the
// flat-panel circular case. Device-resident float32 arrays, through each registered pair's
// bindDevicePair (what the solvers run): min / median / max of at least 5 timed runs after a
// warm-up, seconds, ms per view and G voxel-view pairs per second (nominal: voxels x views; in
// beam: the pairs whose voxel centre projects onto the detector).
//
// The GE cases run on the arc (cylindrical) detector of the seed, as LEAP's driver does.
//
//   tomowb-bench-sf [--runs 5] [--cases ge_helical_1turn,flat_circular_720] [--out FILE.md]
#include <CLI/CLI.hpp>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <functional>
#include <iostream>
#include <numbers>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "bench/BenchSupport.h"
#include "bench/leap/SfBenchCases.h"
#include "recon/catalog/Builtins.h"
#include "recon/geometry/ScanBuilders.h"
#include "recon/iterative/IterativeReconstruction.h"
#include "recon/operator/ProjectorPair.h"
#include "recon/variant/VariantRegistry.h"

namespace {

using namespace tomowb;
using Clock = std::chrono::steady_clock;
namespace sf = bench::sf;

constexpr double kDeg = std::numbers::pi / 180.0;

Geometry geometryOf(const sf::ConeCase& c) {
  CircularConeParams p;
  p.sourceToIsocentreMm = c.sodMm;
  p.sourceToDetectorMm = c.sddMm;
  p.detector.cols = c.nCols;
  p.detector.rows = c.nRows;
  p.detector.pitchVMm = c.rowPitchMm;
  // Arc: a cylinder centred on the source, colPitchMm the arc length per channel.
  p.detector.pitchUMm = c.colPitchMm;
  if (c.shape == sf::DetectorShape::Arc) p.detector.surface = DetectorSurface::Cylinder;
  p.detector.offsetUMm = c.colOffsetPixels * p.detector.pitchUMm;
  p.detector.offsetVMm = c.rowOffsetPixels * c.rowPitchMm;
  for (int k = 0; k < c.nViews; ++k) p.anglesRad.push_back(c.angleDeg(k) * kDeg);
  if (c.tableFeedPerTurnMm == 0.0) return circularConeBeam(p);
  HelicalConeParams h;
  h.circular = p;
  h.pitch = c.tableFeedPerTurnMm / (double(c.nRows) * c.rowPitchMm * c.sodMm / c.sddMm);
  h.startZMm = c.sourceZMm(0);
  return helicalConeBeam(h);
}

VolumeGrid gridOf(const sf::ConeCase& c) {
  return VolumeGrid::centred({c.nx, c.ny, c.nz},
                             Eigen::Vector3d(c.voxelXyMm, c.voxelXyMm, c.voxelZMm));
}

// The adjoint test of the SF-TR pairs sf.fp.wu-fessler + sf.bp.gather and + sf.bp.wu-fessler at
// full size: the digest's rho (uniform x, y >= 0, relative to the larger dot product; at most 1e-5
// for 512^3 with 984 views) and, with zero-mean vectors, the gap relative to the norms' products.
// Markdown table rows.
std::string adjointRows(const sf::ConeCase& c, const Geometry& geometry, const VolumeGrid& grid,
                        const VariantRegistry& registry) {
  std::string rows;
  std::mt19937 rng(11);
  for (const char* backName : {"sf.bp.gather", "sf.bp.wu-fessler"}) {
    const KernelVariant& fp = registry.require("sf.fp.wu-fessler");
    const op::ProjectorProblem problem{&geometry, grid, {}};
    std::string why;
    std::unique_ptr<op::ProjectorPair> pair =
        fp.bindDevicePair(fp, registry.require(backName), problem, why);
    if (!pair) continue;
    for (const float low : {0.0f, -1.0f}) {
      std::uniform_real_distribution<float> u(low, 1.0f);
      Volume x = grid.makeVolume();
      for (float& v : x.voxels()) v = u(rng);
      ProjectionStack y(geometry);
      for (float& v : y.pixels()) v = u(rng);
      JobContext context;
      std::unique_ptr<op::Array> ax = pair->makeProjections();
      pair->forward(*pair->useVolume(x), *ax, {}, context);
      std::unique_ptr<op::Array> aty = pair->makeVolume();
      pair->adjoint(*pair->useProjections(y), *aty, {}, context);
      std::vector<float> axHost(ax->size()), atyHost(aty->size());
      pair->ops().download(*ax, axHost);
      pair->ops().download(*aty, atyHost);
      double fDot = 0, bDot = 0, axN = 0, yN = 0, xN = 0, atyN = 0;
      for (std::size_t i = 0; i < axHost.size(); ++i) {
        fDot += double(axHost[i]) * y.pixels()[i];
        axN += double(axHost[i]) * axHost[i];
        yN += double(y.pixels()[i]) * y.pixels()[i];
      }
      for (std::size_t i = 0; i < atyHost.size(); ++i) {
        bDot += double(atyHost[i]) * x.voxels()[i];
        atyN += double(atyHost[i]) * atyHost[i];
        xN += double(x.voxels()[i]) * x.voxels()[i];
      }
      const double gap = std::abs(fDot - bDot);
      const double rho = gap / std::max(std::abs(fDot), std::abs(bDot));
      const double normed = gap / std::max(std::sqrt(axN * yN), std::sqrt(xN * atyN));
      char line[400];
      std::snprintf(line, sizeof line,
                    "| %s | sf.fp.wu-fessler + %s | %s | rho %.3g | %.3g of the norms |\n", c.name,
                    backName, low == 0.0f ? "x, y uniform on [0, 1]" : "zero-mean", rho, normed);
      rows += line;
      std::fprintf(stderr, "  adjoint %s", line);
    }
  }
  return rows;
}

struct Row {
  std::string caseName, variant, direction;
  bench::RunStats stats;
  double views = 0, nominalPairs = 0, inBeamPairs = 0;
};

bool singleCall = false;  // --single

bench::RunStats timeRuns(int runs, const std::function<void()>& fn) {
  fn();  // warm-up: plans, scratch, clocks
  if (singleCall) return {};
  std::vector<double> seconds;
  for (int r = 0; r < runs; ++r) {
    const auto start = Clock::now();
    fn();
    seconds.push_back(std::chrono::duration<double>(Clock::now() - start).count());
  }
  return bench::summarize(seconds);
}

}  // namespace

int main(int argc, char** argv) {
  catalog::installBuiltinVariants();
  CLI::App app{"Separable-footprint GPU projectors on the SfBenchCases.h cases"};
  int runs = bench::kMinTimedRuns;
  std::string only, outPath, slowOnly, pwlsCases, ttCases, adjointCases;
  int pwlsSubsets = 24;
  std::string pwlsForward = "sf.fp.wu-fessler", pwlsBack = "sf.bp.gather";
  bool single = false;
  app.add_option("--runs", runs, "timed runs per row (at least 5)")->check(CLI::Range(5, 100));
  app.add_option("--cases", only, "comma-separated case names (default: all timed cases)");
  app.add_option("--out", outPath, "also write the table to this markdown file");
  app.add_option("--gather-cases", slowOnly,
                 "comma-separated cases the gather forward projectors run on (default: all; they "
                 "are the slow, deterministic ones)");
  app.add_option("--tt-cases", ttCases,
                 "comma-separated cases the SF-TT pairs run on (default: all)");
  app.add_option("--adjoint-cases", adjointCases,
                 "comma-separated cases to run the adjoint test on at full size (the SF-TR pairs "
                 "sf.fp.wu-fessler + sf.bp.gather and + sf.bp.wu-fessler; default: none)");
  app.add_option("--pwls-cases", pwlsCases,
                 "comma-separated cases to time PWLS-OS-SQS iterations on (SF-TR, the pair of "
                 "--pwls-forward and --pwls-back; default: none)");
  app.add_option("--pwls-subsets", pwlsSubsets, "ordered subsets of the PWLS iterations");
  app.add_option("--pwls-forward", pwlsForward, "the PWLS iterations' forward projector");
  app.add_option("--pwls-back", pwlsBack, "the PWLS iterations' backprojector");
  app.add_flag("--single", single,
               "one untimed call per projector (for a profiler such as ncu), no table");
  CLI11_PARSE(app, argc, argv);
  singleCall = single;
  auto listed = [](const std::string& list, const char* name) {
    return ("," + list + ",").find("," + std::string(name) + ",") != std::string::npos;
  };

  const VariantRegistry& registry = VariantRegistry::builtins();
  std::ostringstream table;
  table << "# Separable-footprint GPU projectors, " << bench::utcNow() << "\n\n"
        << "Command: `" << bench::commandLine(argc, argv) << "`\n\n"
        << "| case | detector | variant | direction | seconds min / median / max | ms / view | "
           "G pairs/s nominal | G pairs/s in beam |\n|---|---|---|---|---|---|---|---|\n";
  std::vector<Row> rows;
  std::string adjointTable;
  for (const sf::ConeCase& c : sf::kTimedCases) {
    if (!only.empty() &&
        ("," + only + ",").find("," + std::string(c.name) + ",") == std::string::npos)
      continue;
    const Geometry geometry = geometryOf(c);
    const VolumeGrid grid = gridOf(c);
    const double nominal = double(c.nominalPairs());
    const double inBeam = double(sf::inBeamPairs(c));
    std::fprintf(stderr, "%s: %d views, %.3g nominal pairs, %.3g in beam\n", c.name, c.nViews,
                 nominal, inBeam);
    Volume volume = grid.makeVolume();
    {
      std::mt19937 rng(7);
      std::uniform_real_distribution<float> u(0.0f, 1.0f);
      for (float& v : volume.voxels()) v = u(rng);
    }
    for (const KernelVariant* fp : registry.withRole(VariantRole::ForwardProjector)) {
      if (!fp->needsGpu || fp->name.rfind("sf.", 0) != 0) continue;
      if (fp->model == "sf-tt" && !ttCases.empty() && !listed(ttCases, c.name)) continue;
      // Bound with the first GPU backprojector of its model; the backprojectors that name it as
      // their forward projector are timed after it, each once.
      std::vector<const KernelVariant*> transposes;
      const KernelVariant* bp = nullptr;
      for (const KernelVariant* b : registry.withRole(VariantRole::Backprojector)) {
        if (!b->needsGpu || b->model != fp->model || b->name.rfind("sf.", 0) != 0) continue;
        if (!bp) bp = b;
        if (b->adjointOf == fp->name) transposes.push_back(b);
      }
      if (!bp) continue;
      const op::ProjectorProblem problem{&geometry, grid, {}};
      auto bind = [&](const KernelVariant& back) -> std::unique_ptr<op::ProjectorPair> {
        std::string why;
        std::unique_ptr<op::ProjectorPair> pair;
        try {
          pair = fp->bindDevicePair(*fp, back, problem, why);
        } catch (const std::exception& e) {
          why = e.what();
        }
        if (!pair)
          std::fprintf(stderr, "  %s + %s: not run: %s\n", fp->name.c_str(), back.name.c_str(),
                       why.c_str());
        return pair;
      };
      std::unique_ptr<op::ProjectorPair> pair = bind(*bp);
      if (!pair) continue;
      const bool gather = fp->name.find("gather") != std::string::npos;
      const bool timeForward = !gather || slowOnly.empty() || listed(slowOnly, c.name);
      JobContext context;
      std::unique_ptr<const op::Array> x = pair->useVolume(volume);
      std::unique_ptr<op::Array> p = pair->makeProjections();
      if (timeForward) {
        Row f{c.name, fp->name, "forward", {}, double(c.nViews), nominal, inBeam};
        f.stats = timeRuns(runs, [&] { pair->forward(*x, *p, {}, context); });
        rows.push_back(f);
        std::fprintf(stderr, "  %-20s forward median %.3f s\n", fp->name.c_str(), f.stats.median);
      } else {
        pair->forward(*x, *p, {}, context);
      }
      for (const KernelVariant* back : transposes) {
        std::unique_ptr<op::ProjectorPair> withBack = bind(*back);
        if (!withBack) continue;
        std::unique_ptr<op::Array> b = withBack->makeVolume();
        Row r{c.name, back->name, "back", {}, double(c.nViews), nominal, inBeam};
        r.stats = timeRuns(runs, [&] { withBack->adjoint(*p, *b, {}, context); });
        rows.push_back(r);
        std::fprintf(stderr, "  %-20s back median %.3f s\n", back->name.c_str(), r.stats.median);
      }
    }
    if (listed(adjointCases, c.name)) adjointTable += adjointRows(c, geometry, grid, registry);
    if (listed(pwlsCases, c.name)) {
      // One setup (d = A^T W A 1), then iterations of all views in pwlsSubsets subsets; the first
      // iteration is the warm-up.
      const int iterations = runs + 1;
      ProjectionStack data(geometry);
      {
        const op::ProjectorProblem problem{&geometry, grid, {}};
        const KernelVariant& fp = registry.require(pwlsForward);
        std::string why;
        std::unique_ptr<op::ProjectorPair> pair =
            fp.bindDevicePair(fp, registry.require(pwlsBack), problem, why);
        JobContext context;
        std::unique_ptr<op::Array> p = pair->makeProjections();
        pair->forward(*pair->useVolume(volume), *p, {}, context);
        pair->ops().download(*p, data.pixels());
      }
      iterative::IterativeParams params;
      params.method = iterative::IterativeMethod::Pwls;
      params.volume = grid;
      params.iterations = iterations;
      params.subsets = pwlsSubsets;
      params.lowerBound = 0.0;
      params.forwardVariant = pwlsForward;
      params.backVariant = pwlsBack;
      params.pwls.beta = 1e-3;
      JobContext context;
      iterative::IterativeReport report;
      iterative::reconstructIterative(data, params, context, &report);
      std::vector<double> seconds;
      for (std::size_t i = 1; i < report.iterations.size(); ++i)
        seconds.push_back(report.iterations[i].seconds);
      Row r{c.name,
            "pwls " + std::to_string(pwlsSubsets) + " subsets (" + report.device + ")",
            "one iteration",
            bench::summarize(seconds),
            double(c.nViews),
            nominal,
            inBeam};
      std::fprintf(stderr, "  PWLS iteration median %.3f s (setup %.3f s)\n", r.stats.median,
                   report.setupSeconds);
      rows.push_back(r);
    }
    for (const Row& r : rows) {
      if (r.caseName != c.name) continue;
      table << "| " << r.caseName << " | " << (c.shape == sf::DetectorShape::Flat ? "flat" : "arc")
            << " | " << r.variant << " | " << r.direction << " | "
            << bench::minMedianMax(r.stats, 1.0, 3) << " | "
            << bench::fixed(1e3 * r.stats.median / r.views, 3) << " | "
            << bench::fixed(r.nominalPairs / r.stats.median / 1e9, 1) << " | "
            << bench::fixed(r.inBeamPairs / r.stats.median / 1e9, 1) << " |\n";
    }
  }
  if (!adjointTable.empty())
    table << "\n## Adjoint test at full size\n\n| case | pair | vectors | |<Ax,y> - <x,A^T y>| / "
             "max dot | / max(|Ax| |y|, |x| |A^T y|) |\n|---|---|---|---|---|\n"
          << adjointTable;
  std::cout << table.str();
  if (!outPath.empty()) std::ofstream(outPath) << table.str();
  return 0;
}
