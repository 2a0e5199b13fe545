// ConvergencePanel: an iterative run's residuals become one point per iteration in both charts
// (log y), one curve per run so runs can be compared; non-iterative runs draw nothing; a
// forgotten run's curve goes; the CSV holds every point.
#include <gtest/gtest.h>

#include <QTest>

#include "gui/ConvergencePanel.h"
#include "gui/core/RunController.h"
#include "render/ChartView.h"

namespace tomowb::gui {
namespace {

// A fake iterative run: `count` iterations whose residual halves each time.
RunSpec iterativeRun(const QString& algorithm, int count, double relaxation = 1.0) {
  RunSpec spec;
  spec.title = algorithm.toUpper();
  spec.algorithm = algorithm;
  spec.parameters = {{"iterations", count}, {"relaxation", relaxation}};
  spec.execute = [algorithm, count](JobContext& context, nlohmann::json& report) {
    for (int i = 1; i <= count; ++i) {
      IterationRecord r;
      r.algorithm = algorithm.toStdString();
      r.iteration = i;
      r.maxIterations = count;
      r.relativeResidual = std::pow(0.5, i - 1);
      r.weightedResidualNorm = 10.0 * std::pow(0.5, i - 1);
      r.residualNorm = 3.0 * std::pow(0.5, i - 1);
      r.seconds = 0.01;
      context.reportIteration(r);
    }
    report = {{"stopReason", std::to_string(count) + " iterations"}};
    return std::make_shared<Volume>(Volume::centred({2, 2, 2}, Eigen::Vector3d::Ones()));
  };
  return spec;
}

TEST(ConvergencePanel, PlotsOnePointPerIterationPerRunOnLogAxes) {
  RunController runs;
  ConvergencePanel panel(runs);
  panel.resize(480, 560);
  panel.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&panel));
  EXPECT_TRUE(panel.relativeChart().logScaleY());
  EXPECT_TRUE(panel.weightedChart().logScaleY());
  const int sirt = runs.enqueue(iterativeRun("sirt", 8));
  const int sart = runs.enqueue(iterativeRun("sart", 5, 0.5));
  const int cgls = runs.enqueue(iterativeRun("cgls", 3, 0.3));  // no relaxation in its name
  RunSpec voxel = iterativeRun("sirt", 2, 1.5);
  voxel.parameters["backVariant"] = "et.bp.cpu-voxel";
  const int third = runs.enqueue(std::move(voxel));
  ASSERT_TRUE(runs.waitForIdle(10000));
  EXPECT_EQ(panel.plottedRuns(), (std::vector<int>{sirt, sart, cgls, third}));
  EXPECT_EQ(panel.seriesName(cgls), QString("run %1: CGLS").arg(cgls));
  runs.forget(cgls);
  EXPECT_EQ(panel.seriesName(third), QString("run %1: SIRT voxel lambda 1.5").arg(third));
  // The header follows the newest run.
  EXPECT_TRUE(panel.headerText().contains("iteration 2 of 2")) << panel.headerText().toStdString();
  EXPECT_TRUE(panel.headerText().contains("2 iterations"));
  runs.forget(third);
  const QString a = panel.seriesName(sirt), b = panel.seriesName(sart);
  EXPECT_EQ(a, QString("run %1: SIRT").arg(sirt));
  EXPECT_EQ(b, QString("run %1: SART").arg(sart)) << "0.5 is SART's default relaxation";
  EXPECT_EQ(panel.relativeChart().seriesNames(), (QStringList{a, b}));
  EXPECT_EQ(panel.weightedChart().seriesNames(), (QStringList{a, b}));
  EXPECT_EQ(panel.relativeChart().pointCount(a), 8);
  EXPECT_EQ(panel.relativeChart().pointCount(b), 5);
  EXPECT_EQ(panel.relativeChart().xValues(a), (std::vector<double>{1, 2, 3, 4, 5, 6, 7, 8}));
  EXPECT_DOUBLE_EQ(panel.relativeChart().yValues(a).front(), 1.0);
  EXPECT_DOUBLE_EQ(panel.relativeChart().yValues(a).back(), std::pow(0.5, 7));
  EXPECT_DOUBLE_EQ(panel.weightedChart().yValues(b).back(), 10.0 * std::pow(0.5, 4));
  // One colour per run, the same in both charts.
  EXPECT_NE(panel.relativeChart().seriesColour(a), panel.relativeChart().seriesColour(b));
  EXPECT_EQ(panel.relativeChart().seriesColour(b), panel.weightedChart().seriesColour(b));
  const QStringList csv = panel.csvText().split('\n', Qt::SkipEmptyParts);
  ASSERT_EQ(csv.size(), 1 + 8 + 5);
  EXPECT_EQ(csv[0],
            "run,method,iteration,relative_residual,weighted_residual,residual_norm,seconds");
  EXPECT_EQ(csv[1], QString("%1,SIRT,1,1,10,3,0.01").arg(sirt));
  // Forgetting a run removes its curve; clearing removes the ended ones.
  runs.forget(sirt);
  EXPECT_EQ(panel.relativeChart().seriesNames(), QStringList{b});
  panel.clearEndedRuns();
  EXPECT_TRUE(panel.plottedRuns().empty());
  EXPECT_TRUE(panel.weightedChart().seriesNames().isEmpty());
}

TEST(ConvergencePanel, NonIterativeRunsDrawNoCurve) {
  RunController runs;
  ConvergencePanel panel(runs);
  RunSpec fdk = iterativeRun("fdk", 3);
  runs.enqueue(std::move(fdk));
  ASSERT_TRUE(runs.waitForIdle(10000));
  EXPECT_TRUE(panel.plottedRuns().empty());
  EXPECT_TRUE(panel.relativeChart().seriesNames().isEmpty());
  EXPECT_TRUE(ConvergencePanel::isIterative("os-sirt"));
  EXPECT_TRUE(ConvergencePanel::isIterative("cgls"));
  EXPECT_FALSE(ConvergencePanel::isIterative("wbp"));
}

}  // namespace
}  // namespace tomowb::gui
