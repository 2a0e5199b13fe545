// The GPU projectors through the projector-pair interface (recon/operator/ProjectorPair.h): the
// adjoint test with zero-mean vectors on every pair of registered projectors that includes a GPU
// one, the refusal of cone beams with a reason, and CGLS on the GPU pair against CGLS on the CPU
// pair. Without a GPU every test skips with a message.
#include <gtest/gtest.h>

#include <Eigen/Geometry>
#include <cmath>
#include <numbers>
#include <optional>
#include <random>

#include "recon/geometry/ScanBuilders.h"
#include "recon/iterative/IterationLog.h"
#include "recon/iterative/IterativeReconstruction.h"
#include "recon/iterative/OrderedSubsetSolver.h"
#include "recon/operator/AdjointTest.h"
#include "recon/operator/ProjectorPair.h"
#include "recon/phantom/AnalyticProjector.h"
#include "recon/phantom/Phantom.h"
#include "recon/variant/VariantRegistry.h"
#include "support/TestSupport.h"

namespace tomowb::op {
namespace {

constexpr double kDeg = std::numbers::pi / 180.0;

Geometry tilts(std::int64_t cols, std::int64_t rows, std::int64_t views, double rangeDeg = 120) {
  TiltSeriesParams p;
  p.cols = cols;
  p.rows = rows;
  p.tiltAnglesRad = arcAnglesRad(views, rangeDeg * kDeg, -rangeDeg / 2 * kDeg);
  return tiltSeries(p);
}

// ||test - reference|| / ||reference|| over the voxels, in float64.
double relativeL2(const Volume& test, const Volume& reference) {
  double num = 0, den = 0;
  for (std::int64_t i = 0; i < reference.voxelCount(); ++i) {
    num += std::pow(double(test.data()[i]) - reference.data()[i], 2);
    den += std::pow(double(reference.data()[i]), 2);
  }
  return std::sqrt(num / den);
}

TEST(GpuProjectorPair, EveryPairWithAGpuProjectorPassesTheAdjointTestIffItIsMatched) {
  TOMOWB_SKIP_WITHOUT_GPU();
  const VariantRegistry& registry = VariantRegistry::builtins();
  const Geometry geometry = tilts(64, 8, 31);
  const ProjectorProblem problem{&geometry, VolumeGrid::centred({64, 24, 8}, {1, 1, 1})};
  const std::uint64_t seed = test::randomSeed();
  int matched = 0, unmatched = 0;
  for (const KernelVariant& fp : registry.all()) {
    if (!fp.forwardProject) continue;
    for (const KernelVariant& bp : registry.all()) {
      if (!bp.backprojectViews || !(fp.needsGpu || bp.needsGpu)) continue;
      SCOPED_TRACE(fp.name + " + " + bp.name + ", seed " + std::to_string(seed));
      // Only a projector that declares the geometries it takes may refuse this tilt series (the
      // SF pairs take cone beams only).
      if (const std::optional<std::string> why =
              whyNotSupported(registry, fp.name, bp.name, problem)) {
        ASSERT_TRUE(fp.supports || bp.supports) << *why;
        continue;
      }
      std::unique_ptr<ProjectorPair> pair = bindProjectorPair(registry, fp.name, bp.name, problem);
      JobContext context;
      const AdjointCheck check = checkAdjoint(*pair, seed, context);
      std::printf("%-22s + %-20s adjoint error %.3g\n", fp.name.c_str(), bp.name.c_str(),
                  check.relativeError);
      // Registered as transposes: matched. Of different models: unmatched. Two projectors of
      // one model not registered as a pair (et.fp.matched + et.bp.cpu-matched) may agree to
      // float32 rounding or to the texture unit's interpolation: printed, not judged.
      if (pair->matched()) {
        EXPECT_LT(check.relativeError, AdjointCheck::kMatchedTolerance);
        ++matched;
      } else if (fp.model != bp.model) {
        EXPECT_GT(check.relativeError, 30 * AdjointCheck::kMatchedTolerance);
        ++unmatched;
      }
    }
  }
  EXPECT_GE(matched, 1);
  EXPECT_GE(unmatched, 10);  // every Joseph projector with a voxel-driven backprojector
}

TEST(GpuProjectorPair, RefusesConeBeamsWithAReason) {
  TOMOWB_SKIP_WITHOUT_GPU();
  CircularConeParams p;
  p.sourceToIsocentreMm = 300;
  p.sourceToDetectorMm = 600;
  p.detector = {.cols = 32, .rows = 16, .pitchUMm = 1.0, .pitchVMm = 1.0};
  p.anglesRad = fullScanAnglesRad(20);
  const Geometry cone = circularConeBeam(p);
  const std::optional<std::string> why =
      whyNotSupported(VariantRegistry::builtins(), "et.fp.fast", "et.bp.fast",
                      {&cone, VolumeGrid::centred({16, 16, 8}, {1, 1, 1})});
  ASSERT_TRUE(why);
  EXPECT_NE(why->find("parallel beams only"), std::string::npos) << *why;
}

// CGLS is written once over the pair: on the GPU's matched pair it follows the CPU's matched pair
// (the same model, float32 on the GPU against float64 sums on the CPU) for its first iterations.
// Conjugate gradients amplify rounding: on this +-89 degree series the two runs drift apart by
// 2e-3 of the volume and 12% of the residual by iteration 10, on a +-60 degree one by 1% of the
// volume (H100, 2026-11-26), so the comparison stops at 6 iterations.
TEST(GpuProjectorPair, CglsOnTheGpuPairFollowsCglsOnTheCpuPair) {
  TOMOWB_SKIP_WITHOUT_GPU();
  const Geometry geometry = tilts(96, 4, 61, 178);
  const phantom::Phantom shepp = phantom::modifiedSheppLogan3d(30, 1.0);
  const ProjectionStack data = phantom::projectPhantom(shepp, geometry, {});
  iterative::IterativeParams p;
  p.method = iterative::IterativeMethod::Cgls;
  p.volume = iterative::tomogramGrid(geometry, 96);
  p.iterations = 6;
  p.forwardVariant = "et.fp.cpu";
  p.backVariant = "et.bp.cpu-matched";
  JobContext context;
  iterative::IterativeReport cpuReport;
  const Volume cpu = iterative::reconstructIterative(data, p, context, &cpuReport);
  p.forwardVariant = "et.fp.matched";
  p.backVariant = "et.bp.matched";
  iterative::IterativeReport report;
  const Volume gpu = iterative::reconstructIterative(data, p, context, &report);
  const double error = relativeL2(gpu, cpu);
  std::printf("[ measured ] CGLS GPU pair against CPU pair, 6 iterations: relative L2 %.3g\n",
              error);
  EXPECT_LT(error, 1e-3);
  ASSERT_EQ(report.iterations.size(), cpuReport.iterations.size());
  for (std::size_t i = 0; i < report.iterations.size(); ++i)
    EXPECT_NEAR(report.iterations[i].residualNorm, cpuReport.iterations[i].residualNorm,
                1e-3 * cpuReport.iterations[0].residualNorm)
        << "iteration " << i + 1;
  EXPECT_NE(report.device.find("resident"), std::string::npos) << report.device;
  EXPECT_TRUE(report.warnings.empty());
}

// The resident pair runs the same kernels as the host-to-host entries of the variants: on a random
// volume and random projections, every GPU pair's forward and adjoint agree with them.
TEST(GpuProjectorPair, ResidentPairsAgreeWithTheHostToHostKernels) {
  TOMOWB_SKIP_WITHOUT_GPU();
  const VariantRegistry& registry = VariantRegistry::builtins();
  const std::uint64_t seed = test::randomSeed();
  std::mt19937_64 generator(seed);
  std::uniform_real_distribution<float> value(0.0f, 1.0f);
  for (const auto& [geometry, grid] :
       {std::pair{tilts(80, 6, 37), VolumeGrid::centred({80, 30, 6}, {1, 1, 1})},
        // a 3-D problem: the tilt axis not along a volume axis
        std::pair{tilts(48, 40, 25), VolumeGrid::centred({40, 40, 8}, {1, 1, 1})}}) {
    Geometry g = geometry;
    if (grid.shape.nz == 8) {  // the whole scan turned by 0.3 rad about x
      const Eigen::AngleAxisd turn(0.3, Eigen::Vector3d::UnitX());
      std::vector<View> views = g.views();
      for (View& v : views) {
        v.u = turn * v.u;
        v.v = turn * v.v;
        v.rayDirection = turn * v.rayDirection;
        v.detectorCentre = turn * v.detectorCentre;
      }
      g = Geometry(g.beam(), g.detector(), std::move(views));
    }
    Volume x = grid.makeVolume();
    for (float& v : x.voxels()) v = value(generator);
    ProjectionStack y(g);
    for (float& v : y.pixels()) v = value(generator);
    for (const auto& [fpName, bpName] :
         {std::pair{"et.fp.fast", "et.bp.fast"}, std::pair{"et.fp.matched", "et.bp.matched"},
          std::pair{"et.fp.strips", "et.bp.voxel"}}) {
      SCOPED_TRACE(std::string(fpName) + " + " + bpName + ", seed " + std::to_string(seed));
      std::unique_ptr<ProjectorPair> pair = bindProjectorPair(registry, fpName, bpName, {&g, grid});
      ASSERT_EQ(pair->ops().space(), MemorySpace::Device) << pair->device();
      JobContext context;
      const std::unique_ptr<const Array> xd = pair->useVolume(x);
      const std::unique_ptr<const Array> yd = pair->useProjections(y);
      std::unique_ptr<Array> ax = pair->makeProjections();
      pair->forward(*xd, *ax, {}, context);
      std::unique_ptr<Array> by = pair->makeVolume();
      pair->adjoint(*yd, *by, {}, context);
      // The host-to-host entries on the same inputs.
      ProjectionStack axHost(g);
      registry.require(fpName).forwardProject(x, axHost, {}, context);
      Volume byHost = grid.makeVolume();
      registry.require(bpName).backprojectViews(y, byHost, {}, context);
      // Compare through the pair's own layout: upload the host results the same way.
      const std::unique_ptr<const Array> axRef = pair->useProjections(axHost);
      const std::unique_ptr<const Array> byRef = pair->useVolume(byHost);
      const ArrayOps& ops = pair->ops();
      const auto relative = [&ops](const Array& a, const Array& b) {
        const double aa = ops.dot(a, a), bb = ops.dot(b, b), ab = ops.dot(a, b);
        return std::sqrt(std::max(0.0, aa + bb - 2 * ab) / bb);
      };
      const double forwardError = relative(*ax, *axRef), backError = relative(*by, *byRef);
      std::printf("[ measured ] resident %s + %s (%s): forward %.3g, adjoint %.3g\n", fpName,
                  bpName, grid.shape.nz == 8 ? "3-D" : "aligned", forwardError, backError);
      EXPECT_LT(forwardError, 1e-6);
      EXPECT_LT(backError, 1e-6);
    }
  }
}

// The ordered-subset solver with the SIRT rule on the resident pair follows the fused GPU SIRT
// (the same kernels, the residual and the update fused into them there).
TEST(GpuProjectorPair, SirtThroughTheSolverOnTheResidentPairFollowsTheFusedSirt) {
  TOMOWB_SKIP_WITHOUT_GPU();
  const Geometry geometry = tilts(128, 8, 61);
  const phantom::Phantom shepp = phantom::modifiedSheppLogan3d(40, 1.0);
  const ProjectionStack data = phantom::projectPhantom(shepp, geometry, {});
  iterative::IterativeParams p;
  p.method = iterative::IterativeMethod::OsSirt;
  p.subsets = 4;
  p.volume = iterative::tomogramGrid(geometry, 64);
  p.iterations = 6;
  p.lowerBound = 0.0;
  p.forwardVariant = "et.fp.matched";
  p.backVariant = "et.bp.matched";
  JobContext context;
  iterative::IterativeReport fusedReport;
  const Volume fused = iterative::reconstructIterative(data, p, context, &fusedReport);

  std::unique_ptr<ProjectorPair> pair = bindProjectorPair(
      VariantRegistry::builtins(), p.forwardVariant, p.backVariant, {&geometry, p.volume});
  ASSERT_EQ(pair->ops().space(), MemorySpace::Device);
  const std::unique_ptr<const Array> b = pair->useProjections(data);
  std::unique_ptr<Array> x = pair->makeVolume();
  const iterative::SubsetProblem problem{
      *pair, *b,       nullptr,
      0.0f,  INFINITY, iterative::viewSubsets(p.method, geometry.viewCount(), p.subsets)};
  iterative::SirtRule rule(p.relaxation);
  iterative::IterativeReport report;
  iterative::runOrderedSubsets(problem, rule, *x, p, iterative::dataNormOf(data), report, context);
  const Volume solver = pair->takeVolume(std::move(x));
  const double error = relativeL2(solver, fused);
  std::printf(
      "[ measured ] OS-SIRT-4 x 6 through the solver on the resident pair against the "
      "fused GPU SIRT: relative L2 %.3g\n",
      error);
  EXPECT_LT(error, 1e-4);
  ASSERT_EQ(report.iterations.size(), fusedReport.iterations.size());
  for (std::size_t i = 0; i < report.iterations.size(); ++i)
    EXPECT_NEAR(report.iterations[i].weightedResidualNorm,
                fusedReport.iterations[i].weightedResidualNorm,
                1e-4 * fusedReport.iterations[0].weightedResidualNorm);
}

TEST(GpuProjectorPair, APairThatDoesNotFitRunsOnHostArraysAndSaysWhy) {
  TOMOWB_SKIP_WITHOUT_GPU();
  const Geometry geometry = tilts(64, 8, 31);
  ProjectorProblem problem{&geometry, VolumeGrid::centred({64, 24, 8}, {1, 1, 1})};
  problem.gpu.memoryLimitBytes = 1 << 20;  // 1 MiB: too little for the textures and arrays
  std::unique_ptr<ProjectorPair> pair =
      bindProjectorPair(VariantRegistry::builtins(), "et.fp.fast", "et.bp.fast", problem);
  EXPECT_EQ(pair->ops().space(), MemorySpace::Host);
  EXPECT_NE(pair->device().find("not resident on the GPU"), std::string::npos) << pair->device();
  JobContext context;
  EXPECT_LT(checkAdjoint(*pair, test::randomSeed(), context).relativeError, 1e-2);
}

}  // namespace
}  // namespace tomowb::op
