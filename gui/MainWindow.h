// MainWindow: the workbench window. Docks for data, geometry, algorithm, runs, run log,
// throughput, contrast-to-noise, projections and the geometry consistency check around a central
// view area (three linked slice views and a 3-D view). Menus, a toolbar, keyboard shortcuts and a
// status bar (device, memory, the run's state and the event loop's responsiveness); layout,
// recent files and theme are remembered with QSettings. The window owns the Workspace (what is
// open) and the RunController (what runs); panels talk through those, not to each other.
#pragma once

#include <QElapsedTimer>
#include <QMainWindow>
#include <QPointer>
#include <QStringList>
#include <functional>
#include <future>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

class QAction;
class QDockWidget;
class QLabel;
class QMenu;
class QProgressBar;
class QStackedWidget;
class QTimer;

namespace tomowb {
class Volume;
}

namespace tomowb::gui {

class AlgorithmPanel;
class CnrPanel;
class ClusterDialog;
class CompareView;
class ConsistencyView;
class ConvergencePanel;
class DataPanel;
class DockSizeKeeper;
class EventLoopMonitor;
class GeometryPanel;
class PetAlgorithmPanel;
class PetDataPanel;
class PetQualityPanel;
struct PetSimulationRequest;
class ProjectionBrowser;
class RunController;
class SafetyNet;
class RunListPanel;
class RunLogPanel;
class ThroughputPanel;
struct LoadResult;
class ViewArea;
class Workspace;
enum class DemoKind;

enum class Theme { System, Light, Dark };

// What `tomowb` was asked to do on the command line (gui/main.cpp parses it).
struct StartupOptions {
  QStringList files;
  bool demo = false;
  QString demoName = QStringLiteral("shepp-logan");  // "shepp-logan", "cnr", "et", "helical", "pet"
  int demoSize = 128;
  bool runAfterLoad = false;  // start a run once the data is there (the panel's algorithm)
  int volumeSize = 0;         // override the volume edge of that run (0: the panel's)
  QString algorithm;          // override the panel's algorithm: "fdk", "wbp", "sirt", ...
  int iterations = 0;         // override the panel's iterations (0: the panel's)
  QString screenshotDir;      // save screenshots during and after the run
  bool quitAfterRun = false;  // exit when the run (and its screenshots) are done
  QString layout;             // "four-up" or "one-up"
  bool livePreview = true;    // false: no intermediate volumes (to measure their cost)
  bool tour = false;          // with screenshotDir: also shoot each main dock after the run
  QString device;             // "cpu", "gpu" (the fastest) or "gpu:N"; empty: the panel's default
  QStringList variants;       // kernel variants, one run each in turn (empty: the panel's)
  bool compare = false;       // after the runs: the compare view on the last two
  bool sweep = false;         // after the runs: the variant sweep on the device
  bool measure = false;       // after the runs: responsiveness.json (MainWindowAutomation.cpp)
};

// Milliseconds since this process started (/proc/self/stat; -1 if unknown): launch timings.
double processAgeMs();

class MainWindow : public QMainWindow {
  Q_OBJECT

 public:
  explicit MainWindow(QWidget* parent = nullptr);
  ~MainWindow() override;
  MainWindow(const MainWindow&) = delete;
  MainWindow& operator=(const MainWindow&) = delete;

  Workspace& workspace() { return *workspace_; }
  RunController& runs() { return *runs_; }
  ViewArea& viewArea() { return *viewArea_; }
  DataPanel& dataPanel() { return *dataPanel_; }
  AlgorithmPanel& algorithmPanel() { return *algorithmPanel_; }
  CnrPanel& cnrPanel() { return *cnrPanel_; }
  ConvergencePanel& convergencePanel() { return *convergencePanel_; }
  CompareView& compareView() { return *compareView_; }
  RunListPanel& runListPanel() { return *runListPanel_; }
  // Unsaved-results questions, sessions, autosave, "Stop and keep" (SafetyNet.h).
  SafetyNet& safetyNet() { return *safetyNet_; }
  // TOF-PET (issue #20; MainWindowPet.cpp): the PET data dock, the algorithm dock's DIRECT page
  // and the contrast-recovery dock.
  PetDataPanel& petDataPanel() { return *petDataPanel_; }
  PetAlgorithmPanel& petAlgorithmPanel() { return *petAlgorithmPanel_; }
  PetQualityPanel& petQualityPanel() { return *petQualityPanel_; }
  EventLoopMonitor& eventLoopMonitor() { return *monitor_; }
  // When the window first appeared, in ms after launch (main.cpp; responsiveness.json).
  void setLaunchToWindowMs(double ms) { launchToWindowMs_ = ms; }
  // File > Export DICOM series… (null when built without DCMTK).
  QAction* exportDicomAction() const { return exportDicomAction_; }

  // Applies the command line once the window is shown: open files or the demo, maybe run FDK,
  // take screenshots and quit.
  void applyStartupOptions(const StartupOptions& options);

  // Opens the built-in demo (generated off the GUI thread).
  void openDemo(DemoKind kind, int size = 128);
  // File > Simulate PET scan…: the dialog, then simulatePet. The PET demo simulates a small scan
  // of the phantom (penn-labr3, 2e6 prompts, no attenuation, 100 x 100 x 17 voxels of 4 mm).
  void showSimulatePetDialog();
  void simulatePet(const PetSimulationRequest& request);
  void openPetDemo();
  static PetSimulationRequest petDemoRequest();
  void openFiles(const QStringList& paths);
  // Starts a run with the algorithm panel's algorithm and parameters (FDK, WBP, SIRT, OS-SIRT,
  // SART); returns the run id or -1 (with the reason in the status bar and a dialog) when the
  // parameters are not valid.
  int startRun();
  // Starts DIRECT with the PET algorithm page's settings on the PET data (startRun does this when
  // PET data are open); -1 with the reason when it cannot.
  int startPetRun();
  void cancelRun();
  // The whole window as a PNG (VTK views included).
  bool saveWindowScreenshot(const QString& path);
  void setTheme(Theme theme);
  // Restores the default dock arrangement.
  void resetLayout();
  // View > Water value for HU…: asks for water's attenuation (1/mm) of the current CT data.
  void askWaterValue();
  // The compare view in the central area (the side docks step aside while it is shown), and back
  // to the slice views. View > Compare runs opens it on the run list's selection.
  void showCompareView();
  void hideCompareView();
  bool compareViewShown() const;
  // Writes the current volume to `path` (any format io::writeVolume knows) and, when it is a
  // run's result, NAME.run.json beside it with the output recorded. False with a dialog on error.
  bool saveCurrentVolumeTo(const QString& path);
  // Where finished runs write their run records (default: GuiRunRecords.h's folder).
  void setRunRecordsFolder(const QString& folder) { runRecordsFolder_ = folder; }
  // Waits for the run records still being written (saving a session or a volume needs them).
  void finishRunRecords();
  QString runRecordsFolder() const { return runRecordsFolder_; }
  // Run > Sweep variants…: the sweep dialog for the current projections and algorithm.
  void showSweepDialog();
  QAction* sweepAction() const { return sweepAction_; }
  // Run > Cluster…: profiles, submit the current run to SLURM, follow, cancel and open jobs.
  ClusterDialog* showClusterDialog();
  QAction* clusterAction() const { return clusterAction_; }
  // CNR demo: circle ROIs on the largest insert of each contrast and a water background disc.
  void placePhantomRois();
  void applyLowContrastWindow();

 signals:
  // The run started by the command line ended and its screenshots are saved.
  void startupRunDone(bool succeeded);

 protected:
  void closeEvent(QCloseEvent* event) override;
  void showEvent(QShowEvent* event) override;
  void dragEnterEvent(QDragEnterEvent* event) override;
  void dropEvent(QDropEvent* event) override;
  void changeEvent(QEvent* event) override;

 private:
  void createPanels();
  void createDocks();
  void sizeDocks();
  // True on a screen too narrow for a dock column on each side of the views
  // (kTwoDockColumnsScreenWidth): the default layout then has one.
  bool oneDockColumn() const;
  // The available area of the window's screen (the primary one before the first show).
  QRect availableScreenArea() const;
  // The window's layout made current, then the window shrunk to fit its screen.
  void fitWindowToScreen();
  void createActions();
  void createMenus();
  void createToolBar();
  void createStatusBar();
  void connectSignals();
  void restoreSettings();
  void saveSettings() const;
  void rebuildRecentMenu();
  void updateRunActions();
  void updateStatus();
  void showWelcomeIfEmpty();
  void onCurrentVolumeChanged();
  void onRunStarted(int id);
  void onRunPreview(int id, std::shared_ptr<const Volume> volume, const QString& label);
  void onRunFinished(int id);
  void onRunFailed(int id, const QString& message);
  void onRunEnded(int id);
  // Writes the run record of a finished run (not an opened one) into runRecordsFolder_, on a
  // worker thread (it hashes the input files); the run's recordPath is set when it is written.
  void writeRunRecordOf(int id);
  // Takes a written record in (its path, or a status-bar message when it failed); waits for it
  // if the worker is not done yet.
  void finishRunRecord(int id);
  void onRunRecordLoaded(const LoadResult& result);
  void openRunResult(int id);
  void saveCurrentVolume();
  // Opens DicomExportDialog for the current volume, with the provenance of its run (if any).
  void showDicomExportDialog();
  // PET (MainWindowPet.cpp): the panels and docks, what changes when PET data come and go.
  void createPetPanels();
  void createPetDocks();
  void createPetActions();
  void onPetDataChanged();
  // The percentile W/L of a PET run's iterates.
  void onPetPreview();
  // The phantom's activity map shown: a window from 0 to its maximum (the hot spheres are too
  // few voxels for the 99.9 % percentile).
  void showPetTruthWindow();
  void exportViewScreenshot();
  void showShortcuts();
  void showAbout();
  QDockWidget* addDock(QWidget* panel, const QString& title, const QString& objectName,
                       Qt::DockWidgetArea area);

  std::unique_ptr<Workspace> workspace_;
  std::unique_ptr<RunController> runs_;
  EventLoopMonitor* monitor_ = nullptr;

  QStackedWidget* centre_ = nullptr;
  QWidget* welcome_ = nullptr;      // the welcome page's content
  QWidget* welcomePage_ = nullptr;  // welcome_ in its scroll area, a page of centre_
  ViewArea* viewArea_ = nullptr;
  CompareView* compareView_ = nullptr;
  QList<QPointer<QDockWidget>> dockedAsideForCompare_;  // side docks hidden while comparing
  QList<QPointer<QDockWidget>> raisedBeforeCompare_;    // of those, the tabs that were in front
  DataPanel* dataPanel_ = nullptr;
  GeometryPanel* geometryPanel_ = nullptr;
  ConsistencyView* consistencyView_ = nullptr;
  AlgorithmPanel* algorithmPanel_ = nullptr;
  RunListPanel* runListPanel_ = nullptr;
  SafetyNet* safetyNet_ = nullptr;
  RunLogPanel* runLogPanel_ = nullptr;
  ThroughputPanel* throughputPanel_ = nullptr;
  CnrPanel* cnrPanel_ = nullptr;
  ConvergencePanel* convergencePanel_ = nullptr;
  ProjectionBrowser* projectionBrowser_ = nullptr;
  PetDataPanel* petDataPanel_ = nullptr;
  PetAlgorithmPanel* petAlgorithmPanel_ = nullptr;
  PetQualityPanel* petQualityPanel_ = nullptr;
  QStackedWidget* algorithmPages_ = nullptr;  // the catalogue's page, DIRECT's page
  QDockWidget* petDataDock_ = nullptr;
  QDockWidget* petQualityDock_ = nullptr;
  // CT/ET docks (geometry, consistency, projections) put aside while PET data are open.
  QList<QPointer<QDockWidget>> hiddenForPet_;
  QList<QDockWidget*> docks_;
  QDockWidget* dataDock_ = nullptr;
  QDockWidget* geometryDock_ = nullptr;
  QDockWidget* algorithmDock_ = nullptr;
  QDockWidget* runListDock_ = nullptr;
  QByteArray defaultState_;
  DockSizeKeeper* dockSizes_ = nullptr;  // the docks' sizes given back when the window grows
  bool restoredState_ = false;
  bool shownOnce_ = false;

  QAction* openAction_ = nullptr;
  QAction* openProjectionsAction_ = nullptr;
  QAction* demoAction_ = nullptr;
  QAction* cnrDemoAction_ = nullptr;
  QAction* etDemoAction_ = nullptr;
  QAction* petDemoAction_ = nullptr;
  QAction* simulatePetAction_ = nullptr;
  QAction* openListModeAction_ = nullptr;
  QAction* saveVolumeAction_ = nullptr;
  QAction* exportDicomAction_ = nullptr;
  QAction* runAction_ = nullptr;
  QAction* cancelAction_ = nullptr;
  QAction* screenshotAction_ = nullptr;
  QAction* compareAction_ = nullptr;
  QAction* sweepAction_ = nullptr;
  QAction* clusterAction_ = nullptr;
  QString runRecordsFolder_;
  std::map<int, std::shared_future<std::string>> pendingRunRecords_;  // run id: its record file
  QAction* quitAction_ = nullptr;
  QMenu* recentMenu_ = nullptr;
  QMenu* viewMenu_ = nullptr;

  QLabel* deviceLabel_ = nullptr;
  QLabel* memoryLabel_ = nullptr;
  QLabel* runLabel_ = nullptr;
  QLabel* stallLabel_ = nullptr;
  QProgressBar* runProgress_ = nullptr;
  QTimer* statusTimer_ = nullptr;
  Theme theme_ = Theme::System;

  // Command-line automation (screenshots during and after a run, then quit).
  int startupRunId_ = -1;
  StartupOptions startup_;
  bool duringScreenshotTaken_ = false;
  // The run whose result is being shown after its previews (its W/L and slices stay), or -1.
  int resultAfterPreviewsOfRun_ = -1;
  void takeDuringRunScreenshot();
  int previewsShown_ = 0;
  double lastRunMaxStallMs_ = 0;
  void writeRunSummary(int id, const QString& path);
  void startStartupRun();
  // After the command-line run ended: its screenshots, then the tour, then maybe quit.
  void finishStartupRun(bool ok, bool iterativeRun);
  void takeTourScreenshots(const std::function<void()>& done);
  // MainWindowAutomation.cpp: --device and --variant before each run, then after the runs the
  // next variant's run, --compare, --sweep and --measure in turn, then `done`.
  int startupVariantIndex_ = 0;
  std::vector<int> startupRunIds_;
  std::vector<double> previewTimesMs_;  // of the running startup run, from its start
  QElapsedTimer runClock_;
  double firstSliceSinceLaunchMs_ = -1;
  std::vector<double> stallsDuringRunMs_;
  QString startupFileSuffix() const;
  bool applyStartupDevice(QString* why);
  void afterStartupRun(const std::function<void()>& done);
  void startupCompare(const std::function<void()>& next);
  void startupSweep(const std::function<void()>& next);
  void startupMeasure(const std::function<void()>& next);
  nlohmann::json startupRunTimings(int id) const;
  double launchToWindowMs_ = -1;
};

}  // namespace tomowb::gui
