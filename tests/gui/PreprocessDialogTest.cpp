// Preprocess projections… in the window: the dialog shows the resulting size and keeps OK
// disabled with the core's words for a bad crop or binning; OK preprocesses the ET demo on the
// loader's worker thread into a new projections entry beside the original (half the columns and
// rows for binning 2, pixel centres where the source's 2 x 2 blocks are), and the geometry and
// algorithm panels follow the entry chosen in the Data panel; cancelling (the dialog or the
// worker) leaves no new entry. Set TOMOWB_SCREENSHOT_DIR to keep a picture of the dialog.
#include <gtest/gtest.h>

#include <QComboBox>
#include <QLabel>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTest>
#include <QTreeWidget>
#include <cstdlib>

#include "gui/AlgorithmPanel.h"
#include "gui/DataPanel.h"
#include "gui/GeometryPanel.h"
#include "gui/PreprocessDialog.h"
#include "gui/core/DemoData.h"
#include "gui/core/Workspace.h"

namespace tomowb::gui {
namespace {

const DemoDataset& etDemo() {
  static const DemoDataset et = [] {
    JobContext context;
    return makeDemo(DemoKind::ElectronTomography, 64, context);  // 128 x 32 detector
  }();
  return et;
}

Eigen::Vector3d pixelCentre(const Geometry& g, int viewIndex, double col, double row) {
  const View& view = g.view(viewIndex);
  return view.detectorCentre + (col - (g.detector().cols - 1) / 2.0) * view.u +
         (row - (g.detector().rows - 1) / 2.0) * view.v;
}

class PreprocessTest : public testing::Test {
 protected:
  void SetUp() override {
    workspace.setProjections(etDemo().projections, QStringLiteral("ET demo"));
    panel.setShowsErrorDialogs(false);
  }
  PreprocessDialog* openDialog() {
    panel.showPreprocessDialog();
    auto* dialog = panel.findChild<PreprocessDialog*>();
    EXPECT_NE(dialog, nullptr);
    return dialog;
  }
  bool waitForEntries(std::size_t count) {
    return QTest::qWaitFor([&] { return workspace.projectionEntries().size() == count; }, 20000);
  }

  Workspace workspace;
  DataPanel panel{workspace};
};

TEST_F(PreprocessTest, DialogShowsTheResultingSizeAndKeepsOkDisabledForABadCrop) {
  const Geometry& g = etDemo().projections->geometry();
  PreprocessDialog dialog(g, QStringLiteral("ET demo"));
  auto* result = dialog.findChild<QLabel*>(QStringLiteral("preprocessResult"));
  auto* problem = dialog.findChild<QLabel*>(QStringLiteral("preprocessProblem"));
  ASSERT_TRUE(result && problem);
  // Defaults: the whole detector, nothing changed.
  EXPECT_TRUE(dialog.okButton()->isEnabled());
  EXPECT_EQ(dialog.params().cols, g.detector().cols);
  EXPECT_EQ(dialog.params().rows, g.detector().rows);
  EXPECT_TRUE(result->text().contains(QStringLiteral("128 × 32"))) << result->text().toStdString();

  auto* binning = dialog.findChild<QComboBox*>(QStringLiteral("preprocessBinning"));
  binning->setCurrentIndex(binning->findData(2));
  EXPECT_TRUE(result->text().contains(QStringLiteral("64 × 16"))) << result->text().toStdString();

  // A crop that starts beyond the detector: the core's ParameterError text, OK disabled.
  dialog.findChild<QSpinBox*>(QStringLiteral("preprocessFirstCol"))->setValue(200);
  EXPECT_FALSE(dialog.okButton()->isEnabled());
  EXPECT_FALSE(dialog.problem().isEmpty());
  EXPECT_TRUE(problem->isVisibleTo(&dialog));
  EXPECT_TRUE(problem->text().contains(dialog.problem()));
  EXPECT_TRUE(dialog.problem().contains(QStringLiteral("first index")))
      << dialog.problem().toStdString();

  // Fixed: OK again. Then binning 8 on a 4-column crop: the core's binning error.
  dialog.findChild<QSpinBox*>(QStringLiteral("preprocessFirstCol"))->setValue(0);
  EXPECT_TRUE(dialog.okButton()->isEnabled());
  dialog.findChild<QSpinBox*>(QStringLiteral("preprocessCols"))->setValue(4);
  binning->setCurrentIndex(binning->findData(8));
  EXPECT_FALSE(dialog.okButton()->isEnabled());
  EXPECT_TRUE(dialog.problem().contains(QStringLiteral("binning")))
      << dialog.problem().toStdString();

  // A crop wider than the detector.
  binning->setCurrentIndex(binning->findData(1));
  dialog.findChild<QSpinBox*>(QStringLiteral("preprocessCols"))->setValue(129);
  EXPECT_FALSE(dialog.okButton()->isEnabled());
}

TEST_F(PreprocessTest, BinningTwoOfTheEtDemoAddsAnEntryWithHalfTheDetector) {
  GeometryPanel geometryPanel(workspace);
  AlgorithmPanel algorithmPanel(workspace);
  const QString sourceGrid = algorithmPanel.gridText();
  const Geometry& source = etDemo().projections->geometry();

  PreprocessDialog* dialog = openDialog();
  ASSERT_NE(dialog, nullptr);
  auto* binning = dialog->findChild<QComboBox*>(QStringLiteral("preprocessBinning"));
  binning->setCurrentIndex(binning->findData(2));
  ASSERT_TRUE(dialog->okButton()->isEnabled());
  QSignalSpy loaded(&panel, &DataPanel::loaded);
  QTest::mouseClick(dialog->okButton(), Qt::LeftButton);
  EXPECT_TRUE(panel.isLoading());  // on the worker, not here
  EXPECT_FALSE(panel.preprocessAction()->isEnabled());
  ASSERT_TRUE(waitForEntries(2));
  EXPECT_FALSE(panel.isLoading());
  EXPECT_TRUE(panel.preprocessAction()->isEnabled());
  ASSERT_EQ(loaded.count(), 1);

  const auto& entries = workspace.projectionEntries();
  EXPECT_EQ(entries[0].projections, etDemo().projections);  // the original is kept
  EXPECT_EQ(workspace.currentProjectionsIndex(), 1);
  EXPECT_EQ(entries[1].name, QStringLiteral("ET demo binned 2"));
  const Geometry& binned = entries[1].projections->geometry();
  EXPECT_EQ(binned.detector().cols, source.detector().cols / 2);
  EXPECT_EQ(binned.detector().rows, source.detector().rows / 2);
  EXPECT_EQ(binned.viewCount(), source.viewCount());
  EXPECT_EQ(entries[1].projections->cols(), source.detector().cols / 2);
  const int views = static_cast<int>(source.viewCount());
  // Each binned pixel's centre is the mean of its 2 x 2 source centres.
  for (int k : {0, views / 2, views - 1})
    for (auto [c, r] : {std::pair{0, 0}, std::pair{10, 3}, std::pair{63, 15}}) {
      const Eigen::Vector3d expected =
          (pixelCentre(source, k, 2 * c, 2 * r) + pixelCentre(source, k, 2 * c + 1, 2 * r) +
           pixelCentre(source, k, 2 * c, 2 * r + 1) +
           pixelCentre(source, k, 2 * c + 1, 2 * r + 1)) /
          4.0;
      EXPECT_LT((pixelCentre(binned, k, c, r) - expected).norm(), 1e-9)
          << k << " " << c << " " << r;
    }

  // The panels follow the new entry, and the original when it is chosen in the Data panel.
  EXPECT_EQ(geometryPanel.form().cols, binned.detector().cols);
  EXPECT_EQ(geometryPanel.form().rows, binned.detector().rows);
  EXPECT_NE(algorithmPanel.gridText(), sourceGrid);
  auto* list = panel.findChild<QTreeWidget*>(QStringLiteral("dataList"));
  ASSERT_EQ(list->topLevelItemCount(), 2);  // the two projections entries
  QTreeWidgetItem* original = list->topLevelItem(0);
  EXPECT_TRUE(original->text(0).contains(QStringLiteral("ET demo\n")));
  emit list->itemClicked(original, 0);
  ASSERT_TRUE(QTest::qWaitFor([&] { return workspace.currentProjectionsIndex() == 0; }, 2000));
  EXPECT_EQ(geometryPanel.form().cols, source.detector().cols);
  EXPECT_EQ(algorithmPanel.gridText(), sourceGrid);
}

TEST_F(PreprocessTest, CancelLeavesNoNewEntry) {
  // Cancel in the dialog.
  PreprocessDialog* dialog = openDialog();
  ASSERT_NE(dialog, nullptr);
  dialog->reject();
  QTest::qWait(50);
  EXPECT_FALSE(panel.isLoading());
  EXPECT_EQ(workspace.projectionEntries().size(), 1u);

  // Cancel while the worker runs: nothing of it is kept.
  QSignalSpy cancelled(&panel, &DataPanel::loadCancelled);
  preprocess::TiltSeriesPreprocessing params;
  params.binning = 2;
  params.logTransform = true;
  panel.preprocess(params);
  ASSERT_TRUE(panel.isLoading());
  panel.cancelLoading();
  EXPECT_EQ(cancelled.count(), 1);
  QTest::qWait(500);
  EXPECT_FALSE(panel.isLoading());
  EXPECT_EQ(workspace.projectionEntries().size(), 1u);
  EXPECT_EQ(workspace.projections(), etDemo().projections);
}

TEST_F(PreprocessTest, WarningsGoOnTheEntryAndBadParametersAreAMessage) {
  // 128 columns cropped to 127 and binned 2: the core drops the last column and says so.
  preprocess::TiltSeriesPreprocessing params;
  params.cols = 127;
  params.binning = 2;
  params.logTransform = true;
  params.normalisation = preprocess::ViewNormalisation::DivideByMean;
  panel.preprocess(params);
  ASSERT_TRUE(waitForEntries(2));
  EXPECT_TRUE(workspace.projectionsName().startsWith(QStringLiteral("ET demo cropped 127 × 32")))
      << workspace.projectionsName().toStdString();
  EXPECT_TRUE(workspace.projectionsName().contains(QStringLiteral("binned 2, log")));
  EXPECT_FALSE(panel.projectionWarnings().isEmpty());
  EXPECT_TRUE(panel.projectionWarnings().join(' ').contains(QStringLiteral("dropped")));

  QSignalSpy failed(&panel, &DataPanel::loadFailed);
  params = {};
  params.firstRow = 1000;
  panel.preprocess(params);
  EXPECT_EQ(failed.count(), 1);
  EXPECT_FALSE(panel.isLoading());
  EXPECT_EQ(workspace.projectionEntries().size(), 2u);
}

TEST_F(PreprocessTest, Screenshot) {
  const char* dir = std::getenv("TOMOWB_SCREENSHOT_DIR");
  if (!dir) GTEST_SKIP() << "set TOMOWB_SCREENSHOT_DIR to keep the picture";
  PreprocessDialog dialog(etDemo().projections->geometry(), QStringLiteral("Demo: ET tilt series"));
  auto* binning = dialog.findChild<QComboBox*>(QStringLiteral("preprocessBinning"));
  binning->setCurrentIndex(binning->findData(2));
  dialog.findChild<QSpinBox*>(QStringLiteral("preprocessCols"))->setValue(127);
  dialog.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&dialog));
  dialog.grab().save(QString::fromUtf8(dir) + "/et-preprocess-dialog.png");
}

}  // namespace
}  // namespace tomowb::gui
