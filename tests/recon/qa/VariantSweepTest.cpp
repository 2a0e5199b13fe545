// Sweeps over the registered variants on the CPU (GPU rows run on the device: bench/run-on-gpu.sh).
// The deliberately broken test variant (half a detector column off) must fail the thresholds.
#include <gtest/gtest.h>

#include <cstdlib>

#include "recon/device/GpuDevices.h"
#include "recon/geometry/ScanBuilders.h"
#include "recon/phantom/AnalyticProjector.h"
#include "recon/phantom/Phantom.h"
#include "recon/qa/QaReport.h"
#include "recon/qa/TestVariants.h"
#include "recon/qa/VariantSweep.h"
#include "support/TestSupport.h"

namespace tomowb::qa {
namespace {

// Before the registry is first built (it is built on first use, after static initialisation).
[[maybe_unused]] const bool kTestVariantsOn = (::setenv(kTestVariantsEnvironment, "1", 1), true);

const SweepRow* rowFor(const SweepResult& r, const std::string& label) {
  for (const SweepRow& row : r.rows)
    if (row.label == label) return &row;
  return nullptr;
}

TEST(VariantSweep, FdkOnTheCpuCatchesTheHalfPixelVariant) {
  CircularConeParams scan;
  scan.sourceToIsocentreMm = 500;
  scan.sourceToDetectorMm = 1000;
  scan.detector.cols = 48;
  scan.detector.rows = 40;
  scan.detector.pitchUMm = scan.detector.pitchVMm = 2 * 200.0 / 48;
  scan.anglesRad = fullScanAnglesRad(90);
  const Geometry g = circularConeBeam(scan);
  JobContext context;
  const ProjectionStack p =
      phantom::projectPhantom(phantom::modifiedSheppLogan3d(90), g, {}, &context);
  fdk::FdkParams params;
  params.volume = fdk::VolumeGrid::centred({40, 40, 32}, Eigen::Vector3d::Constant(5.0));
  SweepOptions options;
  options.repeats = 2;
  options.computeSsim = false;
  const SweepResult r = sweepFdk(p, params, options, context);
  const SweepRow* cpu = rowFor(r, "fdk.bp.cpu");
  const SweepRow* broken = rowFor(r, "fdk.bp.test-half-pixel");
  ASSERT_TRUE(cpu && broken);
  ASSERT_TRUE(cpu->ran && broken->ran) << cpu->failed << broken->failed;
  EXPECT_TRUE(*cpu->comparison->passed) << cpu->comparison->verdict;
  EXPECT_FALSE(*broken->comparison->passed) << broken->comparison->verdict;
  // Half a column off fails every class's limit, not just Exact's.
  EXPECT_GT(broken->comparison->metrics.nrmse,
            ToleranceTable{}[AccuracyClass::HalfPrecision].maxNrmse);
  EXPECT_TRUE(cpu->determinism.bitIdentical()) << cpu->determinism.summary();
  EXPECT_EQ(cpu->seconds.size(), 2u);
  EXPECT_FALSE(broken->onParetoFront);  // failing rows are no candidates
  EXPECT_EQ(rowVerdict(*cpu), "pass");
  EXPECT_EQ(rowVerdict(*broken), "FAIL");
  // The reference's own variant is compared with itself: "reference", no pass / fail.
  const SweepRow* own = rowFor(r, "fdk.bp.cpu-f64");
  ASSERT_TRUE(own && own->ran);
  EXPECT_TRUE(own->isReference);
  EXPECT_FALSE(own->comparison->passed.has_value());
  EXPECT_EQ(rowVerdict(*own), "reference");
  EXPECT_FALSE(cpu->isReference);
  // A GPU variant on a machine without a GPU says so, whatever the device choice.
  const SweepRow* gpu = rowFor(r, "fdk.bp.test-gpu-stand-in");
  ASSERT_TRUE(gpu);
  if (cuda::listGpuDevices().empty()) {
    EXPECT_FALSE(gpu->ran);
    EXPECT_EQ(gpu->skipped.rfind("no GPU", 0), 0u) << gpu->skipped;
    SweepOptions cpuOnly = options;
    cpuOnly.gpu = false;
    cpuOnly.only = {"fdk.bp.test-gpu-stand-in"};
    const SweepResult r2 = sweepFdk(p, params, cpuOnly, context);
    ASSERT_EQ(r2.rows.size(), 1u);
    EXPECT_EQ(r2.rows[0].skipped.rfind("no GPU", 0), 0u) << r2.rows[0].skipped;
  }
  // GPU variants (in a CUDA build without a device) are listed as skipped, with the reason.
  for (const SweepRow& row : r.rows)
    if (!row.ran) EXPECT_FALSE(row.skipped.empty() && row.failed.empty()) << row.label;
  test::TempDir dir;
  const auto report = writeSweepReport(dir / "sweep", r, ReportFormat::Markdown);
  EXPECT_TRUE(std::filesystem::exists(dir / "sweep" / "pareto.svg"));
  EXPECT_TRUE(std::filesystem::exists(report));
}

TEST(VariantSweep, SirtOnTheCpuComparesPairsAndRunsTheAdjointTest) {
  TiltSeriesParams scan;
  scan.cols = 32;
  scan.rows = 4;
  scan.pixelSizeMm = 1.0;
  scan.tiltAnglesRad = arcAnglesRad(31, 2.0, -1.0);
  const Geometry g = tiltSeries(scan);
  JobContext context;
  const auto specimen = phantom::etSpecimenPhantom(28, 12, 4);
  const ProjectionStack p = phantom::projectPhantom(specimen, g, {}, &context);
  iterative::IterativeParams params;
  params.volume = iterative::tomogramGrid(g, 16);
  params.iterations = 5;
  SweepOptions options;
  options.repeats = 2;
  options.warmups = 0;
  options.computeSsim = false;
  const SweepResult r = sweepSirt(p, params, options, context);
  const SweepRow* matched = rowFor(r, "et.fp.cpu + et.bp.cpu-matched");
  const SweepRow* voxel = rowFor(r, "et.fp.cpu + et.bp.cpu-voxel");
  const SweepRow* siddon = rowFor(r, "et.fp.cpu-siddon + et.bp.cpu-siddon");
  ASSERT_TRUE(matched && voxel && siddon);
  ASSERT_TRUE(matched->ran && voxel->ran && siddon->ran)
      << matched->failed << voxel->failed << siddon->failed;
  // A pair of another model is judged against its own model's CPU matched pair (the Siddon pair
  // is that), not against Joseph's: it reads "reference", not FAIL.
  EXPECT_EQ(siddon->reference, "et.fp.cpu-siddon + et.bp.cpu-siddon");
  EXPECT_EQ(rowVerdict(*siddon), "reference");
  // A pair for other geometries (SF: cone beams only) is skipped with its reason, not failed.
  const SweepRow* sf = rowFor(r, "sf.fp.cpu-tr + sf.bp.cpu-tr");
  ASSERT_TRUE(sf);
  EXPECT_FALSE(sf->ran);
  EXPECT_TRUE(sf->failed.empty()) << sf->failed;
  EXPECT_NE(sf->skipped.find("cone beams"), std::string::npos) << sf->skipped;
  // Each pair is compared with the CPU pair of its kind: these two are the references.
  EXPECT_EQ(matched->comparison->metrics.maxAbsDifference, 0.0);
  EXPECT_EQ(voxel->comparison->metrics.maxAbsDifference, 0.0);
  EXPECT_EQ(voxel->reference, "et.fp.cpu + et.bp.cpu-voxel");
  // A row that is its own reference has no pass / fail: it reads "reference".
  for (const SweepRow* own : {matched, voxel}) {
    EXPECT_TRUE(own->isReference) << own->label;
    EXPECT_FALSE(own->comparison->passed.has_value()) << own->label;
    EXPECT_EQ(rowVerdict(*own), "reference");
    EXPECT_FALSE(own->onParetoFront);
  }
  ASSERT_TRUE(matched->adjoint && voxel->adjoint);
  EXPECT_LT(matched->adjoint->relativeError, 1e-6);
  EXPECT_GT(voxel->adjoint->relativeError, 10 * matched->adjoint->relativeError + 1e-6);
  EXPECT_TRUE(matched->determinism.bitIdentical());
}

struct StageLog : ProgressSink {
  std::vector<std::string> stages;
  std::vector<double> fractions;
  void report(std::string_view stage, double fraction) override {
    stages.emplace_back(stage);
    fractions.push_back(fraction);
  }
};

TEST(VariantSweep, ProgressSaysWhichVariantOfHowMany) {
  CircularConeParams scan;
  scan.sourceToIsocentreMm = 500;
  scan.sourceToDetectorMm = 1000;
  scan.detector.cols = scan.detector.rows = 24;
  scan.detector.pitchUMm = scan.detector.pitchVMm = 8;
  scan.anglesRad = fullScanAnglesRad(24);
  const Geometry g = circularConeBeam(scan);
  JobContext quiet;
  const ProjectionStack p =
      phantom::projectPhantom(phantom::modifiedSheppLogan3d(90), g, {}, &quiet);
  fdk::FdkParams params;
  params.volume = fdk::VolumeGrid::centred({16, 16, 8}, Eigen::Vector3d::Constant(10.0));
  SweepOptions options;
  options.repeats = 1;
  options.warmups = 0;
  options.computeSsim = false;
  options.only = {"fdk.bp.cpu", "fdk.bp.test-half-pixel"};  // fdk.bp.cpu-f64 too (a prefix)
  StageLog log;
  CancelToken token;
  JobContext context(token, &log);
  const SweepResult r = sweepFdk(p, params, options, context);
  const std::string n = std::to_string(r.rows.size());
  ASSERT_GE(r.rows.size(), 3u);
  bool first = false, last = false;
  for (const std::string& s : log.stages) {
    first = first || s.rfind("variant 1 of " + n + ": ", 0) == 0;
    last = last || s.rfind("variant " + n + " of " + n + ": ", 0) == 0;
  }
  EXPECT_TRUE(first && last);
  for (std::size_t i = 1; i < log.fractions.size(); ++i)
    EXPECT_GE(log.fractions[i], log.fractions[i - 1] - 1e-12) << log.stages[i];
  EXPECT_EQ(sweepStage(2, 9, "fdk.bp.tex"), "variant 3 of 9: fdk.bp.tex");
}

}  // namespace
}  // namespace tomowb::qa
