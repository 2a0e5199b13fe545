// The sweep dialog under Xvfb, on the 32-voxel demo in this CPU-only build: a CPU FDK sweep with
// 2 repeats fills the table (fdk.bp.cpu passes and is bit-identical over its runs, the reference
// fdk.bp.cpu-f64 has its row, GPU rows are absent or skipped) and the chart (one point per variant
// that ran), Cancel stops a long sweep and keeps nothing, Export report writes report.md and
// pareto.svg (and refuses a non-empty folder unless told to replace it), and a sweep is refused
// with the reason where none applies. With TOMOWB_SCREENSHOT_DIR set the finished sweep is saved
// as sweep-dialog.png (docs/images). The run records of the window (GuiRunRecords) are tested
// here too: a finished run writes its record, saving the volume writes NAME.run.json beside it,
// and File > Open of that record adds a finished run-list entry with its volume.
#include <gtest/gtest.h>

#include <QComboBox>
#include <QDir>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QProgressBar>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <algorithm>
#include <fstream>

#include "gui/AlgorithmPanel.h"
#include "gui/DataPanel.h"
#include "gui/MainWindow.h"
#include "gui/Resources.h"
#include "gui/RunListPanel.h"
#include "gui/SweepDialog.h"
#include "gui/core/DemoData.h"
#include "gui/core/RunController.h"
#include "gui/core/Workspace.h"
#include "recon/device/GpuDevices.h"
#include "recon/io/Sha256.h"
#include "recon/qa/RunRecord.h"
#include "render/ChartView.h"
#include "support/GuiTestWait.h"

namespace tomowb::gui {
namespace {

using test::waitFor;

int rowOf(QTableWidget& table, const QString& variant) {
  for (int r = 0; r < table.rowCount(); ++r)
    if (QTableWidgetItem* item = table.item(r, SweepDialog::Variant);
        item != nullptr && item->text().section(' ', 0, 0) == variant)
      return r;
  return -1;
}

QString cell(QTableWidget& table, int row, int column) {
  QTableWidgetItem* item = table.item(row, column);
  return item != nullptr ? item->text() : QString();
}

class SweepDialogTest : public testing::Test {
 protected:
  void SetUp() override {
    initResources();
    QSettings().clear();
  }
  void TearDown() override { QSettings().clear(); }

  // The window with the demo of `size` voxels loaded and the panel's grid at that size.
  void openDemo(MainWindow& window, int size) {
    window.resize(1600, 1000);
    window.show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(&window));
    QSignalSpy loaded(&window.workspace(), &Workspace::projectionsChanged);
    window.openDemo(DemoKind::SheppLogan, size);
    ASSERT_TRUE(loaded.wait(120000)) << "the demo did not load";
    window.algorithmPanel().setVolumeEdge(size);
  }
};

TEST_F(SweepDialogTest, CpuFdkSweepOfTheDemoFillsTheTableAndTheChartAndExportsAReport) {
  const char* screenshots = std::getenv("TOMOWB_SCREENSHOT_DIR");
  MainWindow window;
  openDemo(window, 32);
  SweepDialog dialog(window.workspace(), window.algorithmPanel(), &window);
  dialog.resize(1600, 800);
  dialog.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&dialog));
  QString why;
  ASSERT_TRUE(dialog.canStart(&why)) << why.toStdString();
  EXPECT_TRUE(dialog.runButton().isEnabled());
  if (cuda::listGpuDevices().empty())
    EXPECT_FALSE(dialog.deviceChoice().toolTip().isEmpty()) << "GPU disabled with the reason";
  dialog.deviceChoice().setCurrentIndex(SweepDialog::CpuOnly);
  dialog.repeats().setValue(2);
  dialog.warmups().setValue(0);

  QSignalSpy finished(&dialog, &SweepDialog::sweepFinished);
  QSignalSpy ended(&dialog, &SweepDialog::sweepEnded);
  QStringList stages;  // what the progress bar said
  QObject::connect(&dialog.progressBar(), &QProgressBar::valueChanged,
                   [&] { stages << dialog.progressBar().format(); });
  QTest::mouseClick(&dialog.runButton(), Qt::LeftButton);
  EXPECT_TRUE(dialog.running());
  EXPECT_TRUE(dialog.cancelButton().isEnabled());
  ASSERT_TRUE(ended.wait(300000)) << "the sweep did not end";
  ASSERT_EQ(finished.count(), 1) << dialog.statusText().toStdString();
  EXPECT_FALSE(dialog.running());
  ASSERT_TRUE(dialog.result());
  EXPECT_EQ(dialog.progressBar().value(), 1000);
  // The progress says which variant of how many is running.
  const QString of = QStringLiteral(" of %1: ").arg(dialog.result()->rows.size());
  EXPECT_TRUE(std::any_of(stages.begin(), stages.end(), [&](const QString& s) {
    return s.startsWith(QStringLiteral("variant 1")) && s.contains(of);
  })) << stages.join(QStringLiteral(" | ")).toStdString();

  QTableWidget& table = dialog.table();
  const int cpu = rowOf(table, QStringLiteral("fdk.bp.cpu"));
  const int f64 = rowOf(table, QStringLiteral("fdk.bp.cpu-f64"));
  ASSERT_GE(cpu, 0);
  ASSERT_GE(f64, 0);
  EXPECT_EQ(cell(table, cpu, SweepDialog::Verdict), "PASS");
  EXPECT_TRUE(cell(table, cpu, SweepDialog::Determinism).contains("bit-identical"))
      << cell(table, cpu, SweepDialog::Determinism).toStdString();
  EXPECT_EQ(cell(table, cpu, SweepDialog::Reference), "fdk.bp.cpu-f64");
  EXPECT_GT(cell(table, cpu, SweepDialog::MedianSeconds).toDouble(), 0);
  EXPECT_GT(cell(table, cpu, SweepDialog::WallSeconds).toDouble(),
            cell(table, cpu, SweepDialog::MedianSeconds).toDouble() * 0.999)
      << "the whole run takes at least its kernel time";
  EXPECT_EQ(table.horizontalHeaderItem(SweepDialog::MedianSeconds)->text(), "Kernel time (s)");
  EXPECT_EQ(table.horizontalHeaderItem(SweepDialog::WallSeconds)->text(), "Wall time (s)");
  EXPECT_GT(cell(table, cpu, SweepDialog::Gups).toDouble(), 0);
  // The reference's own variant is compared with itself: "reference", never PASS.
  EXPECT_EQ(cell(table, f64, SweepDialog::Verdict), "reference");
  for (const qa::SweepRow& row : dialog.result()->rows)
    if (row.label.rfind("fdk.bp.test", 0) != 0 && row.label.find("cpu") == std::string::npos)
      EXPECT_FALSE(row.ran) << row.label << " is a GPU variant: skipped on the CPU choice";

  render::ChartView& chart = dialog.chart();
  EXPECT_TRUE(chart.hasSeries(QStringLiteral("fdk.bp.cpu")));
  const QStringList series = chart.seriesNames();
  EXPECT_TRUE(std::any_of(series.begin(), series.end(), [](const QString& n) {
    return n.startsWith("fdk.bp.cpu-f64 (reference)");
  })) << series.join(QStringLiteral(", ")).toStdString();
  EXPECT_EQ(chart.pointCount(QStringLiteral("fdk.bp.cpu")), 1);
  EXPECT_GT(chart.yValues(QStringLiteral("fdk.bp.cpu")).front(), 0) << "log axis: > 0";
  // Both axes are log axes labelled in seconds and NRMSE, never in log10 units.
  EXPECT_EQ(chart.xAxisTitle(), "median kernel time (s, log scale)");
  for (bool y : {false, true}) {
    const QStringList labels = chart.logTickLabels(y);
    ASSERT_GE(labels.size(), 2) << (y ? "y" : "x");
    double previous = 0;
    for (const QString& l : labels) {
      EXPECT_FALSE(l.startsWith('-')) << l.toStdString();
      EXPECT_GT(l.toDouble(), previous) << l.toStdString();
      previous = l.toDouble();
    }
  }

  if (screenshots != nullptr) {
    QTest::qWait(500);
    QDir().mkpath(screenshots);
    ASSERT_TRUE(dialog.grab().save(QDir(screenshots).filePath("sweep-dialog.png")));
  }

  QTemporaryDir dir;
  ASSERT_TRUE(dir.isValid());
  const QString folder = dir.filePath(QStringLiteral("report"));
  QString error;
  ASSERT_TRUE(dialog.exportReportTo(folder, false, &error)) << error.toStdString();
  EXPECT_TRUE(QFileInfo::exists(QDir(folder).filePath("report.md")));
  EXPECT_TRUE(QFileInfo::exists(QDir(folder).filePath("pareto.svg")));
  EXPECT_FALSE(dialog.exportReportTo(folder, false, &error)) << "a non-empty folder needs replace";
  EXPECT_FALSE(error.isEmpty());
  EXPECT_TRUE(dialog.exportReportTo(folder, true, &error)) << error.toStdString();
}

TEST_F(SweepDialogTest, CancelStopsASweepAndKeepsNothing) {
  MainWindow window;
  openDemo(window, 48);
  SweepDialog dialog(window.workspace(), window.algorithmPanel(), &window);
  dialog.show();
  dialog.deviceChoice().setCurrentIndex(SweepDialog::CpuOnly);
  dialog.repeats().setValue(50);
  QSignalSpy ended(&dialog, &SweepDialog::sweepEnded);
  ASSERT_TRUE(dialog.start());
  QTest::qWait(300);
  QTest::mouseClick(&dialog.cancelButton(), Qt::LeftButton);
  ASSERT_TRUE(ended.wait(60000)) << "cancel did not stop the sweep";
  EXPECT_FALSE(dialog.running());
  EXPECT_FALSE(dialog.result());
  EXPECT_EQ(dialog.table().rowCount(), 0);
  EXPECT_TRUE(dialog.statusText().contains("cancelled")) << dialog.statusText().toStdString();
  EXPECT_TRUE(dialog.runButton().isEnabled());
  EXPECT_FALSE(dialog.exportButton().isEnabled());
}

TEST_F(SweepDialogTest, SaysWhyNoSweepCanStart) {
  MainWindow window;
  SweepDialog empty(window.workspace(), window.algorithmPanel(), &window);
  QString why;
  EXPECT_FALSE(empty.canStart(&why));
  EXPECT_TRUE(why.contains("Open projections")) << why.toStdString();
  EXPECT_FALSE(empty.runButton().isEnabled());

  openDemo(window, 32);
  window.algorithmPanel().setAlgorithm("sirt");
  SweepDialog sirt(window.workspace(), window.algorithmPanel(), &window);
  EXPECT_FALSE(sirt.canStart(&why)) << "a cone-beam scan has no projector sweep";
  EXPECT_TRUE(why.contains("tilt series")) << why.toStdString();
  EXPECT_FALSE(sirt.start());
}

TEST_F(SweepDialogTest, RunMenuOpensTheDialog) {
  MainWindow window;
  ASSERT_NE(window.sweepAction(), nullptr);
  window.sweepAction()->trigger();
  auto* dialog = window.findChild<SweepDialog*>();
  ASSERT_NE(dialog, nullptr);
  EXPECT_TRUE(dialog->isVisible());
  dialog->close();
}

TEST_F(SweepDialogTest, RunRecordsAreWrittenSavedBesideTheVolumeAndOpenedInTheRunList) {
  QTemporaryDir dir;
  ASSERT_TRUE(dir.isValid());
  MainWindow window;
  window.setRunRecordsFolder(dir.filePath(QStringLiteral("runs")));
  window.dataPanel().setShowsErrorDialogs(false);
  openDemo(window, 32);
  window.algorithmPanel().setDevice(
      -1);  // CPU kernels are named below; a GPU machine defaults to its GPU
  QSignalSpy finished(&window.runs(), &RunController::runFinished);
  const int run = window.startRun();
  ASSERT_GT(run, 0);
  ASSERT_TRUE(finished.wait(120000));

  // The record of the run, in the records folder, shown by "Show record…".
  const RunInfo* info = window.runs().run(run);
  // Written on a worker thread (it hashes the inputs): the path comes once the file is there.
  QTRY_VERIFY_WITH_TIMEOUT(!info->recordPath.isEmpty(), 30000);
  EXPECT_TRUE(info->recordPath.startsWith(dir.filePath(QStringLiteral("runs"))));
  EXPECT_TRUE(info->recordPath.endsWith(QStringLiteral("-run%1.run.json").arg(run)));
  const qa::RunRecord record = qa::readRunRecord(info->recordPath.toStdString());
  EXPECT_EQ(record.algorithm, "FDK");
  EXPECT_EQ(record.variant, "fdk.bp.cpu");
  EXPECT_TRUE(record.outputs.empty());
  EXPECT_TRUE(window.runListPanel().recordText(run).contains(info->recordPath));

  // Save volume as…: NAME.run.json beside it, with the output's SHA-256.
  const QString volume = dir.filePath(QStringLiteral("recon.mhd"));
  ASSERT_TRUE(window.saveCurrentVolumeTo(volume));
  const QString saved = dir.filePath(QStringLiteral("recon.run.json"));
  ASSERT_TRUE(QFileInfo::exists(saved));
  const qa::RunRecord savedRecord = qa::readRunRecord(saved.toStdString());
  ASSERT_FALSE(savedRecord.outputs.empty());
  EXPECT_EQ(savedRecord.outputs[0].role, "output");
  if (sha256Available())
    EXPECT_EQ(savedRecord.outputs[0].sha256, sha256HexOfFile(volume.toStdString()));

  // File > Open of the record: a finished entry with the saved volume, shown and comparable.
  finished.clear();
  window.openFiles({saved});
  ASSERT_TRUE(finished.wait(60000)) << "the record did not open";
  const int opened = finished.back().front().toInt();
  EXPECT_NE(opened, run);
  const RunInfo* entry = window.runs().run(opened);
  ASSERT_NE(entry, nullptr);
  EXPECT_EQ(entry->state, RunState::Finished);
  ASSERT_TRUE(entry->result);
  EXPECT_EQ(entry->result->shape(), info->result->shape());
  EXPECT_TRUE(entry->spec.title.contains("fdk.bp.cpu")) << entry->spec.title.toStdString();
  EXPECT_EQ(entry->recordPath, saved);
  ASSERT_NE(window.workspace().currentVolume(), nullptr);
  EXPECT_EQ(window.workspace().currentVolume()->runId, opened);
  EXPECT_TRUE(window.runListPanel().recordText(opened).contains("\"openedFrom\""));

  // A record in the wrong format: the core's FormatError, as other load errors.
  const QString bad = dir.filePath(QStringLiteral("bad.run.json"));
  std::ofstream(bad.toStdString()) << R"({"format": "not-a-record"})";
  QSignalSpy failed(&window.dataPanel(), &DataPanel::loadFailed);
  window.openFiles({bad});
  ASSERT_TRUE(failed.wait(30000));
  EXPECT_TRUE(failed.front().front().toString().contains("bad.run.json"))
      << failed.front().front().toString().toStdString();
}

}  // namespace
}  // namespace tomowb::gui
