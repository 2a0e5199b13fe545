// DicomExportDialogExport.cpp: DicomExportDialog's export run: checks at the start, the worker
// thread with its throttled progress and cancel, and the outcome (message, previous study, errors).
#include <QCoreApplication>
#include <QDateTime>
#include <QDir>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QLabel>
#include <QMessageBox>
#include <QMetaObject>
#include <QProgressBar>
#include <QPushButton>
#include <QSettings>
#include <QTimer>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>
#include <new>

#include "gui/DicomExportDialog.h"
#include "gui/DicomExportDialogInternal.h"
#include "recon/core/Error.h"
#include "recon/job/JobContext.h"
#include "recon/job/ProgressSink.h"

namespace tomowb::gui {

namespace {

using detail::filesText;
using detail::humanBytes;
using detail::isNonEmptyFolder;
using detail::kLastParentKey;
using detail::number;
using detail::previousStudyStorage;
using io::dicom::DicomExportOptions;
using io::dicom::DicomExportPlan;

// Progress reaches the event loop at most 20 times a second.
constexpr auto kProgressInterval = std::chrono::milliseconds(50);
constexpr int kProgressShowDelayMs = 300;

// Calls a function for each progress report (the dialog's throttled forwarding).
struct FunctionProgressSink : ProgressSink {
  std::function<void(double)> onReport;
  void report(std::string_view, double fraction) override { onReport(fraction); }
};

}  // namespace

bool DicomExportDialog::startExport() {
  if (isExporting()) return false;
  refreshSummary();
  const auto notStarted = [this](const QString& message) {
    outcome_ = Outcome::NotStarted;
    lastMessage_ = message;
    return false;
  };
  if (!plan_) return notStarted(problem_);
  const QString typed = outputFolder();
  if (typed.isEmpty()) return notStarted(tr("Choose a folder for the series"));
  const QString folder = QDir::cleanPath(QFileInfo(typed).absoluteFilePath());
  const QFileInfo info(folder);
  bool replace = false;
  if (info.exists() && !info.isDir()) {
    const QString message =
        tr("%1 is a file, not a folder: choose another name").arg(QDir::toNativeSeparators(folder));
    if (showsErrorDialogs_) QMessageBox::warning(this, tr("Export DICOM series"), message);
    return notStarted(message);
  }
  if (isNonEmptyFolder(folder)) {
    if (!confirmReplace_ || !confirmReplace_(folder))
      return notStarted(
          tr("%1 was kept: nothing was written").arg(QDir::toNativeSeparators(folder)));
    replace = true;
  }

  DicomExportOptions o = options();
  // A fixed date and time, so that a later series of the same study carries the same.
  const QDateTime now = QDateTime::currentDateTime();
  if (o.identity.studyDate.empty())
    o.identity.studyDate = now.toString(QStringLiteral("yyyyMMdd")).toStdString();
  if (o.identity.studyTime.empty())
    o.identity.studyTime = now.toString(QStringLiteral("HHmmss")).toStdString();

  exportOptions_ = o;
  outcome_ = Outcome::None;
  lastMessage_.clear();
  result_.reset();
  exportFolder_ = folder;
  cancel_ = std::make_shared<CancelToken>();
  progressLabel_->setText(
      tr("Writing the DICOM series to %1…").arg(QDir::toNativeSeparators(folder)));
  progressBar_->setValue(0);
  progressCancel_->setEnabled(true);
  // Shown only for exports that take a while: a small series is done before it would appear.
  QTimer::singleShot(kProgressShowDelayMs, this, [this] {
    if (isExporting()) progress_->open();
  });
  exportButton_->setEnabled(false);

  // The worker only touches its own copies and the shared volume; it reaches the dialog through
  // queued calls, and the destructor joins it, so none of them outlives the dialog.
  worker_ = std::thread([this, volume = volume_, folder = folder.toStdString(), o, replace,
                         cancel = cancel_, observer = progressObserver_] {
    std::optional<io::dicom::DicomExportResult> result;
    bool cancelled = false;
    QString error;
    std::chrono::steady_clock::time_point lastPost{};
    FunctionProgressSink sink;
    sink.onReport = [&](double fraction) {
      if (observer) observer(fraction);
      const auto now = std::chrono::steady_clock::now();
      if (now - lastPost < kProgressInterval && fraction < 1.0) return;
      lastPost = now;
      QMetaObject::invokeMethod(
          this, [this, fraction] { onProgress(fraction); }, Qt::QueuedConnection);
    };
    try {
      JobContext context(*cancel, &sink);
      result = io::dicom::exportDicom(*volume, folder, o, context, replace);
    } catch (const Cancelled&) {
      cancelled = true;
    } catch (const std::bad_alloc&) {
      error = tr("not enough memory for the export");
    } catch (const std::exception& e) {
      error = QString::fromStdString(e.what());
    }
    QMetaObject::invokeMethod(
        this, [this, result, cancelled, error] { onWorkerDone(result, cancelled, error); },
        Qt::QueuedConnection);
  });
  return true;
}

void DicomExportDialog::cancelExport() {
  if (cancel_) cancel_->request();
}

bool DicomExportDialog::waitForExport(int timeoutMs) {
  QElapsedTimer timer;
  timer.start();
  while (isExporting() && timer.elapsed() < timeoutMs)
    QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
  return !isExporting();
}

void DicomExportDialog::onProgress(double fraction) {
  progressBar_->setValue(static_cast<int>(std::lround(std::clamp(fraction, 0.0, 1.0) * 1000)));
}

void DicomExportDialog::onWorkerDone(std::optional<io::dicom::DicomExportResult> result,
                                     bool cancelled, const QString& error) {
  if (worker_.joinable()) worker_.join();
  progress_->hide();
  const QString folder = QDir::toNativeSeparators(exportFolder_);
  if (result) {
    outcome_ = Outcome::Succeeded;
    result_ = std::move(result);
    const DicomExportPlan& p = result_->plan;
    lastMessage_ = tr("DICOM series written to %1: %2, %3, worst rounding ±%4 %5")
                       .arg(folder, filesText(static_cast<std::int64_t>(result_->files.size())))
                       .arg(humanBytes(static_cast<double>(result_->bytesWritten)))
                       .arg(number(p.maxQuantisationError), QString::fromStdString(p.units));
    // Remember the study for "Add to the study of the previous export", and where it went.
    PreviousStudy previous;
    previous.identity = exportOptions_.identity;
    previous.identity.studyInstanceUid = result_->studyInstanceUid;
    previous.lastSeriesNumber = exportOptions_.identity.seriesNumber;
    previousStudyStorage() = previous;
    QSettings().setValue(kLastParentKey, QFileInfo(exportFolder_).absolutePath());
    // With "Send to PACS", the dialog reports and closes when the send has ended.
    if (startPacsSend()) return;
    emit exportSucceeded(lastMessage_);
    accept();
  } else if (cancelled) {
    outcome_ = Outcome::Cancelled;
    lastMessage_ = tr("DICOM export cancelled: nothing was written");
    if (QFileInfo::exists(exportFolder_)) lastMessage_ += tr(" (%1 is as it was)").arg(folder);
    summary_->setText(summary_->text() + QStringLiteral("<br><b>%1</b>").arg(lastMessage_));
    emit exportCancelled(lastMessage_);
  } else {
    outcome_ = Outcome::Failed;
    // The core's messages name the file; say which export the others are about.
    lastMessage_ = error.contains(QFileInfo(exportFolder_).fileName())
                       ? error
                       : tr("%1: %2").arg(folder, error);
    emit exportFailed(lastMessage_);
    if (showsErrorDialogs_) {
      auto* box =
          new QMessageBox(QMessageBox::Warning, tr("DICOM export failed"),
                          lastMessage_ + tr("\n\nNothing was left behind."), QMessageBox::Ok, this);
      box->setAttribute(Qt::WA_DeleteOnClose);
      box->open();
    }
  }
  updateExportButton();
}

void DicomExportDialog::updateExportButton() {
  exportButton_->setEnabled(plan_.has_value() && !outputFolder().isEmpty() && !isExporting() &&
                            !isSendingToPacs());
  exportButton_->setToolTip(
      plan_ ? (outputFolder().isEmpty() ? tr("Choose a folder first") : tr("Write the series"))
            : problem_);
}

}  // namespace tomowb::gui
