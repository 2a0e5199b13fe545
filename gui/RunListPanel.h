// RunListPanel: the run list and queue dock. One row per run the controller knows (ended, the
// running one with a progress bar in its row, then the queue in start order): id, title, state,
// progress, duration, kernel variant. Cancel (queued or running), Move up/down (queued; Ctrl+Up
// and Ctrl+Down), Remove (Delete: a queued run is cancelled, an ended one forgotten), Reopen (a
// finished run's result, also by double-click), Show record (the run record JSON, pretty
// printed, selectable and copyable), Compare (one or two finished runs in the compare view) and
// Golden reference (the run again on the CPU float64 path, compared with it when done). The panel
// only calls RunController; the main window opens results, comparisons and references when it
// emits openRunResult, compareRequested and goldenReferenceRequested.
#pragma once

#include <QAbstractTableModel>
#include <QList>
#include <QTimer>
#include <QWidget>
#include <vector>

class QAction;
class QPushButton;
class QTreeView;

namespace tomowb::gui {

class RunController;

// The table behind the panel (exposed for tests). Rows follow RunController::runIds().
class RunListModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  enum Column { Id, Title, State, Progress, Duration, Variant, ColumnCount };
  static constexpr int kRunIdRole = Qt::UserRole + 1;
  static constexpr int kFractionRole = Qt::UserRole + 2;  // 0..1, or -1 for no bar

  explicit RunListModel(RunController& runs, QObject* parent = nullptr);

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation,
                      int role = Qt::DisplayRole) const override;

  int runIdAt(int row) const;
  int rowOf(int runId) const;
  const std::vector<int>& ids() const { return ids_; }

 private:
  void reload();
  void updateRun(int runId);
  void tick();

  RunController& runs_;
  std::vector<int> ids_;
  QTimer tick_;  // the running run's duration, once a second
};

class RunListPanel : public QWidget {
  Q_OBJECT

 public:
  explicit RunListPanel(RunController& runs, QWidget* parent = nullptr);

  RunListModel& model() { return *model_; }
  QTreeView& view() { return *view_; }
  int selectedRunId() const;  // -1 when none
  // Every selected run (Ctrl/Shift+click selects several), in row order.
  QList<int> selectedRunIds() const;
  QAction* compareAction() const { return compareAction_; }
  QAction* goldenReferenceAction() const { return goldenAction_; }
  void selectRun(int runId);
  // The record dialog's text for a run: its run record once ended, its spec before.
  QString recordText(int runId) const;

 public slots:
  void cancelSelected();
  void moveSelected(int delta);  // negative: earlier
  void removeSelected();
  void reopenSelected();
  void showRecordOfSelected();
  void compareSelected();
  void goldenReferenceOfSelected();

 signals:
  void openRunResult(int runId);
  // The selection changed (-1: none): the throughput panel can show that run.
  void selectedRunChanged(int runId);
  // Compare: one or two finished runs (one: against its reference or the previous run).
  void compareRequested(const QList<int>& runIds);
  void goldenReferenceRequested(int runId);

 private:
  void updateActions();
  void showContextMenu(const QPoint& position);

  RunController& runs_;
  RunListModel* model_ = nullptr;
  QTreeView* view_ = nullptr;
  QAction* cancelAction_ = nullptr;
  QAction* upAction_ = nullptr;
  QAction* downAction_ = nullptr;
  QAction* removeAction_ = nullptr;
  QAction* reopenAction_ = nullptr;
  QAction* recordAction_ = nullptr;
  QAction* compareAction_ = nullptr;
  QAction* goldenAction_ = nullptr;
  int lastSelected_ = -1;
};

}  // namespace tomowb::gui
