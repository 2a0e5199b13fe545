// The run controller without a display: runs start, report progress, finish with their result,
// wait in a queue that can be reordered, cancel within a second leaving no result, fail with the
// job's message, and throttle previews; a real CPU FDK run goes through the core's Job.
#include <gtest/gtest.h>

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QSignalSpy>
#include <chrono>
#include <thread>

#include "gui/core/DemoData.h"
#include "gui/core/EventLoopMonitor.h"
#include "gui/core/FdkRun.h"
#include "gui/core/RunController.h"
#include "recon/core/Error.h"

namespace tomowb::gui {
namespace {

// A run that works for `steps` x `stepMs`, checks the cancel token every step, reports progress
// and publishes its volume as a preview every step.
RunSpec sleepyRun(const QString& title, int steps, int stepMs, bool fail = false) {
  RunSpec spec;
  spec.title = title;
  spec.algorithm = QStringLiteral("test");
  spec.parameters = {{"steps", steps}};
  spec.execute = [steps, stepMs, fail](JobContext& context, nlohmann::json& report) {
    auto volume = std::make_shared<Volume>(Volume::centred({4, 4, 4}, Eigen::Vector3d::Ones()));
    for (int i = 0; i < steps; ++i) {
      context.throwIfCancelled();
      std::this_thread::sleep_for(std::chrono::milliseconds(stepMs));
      volume->at(0, 0, 0) = static_cast<float>(i + 1);
      context.reportProgress("work", double(i + 1) / steps);
      context.publishIntermediate(*volume, "step");
      TelemetryEvent event;
      event.step = "test.step";
      event.seconds = stepMs / 1000.0;
      event.voxelUpdates = 64;
      context.publishTelemetry(event);
    }
    if (fail) throw IoError("disk.raw", "the disk went away");
    report = {{"steps", steps}};
    return volume;
  };
  return spec;
}

TEST(RunController, RunsAJobAndKeepsItsResultAndRecord) {
  RunController runs;
  QSignalSpy started(&runs, &RunController::runStarted);
  QSignalSpy progress(&runs, &RunController::runProgress);
  QSignalSpy finished(&runs, &RunController::runFinished);
  QSignalSpy telemetry(&runs, &RunController::runTelemetry);
  const int id = runs.enqueue(sleepyRun("one", 5, 10));
  ASSERT_TRUE(runs.waitForIdle(10000));
  EXPECT_EQ(started.count(), 1);
  ASSERT_EQ(finished.count(), 1);
  EXPECT_EQ(finished.at(0).at(0).toInt(), id);
  EXPECT_GE(progress.count(), 1);
  EXPECT_DOUBLE_EQ(progress.last().at(2).toDouble(), 1.0);  // the final 100 % always arrives
  EXPECT_EQ(telemetry.count(), 5);
  const RunInfo* info = runs.run(id);
  ASSERT_NE(info, nullptr);
  EXPECT_EQ(info->state, RunState::Finished);
  ASSERT_TRUE(info->result);
  EXPECT_FLOAT_EQ(info->result->at(0, 0, 0), 5.0f);
  EXPECT_EQ(info->record["state"], "finished");
  EXPECT_EQ(info->record["parameters"]["steps"], 5);
  EXPECT_EQ(info->record["report"]["steps"], 5);
  EXPECT_EQ(info->telemetry.size(), 5u);
  EXPECT_FALSE(info->log.isEmpty());
}

TEST(RunController, QueuesRunsAndHonoursReordering) {
  RunController runs;
  std::vector<int> order;
  QObject::connect(&runs, &RunController::runStarted, [&](int id) { order.push_back(id); });
  const int a = runs.enqueue(sleepyRun("a", 10, 10));
  const int b = runs.enqueue(sleepyRun("b", 1, 1));
  const int c = runs.enqueue(sleepyRun("c", 1, 1));
  EXPECT_EQ(runs.runningId(), a);
  EXPECT_EQ(runs.queuedIds(), (std::vector<int>{b, c}));
  EXPECT_TRUE(runs.moveQueued(c, -1));
  EXPECT_EQ(runs.queuedIds(), (std::vector<int>{c, b}));
  EXPECT_FALSE(runs.moveQueued(a, 1)) << "the running run is not in the queue";
  EXPECT_EQ(runs.runIds(), (std::vector<int>{a, c, b}));
  ASSERT_TRUE(runs.waitForIdle(10000));
  EXPECT_EQ(order, (std::vector<int>{a, c, b}));
}

TEST(RunController, RemovingAQueuedRunNeverStartsIt) {
  RunController runs;
  QSignalSpy started(&runs, &RunController::runStarted);
  runs.enqueue(sleepyRun("a", 5, 10));
  const int b = runs.enqueue(sleepyRun("b", 1, 1));
  EXPECT_TRUE(runs.cancel(b));
  EXPECT_EQ(runs.run(b)->state, RunState::Cancelled);
  ASSERT_TRUE(runs.waitForIdle(10000));
  EXPECT_EQ(started.count(), 1);
  EXPECT_FALSE(runs.cancel(b)) << "an ended run cannot be cancelled again";
  EXPECT_TRUE(runs.forget(b));
  EXPECT_EQ(runs.run(b), nullptr);
}

TEST(RunController, CancelStopsARunWithinASecondAndKeepsNoResult) {
  RunController runs;
  QSignalSpy cancelled(&runs, &RunController::runCancelled);
  const int id = runs.enqueue(sleepyRun("long", 1000, 20));  // 20 s if not cancelled
  QSignalSpy started(&runs, &RunController::runProgress);
  ASSERT_TRUE(started.wait(5000));
  QElapsedTimer clock;
  clock.start();
  EXPECT_TRUE(runs.cancel(id));
  ASSERT_TRUE(runs.waitForIdle(5000));
  EXPECT_LT(clock.elapsed(), 1000) << "cancel took " << clock.elapsed() << " ms";
  ASSERT_EQ(cancelled.count(), 1);
  const RunInfo* info = runs.run(id);
  EXPECT_EQ(info->state, RunState::Cancelled);
  EXPECT_FALSE(info->result) << "a cancelled run must keep no partial output";
  EXPECT_EQ(info->record["state"], "cancelled");
}

TEST(RunController, AFailingRunReportsTheJobsMessageAndTheQueueGoesOn) {
  RunController runs;
  QSignalSpy failed(&runs, &RunController::runFailed);
  QSignalSpy finished(&runs, &RunController::runFinished);
  const int bad = runs.enqueue(sleepyRun("bad", 2, 1, /*fail=*/true));
  runs.enqueue(sleepyRun("good", 2, 1));
  ASSERT_TRUE(runs.waitForIdle(10000));
  ASSERT_EQ(failed.count(), 1);
  EXPECT_EQ(failed.at(0).at(0).toInt(), bad);
  EXPECT_TRUE(failed.at(0).at(1).toString().contains("disk.raw"));
  EXPECT_FALSE(runs.run(bad)->result);
  EXPECT_EQ(finished.count(), 1);
}

TEST(RunController, ThrottlesPreviewsAndNeverBlocksTheRun) {
  RunController runs;
  runs.setPreviewIntervalMs(200);
  QSignalSpy previews(&runs, &RunController::runPreview);
  QElapsedTimer clock;
  clock.start();
  runs.enqueue(sleepyRun("previews", 100, 5));  // 100 publishes over ~0.5 s
  ASSERT_TRUE(runs.waitForIdle(10000));
  EXPECT_GE(previews.count(), 1);
  EXPECT_LE(previews.count(), 1 + clock.elapsed() / 200 + 1);
}

TEST(RunController, RunsCpuFdkOnTheDemoThroughTheCoreJob) {
  JobContext generate;
  const DemoDataset demo = makeDemo(DemoKind::SheppLogan, 32, generate);
  fdk::FdkParams params;
  params.volume = demo.suggestedGrid;
  RunController runs;
  EventLoopMonitor monitor;
  const int id = runs.enqueue(makeFdkRun(demo.projections, params));
  ASSERT_TRUE(runs.waitForIdle(60000));
  const RunInfo* info = runs.run(id);
  ASSERT_EQ(info->state, RunState::Finished) << info->error.toStdString();
  ASSERT_TRUE(info->result);
  EXPECT_EQ(info->result->nx(), 32);
  EXPECT_EQ(info->record["report"]["variant"], "fdk.bp.cpu");
  EXPECT_GT(info->record["report"]["voxelUpdates"].get<double>(), 0);
  // The centre of the modified Shepp-Logan is brain (0.2 x water in absolute 1/mm).
  const float centre = info->result->at(16, 16, 16);
  EXPECT_NEAR(centre, 0.2 * 0.0206, 0.25 * 0.2 * 0.0206);
  EXPECT_EQ(fdkParamsFromJson(info->record["parameters"]).volume.shape, params.volume.shape);
  std::printf("[ info     ] longest event-loop stall during the 32^3 run: %.1f ms\n",
              monitor.maxStallMs());
}

TEST(FdkRun, ParamsSurviveAJsonRoundTripAndBadJsonNamesTheProblem) {
  fdk::FdkParams p;
  p.volume = fdk::VolumeGrid::centred({10, 20, 30}, {0.5, 0.6, 0.7});
  p.filter.window = fdk::RampWindow::Hann;
  p.filter.cutoff = 0.8;
  p.redundancy = fdk::RedundancyMode::Parker;
  p.fieldOfViewMask = true;
  p.variant = "fdk.bp.cpu-f64";
  p.gpu.memoryLimitBytes = 3ull << 30;
  p.gpu.devices = {1, 0};
  p.gpu.tunables = {{"blockX", "32"}};
  const fdk::FdkParams q = fdkParamsFromJson(fdkParamsToJson(p));
  EXPECT_EQ(q.volume.shape, p.volume.shape);
  EXPECT_EQ(q.volume.voxelSizeMm, p.volume.voxelSizeMm);
  EXPECT_EQ(q.filter.window, p.filter.window);
  EXPECT_DOUBLE_EQ(q.filter.cutoff, 0.8);
  EXPECT_EQ(q.redundancy, p.redundancy);
  EXPECT_TRUE(q.fieldOfViewMask);
  EXPECT_EQ(q.variant, p.variant);
  EXPECT_EQ(q.gpu.memoryLimitBytes, p.gpu.memoryLimitBytes);
  EXPECT_EQ(q.gpu.devices, p.gpu.devices);
  EXPECT_EQ(q.gpu.tunables, p.gpu.tunables);
  EXPECT_THROW(fdkParamsFromJson(nlohmann::json{{"volume", {{"shape", {1, 2}}}}}), ParameterError);
  EXPECT_THROW(makeFdkRun(nullptr, p), ParameterError);
}

}  // namespace
}  // namespace tomowb::gui
