// leap_sf_bench.cpp — our driver that times LEAP's (github LLNL/LEAP, MIT) separable-footprint GPU
// projectors on the issue #19 cases of SfBenchCases.h, with device-resident float32 arrays, and
// runs an adjoint test with zero-mean random vectors. It calls LEAP only through its public C
// interface (tomographic_models_c_interface.h); LEAP itself is built from its public source by
// build-leap.sh and is never part of this repository.
//
// Usage: leap_sf_bench [--out DIR] [--reps N] [--cases a,b,...|none] [--no-adjoint]
// [--small-adjoint]
// (--small-adjoint: the adjoint test on the small cases only, not also on flat_circular_720 and
// ge_helical_1turn)
//
// Timing: each row is one LEAP API call, project(g, f, false) or backproject(g, f, false), with g
// and f cudaMalloc'ed device pointers (data_on_cpu = false: no host transfers). It includes what
// LEAP does inside that call (its texture arrays' allocation and copy, the kernels, the frees),
// bracketed by cudaDeviceSynchronize; one warm-up call, then N timed calls (min / median / max of
// wall seconds).

#include <cuda_runtime.h>
#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <string>
#include <vector>

#include "SfBenchCases.h"
#include "tomographic_models_c_interface.h"

namespace {

using tomowb::bench::sf::ConeCase;
using tomowb::bench::sf::DetectorShape;

constexpr int kLeapSeparableFootprint =
    2;  // parameters::SEPARABLE_FOOTPRINT in LEAP's parameters.h
constexpr double kPi = 3.14159265358979323846;

#define CUDA_CHECK(call)                                                                     \
  do {                                                                                       \
    cudaError_t err_ = (call);                                                               \
    if (err_ != cudaSuccess) {                                                               \
      std::fprintf(stderr, "CUDA error %s at %s:%d: %s\n", cudaGetErrorName(err_), __FILE__, \
                   __LINE__, cudaGetErrorString(err_));                                      \
      std::exit(2);                                                                          \
    }                                                                                        \
  } while (0)

template <typename T>
struct DeviceBuffer {
  T* ptr = nullptr;
  std::size_t count = 0;
  explicit DeviceBuffer(std::size_t n) : count(n) { CUDA_CHECK(cudaMalloc(&ptr, n * sizeof(T))); }
  ~DeviceBuffer() { cudaFree(ptr); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
};

// Sets LEAP's current model to the case's geometry and volume, SF projector, GPU 0.
bool configureLeap(const ConeCase& c) {
  reset();
  set_log_warning();
  std::vector<float> phis(c.nViews);
  for (int k = 0; k < c.nViews; ++k) phis[k] = float(c.angleDeg(k));  // LEAP takes degrees
  // LEAP's curved detector has column angle spacing atan(pixelWidth / sdd): pass the width whose
  // atan gives the arc pitch's angle colPitch / sdd exactly.
  const double pixelWidth =
      c.shape == DetectorShape::Arc ? c.sddMm * std::tan(c.colPitchMm / c.sddMm) : c.colPitchMm;
  // LEAP's helicalPitch is mm of table feed per radian.
  const double helicalPitchMmPerRad = c.tableFeedPerTurnMm / (2.0 * kPi);
  if (!set_conebeam(c.nViews, c.nRows, c.nCols, float(c.rowPitchMm), float(pixelWidth),
                    float(c.centreRow()), float(c.centreCol()), phis.data(), float(c.sodMm),
                    float(c.sddMm), 0.0f /*tau*/, 0.0f /*tilt*/, float(helicalPitchMmPerRad))) {
    std::fprintf(stderr, "LEAP set_conebeam failed for %s\n", c.name);
    return false;
  }
  if (c.shape == DetectorShape::Arc && !set_curvedDetector()) {
    std::fprintf(stderr, "LEAP set_curvedDetector failed for %s\n", c.name);
    return false;
  }
  if (!set_volume(c.nx, c.ny, c.nz, float(c.voxelXyMm), float(c.voxelZMm), 0.0f, 0.0f, 0.0f)) {
    std::fprintf(stderr, "LEAP set_volume failed for %s\n", c.name);
    return false;
  }
  if (!set_volumeDimensionOrder(1 /*ZYX: x fastest*/) || !set_projector(kLeapSeparableFootprint) ||
      !set_GPU(0)) {
    std::fprintf(stderr, "LEAP set_volumeDimensionOrder/set_projector/set_GPU failed for %s\n",
                 c.name);
    return false;
  }
  if (!all_defined()) {
    std::fprintf(stderr, "LEAP parameters not all defined for %s\n", c.name);
    return false;
  }
  return true;
}

struct Stats {
  double min = 0, median = 0, max = 0;
};

Stats summarise(std::vector<double> t) {
  std::sort(t.begin(), t.end());
  Stats s;
  s.min = t.front();
  s.max = t.back();
  const std::size_t n = t.size();
  s.median = n % 2 ? t[n / 2] : 0.5 * (t[n / 2 - 1] + t[n / 2]);
  return s;
}

template <typename F>
bool timeCalls(F&& call, int reps, std::vector<double>& out) {
  CUDA_CHECK(cudaDeviceSynchronize());
  if (!call())  // warm-up
    return false;
  CUDA_CHECK(cudaDeviceSynchronize());
  for (int r = 0; r < reps; ++r) {
    CUDA_CHECK(cudaDeviceSynchronize());
    const auto t0 = std::chrono::steady_clock::now();
    const bool ok = call();
    CUDA_CHECK(cudaDeviceSynchronize());
    const auto t1 = std::chrono::steady_clock::now();
    if (!ok) return false;
    out.push_back(std::chrono::duration<double>(t1 - t0).count());
  }
  CUDA_CHECK(cudaGetLastError());
  return true;
}

struct Row {
  std::string caseName, direction;
  int views = 0;
  std::uint64_t nominalPairs = 0, inBeamPairs = 0;
  int reps = 0;
  Stats s;
  std::string note;
};

double sumDevice(const float* d, std::size_t n) {
  std::vector<float> h(n);
  CUDA_CHECK(cudaMemcpy(h.data(), d, n * sizeof(float), cudaMemcpyDeviceToHost));
  double acc = 0;
  for (float v : h) acc += v;
  return acc;
}

float valueAt(const float* d, std::size_t index) {
  float v = 0;
  CUDA_CHECK(cudaMemcpy(&v, d + index, sizeof(float), cudaMemcpyDeviceToHost));
  return v;
}

// Times forward (and back, if asked) projection of one case; appends rows.
bool benchCase(const ConeCase& c, bool doBack, int reps, std::vector<Row>& rows, FILE* log) {
  std::printf("\n== %s: %s\n", c.name, c.description);
  std::printf(
      "   views %d (%.3f turns, %.6f deg/view), detector %d x %d, SOD %.3f SDD %.3f, col pitch "
      "%.6f, row "
      "pitch %.6f, centre col %.3f row %.3f, table feed/turn %.5f mm (pitch %.5f), volume %d x %d "
      "x %d "
      "at %.4f x %.4f x %.4f mm\n",
      c.nViews, c.turns(), c.angleStepDeg(), c.nCols, c.nRows, c.sodMm, c.sddMm, c.colPitchMm,
      c.rowPitchMm, c.centreCol(), c.centreRow(), c.tableFeedPerTurnMm, c.pitch(), c.nx, c.ny, c.nz,
      c.voxelXyMm, c.voxelXyMm, c.voxelZMm);
  if (!configureLeap(c)) return false;
  print_parameters();
  std::fflush(stdout);

  const auto tc0 = std::chrono::steady_clock::now();
  const std::uint64_t inBeam = tomowb::bench::sf::inBeamPairs(c);
  const double countSeconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - tc0).count();
  std::printf(
      "   pairs: nominal %.6e, in-beam (voxel centre projects onto the detector) %.6e (%.1f%%; "
      "counted "
      "in %.2f s)\n",
      double(c.nominalPairs()), double(inBeam), 100.0 * double(inBeam) / double(c.nominalPairs()),
      countSeconds);

  DeviceBuffer<float> f(c.voxels());
  DeviceBuffer<float> g(c.projectionCells());
  // Uniform 1/mm volume: the timing does not depend on the values (LEAP's SF kernels have no
  // data-dependent branches), and the centre ray of an axis-aligned view then reads the chord
  // length.
  {
    std::vector<float> ones(c.voxels(), 1.0f);
    CUDA_CHECK(cudaMemcpy(f.ptr, ones.data(), ones.size() * sizeof(float), cudaMemcpyHostToDevice));
  }
  CUDA_CHECK(cudaMemset(g.ptr, 0, g.count * sizeof(float)));

  std::vector<double> tf;
  if (!timeCalls([&] { return project(g.ptr, f.ptr, false); }, reps, tf)) {
    std::fprintf(stderr, "LEAP project failed for %s\n", c.name);
    return false;
  }
  // Geometry sanity: view nViews/2 is at a multiple of 180 degrees for every case here, so its
  // central ray crosses the square volume parallel to an axis: expect the chord nx * voxel (mm), if
  // that ray hits the volume's z range.
  const int kv = c.nViews / 2;
  const int kr = int(std::lround(c.centreRow()));
  const int kc = int(std::lround(c.centreCol()));
  const float centre = valueAt(g.ptr, (std::size_t(kv) * c.nRows + kr) * c.nCols + kc);
  const double sumFwd = sumDevice(g.ptr, g.count);
  std::printf(
      "   forward: view %d (%.1f deg) centre cell (row %d, col %d) = %.4f mm (expect ~%.4f); sum "
      "%.6e\n",
      kv, c.angleDeg(kv), kr, kc, centre, c.nx * c.voxelXyMm, sumFwd);
  if (log)
    std::fprintf(log, "%s forward centre %.6f expect %.6f sum %.9e\n", c.name, centre,
                 c.nx * c.voxelXyMm, sumFwd);
  Row rf{c.name, "forward", c.nViews, c.nominalPairs(), inBeam, reps, summarise(tf), ""};
  rows.push_back(rf);

  if (doBack) {
    // Back-project the forward projections just made (realistic data).
    std::vector<double> tb;
    if (!timeCalls([&] { return backproject(g.ptr, f.ptr, false); }, reps, tb)) {
      std::fprintf(stderr, "LEAP backproject failed for %s\n", c.name);
      return false;
    }
    const double sumBack = sumDevice(f.ptr, f.count);
    std::printf("   back: sum %.6e\n", sumBack);
    if (log) std::fprintf(log, "%s back sum %.9e\n", c.name, sumBack);
    rows.push_back({c.name, "back", c.nViews, c.nominalPairs(), inBeam, reps, summarise(tb), ""});
  }
  for (std::size_t i = rows.size() - (doBack ? 2 : 1); i < rows.size(); ++i) {
    const Row& r = rows[i];
    std::printf("   %-8s min %.4f  median %.4f  max %.4f s\n", r.direction.c_str(), r.s.min,
                r.s.median, r.s.max);
  }
  std::fflush(stdout);
  return true;
}

struct AdjointResult {
  std::string caseName, vectors;
  double ax_y = 0, x_aty = 0;
  double relMax = 0;   // |<Ax,y> - <x,A^T y>| / max(|<Ax,y>|, |<x,A^T y>|)
  double relNorm = 0;  // |<Ax,y> - <x,A^T y>| / (|Ax| |y|), the Cauchy-Schwarz-normalised figure
  std::uint64_t nonFinite = 0;
  // GPU against LEAP's CPU SF pair on the same vectors (small cases only; -1: not run or refused)
  double fwdVsCpu = -1, backVsCpu = -1, cpuRelMax = -1;
};

// Counter-based uniform [0, 1) (splitmix64), so big vectors fill in parallel and reproducibly.
inline double uniform01(std::uint64_t seed, std::uint64_t i) {
  std::uint64_t z = seed * 0x9E3779B97F4A7C15ull + i + 0x632BE59BD9B4E019ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return double(z >> 11) * (1.0 / 9007199254740992.0);
}

void fillVector(std::vector<float>& v, std::uint64_t seed, bool zeroMean) {
  const std::int64_t n = std::int64_t(v.size());
  double sum = 0;
#pragma omp parallel for reduction(+ : sum)
  for (std::int64_t i = 0; i < n; ++i) {
    const double t = zeroMean ? 2.0 * uniform01(seed, std::uint64_t(i)) - 1.0
                              : uniform01(seed, std::uint64_t(i));
    v[i] = float(t);
    sum += double(v[i]);
  }
  if (!zeroMean) return;
  const float mean = float(sum / double(n));
#pragma omp parallel for
  for (std::int64_t i = 0; i < n; ++i) v[i] -= mean;
}

double dot(const std::vector<float>& a, const std::vector<float>& b) {
  const std::int64_t n = std::int64_t(a.size());
  double s = 0;
#pragma omp parallel for reduction(+ : s)
  for (std::int64_t i = 0; i < n; ++i) s += double(a[i]) * double(b[i]);
  return s;
}

std::uint64_t countNonFinite(const std::vector<float>& a) {
  const std::int64_t n = std::int64_t(a.size());
  std::uint64_t c = 0;
#pragma omp parallel for reduction(+ : c)
  for (std::int64_t i = 0; i < n; ++i) c += std::isfinite(a[i]) ? 0 : 1;
  return c;
}

double relDiff(const std::vector<float>& a, const std::vector<float>& ref) {
  const std::int64_t n = std::int64_t(a.size());
  double d = 0, r = 0;
#pragma omp parallel for reduction(+ : d, r)
  for (std::int64_t i = 0; i < n; ++i) {
    const double e = double(a[i]) - double(ref[i]);
    d += e * e;
    r += double(ref[i]) * double(ref[i]);
  }
  return std::sqrt(d / r);
}

// <Ax, y> against <x, A^T y> with uniform random x and y (zero-mean in [-1, 1], or positive in [0,
// 1)); float32 on the GPU through LEAP, float64 sums. For small cases also LEAP's CPU SF pair on
// the same vectors.
bool adjointCase(const ConeCase& c, std::uint64_t seed, bool zeroMean, AdjointResult& out) {
  if (!configureLeap(c)) return false;
  const std::size_t nv = c.voxels(), np = c.projectionCells();
  std::vector<float> x(nv), y(np);
  fillVector(x, 2 * seed, zeroMean);
  fillVector(y, 2 * seed + 1, zeroMean);

  std::vector<float> ax(np), aty(nv);
  {
    DeviceBuffer<float> dx(nv), dax(np), dy(np), daty(nv);
    CUDA_CHECK(cudaMemcpy(dx.ptr, x.data(), nv * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(dy.ptr, y.data(), np * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemset(dax.ptr, 0, np * sizeof(float)));
    CUDA_CHECK(cudaMemset(daty.ptr, 0, nv * sizeof(float)));
    if (!project(dax.ptr, dx.ptr, false) || !backproject(dy.ptr, daty.ptr, false)) {
      std::fprintf(stderr, "LEAP project/backproject failed in the adjoint test for %s\n", c.name);
      return false;
    }
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaMemcpy(ax.data(), dax.ptr, np * sizeof(float), cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(aty.data(), daty.ptr, nv * sizeof(float), cudaMemcpyDeviceToHost));
  }
  const double a = dot(ax, y), b = dot(x, aty);
  out.caseName = c.name;
  out.vectors = std::string(zeroMean ? "zero-mean" : "positive") + " seed " + std::to_string(seed);
  out.ax_y = a;
  out.x_aty = b;
  out.relMax = std::fabs(a - b) / std::max(std::fabs(a), std::fabs(b));
  out.relNorm = std::fabs(a - b) / (std::sqrt(dot(ax, ax)) * std::sqrt(dot(y, y)));
  out.nonFinite = countNonFinite(ax) + countNonFinite(aty);

  if (nv <= (std::size_t(1) << 20)) {  // LEAP's CPU SF pair, where it accepts the geometry
    std::vector<float> axc(np, 0.0f), atyc(nv, 0.0f);
    set_log_error();  // its refusal for voxels far from nominal is expected for the arc case
    if (project_cpu(axc.data(), x.data()) && backproject_cpu(y.data(), atyc.data())) {
      out.fwdVsCpu = relDiff(ax, axc);
      out.backVsCpu = relDiff(aty, atyc);
      const double ac = dot(axc, y), bc = dot(x, atyc);
      out.cpuRelMax = std::fabs(ac - bc) / std::max(std::fabs(ac), std::fabs(bc));
    }
    set_log_warning();
  }
  return true;
}

bool wanted(const std::string& list, const char* name) {
  if (list.empty()) return true;
  std::size_t pos = 0;
  while (pos <= list.size()) {
    std::size_t end = list.find(',', pos);
    if (end == std::string::npos) end = list.size();
    if (list.compare(pos, end - pos, name) == 0) return true;
    pos = end + 1;
  }
  return false;
}

}  // namespace

int main(int argc, char** argv) {
  std::string outDir;
  std::string caseList;
  int reps = 5;
  bool doAdjoint = true;
  bool bigAdjoint = true;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--out" && i + 1 < argc)
      outDir = argv[++i];
    else if (a == "--reps" && i + 1 < argc)
      reps = std::max(1, std::atoi(argv[++i]));
    else if (a == "--cases" && i + 1 < argc)
      caseList = argv[++i];
    else if (a == "--no-adjoint")
      doAdjoint = false;
    else if (a == "--small-adjoint")
      bigAdjoint = false;
    else {
      std::fprintf(
          stderr,
          "usage: %s [--out DIR] [--reps N] [--cases a,b] [--no-adjoint] [--small-adjoint]\n",
          argv[0]);
      return 1;
    }
  }

  int dev = 0;
  CUDA_CHECK(cudaSetDevice(dev));
  cudaDeviceProp prop{};
  CUDA_CHECK(cudaGetDeviceProperties(&prop, dev));
  int driverVersion = 0, runtimeVersion = 0;
  cudaDriverGetVersion(&driverVersion);
  cudaRuntimeGetVersion(&runtimeVersion);
  char leapVersion[256] = {0};
  version(leapVersion);
  const std::string deviceLine =
      std::string(prop.name) + ", " + std::to_string(prop.multiProcessorCount) + " SMs, " +
      std::to_string(prop.totalGlobalMem >> 20) + " MiB, sm_" + std::to_string(prop.major) +
      std::to_string(prop.minor) + ", driver " + std::to_string(driverVersion) + ", runtime " +
      std::to_string(runtimeVersion);
  std::printf("LEAP %s (commit in bench/leap/LEAP_COMMIT), SF projector, device-resident float32\n",
              leapVersion);
  std::printf("device: %s\n", deviceLine.c_str());

  FILE* log = nullptr;
  if (!outDir.empty()) {
    mkdir(outDir.c_str(), 0755);
    log = std::fopen((outDir + "/leap_sf_checks.txt").c_str(), "w");
  }

  std::vector<Row> rows;
  bool ok = true;
  using namespace tomowb::bench::sf;
  if (wanted(caseList, kGeHelical1Turn.name))
    ok = benchCase(kGeHelical1Turn, false, reps, rows, log) && ok;
  if (wanted(caseList, kGeHelical8Turns.name))
    ok = benchCase(kGeHelical8Turns, true, reps, rows, log) && ok;
  if (wanted(caseList, kFlatCircular720.name))
    ok = benchCase(kFlatCircular720, true, reps, rows, log) && ok;

  std::vector<AdjointResult> adj;
  if (doAdjoint) {
    std::vector<ConeCase> adjCases(std::begin(kAdjointCases), std::end(kAdjointCases));
    if (bigAdjoint) {  // the full-size cases too (one seed each)
      adjCases.push_back(kFlatCircular720);
      adjCases.push_back(kGeHelical1Turn);
    }
    for (const ConeCase& c : adjCases) {
      const bool small = c.voxels() <= (std::uint64_t(1) << 20);
      for (int s = 1; s <= (small ? 3 : 1); ++s) {
        AdjointResult r;
        if (adjointCase(c, std::uint64_t(s), true, r))
          adj.push_back(r);
        else
          ok = false;
      }
      AdjointResult r;  // positive vectors, for contrast
      if (adjointCase(c, 1, false, r))
        adj.push_back(r);
      else
        ok = false;
      std::printf("   adjoint %s done\n", c.name);
      std::fflush(stdout);
    }
  }

  // Report: CSV and markdown, to stdout and to files.
  std::string csv =
      "tool,case,direction,views,reps,min_s,median_s,max_s,ms_per_view_median,nominal_pairs,inbeam_"
      "pairs,"
      "G_nominal_pairs_per_s_median,G_inbeam_pairs_per_s_median,device\n";
  std::string md =
      "| case | direction | views | min s | median s | max s | ms/view | G nominal pairs/s | G "
      "in-beam "
      "pairs/s |\n|---|---|---|---|---|---|---|---|---|\n";
  char buf[1024];
  for (const Row& r : rows) {
    const double gNom = double(r.nominalPairs) / r.s.median / 1e9;
    const double gIn = double(r.inBeamPairs) / r.s.median / 1e9;
    std::snprintf(buf, sizeof buf,
                  "leap-0c8846f-SF,%s,%s,%d,%d,%.5f,%.5f,%.5f,%.4f,%llu,%llu,%.2f,%.2f,\"%s\"\n",
                  r.caseName.c_str(), r.direction.c_str(), r.views, r.reps, r.s.min, r.s.median,
                  r.s.max, 1e3 * r.s.median / r.views, (unsigned long long)r.nominalPairs,
                  (unsigned long long)r.inBeamPairs, gNom, gIn, deviceLine.c_str());
    csv += buf;
    std::snprintf(buf, sizeof buf, "| %s | %s | %d | %.4f | %.4f | %.4f | %.4f | %.1f | %.1f |\n",
                  r.caseName.c_str(), r.direction.c_str(), r.views, r.s.min, r.s.median, r.s.max,
                  1e3 * r.s.median / r.views, gNom, gIn);
    md += buf;
  }
  std::string adjMd;
  if (!adj.empty()) {
    adjMd =
        "\n| adjoint case | vectors | <Ax,y> | <x,A^T y> | rel. to max | rel. to |Ax||y| | "
        "non-finite | GPU fwd vs "
        "CPU (rel L2) | GPU back vs CPU (rel L2) | CPU pair rel. to max "
        "|\n|---|---|---|---|---|---|---|---|---|---|\n";
    for (const AdjointResult& a : adj) {
      auto opt = [](double v) {
        char t[32];
        if (v < 0)
          std::snprintf(t, sizeof t, "-");
        else
          std::snprintf(t, sizeof t, "%.3e", v);
        return std::string(t);
      };
      std::snprintf(buf, sizeof buf,
                    "| %s | %s | %.9e | %.9e | %.3e | %.3e | %llu | %s | %s | %s |\n",
                    a.caseName.c_str(), a.vectors.c_str(), a.ax_y, a.x_aty, a.relMax, a.relNorm,
                    (unsigned long long)a.nonFinite, opt(a.fwdVsCpu).c_str(),
                    opt(a.backVsCpu).c_str(), opt(a.cpuRelMax).c_str());
      adjMd += buf;
    }
  }
  const std::string notes =
      "\nDevice: " + deviceLine +
      "\nTimes: wall seconds of one LEAP project()/backproject() call with device pointers "
      "(data_on_cpu=false), "
      "cudaDeviceSynchronize before and after, after 1 warm-up; includes LEAP's own texture-array "
      "set-up per call."
      "\nnominal pairs = nx*ny*nz*views; in-beam pairs = (voxel, view) pairs whose voxel centre "
      "projects onto the "
      "detector (SfBenchCases.h inBeamPairs). For the flat case both are equal."
      "\nAdjoint: x, y uniform random (zero-mean: in [-1, 1] less their mean; positive: in [0, "
      "1)), float32 on the "
      "GPU, float64 sums; 'rel. to max' = |<Ax,y>-<x,A^T y>| / max(|<Ax,y>|, |<x,A^T y>|), 'rel. "
      "to |Ax||y|' "
      "divides by the norms instead; GPU vs CPU = relative L2 difference from LEAP's CPU SF pair "
      "on the same "
      "vectors (small cases where the CPU pair accepts the geometry).\n";
  std::printf("\n%s%s%s", md.c_str(), adjMd.c_str(), notes.c_str());
  std::printf("\n%s", csv.c_str());
  if (!outDir.empty()) {
    if (FILE* fc = std::fopen((outDir + "/leap_sf_bench.csv").c_str(), "w")) {
      std::fputs(csv.c_str(), fc);
      std::fclose(fc);
    }
    if (FILE* fm = std::fopen((outDir + "/leap_sf_bench.md").c_str(), "w")) {
      std::fputs(md.c_str(), fm);
      std::fputs(adjMd.c_str(), fm);
      std::fputs(notes.c_str(), fm);
      std::fclose(fm);
    }
  }
  if (log) std::fclose(log);
  return ok ? 0 : 3;
}
