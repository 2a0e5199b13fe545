// RunListPanel: the run list and queue dock. One row per run the controller knows (ended, the
// running one with a progress bar in its row, then the queue in start order): id, title, state,
// progress, duration, kernel variant. Cancel (queued or running), Move up/down (queued; Ctrl+Up
// and Ctrl+Down), Remove (Delete: a queued run is cancelled, an ended one forgotten), Reopen (a
// finished run's result, also by double-click) and Show record (the run record JSON, pretty
// printed, selectable and copyable). The panel only calls RunController; the main window opens
// results when it emits openRunResult.
#pragma once

#include <QAbstractTableModel>
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
  void selectRun(int runId);
  // The record dialog's text for a run: its run record once ended, its spec before.
  QString recordText(int runId) const;

 public slots:
  void cancelSelected();
  void moveSelected(int delta);  // negative: earlier
  void removeSelected();
  void reopenSelected();
  void showRecordOfSelected();

 signals:
  void openRunResult(int runId);
  // The selection changed (-1: none): the throughput panel can show that run.
  void selectedRunChanged(int runId);

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
  int lastSelected_ = -1;
};

}  // namespace tomowb::gui
