// The workbench window under Xvfb: it opens the demo, runs CPU FDK and shows the result in the
// views, cancels and restarts a run, survives a bad file with an error dialog naming it, and
// remembers its layout; the process never loads Qt 5.
#include <gtest/gtest.h>

#include <QAction>
#include <QApplication>
#include <QDockWidget>
#include <QFile>
#include <QMessageBox>
#include <QSettings>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTest>
#include <QTimer>
#include <QTreeWidget>
#include <cstdio>
#include <fstream>
#include <string>

#include "gui/AlgorithmPanel.h"
#include "gui/CnrPanel.h"
#include "gui/ConsistencyView.h"
#include "gui/ConvergencePanel.h"
#include "gui/DataPanel.h"
#include "gui/GeometryPanel.h"
#include "gui/MainWindow.h"
#include "gui/Resources.h"
#include "gui/ViewArea.h"
#include "gui/core/DemoData.h"
#include "gui/core/EventLoopMonitor.h"
#include "gui/core/RunController.h"
#include "gui/core/Workspace.h"
#include "recon/geometry/ScanBuilders.h"
#include "recon/io/VolumeFiles.h"
#include "render/ChartView.h"
#include "support/TestSupport.h"

namespace tomowb::gui {
namespace {

class MainWindowTest : public testing::Test {
 protected:
  void SetUp() override {
    initResources();
    QSettings().clear();
  }
  void TearDown() override { QSettings().clear(); }

  // Opens the small demo and waits until its projections are in the workspace.
  static void openSmallDemo(MainWindow& window) {
    QSignalSpy loaded(&window.workspace(), &Workspace::projectionsChanged);
    window.openDemo(DemoKind::SheppLogan, 32);
    ASSERT_TRUE(loaded.wait(30000)) << "the demo did not load";
    ASSERT_TRUE(window.workspace().projections());
  }
};

// Fraction of distinct grey levels in an image: a blank or uniform view has very few.
int distinctColours(const QImage& image) {
  QSet<QRgb> colours;
  for (int y = 0; y < image.height(); y += 2)
    for (int x = 0; x < image.width(); x += 2) colours.insert(image.pixel(x, y));
  return static_cast<int>(colours.size());
}

TEST_F(MainWindowTest, OpensTheDemoRunsCpuFdkAndShowsTheResult) {
  MainWindow window;
  window.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&window));
  const QImage before = window.viewArea().grab().toImage();
  openSmallDemo(window);
  window.algorithmPanel().setVolumeEdge(32);
  QSignalSpy finished(&window.runs(), &RunController::runFinished);
  const int id = window.startRun();
  ASSERT_GT(id, 0);
  ASSERT_TRUE(finished.wait(60000)) << "the run did not finish";
  QTest::qWait(300);
  const NamedVolume* shown = window.workspace().currentVolume();
  ASSERT_NE(shown, nullptr);
  EXPECT_EQ(shown->runId, id);
  EXPECT_EQ(shown->volume->nx(), 32);
  const QImage after = window.viewArea().grab().toImage();
  EXPECT_GT(distinctColours(after), 20) << "the views show no reconstructed slices";
  (void)before;
}

TEST_F(MainWindowTest, CancelsARunKeepingNothingAndRunsAgain) {
  MainWindow window;
  window.show();
  openSmallDemo(window);
  // Long enough to cancel in the middle on any machine: on the CPU (a GPU finishes before the
  // cancel) with one thread (16 cores finished 160^3 before it on the GPU machine, 2026-11-27).
  window.algorithmPanel().setVolumeEdge(192);
  window.algorithmPanel().setDevice(-1);
  auto* threads = window.algorithmPanel().findChild<QSpinBox*>(QStringLiteral("cpuThreads"));
  ASSERT_NE(threads, nullptr);
  threads->setValue(1);
  QSignalSpy progress(&window.runs(), &RunController::runProgress);
  QSignalSpy cancelled(&window.runs(), &RunController::runCancelled);
  const int first = window.startRun();
  ASSERT_GT(first, 0);
  ASSERT_TRUE(progress.wait(30000));
  QElapsedTimer clock;
  clock.start();
  window.cancelRun();
  ASSERT_TRUE(cancelled.count() > 0 || cancelled.wait(5000));
  EXPECT_LT(clock.elapsed(), 1500);
  EXPECT_FALSE(window.runs().run(first)->result);
  EXPECT_EQ(window.workspace().volumes().size(), 0u) << "a cancelled run added a volume";

  window.algorithmPanel().setVolumeEdge(24);
  QSignalSpy finished(&window.runs(), &RunController::runFinished);
  const int second = window.startRun();
  ASSERT_GT(second, first);
  ASSERT_TRUE(finished.wait(60000));
  EXPECT_EQ(window.workspace().currentVolume()->runId, second);
}

TEST_F(MainWindowTest, RunsSirtOnTheEtDemoAndWatchesTheResidualFall) {
  MainWindow window;
  window.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&window));
  QSignalSpy loaded(&window.workspace(), &Workspace::projectionsChanged);
  window.openDemo(DemoKind::ElectronTomography, 16);
  ASSERT_TRUE(loaded.wait(30000)) << "the ET demo did not load";
  EXPECT_EQ(window.algorithmPanel().algorithm(), "sirt");
  iterative::IterativeParams p = window.algorithmPanel().iterativeParams();
  p.iterations = 6;
  window.algorithmPanel().setIterativeParams(p);
  QSignalSpy finished(&window.runs(), &RunController::runFinished);
  const int id = window.startRun();
  ASSERT_GT(id, 0);
  EXPECT_EQ(window.runs().run(id)->spec.algorithm, "sirt");
  auto* convergence = window.findChild<QDockWidget*>(QStringLiteral("convergenceDock"));
  ASSERT_NE(convergence, nullptr);
  EXPECT_TRUE(convergence->isVisible()) << "an iterative run shows its convergence";
  ASSERT_TRUE(finished.wait(120000)) << window.runs().run(id)->error.toStdString();
  QTest::qWait(300);
  ConvergencePanel& panel = window.convergencePanel();
  const QString curve = panel.seriesName(id);
  ASSERT_FALSE(curve.isEmpty());
  const std::vector<double> residuals = panel.upperChart().yValues(curve);
  ASSERT_EQ(residuals.size(), 6u);
  EXPECT_LT(residuals.back(), residuals.front());
  const NamedVolume* shown = window.workspace().currentVolume();
  ASSERT_NE(shown, nullptr);
  EXPECT_EQ(shown->runId, id);
  EXPECT_EQ(shown->volume->shape(), (VolumeShape{32, 8, 8}));
  EXPECT_GT(distinctColours(window.viewArea().grab().toImage()), 20);

  // CGLS from the same form: its own curve, its residual falling, its volume shown.
  window.algorithmPanel().setAlgorithm("cgls");
  p = window.algorithmPanel().iterativeParams();
  p.iterations = 5;
  window.algorithmPanel().setIterativeParams(p);
  const int cgls = window.startRun();
  ASSERT_GT(cgls, id);
  EXPECT_EQ(window.runs().run(cgls)->spec.algorithm, "cgls");
  ASSERT_TRUE(finished.wait(120000)) << window.runs().run(cgls)->error.toStdString();
  QTest::qWait(300);
  const QString cglsCurve = panel.seriesName(cgls);
  ASSERT_FALSE(cglsCurve.isEmpty()) << "a CGLS run draws its convergence curve";
  const std::vector<double> cglsResiduals = panel.upperChart().yValues(cglsCurve);
  ASSERT_EQ(cglsResiduals.size(), 5u);
  EXPECT_LT(cglsResiduals.back(), cglsResiduals.front());
  EXPECT_EQ(window.workspace().currentVolume()->runId, cgls);
}

TEST_F(MainWindowTest, ABadFileGivesADialogNamingItAndTheWindowStaysUsable) {
  test::TempDir dir;
  const std::string path = (dir.path() / "broken.mhd").string();
  {
    std::ofstream out(path);
    out << "ObjectType = Image\nNDims = 3\nDimSize = 100000 100000 100000\nElementType = "
           "MET_FLOAT\nElementDataFile = missing.raw\n";
  }
  MainWindow window;
  window.show();
  QString dialogText;
  QTimer closer;
  closer.setInterval(50);
  QObject::connect(&closer, &QTimer::timeout, [&] {
    if (auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget())) {
      dialogText = box->text() + QLatin1Char(' ') + box->informativeText();
      box->done(QMessageBox::Ok);
    }
  });
  closer.start();
  window.openFiles({QString::fromStdString(path)});
  for (int i = 0; i < 200 && dialogText.isEmpty(); ++i) QTest::qWait(50);
  ASSERT_FALSE(dialogText.isEmpty()) << "no error dialog appeared";
  EXPECT_TRUE(dialogText.contains(QStringLiteral("broken.mhd"))) << dialogText.toStdString();
  // Still usable: the demo opens afterwards.
  openSmallDemo(window);
}

TEST_F(MainWindowTest, RemembersItsLayoutAcrossRestarts) {
  {
    MainWindow window;
    window.show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(&window));
    auto* runLog = window.findChild<QDockWidget*>(QStringLiteral("runLogDock"));
    ASSERT_NE(runLog, nullptr);
    runLog->hide();
    window.resize(1234, 876);
    window.close();  // saves the settings
  }
  MainWindow again;
  again.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&again));
  auto* runLog = again.findChild<QDockWidget*>(QStringLiteral("runLogDock"));
  ASSERT_NE(runLog, nullptr);
  EXPECT_FALSE(runLog->isVisible()) << "the hidden dock came back";
  EXPECT_EQ(again.size(), QSize(1234, 876));
}

// Issue #17: after the demo, the user's own projections were "predicted" from the demo's phantom
// (99 % difference). New projections are a new data set: the old phantom, its "truth" entry, the
// ROIs and the demo's reconstruction no longer predict or measure anything of them.
// A user's cone-beam scan: 20 views of 24 x 16, no phantom behind it.
std::shared_ptr<ProjectionStack> usersScan() {
  CircularConeParams c;
  c.sourceToIsocentreMm = 500;
  c.sourceToDetectorMm = 1000;
  c.detector.cols = 24;
  c.detector.rows = 16;
  c.anglesRad = fullScanAnglesRad(20);
  auto scan = std::make_shared<ProjectionStack>(circularConeBeam(c));
  for (float& p : scan->pixels()) p = 0.25f;
  return scan;
}

TEST_F(MainWindowTest, OpeningOtherProjectionsDropsTheDemoPhantomRoisAndResults) {
  MainWindow window;
  window.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&window));
  auto* consistency = window.findChild<ConsistencyView*>();
  ASSERT_NE(consistency, nullptr);
  QSignalSpy predicted(consistency, &ConsistencyView::resultReady);
  openSmallDemo(window);
  ASSERT_TRUE(window.workspace().phantom());
  // The demo's own views are predicted from its phantom.
  ASSERT_TRUE(predicted.wait(30000)) << consistency->summary().toStdString();
  EXPECT_LT(predicted.last()[0].toDouble(), 0.05);
  // A reconstruction of the demo and an ROI on it.
  window.algorithmPanel().setVolumeEdge(32);
  QSignalSpy finished(&window.runs(), &RunController::runFinished);
  ASSERT_GT(window.startRun(), 0);
  ASSERT_TRUE(finished.wait(60000)) << "the run did not finish";
  render::SliceRoi roi;
  roi.axis = 2;
  roi.role = render::SliceRoi::Signal;
  roi.halfSizeMm = Eigen::Vector2d(5, 5);
  window.viewArea().setRois({roi});
  ASSERT_FALSE(window.viewArea().rois().empty());

  // Another projection set (a scan with no phantom behind it).
  test::TempDir dir;
  io::writeProjections(dir / "scan.json", *usersScan());
  QSignalSpy replaced(&window.workspace(), &Workspace::dataSetReplaced);
  predicted.clear();
  window.openFiles({QString::fromStdString((dir / "scan.json").string())});
  ASSERT_TRUE(replaced.wait(30000)) << "the scan did not load";
  QTest::qWait(500);
  EXPECT_EQ(window.workspace().projections()->viewCount(), 20);
  EXPECT_FALSE(window.workspace().phantom());
  EXPECT_FALSE(window.workspace().cnrPhantom());
  EXPECT_TRUE(window.viewArea().rois().empty());
  // The Data panel no longer offers the demo phantom as "the truth for metrics".
  EXPECT_FALSE(window.dataPanel()
                   .findChild<QTreeWidget*>()
                   ->findItems(QStringLiteral("Phantom"), Qt::MatchStartsWith | Qt::MatchRecursive)
                   .size() > 0);
  // Nothing predicts the scan: not the demo phantom, not the demo's reconstruction (still shown).
  ASSERT_NE(window.workspace().currentVolume(), nullptr);
  EXPECT_TRUE(predicted.isEmpty()) << "predicted " << predicted.last()[0].toDouble();
  EXPECT_TRUE(consistency->summary().startsWith(QStringLiteral("Nothing to predict")))
      << consistency->summary().toStdString();
  // A reconstruction of the scan itself predicts it again.
  ASSERT_GT(window.startRun(), 0);
  ASSERT_TRUE(finished.wait(60000)) << "the scan's run did not finish";
  QTest::qWait(300);
  window.workspace().setCurrentVolume(static_cast<int>(window.workspace().volumes().size()) - 1);
  EXPECT_TRUE(predicted.wait(30000) || !predicted.isEmpty())
      << consistency->summary().toStdString();
}

// Issue #21, points 1, 4 and 5: the demo shows its data at once, with no warning it caused
// itself, on a grid of the size asked for, in units that fit it; a run replaces the data with the
// reconstruction; other data take their own units.
TEST_F(MainWindowTest, TheDemoShowsItsDataCleanlyAndOtherDataTakeTheirOwnUnits) {
  MainWindow window;
  window.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&window));
  openSmallDemo(window);
  QTest::qWait(300);
  auto* geometry = window.findChild<GeometryPanel*>();
  ASSERT_NE(geometry, nullptr);
  EXPECT_TRUE(window.viewArea().showsProjections()) << "the views stay black until a run";
  EXPECT_EQ(window.viewArea().volume()->nz(), window.workspace().projections()->viewCount());
  EXPECT_GT(distinctColours(window.viewArea().grabViews()), 20) << "the projections look blank";
  EXPECT_EQ(geometry->warnings().join("\n").indexOf("Truncation"), -1)
      << geometry->warnings().join("\n").toStdString();
  EXPECT_TRUE(window.viewArea().displayUnits().huAvailable());  // the phantom knows water's mu
  if (const QString dir = qEnvironmentVariable("TOMOWB_SCREENSHOT_DIR"); !dir.isEmpty())
    window.grab().save(dir + "/demo-loaded-projections.png");

  QSignalSpy finished(&window.runs(), &RunController::runFinished);
  ASSERT_GT(window.startRun(), 0);
  ASSERT_TRUE(finished.wait(60000)) << "the run did not finish";
  QTest::qWait(500);
  EXPECT_FALSE(window.viewArea().showsProjections());
  // --demo-size 32 reconstructs 32^3 voxels (not the field of view's own grid).
  EXPECT_EQ(window.viewArea().volume()->shape(), (VolumeShape{32, 32, 32}));
  EXPECT_EQ(geometry->warnings().join("\n").indexOf("Truncation"), -1)
      << geometry->warnings().join("\n").toStdString();
  if (const QString dir = qEnvironmentVariable("TOMOWB_SCREENSHOT_DIR"); !dir.isEmpty())
    window.grab().save(dir + "/demo-after-run.png");

  // A tilt series: nm and XY/XZ/YZ, no HU; its projections in the views, the CT result aside.
  QSignalSpy loaded(&window.workspace(), &Workspace::projectionsChanged);
  window.openDemo(DemoKind::ElectronTomography, 16);
  ASSERT_TRUE(loaded.wait(30000)) << "the ET demo did not load";
  QTest::qWait(300);
  EXPECT_EQ(window.viewArea().displayUnits().lengthUnit(), LengthUnit::Nanometre);
  EXPECT_FALSE(window.viewArea().displayUnits().huAvailable());
  EXPECT_EQ(window.viewArea().sliceViews()[0]->viewName(), "XY");
  EXPECT_TRUE(window.viewArea().showsProjections());
}

TEST_F(MainWindowTest, AUsersCtShowsHuOnlyWithTheWaterValueTheyGiveAndOnlyForThoseData) {
  MainWindow window;
  window.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&window));
  const std::shared_ptr<ProjectionStack> scan = usersScan();
  window.workspace().setProjections(scan, QStringLiteral("scan.json"));
  QTest::qWait(100);
  auto* hu = window.findChild<QAction*>(QStringLiteral("huDisplayAction"));
  ASSERT_NE(hu, nullptr);
  EXPECT_FALSE(window.viewArea().displayUnits().huAvailable()) << "no phantom, no water value";
  EXPECT_FALSE(hu->isEnabled());

  // View > Water value for HU… sets it on the workspace.
  window.workspace().setWaterValuePerMm(0.0205);
  EXPECT_TRUE(window.viewArea().displayUnits().huAvailable());
  EXPECT_EQ(window.viewArea().displayUnits().waterPerMm(), 0.0205);
  EXPECT_TRUE(hu->isEnabled());
  hu->trigger();
  EXPECT_TRUE(window.viewArea().displayUnits().showsHu());
  EXPECT_NEAR(window.viewArea().displayUnits().toDisplay(0.0205), 0.0, 1e-9);
  window.workspace().setWaterValuePerMm(-1.0);  // nonsense: no water value
  EXPECT_FALSE(window.viewArea().displayUnits().huAvailable());

  // Other data: the value stayed with the data it was given for.
  window.workspace().setWaterValuePerMm(0.0205);
  window.workspace().setProjections(scan, QStringLiteral("another.json"));
  QTest::qWait(100);
  EXPECT_FALSE(window.workspace().waterValuePerMm().has_value());
  EXPECT_FALSE(window.viewArea().displayUnits().huAvailable());
}

TEST_F(MainWindowTest, TheEventLoopKeepsRunningDuringARun) {
  MainWindow window;
  window.show();
  openSmallDemo(window);
  window.algorithmPanel().setVolumeEdge(96);
  QSignalSpy finished(&window.runs(), &RunController::runFinished);
  window.eventLoopMonitor().reset();
  ASSERT_GT(window.startRun(), 0);
  ASSERT_TRUE(finished.wait(120000));
  // Not a timing assertion (benchmarks measure the 256^3 case): a frozen loop shows up as
  // stalls of seconds, which would mean the run blocked the GUI thread.
  std::printf("[ info     ] longest event-loop stall during a 96^3 CPU FDK run: %.1f ms\n",
              window.eventLoopMonitor().maxStallMs());
  EXPECT_LT(window.eventLoopMonitor().maxStallMs(), 2000.0);
}

TEST(NoQt5, TheApplicationNeverLinksOrLoadsQt5) {
  // Linked: nothing of Qt 5 in tomowb's dependencies.
  const std::string command = std::string("ldd '") + TOMOWB_GUI_PATH + "' 2>&1";
  FILE* pipe = popen(command.c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  std::string output;
  char buffer[4096];
  while (fgets(buffer, sizeof buffer, pipe) != nullptr) output += buffer;
  ASSERT_EQ(pclose(pipe), 0) << output;
  EXPECT_NE(output.find("libQt6Widgets"), std::string::npos) << output;
  std::string lower = output;
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  EXPECT_EQ(lower.find("qt5"), std::string::npos) << "tomowb links Qt 5:\n" << output;
  // Loaded: this test process (which hosts the whole GUI library) maps no Qt 5 library.
  initResources();
  MainWindow window;
  window.show();
  QTest::qWait(100);
  std::ifstream maps("/proc/self/maps");
  std::string line;
  while (std::getline(maps, line)) {
    for (char& c : line) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    EXPECT_EQ(line.find("libqt5"), std::string::npos) << line;
  }
}

}  // namespace
}  // namespace tomowb::gui
