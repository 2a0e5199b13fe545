// GPU projectors and device SIRT of issue #7 (recon/projector/cuda/GpuEt.h): every GPU variant
// against the CPU reference on fresh random volumes and geometries (aligned single-axis tilt series
// with random angles and detector shifts; rotated axes and dual-axis series for the 3-D path), the
// matched pair's adjoint test in float32, more than 1024 views, device SIRT against the CPU SIRT
// and against the same kernels driven from the host, 1 slab against k slabs (aligned) and the
// resident general 3-D path against its z-slab streaming, two GPUs against one, and
// cancellation. Without a GPU every test skips with a message.
//
// Tolerances (relative L2 over the whole output): software interpolation (et.*.matched) 1e-5
// against the float64 CPU projectors; the texture unit's 8-bit interpolation weights 1e-3 on
// positive data (measured ~1e-4); device SIRT after 20 iterations 3e-3 against the CPU SIRT with
// the CPU's unmatched pair and 1e-4 with the matched pairs; the same kernels driven from the
// host 1e-6.
#include <gtest/gtest.h>

#include <cmath>
#include <iostream>
#include <numbers>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "recon/core/Error.h"
#include "recon/device/GpuDevices.h"
#include "recon/geometry/ScanBuilders.h"
#include "recon/iterative/IterativeReconstruction.h"
#include "recon/iterative/cuda/FusedSirt.h"
#include "recon/phantom/AnalyticProjector.h"
#include "recon/phantom/Phantom.h"
#include "recon/projector/JosephProjector.h"
#include "recon/projector/SingleAxisGeometry.h"
#include "recon/projector/VoxelBackprojector.h"
#include "recon/projector/cuda/GpuEt.h"
#include "recon/variant/VariantRegistry.h"
#include "support/GeometryTransforms.h"
#include "support/TestSupport.h"

namespace tomowb::cuda {
namespace {

constexpr double kDeg = std::numbers::pi / 180.0;
using Tunables = std::map<std::string, std::string>;

const std::vector<std::string> kForward = {"et.fp.unordered", "et.fp.strips", "et.fp.strips-angles",
                                           "et.fp.segments",  "et.fp.fast",   "et.fp.matched"};
const std::vector<std::string> kBack = {"et.bp.voxel", "et.bp.fast", "et.bp.matched"};

// The GPU variants, registered here so the tests do not depend on registerBuiltins.
const VariantRegistry& gpuVariants() {
  static const VariantRegistry registry = [] {
    VariantRegistry r;
    registerGpuEtVariants(r);
    return r;
  }();
  return registry;
}

double relativeL2(std::span<const float> a, std::span<const float> b) {
  double num = 0, den = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const double d = double(a[i]) - double(b[i]);
    num += d * d;
    den += double(b[i]) * double(b[i]);
  }
  return std::sqrt(num / std::max(den, 1e-300));
}

struct Problem {
  Geometry geometry;
  Volume grid;  // shape, voxel size and origin
  std::string label;
};

// An aligned tilt series: random angles over +-80 degrees, a random shift of the axis, voxels
// of random size in x and y, `views` views; `rows` - `slices` even so the slices sit on rows.
Problem alignedProblem(std::mt19937_64& rng, int views, std::int64_t slices = 7,
                       std::int64_t rows = 9) {
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  TiltSeriesParams p;
  p.cols = 50 + std::int64_t(8 * unit(rng));
  p.rows = rows;
  p.pixelSizeMm = 1.0;
  for (int k = 0; k < views; ++k) p.tiltAnglesRad.push_back(80 * kDeg * unit(rng));
  p.tiltAxisShiftPixels = 5 * unit(rng);
  const Geometry g = tiltSeries(p);
  const VolumeShape shape{40 + std::int64_t(5 * unit(rng)), 21 + std::int64_t(4 * unit(rng)),
                          slices};
  const Eigen::Vector3d voxel(1.0 + 0.2 * unit(rng), 1.0 + 0.2 * unit(rng), 1.0);
  Volume grid = Volume::centred(shape, voxel);
  grid.setOriginMm(grid.originMm() + Eigen::Vector3d(unit(rng), unit(rng), 0.0));
  return {g, std::move(grid), "aligned, " + std::to_string(views) + " views"};
}

// Not aligned: a rotated tilt axis (per-view in-plane rotation), or a dual-axis series.
Problem generalProblem(std::mt19937_64& rng, bool dual) {
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  TiltSeriesParams p;
  p.cols = 36 + std::int64_t(4 * unit(rng));
  p.rows = 30 + std::int64_t(4 * unit(rng));
  p.pixelSizeMm = 1.0;
  for (int k = 0; k < 9; ++k) p.tiltAnglesRad.push_back(70 * kDeg * unit(rng));
  p.tiltAxisAngleRad = 10 * kDeg * unit(rng);
  p.tiltAxisShiftPixels = 3 * unit(rng);
  Geometry g = tiltSeries(p);
  if (dual) {
    p.tiltAxisAngleRad += 90 * kDeg;
    const Geometry second = tiltSeries(p);
    std::vector<View> views = g.views();
    views.insert(views.end(), second.views().begin(), second.views().end());
    g = Geometry(BeamKind::Parallel, g.detector(), views);
  }
  const VolumeShape shape{26 + std::int64_t(3 * unit(rng)), 14 + std::int64_t(3 * unit(rng)),
                          22 + std::int64_t(3 * unit(rng))};
  Volume grid = Volume::centred(shape, Eigen::Vector3d(1.0, 1.1, 0.9));
  grid.setOriginMm(grid.originMm() + Eigen::Vector3d(unit(rng), unit(rng), unit(rng)));
  return {g, std::move(grid), dual ? "dual axis" : "rotated axis"};
}

Volume randomVolume(const Volume& grid, std::mt19937_64& rng, bool gaussian = false) {
  Volume v(grid.shape(), grid.voxelSizeMm(), grid.originMm());
  std::uniform_real_distribution<float> uni(0.0f, 1.0f);
  std::normal_distribution<float> gauss;
  for (float& x : v.voxels()) x = gaussian ? gauss(rng) : uni(rng);
  return v;
}

ProjectionStack randomStack(const Geometry& g, std::mt19937_64& rng, bool gaussian = false) {
  ProjectionStack s(g);
  std::uniform_real_distribution<float> uni(0.0f, 1.0f);
  std::normal_distribution<float> gauss;
  for (float& x : s.pixels()) x = gaussian ? gauss(rng) : uni(rng);
  return s;
}

ProjectionStack forwardWith(const std::string& variant, const Volume& x, const Geometry& g,
                            const Tunables& tunables = {}) {
  ProjectionStack out(g);
  std::fill(out.pixels().begin(), out.pixels().end(), -7.0f);  // poison: every pixel is written
  JobContext context;
  if (variant == "et.fp.cpu")
    projector::josephForward(x, out);
  else
    forwardProjectOnGpu(variant, tunables, x, out, {}, context);
  return out;
}

Volume backWith(const std::string& variant, const ProjectionStack& y, const Volume& grid,
                const Tunables& tunables = {}) {
  Volume out(grid.shape(), grid.voxelSizeMm(), grid.originMm());
  JobContext context;
  if (variant == "et.bp.cpu-voxel")
    projector::voxelBackproject(y, out);
  else if (variant == "et.bp.cpu-matched")
    projector::josephBackproject(y, out);
  else
    backprojectOnGpu(variant, tunables, y, out, {}, context);
  return out;
}

// Prints a measured figure for the run's log (tests/.../ctest output).
void measured(const std::string& what, double value) {
  std::cout << "[ measured ] " << what << ": " << value << "\n";
}

bool software(const std::string& variant) {
  return variant.find("matched") != std::string::npos;
}

// Every tunable setting of the fast kernels worth checking.
std::vector<Tunables> fastSettings(bool forward) {
  std::vector<Tunables> out;
  for (const char* texel : {"float", "float2", "float4", "half2"})
    for (const char* layers : {"1", "2", "4"}) {
      if (forward)
        out.push_back({{"fp-texel", texel}, {"fp-layers", layers}, {"angles", "8"}});
      else
        out.push_back({{"bp-texel", texel}, {"bp-layers", layers}});
    }
  if (forward) {
    out.push_back({{"segment-planes", "16"}, {"angles", "4"}});
    out.push_back({{"fp-texel", "half2"}, {"segment-planes", "64"}, {"angles", "16"}});
    // Rays walked in bands of planes by several launches.
    out.push_back({{"band-planes", "7"}});
    out.push_back({{"band-planes", "16"}, {"fp-texel", "float"}, {"fp-layers", "2"}});
  } else {
    out.push_back({{"bp-layers", "8"}});
  }
  return out;
}

std::string describe(const Tunables& t) {
  std::string s;
  for (const auto& [k, v] : t) s += k + "=" + v + " ";
  return s;
}

TEST(GpuEt, EveryVariantIsRegisteredAsAGpuVariant) {
  TOMOWB_SKIP_WITHOUT_GPU();
  for (const std::string& name : kForward) {
    const KernelVariant* v = gpuVariants().find(name);
    ASSERT_NE(v, nullptr) << name;
    EXPECT_TRUE(v->needsGpu && v->forwardProject && !v->description.empty()) << name;
  }
  for (const std::string& name : kBack) {
    const KernelVariant* v = gpuVariants().find(name);
    ASSERT_NE(v, nullptr) << name;
    EXPECT_TRUE(v->needsGpu && v->backprojectViews && !v->description.empty()) << name;
  }
  EXPECT_EQ(gpuVariants().require("et.bp.matched").adjointOf, "et.fp.matched");
}

TEST(GpuEtForward, EveryVariantMatchesTheCpuJosephOnRandomAlignedTiltSeries) {
  TOMOWB_SKIP_WITHOUT_GPU();
  const std::uint64_t seed = test::randomSeed();
  std::mt19937_64 rng(seed);
  for (int trial = 0; trial < 2; ++trial) {
    const Problem c = alignedProblem(rng, 23 + 10 * trial);
    ASSERT_TRUE(projector::SingleAxisGeometry::analyse(c.geometry, projector::VoxelGrid::of(c.grid))
                    .aligned);
    const Volume x = randomVolume(c.grid, rng);
    const ProjectionStack reference = forwardWith("et.fp.cpu", x, c.geometry);
    for (const std::string& name : kForward) {
      const std::vector<Tunables> settings =
          name == "et.fp.fast" ? fastSettings(true) : std::vector<Tunables>{{}};
      for (const Tunables& t : settings) {
        const ProjectionStack gpu = forwardWith(name, x, c.geometry, t);
        const double err = relativeL2(gpu.pixels(), reference.pixels());
        measured("forward " + name + " " + describe(t) + c.label, err);
        EXPECT_LT(err, software(name) ? 1e-5 : 1e-3) << name << " " << describe(t) << c.label;
      }
    }
  }
}

TEST(GpuEtForward, EveryVariantMatchesTheCpuJosephOnGeneralGeometries) {
  TOMOWB_SKIP_WITHOUT_GPU();
  const std::uint64_t seed = test::randomSeed();
  std::mt19937_64 rng(seed);
  for (const bool dual : {false, true}) {
    const Problem c = generalProblem(rng, dual);
    ASSERT_FALSE(
        projector::SingleAxisGeometry::analyse(c.geometry, projector::VoxelGrid::of(c.grid))
            .aligned);
    const Volume x = randomVolume(c.grid, rng);
    const ProjectionStack reference = forwardWith("et.fp.cpu", x, c.geometry);
    for (const std::string& name : kForward) {
      const double err = relativeL2(forwardWith(name, x, c.geometry).pixels(), reference.pixels());
      measured("forward " + name + ", " + c.label, err);
      EXPECT_LT(err, software(name) ? 1e-5 : 1e-3) << name << ", " << c.label;
    }
  }
}

TEST(GpuEtBack, EveryVariantMatchesTheCpuBackprojectorsOnAlignedAndGeneralGeometries) {
  TOMOWB_SKIP_WITHOUT_GPU();
  const std::uint64_t seed = test::randomSeed();
  std::mt19937_64 rng(seed);
  std::vector<Problem> problems;
  problems.push_back(alignedProblem(rng, 29));
  problems.push_back(generalProblem(rng, false));
  problems.push_back(generalProblem(rng, true));
  for (const Problem& c : problems) {
    const ProjectionStack y = randomStack(c.geometry, rng);
    const Volume voxel = backWith("et.bp.cpu-voxel", y, c.grid);
    const Volume matched = backWith("et.bp.cpu-matched", y, c.grid);
    for (const std::string& name : kBack) {
      const std::vector<Tunables> settings =
          name == "et.bp.fast" ? fastSettings(false) : std::vector<Tunables>{{}};
      for (const Tunables& t : settings) {
        const Volume gpu = backWith(name, y, c.grid, t);
        const double err =
            relativeL2(gpu.voxels(), software(name) ? matched.voxels() : voxel.voxels());
        measured("back " + name + " " + describe(t) + c.label, err);
        EXPECT_LT(err, software(name) ? 1e-5 : 1e-3) << name << " " << describe(t) << c.label;
      }
    }
  }
}

// <A x, y> against <x, A^T y> for the GPU matched pair, in float32 on the GPU.
void expectMatchedAdjoint(const Problem& c, std::mt19937_64& rng) {
  const Volume x = randomVolume(c.grid, rng, true);
  const ProjectionStack y = randomStack(c.geometry, rng, true);
  const ProjectionStack ax = forwardWith("et.fp.matched", x, c.geometry);
  const Volume aty = backWith("et.bp.matched", y, c.grid);
  double lhs = 0, rhs = 0, axNorm = 0, yNorm = 0;
  for (std::int64_t i = 0; i < ax.pixelCount(); ++i) {
    lhs += double(ax.pixels()[i]) * y.pixels()[i];
    axNorm += double(ax.pixels()[i]) * ax.pixels()[i];
    yNorm += double(y.pixels()[i]) * y.pixels()[i];
  }
  for (std::int64_t i = 0; i < x.voxelCount(); ++i) rhs += double(x.voxels()[i]) * aty.voxels()[i];
  measured("adjoint mismatch |<Ax,y>-<x,A'y>|/(|Ax||y|), " + c.label,
           std::abs(lhs - rhs) / std::sqrt(axNorm * yNorm));
  EXPECT_LT(std::abs(lhs - rhs) / std::sqrt(axNorm * yNorm), 1e-5)
      << c.label << ": <Ax,y> " << lhs << " <x,A'y> " << rhs;
}

TEST(GpuEtMatched, PairPassesTheAdjointTestInFloat32) {
  TOMOWB_SKIP_WITHOUT_GPU();
  const std::uint64_t seed = test::randomSeed();
  std::mt19937_64 rng(seed);
  expectMatchedAdjoint(alignedProblem(rng, 31), rng);
  expectMatchedAdjoint(generalProblem(rng, false), rng);
  expectMatchedAdjoint(generalProblem(rng, true), rng);
}

TEST(GpuEtViews, MoreThan1024ViewsMatchTheCpu) {
  TOMOWB_SKIP_WITHOUT_GPU();
  const std::uint64_t seed = test::randomSeed();
  std::mt19937_64 rng(seed);
  const Problem c = alignedProblem(rng, 1100, 3, 5);
  const Volume x = randomVolume(c.grid, rng);
  const ProjectionStack reference = forwardWith("et.fp.cpu", x, c.geometry);
  for (const std::string& name : {"et.fp.fast", "et.fp.matched", "et.fp.segments"})
    EXPECT_LT(relativeL2(forwardWith(name, x, c.geometry).pixels(), reference.pixels()),
              software(name) ? 1e-5 : 1e-3)
        << name;
  const ProjectionStack y = randomStack(c.geometry, rng);
  const Volume voxel = backWith("et.bp.cpu-voxel", y, c.grid);
  const Volume matched = backWith("et.bp.cpu-matched", y, c.grid);
  EXPECT_LT(relativeL2(backWith("et.bp.fast", y, c.grid).voxels(), voxel.voxels()), 1e-3);
  EXPECT_LT(relativeL2(backWith("et.bp.voxel", y, c.grid).voxels(), voxel.voxels()), 1e-3);
  EXPECT_LT(relativeL2(backWith("et.bp.matched", y, c.grid).voxels(), matched.voxels()), 1e-5);
  // The 3-D kernels take 128 views per launch: 300 views need three.
  TiltSeriesParams p;
  p.cols = 20;
  p.rows = 12;
  p.tiltAxisAngleRad = 5 * kDeg;
  p.tiltAnglesRad = arcAnglesRad(300, 140 * kDeg, -70 * kDeg);
  const Geometry g = tiltSeries(p);
  const Volume grid = Volume::centred({16, 10, 9}, Eigen::Vector3d::Ones());
  const Volume x3 = randomVolume(grid, rng);
  const ProjectionStack y3 = randomStack(g, rng);
  EXPECT_LT(relativeL2(forwardWith("et.fp.fast", x3, g).pixels(),
                       forwardWith("et.fp.cpu", x3, g).pixels()),
            1e-3);
  EXPECT_LT(relativeL2(backWith("et.bp.matched", y3, grid).voxels(),
                       backWith("et.bp.cpu-matched", y3, grid).voxels()),
            1e-5);
  EXPECT_LT(relativeL2(backWith("et.bp.voxel", y3, grid).voxels(),
                       backWith("et.bp.cpu-voxel", y3, grid).voxels()),
            1e-3);
}

TEST(GpuEtForward, ListedViewsOnlyAreWritten) {
  TOMOWB_SKIP_WITHOUT_GPU();
  std::mt19937_64 rng(test::randomSeed());
  const Problem c = alignedProblem(rng, 6);
  const Volume x = randomVolume(c.grid, rng);
  ProjectionStack out(c.geometry);
  std::fill(out.pixels().begin(), out.pixels().end(), -7.0f);
  JobContext context;
  const std::vector<std::int64_t> views = {4, 1};
  gpuVariants().require("et.fp.fast").forwardProject(x, out, views, context);
  const ProjectionStack all = forwardWith("et.fp.fast", x, c.geometry);
  for (std::int64_t v = 0; v < out.viewCount(); ++v)
    for (std::int64_t i = 0; i < out.pixelsPerView(); ++i) {
      const float expected = (v == 1 || v == 4) ? all.viewPixels(v)[i] : -7.0f;
      ASSERT_EQ(out.viewPixels(v)[i], expected) << "view " << v;
    }
}

// ---- device SIRT -------------------------------------------------------------------------------

// A Shepp-Logan tilt series over random angles with a random axis shift, the ET tomogram grid.
struct SirtData {
  ProjectionStack projections;
  fdk::VolumeGrid grid;
};

SirtData sheppLoganSeries(std::mt19937_64& rng, std::int64_t n, std::int64_t rows, int views,
                          bool rotatedAxis = false) {
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  TiltSeriesParams p;
  p.cols = n;
  p.rows = rows;
  p.tiltAnglesRad = arcAnglesRad(views, 120 * kDeg, -60 * kDeg + 0.5 * kDeg * unit(rng));
  p.tiltAxisShiftPixels = 0.4 * unit(rng);
  if (rotatedAxis) p.tiltAxisAngleRad = 4 * kDeg * unit(rng);
  SirtData d;
  d.projections = phantom::projectPhantom(phantom::modifiedSheppLogan3d(n / 2.0 * 0.7, 1.0),
                                          tiltSeries(p), {.supersample = 2});
  d.grid = iterative::tomogramGrid(d.projections.geometry(), n / 2);
  if (rotatedAxis) d.grid = fdk::VolumeGrid::centred({n, n / 2, rows}, Eigen::Vector3d::Ones());
  return d;
}

iterative::IterativeParams sirtParams(const SirtData& d, const std::string& fp,
                                      const std::string& bp, int iterations) {
  iterative::IterativeParams p;
  p.volume = d.grid;
  p.iterations = iterations;
  p.forwardVariant = fp;
  p.backVariant = bp;
  return p;
}

Volume gpuSirt(const SirtData& d, const iterative::IterativeParams& p,
               iterative::IterativeReport* reportOut = nullptr, JobContext* contextIn = nullptr) {
  Volume x(p.volume.shape, p.volume.voxelSizeMm, p.volume.originMm);
  JobContext own;
  iterative::IterativeReport report;
  reconstructIterativeGpu(d.projections, p, x, contextIn ? *contextIn : own, report);
  if (reportOut) *reportOut = report;
  return x;
}

// IterativeReconstruction.cpp's loop, driven from the host with the GPU variants' host-to-host
// entry points: the reference for "the same algorithm with the same kernels".
Volume hostDrivenSirt(const SirtData& d, const iterative::IterativeParams& p) {
  const KernelVariant& fp = gpuVariants().require(p.forwardVariant);
  const KernelVariant& bp = gpuVariants().require(p.backVariant);
  const fdk::VolumeGrid& g = p.volume;
  JobContext context;
  const auto invert = [](std::span<float> sums, double scale) {
    float largest = 0;
    for (const float s : sums) largest = std::max(largest, s);
    const double threshold = 1e-6 * double(largest);
    for (float& s : sums) s = double(s) > threshold && s > 0 ? float(scale / double(s)) : 0.0f;
  };
  Volume x(g.shape, g.voxelSizeMm, g.originMm);
  const Geometry& geometry = d.projections.geometry();
  ProjectionStack rowWeights(geometry);
  Volume ones(g.shape, g.voxelSizeMm, g.originMm);
  std::fill(ones.voxels().begin(), ones.voxels().end(), 1.0f);
  fp.forwardProject(ones, rowWeights, {}, context);
  invert(rowWeights.pixels(), 1.0);
  ProjectionStack onesStack(geometry);
  std::fill(onesStack.pixels().begin(), onesStack.pixels().end(), 1.0f);
  const auto subsets = iterative::viewSubsets(p.method, d.projections.viewCount(), p.subsets);
  std::vector<Volume> columns;
  for (const auto& views : subsets) {
    Volume c(g.shape, g.voxelSizeMm, g.originMm);
    bp.backprojectViews(onesStack, c, views, context);
    invert(c.voxels(), p.relaxation);
    columns.push_back(std::move(c));
  }
  ProjectionStack residual(geometry);
  Volume update(g.shape, g.voxelSizeMm, g.originMm);
  for (int it = 0; it < p.iterations; ++it)
    for (std::size_t s = 0; s < subsets.size(); ++s) {
      fp.forwardProject(x, residual, subsets[s], context);
      for (const std::int64_t v : subsets[s])
        for (std::int64_t i = 0; i < d.projections.pixelsPerView(); ++i) {
          const double diff =
              double(d.projections.viewPixels(v)[i]) - double(residual.viewPixels(v)[i]);
          residual.viewPixels(v)[i] = float(diff * double(rowWeights.viewPixels(v)[i]));
        }
      std::fill(update.voxels().begin(), update.voxels().end(), 0.0f);
      bp.backprojectViews(residual, update, subsets[s], context);
      for (std::int64_t i = 0; i < x.voxelCount(); ++i) {
        const float product = columns[s].voxels()[i] * update.voxels()[i];
        x.voxels()[i] = x.voxels()[i] + product;
      }
    }
  return x;
}

TEST(GpuEtSirt, MatchesTheCpuSirtAfter20Iterations) {
  TOMOWB_SKIP_WITHOUT_GPU();
  std::mt19937_64 rng(test::randomSeed());
  const SirtData d = sheppLoganSeries(rng, 64, 6, 41);
  struct Pair {
    const char *gpuFp, *gpuBp, *cpuFp, *cpuBp;
    double tolerance;
  };
  for (const Pair& pair :
       {Pair{"et.fp.fast", "et.bp.fast", "et.fp.cpu", "et.bp.cpu-voxel", 3e-3},
        Pair{"et.fp.segments", "et.bp.voxel", "et.fp.cpu", "et.bp.cpu-voxel", 3e-3},
        Pair{"et.fp.matched", "et.bp.matched", "et.fp.cpu", "et.bp.cpu-matched", 1e-4}}) {
    for (const iterative::IterativeMethod method :
         {iterative::IterativeMethod::Sirt, iterative::IterativeMethod::OsSirt}) {
      iterative::IterativeParams gp = sirtParams(d, pair.gpuFp, pair.gpuBp, 20);
      gp.method = method;
      iterative::IterativeParams cp = sirtParams(d, pair.cpuFp, pair.cpuBp, 20);
      cp.method = method;
      JobContext context;
      iterative::IterativeReport cpuReport, gpuReport;
      const Volume cpu = iterative::reconstructIterative(d.projections, cp, context, &cpuReport);
      const Volume gpu = gpuSirt(d, gp, &gpuReport);
      measured(std::string("SIRT 20 it. vs CPU, ") + pair.gpuFp + " + " + pair.gpuBp + ", " +
                   iterative::toString(method),
               relativeL2(gpu.voxels(), cpu.voxels()));
      EXPECT_LT(relativeL2(gpu.voxels(), cpu.voxels()), pair.tolerance)
          << pair.gpuFp << " + " << pair.gpuBp << ", " << iterative::toString(method);
      ASSERT_EQ(gpuReport.iterations.size(), 20u);
      const double cpuResidual = cpuReport.iterations.back().relativeResidual;
      EXPECT_NEAR(gpuReport.iterations.back().relativeResidual, cpuResidual,
                  0.02 * cpuResidual + 1e-6)
          << pair.gpuFp;
      if (method == iterative::IterativeMethod::Sirt)  // OS-SIRT sums over moving iterates
        for (std::size_t i = 1; i < gpuReport.iterations.size(); ++i)
          EXPECT_LE(gpuReport.iterations[i].weightedResidualNorm,
                    gpuReport.iterations[i - 1].weightedResidualNorm * (1 + 1e-5))
              << pair.gpuFp << ", iteration " << i + 1;
    }
  }
}

TEST(GpuEtSirt, EqualsTheSameKernelsDrivenFromTheHost) {
  TOMOWB_SKIP_WITHOUT_GPU();
  std::mt19937_64 rng(test::randomSeed());
  const SirtData d = sheppLoganSeries(rng, 48, 4, 31);
  for (const auto& [fp, bp] :
       {std::pair{"et.fp.fast", "et.bp.fast"}, std::pair{"et.fp.matched", "et.bp.matched"},
        std::pair{"et.fp.strips-angles", "et.bp.voxel"}})
    for (const iterative::IterativeMethod method :
         {iterative::IterativeMethod::Sirt, iterative::IterativeMethod::OsSirt}) {
      iterative::IterativeParams p = sirtParams(d, fp, bp, 8);
      p.method = method;
      const Volume device = gpuSirt(d, p);
      const Volume host = hostDrivenSirt(d, p);
      measured(std::string("device vs host-driven SIRT, ") + fp + " + " + bp + ", " +
                   iterative::toString(method),
               relativeL2(device.voxels(), host.voxels()));
      EXPECT_LT(relativeL2(device.voxels(), host.voxels()), 1e-6)
          << fp << " + " << bp << ", " << iterative::toString(method);
    }
}

TEST(GpuEtSirt, GeneralPathMatchesTheCpuAndSaysWhy) {
  TOMOWB_SKIP_WITHOUT_GPU();
  std::mt19937_64 rng(test::randomSeed());
  const SirtData d = sheppLoganSeries(rng, 40, 16, 25, true);
  const iterative::IterativeParams gp = sirtParams(d, "et.fp.matched", "et.bp.matched", 10);
  const iterative::IterativeParams cp = sirtParams(d, "et.fp.cpu", "et.bp.cpu-matched", 10);
  JobContext context;
  const Volume cpu = iterative::reconstructIterative(d.projections, cp, context);
  iterative::IterativeReport report;
  const Volume gpu = gpuSirt(d, gp, &report);
  EXPECT_LT(relativeL2(gpu.voxels(), cpu.voxels()), 1e-4);
  bool said = false;
  for (const std::string& w : report.warnings) said = said || w.find("general 3-D") != w.npos;
  EXPECT_TRUE(said);
  const iterative::IterativeParams fast = sirtParams(d, "et.fp.fast", "et.bp.fast", 10);
  const iterative::IterativeParams cpuVoxel = sirtParams(d, "et.fp.cpu", "et.bp.cpu-voxel", 10);
  EXPECT_LT(relativeL2(gpuSirt(d, fast).voxels(),
                       iterative::reconstructIterative(d.projections, cpuVoxel, context).voxels()),
            3e-3);
}

// The number of slabs in the plan, read from the report's device text ("4 slab(s) of ...").
int slabsOf(const iterative::IterativeReport& r) {
  const std::size_t at = r.device.find(" slab(s)");
  if (at == std::string::npos) return 1;
  std::size_t start = r.device.rfind(' ', at - 1);
  start = start == std::string::npos ? 0 : start + 1;
  return std::stoi(r.device.substr(start, at - start));
}

// One slab on one GPU against three or more slabs: streamed on that GPU, and split over every GPU
// the machine has (lock-step, then streamed). Each slice of a single-axis series is its own
// problem, so any split gives the same voxels on any number of GPUs. The one-slab run is pinned
// to one GPU: left free, a run spreads over every GPU (2 slabs on a two-GPU machine).
TEST(GpuEtSirt, OneSlabAndManySlabsAreBitIdentical) {
  TOMOWB_SKIP_WITHOUT_GPU();
  const std::vector<GpuDevice> gpus = listGpuDevices();
  std::vector<std::vector<int>> splits = {{gpus.front().index}};
  if (gpus.size() > 1) splits.emplace_back();  // empty: every GPU
  std::mt19937_64 rng(test::randomSeed());
  const SirtData d = sheppLoganSeries(rng, 48, 40, 21);
  auto mask = std::make_shared<Volume>(d.grid.shape, d.grid.voxelSizeMm, d.grid.originMm);
  for (std::int64_t i = 0; i < mask->voxelCount(); ++i) mask->voxels()[i] = float(i % 7 != 0);
  for (const auto& [fp, bp] :
       {std::pair{"et.fp.fast", "et.bp.fast"}, std::pair{"et.fp.matched", "et.bp.matched"}}) {
    for (const bool masked : {false, true}) {
      iterative::IterativeParams p = sirtParams(d, fp, bp, 6);
      p.method = iterative::IterativeMethod::OsSirt;
      p.subsets = 3;
      p.lowerBound = 0.0;
      if (masked) p.mask = mask;
      if (std::string(fp) == "et.fp.fast") p.gpu.tunables = {{"band-planes", "10"}};
      p.gpu.devices = splits.front();
      iterative::IterativeReport one;
      const Volume whole = gpuSirt(d, p, &one);
      ASSERT_EQ(slabsOf(one), 1) << one.device;
      for (const std::vector<int>& devices : splits) {
        p.gpu.devices = devices;
        p.gpu.memoryLimitBytes = 0;
        const std::string where = devices.empty() ? std::to_string(gpus.size()) + " GPUs"
                                                  : "GPU " + std::to_string(devices.front());
        // Smaller and smaller memory limits until the plan needs at least three slabs.
        bool found = false;
        for (std::uint64_t limit = std::uint64_t{64} << 20; limit >= (std::uint64_t{4} << 20);
             limit = limit * 15 / 16) {
          p.gpu.memoryLimitBytes = limit;
          iterative::IterativeReport many;
          Volume split(p.volume.shape, p.volume.voxelSizeMm, p.volume.originMm);
          try {
            split = gpuSirt(d, p, &many);
          } catch (const ParameterError&) {
            break;  // not even one slice fits
          }
          if (slabsOf(many) < 3) continue;
          found = true;
          for (std::int64_t i = 0; i < whole.voxelCount(); ++i)
            ASSERT_EQ(whole.voxels()[i], split.voxels()[i])
                << fp << (masked ? " masked" : "") << ", voxel " << i << ", " << where << ": "
                << many.device;
          // The residual curve is the same up to the order of the sums.
          ASSERT_EQ(many.iterations.size(), one.iterations.size());
          EXPECT_NEAR(many.iterations.back().residualNorm, one.iterations.back().residualNorm,
                      1e-9 * one.iterations.back().residualNorm)
              << where;
          break;
        }
        EXPECT_TRUE(found) << "no memory limit gave three slabs on " << where;
      }
    }
  }
}

// The number of z-slabs of a streamed general 3-D run ("... streamed in 4 z-slabs ..."); 1 when
// the volume was resident.
int zSlabsOf(const iterative::IterativeReport& r) {
  const std::size_t at = r.device.find(" z-slabs");
  if (at == std::string::npos) return 1;
  const std::size_t start = r.device.rfind(' ', at - 1) + 1;
  return std::stoi(r.device.substr(start, at - start));
}

// A rotated tilt axis (the general 3-D path) under smaller and smaller memory limits until the
// volume goes through the GPU in at least three z-slabs: the same result as the resident run up
// to the order of the ray sums' float32 additions, for both 3-D pairs, SIRT, OS-SIRT with bounds
// and masked SART (whose column weights are recomputed per slab, not kept on the host); and the
// CPU SIRT within the resident path's tolerances.
TEST(GpuEtSirt, GeneralPathStreamedInZSlabsEqualsTheResidentRun) {
  TOMOWB_SKIP_WITHOUT_GPU();
  std::mt19937_64 rng(test::randomSeed());
  const SirtData d = sheppLoganSeries(rng, 40, 30, 25, true);
  auto mask = std::make_shared<Volume>(d.grid.shape, d.grid.voxelSizeMm, d.grid.originMm);
  for (std::int64_t i = 0; i < mask->voxelCount(); ++i) mask->voxels()[i] = float(i % 5 != 0);
  struct Case {
    const char *fp, *bp, *cpuBp;
    iterative::IterativeMethod method;
    bool masked;
    int iterations;
    double cpuTolerance;  // 0: not compared with the CPU
  };
  using M = iterative::IterativeMethod;
  for (const Case& c :
       {Case{"et.fp.matched", "et.bp.matched", "et.bp.cpu-matched", M::Sirt, false, 10, 1e-4},
        Case{"et.fp.fast", "et.bp.fast", "et.bp.cpu-voxel", M::Sirt, false, 10, 3e-3},
        Case{"et.fp.matched", "et.bp.matched", "", M::OsSirt, false, 6, 0},
        Case{"et.fp.fast", "et.bp.fast", "", M::OsSirt, true, 6, 0},
        Case{"et.fp.matched", "et.bp.matched", "", M::Sart, true, 3, 0},
        Case{"et.fp.fast", "et.bp.fast", "", M::Sart, false, 3, 0}}) {
    const std::string label = std::string(c.fp) + " + " + c.bp + ", " +
                              iterative::toString(c.method) + (c.masked ? ", masked" : "");
    iterative::IterativeParams p = sirtParams(d, c.fp, c.bp, c.iterations);
    p.method = c.method;
    p.subsets = 3;
    if (c.method == M::OsSirt) p.lowerBound = 0.0;
    if (c.masked) p.mask = mask;
    iterative::IterativeReport one;
    const Volume whole = gpuSirt(d, p, &one);
    ASSERT_EQ(zSlabsOf(one), 1) << one.device;
    bool found = false;
    // Fine steps: a slab is a multiple of 4 slices of 40 x 20 voxels (about 12 KiB a slice).
    for (std::uint64_t limit = std::uint64_t{10} << 20; limit >= (std::uint64_t{8} << 20);
         limit = limit * 255 / 256) {
      p.gpu.memoryLimitBytes = limit;
      iterative::IterativeReport many;
      Volume split(p.volume.shape, p.volume.voxelSizeMm, p.volume.originMm);
      try {
        split = gpuSirt(d, p, &many);
      } catch (const ParameterError&) {
        break;  // not even one slice fits
      }
      if (zSlabsOf(many) < 3) continue;
      found = true;
      double largest = 0;
      for (std::int64_t i = 0; i < whole.voxelCount(); ++i)
        largest = std::max(largest, std::abs(double(whole.voxels()[i]) - split.voxels()[i]));
      const double difference = relativeL2(split.voxels(), whole.voxels());
      measured("streamed (" + std::to_string(zSlabsOf(many)) + " z-slabs) vs resident, " + label +
                   ", relative L2",
               difference);
      measured("  largest voxel difference", largest);
      EXPECT_LT(difference, 1e-6) << label << ", " << many.device;
      ASSERT_EQ(many.iterations.size(), one.iterations.size());
      EXPECT_NEAR(many.iterations.back().residualNorm, one.iterations.back().residualNorm,
                  1e-6 * one.iterations.back().residualNorm)
          << label;
      if (c.cpuTolerance > 0) {
        JobContext context;
        const iterative::IterativeParams cp = sirtParams(d, "et.fp.cpu", c.cpuBp, c.iterations);
        const Volume cpu = iterative::reconstructIterative(d.projections, cp, context);
        measured("streamed vs CPU SIRT, " + label, relativeL2(split.voxels(), cpu.voxels()));
        EXPECT_LT(relativeL2(split.voxels(), cpu.voxels()), c.cpuTolerance) << label;
      }
      break;
    }
    EXPECT_TRUE(found) << "no memory limit gave three z-slabs, " << label;
  }
}

TEST(GpuEtSirt, TwoGpusEqualOne) {
  TOMOWB_SKIP_WITHOUT_GPU();
  if (listGpuDevices().size() < 2) GTEST_SKIP() << "needs two GPUs";
  std::mt19937_64 rng(test::randomSeed());
  const SirtData d = sheppLoganSeries(rng, 48, 20, 21);
  iterative::IterativeParams p = sirtParams(d, "et.fp.fast", "et.bp.fast", 6);
  p.gpu.devices = {0};
  const Volume one = gpuSirt(d, p);
  p.gpu.devices = {0, 1};
  iterative::IterativeReport report;
  const Volume two = gpuSirt(d, p, &report);
  EXPECT_NE(report.device.find("2 x"), std::string::npos) << report.device;
  for (std::int64_t i = 0; i < one.voxelCount(); ++i)
    ASSERT_EQ(one.voxels()[i], two.voxels()[i]) << "voxel " << i;
}

TEST(GpuEtSirt, StopRuleAndIntermediatesWorkAsOnTheCpu) {
  TOMOWB_SKIP_WITHOUT_GPU();
  std::mt19937_64 rng(test::randomSeed());
  const SirtData d = sheppLoganSeries(rng, 48, 4, 31);
  struct Views : IntermediateVolumeSink {
    int count = 0;
    std::vector<float> last;
    void publish(const Volume& v, std::string_view, double) override {
      ++count;
      last.assign(v.voxels().begin(), v.voxels().end());
    }
  } views;
  CancelToken token;
  JobContext context(token, nullptr, nullptr, &views);
  iterative::IterativeParams p = sirtParams(d, "et.fp.fast", "et.bp.fast", 20);
  p.publishEvery = 5;
  const Volume x = gpuSirt(d, p, nullptr, &context);
  EXPECT_EQ(views.count, 4);
  ASSERT_EQ(views.last.size(), std::size_t(x.voxelCount()));
  for (std::int64_t i = 0; i < x.voxelCount(); ++i) ASSERT_EQ(views.last[i], x.voxels()[i]);
  p.iterations = 300;
  p.stopRelativeChange = 0.05;
  iterative::IterativeReport report;
  gpuSirt(d, p, &report);
  EXPECT_LT(report.iterations.size(), 300u);
  EXPECT_NE(report.stopReason.find("fell by"), std::string::npos) << report.stopReason;
}

TEST(GpuEtSirt, CancelStopsTheRun) {
  TOMOWB_SKIP_WITHOUT_GPU();
  std::mt19937_64 rng(test::randomSeed());
  const SirtData d = sheppLoganSeries(rng, 48, 4, 31);
  struct CancellingSink : IterationSink {
    CancelToken* token = nullptr;
    int seen = 0;
    void iterationDone(const IterationRecord&) override {
      if (++seen == 2) token->request();
    }
  };
  CancelToken token;
  JobContext context(token);
  CancellingSink sink;
  sink.token = &token;
  context.setIterationSink(&sink);
  const iterative::IterativeParams p = sirtParams(d, "et.fp.fast", "et.bp.fast", 50);
  EXPECT_THROW(gpuSirt(d, p, nullptr, &context), Cancelled);
  EXPECT_EQ(sink.seen, 2);
}

TEST(GpuEtSirt, RejectsConeBeamsAndProblemsThatCannotFit) {
  TOMOWB_SKIP_WITHOUT_GPU();
  CircularConeParams c;
  c.sourceToIsocentreMm = 100;
  c.sourceToDetectorMm = 200;
  c.detector.cols = 16;
  c.detector.rows = 8;
  c.anglesRad = fullScanAnglesRad(12);
  SirtData cone;
  cone.projections = ProjectionStack(circularConeBeam(c));
  cone.grid = fdk::VolumeGrid::centred({8, 8, 8}, Eigen::Vector3d::Ones());
  EXPECT_THROW(gpuSirt(cone, sirtParams(cone, "et.fp.fast", "et.bp.fast", 2)), ParameterError);
  std::mt19937_64 rng(test::randomSeed());
  const SirtData general = sheppLoganSeries(rng, 40, 16, 25, true);
  iterative::IterativeParams p = sirtParams(general, "et.fp.fast", "et.bp.fast", 2);
  p.gpu.memoryLimitBytes = 1 << 20;
  try {
    gpuSirt(general, p);
    ADD_FAILURE() << "expected a ParameterError";
  } catch (const ParameterError& e) {
    EXPECT_NE(std::string(e.what()).find("would fit"), std::string::npos) << e.what();
  }
}

// The GPU SIRT of a tilt series does not depend on how it is described (issue #17, point 2):
// detector axes flipped with the data mirrored, or the views listed backwards, give the tomogram
// of the series as recorded (within the texture unit's rounding for the hardware-interpolated
// pair, float rounding for the matched pair).
TEST(GpuEtSirt, FlippedDetectorAxesAndReversedViewsChangeNothing) {
  TOMOWB_SKIP_WITHOUT_GPU();
  std::mt19937_64 rng(test::randomSeed());
  const SirtData d = sheppLoganSeries(rng, 48, 4, 31);
  struct Described {
    const char* label;
    SirtData data;
  };
  const Described cases[] = {{"u flipped", {test::flipDetectorU(d.projections), d.grid}},
                             {"v flipped", {test::flipDetectorV(d.projections), d.grid}},
                             {"views backwards", {test::reverseViews(d.projections), d.grid}}};
  for (const auto& [fp, bp, tolerance] : {std::tuple{"et.fp.fast", "et.bp.fast", 3e-3},
                                          std::tuple{"et.fp.matched", "et.bp.matched", 1e-5}}) {
    const iterative::IterativeParams p = sirtParams(d, fp, bp, 10);
    const Volume reference = gpuSirt(d, p);
    for (const Described& c : cases) {
      const Volume v = gpuSirt(c.data, p);
      measured(std::string("SIRT, ") + c.label + ", " + fp + " + " + bp,
               relativeL2(v.voxels(), reference.voxels()));
      EXPECT_LT(relativeL2(v.voxels(), reference.voxels()), tolerance)
          << c.label << " with " << fp << " + " << bp;
    }
  }
}

}  // namespace
}  // namespace tomowb::cuda
