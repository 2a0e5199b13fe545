// Issue #20's window path, as a new user takes it: simulate a tiny TOF-PET scan of the PET
// phantom in the window (ring-930, 2e5 prompts, a small grid), see the PET data panel's scanner
// and counts and a histo-image of one view, reconstruct it with DIRECT OSEM (3 iterations, CPU)
// on the run controller, watch the contrast recovery of the hot spheres rise on the contrast-
// recovery panel, and export the result through File > Export DICOM series… in PET mode into a
// temporary folder, read back with DCMTK: Modality PT, Units BQML, the frame duration of the
// acquisition. Also: a list-mode file opens as PET data, and a damaged one is refused in words
// for lab staff first. With TOMOWB_SCREENSHOT_DIR set it saves pet-*.png there.
#include <gtest/gtest.h>

#include <QAction>
#include <QComboBox>
#include <QDir>
#include <QDockWidget>
#include <QSettings>
#include <QSignalSpy>
#include <QStackedWidget>
#include <QTemporaryDir>
#include <QTest>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "gui/AlgorithmPanel.h"
#include "gui/DataPanel.h"
#include "gui/ExportFiles.h"
#include "gui/MainWindow.h"
#include "gui/PetAlgorithmPanel.h"
#include "gui/PetDataPanel.h"
#include "gui/PetQualityPanel.h"
#include "gui/PetSimulateDialog.h"
#include "gui/Resources.h"
#include "gui/ViewArea.h"
#include "gui/core/PetData.h"
#include "gui/core/PetRun.h"
#include "gui/core/RunController.h"
#include "gui/core/Workspace.h"
#include "recon/pet/ListModeFile.h"
#include "render/ChartView.h"
#include "support/GuiTestWait.h"
#ifdef TOMOWB_HAVE_DICOM
#include <dcmtk/dcmdata/dctk.h>

#include "gui/DicomExportDialog.h"
#include "recon/io/dicom/DicomImport.h"
#endif

namespace tomowb::gui {
namespace {

class PetWindowTest : public testing::Test {
 protected:
  void SetUp() override {
    initResources();
    QSettings().clear();
  }
  void TearDown() override { QSettings().clear(); }
};

// A tiny scan: seconds on two cores.
PetSimulationRequest tinyScan() {
  PetSimulationRequest r;
  r.scanner = "ring-930";
  r.prompts = 200'000;
  r.phantom.coldSpheres = true;
  r.voxelMm = 4.0;
  r.size = 96;   // 384 mm: the whole 350 mm cylinder
  r.slices = 9;  // 36 mm about the spheres' plane (a slice through z = 0)
  return r;
}

QString screenshotDir() {
  const char* dir = std::getenv("TOMOWB_SCREENSHOT_DIR");
  return dir != nullptr ? QString::fromLocal8Bit(dir) : QString();
}

void saveShot(QWidget& widget, const QString& name) {
  const QString dir = screenshotDir();
  if (dir.isEmpty()) return;
  QDir().mkpath(dir);
  QTest::qWait(400);  // let the VTK views and charts draw
  savePngAtomically(QDir(dir).filePath(name), widget.grab());
}

TEST_F(PetWindowTest, SimulateReconstructWatchContrastRecoveryAndExportPetDicom) {
  MainWindow window;
  window.resize(1500, 950);
  window.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&window));
  window.dataPanel().setShowsErrorDialogs(false);

  // File > Simulate PET scan…: the dialog's settings are what simulatePet takes.
  PetSimulateDialog dialog;
  dialog.setRequest(tinyScan());
  EXPECT_TRUE(dialog.problem().isEmpty()) << dialog.problem().toStdString();
  window.simulatePet(dialog.request());
  ASSERT_TRUE(test::waitFor([&] { return window.workspace().petData() != nullptr; }, 120000))
      << window.dataPanel().lastError().toStdString();
  const auto data = window.workspace().petData();
  EXPECT_EQ(data->promptCount(), 200'000);
  EXPECT_GT(data->delayedCount(), 0);

  // The PET data panel: scanner and counts, and one view's histo-image.
  auto* petDock = window.findChild<QDockWidget*>(QStringLiteral("petDataDock"));
  ASSERT_NE(petDock, nullptr);
  EXPECT_TRUE(petDock->isVisible());
  PetDataPanel& panel = window.petDataPanel();
  EXPECT_TRUE(panel.scannerText().contains(QStringLiteral("ring-930")));
  EXPECT_TRUE(panel.scannerText().contains(QStringLiteral("400 ps")));
  EXPECT_TRUE(panel.countsText().contains(QStringLiteral("Prompts: 200.0 k")))
      << panel.countsText().toStdString();
  ASSERT_TRUE(test::waitFor([&] { return panel.viewImage() != nullptr; }, 30000));
  double inView = 0;
  for (const float v : panel.viewImage()->voxels()) inView += v;
  EXPECT_GT(inView, 0.0);
  EXPECT_LT(inView, 200'000.0);
  panel.setView(panel.views().count() / 2);
  ASSERT_TRUE(test::waitFor([&] { return panel.viewImageView() == panel.views().count() / 2; }));
  EXPECT_TRUE(panel.viewText().contains(QStringLiteral("azimuth")));
  // The CT/ET docks step aside; the algorithm dock shows DIRECT.
  EXPECT_FALSE(window.findChild<QDockWidget*>(QStringLiteral("geometryDock"))->isVisible());
  auto* pages = window.findChild<QStackedWidget*>(QStringLiteral("algorithmPages"));
  ASSERT_NE(pages, nullptr);
  EXPECT_EQ(pages->currentWidget(), &window.petAlgorithmPanel());

  // DIRECT OSEM, 3 iterations on the CPU (20 x 1 views keep it short).
  PetAlgorithmPanel& algorithm = window.petAlgorithmPanel();
  EXPECT_FALSE(algorithm.forwardProjectorNames().isEmpty());
  PetRunSettings s = algorithm.settings();
  EXPECT_EQ(s.tofFwhmPs, 400.0);  // the scanner's
  EXPECT_TRUE(s.attenuationCorrection);
  EXPECT_TRUE(s.randomsCorrection);
  EXPECT_EQ(s.reference, PetReference::Simulation);
  s.algorithm = pet::EmAlgorithm::Osem;
  s.iterations = 3;
  s.subsets = 4;
  s.azimuths = 20;
  s.tilts = 1;
  s.device = VariantDevice::Cpu;
  s.forwardVariant.clear();
  s.backVariant.clear();
  algorithm.setSettings(s);
  QString why;
  ASSERT_TRUE(algorithm.validate(&why)) << why.toStdString();
  const int id = window.startRun();
  ASSERT_GT(id, 0);
  auto* quality = window.findChild<QDockWidget*>(QStringLiteral("petQualityDock"));
  ASSERT_NE(quality, nullptr);
  EXPECT_TRUE(quality->isVisible());
  ASSERT_TRUE(test::waitFor(
      [&] {
        const RunInfo* run = window.runs().run(id);
        return run != nullptr && run->state != RunState::Running && run->state != RunState::Queued;
      },
      240000));
  const RunInfo* run = window.runs().run(id);
  ASSERT_EQ(run->state, RunState::Finished) << run->error.toStdString();
  EXPECT_EQ(run->iterations.size(), 3u);

  // The contrast-recovery plot: 3 points per curve, the hot spheres' recovery rising.
  PetQualityPanel& crc = window.petQualityPanel();
  const std::vector<double> hot = crc.values(id, kCrcHotMetric);
  ASSERT_EQ(hot.size(), 3u);
  EXPECT_LT(hot[0], hot[1]);
  EXPECT_LT(hot[1], hot[2]);
  EXPECT_GT(hot[2], 0.05);
  EXPECT_EQ(crc.values(id, kCrcColdMetric).size(), 3u);
  EXPECT_EQ(crc.values(id, kNoiseMetric).size(), 3u);
  EXPECT_EQ(crc.crcChart().pointCount(crc.hotSeries(id)), 3);
  EXPECT_EQ(crc.noiseChart().pointCount(crc.noiseSeries(id)), 3);
  EXPECT_TRUE(crc.csvText().contains(QStringLiteral("crc_hot")));

  // The result is the current volume, in Bq/mL: the background near the phantom's 5300 Bq/mL.
  const NamedVolume* result = window.workspace().currentVolume();
  ASSERT_NE(result, nullptr);
  EXPECT_EQ(result->runId, id);
  EXPECT_TRUE(result->name.contains(QStringLiteral("Bq/mL"))) << result->name.toStdString();
  const Volume& image = *result->volume;
  double centre = 0;
  int count = 0;
  for (std::int64_t y = image.ny() / 2 - 3; y <= image.ny() / 2 + 3; ++y)
    for (std::int64_t x = image.nx() / 2 - 3; x <= image.nx() / 2 + 3; ++x) {
      centre += image.at(x, y, image.nz() / 2);
      ++count;
    }
  centre /= count;
  EXPECT_GT(centre, 0.5 * 5300.0);
  EXPECT_LT(centre, 2.0 * 5300.0);

#ifdef TOMOWB_HAVE_DICOM
  // File > Export DICOM series… on the PET result: PET mode, BQML, F-18, the frame duration.
  ASSERT_TRUE(window.exportDicomAction()->isEnabled());
  window.exportDicomAction()->trigger();
  DicomExportDialog* exportDialog = nullptr;
  ASSERT_TRUE(test::waitFor([&] {
    exportDialog = window.findChild<DicomExportDialog*>();
    return exportDialog != nullptr;
  }));
  exportDialog->setShowsErrorDialogs(false);
  const io::dicom::DicomExportOptions options = exportDialog->options();
  EXPECT_EQ(options.type, io::dicom::DicomObjectType::PetImage);
  EXPECT_EQ(io::dicom::petUnitsOf(options), "BQML");
  EXPECT_EQ(options.pet.radionuclide, "F-18");
  // (The dialog's frame duration field holds tenths of a second.)
  const std::int64_t frameMs = std::llround(data->header.acquisitionSeconds * 1000.0);
  EXPECT_NEAR(double(options.pet.actualFrameDurationMs), double(frameMs), 50.0);
  QTemporaryDir folder;
  ASSERT_TRUE(folder.isValid());
  const QString series = QDir(folder.path()).filePath(QStringLiteral("pet-series"));
  exportDialog->setOutputFolder(series);
  exportDialog->refreshSummary();
  ASSERT_TRUE(exportDialog->problem().isEmpty()) << exportDialog->problem().toStdString();
  // The window's dialog deletes itself once it has accepted (WA_DeleteOnClose): its outcome
  // comes from its signals, and the pointer is not used after the export (it dangled, and the
  // test read a freed dialog's outcome now and then under ctest -j2).
  QString succeeded, failed;
  QObject::connect(exportDialog, &DicomExportDialog::exportSucceeded,
                   [&](const QString& message) { succeeded = message; });
  QObject::connect(exportDialog, &DicomExportDialog::exportFailed,
                   [&](const QString& message) { failed = message; });
  ASSERT_TRUE(exportDialog->startExport());
  exportDialog = nullptr;
  ASSERT_TRUE(test::waitFor([&] { return !succeeded.isEmpty() || !failed.isEmpty(); }, 60000));
  ASSERT_TRUE(failed.isEmpty()) << failed.toStdString();

  // Read back with DCMTK: every file a PET image of the result, Units BQML.
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(series.toStdString()))
    if (entry.is_regular_file()) files.push_back(entry.path());
  ASSERT_EQ(files.size(), static_cast<std::size_t>(image.nz()));
  DcmFileFormat file;
  ASSERT_TRUE(file.loadFile(files.front().c_str()).good());
  OFString modality, units, duration, sopClass;
  file.getDataset()->findAndGetOFString(DCM_Modality, modality);
  file.getDataset()->findAndGetOFString(DCM_Units, units);
  file.getDataset()->findAndGetOFString(DCM_ActualFrameDuration, duration);
  file.getDataset()->findAndGetOFString(DCM_SOPClassUID, sopClass);
  EXPECT_EQ(std::string(modality.c_str()), "PT");
  EXPECT_EQ(std::string(units.c_str()), "BQML");
  EXPECT_EQ(std::string(sopClass.c_str()), UID_PositronEmissionTomographyImageStorage);
  EXPECT_NEAR(double(std::stoll(duration.c_str())), double(frameMs), 50.0);
  // And the workbench's reader takes the series back in Bq/mL.
  const JobContext context;
  const io::dicom::DicomVolume back = io::dicom::readDicomSeries(series.toStdString(), {}, context);
  EXPECT_EQ(back.units, "BQML");
  EXPECT_EQ(back.volume.shape(), image.shape());
#endif
}

// The PET demo as File > Open demo: TOF-PET phantom makes it (penn-labr3, 2e6 prompts), DIRECT
// OSEM 5 iterations of 2 subsets on the CPU: screenshots for docs/images (pet-*.png) when
// TOMOWB_SCREENSHOT_DIR is set; skipped otherwise (a minute on two cores).
TEST_F(PetWindowTest, PetDemoScreenshots) {
  const QString dir = screenshotDir();
  if (dir.isEmpty()) GTEST_SKIP() << "TOMOWB_SCREENSHOT_DIR is not set";
  MainWindow window;
  window.resize(1500, 950);
  window.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&window));
  window.openPetDemo();
  ASSERT_TRUE(test::waitFor([&] { return window.workspace().petData() != nullptr; }, 180000));
  QTest::qWait(300);
  ASSERT_TRUE(test::waitFor([&] { return window.petDataPanel().viewImage() != nullptr; }, 60000));
  saveShot(window, QStringLiteral("pet-data-panel.png"));
  savePngAtomically(QDir(dir).filePath(QStringLiteral("pet-data-dock.png")),
                    window.petDataPanel().grab());

  PetRunSettings s = window.petAlgorithmPanel().settings();
  s.iterations = 5;
  s.subsets = 2;  // 10 subset updates: contrast without the noise of many more
  s.device = VariantDevice::Cpu;
  s.forwardVariant.clear();
  s.backVariant.clear();
  window.petAlgorithmPanel().setSettings(s);
  const int id = window.startRun();
  ASSERT_GT(id, 0);
  ASSERT_TRUE(test::waitFor(
      [&] {
        const RunInfo* run = window.runs().run(id);
        return run != nullptr && (run->iterations.size() >= 2 || run->state != RunState::Running);
      },
      300000));
  saveShot(window, QStringLiteral("pet-during-run.png"));
  ASSERT_TRUE(test::waitFor(
      [&] {
        const RunInfo* run = window.runs().run(id);
        return run != nullptr && run->state != RunState::Running && run->state != RunState::Queued;
      },
      600000));
  ASSERT_EQ(window.runs().run(id)->state, RunState::Finished);
  PetQualityPanel& crc = window.petQualityPanel();
  crc.crcChart().flush();
  crc.noiseChart().flush();
  saveShot(window, QStringLiteral("pet-after-run.png"));
  crc.exportPng(QDir(dir).filePath(QStringLiteral("pet-contrast-recovery.png")));
  savePngAtomically(QDir(dir).filePath(QStringLiteral("pet-algorithm-panel.png")),
                    window.petAlgorithmPanel().grab());
  window.viewArea().saveScreenshot(QDir(dir).filePath(QStringLiteral("pet-views.png")));
#ifdef TOMOWB_HAVE_DICOM
  window.exportDicomAction()->trigger();
  DicomExportDialog* exportDialog = nullptr;
  ASSERT_TRUE(test::waitFor([&] {
    exportDialog = window.findChild<DicomExportDialog*>();
    return exportDialog != nullptr;
  }));
  QTest::qWait(500);
  savePngAtomically(QDir(dir).filePath(QStringLiteral("pet-dicom-export.png")),
                    exportDialog->grab());
  exportDialog->close();
#endif
}

TEST_F(PetWindowTest, ListModeFileOpensAsPetDataAndADamagedOneIsRefusedInPlainWords) {
  QTemporaryDir folder;
  ASSERT_TRUE(folder.isValid());
  // A small list-mode file: 1000 events of a simulated point source, written by the core.
  PetSimulationRequest r = tinyScan();
  r.prompts = 5000;
  r.size = 32;
  r.slices = 4;
  r.phantom.hotSphereCount = 0;
  JobContext context;
  const PetDataSet simulated = simulatePetScan(r, context);
  const QString good = QDir(folder.path()).filePath(QStringLiteral("scan.lm"));
  pet::writeListMode(good.toStdString(), simulated.header, *simulated.events);

  MainWindow window;
  window.resize(1200, 800);
  window.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&window));
  window.dataPanel().setShowsErrorDialogs(false);
  window.openFiles({good});
  ASSERT_TRUE(test::waitFor([&] { return window.workspace().petData() != nullptr; }, 30000))
      << window.dataPanel().lastError().toStdString();
  const auto data = window.workspace().petData();
  EXPECT_EQ(data->sourcePath, good);
  EXPECT_EQ(data->promptCount(), simulated.header.promptCount);
  EXPECT_EQ(data->events->size(), simulated.events->size());
  EXPECT_FALSE(data->simulatedHere());
  // No attenuation map comes with a file: the correction is off and disabled.
  EXPECT_FALSE(window.petAlgorithmPanel().settings().attenuationCorrection);
  EXPECT_EQ(window.petAlgorithmPanel().settings().reference, PetReference::DefaultPhantom);

  // Cut short: the reader's detail comes after what it means.
  const QString damaged = QDir(folder.path()).filePath(QStringLiteral("cut.lm"));
  {
    std::ifstream in(good.toStdString(), std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    bytes.resize(bytes.size() - 7);
    std::ofstream out(damaged.toStdString(), std::ios::binary);
    out << bytes;
  }
  QSignalSpy failed(&window.dataPanel(), &DataPanel::loadFailed);
  window.openFiles({damaged});
  ASSERT_TRUE(failed.wait(30000));
  const QString message = failed.front().front().toString();
  EXPECT_TRUE(message.startsWith(QStringLiteral("cut.lm "))) << message.toStdString();
  EXPECT_TRUE(message.contains(QStringLiteral("Details: "))) << message.toStdString();
  EXPECT_LT(message.indexOf(QStringLiteral("Details: ")),
            message.indexOf(QStringLiteral("cut.lm:")))
      << message.toStdString();
  // The good data stay open.
  EXPECT_EQ(window.workspace().petData(), data);
}

}  // namespace
}  // namespace tomowb::gui
