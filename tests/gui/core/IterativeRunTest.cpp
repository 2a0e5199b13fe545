// Iterative runs through the run controller without a display: SIRT on the ET demo reports one
// iteration signal per iteration (in order, with a falling residual), shows its iterates as
// previews and finishes with its result and report; a cancel stops it within one subset and
// keeps nothing; iteration records are batched but never lost; the parameters survive the run
// record's JSON.
#include <gtest/gtest.h>

#include <QElapsedTimer>
#include <QSignalSpy>
#include <vector>

#include "gui/core/DemoData.h"
#include "gui/core/IterativeRun.h"
#include "gui/core/RunController.h"
#include "recon/core/Error.h"

namespace tomowb::gui {
namespace {

// The ET demo at its smallest: 32 x 8 detector, 61 views, an 32 x 8 x 8 tomogram.
const DemoDataset& smallEtDemo() {
  static const DemoDataset demo = [] {
    JobContext context;
    return makeDemo(DemoKind::ElectronTomography, 16, context);
  }();
  return demo;
}

iterative::IterativeParams sirtParams(int iterations) {
  iterative::IterativeParams p;
  p.method = iterative::IterativeMethod::Sirt;
  p.volume = smallEtDemo().suggestedGrid;
  p.iterations = iterations;
  p.lowerBound = 0.0;
  p.forwardVariant = "et.fp.cpu";
  p.backVariant = "et.bp.cpu-matched";  // matched: the weighted residual never rises
  return p;
}

TEST(IterativeRun, SirtReportsEveryIterationInOrderWithAFallingResidualAndPreviews) {
  RunController runs;
  runs.setPreviewIntervalMs(0);  // every iterate the GUI can take
  std::vector<IterationRecord> records;
  QObject::connect(&runs, &RunController::runIteration,
                   [&](int, const IterationRecord& r) { records.push_back(r); });
  QSignalSpy previews(&runs, &RunController::runPreview);
  QSignalSpy finished(&runs, &RunController::runFinished);
  constexpr int kIterations = 12;
  const int id = runs.enqueue(makeIterativeRun(smallEtDemo().projections, sirtParams(kIterations)));
  EXPECT_EQ(runs.run(id)->spec.algorithm, "sirt");
  ASSERT_TRUE(runs.waitForIdle(120000));
  ASSERT_EQ(finished.count(), 1) << runs.run(id)->error.toStdString();
  ASSERT_EQ(records.size(), std::size_t(kIterations));
  for (int i = 0; i < kIterations; ++i) {
    const IterationRecord& r = records[std::size_t(i)];
    EXPECT_EQ(r.iteration, i + 1);
    EXPECT_EQ(r.maxIterations, kIterations);
    EXPECT_EQ(r.algorithm, "sirt");
    EXPECT_GT(r.relativeResidual, 0.0);
    if (i > 0) {
      const IterationRecord& before = records[std::size_t(i - 1)];
      EXPECT_LE(r.weightedResidualNorm, before.weightedResidualNorm * (1 + 1e-6)) << "at " << i;
    }
  }
  EXPECT_NEAR(records.front().relativeResidual, 1.0, 1e-9) << "x0 = 0: the residual is b";
  EXPECT_LT(records.back().relativeResidual, 0.6 * records.front().relativeResidual);
  // Iterates came as previews, labelled with their iteration.
  ASSERT_GE(previews.count(), 1);
  EXPECT_GE(iterationOfPreviewLabel(previews.first().at(2).toString()), 1);
  const RunInfo* info = runs.run(id);
  ASSERT_TRUE(info->result);
  EXPECT_EQ(info->result->shape(), smallEtDemo().suggestedGrid.shape);
  EXPECT_EQ(info->iterations.size(), std::size_t(kIterations));
  const nlohmann::json& report = info->record["report"];
  EXPECT_EQ(report["method"], "sirt");
  EXPECT_EQ(report["backVariant"], "et.bp.cpu-matched");
  EXPECT_EQ(report["iterations"].size(), std::size_t(kIterations));
  EXPECT_EQ(report["stopReason"], "12 iterations");
  EXPECT_EQ(iterativeParamsFromJson(info->record["parameters"]).iterations, kIterations);
}

TEST(IterativeRun, CancelStopsWithinOneSubsetAndKeepsNoResult) {
  RunController runs;
  iterative::IterativeParams p = sirtParams(100000);  // hours if not cancelled
  p.method = iterative::IterativeMethod::Sart;        // one view per subset: many checks
  QSignalSpy iterations(&runs, &RunController::runIteration);
  QSignalSpy cancelled(&runs, &RunController::runCancelled);
  const int id = runs.enqueue(makeIterativeRun(smallEtDemo().projections, p));
  ASSERT_TRUE(iterations.wait(60000)) << "no iteration arrived";
  QElapsedTimer clock;
  clock.start();
  EXPECT_TRUE(runs.cancel(id));
  ASSERT_TRUE(runs.waitForIdle(10000));
  EXPECT_LT(clock.elapsed(), 2000) << "cancel took " << clock.elapsed() << " ms";
  ASSERT_EQ(cancelled.count(), 1);
  const RunInfo* info = runs.run(id);
  EXPECT_EQ(info->state, RunState::Cancelled);
  EXPECT_FALSE(info->result) << "a cancelled run keeps no partial volume";
  EXPECT_EQ(info->record["state"], "cancelled");
}

TEST(IterativeRun, AFailingRunNamesTheParameterAndKeepsNothing) {
  RunController runs;
  iterative::IterativeParams p = sirtParams(5);
  // A parameter out of its rule: the catalogue's descriptor refuses it before anything queues.
  p.relaxation = 2.5;
  try {
    makeIterativeRun(smallEtDemo().projections, p);
    ADD_FAILURE() << "relaxation 2.5 was accepted";
  } catch (const ParameterError& e) {
    EXPECT_NE(std::string(e.what()).find("relaxation"), std::string::npos) << e.what();
  }
  // What only the run can see (a mask of another grid): the run fails naming it, keeping nothing.
  p.relaxation = 1.0;
  p.mask = std::make_shared<Volume>(Volume::centred({3, 3, 3}, Eigen::Vector3d::Ones()));
  QSignalSpy failed(&runs, &RunController::runFailed);
  const int id = runs.enqueue(makeIterativeRun(smallEtDemo().projections, p));
  ASSERT_TRUE(runs.waitForIdle(30000));
  ASSERT_EQ(failed.count(), 1);
  EXPECT_TRUE(failed.at(0).at(1).toString().contains("mask"));
  EXPECT_FALSE(runs.run(id)->result);
}

TEST(RunController, DeliversEveryIterationRecordHoweverFastTheyCome) {
  RunController runs;
  RunSpec spec;
  spec.title = QStringLiteral("fast iterations");
  spec.algorithm = QStringLiteral("sirt");
  constexpr int kCount = 5000;
  spec.execute = [](JobContext& context, nlohmann::json&) {
    for (int i = 1; i <= kCount; ++i) {
      IterationRecord r;
      r.algorithm = "sirt";
      r.iteration = i;
      r.maxIterations = kCount;
      r.relativeResidual = 1.0 / i;
      context.reportIteration(r);  // never blocks: the GUI is not even running meanwhile
    }
    return std::make_shared<Volume>(Volume::centred({2, 2, 2}, Eigen::Vector3d::Ones()));
  };
  std::vector<int> seen;
  QObject::connect(&runs, &RunController::runIteration,
                   [&](int, const IterationRecord& r) { seen.push_back(r.iteration); });
  const int id = runs.enqueue(std::move(spec));
  ASSERT_TRUE(runs.waitForIdle(30000));
  ASSERT_EQ(seen.size(), std::size_t(kCount));
  for (int i = 0; i < kCount; ++i) ASSERT_EQ(seen[std::size_t(i)], i + 1);
  EXPECT_EQ(runs.run(id)->iterations.size(), std::size_t(kCount));
}

TEST(IterativeRun, ParamsSurviveAJsonRoundTripAndBadJsonNamesTheProblem) {
  iterative::IterativeParams p;
  p.method = iterative::IterativeMethod::OsSirt;
  p.volume = fdk::VolumeGrid::centred({10, 20, 30}, {0.5, 0.6, 0.7});
  p.iterations = 17;
  p.relaxation = 0.7;
  p.subsets = 6;
  p.lowerBound = 0.0;
  p.upperBound = 12.5;
  p.stopRelativeChange = 1e-3;
  p.forwardVariant = "et.fp.cpu";
  p.backVariant = "et.bp.cpu-voxel";
  p.publishEvery = 3;
  p.gpu.devices = {1};
  p.gpu.tunables = {{"angles", "32"}};
  const iterative::IterativeParams q = iterativeParamsFromJson(iterativeParamsToJson(p));
  EXPECT_EQ(q.method, p.method);
  EXPECT_EQ(q.volume.shape, p.volume.shape);
  EXPECT_EQ(q.volume.voxelSizeMm, p.volume.voxelSizeMm);
  EXPECT_EQ(q.iterations, 17);
  EXPECT_DOUBLE_EQ(q.relaxation, 0.7);
  EXPECT_EQ(q.subsets, 6);
  EXPECT_EQ(q.lowerBound, std::optional<double>(0.0));
  EXPECT_EQ(q.upperBound, std::optional<double>(12.5));
  EXPECT_DOUBLE_EQ(q.stopRelativeChange, 1e-3);
  EXPECT_EQ(q.forwardVariant, p.forwardVariant);
  EXPECT_EQ(q.backVariant, p.backVariant);
  EXPECT_EQ(q.publishEvery, 3);
  EXPECT_EQ(q.gpu.devices, p.gpu.devices);
  EXPECT_EQ(q.gpu.tunables, p.gpu.tunables);
  iterative::IterativeParams unbounded = p;
  unbounded.lowerBound.reset();
  unbounded.upperBound.reset();
  EXPECT_FALSE(iterativeParamsFromJson(iterativeParamsToJson(unbounded)).lowerBound);
  EXPECT_THROW(iterativeParamsFromJson(nlohmann::json{{"method", "sirt"}}), ParameterError);
  EXPECT_THROW(iterativeParamsFromJson(nlohmann::json{{"method", "cg"}}), ParameterError);
  EXPECT_THROW(makeIterativeRun(nullptr, p), ParameterError);
}

TEST(IterativeRun, WbpIsFbpTitledAndRecordedAsWbp) {
  fdk::FdkParams p;
  p.volume = smallEtDemo().suggestedGrid;
  const RunSpec spec = makeWbpRun(smallEtDemo().projections, p);
  EXPECT_EQ(spec.algorithm, "wbp");
  EXPECT_TRUE(spec.title.startsWith("WBP 32x8x8"));
  RunController runs;
  const int id = runs.enqueue(spec);
  ASSERT_TRUE(runs.waitForIdle(60000));
  ASSERT_EQ(runs.run(id)->state, RunState::Finished) << runs.run(id)->error.toStdString();
  EXPECT_EQ(runs.run(id)->result->shape(), p.volume.shape);
}

TEST(IterativeRun, PreviewLabelsNameTheirIteration) {
  EXPECT_EQ(iterationOfPreviewLabel(QStringLiteral("iteration 12")), 12);
  EXPECT_EQ(iterationOfPreviewLabel(QStringLiteral("run 3: iteration 7")), 7);
  EXPECT_EQ(iterationOfPreviewLabel(QStringLiteral("run 3: 120 of 360 views")), -1);
  EXPECT_EQ(iterativeMethodLabel(iterative::IterativeMethod::OsSirt), "OS-SIRT");
}

}  // namespace
}  // namespace tomowb::gui
