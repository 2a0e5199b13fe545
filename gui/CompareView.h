// CompareView: visual A/B QA of two reconstructions (issue #9; docs/gui.md, "Compare runs"), a mode
// of the window's central area. Two combo boxes pick A (the test) and B (the reference) among the
// finished runs and loaded volumes; the linked views (render::CompareViews) show A | B | A - B on
// one slice, or flicker or swipe between A and B beside A - B; below them line profiles through A,
// B and A - B (the row through the crosshair, or a line drawn on a slice) and the difference
// histogram; beside them the metrics table (gui/core/CompareModel: max-abs, NRMSE, PSNR, SSIM, mean
// bias, max-abs relative, CNR of the saved ROIs) with the tolerance of A's accuracy class, editable
// in the table, and the pass / fail verdict where a class applies: the two runs are the same
// reconstruction on another kernel variant or device (qa::checkComparability on what the runs
// recorded); otherwise "informative", in grey, with the reason. "Golden reference" queues the same
// run on the CPU float64 path through the RunController and compares against it when it finishes;
// "Export report" writes report.md, comparison.json and PNGs of the views, profiles and histogram
// into a folder. Any two volumes of the same shape compare: nothing here names an algorithm or
// variant except the reference paths (CompareModel.h).
#pragma once

#include <QString>
#include <QWidget>
#include <map>
#include <memory>
#include <optional>
#include <vector>

#include "gui/core/CompareModel.h"
#include "recon/core/Volume.h"
#include "recon/data/ProjectionStack.h"
#include "recon/geometry/Geometry.h"
#include "recon/qa/RunComparability.h"
#include "render/CompareViews.h"
#include "render/SliceRoi.h"

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QSpinBox;
class QTableWidget;
class QTableWidgetItem;

namespace tomowb::render {
class ChartView;
}

namespace tomowb::gui {

class RunController;
class Workspace;

class CompareView : public QWidget {
  Q_OBJECT

 public:
  // Rows of the metrics table (CNR rows follow kFirstCnrRow, one per signal ROI).
  enum Row { MaxAbs, Nrmse, MaxAbsRelative, Psnr, Ssim, Bias, Rmse, kFirstCnrRow };
  enum Column { Figure, Value, Limit, Result, kColumnCount };

  // Something to compare: a finished run's result or a loaded volume.
  struct Entry {
    QString name;
    std::shared_ptr<const Volume> volume;
    int runId = -1;  // -1: not a run
  };

  CompareView(Workspace& workspace, RunController& runs, QWidget* parent = nullptr);
  ~CompareView() override;
  CompareView(const CompareView&) = delete;
  CompareView& operator=(const CompareView&) = delete;

  // --- the pair ---
  const std::vector<Entry>& entries() const { return entries_; }
  int entryOfRun(int runId) const;                // -1 if none
  int entryOfVolume(const Volume* volume) const;  // -1 if none
  // Compares entries()[a] (A) with entries()[b] (B); false for an index out of range.
  bool setPair(int a, int b);
  bool compareRuns(int runA, int runB);
  // A = `runA` (or the newest finished run that is not a float64 reference); B = its golden
  // reference, else the newest reference run of the same shape, else the previous finished run of
  // that shape. False when there is no such pair.
  bool compareDefaultPair(int runA = -1);
  // The run list's selection: one run as compareDefaultPair(run), two as a pair with a float64
  // reference as B (else the earlier run as A). False when it makes no pair.
  bool compareRunSelection(const std::vector<int>& runIds);
  int entryA() const { return entryA_; }
  int entryB() const { return entryB_; }
  void swapPair();

  // The saved CNR ROIs (the slice views' ROIs): one CNR row per signal ROI against the union of
  // the background ROIs. While the view is hidden they are measured when it is shown.
  void setRois(const std::vector<render::SliceRoi>& rois);

  // --- golden reference ---
  // What a run was started with, for its golden reference (the main window notes every run).
  void noteRunInput(int runId, std::shared_ptr<const ProjectionStack> projections,
                    const Geometry* geometry);
  // Queues the CPU float64 run of run `runId`'s input and parameters; when it finishes the view
  // compares the run (A) with it (B) and asks to be shown. An existing finished reference is
  // compared at once. Returns the reference run's id, or -1 with the reason in statusMessage.
  int requestGoldenReference(int runId);
  // Why the button is disabled (empty when it is not).
  QString goldenReferenceBlocker() const;

  // --- export ---
  // Writes report.md, comparison.json and a.png, b.png, difference.png, profile.png,
  // profile-difference.png, histogram.png into `folder` (created if needed). Waits for SSIM.
  bool exportReport(const QString& folder, QString* error = nullptr);

  // --- parts, for the main window and tests ---
  CompareModel& model() { return model_; }
  render::CompareViews& views() { return *views_; }
  QTableWidget& metricsTable() { return *table_; }
  render::ChartView& profileChart() { return *profileChart_; }
  render::ChartView& profileDifferenceChart() { return *profileDifferenceChart_; }
  render::ChartView& histogramChart() { return *histogramChart_; }
  QComboBox& comboA() { return *comboA_; }
  QComboBox& comboB() { return *comboB_; }
  QComboBox& modeCombo() { return *modeCombo_; }
  QPushButton& goldenButton() { return *goldenButton_; }
  QString problemText() const;  // the red banner (shape mismatch), empty when hidden
  // "PASS: pass (exact): NRMSE ..." / "FAIL: ..." / "informative (different algorithms: ...)"
  QString verdictText() const;
  // Why the pair gets no pass / fail (empty when A's class judges it): the runs differ in more
  // than kernel variant or device, or nothing says whether they do (a loaded volume).
  QString informativeReason() const { return model_.informative(); }
  // "Judge anyway": the user says A and B differ only in kernel variant or device, where the
  // runs' records cannot tell (a loaded volume); a recorded difference still wins.
  void setAssumeComparable(bool assume);
  bool assumeComparable() const;
  QString cursorText() const;
  void setMode(render::CompareViews::Mode mode);
  // Edits the limit of the class the verdict uses, as a user typing in the table does.
  bool editLimit(Row row, const QString& text);

 signals:
  void showRequested();
  void closeRequested();
  void statusMessage(const QString& text, int timeoutMs);

 protected:
  void showEvent(QShowEvent* event) override;

 private:
  struct RunInput {
    std::shared_ptr<const ProjectionStack> projections;
    std::optional<Geometry> geometry;
  };
  void buildUi();
  void rebuildEntries();
  void fillCombo(QComboBox* combo, int selected);
  void onModelChanged();
  void fillTable();
  void setTableRow(int row, const QString& figure, const QString& value, const QString& limit = {},
                   const QString& result = {}, bool editable = false);
  void onLimitEdited(QTableWidgetItem* item);
  void updateProfile();
  void updateHistogram();
  void updateCursor(const Eigen::Vector3d& worldMm);
  void updateButtons();
  std::vector<qa::CnrRoi> cnrRois(const Volume& grid) const;
  std::optional<render::CompareSliceView::Line> profileLine() const;
  QString entryDetails(int entry) const;
  // Whether a class applies to the pair (qa::checkComparability on what the runs recorded).
  qa::ComparabilityCheck comparabilityOf(int entryA, int entryB) const;
  void updateInformative();
  void remeasureRois();
  void onRunFinished(int runId);
  void onRunEnded(int runId);
  void chooseReportFolder();
  int finishedGoldenReferenceOf(int runId) const;

  Workspace& workspace_;
  RunController& runs_;
  CompareModel model_;
  std::vector<Entry> entries_;
  int entryA_ = -1, entryB_ = -1;
  // What is compared: A and B, or the part of their grids they share (gui/core/CommonGrid.h).
  std::shared_ptr<const Volume> shownA_, shownB_;
  QString commonGridNote_;  // says so when they were cut
  std::vector<render::SliceRoi> rois_;
  std::map<int, RunInput> inputs_;    // by run id
  std::map<int, int> pendingGolden_;  // reference run id -> the run it checks
  std::optional<render::CompareSliceView::Line> drawnLine_;
  bool filling_ = false;
  bool roisPending_ = false;  // ROIs changed while hidden

  QComboBox* comboA_ = nullptr;
  QComboBox* comboB_ = nullptr;
  QComboBox* axisCombo_ = nullptr;
  QComboBox* modeCombo_ = nullptr;
  QSpinBox* flickerSpin_ = nullptr;
  QLineEdit* windowEdit_ = nullptr;
  QComboBox* profileCombo_ = nullptr;
  QComboBox* classCombo_ = nullptr;
  QPushButton* goldenButton_ = nullptr;
  QPushButton* exportButton_ = nullptr;
  QLabel* banner_ = nullptr;
  QCheckBox* assumeComparable_ = nullptr;
  QLabel* verdict_ = nullptr;
  QLabel* status_ = nullptr;
  QLabel* cursor_ = nullptr;
  render::CompareViews* views_ = nullptr;
  QTableWidget* table_ = nullptr;
  render::ChartView* profileChart_ = nullptr;
  render::ChartView* profileDifferenceChart_ = nullptr;
  render::ChartView* histogramChart_ = nullptr;
};

}  // namespace tomowb::gui
