// DicomExportDialogPacs: the "Send to PACS" part of the DICOM export dialog (docs/gui.md,
// "Send to PACS"). The DICOM nodes the user knows are kept in QSettings (pacs/nodes, with the one
// last chosen); DicomNodeEditor edits them and tests one with C-ECHO; PacsSender sends a written
// series with C-STORE on a worker thread behind a progress dialog whose Cancel stops it between
// files, then asks the node with C-FIND how many instances it holds ("5 of 5 instances arrived at
// ORTHANC at pacs:4242"). Network work never runs on the GUI thread; results come back queued.
#pragma once

#include <QDialog>
#include <QObject>
#include <QString>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <thread>
#include <vector>

#include "recon/io/dicom/DicomNetwork.h"
#include "recon/job/CancelToken.h"

class QComboBox;
class QLabel;
class QLineEdit;
class QProgressBar;
class QPushButton;
class QSpinBox;

namespace tomowb {
class JobContext;
}

namespace tomowb::gui {

// The nodes in QSettings, in the user's order, and the index last chosen (-1 when none).
std::vector<io::dicom::DicomNode> loadDicomNodes();
void saveDicomNodes(const std::vector<io::dicom::DicomNode>& nodes);
int lastDicomNodeIndex();
void setLastDicomNodeIndex(int index);

// Add, remove and edit nodes; Test echoes the shown node on a worker thread and shows the answer
// ("answered in 12 ms") or the plain-words error. OK checks every node (validateDicomNode).
class DicomNodeEditor : public QDialog {
  Q_OBJECT

 public:
  DicomNodeEditor(std::vector<io::dicom::DicomNode> nodes, int current, QWidget* parent = nullptr);
  ~DicomNodeEditor() override;  // waits for a running test (bounded by the node's timeout)
  DicomNodeEditor(const DicomNodeEditor&) = delete;
  DicomNodeEditor& operator=(const DicomNodeEditor&) = delete;

  std::vector<io::dicom::DicomNode> nodes() const;
  int currentIndex() const;
  // The shown node as the fields say it.
  io::dicom::DicomNode currentNode() const;
  void setCurrentNode(const io::dicom::DicomNode& node);
  void addNode();
  // Echo on a worker; false when a test is already running or the fields are invalid.
  bool testCurrent();
  bool isTesting() const { return tester_.joinable(); }
  bool waitForTest(int timeoutMs);  // tests
  QString testResult() const;
  bool lastTestSucceeded() const { return testOk_; }

 private:
  void showNode(int index);
  void storeShown();
  void onTestDone(bool ok, const QString& message);
  void done(int result) override;

  std::vector<io::dicom::DicomNode> nodes_;
  int shown_ = -1;
  bool testOk_ = false;
  std::thread tester_;
  QComboBox* list_ = nullptr;
  QLineEdit* name_ = nullptr;
  QLineEdit* host_ = nullptr;
  QSpinBox* port_ = nullptr;
  QLineEdit* calledAe_ = nullptr;
  QLineEdit* callingAe_ = nullptr;
  QSpinBox* timeout_ = nullptr;
  QPushButton* test_ = nullptr;
  QLabel* testResult_ = nullptr;
};

// Sends files to a node on a worker thread and then counts what arrived.
class PacsSender : public QObject {
  Q_OBJECT

 public:
  struct Outcome {
    bool ok = false;  // every file stored and every stored instance found at the node
    bool cancelled = false;
    std::int64_t files = 0, stored = 0, arrived = -1;  // arrived: -1 when not asked
    QString message;
  };

  // The progress dialog is a child of `parentWidget`.
  explicit PacsSender(QWidget* parentWidget);
  ~PacsSender() override;  // cancels and joins a running send
  PacsSender(const PacsSender&) = delete;
  PacsSender& operator=(const PacsSender&) = delete;

  // Starts sending `files` (one series) and then queries for `seriesInstanceUid`; false when a
  // send is already running.
  bool start(const io::dicom::DicomNode& node, std::vector<std::filesystem::path> files,
             const std::string& seriesInstanceUid);
  void cancel();  // thread-safe: sets the cancel token
  bool isSending() const { return worker_.joinable(); }
  bool waitForSend(int timeoutMs);  // tests
  const Outcome& lastOutcome() const { return outcome_; }
  // Called on the worker thread before each file with its index (tests cancel from it).
  void setWorkerFileObserver(std::function<void(std::size_t)> observer) {
    fileObserver_ = std::move(observer);
  }

 signals:
  void finished(bool ok, const QString& message);

 private:
  // On the worker: the send, then the count at the node, into `o` (the message included).
  static void sendAndCount(const io::dicom::DicomNode& node,
                           const std::vector<std::filesystem::path>& files,
                           const std::string& seriesInstanceUid, const JobContext& context,
                           Outcome& o);
  void onDone(const Outcome& outcome);

  std::thread worker_;
  std::shared_ptr<CancelToken> cancel_;
  std::function<void(std::size_t)> fileObserver_;
  Outcome outcome_;
  QDialog* progress_ = nullptr;
  QLabel* progressLabel_ = nullptr;
  QProgressBar* progressBar_ = nullptr;
  QPushButton* progressCancel_ = nullptr;
};

}  // namespace tomowb::gui
