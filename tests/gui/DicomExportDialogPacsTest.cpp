// "Send to PACS" in the DICOM export dialog (issue #21, point 10) against a real Orthanc started
// by the test (tests/recon/io/dicom/OrthancServer.h): after the export the series is sent on a
// worker thread and the dialog reports how many instances the node then holds (checked again
// here with our own C-FIND); Cancel during the send keeps the dialog open and says how many
// went; the node editor's Test answers with the round trip, or with the plain-words refusal; no
// node means no send.
#ifdef TOMOWB_HAVE_DICOM

#include <gtest/gtest.h>

#include <QCheckBox>
#include <QComboBox>
#include <QLabel>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QSpinBox>
#include <filesystem>
#include <memory>

#include "gui/DicomExportDialog.h"
#include "gui/DicomExportDialogPacs.h"
#include "recon/io/dicom/DicomNetwork.h"
#include "support/TestSupport.h"
#include "tests/recon/io/dicom/OrthancServer.h"

namespace tomowb::gui {
namespace {

namespace fs = std::filesystem;
using io::dicom::DicomNode;

std::shared_ptr<Volume> smallVolume() {
  auto v = std::make_shared<Volume>(VolumeShape{16, 12, 6}, Eigen::Vector3d(0.5, 0.5, 1.0),
                                    Eigen::Vector3d(0, 0, 0));
  for (std::int64_t z = 0; z < v->nz(); ++z)
    for (std::int64_t y = 0; y < v->ny(); ++y)
      for (std::int64_t x = 0; x < v->nx(); ++x)
        v->at(x, y, z) = static_cast<float>(0.0206 * (1.0 + 0.01 * double(x + y + z)));
  return v;
}

class DicomExportDialogPacsTest : public testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (!fs::exists(test::kOrthancProgram)) return;
    try {
      server_ = std::make_unique<test::OrthancServer>();
    } catch (const std::exception& e) {
      startError_ = e.what();
    }
  }
  static void TearDownTestSuite() { server_.reset(); }
  void SetUp() override { QSettings().clear(); }
  void TearDown() override { QSettings().clear(); }

  static DicomNode orthanc() {
    DicomNode node;
    node.host = "localhost";
    node.port = server_->dicomPort();
    node.calledAeTitle = test::kOrthancAeTitle;
    node.callingAeTitle = test::kOrthancCallingAeTitle;
    return node;
  }
  std::unique_ptr<DicomExportDialog> makeDialog(const fs::path& folder) {
    auto dialog = std::make_unique<DicomExportDialog>(smallVolume(), QStringLiteral("pacs"),
                                                      io::dicom::DicomProvenance{});
    dialog->setShowsErrorDialogs(false);
    dialog->setOutputFolder(QString::fromStdString(folder.string()));
    return dialog;
  }

  test::TempDir dir;
  static std::unique_ptr<test::OrthancServer> server_;
  static std::string startError_;
};

std::unique_ptr<test::OrthancServer> DicomExportDialogPacsTest::server_;
std::string DicomExportDialogPacsTest::startError_;

#define REQUIRE_SERVER()                                              \
  do {                                                                \
    TOMOWB_REQUIRE_ORTHANC();                                         \
    ASSERT_TRUE(server_) << "Orthanc did not start: " << startError_; \
  } while (0)

TEST_F(DicomExportDialogPacsTest, SendsTheExportedSeriesAndReportsHowManyArrived) {
  REQUIRE_SERVER();
  saveDicomNodes({orthanc()});
  auto dialog = makeDialog(dir / "series");
  dialog->reloadPacsNodes();
  ASSERT_TRUE(dialog->sendToPacsBox()->isEnabled());
  dialog->sendToPacsBox()->setChecked(true);
  QSignalSpy succeeded(dialog.get(), &DicomExportDialog::exportSucceeded);
  ASSERT_TRUE(dialog->startExport());
  ASSERT_TRUE(dialog->waitForExport(60000));
  ASSERT_TRUE(dialog->pacsSender()->waitForSend(60000));
  const QString expected = QStringLiteral("6 of 6 instances arrived at ORTHANC at localhost:%1")
                               .arg(server_->dicomPort());
  EXPECT_EQ(dialog->lastPacsMessage(), expected);
  ASSERT_EQ(succeeded.count(), 1);
  EXPECT_TRUE(succeeded.at(0).at(0).toString().contains(expected));
  EXPECT_EQ(dialog->result(), QDialog::Accepted);
  ASSERT_TRUE(dialog->lastResult());
  const std::string series = dialog->lastResult()->seriesInstanceUid;
  EXPECT_EQ(
      io::dicom::instancesHeld(io::dicom::queryDicomNode(orthanc(), "", series, true), series), 6);
}

TEST_F(DicomExportDialogPacsTest, CancelDuringTheSendKeepsTheDialogOpenAndSaysHowManyWent) {
  REQUIRE_SERVER();
  saveDicomNodes({orthanc()});
  auto dialog = makeDialog(dir / "series");
  dialog->reloadPacsNodes();
  dialog->sendToPacsBox()->setChecked(true);
  PacsSender* sender = dialog->pacsSender();
  sender->setWorkerFileObserver([sender](std::size_t index) {
    if (index == 2) sender->cancel();
  });
  ASSERT_TRUE(dialog->startExport());
  ASSERT_TRUE(dialog->waitForExport(60000));
  ASSERT_TRUE(sender->waitForSend(60000));
  EXPECT_TRUE(sender->lastOutcome().cancelled);
  EXPECT_EQ(sender->lastOutcome().stored, 3);
  EXPECT_TRUE(dialog->lastPacsMessage().startsWith(QStringLiteral("Sending cancelled: 3 of 6")))
      << dialog->lastPacsMessage().toStdString();
  EXPECT_NE(dialog->result(), QDialog::Accepted);
  EXPECT_TRUE(dialog->exportButton()->isEnabled());
  const std::string series = dialog->lastResult()->seriesInstanceUid;
  EXPECT_EQ(
      io::dicom::instancesHeld(io::dicom::queryDicomNode(orthanc(), "", series, true), series), 3);
}

TEST_F(DicomExportDialogPacsTest, NodeEditorTestAnswersOrSaysWhyNotInPlainWords) {
  REQUIRE_SERVER();
  DicomNodeEditor editor({orthanc()}, 0);
  ASSERT_TRUE(editor.testCurrent());
  ASSERT_TRUE(editor.waitForTest(30000));
  EXPECT_TRUE(editor.lastTestSucceeded()) << editor.testResult().toStdString();
  EXPECT_TRUE(editor.testResult().contains(QStringLiteral("answered in")))
      << editor.testResult().toStdString();

  DicomNode closed = orthanc();
  closed.port = test::freeTcpPort();
  editor.setCurrentNode(closed);
  ASSERT_TRUE(editor.testCurrent());
  ASSERT_TRUE(editor.waitForTest(30000));
  EXPECT_FALSE(editor.lastTestSucceeded());
  EXPECT_TRUE(editor.testResult().startsWith(
      QStringLiteral("The DICOM node ORTHANC at localhost:%1 did not answer (connection refused")
          .arg(closed.port)))
      << editor.testResult().toStdString();

  // The edited list is what the editor gives back, and QSettings keeps it.
  saveDicomNodes(editor.nodes());
  const auto loaded = loadDicomNodes();
  ASSERT_EQ(loaded.size(), 1u);
  EXPECT_EQ(loaded[0].port, closed.port);
  EXPECT_EQ(loaded[0].calledAeTitle, "ORTHANC");
}

TEST_F(DicomExportDialogPacsTest, WithoutANodeThereIsNothingToSendTo) {
  auto dialog = makeDialog(dir / "series");
  EXPECT_FALSE(dialog->sendToPacsBox()->isEnabled());
  EXPECT_FALSE(dialog->sendToPacsBox()->isChecked());
  EXPECT_EQ(dialog->pacsNodeBox()->count(), 0);
}

}  // namespace
}  // namespace tomowb::gui

#endif  // TOMOWB_HAVE_DICOM
