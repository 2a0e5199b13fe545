// Issue #19's window path, as a new user takes it: the helical demo brings its photon counts, PWLS
// with the SF-TT pair takes them as weights and the demo's phantom as its RMSE reference, the
// convergence panel plots the cost falling and the RMSE per iteration, and the compare view
// compares the PWLS result (every slice a ray reaches) with an FDK run of the same data (its
// completely measured slab) on the slices both have (different algorithms: informative, with the
// figures). A weighted run gets no golden reference: its record does not keep the
// weights (and the SF CPU pair is its own float64 reference). With TOMOWB_SCREENSHOT_DIR set it
// runs the 64 demo and saves pwls-vs-fdk.png of the compare view.
#include <gtest/gtest.h>

#include <QDir>
#include <QLabel>
#include <QSettings>
#include <QSignalSpy>
#include <QTableWidget>
#include <QTest>
#include <cstdlib>

#include "gui/AlgorithmPanel.h"
#include "gui/CompareView.h"
#include "gui/ConvergencePanel.h"
#include "gui/MainWindow.h"
#include "gui/Resources.h"
#include "gui/algorithms/ParameterForm.h"
#include "gui/algorithms/RunInputsBox.h"
#include "gui/core/CompareModel.h"
#include "gui/core/DemoData.h"
#include "gui/core/RunController.h"
#include "gui/core/Workspace.h"
#include "render/ChartView.h"
#include "support/GuiTestWait.h"

namespace tomowb::gui {
namespace {

class PwlsWindowTest : public testing::Test {
 protected:
  void SetUp() override {
    initResources();
    QSettings().clear();
  }
  void TearDown() override { QSettings().clear(); }
};

TEST_F(PwlsWindowTest, PwlsWithSfTtOnTheHelicalDemoPlotsItsCostAndComparesWithFdk) {
  MainWindow window;
  window.resize(1400, 900);
  window.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&window));
  // With TOMOWB_SCREENSHOT_DIR set: the 64 demo and pwls-vs-fdk.png of the compare view.
  const char* screenshots = std::getenv("TOMOWB_SCREENSHOT_DIR");
  QSignalSpy counted(&window.workspace(), &Workspace::countsChanged);
  window.openDemo(DemoKind::Helical, screenshots != nullptr ? 64 : 32);
  ASSERT_TRUE(counted.wait(60000)) << "the helical demo brought no counts";
  ASSERT_NE(window.workspace().counts(), nullptr);
  AlgorithmPanel& panel = window.algorithmPanel();
  panel.setDevice(-1);  // the CPU pair is named below; a GPU machine defaults to its GPU
  QSignalSpy finished(&window.runs(), &RunController::runFinished);

  // FDK first (the baseline), on the panel's grid: the completely measured slab.
  ASSERT_EQ(panel.algorithm(), "fdk");
  const int fdk = window.startRun();
  ASSERT_GT(fdk, 0);
  ASSERT_TRUE(
      test::waitFor([&] { return window.runs().run(fdk)->state == RunState::Finished; }, 120000))
      << window.runs().run(fdk)->error.toStdString();

  // PWLS: SF-TT chosen for it, the demo's counts and phantom taken by themselves.
  ASSERT_TRUE(panel.setAlgorithm("pwls"));
  EXPECT_EQ(panel.projectorModel(), "sf-tt");
  EXPECT_EQ(panel.runInputs().weightsChoice(), "counts");
  EXPECT_EQ(panel.runInputs().referenceChoice(), "phantom");
  nlohmann::json p = panel.form().parameters();
  p["iterations"] = 3;
  p["subsets"] = 4;
  p["beta"] = 1e6;
  panel.form().setParameters(p);
  QString why;
  ASSERT_TRUE(panel.validate(&why)) << why.toStdString();
  const int pwls = window.startRun();
  ASSERT_GT(pwls, fdk);
  const RunInfo* info = window.runs().run(pwls);
  EXPECT_EQ(info->spec.parameters["forwardVariant"], "sf.fp.cpu-tt");
  EXPECT_EQ(info->spec.parameters["weighted"], true);
  EXPECT_EQ(info->spec.parameters["input"]["reference"], true);
  ASSERT_TRUE(
      test::waitFor([&] { return window.runs().run(pwls)->state == RunState::Finished; }, 300000))
      << window.runs().run(pwls)->error.toStdString();
  QTest::qWait(300);

  // The convergence panel: the cost above, falling; the RMSE against the phantom below.
  ConvergencePanel& convergence = window.convergencePanel();
  EXPECT_EQ(convergence.figure(0), ConvergencePanel::kCost);
  EXPECT_EQ(convergence.figure(1), "RMSE");
  const QString curve = convergence.seriesName(pwls);
  const std::vector<double> cost = convergence.upperChart().yValues(curve);
  ASSERT_EQ(cost.size(), 3u);
  EXPECT_LT(cost.back(), cost.front()) << "the cost falls";
  EXPECT_EQ(cost, convergence.figureValues(pwls, ConvergencePanel::kCost));
  EXPECT_EQ(convergence.lowerChart().pointCount(curve), 3);
  EXPECT_TRUE(convergence.upperChart().title().contains("PWLS cost"))
      << convergence.upperChart().title().toStdString();

  // PWLS fits every slice a ray reaches, FDK its completely measured slab, on one lattice.
  const Volume& pwlsVolume = *window.runs().run(pwls)->result;
  const Volume& fdkVolume = *window.runs().run(fdk)->result;
  EXPECT_GT(pwlsVolume.nz(), fdkVolume.nz());
  EXPECT_EQ(pwlsVolume.nx(), fdkVolume.nx());

  // The compare view: PWLS (A) against FDK (B) on the slices both have, judged informative with
  // its figures.
  CompareView& compare = window.compareView();
  ASSERT_TRUE(compare.compareRuns(pwls, fdk));
  ASSERT_TRUE(compare.model().waitUntilDone(60000));
  EXPECT_TRUE(compare.problemText().isEmpty()) << compare.problemText().toStdString();
  const QString note = compare.findChild<QLabel*>(QStringLiteral("compareStatus"))->text();
  EXPECT_TRUE(note.contains(QStringLiteral("%1 voxels both grids share").arg(fdkVolume.nz())))
      << note.toStdString();
  EXPECT_TRUE(compare.verdictText().startsWith("informative (different algorithms: PWLS and FDK"))
      << compare.verdictText().toStdString();
  EXPECT_FALSE(
      compare.metricsTable().item(CompareView::Nrmse, CompareView::Value)->text().isEmpty());
  if (screenshots != nullptr) {
    window.showCompareView();
    QTest::qWait(1500);
    EXPECT_TRUE(window.saveWindowScreenshot(QDir(screenshots).filePath("pwls-vs-fdk.png")));
  }
  // No golden re-run: the SF CPU pair sums in float64 itself, and the weights are not recorded.
  EXPECT_TRUE(goldenReferenceUnavailable(*window.runs().run(pwls)).contains("float64 reference"));
  RunInfo joseph = *window.runs().run(pwls);
  joseph.spec.parameters["forwardVariant"] = "et.fp.cpu";
  joseph.spec.parameters["backVariant"] = "et.bp.cpu-voxel";
  EXPECT_TRUE(goldenReferenceUnavailable(joseph).contains("statistical weights"))
      << goldenReferenceUnavailable(joseph).toStdString();
}

}  // namespace
}  // namespace tomowb::gui
