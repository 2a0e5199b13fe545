// Backprojection throughput of the CPU FDK kernel variants (DESIGN.md, "Measuring"): GUPS = voxel
// updates per second / 1e9, one backprojection of nx*ny*nz voxels from n views being nx*ny*nz*n
// updates. Kernel only: the projections are already weighted and filtered; no file I/O. Every
// row: min, median and max of --repeats (>= 5) timed runs after one warm-up run, and the error
// at sampled voxels against a float64 reference on two inputs: zero-mean random projections
// (like ramp-filtered data) and the positive line integrals of the modified Shepp-Logan phantom.
// The reference is computed once per size and input and shared by every variant and thread
// count. Prints a Markdown table and appends it to --out when given.
#include <omp.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "bench/BenchSupport.h"
#include "recon/catalog/Builtins.h"
#include "recon/fdk/BackprojectorCpu.h"
#include "recon/geometry/ScanBuilders.h"
#include "recon/phantom/AnalyticProjector.h"
#include "recon/phantom/Phantom.h"
#include "recon/variant/VariantRegistry.h"

namespace {

std::string cpuModel() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("model name", 0) == 0) return line.substr(line.find(':') + 2);
  return "unknown CPU";
}

}  // namespace

int main(int argc, char** argv) {
  tomowb::catalog::installBuiltinVariants();  // the composition root (recon/catalog/Builtins.h)
  using namespace tomowb;
  namespace b = tomowb::bench;
  CLI::App app{"CPU FDK backprojection benchmark (kernel only, GUPS = 1e9 voxel updates / s)"};
  std::vector<std::string> variants{"fdk.bp.cpu"};
  std::vector<std::int64_t> sizes{128, 256};
  std::vector<int> threads{1, 2};
  std::int64_t views = 360;
  int repeats = b::kMinTimedRuns;
  int samples = 1024;
  std::string out;
  app.add_option("--variant", variants, "kernel variants to time")->capture_default_str();
  app.add_option("--size", sizes, "cubic volume edges")->capture_default_str();
  app.add_option("--views", views, "projections (full circular turn)")->capture_default_str();
  app.add_option("--threads", threads, "OpenMP thread counts to try")->capture_default_str();
  app.add_option("--repeats", repeats, "timed runs per case after one warm-up (at least 5)")
      ->capture_default_str()
      ->check(CLI::Range(b::kMinTimedRuns, 1000));
  app.add_option("--samples", samples, "voxels sampled for the errors against float64")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  app.add_option("--out", out, "append the markdown table to this file");
  CLI11_PARSE(app, argc, argv);

  std::ostringstream table;
  table << "\n## " << b::utcNow() << ": FDK backprojection on the CPU, kernel only\n\n"
        << "Device: " << cpuModel() << " (" << omp_get_num_procs() << " logical CPUs), "
        << (fdk::cpuBackprojectorUsesAvx2() ? "AVX2 + FMA path" : "scalar path") << ".\n"
        << "Command: `" << b::commandLine(argc, argv) << "`\n\n"
        << "Geometry: circular cone beam, SOD 500 mm, SDD 1000 mm, " << views
        << " views, detector 1.5 x the volume edge in pixels, 256 mm cube. Timed input: zero-mean "
           "uniform [-1, 1) projections. Time: min / median / max of "
        << repeats
        << " runs after one warm-up run (wall clock); GUPS from the median. Fraction of the "
           "hardware limit: n/a, reference/gpu-limits-h100.md has no CPU ceiling. Errors: "
           "relative L2 at "
        << samples
        << " sampled voxels against a float64 reference of the same backprojection (bilinear, "
           "1/w^2), on the random input and on the positive line integrals of the modified "
           "Shepp-Logan phantom.\n\n"
        << "| variant | texels | volume | views | threads | runs | seconds min / median / max | "
           "GUPS total | GUPS per thread | fraction of hw limit | rel. L2 err, random zero-mean "
           "| rel. L2 err, Shepp-Logan (positive) |\n"
        << "|---|---|---|---|---|---:|---|---:|---:|---|---:|---:|\n";
  std::printf("%s", table.str().c_str());
  std::ostringstream rows;
  for (std::int64_t n : sizes) {
    CircularConeParams p;
    p.sourceToIsocentreMm = 500;
    p.sourceToDetectorMm = 1000;
    p.detector.cols = p.detector.rows = n + n / 2;
    p.detector.pitchUMm = p.detector.pitchVMm = 2.0 * 256.0 / double(n);
    p.anglesRad = fullScanAnglesRad(views);
    const Geometry geometry = circularConeBeam(p);
    ProjectionStack random(geometry);
    b::fillZeroMeanRandom(random);
    const ProjectionStack positive =
        phantom::projectPhantom(phantom::modifiedSheppLogan3d(100.0), geometry);
    const Volume grid = Volume::centred({n, n, n}, Eigen::Vector3d::Constant(256.0 / double(n)));
    const std::vector<b::VoxelSample> voxels = b::sampleVoxels(grid.shape(), samples);
    const std::vector<double> randomReference = b::referenceAtSamples(random, grid, voxels);
    const std::vector<double> positiveReference = b::referenceAtSamples(positive, grid, voxels);
    for (const std::string& name : variants) {
      const KernelVariant& variant = VariantRegistry::builtins().require(name);
      double randomError = NAN, positiveError = NAN;
      for (std::size_t ti = 0; ti < threads.size(); ++ti) {
        const int t = threads[ti];
        omp_set_num_threads(t);
        std::vector<double> seconds;
        for (int r = 0; r <= repeats; ++r) {  // run 0 warms up
          Volume volume = grid;
          JobContext context;
          const auto start = std::chrono::steady_clock::now();
          variant.backproject(random, volume, context);
          const double s =
              std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
          if (r > 0) seconds.push_back(s);
          if (r == 0 && ti == 0)
            randomError = b::relativeL2AtSamples(volume, voxels, randomReference);
        }
        if (ti == 0) {  // the error does not depend on the thread count: once per variant
          Volume volume = grid;
          JobContext context;
          variant.backproject(positive, volume, context);
          positiveError = b::relativeL2AtSamples(volume, voxels, positiveReference);
        }
        const b::RunStats stats = b::summarize(seconds);
        const double gups = double(n) * double(n) * double(n) * double(views) / stats.median / 1e9;
        std::ostringstream row;
        row << "| " << name << " | " << b::fdkTexelFormat(name) << " | " << n << "^3 | " << views
            << " | " << t << " | " << stats.runs << " | " << b::minMedianMax(stats, 1.0, 3) << " | "
            << b::fixed(gups, 3) << " | " << b::fixed(gups / t, 3) << " | n/a | "
            << b::scientific(randomError) << " | " << b::scientific(positiveError) << " |\n";
        std::printf("%s", row.str().c_str());
        std::fflush(stdout);
        rows << row.str();
      }
    }
  }
  if (!out.empty()) std::ofstream(out, std::ios::app) << table.str() << rows.str();
  return 0;
}
