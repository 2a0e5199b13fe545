// ThroughputPanel: telemetry of the running run becomes GUPS points and stage totals (and, for a
// GPU run, transfer bandwidth and device memory), memory is sampled only while a run runs, an
// ended run can be shown again, and the CSV holds it all.
#include <gtest/gtest.h>

#include <QTableWidget>
#include <QTest>
#include <chrono>
#include <thread>

#include "gui/ThroughputPanel.h"
#include "recon/job/GpuMonitor.h"
#include "render/ChartView.h"

namespace tomowb::gui {
namespace {

// Three backprojection blocks of 1e8 voxel updates in 0.05 s each (2 GUPS), after a filter step.
RunSpec telemetryRun() {
  RunSpec spec;
  spec.title = QStringLiteral("telemetry");
  spec.algorithm = QStringLiteral("fake");
  spec.execute = [](JobContext& context, nlohmann::json&) {
    context.publishTelemetry({"fdk.filter", "cpu", 0.02, 0.0, 4e6});
    for (int block = 0; block < 3; ++block) {
      std::this_thread::sleep_for(std::chrono::milliseconds(400));
      context.throwIfCancelled();
      context.publishTelemetry({"fdk.backproject", "fdk.bp.cpu", 0.05, 1e8, 0.0});
    }
    return std::make_shared<Volume>(VolumeShape{2, 2, 2}, Eigen::Vector3d::Ones(),
                                    Eigen::Vector3d::Zero());
  };
  return spec;
}

TEST(ThroughputPanel, PlotsTheRunningRunsGupsAndStageTimes) {
  RunController runs;
  ThroughputPanel panel(runs);
  panel.resize(520, 640);
  panel.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&panel));
  EXPECT_FALSE(panel.sampling());
  const int id = runs.enqueue(telemetryRun());
  EXPECT_EQ(panel.shownRun(), id);
  EXPECT_TRUE(panel.sampling());
  ASSERT_TRUE(runs.waitForIdle(10000));
  EXPECT_FALSE(panel.sampling()) << "sampling goes on after the run ended";

  EXPECT_EQ(panel.gupsChart().seriesNames(), QStringList{"fdk.backproject"});
  const std::vector<double> gups = panel.gupsChart().yValues("fdk.backproject");
  ASSERT_EQ(gups.size(), 3u);
  for (const double g : gups) EXPECT_DOUBLE_EQ(g, 2.0);
  QTableWidget& stages = panel.stageTable();
  ASSERT_EQ(stages.rowCount(), 2);
  EXPECT_EQ(stages.item(0, 0)->text(), "fdk.filter");
  EXPECT_EQ(stages.item(1, 0)->text(), "fdk.backproject");
  EXPECT_EQ(stages.item(1, 2)->text(), "3");
  EXPECT_EQ(stages.item(1, 3)->text(), "0.150");
  EXPECT_EQ(stages.item(1, 4)->text(), "2.000");
  EXPECT_TRUE(stages.item(0, 4)->text().isEmpty());
  // About 1.2 s at 2 Hz: a few memory samples of the host.
  EXPECT_GE(panel.memoryChart().pointCount("host, this process"), 2);
  QTest::qWait(100);
  ASSERT_TRUE(panel.exportPng("/tmp/ThroughputPanelTest.png"));

  const QString csv = panel.csvText();
  EXPECT_TRUE(
      csv.startsWith("kind,elapsed_s,step,variant,seconds,voxel_updates,bytes_moved,gups,"));
  EXPECT_EQ(csv.count("\ntelemetry,"), 4);
  EXPECT_TRUE(csv.contains(",fdk.backproject,fdk.bp.cpu,0.05,1e+08,0,2,,,,,-1,0,0\n"))
      << csv.toStdString();
  EXPECT_TRUE(csv.contains(",fdk.filter,cpu,0.02,0,4e+06,0,,,,,-1,0,0.2\n")) << csv.toStdString();
  EXPECT_GE(csv.count("\nmemory,"), 2);

  // Another (unknown) run shows nothing; the ended run comes back as it was.
  panel.showRun(999);
  EXPECT_EQ(panel.shownRun(), -1);
  EXPECT_TRUE(panel.gupsChart().seriesNames().isEmpty());
  panel.showRun(id);
  EXPECT_EQ(panel.gupsChart().pointCount("fdk.backproject"), 3);
  EXPECT_EQ(panel.stageTable().rowCount(), 2);
  EXPECT_EQ(panel.csvText(), csv);
}

// A GPU run's events as recon/cuda publishes them: upload, backprojection and download with the
// device and the device memory in use.
RunSpec gpuTelemetryRun() {
  RunSpec spec;
  spec.title = QStringLiteral("gpu telemetry");
  spec.algorithm = QStringLiteral("fake");
  spec.execute = [](JobContext& context, nlohmann::json&) {
    for (int chunk = 0; chunk < 2; ++chunk) {
      context.publishTelemetry({"fdk.upload", "fdk.bp.tex", 0.01, 0.0, 2e8, 1, 3e9});
      context.publishTelemetry({"fdk.filter", "fdk.bp.tex", 0.002, 0.0, 0.0, 1, 3e9});
      context.publishTelemetry({"fdk.backproject", "fdk.bp.tex", 0.02, 1e9, 0.0, 1, 3e9});
    }
    context.publishTelemetry({"fdk.download", "fdk.bp.tex", 0.05, 0.0, 5e8, 1, 3e9});
    return std::make_shared<Volume>(VolumeShape{2, 2, 2}, Eigen::Vector3d::Ones(),
                                    Eigen::Vector3d::Zero());
  };
  return spec;
}

TEST(ThroughputPanel, PlotsTransferBandwidthAndDeviceMemoryOfAGpuRun) {
  RunController runs;
  ThroughputPanel panel(runs);
  panel.resize(520, 640);
  runs.enqueue(gpuTelemetryRun());
  ASSERT_TRUE(runs.waitForIdle(10000));

  EXPECT_EQ(panel.gupsChart().seriesNames(), QStringList{"fdk.backproject"});
  for (const double g : panel.gupsChart().yValues("fdk.backproject")) EXPECT_DOUBLE_EQ(g, 50.0);
  EXPECT_EQ(panel.bandwidthChart().seriesNames(), (QStringList{"fdk.upload", "fdk.download"}));
  for (const double b : panel.bandwidthChart().yValues("fdk.upload")) EXPECT_DOUBLE_EQ(b, 20.0);
  ASSERT_EQ(panel.bandwidthChart().pointCount("fdk.download"), 1);
  EXPECT_DOUBLE_EQ(panel.bandwidthChart().yValues("fdk.download")[0], 10.0);
  ASSERT_EQ(panel.memoryChart().pointCount("GPU 1, this run"), 7);
  EXPECT_NEAR(panel.memoryChart().yValues("GPU 1, this run")[0], 3e9 / (1 << 30), 1e-9);

  QTableWidget& stages = panel.stageTable();
  ASSERT_EQ(stages.rowCount(), 4);
  EXPECT_EQ(stages.item(0, 0)->text(), "fdk.upload");
  EXPECT_EQ(stages.item(0, 5)->text(), "20.00");
  EXPECT_EQ(stages.item(3, 0)->text(), "fdk.download");
  EXPECT_EQ(stages.item(3, 5)->text(), "10.00");
  EXPECT_TRUE(stages.item(2, 5)->text().isEmpty());  // the backprojection moves no bytes
  EXPECT_TRUE(panel.csvText().contains(",fdk.upload,fdk.bp.tex,0.01,0,2e+08,0,,,,,1,3e+09,20\n"))
      << panel.csvText().toStdString();
}

TEST(ThroughputPanel, SaysWhenNvmlIsNotAvailable) {
  RunController runs;
  ThroughputPanel panel(runs);
  GpuMonitor monitor;
  if (monitor.available()) GTEST_SKIP() << "this machine has NVML";
  EXPECT_EQ(panel.gpuText(), "NVML not available");
}

}  // namespace
}  // namespace tomowb::gui
