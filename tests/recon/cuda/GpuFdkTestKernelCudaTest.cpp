// A GPU FDK kernel that only this test knows (FdkBpTestGather.cu) registered into the test's own
// registry with one row (issue #18, point 6): its backprojection matches the float64 CPU
// reference on random tilted and offset geometries, and the whole GPU pipeline with it (GPU
// weighting, cuFFT filter, streamed chunks) matches the CPU FDK. Without a GPU it skips.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "recon/fdk/BackprojectorCpu.h"
#include "recon/fdk/Fdk.h"
#include "recon/fdk/GpuFdkKernelTable.h"
#include "recon/fdk/cuda/GpuFdk.h"
#include "recon/geometry/ScanBuilders.h"
#include "recon/phantom/AnalyticProjector.h"
#include "recon/phantom/Phantom.h"
#include "recon/variant/VariantRegistry.h"
#include "support/TestSupport.h"

namespace tomowb::cuda {

void fdkBpTestGather(const FdkBatch& batch);  // FdkBpTestGather.cu

namespace {

// The variant's row: everything the pipeline decides, in one place.
const fdk::GpuFdkKernel kTestGather{"fdk.bp.test-gather",
                                    "GPU, test only: software bilinear gather from global memory",
                                    {},
                                    qa::AccuracyClass::Exact,
                                    fdk::GpuFdkInput::Linear,
                                    false,
                                    "",
                                    "",
                                    &fdkBpTestGather};

double relativeL2(const Volume& a, const Volume& b) {
  double num = 0, den = 0;
  for (std::int64_t i = 0; i < a.voxelCount(); ++i) {
    const double d = double(a.data()[i]) - double(b.data()[i]);
    num += d * d;
    den += double(b.data()[i]) * double(b.data()[i]);
  }
  return std::sqrt(num / std::max(den, 1e-300));
}

double nrmse(const Volume& a, const Volume& reference) {
  double num = 0, lo = 1e300, hi = -1e300;
  for (std::int64_t i = 0; i < a.voxelCount(); ++i) {
    const double r = reference.data()[i];
    const double d = double(a.data()[i]) - r;
    num += d * d;
    lo = std::min(lo, r);
    hi = std::max(hi, r);
  }
  return std::sqrt(num / double(a.voxelCount())) / std::max(hi - lo, 1e-300);
}

TEST(GpuFdkTestKernel, OneRowRegistersItAndItMatchesTheFloat64Reference) {
  TOMOWB_SKIP_WITHOUT_GPU();
  VariantRegistry registry;
  addGpuFdkVariant(registry, kTestGather);
  const KernelVariant& variant = registry.require("fdk.bp.test-gather");
  EXPECT_TRUE(variant.needsGpu);
  EXPECT_EQ(variant.role, VariantRole::FdkBackprojector);
  EXPECT_EQ(variant.accuracyClass, qa::AccuracyClass::Exact);
  EXPECT_EQ(VariantRegistry::builtins().find("fdk.bp.test-gather"), nullptr);

  const std::uint64_t seed = test::randomSeed();
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> uni(-1.0, 1.0);
  for (const bool tilted : {false, true}) {
    CircularConeParams p;
    p.sourceToIsocentreMm = 400 + 50 * uni(rng);
    p.sourceToDetectorMm = 800 + 80 * uni(rng);
    p.detector.cols = 72;
    p.detector.rows = 60;
    p.detector.pitchUMm = p.detector.pitchVMm = 2.0;
    p.detector.offsetUMm = 6 * uni(rng);
    p.detector.offsetVMm = 6 * uni(rng);
    if (tilted) {
      p.detector.tiltRad = 0.05 * uni(rng);
      p.detector.slantRad = 0.05 * uni(rng);
    }
    p.anglesRad = fullScanAnglesRad(45, 0.3 * uni(rng));
    ProjectionStack views(circularConeBeam(p));
    std::uniform_real_distribution<float> data(-1.0f, 1.0f);
    for (float& x : views.pixels()) x = data(rng);
    const Volume grid = Volume::centred({42, 38, 36}, Eigen::Vector3d::Constant(1.0));
    Volume reference(grid.shape(), grid.voxelSizeMm(), grid.originMm());
    Volume gpu(grid.shape(), grid.voxelSizeMm(), grid.originMm());
    JobContext context;
    fdk::backprojectCpuReference(views, reference, context);
    variant.backproject(views, gpu, context);
    // Software float32 interpolation, as fdk.bp.naive: ~1e-6 on zero-mean data.
    EXPECT_LT(relativeL2(gpu, reference), 2e-5)
        << (tilted ? "tilted" : "untilted") << ", seed " << seed;
  }
}

TEST(GpuFdkTestKernel, RunsTheWholeGpuPipelineLikeTheCpuFdk) {
  TOMOWB_SKIP_WITHOUT_GPU();
  VariantRegistry registry;
  addGpuFdkVariant(registry, kTestGather);
  const KernelVariant& variant = registry.require("fdk.bp.test-gather");
  CircularConeParams p;
  p.sourceToIsocentreMm = 500;
  p.sourceToDetectorMm = 1000;
  p.detector.cols = 112;
  p.detector.rows = 96;
  p.detector.pitchUMm = p.detector.pitchVMm = 3.2;
  p.detector.offsetUMm = 60.0;  // offset detector: widened filter rows
  p.anglesRad = fullScanAnglesRad(120);
  const ProjectionStack projections =
      phantom::projectPhantom(phantom::modifiedSheppLogan3d(60.0), circularConeBeam(p));
  fdk::FdkParams params;
  params.volume = fdk::VolumeGrid::centred({64, 64, 56}, Eigen::Vector3d::Constant(2.0));
  params.filter.window = fdk::RampWindow::Hann;
  params.variant = "fdk.bp.cpu-f64";
  JobContext context;
  const Volume cpu = fdk::reconstructFdk(projections, params, context);
  // Streamed: several slabs, each from chunks of a few views (the limit of ForcedStreaming).
  params.gpu.memoryLimitBytes = (std::uint64_t{256} << 20) + 3300000;
  const fdk::FdkWeightPlan plan(projections.geometry(), params.redundancy);
  PendingVolume pending(params.volume);
  fdk::FdkReport report;
  variant.reconstruct(projections, plan, params, pending, context, report);
  const Volume gpu = pending.take();
  EXPECT_EQ(report.kernel, "fdk.bp.test-gather");
  EXPECT_LT(nrmse(gpu, cpu), 1e-5) << report.plan;
}

}  // namespace
}  // namespace tomowb::cuda
