// The cluster dialog under Xvfb against a real single-node SLURM (tests/support/SlurmTestCluster.h;
// skipped, saying so, where SLURM is not installed): a profile made in the form is saved where
// `tomowb-cli cluster` finds it; the window's FDK of a projections file goes to the cluster in
// slabs over 2 ranks; the job list follows it to "result landed" with its progress bar full while
// the GUI thread stays free; Open result loads the volume into the window, bit for bit the
// volume the same command gives here. A bad partition is refused with sbatch's words in the
// status line, and a demo only in memory cannot be submitted, saying why. With
// TOMOWB_SCREENSHOT_DIR set the dialog is saved as cluster-dialog.png (docs/images).
#include <gtest/gtest.h>

#include <QComboBox>
#include <QDir>
#include <QElapsedTimer>
#include <QLabel>
#include <QLineEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTableWidget>
#include <QTest>

#include "cli/CliRun.h"
#include "gui/AlgorithmPanel.h"
#include "gui/ClusterDialog.h"
#include "gui/MainWindow.h"
#include "gui/Resources.h"
#include "gui/core/DemoData.h"
#include "gui/core/Workspace.h"
#include "recon/cluster/ClusterProfile.h"
#include "recon/core/Volume.h"
#include "recon/io/VolumeFiles.h"
#include "support/GuiTestWait.h"
#include "support/SlurmTestCluster.h"
#include "support/TestSupport.h"

namespace tomowb::gui {
namespace {

using test::waitFor;

class ClusterDialogTest : public testing::Test {
 protected:
  static void SetUpTestSuite() {
    cluster_ = std::make_unique<test::SlurmTestCluster>(std::string(TOMOWB_TEST_DATA_DIR) +
                                                        "/../support/slurm-single-node.sh");
  }
  static void TearDownTestSuite() { cluster_.reset(); }
  void SetUp() override {
    initResources();
    QSettings().clear();
    if (!cluster_->installed()) GTEST_SKIP() << test::SlurmTestCluster::notInstalled();
    ASSERT_TRUE(cluster_->startError().empty()) << cluster_->startError();
  }
  void TearDown() override { QSettings().clear(); }

  void fillProfile(ClusterDialog& dialog, const QString& partition) {
    dialog.nameEdit().setText(QStringLiteral("gui-test"));
    dialog.partitionEdit().setText(partition);
    dialog.tasksSpin().setValue(2);
    dialog.workFolderEdit().setText(QString::fromStdString((dir_ / "jobs").string()));
    dialog.cliEdit().setText(QStringLiteral(TOMOWB_CLI_PATH));
  }

  test::TempDir dir_;
  static inline std::unique_ptr<test::SlurmTestCluster> cluster_;
};

TEST_F(ClusterDialogTest, SubmitsTheWindowsFdkFollowsItAndOpensTheResult) {
  const std::string scan = (dir_ / "scan.json").string();
  ASSERT_EQ(test::runCli("-q phantom -o " + scan + " --cols 48 --rows 48 --views 72").exitCode, 0);
  MainWindow window;
  window.resize(1400, 900);
  window.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&window));
  QSignalSpy loaded(&window.workspace(), &Workspace::projectionsChanged);
  window.openFiles({QString::fromStdString(scan)});
  ASSERT_TRUE(loaded.wait(60000)) << "the projections did not load";
  window.algorithmPanel().setVolumeEdge(40);

  ClusterDialog* dialog = window.showClusterDialog();
  ASSERT_NE(dialog, nullptr);
  ASSERT_TRUE(QTest::qWaitForWindowExposed(dialog));
  fillProfile(*dialog, QStringLiteral("test"));
  ASSERT_TRUE(dialog->saveProfile()) << dialog->statusLine().text().toStdString();
  EXPECT_TRUE(QFileInfo::exists(QString::fromStdString(cluster::profilePath("gui-test").string())));
  EXPECT_EQ(dialog->profileChoice().currentText(), QStringLiteral("gui-test"));
  dialog->slabSlicesSpin().setValue(8);
  const QString output = QString::fromStdString((dir_ / "cluster-fdk.raw").string());
  dialog->outputEdit().setText(output);

  QString why;
  ASSERT_TRUE(dialog->canSubmit(&why)) << why.toStdString();
  QSignalSpy submitted(dialog, &ClusterDialog::submitted);
  QTest::mouseClick(&dialog->submitButton(), Qt::LeftButton);
  // The GUI thread is free while sbatch runs on the worker: events keep being processed.
  ASSERT_TRUE(submitted.wait(30000)) << dialog->statusLine().text().toStdString();
  const std::string id = submitted.front().front().toString().toStdString();
  ASSERT_EQ(dialog->rowOf(id), 0) << "the new job heads the list";
  EXPECT_EQ(dialog->table().rowCount(), 1);

  ASSERT_TRUE(waitFor([&] { return cluster::isFinal(dialog->statusOf(id).state); }, 60000))
      << dialog->statusOf(id).summary();
  const cluster::JobStatus s = dialog->statusOf(id);
  ASSERT_EQ(s.state, cluster::JobState::Done) << s.summary() << "\n" << s.logTail;
  EXPECT_TRUE(s.outputPresent);
  const int row = dialog->rowOf(id);
  EXPECT_TRUE(dialog->table().item(row, ClusterDialog::State)->text().contains("landed"));
  auto* bar = qobject_cast<QProgressBar*>(dialog->table().cellWidget(row, ClusterDialog::Progress));
  ASSERT_NE(bar, nullptr);
  EXPECT_EQ(bar->value(), bar->maximum());

  if (const char* dir = std::getenv("TOMOWB_SCREENSHOT_DIR"))  // NOLINT(concurrency-mt-unsafe)
    dialog->grab().save(QDir(dir).filePath(QStringLiteral("cluster-dialog.png")));

  // Open result: the volume comes into the window, as the same command gives it here.
  dialog->table().selectRow(row);
  ASSERT_TRUE(dialog->openButton().isEnabled());
  const std::size_t before = window.workspace().volumes().size();
  QTest::mouseClick(&dialog->openButton(), Qt::LeftButton);
  ASSERT_TRUE(waitFor([&] { return window.workspace().volumes().size() > before; }, 60000));
  const Volume cluster = io::readVolume(output.toStdString());
  EXPECT_EQ(cluster.shape().nx, 40);
  const std::string local = (dir_ / "local.raw").string();
  const cluster::ClusterJob& job = dialog->jobs().front();
  std::string args = "-q --no-record";
  for (std::size_t i = 0; i < job.arguments.size(); ++i) {
    const bool isOut = i > 0 && job.arguments[i - 1] == "-o";
    args += " '" + (isOut ? local : job.arguments[i]) + "'";
  }
  ASSERT_EQ(test::runCli(args).exitCode, 0) << args;
  const Volume here = io::readVolume(local);
  ASSERT_EQ(here.voxelCount(), cluster.voxelCount());
  EXPECT_TRUE(std::equal(here.data(), here.data() + here.voxelCount(), cluster.data()));
  dialog->close();
}

TEST_F(ClusterDialogTest, ABadPartitionIsRefusedWithSbatchsWordsAndADemoCannotGo) {
  MainWindow window;
  window.resize(1400, 900);
  window.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&window));
  QSignalSpy loaded(&window.workspace(), &Workspace::projectionsChanged);
  window.openDemo(DemoKind::SheppLogan, 32);
  ASSERT_TRUE(loaded.wait(60000));
  ClusterDialog dialog(window.workspace(), window.algorithmPanel(), &window);
  dialog.show();
  fillProfile(dialog, QStringLiteral("no-such-partition"));
  QString why;
  EXPECT_FALSE(dialog.canSubmit(&why));
  EXPECT_TRUE(why.contains(QStringLiteral("only in memory"))) << why.toStdString();
  EXPECT_FALSE(dialog.submit());

  const std::string scan = (dir_ / "scan.json").string();
  ASSERT_EQ(test::runCli("-q phantom -o " + scan + " --cols 32 --rows 32 --views 40").exitCode, 0);
  window.openFiles({QString::fromStdString(scan)});
  ASSERT_TRUE(waitFor([&] { return !window.workspace().projectionsPath().isEmpty(); }, 60000));
  QSignalSpy failed(&dialog, &ClusterDialog::submitFailed);
  ASSERT_TRUE(dialog.submit()) << dialog.statusLine().text().toStdString();
  ASSERT_TRUE(failed.wait(30000));
  const QString message = dialog.statusLine().text();
  EXPECT_TRUE(message.contains(QStringLiteral("invalid partition"))) << message.toStdString();
  EXPECT_TRUE(message.contains(QStringLiteral("no-such-partition"))) << message.toStdString();
}

}  // namespace
}  // namespace tomowb::gui
