// The benchmark programs' shared parts (bench/BenchSupport.h): what makes a table honest.
#include <gtest/gtest.h>

#include <cmath>

#include "bench/BenchSupport.h"
#include "recon/core/Error.h"
#include "recon/fdk/BackprojectorCpu.h"
#include "recon/geometry/ScanBuilders.h"
#include "recon/phantom/AnalyticProjector.h"
#include "recon/phantom/Phantom.h"
#include "recon/variant/VariantRegistry.h"

namespace tomowb::bench {
namespace {

TEST(BenchRunStats, GivesMinMedianAndMaxWhateverTheOrder) {
  const RunStats odd = summarize({0.5, 0.1, 0.3, 0.9, 0.2});
  EXPECT_EQ(odd.runs, 5);
  EXPECT_DOUBLE_EQ(odd.min, 0.1);
  EXPECT_DOUBLE_EQ(odd.median, 0.3);
  EXPECT_DOUBLE_EQ(odd.max, 0.9);
  const RunStats even = summarize({4.0, 1.0, 3.0, 2.0, 6.0, 5.0});
  EXPECT_DOUBLE_EQ(even.median, 3.5);
  EXPECT_NEAR(even.spread(), 5.0, 1e-12);
  EXPECT_THROW(summarize({}), ParameterError);
  EXPECT_GE(kMinTimedRuns, 5);
}

TEST(BenchRunStats, PrintsAllThreeFigures) {
  EXPECT_EQ(minMedianMax(summarize({0.001, 0.002, 0.004, 0.003, 0.005}), 1e3, 1),
            "1.0 / 3.0 / 5.0");
  EXPECT_EQ(fixed(NAN, 2), "n/a");
  EXPECT_EQ(scientific(INFINITY), "n/a");
}

// The float64 reference at sampled voxels must be what fdk.bp.cpu-f64 computes, or every error
// column of the benchmarks measures the reference instead of the kernel.
TEST(BenchReference, EqualsTheFloat64BackprojectorOnPositiveAndZeroMeanData) {
  CircularConeParams p;
  p.sourceToIsocentreMm = 500;
  p.sourceToDetectorMm = 1000;
  p.detector.cols = 40;
  p.detector.rows = 36;
  p.detector.pitchUMm = p.detector.pitchVMm = 2.0 * 64.0 / 24.0;
  p.anglesRad = fullScanAnglesRad(24);
  const Geometry geometry = circularConeBeam(p);
  ProjectionStack random(geometry);
  fillZeroMeanRandom(random, 7);
  const ProjectionStack positive =
      phantom::projectPhantom(phantom::modifiedSheppLogan3d(25.0), geometry);
  double positiveMin = 1e300, randomSum = 0;
  for (float x : positive.pixels()) positiveMin = std::min(positiveMin, double(x));
  for (float x : random.pixels()) randomSum += x;
  EXPECT_GE(positiveMin, 0.0);
  EXPECT_LT(std::abs(randomSum) / double(random.pixelCount()), 0.02);

  const Volume grid = Volume::centred({24, 24, 24}, Eigen::Vector3d::Constant(64.0 / 24.0));
  const std::vector<VoxelSample> samples = sampleVoxels(grid.shape(), 200);
  ASSERT_EQ(samples.size(), 200u);
  const KernelVariant& f64 = VariantRegistry::builtins().require("fdk.bp.cpu-f64");
  for (const ProjectionStack* stack : std::vector<const ProjectionStack*>{&random, &positive}) {
    Volume volume = grid;
    JobContext context;
    f64.backproject(*stack, volume, context);
    const std::vector<double> reference = referenceAtSamples(*stack, grid, samples);
    // float64 against float64 stored as float32: the storage's rounding only.
    EXPECT_LT(relativeL2AtSamples(volume, samples, reference), 1e-6);
    // And the measure sees an error when there is one.
    volume.at(samples[0].x, samples[0].y, samples[0].z) += 1.0f;
    EXPECT_GT(relativeL2AtSamples(volume, samples, reference), 1e-3);
  }
}

TEST(BenchReference, SamplesAreRepeatableAndInside) {
  const VolumeShape shape{10, 20, 30};
  const std::vector<VoxelSample> a = sampleVoxels(shape, 50), b = sampleVoxels(shape, 50);
  ASSERT_EQ(a.size(), 50u);
  EXPECT_EQ(a[0].x, 5);
  EXPECT_EQ(a[0].z, 15);
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].x, b[i].x);
    EXPECT_EQ(a[i].y, b[i].y);
    EXPECT_EQ(a[i].z, b[i].z);
    EXPECT_TRUE(a[i].x >= 0 && a[i].x < 10 && a[i].y >= 0 && a[i].y < 20 && a[i].z >= 0 &&
                a[i].z < 30);
  }
}

TEST(BenchViewRange, KeepsTheViewsAndTheirPixels) {
  CircularConeParams p;
  p.sourceToIsocentreMm = 500;
  p.sourceToDetectorMm = 1000;
  p.detector.cols = 8;
  p.detector.rows = 6;
  p.detector.pitchUMm = p.detector.pitchVMm = 1.0;
  p.anglesRad = fullScanAnglesRad(10);
  ProjectionStack stack(circularConeBeam(p));
  fillZeroMeanRandom(stack, 3);
  const ProjectionStack part = viewRange(stack, 4, 3);
  ASSERT_EQ(part.viewCount(), 3);
  EXPECT_EQ(part.geometry().view(0), stack.geometry().view(4));
  EXPECT_EQ(part.geometry().view(2), stack.geometry().view(6));
  EXPECT_EQ(part.at(1, 5, 7), stack.at(5, 5, 7));
  EXPECT_THROW(viewRange(stack, 8, 3), ParameterError);
}

// Every GPU FDK kernel names its texel format and has a ceiling from gpu-limits-h100.md; the
// headline's half2 kernel is the one with two samples per fetch.
TEST(BenchCeilings, EveryGpuKernelHasATexelFormatAndACeiling) {
  for (const char* kernel :
       {"fdk.bp.naive", "fdk.bp.tex", "fdk.bp.tex-multi", "fdk.bp.slab", "fdk.bp.layered16",
        "fdk.bp.mirror-float2", "fdk.bp.mirror-half2", "fdk.bp.soft", "fdk.bp.soft-mirror",
        "fdk.bp.soft-mirror-half", "fdk.bp.hybrid", "fdk.bp.mirror-hybrid"}) {
    const auto c = fdkKernelCeiling(kernel);
    ASSERT_TRUE(c) << kernel;
    EXPECT_GT(c->gSamplesPerSecond, 400) << kernel;
    EXPECT_FALSE(c->source.empty()) << kernel;
    EXPECT_NE(fdkTexelFormat(kernel), "unknown") << kernel;
  }
  EXPECT_NE(fdkTexelFormat("fdk.bp.mirror-half2").find("half2"), std::string::npos);
  EXPECT_DOUBLE_EQ(fdkKernelCeiling("fdk.bp.mirror-half2")->gSamplesPerSecond, 2079);
  EXPECT_DOUBLE_EQ(fdkKernelCeiling("fdk.bp.layered16")->gSamplesPerSecond, 1040);
  // The hybrids: the texture unit's ceiling over its share of the views.
  EXPECT_DOUBLE_EQ(fdkKernelCeiling("fdk.bp.mirror-hybrid")->gSamplesPerSecond, 2772);
  EXPECT_DOUBLE_EQ(fdkKernelCeiling("fdk.bp.hybrid")->gSamplesPerSecond, 1560);
  EXPECT_FALSE(fdkKernelCeiling("fdk.bp.cpu"));  // no CPU ceiling in the reference
  EXPECT_DOUBLE_EQ(scaledToDevice(1040, 132), 1040);
  EXPECT_DOUBLE_EQ(scaledToDevice(1040, 66), 520);
  EXPECT_DOUBLE_EQ(scaledToDevice(1040, 0), 1040);
}

TEST(BenchCeilings, EtLabelsMapToTheirTexelFormats) {
  EXPECT_DOUBLE_EQ(
      etProjectorCeiling("et.fp.fast (half2 texels x 1, 8 views per block)")->gSamplesPerSecond,
      2079);
  EXPECT_DOUBLE_EQ(etProjectorCeiling("et.bp.fast (float2 texels x 2)")->gSamplesPerSecond, 2079);
  EXPECT_DOUBLE_EQ(etProjectorCeiling("et.bp.fast (float texels x 1)")->gSamplesPerSecond, 1040);
  EXPECT_DOUBLE_EQ(etProjectorCeiling("et.fp.strips")->gSamplesPerSecond, 1040);
  EXPECT_FALSE(etProjectorCeiling("et.fp.matched"));
  EXPECT_FALSE(etProjectorCeiling("et.fp.matched (3-D, software bilinear)"));
}

// A cited table says so in its heading and gives source, date and device for every figure.
TEST(BenchCited, TableIsHeadedCitedAndCarriesSourceDateAndDevice) {
  const std::string t = citedTable(
      "peers", {{"ASTRA 512^3 GUPS", "462", "reference/gpu-limits-h100.md", "2026-11-23", "H100"}});
  EXPECT_NE(t.find("Cited, not measured by this run"), std::string::npos);
  EXPECT_NE(t.find("| source | date | device |"), std::string::npos);
  EXPECT_NE(t.find("| ASTRA 512^3 GUPS | 462 | reference/gpu-limits-h100.md | 2026-11-23 | H100 |"),
            std::string::npos);
}

// The end-to-end columns add up: the critical-path stages (the wait for the host volume, the
// backprojection, the download) plus the rest are the wall time; the host allocation, filter and
// upload overlap and show as the overlap's saving, not as terms of the sum.
TEST(BenchStages, SerialColumnsAddUpToTheWallTime) {
  StageBreakdown s;
  s.wall = 0.090;
  s.hostAlloc = 0.040;
  s.hostWait = 0.002;
  s.filter = 0.033;
  s.backproject = 0.036;
  s.download = 0.010;
  s.upload = 0.048;
  EXPECT_NEAR(s.serialStages() + s.rest(), s.wall, 1e-15);
  EXPECT_NEAR(s.rest(), 0.042, 1e-12);
  EXPECT_NEAR(s.allStages(), 0.167, 1e-12);
  EXPECT_NEAR(s.overlapSaved(), 0.077, 1e-12);
}

TEST(BenchCeilings, AFractionAboveTheCeilingIsNeverPrintedAsAFraction) {
  EXPECT_EQ(fractionOfCeiling(520.0, 1040.0), "50 %");
  const std::string above = fractionOfCeiling(1219.5, 910.0);
  EXPECT_EQ(above.rfind("above", 0), 0u) << above;
  EXPECT_NE(above.find("no bound"), std::string::npos) << above;
  EXPECT_EQ(fractionOfCeiling(100.0, 0.0), "n/a");
  EXPECT_EQ(fractionOfCeiling(100.0, NAN), "n/a");
}

}  // namespace
}  // namespace tomowb::bench
