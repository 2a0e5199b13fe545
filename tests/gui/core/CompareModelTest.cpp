// CompareModel without a display: the figures of a known difference (on the GUI thread and on the
// worker), pass / fail as the core judges it and after a tolerance edit, the tolerances kept in
// settings, the difference window, profiles, the accuracy class of runs, and the golden-reference
// run spec for FDK and SIRT runs (and why there is none for other runs).
#include <gtest/gtest.h>

#include <QCoreApplication>
#include <QSettings>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <cmath>
#include <numeric>

#include "gui/core/CompareModel.h"
#include "gui/core/DemoData.h"
#include "gui/core/FdkRun.h"
#include "gui/core/IterativeRun.h"
#include "recon/core/Error.h"
#include "recon/variant/VariantRegistry.h"
#include "support/CompareTestVolumes.h"

namespace tomowb::gui {
namespace {

std::shared_ptr<Volume> ball(VolumeShape shape) {
  return test::ball(shape, 0.3);
}
using test::withBump;

struct Expected {
  double maxAbs = 0, nrmse = 0, bias = 0;
};

Expected expectedFigures(const Volume& a, const Volume& b) {
  double sum2 = 0, sum = 0, maxAbs = 0;
  double lo = b.data()[0], hi = lo;
  for (std::int64_t i = 0; i < a.voxelCount(); ++i) {
    const double d = double(a.data()[i]) - b.data()[i];
    sum += d;
    sum2 += d * d;
    maxAbs = std::max(maxAbs, std::abs(d));
    lo = std::min<double>(lo, b.data()[i]);
    hi = std::max<double>(hi, b.data()[i]);
  }
  const double n = static_cast<double>(a.voxelCount());
  return {maxAbs, std::sqrt(sum2 / n) / (hi - lo), sum / n};
}

TEST(CompareModel, GivesTheFiguresOfAKnownDifferenceThenSsim) {
  const auto a = ball({24, 24, 12});
  const auto b = withBump(*a, 0.05, 12, 12, 6);
  CompareModel model;
  model.setPair(a, b);
  // Small volumes: the first figures at once, SSIM from the worker.
  ASSERT_TRUE(model.comparison().has_value());
  const Expected e = expectedFigures(*a, *b);
  EXPECT_NEAR(model.comparison()->metrics.maxAbsDifference, e.maxAbs, 1e-6);
  EXPECT_NEAR(model.comparison()->metrics.nrmse, e.nrmse, 1e-6 * e.nrmse);
  EXPECT_NEAR(model.comparison()->metrics.meanDifference, e.bias, 1e-9);
  const auto& counts = model.comparison()->histogram.counts;
  EXPECT_EQ(counts.size(), static_cast<std::size_t>(CompareModel::kHistogramBins));
  EXPECT_EQ(std::accumulate(counts.begin(), counts.end(), std::int64_t{0}), a->voxelCount());
  ASSERT_TRUE(model.difference());
  EXPECT_NEAR(model.difference()->at(12, 12, 6), -0.05, 1e-6);
  ASSERT_TRUE(model.waitUntilDone(60000));
  ASSERT_TRUE(model.comparison()->metrics.ssim.has_value());
  EXPECT_LT(*model.comparison()->metrics.ssim, 1.0);
  EXPECT_GT(*model.comparison()->metrics.ssim, 0.5);
}

TEST(CompareModel, ComputesBigVolumesOffTheGuiThread) {
  const auto a = ball({32, 32, 16});
  const auto b = withBump(*a, 0.1, 16, 16, 8);
  CompareModel model;
  model.setBackgroundVoxels(1000);  // as if these 16 k voxels were 8 M
  QSignalSpy changed(&model, &CompareModel::changed);
  model.setPair(a, b);
  EXPECT_FALSE(model.comparison().has_value()) << "the figures should come from the worker";
  EXPECT_TRUE(model.firstFiguresPending());
  ASSERT_TRUE(model.waitUntilDone(60000));
  ASSERT_TRUE(model.comparison().has_value());
  EXPECT_NEAR(model.comparison()->metrics.maxAbsDifference, 0.1, 1e-6);
  EXPECT_TRUE(model.comparison()->metrics.ssim.has_value());
  EXPECT_GE(changed.count(), 3);  // started, first figures, SSIM
}

TEST(CompareModel, ANewPairDropsTheResultsOfTheOldOne) {
  CompareModel model;
  model.setBackgroundVoxels(1000);
  const auto a = ball({32, 32, 16});
  model.setPair(a, withBump(*a, 0.3, 16, 16, 8));
  model.setPair(a, a);  // before the first pair's figures arrive
  ASSERT_TRUE(model.waitUntilDone(60000));
  ASSERT_TRUE(model.comparison().has_value());
  EXPECT_EQ(model.comparison()->metrics.maxAbsDifference, 0.0);
}

TEST(CompareModel, ShapesThatDifferGiveAProblemAndNoFigures) {
  CompareModel model;
  model.setPair(ball({16, 16, 8}), ball({8, 8, 8}));
  EXPECT_FALSE(model.comparison().has_value());
  EXPECT_FALSE(model.busy());
  EXPECT_TRUE(model.problem().contains("16x16x8")) << model.problem().toStdString();
  EXPECT_TRUE(model.problem().contains("same shape"));
}

TEST(CompareModel, JudgesAsTheCoreDoesAndReJudgesAnEditedTolerance) {
  const auto a = ball({24, 24, 12});
  const auto b = withBump(*a, 0.05, 12, 12, 6);
  qa::CompareSpec spec;
  spec.computeSsim = false;
  spec.accuracyClass = qa::AccuracyClass::Exact;
  const qa::RunComparison core = qa::compareRuns(*a, *b, spec);
  const CompareVerdict mine =
      judgeComparison(core, qa::AccuracyClass::Exact, spec.tolerances[qa::AccuracyClass::Exact]);
  EXPECT_EQ(mine.passed, *core.passed);
  EXPECT_EQ(mine.text.toStdString(), core.verdict);

  CompareModel model;
  model.setPair(a, b);
  ASSERT_TRUE(model.verdict().has_value());
  EXPECT_FALSE(model.verdict()->passed) << model.verdict()->text.toStdString();
  model.setTolerance(qa::AccuracyClass::Exact, {1.0, 1.0});
  EXPECT_TRUE(model.verdict()->passed) << model.verdict()->text.toStdString();
  EXPECT_THROW(model.setTolerance(qa::AccuracyClass::Exact, {0.0, 1.0}), ParameterError);
  // Another class judges against its own limits (half precision allows NRMSE 5e-3).
  model.setAccuracyClass(qa::AccuracyClass::HalfPrecision);
  EXPECT_TRUE(model.verdict()->text.startsWith("pass (half-precision): NRMSE 0.0038 <= 0.005"))
      << model.verdict()->text.toStdString();
}

TEST(CompareModel, KeepsTheToleranceTableInSettings) {
  QTemporaryDir dir;
  QSettings settings(dir.filePath("tolerances.ini"), QSettings::IniFormat);
  EXPECT_EQ(loadToleranceTable(settings)[qa::AccuracyClass::Exact],
            qa::ToleranceTable()[qa::AccuracyClass::Exact]);
  qa::ToleranceTable table;
  table.set(qa::AccuracyClass::HardwareInterpolation, {3e-3, 4e-2});
  saveToleranceTable(settings, table);
  EXPECT_EQ(loadToleranceTable(settings)[qa::AccuracyClass::HardwareInterpolation],
            (qa::Tolerance{3e-3, 4e-2}));
  settings.setValue("compare/tolerances", "{not json");
  EXPECT_EQ(loadToleranceTable(settings)[qa::AccuracyClass::HardwareInterpolation],
            qa::ToleranceTable()[qa::AccuracyClass::HardwareInterpolation]);
}

TEST(CompareModel, DifferenceWindowIsThe999thPercentileOfTheAbsoluteDifference) {
  Volume d(VolumeShape{100, 100, 1}, Eigen::Vector3d::Ones(), Eigen::Vector3d::Zero());
  for (std::int64_t i = 0; i < d.voxelCount(); ++i)
    d.data()[i] = static_cast<float>((i % 2 ? -1 : 1) * (i + 1) * 1e-4);  // |d| = 1e-4 .. 1
  EXPECT_NEAR(defaultDifferenceHalfWindow(d), 0.999, 2e-4);
  Volume zeros(VolumeShape{8, 8, 8}, Eigen::Vector3d::Ones(), Eigen::Vector3d::Zero());
  EXPECT_EQ(defaultDifferenceHalfWindow(zeros), 1e-6);
  zeros.at(1, 1, 1) = -0.5f;  // one voxel of 512 differs: the percentile is 0, the max is not
  EXPECT_EQ(defaultDifferenceHalfWindow(zeros), 0.5);
}

TEST(CompareModel, ProfilesSampleVoxelCentresExactlyAndInterpolateBetween) {
  const auto a = ball({16, 16, 4});
  const auto b = withBump(*a, 0.2, 8, 8, 2);
  // The row y = 8, z = 2: voxel centres from x = 0 to 15.
  const Eigen::Vector3d from = a->worldPosition(0, 8, 2), to = a->worldPosition(15, 8, 2);
  const LineProfile p = lineProfile(*a, *b, from, to);
  ASSERT_EQ(p.a.size(), 16u);
  for (int x = 0; x < 16; ++x) {
    EXPECT_FLOAT_EQ(static_cast<float>(p.a[x]), a->at(x, 8, 2));
    EXPECT_NEAR(p.difference[x], double(a->at(x, 8, 2)) - b->at(x, 8, 2), 1e-6);
  }
  EXPECT_NEAR(p.distanceMm.back(), 15 * 0.5, 1e-12);
  const std::vector<double> mid =
      sampleLine(*a, a->worldPosition(3.5, 8, 2), a->worldPosition(3.5, 9, 2), 3);
  EXPECT_NEAR(mid[0], 0.5 * (a->at(3, 8, 2) + a->at(4, 8, 2)), 1e-6);
  const std::vector<double> outside =
      sampleLine(*a, a->worldPosition(-2, 8, 2), a->worldPosition(0, 8, 2), 3);
  EXPECT_TRUE(std::isnan(outside[0]));
  EXPECT_FALSE(std::isnan(outside[2]));
}

TEST(CompareModel, RunsPromiseTheClassOfTheirVariants) {
  EXPECT_EQ(accuracyClassOfRun({{"variant", "fdk.bp.cpu"}}), qa::AccuracyClass::Exact);
  EXPECT_EQ(accuracyClassOfRun({{"variant", "no.such.variant"}}), qa::AccuracyClass::Exact);
  EXPECT_EQ(accuracyClassOfRun(nlohmann::json::object()), qa::AccuracyClass::Exact);
  // A pair promises its looser member's class; every registered variant has one.
  for (const KernelVariant& v : VariantRegistry::builtins().all())
    EXPECT_EQ(accuracyClassOfRun({{"forwardVariant", "et.fp.cpu"}, {"backVariant", v.name}}),
              std::max(qa::AccuracyClass::Exact, v.accuracyClass))
        << v.name;
  EXPECT_TRUE(isFloat64ReferenceRun({{"variant", "fdk.bp.cpu-f64"}}));
  EXPECT_TRUE(isFloat64ReferenceRun(
      {{"forwardVariant", "et.fp.cpu"}, {"backVariant", "et.bp.cpu-matched"}}));
  EXPECT_FALSE(isFloat64ReferenceRun({{"variant", "fdk.bp.cpu"}}));
}

RunInfo finishedRun(RunSpec spec, int id = 7) {
  RunInfo run;
  run.id = id;
  run.spec = std::move(spec);
  run.state = RunState::Finished;
  run.result = std::make_shared<Volume>(Volume::centred({4, 4, 4}, Eigen::Vector3d::Ones()));
  return run;
}

TEST(CompareModel, GoldenReferenceOfAnFdkRunUsesTheFloat64Backprojector) {
  JobContext context;
  const DemoDataset demo = makeDemo(DemoKind::SheppLogan, 16, context);
  fdk::FdkParams params;
  params.volume = fdk::VolumeGrid::centred({16, 16, 16}, Eigen::Vector3d::Constant(1.0));
  params.variant = "fdk.bp.cpu";
  RunSpec spec = makeFdkRun(demo.projections, params, nullptr, 1);
  spec.parameters["input"]["name"] = "demo";
  spec.parameters["rois"] = nlohmann::json::array({{{"id", 3}}});
  const RunInfo run = finishedRun(spec);
  EXPECT_TRUE(goldenReferenceUnavailable(run).isEmpty())
      << goldenReferenceUnavailable(run).toStdString();
  const RunSpec golden = makeGoldenReferenceRun(run, demo.projections, nullptr);
  EXPECT_EQ(golden.algorithm, "fdk");
  EXPECT_EQ(golden.parameters.value("variant", ""), "fdk.bp.cpu-f64");
  EXPECT_EQ(golden.parameters["input"].value("name", ""), "demo");
  EXPECT_EQ(golden.parameters["input"].value("views", 0), demo.projections->viewCount());
  EXPECT_EQ(golden.parameters.value("goldenReferenceFor", -1), 7);
  EXPECT_EQ(golden.parameters["rois"].size(), 1u);
  EXPECT_EQ(golden.parameters["volume"], spec.parameters["volume"]);
  EXPECT_TRUE(golden.title.contains("reference for run 7")) << golden.title.toStdString();
  // The reference itself has no reference.
  const RunInfo reference = finishedRun(golden, 8);
  EXPECT_TRUE(goldenReferenceUnavailable(reference).contains("itself"));
  EXPECT_THROW(makeGoldenReferenceRun(reference, demo.projections, nullptr), ParameterError);
}

TEST(CompareModel, GoldenReferenceOfASirtRunUsesTheMatchedCpuPair) {
  JobContext context;
  const DemoDataset demo = makeDemo(DemoKind::ElectronTomography, 16, context);
  iterative::IterativeParams params;
  params.volume = fdk::VolumeGrid::centred({32, 8, 8}, Eigen::Vector3d::Constant(1.0));
  params.iterations = 3;
  params.backVariant = "et.bp.cpu-voxel";
  const RunInfo run = finishedRun(makeIterativeRun(demo.projections, params));
  const RunSpec golden = makeGoldenReferenceRun(run, demo.projections, nullptr);
  EXPECT_EQ(golden.algorithm, "sirt");
  EXPECT_EQ(golden.parameters.value("forwardVariant", ""), "et.fp.cpu");
  EXPECT_EQ(golden.parameters.value("backVariant", ""), "et.bp.cpu-matched");
  EXPECT_EQ(golden.parameters.value("iterations", 0), 3);
}

TEST(CompareModel, APairOfAnotherModelIsJudgedAgainstItsOwnModel) {
  // A Siddon run's golden reference is the Siddon pair (its model's CPU float64 pair), not
  // Joseph's: a different discretisation is not an error. The Siddon pair is its own reference.
  JobContext context;
  const DemoDataset demo = makeDemo(DemoKind::ElectronTomography, 16, context);
  iterative::IterativeParams params;
  params.volume = fdk::VolumeGrid::centred({32, 8, 8}, Eigen::Vector3d::Constant(1.0));
  params.iterations = 2;
  params.forwardVariant = "et.fp.cpu-siddon";
  params.backVariant = "et.bp.cpu-voxel";
  const RunInfo run = finishedRun(makeIterativeRun(demo.projections, params));
  const RunSpec golden = makeGoldenReferenceRun(run, demo.projections, nullptr);
  EXPECT_EQ(golden.parameters.value("forwardVariant", ""), "et.fp.cpu-siddon");
  EXPECT_EQ(golden.parameters.value("backVariant", ""), "et.bp.cpu-siddon");
  EXPECT_TRUE(isFloat64ReferenceRun(golden.parameters));
}

TEST(CompareModel, SaysWhyARunHasNoGoldenReference) {
  RunSpec spec;
  spec.algorithm = "direct-tof";
  spec.parameters = {{"variant", "pet.direct"}};
  EXPECT_TRUE(goldenReferenceUnavailable(finishedRun(spec)).contains("no float64 reference path"));
  RunInfo running = finishedRun(spec);
  running.state = RunState::Running;
  EXPECT_TRUE(goldenReferenceUnavailable(running).contains("has not finished"));
}

TEST(CompareModel, ReportListsTheFiguresTheVerdictAndThePictures) {
  const auto a = ball({16, 16, 8});
  const auto b = withBump(*a, 0.05, 8, 8, 4);
  qa::CompareSpec spec;
  spec.computeSsim = true;
  const qa::RunComparison c = qa::compareRuns(*a, *b, spec);
  CompareReportInfo info;
  info.testName = "run 1: FDK | tex";
  info.referenceName = "run 2: FDK f64";
  info.pictures = {{"a.png", "A"}, {"difference.png", "A - B"}};
  const QString md =
      compareReportMarkdown(info, c, qa::AccuracyClass::Exact, qa::Tolerance{1e-4, 1e-3});
  EXPECT_TRUE(md.contains("run 1: FDK \\| tex"));
  EXPECT_TRUE(md.contains("**FAIL**"));
  EXPECT_TRUE(md.contains("| NRMSE | " + QString::number(c.metrics.nrmse, 'g', 4)));
  EXPECT_TRUE(md.contains("![A - B](difference.png)"));
  EXPECT_TRUE(md.contains(QString::number(a->voxelCount())));
}

}  // namespace
}  // namespace tomowb::gui
