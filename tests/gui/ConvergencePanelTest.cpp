// ConvergencePanel: an iterative run's residuals become one point per iteration in both charts
// (log y), one curve per run so runs can be compared; non-iterative runs draw nothing; a
// forgotten run's curve goes; the CSV holds every point. A PWLS run plots its cost (the records'
// objective) above and its RMSE against the reference below, and either chart can show any figure.
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
  EXPECT_TRUE(panel.upperChart().logScaleY());
  EXPECT_TRUE(panel.lowerChart().logScaleY());
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
  EXPECT_EQ(panel.upperChart().seriesNames(), (QStringList{a, b}));
  EXPECT_EQ(panel.lowerChart().seriesNames(), (QStringList{a, b}));
  EXPECT_EQ(panel.upperChart().pointCount(a), 8);
  EXPECT_EQ(panel.upperChart().pointCount(b), 5);
  EXPECT_EQ(panel.upperChart().xValues(a), (std::vector<double>{1, 2, 3, 4, 5, 6, 7, 8}));
  EXPECT_DOUBLE_EQ(panel.upperChart().yValues(a).front(), 1.0);
  EXPECT_DOUBLE_EQ(panel.upperChart().yValues(a).back(), std::pow(0.5, 7));
  EXPECT_DOUBLE_EQ(panel.lowerChart().yValues(b).back(), 10.0 * std::pow(0.5, 4));
  // One colour per run, the same in both charts.
  EXPECT_NE(panel.upperChart().seriesColour(a), panel.upperChart().seriesColour(b));
  EXPECT_EQ(panel.upperChart().seriesColour(b), panel.lowerChart().seriesColour(b));
  const QStringList csv = panel.csvText().split('\n', Qt::SkipEmptyParts);
  ASSERT_EQ(csv.size(), 1 + 8 + 5);
  EXPECT_EQ(csv[0],
            "run,method,iteration,relative_residual,weighted_residual,residual_norm,seconds,"
            "objective_name,objective");
  EXPECT_EQ(csv[1], QString("%1,SIRT,1,1,10,3,0.01,,").arg(sirt));
  // Forgetting a run removes its curve; clearing removes the ended ones.
  runs.forget(sirt);
  EXPECT_EQ(panel.upperChart().seriesNames(), QStringList{b});
  panel.clearEndedRuns();
  EXPECT_TRUE(panel.plottedRuns().empty());
  EXPECT_TRUE(panel.lowerChart().seriesNames().isEmpty());
}

// A fake PWLS run: the cost falls, the RMSE against the reference too, the change shrinks.
RunSpec pwlsRun(int count, bool reference) {
  RunSpec spec;
  spec.title = QStringLiteral("PWLS");
  spec.algorithm = QStringLiteral("pwls");
  spec.parameters = {{"iterations", count},
                     {"backVariant", "sf.bp.cpu-tt"},
                     {"input", {{"reference", reference}}}};
  spec.execute = [count, reference](JobContext& context, nlohmann::json&) {
    for (int i = 1; i <= count; ++i) {
      IterationRecord r;
      r.algorithm = "pwls";
      r.iteration = i;
      r.maxIterations = count;
      r.relativeResidual = 0.4;  // noise: the residual levels off while the cost falls
      r.weightedResidualNorm = 250;
      r.objectiveName = "PWLS cost";
      r.objective = 1000.0 + 500.0 / i;
      r.metrics = {{"relative change", 0.1 / i}};
      if (reference) r.metrics.emplace_back("RMSE", 0.002 / i);
      context.reportIteration(r);
    }
    return std::make_shared<Volume>(Volume::centred({2, 2, 2}, Eigen::Vector3d::Ones()));
  };
  return spec;
}

TEST(ConvergencePanel, APwlsRunPlotsItsCostAndRmseAndAnyFigureOnRequest) {
  RunController runs;
  ConvergencePanel panel(runs);
  panel.resize(480, 560);
  panel.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&panel));
  const int id = runs.enqueue(pwlsRun(5, true));
  ASSERT_TRUE(runs.waitForIdle(10000));
  const QString curve = panel.seriesName(id);
  EXPECT_EQ(curve, QString("run %1: PWLS tt").arg(id));
  EXPECT_EQ(panel.figure(0), ConvergencePanel::kCost);
  EXPECT_EQ(panel.figure(1), "RMSE");
  EXPECT_TRUE(panel.upperChart().title().contains("PWLS cost"))
      << panel.upperChart().title().toStdString();
  EXPECT_EQ(panel.upperChart().xValues(curve), (std::vector<double>{1, 2, 3, 4, 5}));
  EXPECT_EQ(panel.upperChart().yValues(curve),
            (std::vector<double>{1500, 1250, 1000 + 500.0 / 3, 1125, 1100}));
  EXPECT_DOUBLE_EQ(panel.lowerChart().yValues(curve).back(), 0.002 / 5);
  EXPECT_TRUE(panel.headerText().contains("cost 1100")) << panel.headerText().toStdString();
  EXPECT_TRUE(panel.headerText().contains("RMSE 0.0004")) << panel.headerText().toStdString();
  EXPECT_EQ(panel.figures(), (QStringList{"relative residual", "weighted residual", "cost", "RMSE",
                                          "relative change"}));
  // Any figure on request, for every run plotted; the choice stays for the next runs.
  ASSERT_TRUE(panel.setFigure(1, "relative change"));
  EXPECT_DOUBLE_EQ(panel.lowerChart().yValues(curve).front(), 0.1);
  EXPECT_EQ(panel.figureValues(id, "RMSE").size(), 5u);
  EXPECT_FALSE(panel.setFigure(0, "no such figure"));
  const int second = runs.enqueue(pwlsRun(2, false));
  ASSERT_TRUE(runs.waitForIdle(10000));
  EXPECT_EQ(panel.figure(1), "relative change");
  EXPECT_EQ(panel.lowerChart().pointCount(panel.seriesName(second)), 2);
  // The CSV has the cost and each reported figure; a run without one leaves it empty.
  const QStringList csv = panel.csvText().split('\n', Qt::SkipEmptyParts);
  ASSERT_EQ(csv.size(), 1 + 5 + 2);
  EXPECT_EQ(csv[0],
            "run,method,iteration,relative_residual,weighted_residual,residual_norm,seconds,"
            "objective_name,objective,RMSE,relative_change");
  EXPECT_EQ(csv[1], QString("%1,PWLS,1,0.4,250,0,0,PWLS cost,1500,0.002,0.1").arg(id));
  EXPECT_EQ(csv[6], QString("%1,PWLS,1,0.4,250,0,0,PWLS cost,1500,,0.1").arg(second));
}

TEST(ConvergencePanel, AResidualRunAfterAPwlsRunShowsTheResidualsAgain) {
  RunController runs;
  ConvergencePanel panel(runs);
  runs.enqueue(pwlsRun(2, false));
  ASSERT_TRUE(runs.waitForIdle(10000));
  EXPECT_EQ(panel.figure(0), ConvergencePanel::kCost);
  EXPECT_EQ(panel.figure(1), ConvergencePanel::kRelativeResidual) << "no reference: no RMSE";
  const int sirt = runs.enqueue(iterativeRun("sirt", 3));
  ASSERT_TRUE(runs.waitForIdle(10000));
  EXPECT_EQ(panel.figure(0), ConvergencePanel::kRelativeResidual);
  EXPECT_EQ(panel.figure(1), ConvergencePanel::kWeightedResidual);
  EXPECT_EQ(panel.upperChart().pointCount(panel.seriesName(sirt)), 3);
}

TEST(ConvergencePanel, NonIterativeRunsDrawNoCurve) {
  RunController runs;
  ConvergencePanel panel(runs);
  RunSpec fdk = iterativeRun("fdk", 3);
  runs.enqueue(std::move(fdk));
  ASSERT_TRUE(runs.waitForIdle(10000));
  EXPECT_TRUE(panel.plottedRuns().empty());
  EXPECT_TRUE(panel.upperChart().seriesNames().isEmpty());
  EXPECT_TRUE(ConvergencePanel::isIterative("os-sirt"));
  EXPECT_TRUE(ConvergencePanel::isIterative("cgls"));
  EXPECT_FALSE(ConvergencePanel::isIterative("wbp"));
}

}  // namespace
}  // namespace tomowb::gui
