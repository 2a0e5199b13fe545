// File > Export DICOM series… and DICOM read-back in the window (issue #8): the dialog exports a
// small volume on a worker thread into a series that readDicomSeries reads back with the same
// grid (and the crop and slice range asked for); a cancel leaves neither the folder nor a
// temporary sibling; a non-empty folder is only replaced when the user agrees; a bad selection
// shows the core's error in the summary with Export disabled; a second series joins the study of
// the first. LoadTask and the Data panel open a DICOM folder as a volume (asking which series
// when there are several), a TIFF folder stays a TIFF series, and the window exports its demo
// reconstruction with the run's provenance. Set TOMOWB_SCREENSHOT_DIR to keep a picture of the
// dialog (docs/images/dicom-export.png).
#ifdef TOMOWB_HAVE_DICOM

#include <gtest/gtest.h>

#include <QAction>
#include <QCheckBox>
#include <QComboBox>
#include <QDateTimeEdit>
#include <QDialogButtonBox>
#include <QDoubleSpinBox>
#include <QLabel>
#include <QLineEdit>
#include <QPointer>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStatusBar>
#include <QTest>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <thread>

#include "gui/AlgorithmPanel.h"
#include "gui/DataPanel.h"
#include "gui/DicomExportDialog.h"
#include "gui/MainWindow.h"
#include "gui/Resources.h"
#include "gui/core/DemoData.h"
#include "gui/core/LoadTask.h"
#include "gui/core/RunController.h"
#include "gui/core/Workspace.h"
#include "recon/io/VolumeFiles.h"
#include "recon/io/dicom/DicomExport.h"
#include "recon/io/dicom/DicomImport.h"
#include "recon/job/JobContext.h"
#include "support/TestSupport.h"

namespace tomowb::gui {
namespace {

namespace fs = std::filesystem;

constexpr double kWater = 0.0206;  // /mm, the dialog's default

QString qpath(const fs::path& p) {
  return QString::fromStdString(p.string());
}

// 24 x 20 x 6 voxels, anisotropic, off-centre: water with a denser block and a gradient, so
// every slice differs and the preview has something to show.
std::shared_ptr<Volume> syntheticVolume() {
  auto v = std::make_shared<Volume>(VolumeShape{24, 20, 6}, Eigen::Vector3d(0.5, 0.6, 1.25),
                                    Eigen::Vector3d(-5.0, -4.0, 2.0));
  for (std::int64_t z = 0; z < v->nz(); ++z)
    for (std::int64_t y = 0; y < v->ny(); ++y)
      for (std::int64_t x = 0; x < v->nx(); ++x) {
        const bool block = x >= 6 && x < 14 && y >= 5 && y < 12;
        v->at(x, y, z) = static_cast<float>(kWater * (1.0 + 0.01 * double(x) + 0.02 * double(z)) +
                                            (block ? 0.01 : 0.0));
      }
  return v;
}

io::dicom::DicomProvenance fdkProvenance() {
  io::dicom::DicomProvenance p;
  p.algorithm = "FDK";
  p.variant = "fdk.bp.cpu";
  p.sourceDescription = "test";
  return p;
}

std::vector<fs::path> entries(const fs::path& folder) {
  std::vector<fs::path> names;
  if (!fs::exists(folder)) return names;
  for (const auto& e : fs::directory_iterator(folder)) names.push_back(e.path().filename());
  std::sort(names.begin(), names.end());
  return names;
}

io::dicom::DicomVolume readBack(const fs::path& folder) {
  JobContext context;
  return io::dicom::readDicomSeries(folder, {}, context);
}

class DicomExportDialogTest : public testing::Test {
 protected:
  void SetUp() override {
    QSettings().clear();
    DicomExportDialog::forgetPreviousStudy();
  }
  void TearDown() override {
    QSettings().clear();
    DicomExportDialog::forgetPreviousStudy();
  }
  // The dialog for `volume` with nothing modal: tests answer the questions themselves.
  std::unique_ptr<DicomExportDialog> makeDialog(std::shared_ptr<const Volume> volume,
                                                const fs::path& folder) {
    auto dialog = std::make_unique<DicomExportDialog>(std::move(volume), QStringLiteral("test"),
                                                      fdkProvenance());
    dialog->setShowsErrorDialogs(false);
    dialog->setReplaceConfirmation([this](const QString&) {
      ++replaceQuestions;
      return replaceAnswer;
    });
    dialog->setOutputFolder(qpath(folder));
    return dialog;
  }
  static bool exportAndWait(DicomExportDialog& dialog) {
    if (!dialog.startExport()) return false;
    return dialog.waitForExport(60000);
  }

  test::TempDir dir;
  int replaceQuestions = 0;
  bool replaceAnswer = false;
};

TEST_F(DicomExportDialogTest, ExportsASeriesThatReadsBackWithTheSameShapeAndSpacing) {
  const auto volume = syntheticVolume();
  const fs::path folder = dir / "series";
  auto dialog = makeDialog(volume, folder);
  EXPECT_TRUE(dialog->problem().isEmpty()) << dialog->problem().toStdString();
  EXPECT_TRUE(dialog->exportButton()->isEnabled());
  auto* summary = dialog->findChild<QLabel*>(QStringLiteral("dicomSummary"));
  ASSERT_NE(summary, nullptr);
  EXPECT_TRUE(summary->text().contains(QStringLiteral("6 files"))) << summary->text().toStdString();
  EXPECT_TRUE(summary->text().contains(QStringLiteral("HU"))) << summary->text().toStdString();
  auto* preview = dialog->findChild<QLabel*>(QStringLiteral("dicomPreview"));
  ASSERT_NE(preview, nullptr);
  EXPECT_FALSE(preview->pixmap().isNull());

  QSignalSpy succeeded(dialog.get(), &DicomExportDialog::exportSucceeded);
  ASSERT_TRUE(exportAndWait(*dialog)) << dialog->lastMessage().toStdString();
  ASSERT_EQ(dialog->lastOutcome(), DicomExportDialog::Outcome::Succeeded)
      << dialog->lastMessage().toStdString();
  ASSERT_EQ(succeeded.size(), 1);
  const QString message = succeeded[0][0].toString();
  EXPECT_TRUE(message.contains(QStringLiteral("series"))) << message.toStdString();
  EXPECT_TRUE(message.contains(QStringLiteral("6 files"))) << message.toStdString();
  EXPECT_EQ(entries(folder).size(), 6u);
  EXPECT_EQ(entries(dir.path()).size(), 1u) << "only the series folder, no temporary sibling";

  const io::dicom::DicomVolume back = readBack(folder);
  EXPECT_EQ(back.volume.shape(), volume->shape());
  EXPECT_TRUE(back.volume.voxelSizeMm().isApprox(volume->voxelSizeMm(), 1e-5))
      << back.volume.voxelSizeMm().transpose();
  EXPECT_TRUE(back.volume.originMm().isApprox(volume->originMm(), 1e-5))
      << back.volume.originMm().transpose();
  // Values come back as attenuation (our private block carries the water value), within the
  // rounding the plan promised (in HU, scaled back to 1/mm) and a little float slack.
  const double tolerance = dialog->lastResult()->plan.maxQuantisationError * kWater / 1000 + 1e-6;
  for (std::int64_t i = 0; i < volume->voxelCount(); i += 7)
    EXPECT_NEAR(back.volume.voxels()[std::size_t(i)], volume->voxels()[std::size_t(i)], tolerance)
        << "voxel " << i;
  ASSERT_TRUE(back.provenance.has_value());
  EXPECT_EQ(back.provenance->algorithm, "FDK");
  EXPECT_EQ(back.provenance->variant, "fdk.bp.cpu");
}

TEST_F(DicomExportDialogTest, ExportsTheSliceRangeAndCropAskedFor) {
  const auto volume = syntheticVolume();
  const fs::path folder = dir / "cropped";
  auto dialog = makeDialog(volume, folder);
  dialog->findChild<QSpinBox*>(QStringLiteral("dicomFirstSlice"))->setValue(1);
  dialog->findChild<QSpinBox*>(QStringLiteral("dicomLastSlice"))->setValue(4);
  dialog->findChild<QSpinBox*>(QStringLiteral("dicomFirstX"))->setValue(2);
  dialog->findChild<QSpinBox*>(QStringLiteral("dicomLastX"))->setValue(21);
  dialog->findChild<QSpinBox*>(QStringLiteral("dicomFirstY"))->setValue(3);
  ASSERT_TRUE(dialog->plan().has_value()) << dialog->problem().toStdString();
  EXPECT_EQ(dialog->plan()->files, 4);
  EXPECT_EQ(dialog->plan()->columns, 20);
  EXPECT_EQ(dialog->plan()->rows, 17);
  ASSERT_TRUE(exportAndWait(*dialog));
  ASSERT_EQ(dialog->lastOutcome(), DicomExportDialog::Outcome::Succeeded)
      << dialog->lastMessage().toStdString();
  const io::dicom::DicomVolume back = readBack(folder);
  EXPECT_EQ(back.volume.shape(), (VolumeShape{20, 17, 4}));
  EXPECT_TRUE(back.volume.originMm().isApprox(volume->worldPosition(2, 3, 1), 1e-5))
      << back.volume.originMm().transpose();
  EXPECT_NEAR(back.volume.at(0, 0, 0), volume->at(2, 3, 1), 1e-4);
}

TEST_F(DicomExportDialogTest, CancelLeavesNeitherTheFolderNorATemporarySibling) {
  const fs::path folder = dir / "cancelled";
  auto dialog = makeDialog(syntheticVolume(), folder);
  // Cancel at the first progress report (the export's start), from the worker thread, the way
  // the progress dialog's Cancel sets the token.
  DicomExportDialog* raw = dialog.get();
  dialog->setWorkerProgressObserver([raw](double) { raw->cancelExport(); });
  QSignalSpy cancelled(dialog.get(), &DicomExportDialog::exportCancelled);
  ASSERT_TRUE(exportAndWait(*dialog));
  EXPECT_EQ(dialog->lastOutcome(), DicomExportDialog::Outcome::Cancelled)
      << dialog->lastMessage().toStdString();
  ASSERT_EQ(cancelled.size(), 1);
  EXPECT_TRUE(cancelled[0][0].toString().contains(QStringLiteral("nothing was written")));
  EXPECT_FALSE(fs::exists(folder));
  EXPECT_TRUE(entries(dir.path()).empty()) << "left behind: " << entries(dir.path()).front();
  // Export is possible again afterwards.
  EXPECT_TRUE(dialog->exportButton()->isEnabled());
}

TEST_F(DicomExportDialogTest, TheProgressDialogsCancelButtonStopsALongExport) {
  const fs::path folder = dir / "long";
  auto volume = std::make_shared<Volume>(VolumeShape{32, 32, 100}, Eigen::Vector3d::Ones(),
                                         Eigen::Vector3d::Zero());
  std::fill(volume->voxels().begin(), volume->voxels().end(), float(kWater));
  volume->at(3, 4, 5) = 0.05f;
  auto dialog = makeDialog(volume, folder);
  dialog->show();
  // 30 ms per slice on the worker: three seconds, long enough for the progress to show.
  dialog->setWorkerProgressObserver(
      [](double) { std::this_thread::sleep_for(std::chrono::milliseconds(30)); });
  ASSERT_TRUE(dialog->startExport());
  auto* progress = dialog->findChild<QDialog*>(QStringLiteral("dicomExportProgress"));
  ASSERT_NE(progress, nullptr);
  ASSERT_TRUE(QTest::qWaitFor([&] { return progress->isVisible(); }, 2500));
  EXPECT_FALSE(dialog->exportButton()->isEnabled());
  auto* cancel = progress->findChild<QDialogButtonBox*>()->button(QDialogButtonBox::Cancel);
  QTest::mouseClick(cancel, Qt::LeftButton);
  ASSERT_TRUE(dialog->waitForExport(10000));
  EXPECT_EQ(dialog->lastOutcome(), DicomExportDialog::Outcome::Cancelled)
      << dialog->lastMessage().toStdString();
  EXPECT_FALSE(progress->isVisible());
  EXPECT_TRUE(entries(dir.path()).empty()) << "left behind: " << entries(dir.path()).front();
}

TEST_F(DicomExportDialogTest, NonEmptyFolderIsReplacedOnlyWhenTheUserAgrees) {
  const fs::path folder = dir / "existing";
  fs::create_directories(folder);
  std::ofstream(folder / "keep.txt") << "mine";
  auto dialog = makeDialog(syntheticVolume(), folder);

  replaceAnswer = false;
  EXPECT_FALSE(dialog->startExport());
  EXPECT_EQ(replaceQuestions, 1);
  EXPECT_EQ(dialog->lastOutcome(), DicomExportDialog::Outcome::NotStarted);
  EXPECT_TRUE(dialog->lastMessage().contains(QStringLiteral("nothing was written")))
      << dialog->lastMessage().toStdString();
  EXPECT_EQ(entries(folder), std::vector<fs::path>{"keep.txt"});
  EXPECT_EQ(entries(dir.path()), std::vector<fs::path>{"existing"});

  replaceAnswer = true;
  ASSERT_TRUE(exportAndWait(*dialog));
  EXPECT_EQ(replaceQuestions, 2);
  ASSERT_EQ(dialog->lastOutcome(), DicomExportDialog::Outcome::Succeeded)
      << dialog->lastMessage().toStdString();
  EXPECT_FALSE(fs::exists(folder / "keep.txt"));
  EXPECT_EQ(entries(folder).size(), 6u);
  EXPECT_EQ(entries(dir.path()), std::vector<fs::path>{"existing"});
}

TEST_F(DicomExportDialogTest, AFolderThatCannotBeMadeFailsWithTheCoresMessageLeavingNothing) {
  std::ofstream(dir / "plain-file") << "not a folder";
  const fs::path folder = dir / "plain-file" / "series";
  auto dialog = makeDialog(syntheticVolume(), folder);
  QSignalSpy failed(dialog.get(), &DicomExportDialog::exportFailed);
  ASSERT_TRUE(exportAndWait(*dialog));
  EXPECT_EQ(dialog->lastOutcome(), DicomExportDialog::Outcome::Failed);
  ASSERT_EQ(failed.size(), 1);
  EXPECT_TRUE(failed[0][0].toString().contains(QStringLiteral("plain-file")))
      << failed[0][0].toString().toStdString();
  EXPECT_EQ(entries(dir.path()), std::vector<fs::path>{"plain-file"});
  EXPECT_TRUE(dialog->exportButton()->isEnabled()) << "the user can choose another folder";
  // A file where the folder should be is refused before anything starts.
  dialog->setOutputFolder(qpath(dir / "plain-file"));
  EXPECT_FALSE(dialog->startExport());
  EXPECT_TRUE(dialog->lastMessage().contains(QStringLiteral("not a folder")))
      << dialog->lastMessage().toStdString();
}

TEST_F(DicomExportDialogTest, EmptySliceRangeShowsTheErrorAndDisablesExport) {
  auto dialog = makeDialog(syntheticVolume(), dir / "never");
  auto* summary = dialog->findChild<QLabel*>(QStringLiteral("dicomSummary"));
  dialog->findChild<QSpinBox*>(QStringLiteral("dicomFirstSlice"))->setValue(4);
  dialog->findChild<QSpinBox*>(QStringLiteral("dicomLastSlice"))->setValue(2);
  EXPECT_FALSE(dialog->problem().isEmpty());
  EXPECT_TRUE(dialog->problem().contains(QStringLiteral("slices")))
      << dialog->problem().toStdString();
  EXPECT_TRUE(summary->text().contains(dialog->problem().toHtmlEscaped()))
      << summary->text().toStdString();
  EXPECT_TRUE(summary->text().contains(QStringLiteral("#c62828"))) << "shown in red";
  EXPECT_FALSE(dialog->exportButton()->isEnabled());
  EXPECT_FALSE(dialog->startExport());
  EXPECT_FALSE(fs::exists(dir / "never"));
  // Fixing it brings Export back.
  dialog->findChild<QSpinBox*>(QStringLiteral("dicomLastSlice"))->setValue(5);
  EXPECT_TRUE(dialog->problem().isEmpty());
  EXPECT_TRUE(dialog->exportButton()->isEnabled());
}

TEST_F(DicomExportDialogTest, PetUnitsApplyOnlyToPetAndTheWaterValueOnlyToHounsfieldUnits) {
  auto dialog = makeDialog(syntheticVolume(), dir / "pet");
  auto* type = dialog->findChild<QComboBox*>(QStringLiteral("dicomType"));
  auto* values = dialog->findChild<QComboBox*>(QStringLiteral("dicomValues"));
  auto* petUnits = dialog->findChild<QComboBox*>(QStringLiteral("dicomPetUnits"));
  auto* water = dialog->findChild<QWidget*>(QStringLiteral("dicomWater"));
  auto* units = dialog->findChild<QWidget*>(QStringLiteral("dicomNativeUnits"));
  EXPECT_FALSE(petUnits->isEnabled());
  EXPECT_TRUE(water->isEnabled());
  EXPECT_FALSE(units->isEnabled());
  EXPECT_EQ(dialog->options().waterAttenuationPerMm, kWater);
  values->setCurrentIndex(values->findData(static_cast<int>(io::dicom::DicomValueMode::Native)));
  EXPECT_FALSE(water->isEnabled());
  EXPECT_TRUE(units->isEnabled());
  EXPECT_EQ(dialog->plan()->units, "1/mm");
  EXPECT_FALSE(petUnits->isVisibleTo(dialog.get()));
  type->setCurrentIndex(type->findData(static_cast<int>(io::dicom::DicomObjectType::PetImage)));
  EXPECT_TRUE(petUnits->isEnabled());
  EXPECT_TRUE(petUnits->isVisibleTo(dialog.get()));
  EXPECT_FALSE(values->isEnabled());
  // PET defaults to activity concentrations, which need the frame's duration.
  EXPECT_EQ(dialog->options().petUnits, "BQML");
  EXPECT_TRUE(dialog->problem().contains(QStringLiteral("frame-duration")))
      << dialog->problem().toStdString();
  dialog->findChild<QDoubleSpinBox*>(QStringLiteral("dicomPetFrameDuration"))->setValue(300);
  ASSERT_TRUE(dialog->plan().has_value()) << dialog->problem().toStdString();
  EXPECT_EQ(dialog->plan()->units, "BQML");
  petUnits->setCurrentIndex(petUnits->findText(QStringLiteral("PROPCNTS")));
  ASSERT_TRUE(dialog->plan().has_value()) << dialog->problem().toStdString();
  EXPECT_EQ(dialog->plan()->units, "PROPCNTS");
}

// A PET volume in Bq/mL: a warm disc with two hot spheres in some slices.
std::shared_ptr<Volume> activityVolume(std::int64_t edge, std::int64_t slices) {
  auto v = std::make_shared<Volume>(VolumeShape{edge, edge, slices}, Eigen::Vector3d(2.0, 2.0, 3.0),
                                    Eigen::Vector3d(-double(edge - 1), -double(edge - 1), 0.0));
  const double c = 0.5 * double(edge - 1);
  for (std::int64_t z = 0; z < slices; ++z)
    for (std::int64_t y = 0; y < edge; ++y)
      for (std::int64_t x = 0; x < edge; ++x) {
        const auto within = [&](double cx, double cy, double r) {
          return std::hypot(double(x) - cx, double(y) - cy) < r * double(edge);
        };
        double activity = within(c, c, 0.42) ? 5000.0 : 0.0;
        if (within(0.65 * double(edge), 0.4 * double(edge), 0.08)) activity = 20000.0 + 1000.0 * z;
        if (within(0.35 * double(edge), 0.6 * double(edge), 0.05)) activity = 12000.0 + 500.0 * z;
        v->at(x, y, z) = static_cast<float>(activity);
      }
  return v;
}

TEST_F(DicomExportDialogTest, PetShowsItsAcquisitionFieldsHidesCtsAndExportsThem) {
  auto dialog = makeDialog(activityVolume(24, 6), dir / "pet");
  auto* type = dialog->findChild<QComboBox*>(QStringLiteral("dicomType"));
  auto* petBox = dialog->findChild<QWidget*>(QStringLiteral("dicomPetBox"));
  ASSERT_NE(petBox, nullptr);
  EXPECT_FALSE(petBox->isVisibleTo(dialog.get())) << "CT has no PET acquisition";
  for (const char* ct : {"dicomValues", "dicomWater"})
    EXPECT_TRUE(dialog->findChild<QWidget*>(QString::fromLatin1(ct))->isVisibleTo(dialog.get()))
        << ct;
  type->setCurrentIndex(type->findData(static_cast<int>(io::dicom::DicomObjectType::PetImage)));
  EXPECT_TRUE(petBox->isVisibleTo(dialog.get()));
  for (const char* ct : {"dicomValues", "dicomWater", "dicomNativeUnits"})
    EXPECT_FALSE(dialog->findChild<QWidget*>(QString::fromLatin1(ct))->isVisibleTo(dialog.get()))
        << ct << " is CT's";

  // Fill the acquisition as a user would.
  auto* decay = dialog->findChild<QComboBox*>(QStringLiteral("dicomPetDecayCorrection"));
  decay->setCurrentIndex(decay->findData(static_cast<int>(io::dicom::PetDecayCorrection::Start)));
  dialog->findChild<QDoubleSpinBox*>(QStringLiteral("dicomPetDose"))->setValue(350);
  dialog->findChild<QDoubleSpinBox*>(QStringLiteral("dicomPetFrameDuration"))->setValue(600);
  dialog->findChild<QDoubleSpinBox*>(QStringLiteral("dicomPetWeight"))->setValue(72.5);
  dialog->findChild<QCheckBox*>(QStringLiteral("dicomPetInjectionKnown"))->setChecked(true);
  dialog->findChild<QDateTimeEdit*>(QStringLiteral("dicomPetInjection"))
      ->setDateTime(QDateTime(QDate(2026, 3, 2), QTime(9, 0)));
  // The injection needs the scan's start: the summary names the field until it is given.
  EXPECT_TRUE(dialog->problem().contains(QStringLiteral("acquisition-time")))
      << dialog->problem().toStdString();
  EXPECT_FALSE(dialog->exportButton()->isEnabled());
  dialog->findChild<QCheckBox*>(QStringLiteral("dicomPetScanStartKnown"))->setChecked(true);
  dialog->findChild<QDateTimeEdit*>(QStringLiteral("dicomPetScanStart"))
      ->setDateTime(QDateTime(QDate(2026, 3, 2), QTime(10, 0)));
  dialog->findChild<QLineEdit*>(QStringLiteral("dicomPetCorrected"))
      ->setText(QStringLiteral("norm, attn scat,RAN"));
  ASSERT_TRUE(dialog->problem().isEmpty()) << dialog->problem().toStdString();
  const io::dicom::DicomExportOptions o = dialog->options();
  EXPECT_TRUE(o.pet.activityConcentration);
  EXPECT_EQ(o.pet.injectionDateTime, "20260302090000");
  EXPECT_EQ(o.pet.acquisitionDateTime, "20260302100000");
  EXPECT_EQ(o.pet.correctedImage, (std::vector<std::string>{"NORM", "ATTN", "SCAT", "RAN"}));
  auto* summary = dialog->findChild<QLabel*>(QStringLiteral("dicomSummary"));
  EXPECT_TRUE(summary->text().contains(QStringLiteral("a slope per slice")))
      << summary->text().toStdString();
  EXPECT_TRUE(summary->text().contains(QStringLiteral("decay factor 1.0319")))
      << summary->text().toStdString();

  ASSERT_TRUE(exportAndWait(*dialog)) << dialog->lastMessage().toStdString();
  ASSERT_EQ(dialog->lastOutcome(), DicomExportDialog::Outcome::Succeeded)
      << dialog->lastMessage().toStdString();
  const io::dicom::DicomVolume back = readBack(dir / "pet");
  EXPECT_EQ(back.units, "BQML");
  ASSERT_TRUE(back.pet.has_value());
  EXPECT_EQ(back.pet->totalDoseBq, 350e6);
  EXPECT_EQ(back.pet->actualFrameDurationMs, 600000);
  EXPECT_EQ(back.pet->patientWeightKg, 72.5);
  EXPECT_EQ(back.pet->decayCorrection, io::dicom::PetDecayCorrection::Start);
  EXPECT_EQ(back.pet->injectionDateTime, "20260302090000");

  // And the other way: a read-back acquisition fills the form.
  auto again = makeDialog(activityVolume(24, 6), dir / "again");
  io::dicom::DicomExportOptions restored = o;
  restored.pet = *back.pet;
  again->setOptions(restored);
  const io::dicom::DicomPetAcquisition shown = again->options().pet;
  EXPECT_EQ(shown.injectionDateTime, "20260302090000");
  EXPECT_EQ(shown.acquisitionDateTime, "20260302100000");
  EXPECT_EQ(shown.totalDoseBq, 350e6);
  EXPECT_EQ(shown.decayCorrection, io::dicom::PetDecayCorrection::Start);
  EXPECT_EQ(shown.correctedImage,
            (std::vector<std::string>{"NORM", "ATTN", "SCAT", "RAN", "DECY"}));
}

// Set TOMOWB_SCREENSHOT_DIR to keep docs/images/dicom-export-pet.png.
TEST_F(DicomExportDialogTest, PetModeScreenshot) {
  const char* screenshotDir = std::getenv("TOMOWB_SCREENSHOT_DIR");
  if (!screenshotDir) GTEST_SKIP() << "TOMOWB_SCREENSHOT_DIR not set";
  io::dicom::DicomProvenance provenance;
  provenance.algorithm = "DIRECT";
  provenance.variant = "direct.proj.cpu";
  provenance.iterations = 10;
  DicomExportDialog dialog(activityVolume(96, 16), QStringLiteral("DIRECT reconstruction"),
                           provenance);
  io::dicom::DicomExportOptions o = dialog.options();
  o.type = io::dicom::DicomObjectType::PetImage;
  o.petUnits = "BQML";
  o.pet.totalDoseBq = 350e6;
  o.pet.injectionDateTime = "20260302090000";
  o.pet.acquisitionDateTime = "20260302100000";
  o.pet.decayCorrection = io::dicom::PetDecayCorrection::Start;
  o.pet.actualFrameDurationMs = 600000;
  o.pet.patientWeightKg = 72.5;
  o.pet.correctedImage = {"NORM", "ATTN", "SCAT", "RAN"};
  dialog.setOptions(o);
  dialog.setOutputFolder(QStringLiteral("/home/user/exports/DIRECT-direct.proj.cpu"));
  dialog.findChild<QSpinBox*>(QStringLiteral("dicomFirstSlice"))->setValue(4);
  dialog.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&dialog));
  QTest::qWait(300);
  EXPECT_TRUE(dialog.problem().isEmpty()) << dialog.problem().toStdString();
  dialog.grab().save(QString::fromUtf8(screenshotDir) + "/dicom-export-pet.png");
}

TEST_F(DicomExportDialogTest, ASecondSeriesJoinsTheStudyOfThePreviousExport) {
  const auto volume = syntheticVolume();
  auto first = makeDialog(volume, dir / "one");
  first->findChild<QLineEdit*>(QStringLiteral("dicomPatientName"))->setText("Phantom^Water");
  EXPECT_FALSE(first->findChild<QCheckBox*>(QStringLiteral("dicomPreviousStudy"))->isEnabled());
  ASSERT_TRUE(exportAndWait(*first));
  ASSERT_EQ(first->lastOutcome(), DicomExportDialog::Outcome::Succeeded);
  ASSERT_TRUE(DicomExportDialog::previousStudy().has_value());

  auto second = makeDialog(volume, dir / "two");
  auto* previous = second->findChild<QCheckBox*>(QStringLiteral("dicomPreviousStudy"));
  ASSERT_TRUE(previous->isEnabled());
  previous->setChecked(true);
  EXPECT_EQ(second->options().identity.patientName, "Phantom^Water");
  EXPECT_EQ(second->options().identity.seriesNumber, 2);
  ASSERT_TRUE(exportAndWait(*second));
  ASSERT_EQ(second->lastOutcome(), DicomExportDialog::Outcome::Succeeded);
  EXPECT_EQ(second->lastResult()->studyInstanceUid, first->lastResult()->studyInstanceUid);
  EXPECT_NE(second->lastResult()->seriesInstanceUid, first->lastResult()->seriesInstanceUid);
  const auto series = io::dicom::listDicomSeries(dir / "two");
  ASSERT_EQ(series.size(), 1u);
  EXPECT_EQ(series[0].studyInstanceUid, first->lastResult()->studyInstanceUid);
  EXPECT_EQ(series[0].seriesNumber, 2);
  EXPECT_EQ(series[0].patientName, "Phantom^Water");
}

// --- Read-back in the window ---

// Writes `volume` as a CT series described `description` into `folder` (the core, no dialog).
void writeSeries(const Volume& volume, const fs::path& folder, const std::string& description) {
  io::dicom::DicomExportOptions options;
  options.identity.seriesDescription = description;
  JobContext context;
  io::dicom::exportDicom(volume, folder, options, context);
}

TEST(DicomLoad, LoadTaskOpensAnExportedFolderAsAVolumeNamedAfterTheSeries) {
  test::TempDir dir;
  const auto volume = syntheticVolume();
  writeSeries(*volume, dir / "ct", "water phantom");
  EXPECT_TRUE(LoadTask::isDicom(qpath(dir / "ct")));
  EXPECT_TRUE(LoadTask::isDicom(qpath(dir / "ct") + "/"));
  EXPECT_EQ(LoadTask::resolveKind(qpath(dir / "ct"), LoadKind::Auto), LoadKind::Volume);
  EXPECT_THROW(LoadTask::resolveKind(qpath(dir / "ct"), LoadKind::Projections), FormatError);
  LoadTask task;
  QSignalSpy finished(&task, &LoadTask::finished);
  QSignalSpy failed(&task, &LoadTask::failed);
  task.startFile(qpath(dir / "ct"));
  ASSERT_TRUE(finished.wait(30000))
      << (failed.isEmpty() ? "" : failed[0][0].toString().toStdString());
  const auto result = finished[0][0].value<LoadResult>();
  ASSERT_TRUE(result.volume);
  EXPECT_TRUE(result.dicomSeries.isEmpty());
  EXPECT_EQ(result.volume->shape(), volume->shape());
  EXPECT_TRUE(result.volume->voxelSizeMm().isApprox(volume->voxelSizeMm(), 1e-5));
  EXPECT_EQ(result.name, QStringLiteral("water phantom"));
}

TEST(DicomLoad, OneSliceFileOpensItsWholeSeries) {
  test::TempDir dir;
  writeSeries(*syntheticVolume(), dir / "ct", "water phantom");
  const fs::path firstFile = dir / "ct" / entries(dir / "ct").front();
  LoadTask task;
  QSignalSpy finished(&task, &LoadTask::finished);
  QSignalSpy failed(&task, &LoadTask::failed);
  task.startFile(qpath(firstFile));
  ASSERT_TRUE(finished.wait(30000))
      << (failed.isEmpty() ? "" : failed[0][0].toString().toStdString());
  const auto result = finished[0][0].value<LoadResult>();
  ASSERT_TRUE(result.volume);
  EXPECT_EQ(result.volume->nz(), 6);
}

TEST(DicomLoad, ATiffFolderStaysATiffSeries) {
  if (!io::isFormatAvailable(io::DataFormat::TiffSeries)) GTEST_SKIP() << "built without TIFF";
  test::TempDir dir;
  io::writeVolume(dir.path() / "slices" / "", *syntheticVolume());  // '/': a TIFF series
  ASSERT_TRUE(fs::is_directory(dir / "slices"));
  EXPECT_FALSE(LoadTask::isDicom(qpath(dir / "slices")));
  LoadTask task;
  QSignalSpy finished(&task, &LoadTask::finished);
  QSignalSpy failed(&task, &LoadTask::failed);
  task.startFile(qpath(dir / "slices"));
  ASSERT_TRUE(finished.wait(30000))
      << (failed.isEmpty() ? "" : failed[0][0].toString().toStdString());
  ASSERT_TRUE(finished[0][0].value<LoadResult>().volume);
  EXPECT_EQ(finished[0][0].value<LoadResult>().volume->nz(), 6);
}

class DicomDataPanelTest : public testing::Test {
 protected:
  void SetUp() override {
    QSettings().clear();
    panel.setShowsErrorDialogs(false);
  }
  void TearDown() override { QSettings().clear(); }
  bool waitForVolumes(std::size_t count) {
    return QTest::qWaitFor([&] { return workspace.volumes().size() == count; }, 30000);
  }
  test::TempDir dir;
  Workspace workspace;
  DataPanel panel{workspace};
};

TEST_F(DicomDataPanelTest, AFolderWithTwoSeriesAsksWhichOneToOpen) {
  const auto volume = syntheticVolume();
  writeSeries(*volume, dir / "a", "first series");
  Volume smaller(VolumeShape{24, 20, 3}, volume->voxelSizeMm(), volume->originMm());
  std::copy_n(volume->data(), smaller.voxelCount(), smaller.data());
  writeSeries(smaller, dir / "b", "second series");
  fs::create_directories(dir / "both");
  for (const char* sub : {"a", "b"})
    for (const fs::path& name : entries(dir / sub))
      fs::copy_file(dir / sub / name, dir / "both" / (std::string(sub) + "-" + name.string()));

  QList<DicomSeriesOption> offered;
  panel.setDicomSeriesChooser([&](const QString&, const QList<DicomSeriesOption>& series) {
    offered = series;
    for (const DicomSeriesOption& option : series)
      if (option.label.contains(QStringLiteral("second series"))) return option.uid;
    return QString();
  });
  panel.openFiles({qpath(dir / "both")});
  ASSERT_TRUE(waitForVolumes(1)) << panel.lastError().toStdString();
  ASSERT_EQ(offered.size(), 2);
  const QString labels = offered[0].label + " | " + offered[1].label;
  EXPECT_TRUE(labels.contains(QStringLiteral("CT"))) << labels.toStdString();
  EXPECT_TRUE(labels.contains(QStringLiteral("24 × 20 × 3"))) << labels.toStdString();
  const NamedVolume& opened = workspace.volumes().front();
  EXPECT_EQ(opened.name, QStringLiteral("second series"));
  EXPECT_EQ(opened.volume->nz(), 3);
  EXPECT_FALSE(panel.isLoading());
}

TEST_F(DicomDataPanelTest, DeclinedSeriesChoiceOpensNothing) {
  writeSeries(*syntheticVolume(), dir / "a", "first");
  writeSeries(*syntheticVolume(), dir / "b", "second");
  fs::create_directories(dir / "both");
  for (const char* sub : {"a", "b"})
    for (const fs::path& name : entries(dir / sub))
      fs::copy_file(dir / sub / name, dir / "both" / (std::string(sub) + "-" + name.string()));
  QSignalSpy cancelled(&panel, &DataPanel::loadCancelled);
  panel.setDicomSeriesChooser(
      [](const QString&, const QList<DicomSeriesOption>&) { return QString(); });
  panel.openFiles({qpath(dir / "both")});
  ASSERT_TRUE(cancelled.wait(30000));
  EXPECT_TRUE(workspace.volumes().empty());
  EXPECT_FALSE(panel.isLoading());
}

TEST_F(DicomDataPanelTest, SeveralDcmFilesOfOneFolderOpenAsOneVolume) {
  writeSeries(*syntheticVolume(), dir / "ct", "water phantom");
  QStringList files;
  for (const fs::path& name : entries(dir / "ct")) files << qpath(dir / "ct" / name);
  ASSERT_EQ(files.size(), 6);
  ASSERT_TRUE(files.front().endsWith(QStringLiteral(".dcm"))) << files.front().toStdString();
  panel.openFiles(files);
  ASSERT_TRUE(waitForVolumes(1)) << panel.lastError().toStdString();
  EXPECT_EQ(workspace.volumes().front().volume->nz(), 6);
  QTest::qWait(300);
  EXPECT_EQ(workspace.volumes().size(), 1u);
  EXPECT_EQ(panel.queuedFileCount(), 0);
}

TEST_F(DicomDataPanelTest, ABrokenSeriesFailsWithAMessageAndOpensNothing) {
  writeSeries(*syntheticVolume(), dir / "ct", "water phantom");
  const std::vector<fs::path> names = entries(dir / "ct");
  fs::resize_file(dir / "ct" / names[2], 300);  // preamble and a few tags, no pixels
  QSignalSpy failed(&panel, &DataPanel::loadFailed);
  panel.openFiles({qpath(dir / "ct")});
  ASSERT_TRUE(failed.wait(30000));
  EXPECT_FALSE(failed[0][0].toString().isEmpty());
  EXPECT_TRUE(workspace.volumes().empty());
}

// --- The window: the demo reconstruction to DICOM, with its run's provenance ---

TEST(DicomExportWindow, ExportsTheDemoReconstructionWithItsRunsProvenance) {
  initResources();
  QSettings().clear();
  DicomExportDialog::forgetPreviousStudy();
  const char* screenshotDir = std::getenv("TOMOWB_SCREENSHOT_DIR");
  const int size = screenshotDir ? 128 : 32;
  test::TempDir dir;
  MainWindow window;
  window.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&window));
  ASSERT_NE(window.exportDicomAction(), nullptr);
  EXPECT_FALSE(window.exportDicomAction()->isEnabled()) << "no volume yet";
  QSignalSpy loaded(&window.workspace(), &Workspace::projectionsChanged);
  window.openDemo(DemoKind::SheppLogan, size);
  ASSERT_TRUE(loaded.wait(60000));
  window.algorithmPanel().setVolumeEdge(size);
  window.algorithmPanel().setDevice(
      -1);  // CPU kernels are named below; a GPU machine defaults to its GPU
  QSignalSpy finished(&window.runs(), &RunController::runFinished);
  ASSERT_GT(window.startRun(), 0);
  ASSERT_TRUE(finished.wait(120000));
  QTest::qWait(200);
  ASSERT_TRUE(window.exportDicomAction()->isEnabled());

  window.exportDicomAction()->trigger();
  // Deleted on close (after a successful export): not touched once it has succeeded.
  QPointer<DicomExportDialog> dialog = window.findChild<DicomExportDialog*>();
  ASSERT_NE(dialog, nullptr);
  ASSERT_TRUE(QTest::qWaitForWindowExposed(dialog));
  const io::dicom::DicomExportOptions options = dialog->options();
  EXPECT_EQ(options.provenance.algorithm, "FDK");
  EXPECT_EQ(options.provenance.variant, "fdk.bp.cpu");
  EXPECT_EQ(options.provenance.geometryHash.size(), 64u);
  EXPECT_EQ(options.provenance.acquisitionKey, options.provenance.geometryHash);
  EXPECT_FALSE(options.provenance.parameters.empty());
  auto* description = dialog->findChild<QLineEdit*>(QStringLiteral("dicomSeriesDescription"));
  EXPECT_EQ(description->placeholderText(), QStringLiteral("FDK fdk.bp.cpu"));
  EXPECT_TRUE(dialog->outputFolder().contains(QStringLiteral("FDK-fdk.bp.cpu")))
      << dialog->outputFolder().toStdString();

  // The middle third of the slices: the preview shows the phantom, not the empty top slice.
  const int firstSlice = size / 3, lastSlice = 2 * size / 3;
  dialog->findChild<QSpinBox*>(QStringLiteral("dicomFirstSlice"))->setValue(firstSlice);
  dialog->findChild<QSpinBox*>(QStringLiteral("dicomLastSlice"))->setValue(lastSlice);
  if (screenshotDir) {
    dialog->setOutputFolder(QStringLiteral("/home/user/exports/FDK-fdk.bp.cpu"));
    QTest::qWait(300);
    dialog->grab().save(QString::fromUtf8(screenshotDir) + "/dicom-export.png");
  }
  dialog->setShowsErrorDialogs(false);
  dialog->setOutputFolder(qpath(dir / "demo"));
  QSignalSpy succeeded(dialog.data(), &DicomExportDialog::exportSucceeded);
  QSignalSpy failed(dialog.data(), &DicomExportDialog::exportFailed);
  ASSERT_TRUE(dialog->startExport());
  ASSERT_TRUE(succeeded.wait(60000))
      << (failed.isEmpty() ? "" : failed[0][0].toString().toStdString());
  EXPECT_TRUE(QTest::qWaitFor([&] { return dialog.isNull(); }, 5000)) << "closed after success";
  EXPECT_TRUE(window.statusBar()->currentMessage().contains(QStringLiteral("demo")))
      << window.statusBar()->currentMessage().toStdString();
  const auto series = io::dicom::listDicomSeries(dir / "demo");
  ASSERT_EQ(series.size(), 1u);
  EXPECT_EQ(series[0].frames, lastSlice - firstSlice + 1);
  EXPECT_EQ(series[0].seriesDescription, "FDK fdk.bp.cpu");
  QSettings().clear();
}

}  // namespace
}  // namespace tomowb::gui

#endif  // TOMOWB_HAVE_DICOM
