// SafetyNet in the window under Xvfb: "Stop and keep" ends a SIRT run early with its iterate as a
// result volume; Close all, closing one result and quitting ask about unsaved results (Cancel
// keeps them, Discard lets them go, a saved result is not asked about); per-item Close falls back
// to the volume before; a session saves its results beside it and opens again in a new window,
// reporting a missing data file and opening the rest; the autosave appears and a clean quit
// removes it.
#include <gtest/gtest.h>

#include <QAction>
#include <QDir>
#include <QFileInfo>
#include <QSettings>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeWidget>
#include <fstream>

#include "gui/AlgorithmPanel.h"
#include "gui/DataPanel.h"
#include "gui/MainWindow.h"
#include "gui/Resources.h"
#include "gui/SafetyNet.h"
#include "gui/ViewArea.h"
#include "gui/core/DemoData.h"
#include "gui/core/RunController.h"
#include "gui/core/Workspace.h"
#include "recon/iterative/IterativeReconstruction.h"
#include "render/SliceRoi.h"

namespace tomowb::gui {
namespace {

class SafetyNetTest : public testing::Test {
 protected:
  void SetUp() override {
    initResources();
    QSettings().clear();
  }
  void TearDown() override { QSettings().clear(); }

  static void openDemo(MainWindow& window, DemoKind kind, int size) {
    QSignalSpy loaded(&window.workspace(), &Workspace::projectionsChanged);
    window.openDemo(kind, size);
    ASSERT_TRUE(loaded.wait(30000)) << "the demo did not load";
    ASSERT_TRUE(window.workspace().projections());
  }
  // One small FDK run of the demo; returns its id.
  static int runFdk(MainWindow& window) {
    window.algorithmPanel().setAlgorithm(QStringLiteral("fdk"));
    window.algorithmPanel().setVolumeEdge(16);
    QSignalSpy finished(&window.runs(), &RunController::runFinished);
    const int id = window.startRun();
    EXPECT_GT(id, 0);
    EXPECT_TRUE(finished.wait(60000)) << "the run did not finish";
    return id;
  }
  // The Data panel's row showing the volume of run `id`, or -1.
  static int rowOfRun(MainWindow& window, int id) {
    auto* list = window.dataPanel().findChild<QTreeWidget*>();
    for (int row = 0; row < list->topLevelItemCount(); ++row)
      if (list->topLevelItem(row)->text(0).startsWith(QStringLiteral("run %1:").arg(id)))
        return row;
    return -1;
  }
};

TEST_F(SafetyNetTest, StopAndKeepEndsSirtEarlyWithItsIterateAsAResultVolume) {
  MainWindow window;
  window.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&window));
  openDemo(window, DemoKind::ElectronTomography, 16);
  iterative::IterativeParams p = window.algorithmPanel().iterativeParams();
  p.iterations = 5000;  // far more than the test waits for
  window.algorithmPanel().setIterativeParams(p);
  QAction* stop = window.safetyNet().stopAndKeepAction();
  EXPECT_FALSE(stop->isEnabled()) << "nothing runs yet";
  QSignalSpy iterations(&window.runs(), &RunController::runIteration);
  QSignalSpy finished(&window.runs(), &RunController::runFinished);
  const int id = window.startRun();
  ASSERT_GT(id, 0);
  ASSERT_EQ(window.runs().run(id)->spec.algorithm, QStringLiteral("sirt"));
  while (iterations.count() < 2) ASSERT_TRUE(iterations.wait(60000)) << "no iterations came";
  EXPECT_TRUE(stop->isEnabled()) << "an iterative run is going";
  stop->trigger();
  EXPECT_FALSE(stop->isEnabled()) << "asked once";
  ASSERT_TRUE(finished.wait(60000)) << window.runs().run(id)->error.toStdString();
  const RunInfo* info = window.runs().run(id);
  ASSERT_EQ(info->state, RunState::Finished);
  ASSERT_TRUE(info->result);
  const int done = static_cast<int>(
      info->record.at("report").value("iterations", nlohmann::json::array()).size());
  EXPECT_GE(done, 2);
  EXPECT_LT(done, 5000);
  EXPECT_TRUE(info->record.value("stoppedByUser", false));
  EXPECT_EQ(info->record.at("report").value("stopReason", std::string()),
            "stopped by the user after " + std::to_string(done) + " of 5000 iterations");
  QTest::qWait(200);
  EXPECT_GE(rowOfRun(window, id), 0) << "the kept iterate is not in the Data panel";
  ASSERT_NE(window.workspace().currentVolume(), nullptr);
  EXPECT_EQ(window.workspace().currentVolume()->runId, id);
  EXPECT_EQ(window.workspace().currentVolume()->volume, info->result);
  EXPECT_FALSE(stop->isEnabled());
}

TEST_F(SafetyNetTest, CloseAllAsksAboutUnsavedResultsAndCancelKeepsThem) {
  MainWindow window;
  window.show();
  openDemo(window, DemoKind::SheppLogan, 32);
  const int id = runFdk(window);
  QStringList questions;
  QMessageBox::StandardButton answer = QMessageBox::Cancel;
  window.safetyNet().setAsker([&](const QString& q) {
    questions << q;
    return answer;
  });
  EXPECT_FALSE(window.dataPanel().closeAll());
  ASSERT_EQ(questions.size(), 1);
  EXPECT_TRUE(questions[0].contains(QStringLiteral("run %1:").arg(id)))
      << questions[0].toStdString();
  EXPECT_EQ(window.workspace().volumes().size(), 1u);
  EXPECT_TRUE(window.workspace().projections());
  answer = QMessageBox::Discard;
  EXPECT_TRUE(window.dataPanel().closeAll());
  EXPECT_TRUE(window.workspace().volumes().empty());
  EXPECT_FALSE(window.workspace().projections());
  // Nothing unsaved: no question.
  EXPECT_TRUE(window.dataPanel().closeAll());
  EXPECT_EQ(questions.size(), 2);
}

TEST_F(SafetyNetTest, ClosesOneVolumeAndTheViewsFallBackToTheOneBefore) {
  MainWindow window;
  window.show();
  openDemo(window, DemoKind::SheppLogan, 32);
  const int first = runFdk(window);
  const int second = runFdk(window);
  ASSERT_EQ(window.workspace().volumes().size(), 2u);
  ASSERT_EQ(window.workspace().currentVolume()->runId, second);
  int asked = 0;
  window.safetyNet().setAsker([&](const QString&) {
    ++asked;
    return QMessageBox::Discard;
  });
  // A saved result closes without a question.
  QTemporaryDir dir;
  ASSERT_TRUE(window.saveCurrentVolumeTo(dir.filePath(QStringLiteral("second.mhd"))));
  const int row = rowOfRun(window, second);
  ASSERT_GE(row, 0);
  ASSERT_TRUE(window.dataPanel().triggerContextMenuAction(row, QStringLiteral("Close")));
  QTest::qWait(50);
  EXPECT_EQ(asked, 0);
  ASSERT_EQ(window.workspace().volumes().size(), 1u);
  ASSERT_NE(window.workspace().currentVolume(), nullptr);
  EXPECT_EQ(window.workspace().currentVolume()->runId, first);
  // The unsaved one asks; Discard closes it and the views have nothing left to show.
  ASSERT_TRUE(window.dataPanel().triggerContextMenuAction(rowOfRun(window, first),
                                                          QStringLiteral("Close")));
  QTest::qWait(50);
  EXPECT_EQ(asked, 1);
  EXPECT_TRUE(window.workspace().volumes().empty());
  EXPECT_EQ(window.workspace().currentVolume(), nullptr);
  EXPECT_TRUE(window.workspace().projections()) << "closing a volume keeps the projections";
}

TEST_F(SafetyNetTest, QuittingWithUnsavedResultsAsksAndCancelKeepsTheWindowOpen) {
  MainWindow window;
  window.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&window));
  openDemo(window, DemoKind::SheppLogan, 32);
  runFdk(window);
  QMessageBox::StandardButton answer = QMessageBox::Cancel;
  int asked = 0;
  window.safetyNet().setAsker([&](const QString&) {
    ++asked;
    return answer;
  });
  EXPECT_FALSE(window.close());
  EXPECT_TRUE(window.isVisible());
  EXPECT_EQ(asked, 1);
  // Save…: the session and its result beside it, then the window closes.
  QTemporaryDir dir;
  const QString path = dir.filePath(QStringLiteral("quit.tomowb-session"));
  window.safetyNet().setPathChooser([&](bool) { return path; });
  answer = QMessageBox::Save;
  EXPECT_TRUE(window.close());
  EXPECT_TRUE(QFileInfo::exists(path));
  EXPECT_TRUE(QFileInfo::exists(dir.filePath(QStringLiteral("quit-results/run1.mhd"))));
}

TEST_F(SafetyNetTest, ASessionOpensAgainWithItsDataRunsResultsAndRois) {
  QTemporaryDir dir;
  const QString path = dir.filePath(QStringLiteral("a.tomowb-session"));
  int runId = -1;
  {
    MainWindow window;
    window.show();
    openDemo(window, DemoKind::SheppLogan, 32);
    runId = runFdk(window);
    render::SliceRoi roi;
    roi.axis = 2;
    roi.halfSizeMm = Eigen::Vector2d(4, 4);
    window.viewArea().setRois({roi});
    window.workspace().setWaterValuePerMm(0.0195);  // View > Water value for HU…
    QString error;
    ASSERT_TRUE(window.safetyNet().saveSession(path, true, &error)) << error.toStdString();
    EXPECT_TRUE(window.workspace().unsavedResultIndices().empty()) << "saved with the session";
  }
  const SessionData written = readSessionFile(path);
  ASSERT_TRUE(written.projections);
  EXPECT_EQ(written.projections->demoKind, QStringLiteral("shepp-logan"));
  EXPECT_EQ(written.projections->demoSize, 32);
  EXPECT_EQ(written.projections->waterPerMm, 0.0195);
  ASSERT_EQ(written.runs.size(), 1u);
  EXPECT_EQ(written.runs[0].algorithm, QStringLiteral("fdk"));

  MainWindow window;
  window.show();
  window.safetyNet().setAsker([](const QString&) { return QMessageBox::Discard; });
  QSignalSpy restored(&window.safetyNet(), &SafetyNet::sessionRestored);
  QString error;
  ASSERT_TRUE(window.safetyNet().openSession(path, &error)) << error.toStdString();
  ASSERT_TRUE(restored.count() > 0 || restored.wait(60000));
  EXPECT_TRUE(window.safetyNet().lastOpenProblems().isEmpty())
      << window.safetyNet().lastOpenProblems().join(QLatin1Char('\n')).toStdString();
  ASSERT_TRUE(window.workspace().projections());
  EXPECT_EQ(static_cast<std::size_t>(window.workspace().projections()->viewCount()),
            written.projections->geometry["views"].size());
  ASSERT_EQ(window.runs().runIds().size(), 1u);
  const RunInfo* run = window.runs().run(window.runs().runIds()[0]);
  ASSERT_TRUE(run->result);
  EXPECT_EQ(run->result->nx(), 16);
  ASSERT_EQ(window.workspace().volumes().size(), 1u);
  EXPECT_TRUE(window.workspace().unsavedResultIndices().empty());
  EXPECT_EQ(window.viewArea().rois().size(), 1u);
  EXPECT_EQ(window.workspace().waterValuePerMm(), 0.0195);
  EXPECT_EQ(window.viewArea().displayUnits().waterPerMm(), 0.0195);
  (void)runId;
}

TEST_F(SafetyNetTest, AMissingDataFileIsReportedAndTheRestOpens) {
  QTemporaryDir dir;
  const QString path = dir.filePath(QStringLiteral("b.tomowb-session"));
  {
    MainWindow window;
    window.show();
    openDemo(window, DemoKind::SheppLogan, 32);
    runFdk(window);
    ASSERT_TRUE(window.safetyNet().saveSession(path, true));
  }
  // The projections now come from a file that is gone; the result is still there.
  SessionData s = readSessionFile(path);
  s.projections->demoKind.clear();
  s.projections->path = dir.filePath(QStringLiteral("gone/scan.json"));
  writeSessionFile(path, s);

  MainWindow window;
  window.show();
  QSignalSpy restored(&window.safetyNet(), &SafetyNet::sessionRestored);
  window.safetyNet().setAsker([](const QString&) { return QMessageBox::Discard; });
  ASSERT_TRUE(window.safetyNet().openSession(path));
  ASSERT_TRUE(restored.count() > 0 || restored.wait(30000));
  const QStringList problems = window.safetyNet().lastOpenProblems();
  ASSERT_EQ(problems.size(), 1) << problems.join(QLatin1Char('\n')).toStdString();
  EXPECT_TRUE(problems[0].contains(QStringLiteral("gone/scan.json"))) << problems[0].toStdString();
  EXPECT_FALSE(window.workspace().projections());
  ASSERT_EQ(window.workspace().volumes().size(), 1u) << "the result opened without its data";

  // A file that is not a session names itself and the problem.
  std::ofstream(dir.filePath(QStringLiteral("bad.tomowb-session")).toStdString()) << "{\"x\": 1}";
  QString error;
  EXPECT_FALSE(
      window.safetyNet().openSession(dir.filePath(QStringLiteral("bad.tomowb-session")), &error));
  EXPECT_TRUE(error.contains(QStringLiteral("bad.tomowb-session"))) << error.toStdString();
  EXPECT_TRUE(error.contains(QStringLiteral("'format'"))) << error.toStdString();
}

TEST_F(SafetyNetTest, AutosavesOnItsTimerOffersRecoveryAndACleanQuitRemovesIt) {
  QTemporaryDir dir;
  const QString folder = dir.filePath(QStringLiteral("autosave"));
  {
    MainWindow window;
    window.show();
    window.safetyNet().setAutosaveFolder(folder);
    openDemo(window, DemoKind::SheppLogan, 32);
    runFdk(window);
    QSignalSpy autosaved(&window.safetyNet(), &SafetyNet::autosaved);
    window.safetyNet().startAutosave(50);  // injected: 50 ms instead of 5 minutes
    ASSERT_TRUE(autosaved.wait(10000)) << "no autosave";
    EXPECT_TRUE(QFileInfo::exists(window.safetyNet().autosavePath()));
    EXPECT_TRUE(QFileInfo::exists(folder + QStringLiteral("/run1.mhd")));
    // Autosaved is not saved: quitting would still ask.
    EXPECT_EQ(window.workspace().unsavedResultIndices().size(), 1u);
    // The window goes away without a clean quit, as in a crash.
  }
  MainWindow window;
  window.show();
  window.safetyNet().setAutosaveFolder(folder);
  ASSERT_TRUE(window.safetyNet().recoveryAvailable());
  QStringList questions;
  window.safetyNet().setAsker([&](const QString& q) {
    questions << q;
    return QMessageBox::Yes;
  });
  QSignalSpy restored(&window.safetyNet(), &SafetyNet::sessionRestored);
  ASSERT_TRUE(window.safetyNet().offerRecovery());
  ASSERT_TRUE(restored.count() > 0 || restored.wait(60000));
  ASSERT_EQ(questions.size(), 1);
  EXPECT_TRUE(questions[0].contains(QStringLiteral("Recover the previous session")));
  ASSERT_EQ(window.workspace().volumes().size(), 1u) << "the autosaved result came back";
  EXPECT_EQ(window.workspace().unsavedResultIndices().size(), 1u) << "still to be saved";
  window.safetyNet().startAutosave(60000);
  window.safetyNet().noteCleanExit();
  EXPECT_FALSE(QFileInfo::exists(window.safetyNet().autosavePath()));
  EXPECT_FALSE(window.safetyNet().recoveryAvailable());
}

}  // namespace
}  // namespace tomowb::gui
