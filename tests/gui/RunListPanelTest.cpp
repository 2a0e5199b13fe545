// RunListPanel (and the run log beside it) on a real RunController with fake runs: rows follow
// the controller, the queue is reordered and runs are cancelled and removed from the panel, a
// finished run reopens on double-click, and the record dialog shows the record as JSON.
#include <gtest/gtest.h>

#include <QAction>
#include <QApplication>
#include <QDialog>
#include <QPlainTextEdit>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeView>
#include <atomic>
#include <chrono>
#include <thread>

#include "gui/RunListPanel.h"
#include "gui/RunLogPanel.h"
#include "gui/core/RunController.h"
#include "recon/core/Error.h"

namespace tomowb::gui {
namespace {

// Runs until `release` is set (or it is cancelled), checking the token every 5 ms.
RunSpec waitingRun(const QString& title, std::shared_ptr<std::atomic<bool>> release,
                   bool fail = false) {
  RunSpec spec;
  spec.title = title;
  spec.algorithm = QStringLiteral("fake");
  spec.parameters = {{"variant", "fake.wait"}, {"title", title.toStdString()}};
  spec.execute = [release, fail](JobContext& context, nlohmann::json& report) {
    for (int step = 0; !release->load(); ++step) {
      context.throwIfCancelled();
      context.reportProgress("wait", std::min(0.9, step / 200.0));
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    if (fail) throw ParameterError("fake", "failed on purpose");
    report["steps"] = 1;
    return std::make_shared<Volume>(VolumeShape{2, 2, 2}, Eigen::Vector3d::Ones(),
                                    Eigen::Vector3d::Zero());
  };
  return spec;
}

std::shared_ptr<std::atomic<bool>> flag(bool value = false) {
  return std::make_shared<std::atomic<bool>>(value);
}

QString cell(RunListPanel& panel, int row, int column) {
  return panel.model().index(row, column).data().toString();
}

bool waitFor(const std::function<bool()>& done, int timeoutMs = 5000) {
  QElapsedTimer clock;
  clock.start();
  while (!done()) {
    if (clock.elapsed() > timeoutMs) return false;
    QTest::qWait(10);
  }
  return true;
}

void showActive(QWidget& widget) {
  widget.resize(760, 260);
  widget.show();
  widget.activateWindow();
  ASSERT_TRUE(QTest::qWaitForWindowActive(&widget));
}

TEST(RunListPanel, RowsFollowTheControllerWithTheRunningRunsProgress) {
  RunController runs;
  RunListPanel panel(runs);
  auto release = flag();
  const int first = runs.enqueue(waitingRun("first", release));
  const int second = runs.enqueue(waitingRun("second", release));
  ASSERT_EQ(panel.model().rowCount(), 2);
  EXPECT_EQ(cell(panel, 0, RunListModel::Id).toInt(), first);
  EXPECT_EQ(cell(panel, 0, RunListModel::Title), "first");
  EXPECT_EQ(cell(panel, 0, RunListModel::State), "running");
  EXPECT_EQ(cell(panel, 0, RunListModel::Variant), "fake.wait");
  EXPECT_EQ(cell(panel, 1, RunListModel::State), "queued");
  ASSERT_TRUE(waitFor([&] { return runs.run(first)->fraction > 0.1; }));
  const QModelIndex progress = panel.model().index(0, RunListModel::Progress);
  EXPECT_GT(progress.data(RunListModel::kFractionRole).toDouble(), 0.1);
  EXPECT_TRUE(cell(panel, 0, RunListModel::Progress).startsWith("wait "));
  EXPECT_LT(
      panel.model().index(1, RunListModel::Progress).data(RunListModel::kFractionRole).toDouble(),
      0.0);
  showActive(panel);
  panel.grab().save("/tmp/RunListPanelTest-running.png");
  release->store(true);
  ASSERT_TRUE(runs.waitForIdle(5000));
  EXPECT_EQ(cell(panel, 0, RunListModel::State), "finished");
  EXPECT_EQ(cell(panel, 1, RunListModel::State), "finished");
  EXPECT_EQ(cell(panel, 1, RunListModel::Id).toInt(), second);
  EXPECT_FALSE(cell(panel, 1, RunListModel::Duration).isEmpty());
}

TEST(RunListPanel, ReordersTheQueueWithButtonsAndCtrlArrows) {
  RunController runs;
  RunListPanel panel(runs);
  showActive(panel);
  auto release = flag();
  runs.enqueue(waitingRun("running", release));
  const int a = runs.enqueue(waitingRun("a", release));
  const int b = runs.enqueue(waitingRun("b", release));
  const int c = runs.enqueue(waitingRun("c", release));
  ASSERT_EQ(runs.queuedIds(), (std::vector<int>{a, b, c}));

  panel.selectRun(c);
  panel.view().setFocus();
  QTest::keyClick(&panel.view(), Qt::Key_Up, Qt::ControlModifier);
  EXPECT_EQ(runs.queuedIds(), (std::vector<int>{a, c, b}));
  EXPECT_EQ(panel.selectedRunId(), c) << "the selection follows the moved run";
  QTest::keyClick(&panel.view(), Qt::Key_Up, Qt::ControlModifier);
  EXPECT_EQ(runs.queuedIds(), (std::vector<int>{c, a, b}));
  // The rows show the new order: running, then the queue.
  EXPECT_EQ(cell(panel, 1, RunListModel::Id).toInt(), c);
  EXPECT_EQ(cell(panel, 3, RunListModel::Id).toInt(), b);

  panel.selectRun(a);
  QTest::keyClick(&panel.view(), Qt::Key_Down, Qt::ControlModifier);
  EXPECT_EQ(runs.queuedIds(), (std::vector<int>{c, b, a}));
  panel.moveSelected(-2);
  EXPECT_EQ(runs.queuedIds(), (std::vector<int>{a, c, b}));
  runs.cancel(runs.runningId());
  for (int id : runs.queuedIds()) runs.cancel(id);
  ASSERT_TRUE(runs.waitForIdle(5000));
}

TEST(RunListPanel, CancelsAndRemovesRunsFromThePanel) {
  RunController runs;
  RunListPanel panel(runs);
  showActive(panel);
  auto release = flag();
  const int running = runs.enqueue(waitingRun("running", release));
  const int queued = runs.enqueue(waitingRun("queued", release));
  const int next = runs.enqueue(waitingRun("next", release));

  // Delete on a queued run takes it out of the queue.
  panel.selectRun(queued);
  panel.view().setFocus();
  QTest::keyClick(&panel.view(), Qt::Key_Delete);
  EXPECT_EQ(runs.run(queued)->state, RunState::Cancelled);
  EXPECT_EQ(runs.queuedIds(), std::vector<int>{next});

  // Cancel on the running run stops it; the next one starts.
  panel.selectRun(running);
  QAction* cancel = nullptr;
  for (QAction* action : panel.actions())
    if (action->text() == "Cancel") cancel = action;
  ASSERT_NE(cancel, nullptr);
  ASSERT_TRUE(cancel->isEnabled());
  cancel->trigger();
  ASSERT_TRUE(waitFor([&] { return runs.run(running)->state == RunState::Cancelled; }, 2000))
      << "the running run did not stop within 2 s";
  EXPECT_EQ(runs.runningId(), next);

  // Delete on an ended run forgets it: its row goes.
  const int rowsBefore = panel.model().rowCount();
  panel.selectRun(running);
  QTest::keyClick(&panel.view(), Qt::Key_Delete);
  EXPECT_EQ(runs.run(running), nullptr);
  EXPECT_EQ(panel.model().rowCount(), rowsBefore - 1);
  EXPECT_EQ(panel.model().rowOf(running), -1);

  // The running run cannot be removed, only cancelled.
  panel.selectRun(next);
  panel.removeSelected();
  EXPECT_EQ(runs.run(next)->state, RunState::Running);
  release->store(true);
  ASSERT_TRUE(runs.waitForIdle(5000));
}

TEST(RunListPanel, DoubleClickReopensAFinishedRunAndTheRecordIsPrettyJson) {
  RunController runs;
  RunListPanel panel(runs);
  showActive(panel);
  const int id = runs.enqueue(waitingRun("done", flag(true)));
  ASSERT_TRUE(runs.waitForIdle(5000));
  QSignalSpy opened(&panel, &RunListPanel::openRunResult);
  const int row = panel.model().rowOf(id);
  QTest::qWait(50);  // the view lays out the reset model
  const QRect rect = panel.view().visualRect(panel.model().index(row, RunListModel::Title));
  ASSERT_TRUE(rect.isValid());
  QTest::mouseClick(panel.view().viewport(), Qt::LeftButton, Qt::NoModifier, rect.center());
  QTest::mouseDClick(panel.view().viewport(), Qt::LeftButton, Qt::NoModifier, rect.center());
  ASSERT_EQ(opened.count(), 1);
  EXPECT_EQ(opened.at(0).at(0).toInt(), id);

  const QString text = panel.recordText(id);
  const nlohmann::json record = nlohmann::json::parse(text.toStdString());
  EXPECT_EQ(record.at("run").get<int>(), id);
  EXPECT_EQ(record.at("state").get<std::string>(), "finished");
  EXPECT_TRUE(text.contains("\n  \"algorithm\": \"fake\"")) << "not indented by 2";

  panel.selectRun(id);
  panel.showRecordOfSelected();
  auto* dialog = panel.findChild<QDialog*>();
  ASSERT_NE(dialog, nullptr);
  auto* shown = dialog->findChild<QPlainTextEdit*>("recordText");
  ASSERT_NE(shown, nullptr);
  EXPECT_EQ(shown->toPlainText(), text);
  EXPECT_TRUE(shown->isReadOnly());
  ASSERT_TRUE(QTest::qWaitForWindowExposed(dialog));
  dialog->grab().save("/tmp/RunListPanelTest-record.png");
  dialog->close();
}

TEST(RunLogPanel, ShowsLinesFailuresInRedAndFiltersByRun) {
  RunController runs;
  RunLogPanel log(runs);
  log.resize(700, 300);
  log.show();
  const int ok = runs.enqueue(waitingRun("ok", flag(true)));
  const int bad = runs.enqueue(waitingRun("bad", flag(true), true));
  ASSERT_TRUE(runs.waitForIdle(5000));
  QTest::qWait(20);  // the panel appends lines in batches
  const QString all = log.visibleText();
  EXPECT_TRUE(all.contains(QStringLiteral("[run %1] started").arg(ok)));
  EXPECT_TRUE(all.contains(QStringLiteral("[run %1] failed: ").arg(bad)));
  EXPECT_TRUE(all.contains("failed on purpose"));
  auto* text = log.findChild<QPlainTextEdit*>();
  ASSERT_NE(text, nullptr);
  EXPECT_EQ(text->toPlainText().trimmed(), all.trimmed());
  const QString html = text->document()->toHtml();
  EXPECT_TRUE(html.contains("#c00000") || html.contains("#ff6b6b")) << "no red line";
  log.grab().save("/tmp/RunLogPanelTest.png");

  log.setRunFilter(ok);
  EXPECT_FALSE(log.visibleText().contains(QStringLiteral("[run %1]").arg(bad)));
  EXPECT_TRUE(log.visibleText().contains(QStringLiteral("[run %1]").arg(ok)));
  QTemporaryDir dir;
  const QString path = dir.filePath("log.txt");
  ASSERT_TRUE(log.saveLog(path));
  QFile file(path);
  ASSERT_TRUE(file.open(QIODevice::ReadOnly));
  EXPECT_EQ(QString::fromUtf8(file.readAll()), log.visibleText());

  log.setRunFilter(-1);
  log.clear();
  EXPECT_EQ(log.lineCount(), 0);
  EXPECT_TRUE(text->toPlainText().isEmpty());
}

TEST(RunLogPanel, KeepsOnlyTheLastTenThousandLines) {
  RunController runs;
  RunLogPanel log(runs);
  for (int i = 0; i < RunLogPanel::kMaxLines + 500; ++i)
    emit runs.logLine(1, QStringLiteral("[run 1] line %1").arg(i));
  QTest::qWait(20);
  EXPECT_EQ(log.lineCount(), RunLogPanel::kMaxLines);
  EXPECT_TRUE(log.visibleText().startsWith("[run 1] line 500\n"));
  auto* text = log.findChild<QPlainTextEdit*>();
  EXPECT_LE(text->document()->blockCount(), RunLogPanel::kMaxLines);
}

}  // namespace
}  // namespace tomowb::gui
