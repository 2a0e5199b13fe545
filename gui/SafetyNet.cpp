// SafetyNet: see the header.
#include "gui/SafetyNet.h"

#include <QAction>
#include <QDateTime>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QIcon>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTimer>
#include <algorithm>
#include <memory>

#include "gui/CnrPanel.h"
#include "gui/DataPanel.h"
#include "gui/MainWindow.h"
#include "gui/ViewArea.h"
#include "gui/core/CatalogRun.h"
#include "gui/core/DemoData.h"
#include "gui/core/ErrorWording.h"
#include "gui/core/PetData.h"
#include "gui/core/RunController.h"
#include "gui/core/Workspace.h"
#include "recon/io/GeometryJson.h"
#include "recon/io/VolumeFiles.h"

namespace tomowb::gui {
namespace {

constexpr char kCleanExitMarker[] = "clean-exit";
constexpr char kAutosaveName[] = "autosave.tomowb-session";

QString resultFileName(const NamedVolume& v, int index) {
  return v.runId >= 0 ? QStringLiteral("run%1.mhd").arg(v.runId)
                      : QStringLiteral("volume%1.mhd").arg(index + 1);
}

}  // namespace

SafetyNet::SafetyNet(MainWindow& window) : QObject(&window), window_(window) {
  RunController& runs = window_.runs();
  stopAndKeepAction_ = new QAction(QIcon(QStringLiteral(":/tomowb/icons/cancel.svg")),
                                   tr("Stop and &keep iterate"), this);
  stopAndKeepAction_->setObjectName(QStringLiteral("stopAndKeepAction"));
  stopAndKeepAction_->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_Period));
  stopAndKeepAction_->setStatusTip(
      tr("End the running iterative reconstruction after the iteration in progress and keep "
         "that iterate as its result"));
  stopAndKeepAction_->setEnabled(false);
  connect(stopAndKeepAction_, &QAction::triggered, this, [this] {
    RunController& r = window_.runs();
    if (r.stopAndKeep(r.runningId()))
      window_.statusBar()->showMessage(
          tr("Run %1 stops after the current iteration and keeps its iterate").arg(r.runningId()),
          6000);
    updateStopAction();
  });
  for (auto signal : {&RunController::runStarted, &RunController::runFinished,
                      &RunController::runCancelled, &RunController::runQueued})
    connect(&runs, signal, this, [this](int) { updateStopAction(); });
  connect(&runs, &RunController::runFailed, this, [this] { updateStopAction(); });
  connect(&runs, &RunController::queueChanged, this, [this] { updateStopAction(); });

  saveSessionAction_ = new QAction(tr("Save sess&ion…"), this);
  saveSessionAction_->setObjectName(QStringLiteral("saveSessionAction"));
  saveSessionAction_->setStatusTip(
      tr("Save the data's references, geometry, runs, results, ROIs and layout in one file"));
  connect(saveSessionAction_, &QAction::triggered, this, &SafetyNet::saveSessionWithDialog);
  openSessionAction_ = new QAction(tr("Open sessio&n…"), this);
  openSessionAction_->setObjectName(QStringLiteral("openSessionAction"));
  connect(openSessionAction_, &QAction::triggered, this, &SafetyNet::openSessionWithDialog);

  window_.dataPanel().setCloseGuard([this](const std::vector<int>& indices) {
    return confirmDiscard(indices, indices.size() > 1 ? tr("close them") : tr("close it"));
  });
  autosaveTimer_ = new QTimer(this);
  connect(autosaveTimer_, &QTimer::timeout, this, [this] { autosaveNow(); });
}

void SafetyNet::updateStopAction() {
  RunController& runs = window_.runs();
  stopAndKeepAction_->setEnabled(runs.canStopAndKeep(runs.runningId()));
}

QMessageBox::StandardButton SafetyNet::ask(const QString& question,
                                           QMessageBox::StandardButtons buttons,
                                           QMessageBox::StandardButton fallback) {
  if (asker_) return asker_(question);
  QMessageBox box(QMessageBox::Question, tr("Tomo Workbench"), question, buttons, &window_);
  box.setDefaultButton(fallback);
  return static_cast<QMessageBox::StandardButton>(box.exec());
}

QString SafetyNet::choosePath(bool save) {
  if (pathChooser_) return pathChooser_(save);
  const QString filter = tr("Tomo Workbench sessions (*%1)").arg(QLatin1String(kSessionSuffix));
  if (!save) return QFileDialog::getOpenFileName(&window_, tr("Open session"), QString(), filter);
  QString path = QFileDialog::getSaveFileName(
      &window_, tr("Save session"), QStringLiteral("session") + QLatin1String(kSessionSuffix),
      filter);
  if (!path.isEmpty() && !path.endsWith(QLatin1String(kSessionSuffix)))
    path += QLatin1String(kSessionSuffix);
  return path;
}

bool SafetyNet::confirmDiscard(const std::vector<int>& volumeIndices, const QString& action) {
  const Workspace& ws = window_.workspace();
  const std::vector<int> unsaved = ws.unsavedResultIndices();
  QStringList names;
  for (const int i : unsaved)
    if (std::find(volumeIndices.begin(), volumeIndices.end(), i) != volumeIndices.end())
      names << ws.volumes()[std::size_t(i)].name;
  if (names.isEmpty()) return true;
  const QString question =
      tr("%n reconstructed volume(s) have not been saved or exported:\n\n%1\n\nSave them before "
         "you %2?",
         nullptr, static_cast<int>(names.size()))
          .arg(names.join(QLatin1Char('\n')), action);
  switch (ask(question, QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel,
              QMessageBox::Save)) {
    case QMessageBox::Discard:
      return true;
    case QMessageBox::Save: {
      // Saved as a session with its results beside it: one file dialog for every volume.
      const QString path = choosePath(true);
      if (path.isEmpty()) return false;
      QString error;
      if (saveSession(path, true, &error)) return true;
      QMessageBox::warning(&window_, tr("Save session"), error);
      return false;
    }
    default:
      return false;
  }
}

bool SafetyNet::confirmQuit() {
  std::vector<int> all(window_.workspace().volumes().size());
  for (std::size_t i = 0; i < all.size(); ++i) all[i] = static_cast<int>(i);
  return confirmDiscard(all, tr("quit"));
}

void SafetyNet::noteCurrentVolumeSaved(const QString& path) {
  if (const NamedVolume* v = window_.workspace().currentVolume(); v != nullptr)
    window_.workspace().noteVolumeSaved(v->volume.get(), path);
}

SessionData SafetyNet::captureSession(bool withAutosaved) const {
  const Workspace& ws = window_.workspace();
  SessionData s;
  const int current = ws.currentProjectionsIndex();
  if (current >= 0 && ws.projections()) {
    SessionData::Projections p;
    p.name = ws.projectionsName();
    p.path = ws.projectionsPath();
    const auto& demo = window_.dataPanel().lastDemo();
    // The demo is the first entry of its data set (preprocessed entries follow it, unsaved).
    if (p.path.isEmpty() && demo && current == 0) {
      p.demoKind = demoKindName(demo->kind);
      p.demoSize = demo->size;
    }
    if (const Geometry* g = ws.geometry()) p.geometry = geometryToJson(*g);
    p.waterPerMm = ws.waterValuePerMm();
    s.projections = std::move(p);
  }
  if (ws.petData()) s.petPath = ws.petData()->sourcePath;
  window_.finishRunRecords();  // a result's record may still be being written
  const RunController& runs = window_.runs();
  for (const int id : runs.runIds()) {
    const RunInfo* info = runs.run(id);
    if (info == nullptr || info->state != RunState::Finished) continue;
    SessionData::Run r;
    r.id = id;
    r.title = info->spec.title;
    r.algorithm = info->spec.algorithm;
    r.state = toString(info->state);
    r.parameters = info->spec.parameters;
    r.record = info->record.is_object() ? info->record : nlohmann::json::object();
    r.seconds = info->seconds;
    r.recordPath = info->recordPath;
    for (const NamedVolume& v : ws.volumes())
      if (v.runId == id && v.volume == info->result) {
        r.resultPath = QFileInfo(v.savedPath).isFile() ? v.savedPath : v.sourcePath;
        if (withAutosaved && r.resultPath.isEmpty() && autosavedResults_.count(v.volume.get()) != 0)
          r.resultPath = autosavedResults_.at(v.volume.get());
      }
    s.runs.push_back(std::move(r));
  }
  for (std::size_t i = 0; i < ws.volumes().size(); ++i) {
    const NamedVolume& v = ws.volumes()[i];
    QString path = QFileInfo(v.savedPath).isFile() ? v.savedPath : v.sourcePath;
    if (withAutosaved && path.isEmpty() && autosavedResults_.count(v.volume.get()) != 0)
      path = autosavedResults_.at(v.volume.get());
    s.volumes.push_back({v.name, path, v.runId, static_cast<int>(i) == ws.currentVolumeIndex()});
  }
  s.rois = window_.cnrPanel().roisJson();
  s.windowGeometry = window_.saveGeometry();
  s.windowState = window_.saveState();
  return s;
}

bool SafetyNet::writeResults(const QString& folder, bool markSaved, QString* error) {
  Workspace& ws = window_.workspace();
  std::vector<int> unsaved = ws.unsavedResultIndices();
  // A session also needs the results exported only as DICOM (a folder it cannot read back).
  if (markSaved)
    for (std::size_t i = 0; i < ws.volumes().size(); ++i) {
      const NamedVolume& v = ws.volumes()[i];
      if (v.runId >= 0 && v.volume && v.sourcePath.isEmpty() && !v.savedPath.isEmpty() &&
          !QFileInfo(v.savedPath).isFile())
        unsaved.push_back(static_cast<int>(i));
    }
  if (unsaved.empty()) return true;
  if (!QDir().mkpath(folder)) {
    if (error) *error = tr("%1: cannot create the folder").arg(folder);
    return false;
  }
  std::vector<std::pair<std::shared_ptr<const Volume>, QString>> written;
  for (const int i : unsaved) {
    const NamedVolume& v = ws.volumes()[std::size_t(i)];
    if (!markSaved && autosavedResults_.count(v.volume.get()) != 0) continue;
    const QString path = QDir(folder).filePath(resultFileName(v, i));
    try {
      io::writeVolume(path.toStdString(), *v.volume);  // a temporary name, then a rename
    } catch (const std::exception& e) {
      if (error) *error = QString::fromStdString(e.what());
      return false;
    }
    written.emplace_back(v.volume, path);
  }
  for (const auto& [volume, path] : written) {
    if (markSaved)
      ws.noteVolumeSaved(volume.get(), path);
    else
      autosavedResults_[volume.get()] = path;
  }
  return true;
}

bool SafetyNet::saveSession(const QString& path, bool saveResults, QString* error) {
  if (saveResults) {
    const QFileInfo info(path);
    const QString folder =
        info.absoluteDir().filePath(info.completeBaseName() + QStringLiteral("-results"));
    if (!writeResults(folder, true, error)) return false;
  }
  try {
    writeSessionFile(path, captureSession());
  } catch (const std::exception& e) {
    if (error) *error = QString::fromStdString(e.what());
    return false;
  }
  window_.statusBar()->showMessage(tr("Saved session %1").arg(path), 6000);
  return true;
}

void SafetyNet::saveSessionWithDialog() {
  const QString path = choosePath(true);
  if (path.isEmpty()) return;
  bool saveResults = false;
  const std::size_t unsaved = window_.workspace().unsavedResultIndices().size();
  if (unsaved > 0) {
    const auto answer =
        ask(tr("%n reconstructed volume(s) are not saved yet. Save them beside the session (in a "
               "folder named after it), so the session can open them again?",
               nullptr, static_cast<int>(unsaved)),
            QMessageBox::Yes | QMessageBox::No | QMessageBox::Cancel, QMessageBox::Yes);
    if (answer == QMessageBox::Cancel) return;
    saveResults = answer == QMessageBox::Yes;
  }
  QString error;
  if (!saveSession(path, saveResults, &error))
    QMessageBox::warning(&window_, tr("Save session"), error);
}

void SafetyNet::openSessionWithDialog() {
  const QString path = choosePath(false);
  if (path.isEmpty()) return;
  QString error;
  if (!openSession(path, &error))
    QMessageBox::warning(&window_, tr("Open session"),
                         tr("This file cannot be opened as a session.\n\nDetails: %1").arg(error));
}

bool SafetyNet::openSession(const QString& path, QString* error) {
  problems_.clear();
  SessionData session;
  try {
    session = readSessionFile(path);
  } catch (const std::exception& e) {
    if (error) *error = QString::fromStdString(e.what());
    return false;
  }
  RunController& runs = window_.runs();
  if (runs.busy()) {
    if (error) *error = tr("%1: wait for the running reconstruction to end").arg(path);
    return false;
  }
  std::vector<int> all(window_.workspace().volumes().size());
  for (std::size_t i = 0; i < all.size(); ++i) all[i] = static_cast<int>(i);
  if (!confirmDiscard(all, tr("open the session"))) {
    if (error) *error = tr("%1: not opened, the unsaved results were kept").arg(path);
    return false;
  }
  window_.workspace().clear();
  for (const int id : runs.runIds()) runs.forget(id);
  if (!session.windowGeometry.isEmpty()) window_.restoreGeometry(session.windowGeometry);
  if (!session.windowState.isEmpty()) window_.restoreState(session.windowState);
  restoring_ = true;

  // The data first (off the GUI thread); the rest when it is in, so a new data set does not
  // drop the ROIs restored before it.
  DataPanel& data = window_.dataPanel();
  bool waiting = false;
  if (session.projections) {
    const SessionData::Projections& p = *session.projections;
    if (!p.demoKind.isEmpty()) {
      data.openDemo(demoKindFromName(p.demoKind), p.demoSize);
      waiting = true;
    } else if (!p.path.isEmpty() && QFileInfo::exists(p.path)) {
      data.openFiles({p.path});
      waiting = true;
    } else if (!p.path.isEmpty()) {
      problems_ << tr("The projections %1 are missing (moved or deleted); the rest is opened "
                      "without them.")
                       .arg(p.path);
    } else {
      problems_ << tr("The projections \"%1\" were made in the window (preprocessed or "
                      "simulated) and were not saved; open their source again.")
                       .arg(p.name);
    }
  }
  if (!session.petPath.isEmpty()) {
    if (QFileInfo::exists(session.petPath))
      data.openFiles({session.petPath});
    else
      problems_ << tr("The list-mode file %1 is missing.").arg(session.petPath);
  }
  if (!waiting) {
    restoreAfterData(session, path);
    return true;
  }
  auto done = std::make_shared<QMetaObject::Connection>();
  auto failed = std::make_shared<QMetaObject::Connection>();
  const auto proceed = [this, session, path, done, failed](const QString& failure) {
    QObject::disconnect(*done);
    QObject::disconnect(*failed);
    if (!failure.isEmpty())
      problems_ << tr("The projections could not be opened: %1")
                       .arg(QString::fromStdString(wordLoadError(failure.toStdString()).text()));
    restoreAfterData(session, path);
  };
  *done = connect(&data, &DataPanel::loaded, this, [proceed] { proceed({}); });
  *failed = connect(&data, &DataPanel::loadFailed, this,
                    [proceed](const QString& message) { proceed(message); });
  return true;
}

void SafetyNet::restoreAfterData(const SessionData& session, const QString& path) {
  Workspace& ws = window_.workspace();
  RunController& runs = window_.runs();
  // The geometry the runs used (an edited one replaces the file's own).
  if (session.projections && !session.projections->geometry.is_null() && ws.projections()) {
    try {
      const Geometry g = geometryFromJson(session.projections->geometry, path.toStdString());
      if (!(ws.geometry() != nullptr && *ws.geometry() == g)) ws.setGeometry(g);
    } catch (const std::exception& e) {
      problems_ << tr("The session's geometry does not fit the projections: %1")
                       .arg(QString::fromStdString(e.what()));
    }
  }
  // The water value the user gave for HU (View > Water value for HU…).
  if (session.projections && session.projections->waterPerMm.has_value() && ws.projections())
    ws.setWaterValuePerMm(session.projections->waterPerMm);
  // Runs, with their saved results (MainWindow::onRunFinished shows each as a volume).
  const QString autosaveDir = QDir(autosaveFolder()).absolutePath();
  std::map<int, int> newIds;
  std::map<int, QString> resultPaths;
  for (const SessionData::Run& r : session.runs) {
    std::shared_ptr<const Volume> result;
    if (!r.resultPath.isEmpty()) {
      if (!QFileInfo::exists(r.resultPath)) {
        problems_
            << tr("Run %1 (%2): its result %3 is missing.").arg(r.id).arg(r.title, r.resultPath);
      } else {
        try {
          result = std::make_shared<const Volume>(io::readVolume(r.resultPath.toStdString()));
        } catch (const std::exception& e) {
          problems_ << tr("Run %1 (%2): %3")
                           .arg(r.id)
                           .arg(r.title,
                                QString::fromStdString(
                                    wordLoadError(e.what(), r.resultPath.toStdString()).text()));
        }
      }
    } else {
      problems_ << tr("Run %1 (%2): its result was not saved with the session; its record is "
                      "listed without a volume.")
                       .arg(r.id)
                       .arg(r.title);
    }
    RunSpec spec;
    spec.title = r.title;
    spec.algorithm = r.algorithm;
    spec.parameters = r.parameters;
    spec.parameters["openedRecord"] = path.toStdString();  // no new run record is written
    spec.iterative = isIterativeAlgorithm(r.algorithm);
    const int id = runs.addEndedRun(std::move(spec), result, r.record, r.seconds, r.recordPath);
    newIds[r.id] = id;
    // A result read back from the autosave folder is not saved anywhere the user chose.
    if (result && !QFileInfo(r.resultPath).absolutePath().startsWith(autosaveDir))
      ws.noteVolumeSaved(result.get(), r.resultPath);
  }
  // Loaded volumes (not run results) open as files, after the projections.
  QStringList files;
  for (const SessionData::VolumeEntry& v : session.volumes) {
    if (v.runId >= 0) continue;
    if (v.path.isEmpty())
      problems_ << tr("The volume \"%1\" was not saved with the session.").arg(v.name);
    else if (!QFileInfo::exists(v.path))
      problems_ << tr("The volume %1 is missing.").arg(v.path);
    else
      files << v.path;
  }
  if (!files.isEmpty()) window_.dataPanel().openFiles(files);
  // The volume that was shown, when it is a run's result.
  for (const SessionData::VolumeEntry& v : session.volumes)
    if (v.current && v.runId >= 0 && newIds.count(v.runId) != 0)
      for (std::size_t i = 0; i < ws.volumes().size(); ++i)
        if (ws.volumes()[i].runId == newIds.at(v.runId)) ws.setCurrentVolume(static_cast<int>(i));
  // ROIs last: the new data set dropped those of the old one.
  if (session.rois.is_array() && !session.rois.empty())
    window_.viewArea().setRois(CnrPanel::roisFromJson(session.rois));
  finishOpen(path);
}

void SafetyNet::finishOpen(const QString& path) {
  restoring_ = false;
  if (!problems_.isEmpty()) {
    window_.statusBar()->showMessage(
        tr("Opened session %1 with %n problem(s)", nullptr, static_cast<int>(problems_.size()))
            .arg(path),
        10000);
    if (!asker_) {
      // Non-modal: the window is usable while the user reads what is missing.
      auto* box = new QMessageBox(
          QMessageBox::Warning, tr("Open session"),
          tr("The session %1 was opened, but not all of it could be restored.").arg(path),
          QMessageBox::Ok, &window_);
      box->setInformativeText(problems_.join(QStringLiteral("\n\n")));
      box->setAttribute(Qt::WA_DeleteOnClose);
      box->open();
    }
  } else {
    window_.statusBar()->showMessage(tr("Opened session %1").arg(path), 6000);
  }
  emit sessionRestored(path);
}

// --- autosave ----------------------------------------------------------------------------------

QString SafetyNet::autosaveFolder() const {
  if (!autosaveFolder_.isEmpty()) return autosaveFolder_;
  return QStandardPaths::writableLocation(QStandardPaths::AppLocalDataLocation) +
         QStringLiteral("/autosave");
}

QString SafetyNet::autosavePath() const {
  return QDir(autosaveFolder()).filePath(QLatin1String(kAutosaveName));
}

void SafetyNet::startAutosave(int intervalMs) {
  QDir().mkpath(autosaveFolder());
  QFile::remove(QDir(autosaveFolder()).filePath(QLatin1String(kCleanExitMarker)));
  autosaveTimer_->start(intervalMs);
  autosaveStarted_ = true;
}

bool SafetyNet::autosaveNow(QString* error) {
  if (restoring_) return false;
  const QString folder = autosaveFolder();
  QString why;
  bool ok = QDir().mkpath(folder) && writeResults(folder, false, &why);
  if (ok) {
    try {
      writeSessionFile(autosavePath(), captureSession(true));
    } catch (const std::exception& e) {
      why = QString::fromStdString(e.what());
      ok = false;
    }
  } else if (why.isEmpty()) {
    why = tr("%1: cannot create the folder").arg(folder);
  }
  if (!ok) {
    if (error) *error = why;
    window_.statusBar()->showMessage(tr("Autosave failed: %1").arg(why), 8000);
    return false;
  }
  emit autosaved(autosavePath());
  return true;
}

bool SafetyNet::recoveryAvailable() const {
  return QFileInfo::exists(autosavePath()) &&
         !QFileInfo::exists(QDir(autosaveFolder()).filePath(QLatin1String(kCleanExitMarker)));
}

bool SafetyNet::offerRecovery() {
  if (!recoveryAvailable()) return false;
  const QString when = QFileInfo(autosavePath()).lastModified().toString(Qt::TextDate);
  if (ask(tr("Tomo Workbench did not quit cleanly last time. Recover the previous session "
             "(autosaved %1)?")
              .arg(when),
          QMessageBox::Yes | QMessageBox::No, QMessageBox::Yes) != QMessageBox::Yes)
    return false;
  QString error;
  if (!openSession(autosavePath(), &error)) {
    QMessageBox::warning(&window_, tr("Recover session"),
                         tr("The autosaved session cannot be opened.\n\nDetails: %1").arg(error));
    return false;
  }
  return true;
}

void SafetyNet::noteCleanExit() {
  // A window that never autosaved (tests, scripted runs) leaves the folder alone.
  if (!autosaveStarted_) return;
  autosaveTimer_->stop();
  autosavedResults_.clear();
  // The folder holds only the autosave and its results: all of it goes, the marker stays.
  QDir folder(autosaveFolder());
  if (!folder.exists()) return;
  folder.removeRecursively();
  QDir().mkpath(folder.absolutePath());
  QFile marker(folder.filePath(QLatin1String(kCleanExitMarker)));
  if (marker.open(QIODevice::WriteOnly)) marker.close();
}

}  // namespace tomowb::gui
