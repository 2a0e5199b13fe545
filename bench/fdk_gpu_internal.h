// fdk_gpu_internal.h: what the fdk_gpu*.cpp files of tomowb-bench-fdk-gpu share and nothing else
// includes: the options, the scan constants, the table rows, the context and the report writer,
// and the measuring, table and cross-check functions each file gives the others.
#pragma once

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "bench/BenchSupport.h"
#include "recon/fdk/Fdk.h"

namespace fdk_gpu {

using namespace tomowb;
using bench::fixed;
using bench::RunStats;
using bench::scientific;
using Clock = std::chrono::steady_clock;
using nlohmann::json;

// Views of the RabbitCT-like scan: 496 unless --views says otherwise (quick checks).
inline std::int64_t scanViews = 496;
constexpr double kCubeMm = 256.0;
// The skull's largest semi-axis is 0.92 x this: 110 mm, inside the 128 mm half-cube.
constexpr double kPhantomScaleMm = 120.0;
const std::vector<std::string> kTableOrder{
    "naive",        "tex",           "tex-multi", "slab",        "layered16",
    "hybrid",       "mirror-float2", "soft",      "soft-mirror", "soft-mirror-half",
    "mirror-half2", "mirror-hybrid", "fast"};

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
  // The same runs into one volume kept between them (reconstructFdkInto): no host volume to
  // allocate and pin.
  RunStats oneGpuReused, twoGpusReused;
  double maxAbsDifference = 0;
  fdk::FdkReport oneReport, twoReport;  // the median runs'
  fdk::FdkReport twoReusedReport;
  bool reusedSameAsFresh = false;  // the two-GPU volumes, bit for bit
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

// fdk_gpu_measure.cpp: helpers, the kernel rows, end to end, one GPU against two.
double secondsSince(Clock::time_point start);
std::string fullName(const std::string& name);
std::pair<std::string, std::map<std::string, std::string>> splitVariant(const std::string& spec);
void progress(const std::string& line);
fdk::VolumeGrid cubeGrid(std::int64_t size, double sideMm = kCubeMm);
Volume emptyVolume(const fdk::VolumeGrid& grid);
double updates(std::int64_t size, std::int64_t views = scanViews);
double gupsOf(double voxelUpdates, double seconds);
json toJson(const RunStats& s);
double ceilingFor(const Context& ctx, const std::string& kernel);
RunStats timeKernel(const ProjectionStack& stack, const std::string& variant, int device,
                    int repeats, Volume& volume, std::string& kernel, double* uploadSeconds);
fdk::FdkParams fdkParams(const fdk::VolumeGrid& grid, const std::string& variant,
                         std::vector<int> devices);
std::vector<KernelRow> kernelRowsForSize(Context& ctx, std::int64_t size);
EndToEndRow endToEnd(const Context& ctx, std::int64_t size, const std::string& variant);
MultiGpuRow multiGpu(const Context& ctx, std::int64_t size, const std::string& variant);

// fdk_gpu_tables.cpp: the Markdown tables, the headline and the rows' JSON.
std::string kernelTableHeader();
std::string kernelTableRows(const Context& ctx, const std::vector<KernelRow>& rows);
std::string headline(const Context& ctx);
std::string endToEndTable(const std::vector<EndToEndRow>& rows);
std::string multiGpuTable(const std::vector<MultiGpuRow>& rows);
json toJson(const Context& ctx, const KernelRow& r);
json toJson(const EndToEndRow& r);

// fdk_gpu_cross_check.cpp: one kernel timed three ways.
void crossCheckSection(Context& ctx, ReportWriter& writer);

}  // namespace fdk_gpu
