// SafetyNet: what keeps a user's results from being lost (issue #21, point 8; docs/gui.md,
// "Sessions and safety net"):
//  - "Stop and keep" (Run menu, toolbar): ends the running iterative run after the iteration in
//    progress and keeps that iterate as its result (RunController::stopAndKeep);
//  - a Save…/Discard/Cancel question before Close all, closing one result, and quitting while
//    reconstructed volumes are neither saved nor exported (Workspace::unsavedResultIndices);
//  - File > Save session… / Open session… (Session.h): the data's references, the geometry, the
//    runs with their saved results (unsaved ones are offered to be saved beside the session), the
//    ROIs and the window layout; opening reports each missing file and opens the rest;
//  - an autosave every 5 minutes to the per-user data folder, offered back ("Recover the previous
//    session?") on the next start when the window did not quit cleanly.
// The window owns one; MainWindow only calls it from its close event, its save/export paths and
// its menus.
#pragma once

#include <QMessageBox>
#include <QObject>
#include <QString>
#include <QStringList>
#include <functional>
#include <map>
#include <vector>

#include "gui/core/Session.h"

class QAction;
class QMenu;
class QTimer;

namespace tomowb {
class Volume;
}

namespace tomowb::gui {

class MainWindow;

class SafetyNet : public QObject {
  Q_OBJECT

 public:
  explicit SafetyNet(MainWindow& window);

  QAction* stopAndKeepAction() const { return stopAndKeepAction_; }
  QAction* saveSessionAction() const { return saveSessionAction_; }
  QAction* openSessionAction() const { return openSessionAction_; }

  // --- unsaved results ---
  // True when none of the workspace's volumes `volumeIndices` is an unsaved result, or the user
  // chose Discard, or Save… saved them (as a session with its results); false for Cancel.
  // `action` completes "… before you %1" in the question ("close them", "quit").
  bool confirmDiscard(const std::vector<int>& volumeIndices, const QString& action);
  bool confirmQuit();
  // Tests: answer the questions without a dialog (Save, Discard, Cancel; Yes/No for recovery),
  // and choose the file Save… and Save session… write (empty: cancelled).
  using Asker = std::function<QMessageBox::StandardButton(const QString& question)>;
  void setAsker(Asker asker) { asker_ = std::move(asker); }
  using PathChooser = std::function<QString(bool save)>;
  void setPathChooser(PathChooser chooser) { pathChooser_ = std::move(chooser); }

  // --- sessions ---
  // Writes the session to `path`; with `saveResults`, unsaved results first go beside it as
  // NAME-results/run<N>.mhd (and count as saved). False with `error` ("PATH: reason").
  bool saveSession(const QString& path, bool saveResults, QString* error = nullptr);
  // Replaces what is open with the session (after the unsaved-results question). False with
  // `error` when the file itself cannot be read; missing or unreadable data files are listed in
  // lastOpenProblems() (and shown in one dialog) while the rest opens. The data load off the GUI
  // thread: sessionRestored() says when everything is in.
  bool openSession(const QString& path, QString* error = nullptr);
  const QStringList& lastOpenProblems() const { return problems_; }
  // File > Save session… and Open session…: dialogs, then the above.
  void saveSessionWithDialog();
  void openSessionWithDialog();

  // --- autosave and recovery ---
  // The folder of the autosave (default: QStandardPaths::AppLocalDataLocation/autosave).
  void setAutosaveFolder(const QString& folder) { autosaveFolder_ = folder; }
  QString autosaveFolder() const;
  QString autosavePath() const;
  // Starts the autosave timer (5 minutes unless given) and removes the clean-exit marker; call
  // once per interactive start (main.cpp), after recoveryAvailable() was asked.
  void startAutosave(int intervalMs = kAutosaveIntervalMs);
  // Writes the autosave now (unsaved results once each into the folder; they stay unsaved).
  bool autosaveNow(QString* error = nullptr);
  // An autosave is there and the last window did not quit cleanly (no marker).
  bool recoveryAvailable() const;
  // Asks "Recover the previous session?" when recoveryAvailable(); Yes opens the autosave.
  // Returns true when it was recovered.
  bool offerRecovery();
  // A clean quit: the autosave goes, the marker stays (only after startAutosave).
  void noteCleanExit();

  static constexpr int kAutosaveIntervalMs = 5 * 60 * 1000;

  // The window's present state as a session (no file written); `withAutosaved`: results only
  // written by the autosave are referenced too (the autosave's own session).
  SessionData captureSession(bool withAutosaved = false) const;

  // Notes that the volume shown was saved or exported to `path` (MainWindow's save paths).
  void noteCurrentVolumeSaved(const QString& path);

 signals:
  void sessionRestored(const QString& path);
  void autosaved(const QString& path);

 private:
  QMessageBox::StandardButton ask(const QString& question, QMessageBox::StandardButtons buttons,
                                  QMessageBox::StandardButton fallback);
  QString choosePath(bool save);
  void updateStopAction();
  // Writes the unsaved results into `folder`; `markSaved`: they count as saved afterwards.
  bool writeResults(const QString& folder, bool markSaved, QString* error);
  void restoreAfterData(const SessionData& session, const QString& path);
  void finishOpen(const QString& path);

  MainWindow& window_;
  QAction* stopAndKeepAction_ = nullptr;
  QAction* saveSessionAction_ = nullptr;
  QAction* openSessionAction_ = nullptr;
  QTimer* autosaveTimer_ = nullptr;
  Asker asker_;
  PathChooser pathChooser_;
  QString autosaveFolder_;
  QStringList problems_;
  // Autosave: results written once, by volume, so the next autosave does not write them again.
  std::map<const Volume*, QString> autosavedResults_;
  bool restoring_ = false;
  bool autosaveStarted_ = false;
};

}  // namespace tomowb::gui
