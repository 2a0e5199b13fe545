// The GPU projectors through the projector-pair interface (recon/operator/ProjectorPair.h): the
// adjoint test with zero-mean vectors on every pair of registered projectors that includes a GPU
// one, the refusal of cone beams with a reason, and CGLS on the GPU pair against CGLS on the CPU
// pair. Without a GPU every test skips with a message.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

#include "recon/geometry/ScanBuilders.h"
#include "recon/iterative/IterativeReconstruction.h"
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
// (the same model, float32 on the GPU against float64 sums on the CPU). Over +-89 degrees: on a
// +-60 degree tilt series the poorly determined directions take the 1e-6 differences of the two
// projectors to 1% of the volume in 10 iterations (measured on an H100), while the residuals
// still agree.
TEST(GpuProjectorPair, CglsOnTheGpuPairFollowsCglsOnTheCpuPair) {
  TOMOWB_SKIP_WITHOUT_GPU();
  const Geometry geometry = tilts(96, 4, 61, 178);
  const phantom::Phantom shepp = phantom::modifiedSheppLogan3d(30, 1.0);
  const ProjectionStack data = phantom::projectPhantom(shepp, geometry, {});
  iterative::IterativeParams p;
  p.method = iterative::IterativeMethod::Cgls;
  p.volume = iterative::tomogramGrid(geometry, 96);
  p.iterations = 10;
  p.forwardVariant = "et.fp.cpu";
  p.backVariant = "et.bp.cpu-matched";
  JobContext context;
  iterative::IterativeReport cpuReport;
  const Volume cpu = iterative::reconstructIterative(data, p, context, &cpuReport);
  p.forwardVariant = "et.fp.matched";
  p.backVariant = "et.bp.matched";
  iterative::IterativeReport report;
  const Volume gpu = iterative::reconstructIterative(data, p, context, &report);
  double num = 0, den = 0;
  for (std::int64_t i = 0; i < cpu.voxelCount(); ++i) {
    num += std::pow(double(gpu.data()[i]) - cpu.data()[i], 2);
    den += std::pow(double(cpu.data()[i]), 2);
  }
  std::printf("[ measured ] CGLS GPU pair against CPU pair, 10 iterations: relative L2 %.3g\n",
              std::sqrt(num / den));
  EXPECT_LT(std::sqrt(num / den), 1e-3);
  ASSERT_EQ(report.iterations.size(), cpuReport.iterations.size());
  for (std::size_t i = 0; i < report.iterations.size(); ++i)
    EXPECT_NEAR(report.iterations[i].residualNorm, cpuReport.iterations[i].residualNorm,
                1e-4 * cpuReport.iterations[0].residualNorm)
        << "iteration " << i + 1;
  EXPECT_EQ(report.device, "GPU");
  EXPECT_TRUE(report.warnings.empty());
}

}  // namespace
}  // namespace tomowb::op
