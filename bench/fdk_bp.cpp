// Backprojection throughput of the FDK kernel variants (DESIGN.md, "Measuring"): GUPS = voxel
// updates per second / 1e9, one backprojection of nx*ny*nz voxels from n views being nx*ny*nz*n
// updates. Kernel only: the projections are already weighted and filtered; no file I/O. Prints
// a markdown table (device, sizes, variant, threads, seconds, GUPS total and per thread) and
// appends it to --out when given.
#include <omp.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "recon/fdk/BackprojectorCpu.h"
#include "recon/geometry/ScanBuilders.h"
#include "recon/variant/VariantRegistry.h"

namespace {

std::string cpuModel() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("model name", 0) == 0) return line.substr(line.find(':') + 2);
  return "unknown CPU";
}

std::string today() {
  const std::time_t now = std::time(nullptr);
  char text[16];
  std::strftime(text, sizeof text, "%Y-%m-%d", std::gmtime(&now));
  return text;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace tomowb;
  CLI::App app{"FDK backprojection benchmark (kernel only, GUPS = 1e9 voxel updates / s)"};
  std::vector<std::string> variants{"fdk.bp.cpu"};
  std::vector<std::int64_t> sizes{128, 256};
  std::vector<int> threads{1, 2};
  std::int64_t views = 360;
  int repeats = 3;
  std::string out;
  app.add_option("--variant", variants, "kernel variants to time")->capture_default_str();
  app.add_option("--size", sizes, "cubic volume edges")->capture_default_str();
  app.add_option("--views", views, "projections (full circular turn)")->capture_default_str();
  app.add_option("--threads", threads, "OpenMP thread counts to try")->capture_default_str();
  app.add_option("--repeats", repeats, "timed runs per case (the best is reported)")
      ->capture_default_str();
  app.add_option("--out", out, "append the markdown table to this file");
  CLI11_PARSE(app, argc, argv);

  std::ostringstream table;
  table << "\n## " << today() << ": FDK backprojection, kernel only\n\n"
        << "Device: " << cpuModel() << " (" << omp_get_num_procs() << " logical CPUs), "
        << (fdk::cpuBackprojectorUsesAvx2() ? "AVX2 + FMA path" : "scalar path") << ".\n"
        << "Command: `";
  for (int i = 0; i < argc; ++i) table << (i ? " " : "") << argv[i];
  table << "`\n\nGeometry: circular cone beam, SOD 500 mm, SDD 1000 mm, " << views
        << " views, detector 1.5 x the volume edge in pixels; random filtered projections. "
           "Best of "
        << repeats << " runs.\n\n"
        << "| variant | volume | views | threads | seconds | GUPS total | GUPS per thread |\n"
        << "|---|---|---|---|---|---|---|\n";
  std::printf("%s", table.str().c_str());
  std::ostringstream rows;
  for (std::int64_t n : sizes) {
    CircularConeParams p;
    p.sourceToIsocentreMm = 500;
    p.sourceToDetectorMm = 1000;
    p.detector.cols = p.detector.rows = n + n / 2;
    p.detector.pitchUMm = p.detector.pitchVMm = 2.0 * 256.0 / double(n);
    p.anglesRad = fullScanAnglesRad(views);
    ProjectionStack stack(circularConeBeam(p));
    std::mt19937 rng(1);
    std::uniform_real_distribution<float> u(0.0f, 1.0f);
    for (float& x : stack.pixels()) x = u(rng);
    for (const std::string& name : variants) {
      const KernelVariant& variant = VariantRegistry::builtins().require(name);
      for (int t : threads) {
        omp_set_num_threads(t);
        double best = 1e300;
        for (int r = 0; r < repeats; ++r) {
          Volume volume = Volume::centred({n, n, n}, Eigen::Vector3d::Constant(256.0 / double(n)));
          JobContext context;
          const auto start = std::chrono::steady_clock::now();
          variant.backproject(stack, volume, context);
          best = std::min(
              best,
              std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
        }
        const double gups = double(n) * double(n) * double(n) * double(views) / best / 1e9;
        char row[256];
        std::snprintf(row, sizeof row, "| %s | %lld^3 | %lld | %d | %.3f | %.3f | %.3f |\n",
                      name.c_str(), static_cast<long long>(n), static_cast<long long>(views), t,
                      best, gups, gups / t);
        std::printf("%s", row);
        std::fflush(stdout);
        rows << row;
      }
    }
  }
  if (!out.empty()) std::ofstream(out, std::ios::app) << table.str() << rows.str();
  return 0;
}
