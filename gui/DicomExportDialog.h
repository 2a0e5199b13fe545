// DicomExportDialog: File > Export DICOM series… for the volume shown (issue #8, UX goal U10:
// reconstructed volume to DICOM files in three clicks and a folder choice). The form fills
// io::dicom::DicomExportOptions: the object type (CT Image, Enhanced CT, PET Image), lossless
// compression, values (Hounsfield units from a stated water attenuation, or the volume's own
// units), PET units (BQML by default) and the PET acquisition (radionuclide, radiopharmaceutical,
// dose, injection and scan times, decay correction, frame duration, weight, corrections; shown for
// PET only, while CT's value fields are hidden), patient position, the identity tags (anonymous by
// default; a series can join the study of the previous export of this session), an organisation UID
// root, and the exported slice range and crop. A preview of the first exported slice (0.1-99.9
// percentile window, oriented as DICOM viewers show it) and a summary from
// io::dicom::planDicomExport (files, size, units, rescale, worst rounding, warnings; a
// ParameterError in red with Export disabled) follow every change. Export runs
// io::dicom::exportDicom on a worker thread with a progress dialog whose Cancel stops it between
// slices; the core writes into a temporary folder and renames it, so a cancelled or failed export
// leaves nothing, and an existing non-empty folder is replaced only when the user says so
// (docs/gui.md, "Export DICOM").
#pragma once

#include <QDialog>
#include <QString>
#include <functional>
#include <memory>
#include <optional>
#include <thread>

#include "recon/core/DisplayUnits.h"
#include "recon/core/Volume.h"
#include "recon/io/dicom/DicomExport.h"
#include "recon/io/dicom/DicomOptions.h"
#include "recon/job/CancelToken.h"

class QCheckBox;
class QComboBox;
class QDateTimeEdit;
class QDoubleSpinBox;
class QFormLayout;
class QGroupBox;
class QLabel;
class QLayout;
class QLineEdit;
class QProgressBar;
class QPushButton;
class QSpinBox;
class QTimer;

namespace tomowb::gui {

class PacsSender;

class DicomExportDialog : public QDialog {
  Q_OBJECT

 public:
  enum class Outcome { None, Succeeded, Cancelled, Failed, NotStarted };

  // The study (and its patient) of the last successful export in this application session, for
  // "Add to the study of the previous export".
  struct PreviousStudy {
    io::dicom::DicomIdentity identity;  // patient and study fields; series fields unused
    int lastSeriesNumber = 0;
  };
  static std::optional<PreviousStudy> previousStudy();
  static void forgetPreviousStudy();

  // `provenance` says what made the volume (the run's algorithm, variant, geometry hash...);
  // empty fields are left out of the files.
  DicomExportDialog(std::shared_ptr<const Volume> volume, const QString& volumeName,
                    io::dicom::DicomProvenance provenance, QWidget* parent = nullptr);
  // A running export is cancelled and waited for (it stops within one slice; nothing is left).
  ~DicomExportDialog() override;
  DicomExportDialog(const DicomExportDialog&) = delete;
  DicomExportDialog& operator=(const DicomExportDialog&) = delete;

  // What the form says (valid or not), and the reverse.
  io::dicom::DicomExportOptions options() const;
  void setOptions(const io::dicom::DicomExportOptions& options);
  // The values' default for data in these units (issue #21, point 5): HU with the data's water
  // value only for CT attenuation that knows it; the volume's own values otherwise (ET, PET, a
  // volume from a file, CT without a water value).
  void setDataUnits(const DisplayUnits& units);
  QString outputFolder() const;
  void setOutputFolder(const QString& folder);
  // Empty when the options are valid; else the problem, as the summary shows it.
  QString problem() const { return problem_; }
  const std::optional<io::dicom::DicomExportPlan>& plan() const { return plan_; }
  QPushButton* exportButton() const { return exportButton_; }
  // Recomputes the plan and summary now (they follow edits by themselves, after a short pause
  // for large volumes).
  void refreshSummary();

  // Asked before replacing a non-empty folder; true replaces it. The default asks with a
  // QMessageBox; tests answer themselves.
  using ReplaceConfirmation = std::function<bool(const QString& folder)>;
  void setReplaceConfirmation(ReplaceConfirmation confirm) { confirmReplace_ = std::move(confirm); }
  // When false, failures are only emitted (exportFailed), not shown in a message box (tests).
  void setShowsErrorDialogs(bool shows) { showsErrorDialogs_ = shows; }
  // Called on the worker thread with each progress fraction (tests cancel from it).
  void setWorkerProgressObserver(std::function<void(double)> observer) {
    progressObserver_ = std::move(observer);
  }

  // What Export does: checks the folder (asking before replacing a non-empty one) and starts
  // the export on a worker thread. False when nothing started (invalid options, no folder, the
  // user kept the existing folder, an export already running).
  bool startExport();
  bool isExporting() const { return worker_.joinable(); }
  // Asks the running export to stop (thread-safe: only sets the cancel token).
  void cancelExport();
  // Processes events until the running export has ended; false on timeout (tests).
  bool waitForExport(int timeoutMs);
  Outcome lastOutcome() const { return outcome_; }
  QString lastMessage() const { return lastMessage_; }
  const std::optional<io::dicom::DicomExportResult>& lastResult() const { return result_; }

  // "Send to PACS" (DicomExportDialogPacs.cpp): after a successful export, send the series to
  // the chosen node (QSettings' list) and report how many instances arrived; the dialog closes
  // when all did and stays open with the problem otherwise. exportSucceeded then carries both.
  QCheckBox* sendToPacsBox() const { return sendToPacs_; }
  QComboBox* pacsNodeBox() const { return pacsNode_; }
  PacsSender* pacsSender() const { return pacsSender_; }
  // Reloads the node list from QSettings (after the node editor or a test changed it).
  void reloadPacsNodes();
  bool isSendingToPacs() const;
  QString lastPacsMessage() const { return lastPacsMessage_; }

 signals:
  // After a successful export: one line for the status bar (folder, files, quantisation error).
  void exportSucceeded(const QString& summary);
  void exportCancelled(const QString& message);
  void exportFailed(const QString& message);

 private:
  void buildForm(const QString& volumeName);
  // The PET acquisition's group (DicomExportDialogPet.cpp) and its values to and from the form.
  QGroupBox* buildPetBox();
  io::dicom::DicomPetAcquisition petAcquisition() const;
  void setPetAcquisition(const io::dicom::DicomPetAcquisition& pet);
  void updatePetPlaceholders();
  void buildProgressDialog();
  void scheduleSummary();
  void updatePreview();
  void updateEnabledFields();
  void updateExportButton();
  void updateSuggestedFolder();
  void onPreviousStudyToggled(bool on);
  void browse();
  void onProgress(double fraction);
  void onWorkerDone(std::optional<io::dicom::DicomExportResult> result, bool cancelled,
                    const QString& error);
  QString defaultSeriesDescription() const;
  QLayout* buildPacsRow();
  void editPacsNodes();
  // Starts the send of the last export when asked for; false when not asked or not possible
  // (the reason is appended to lastMessage_).
  bool startPacsSend();
  void onPacsSendDone(bool ok, const QString& message);

  std::shared_ptr<const Volume> volume_;
  io::dicom::DicomProvenance provenance_;
  QString volumeName_;
  std::optional<io::dicom::DicomExportPlan> plan_;
  QString problem_;
  ReplaceConfirmation confirmReplace_;
  bool showsErrorDialogs_ = true;
  bool folderEdited_ = false;  // the user typed or chose a folder: stop suggesting one

  std::thread worker_;
  std::shared_ptr<CancelToken> cancel_;
  std::function<void(double)> progressObserver_;
  QString exportFolder_;
  io::dicom::DicomExportOptions exportOptions_;  // of the running (or last) export
  Outcome outcome_ = Outcome::None;
  QString lastMessage_;
  std::optional<io::dicom::DicomExportResult> result_;

  QComboBox* type_ = nullptr;
  QComboBox* compression_ = nullptr;
  QComboBox* values_ = nullptr;
  QDoubleSpinBox* water_ = nullptr;
  QLineEdit* nativeUnits_ = nullptr;
  QComboBox* petUnits_ = nullptr;
  QFormLayout* valuesForm_ = nullptr;
  QLabel* waterHint_ = nullptr;
  QGroupBox* petBox_ = nullptr;
  QComboBox* radionuclide_ = nullptr;
  QLineEdit* radiopharmaceutical_ = nullptr;
  QDoubleSpinBox* doseMBq_ = nullptr;
  QCheckBox* injectionKnown_ = nullptr;
  QDateTimeEdit* injection_ = nullptr;
  QCheckBox* scanStartKnown_ = nullptr;
  QDateTimeEdit* scanStart_ = nullptr;
  QComboBox* decayCorrection_ = nullptr;
  QDoubleSpinBox* frameDurationS_ = nullptr;
  QDoubleSpinBox* weightKg_ = nullptr;
  QLineEdit* correctedImage_ = nullptr;
  QLineEdit* reconstructionMethod_ = nullptr;
  io::dicom::DicomPetAcquisition petUnshown_;  // the PET fields the form does not show
  QComboBox* position_ = nullptr;
  QLineEdit* patientName_ = nullptr;
  QLineEdit* patientId_ = nullptr;
  QLineEdit* birthDate_ = nullptr;
  QComboBox* sex_ = nullptr;
  QCheckBox* previousStudy_ = nullptr;
  QLineEdit* studyDescription_ = nullptr;
  QLineEdit* studyId_ = nullptr;
  QLineEdit* accession_ = nullptr;
  QLineEdit* seriesDescription_ = nullptr;
  QSpinBox* seriesNumber_ = nullptr;
  QLineEdit* uidRoot_ = nullptr;
  QSpinBox* firstSlice_ = nullptr;
  QSpinBox* lastSlice_ = nullptr;
  QSpinBox* firstX_ = nullptr;
  QSpinBox* lastX_ = nullptr;
  QSpinBox* firstY_ = nullptr;
  QSpinBox* lastY_ = nullptr;
  QLabel* preview_ = nullptr;
  QLabel* previewCaption_ = nullptr;
  QLabel* summary_ = nullptr;
  QLineEdit* folder_ = nullptr;
  QPushButton* exportButton_ = nullptr;
  QDialog* progress_ = nullptr;
  QLabel* progressLabel_ = nullptr;
  QProgressBar* progressBar_ = nullptr;
  QPushButton* progressCancel_ = nullptr;
  QTimer* summaryTimer_ = nullptr;
  QCheckBox* sendToPacs_ = nullptr;
  QComboBox* pacsNode_ = nullptr;
  PacsSender* pacsSender_ = nullptr;
  QString lastPacsMessage_;
};

}  // namespace tomowb::gui
