// DataPanel: the data dock. Lists what the workspace holds (the projections with their view
// count, detector and beam; the demo's analytic phantom; every volume with its shape and voxel
// size), opens files and the demo off the GUI thread through LoadTask (a progress bar and Cancel
// while it runs; UX goals U7, U9), makes a selected volume current, and offers Close and Show
// file info in a context menu. Preprocess projections… (a button, the projections' context menu,
// the Run menu) opens PreprocessDialog and runs preprocess::preprocessTiltSeries on the loader's
// worker thread (same progress bar and Cancel); the result is a new projections entry beside
// its source, and clicking a projections entry makes it the one panels and runs use. The main
// window routes drag-and-drop and command-line files to openFiles(). DICOM files and folders
// (builds with DCMTK) open as volumes named after their series, with the reader's warnings on the
// entry; a folder with several series asks which one first. Recent files live in QSettings
// ("recentFiles", newest first, at most 10). An unreadable file gives a message box naming the file
// and the problem; the window stays usable and the next queued file still opens. TOF-PET list mode
// (*.lm) opens as PET data (Workspace::setPetData), and simulatePet() makes a PET scan on the
// loader's thread (same progress bar and Cancel); a scan simulated here brings its phantom's
// activity map as a volume ("PET phantom: activity (Bq/mL)").
// A stack that says nothing about what it holds (.npy, TIFF, an MRC file that is not a tilt
// series: LoadTask::mayHoldEither) asks "projections or volume?" first; "Projections…" opens
// OpenProjectionsDialog to attach a geometry (File > Open projections… opens it directly). The
// context menu reopens a file the other way: "Open as tilt series / projections…" on a volume
// (an MRC with NAME.tlt beside it opens at once), "Open as volume" on projections from a stack.
#pragma once

#include <QStringList>
#include <QWidget>
#include <functional>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "gui/core/LoadTask.h"
#include "gui/core/PetData.h"

class QAction;
class QLabel;
class QMenu;
class QProgressBar;
class QPushButton;
class QToolButton;
class QTreeWidget;
class QTreeWidgetItem;

namespace tomowb::gui {

class Workspace;

class DataPanel : public QWidget {
  Q_OBJECT

 public:
  static constexpr int kMaxRecentFiles = 10;

  explicit DataPanel(Workspace& workspace, QWidget* parent = nullptr);
  // Wide enough for its labels and spin boxes when the dock is first laid out.
  QSize sizeHint() const override;

  // Newest first, from QSettings "recentFiles".
  QStringList recentFiles() const;
  void clearRecentFiles();
  // The QFileDialog name filters: "All supported files (...)" first, then one per format.
  static QStringList nameFilters();

  bool isLoading() const { return loader_->busy(); }
  // Files waiting behind the one loading now.
  int queuedFileCount() const { return static_cast<int>(queue_.size()); }
  // The reader's (or preprocessing's) warnings about the current projections.
  QStringList projectionWarnings() const;
  // Preprocess projections…: enabled while projections are open and nothing is loading.
  QAction* preprocessAction() const { return preprocessAction_; }
  // The last error shown (for tests and the status bar).
  QString lastError() const { return lastError_; }
  // When false, errors are only emitted (loadFailed) and not shown in a message box (tests,
  // command-line automation).
  void setShowsErrorDialogs(bool shows) { showsErrorDialogs_ = shows; }
  // Asked which series of a DICOM folder to open; returns its UID, or empty to open none. The
  // default asks with QInputDialog::getItem; tests answer themselves.
  using DicomSeriesChooser =
      std::function<QString(const QString& path, const QList<DicomSeriesOption>& series)>;
  void setDicomSeriesChooser(DicomSeriesChooser chooser) { chooseSeries_ = std::move(chooser); }
  // Asked whether a stack (LoadTask::mayHoldEither) holds projections or a volume. The default
  // asks with a message box and, for projections, OpenProjectionsDialog; tests answer themselves.
  enum class StackChoice { Volume, Projections, Cancel };
  struct StackAnswer {
    StackChoice choice = StackChoice::Cancel;
    io::GeometryAttachment attachment;  // Projections: the geometry to attach
  };
  using StackKindChooser = std::function<StackAnswer(const QString& path)>;
  void setStackKindChooser(StackKindChooser chooser) { chooseStackKind_ = std::move(chooser); }
  // The context menu of list row `row` (projections first, then the phantom, then volumes):
  // triggers the action whose text, without '&', starts with `text`; false if there is none or
  // it is disabled. For tests; the menu itself shows on right-click.
  bool triggerContextMenuAction(int row, const QString& text);
  // The reader's warnings about the workspace's volume `index` (DICOM), or none.
  QStringList volumeWarnings(int index) const;
  // Asked before volumes are closed (one with its Close, all with Close all): true lets them go.
  // The window's SafetyNet asks about unsaved results; without a guard everything closes.
  using CloseGuard = std::function<bool(const std::vector<int>& volumeIndices)>;
  void setCloseGuard(CloseGuard guard) { closeGuard_ = std::move(guard); }
  // Close all of the context menu: asks the guard about every volume, then clears the workspace.
  // Returns false when the guard said no.
  bool closeAll();
  // The demo last asked for (openDemo), for a session to record; none before the first.
  struct DemoRequest {
    DemoKind kind;
    int size;
  };
  const std::optional<DemoRequest>& lastDemo() const { return lastDemo_; }

 public slots:
  // Opens each file in turn (projections or volume, decided by the format); folders are read as
  // TIFF series.
  void openFiles(const QStringList& paths);
  void openDemo(tomowb::gui::DemoKind kind, int size = 128);
  // Simulates a TOF-PET scan of the PET phantom (LoadTask::startPetSimulation); the result
  // becomes the workspace's PET data.
  void simulatePet(const tomowb::gui::PetSimulationRequest& request);
  // File > Open list-mode…: a file dialog for *.lm, then openFiles().
  void showOpenListModeDialog();
  void showOpenDialog();
  void showOpenFolderDialog();
  // File > Open projections…: OpenProjectionsDialog (non-modal), then openProjections().
  void showOpenProjectionsDialog(const QString& path = {});
  // Reads `path` as projections with the geometry `attachment` names (LoadTask::
  // startProjections); the entry is "FILE + GEOMETRY".
  void openProjections(const QString& path, const tomowb::io::GeometryAttachment& attachment);
  // Reads `path` as a volume, whatever it holds (an MRC tilt series as a plain stack).
  void openAsVolume(const QString& path);
  // A folder of DICOM files (several series: asks which one).
  void showOpenDicomFolderDialog();
  // Drops the running load and everything queued: nothing of it is kept.
  void cancelLoading();
  // Opens PreprocessDialog (non-modal, deleted on close) for the current projections; OK calls
  // preprocess().
  void showPreprocessDialog();
  // Preprocesses the current projections on a worker thread; the result becomes a new entry
  // named after the source and the steps. Parameter errors go to loadFailed like load errors.
  void preprocess(const tomowb::preprocess::TiltSeriesPreprocessing& params);

 signals:
  void recentFilesChanged();
  void loadStarted(const QString& label);
  void loaded(const QString& name);  // after the workspace has taken the data
  void loadFailed(const QString& message);
  void loadCancelled();
  void preprocessStarted(const QString& label);  // for the status bar
  // A run record (*.run.json) was read, with its output volume when that still exists: for the
  // run list, not a Data panel entry (result.runRecord, GuiRunRecords.h).
  void runRecordLoaded(const tomowb::gui::LoadResult& result);

 private:
  enum ItemKind { ProjectionsItem = 1, PhantomItem, VolumeItem, PetItem };

  void startNext();
  void onLoaded(const LoadResult& result);
  void onPetLoaded(const LoadResult& result);
  void addPetItem();  // the PET data's row of the list
  void chooseDicomSeries(const LoadResult& listing);
  void onFailed(const QString& message);
  void onProgress(double fraction);
  void setBusy(bool busy, const QString& label = {}, bool preprocessing = false);
  void updatePreprocessAction();
  void addRecentFile(const QString& path);
  void rebuildList();
  void onItemClicked(QTreeWidgetItem* item);
  void showContextMenu(const QPoint& position);
  void fillContextMenu(QMenu& menu, QTreeWidgetItem* item);
  StackAnswer askStackKind(const QString& path);
  void startLoad(const std::function<void()>& start);
  void closeItem(QTreeWidgetItem* item);
  void showFileInfo(QTreeWidgetItem* item);

  Workspace& workspace_;
  LoadTask* loader_ = nullptr;
  QStringList queue_;
  QString lastError_;
  bool showsErrorDialogs_ = true;
  DicomSeriesChooser chooseSeries_;
  StackKindChooser chooseStackKind_;
  CloseGuard closeGuard_;
  std::optional<DemoRequest> lastDemo_;
  // Reader warnings of loaded volumes, by volume (NamedVolume has no place for them).
  std::vector<std::pair<std::weak_ptr<const Volume>, QStringList>> volumeWarnings_;

  QTreeWidget* list_ = nullptr;
  QToolButton* openButton_ = nullptr;
  QToolButton* preprocessButton_ = nullptr;
  QAction* preprocessAction_ = nullptr;
  QWidget* busyRow_ = nullptr;
  QLabel* busyLabel_ = nullptr;
  QProgressBar* progress_ = nullptr;
  QPushButton* cancelButton_ = nullptr;
};

}  // namespace tomowb::gui
