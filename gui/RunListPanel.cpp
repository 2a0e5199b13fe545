// The model reloads its rows when the queue changes (runs are few: tens, not thousands) and
// updates single cells for progress, so a running run repaints one row 20 times a second at
// most. The selection follows the run id across reloads.
#include "gui/RunListPanel.h"

#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QDialog>
#include <QDialogButtonBox>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QMenu>
#include <QPainter>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QStyledItemDelegate>
#include <QToolButton>
#include <QTreeView>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

#include "gui/core/CompareModel.h"
#include "gui/core/RunController.h"

namespace tomowb::gui {
namespace {

// The kernel variant of an FDK run, or the projector pair of an iterative one.
QString variantText(const nlohmann::json& p) {
  if (!p.is_object()) return {};
  if (p.contains("variant") && p["variant"].is_string())
    return QString::fromStdString(p["variant"].get<std::string>());
  if (p.value("forwardVariant", nlohmann::json()).is_string() &&
      p.value("backVariant", nlohmann::json()).is_string())
    return QString::fromStdString(p["forwardVariant"].get<std::string>() + " + " +
                                  p["backVariant"].get<std::string>());
  return {};
}

QString durationText(double seconds) {
  if (seconds < 0) return {};
  if (seconds < 60) return QStringLiteral("%1 s").arg(seconds, 0, 'f', seconds < 10 ? 1 : 0);
  const auto total = static_cast<long long>(std::lround(seconds));
  return QStringLiteral("%1:%2").arg(total / 60).arg(total % 60, 2, 10, QLatin1Char('0'));
}

// Draws a progress bar in the Progress cell of the running run.
class ProgressDelegate : public QStyledItemDelegate {
 public:
  using QStyledItemDelegate::QStyledItemDelegate;
  void paint(QPainter* painter, const QStyleOptionViewItem& option,
             const QModelIndex& index) const override {
    const double fraction = index.data(RunListModel::kFractionRole).toDouble();
    if (fraction < 0) {
      QStyledItemDelegate::paint(painter, option, index);
      return;
    }
    QStyleOptionViewItem background = option;
    initStyleOption(&background, index);
    background.text.clear();
    QApplication::style()->drawControl(QStyle::CE_ItemViewItem, &background, painter);
    QStyleOptionProgressBar bar;
    bar.rect = option.rect.adjusted(2, 2, -2, -2);
    bar.minimum = 0;
    bar.maximum = 1000;
    bar.progress = static_cast<int>(std::lround(fraction * 1000));
    bar.text = index.data(Qt::DisplayRole).toString();
    bar.textVisible = true;
    bar.state = option.state | QStyle::State_Horizontal;
    bar.palette = option.palette;
    QApplication::style()->drawControl(QStyle::CE_ProgressBar, &bar, painter);
  }
};

}  // namespace

RunListModel::RunListModel(RunController& runs, QObject* parent)
    : QAbstractTableModel(parent), runs_(runs) {
  ids_ = runs_.runIds();
  connect(&runs_, &RunController::queueChanged, this, &RunListModel::reload);
  connect(&runs_, &RunController::runProgress, this, [this](int id) { updateRun(id); });
  tick_.setInterval(1000);
  connect(&tick_, &QTimer::timeout, this, &RunListModel::tick);
  tick_.start();
}

int RunListModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(ids_.size());
}

int RunListModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : ColumnCount;
}

QVariant RunListModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= rowCount()) return {};
  const int id = ids_[static_cast<std::size_t>(index.row())];
  const RunInfo* info = runs_.run(id);
  if (info == nullptr) return {};
  if (role == kRunIdRole) return id;
  if (role == kFractionRole) {
    return index.column() == Progress && info->state == RunState::Running ? info->fraction : -1.0;
  }
  if (role == Qt::ToolTipRole) {
    if (info->state == RunState::Failed) return info->error;
    return info->spec.title;
  }
  if (role == Qt::TextAlignmentRole && (index.column() == Id || index.column() == Duration))
    return QVariant(Qt::AlignRight | Qt::AlignVCenter);
  if (role == Qt::ForegroundRole && index.column() == State && info->state == RunState::Failed)
    return QColor(Qt::red);
  if (role != Qt::DisplayRole) return {};
  switch (index.column()) {
    case Id:
      return id;
    case Title:
      return info->spec.title;
    case State:
      return toString(info->state);
    case Progress:
      if (info->state == RunState::Running)
        return QStringLiteral("%1 %2 %").arg(info->stage).arg(std::lround(info->fraction * 100));
      if (info->state == RunState::Finished) return QStringLiteral("100 %");
      return {};
    case Duration:
      if (info->state == RunState::Running)
        return durationText(info->startedAt.msecsTo(QDateTime::currentDateTime()) / 1000.0);
      if (info->state == RunState::Queued) return {};
      return info->startedAt.isValid() ? durationText(info->seconds) : QString();
    case Variant:
      return variantText(info->spec.parameters);
    default:
      return {};
  }
}

QVariant RunListModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
  switch (section) {
    case Id:
      return tr("#");
    case Title:
      return tr("Run");
    case State:
      return tr("State");
    case Progress:
      return tr("Progress");
    case Duration:
      return tr("Duration");
    case Variant:
      return tr("Variant");
    default:
      return {};
  }
}

int RunListModel::runIdAt(int row) const {
  return row >= 0 && row < rowCount() ? ids_[static_cast<std::size_t>(row)] : -1;
}

int RunListModel::rowOf(int runId) const {
  for (std::size_t i = 0; i < ids_.size(); ++i)
    if (ids_[i] == runId) return static_cast<int>(i);
  return -1;
}

void RunListModel::reload() {
  beginResetModel();
  ids_ = runs_.runIds();
  endResetModel();
}

void RunListModel::updateRun(int runId) {
  const int row = rowOf(runId);
  if (row < 0) return;
  emit dataChanged(index(row, State), index(row, Duration));
}

void RunListModel::tick() {
  if (runs_.runningId() >= 0) updateRun(runs_.runningId());
}

RunListPanel::RunListPanel(RunController& runs, QWidget* parent) : QWidget(parent), runs_(runs) {
  model_ = new RunListModel(runs_, this);
  view_ = new QTreeView(this);
  view_->setModel(model_);
  view_->setRootIsDecorated(false);
  view_->setUniformRowHeights(true);
  view_->setAlternatingRowColors(true);
  // Several rows: two runs make a pair for the compare view.
  view_->setSelectionMode(QAbstractItemView::ExtendedSelection);
  view_->setSelectionBehavior(QAbstractItemView::SelectRows);
  view_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  view_->setContextMenuPolicy(Qt::CustomContextMenu);
  view_->setItemDelegateForColumn(RunListModel::Progress, new ProgressDelegate(view_));
  view_->header()->setStretchLastSection(false);
  view_->header()->setSectionResizeMode(RunListModel::Title, QHeaderView::Stretch);
  view_->setColumnWidth(RunListModel::Id, 40);
  view_->setColumnWidth(RunListModel::State, 80);
  view_->setColumnWidth(RunListModel::Progress, 150);
  view_->setColumnWidth(RunListModel::Duration, 70);
  view_->setColumnWidth(RunListModel::Variant, 120);

  auto makeAction = [this](const QString& text, const QString& tip, QKeySequence key) {
    auto* action = new QAction(text, this);
    action->setToolTip(tip);
    action->setShortcut(key);
    action->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    addAction(action);
    return action;
  };
  cancelAction_ =
      makeAction(tr("Cancel"), tr("Stop the running run or take a queued one out"), QKeySequence());
  upAction_ = makeAction(tr("Move up"), tr("Start this queued run earlier (Ctrl+Up)"),
                         QKeySequence(Qt::CTRL | Qt::Key_Up));
  downAction_ = makeAction(tr("Move down"), tr("Start this queued run later (Ctrl+Down)"),
                           QKeySequence(Qt::CTRL | Qt::Key_Down));
  removeAction_ =
      makeAction(tr("Remove"), tr("Queued: cancel it; ended: forget it and its result (Delete)"),
                 QKeySequence::Delete);
  reopenAction_ =
      makeAction(tr("Reopen"), tr("Show this finished run's result in the views"), QKeySequence());
  recordAction_ = makeAction(tr("Show record\u2026"),
                             tr("The run record: parameters, timings, device"), QKeySequence());
  compareAction_ = makeAction(
      tr("Compare"),
      tr("Compare two finished runs side by side (A | B | A - B) with their metrics; with one "
         "selected, against its golden reference or the previous run"),
      QKeySequence());
  goldenAction_ =
      makeAction(tr("Golden reference"),
                 tr("Run this run's input and parameters again on the CPU float64 path and "
                    "compare against it when it finishes"),
                 QKeySequence());
  connect(cancelAction_, &QAction::triggered, this, &RunListPanel::cancelSelected);
  connect(compareAction_, &QAction::triggered, this, &RunListPanel::compareSelected);
  connect(goldenAction_, &QAction::triggered, this, &RunListPanel::goldenReferenceOfSelected);
  connect(upAction_, &QAction::triggered, this, [this] { moveSelected(-1); });
  connect(downAction_, &QAction::triggered, this, [this] { moveSelected(1); });
  connect(removeAction_, &QAction::triggered, this, &RunListPanel::removeSelected);
  connect(reopenAction_, &QAction::triggered, this, &RunListPanel::reopenSelected);
  connect(recordAction_, &QAction::triggered, this, &RunListPanel::showRecordOfSelected);

  auto* buttons = new QHBoxLayout;
  for (QAction* action : {cancelAction_, upAction_, downAction_, removeAction_, reopenAction_,
                          recordAction_, compareAction_, goldenAction_}) {
    auto* button = new QToolButton(this);
    button->setDefaultAction(action);
    button->setToolButtonStyle(Qt::ToolButtonTextOnly);
    buttons->addWidget(button);
  }
  buttons->addStretch(1);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->addLayout(buttons);
  layout->addWidget(view_, 1);

  connect(view_, &QTreeView::customContextMenuRequested, this, &RunListPanel::showContextMenu);
  connect(view_, &QTreeView::doubleClicked, this, [this](const QModelIndex& index) {
    const RunInfo* info = runs_.run(model_->runIdAt(index.row()));
    if (info != nullptr && info->state == RunState::Finished) emit openRunResult(info->id);
  });
  // Keep the selected run selected across model resets.
  connect(model_, &QAbstractItemModel::modelAboutToBeReset, this,
          [this] { lastSelected_ = selectedRunId(); });
  connect(model_, &QAbstractItemModel::modelReset, this, [this] {
    if (lastSelected_ >= 0) selectRun(lastSelected_);
    updateActions();
  });
  connect(model_, &QAbstractItemModel::dataChanged, this, &RunListPanel::updateActions);
  connect(view_->selectionModel(), &QItemSelectionModel::selectionChanged, this, [this] {
    updateActions();
    emit selectedRunChanged(selectedRunId());
  });
  updateActions();
}

int RunListPanel::selectedRunId() const {
  const QModelIndexList rows = view_->selectionModel()->selectedRows();
  return rows.isEmpty() ? -1 : model_->runIdAt(rows.first().row());
}

QList<int> RunListPanel::selectedRunIds() const {
  QModelIndexList rows = view_->selectionModel()->selectedRows();
  std::sort(rows.begin(), rows.end(),
            [](const QModelIndex& a, const QModelIndex& b) { return a.row() < b.row(); });
  QList<int> ids;
  for (const QModelIndex& row : rows) ids << model_->runIdAt(row.row());
  return ids;
}

void RunListPanel::compareSelected() {
  const QList<int> ids = selectedRunIds();
  if (!ids.isEmpty() && ids.size() <= 2) emit compareRequested(ids);
}

void RunListPanel::goldenReferenceOfSelected() {
  const QList<int> ids = selectedRunIds();
  if (ids.size() == 1) emit goldenReferenceRequested(ids.front());
}

void RunListPanel::selectRun(int runId) {
  const int row = model_->rowOf(runId);
  if (row < 0) {
    view_->clearSelection();
    return;
  }
  const QModelIndex index = model_->index(row, 0);
  view_->selectionModel()->setCurrentIndex(
      index, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
  view_->scrollTo(index);
}

QString RunListPanel::recordText(int runId) const {
  const RunInfo* info = runs_.run(runId);
  if (info == nullptr) return {};
  nlohmann::json json = info->record;
  if (json.is_null() || json.empty()) {
    json = {{"run", runId},
            {"title", info->spec.title.toStdString()},
            {"algorithm", info->spec.algorithm.toStdString()},
            {"state", toString(info->state).toStdString()},
            {"parameters", info->spec.parameters}};
  }
  // The qa::RunRecord file written for the run (or the record it was opened from).
  if (!info->recordPath.isEmpty()) json["recordFile"] = info->recordPath.toStdString();
  return QString::fromStdString(json.dump(2));
}

void RunListPanel::cancelSelected() {
  const int id = selectedRunId();
  if (id >= 0) runs_.cancel(id);
}

void RunListPanel::moveSelected(int delta) {
  const int id = selectedRunId();
  if (id >= 0 && runs_.moveQueued(id, delta)) selectRun(id);
}

void RunListPanel::removeSelected() {
  const int id = selectedRunId();
  const RunInfo* info = runs_.run(id);
  if (info == nullptr) return;
  if (info->state == RunState::Queued) {
    runs_.cancel(id);
  } else if (info->state != RunState::Running) {
    runs_.forget(id);
  }
}

void RunListPanel::reopenSelected() {
  const RunInfo* info = runs_.run(selectedRunId());
  if (info != nullptr && info->state == RunState::Finished) emit openRunResult(info->id);
}

void RunListPanel::showRecordOfSelected() {
  const int id = selectedRunId();
  if (id < 0) return;
  auto* dialog = new QDialog(this);
  dialog->setAttribute(Qt::WA_DeleteOnClose);
  dialog->setWindowTitle(tr("Run %1 record").arg(id));
  auto* text = new QPlainTextEdit(recordText(id), dialog);
  text->setReadOnly(true);
  text->setObjectName(QStringLiteral("recordText"));
  text->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
  text->setLineWrapMode(QPlainTextEdit::NoWrap);
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, dialog);
  QPushButton* copy = buttons->addButton(tr("Copy"), QDialogButtonBox::ActionRole);
  connect(copy, &QPushButton::clicked, text,
          [text] { QApplication::clipboard()->setText(text->toPlainText()); });
  connect(buttons, &QDialogButtonBox::rejected, dialog, &QDialog::close);
  auto* layout = new QVBoxLayout(dialog);
  if (const RunInfo* info = runs_.run(id); info != nullptr && !info->recordPath.isEmpty()) {
    auto* file = new QLabel(tr("Run record file: %1").arg(info->recordPath), dialog);
    file->setObjectName(QStringLiteral("recordFile"));
    file->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(file);
  }
  layout->addWidget(text);
  layout->addWidget(buttons);
  dialog->resize(640, 520);
  dialog->show();
}

void RunListPanel::updateActions() {
  const RunInfo* info = runs_.run(selectedRunId());
  const RunState state = info ? info->state : RunState::Cancelled;
  const bool queued = info != nullptr && state == RunState::Queued;
  const bool running = info != nullptr && state == RunState::Running;
  cancelAction_->setEnabled(queued || running);
  const std::vector<int> queue = runs_.queuedIds();
  upAction_->setEnabled(queued && !queue.empty() && queue.front() != info->id);
  downAction_->setEnabled(queued && !queue.empty() && queue.back() != info->id);
  removeAction_->setEnabled(info != nullptr && !running);
  reopenAction_->setEnabled(info != nullptr && state == RunState::Finished && info->result);
  recordAction_->setEnabled(info != nullptr);
  const QList<int> ids = selectedRunIds();
  const bool allFinished = std::all_of(ids.begin(), ids.end(), [this](int id) {
    const RunInfo* run = runs_.run(id);
    return run != nullptr && run->state == RunState::Finished && run->result;
  });
  compareAction_->setEnabled(!ids.isEmpty() && ids.size() <= 2 && allFinished);
  // Only where a float64 path exists (and the run is not the reference itself): else say why.
  const QString noGolden = ids.size() == 1 && allFinished
                               ? goldenReferenceUnavailable(*runs_.run(ids.front()))
                               : tr("Select one finished run");
  goldenAction_->setEnabled(noGolden.isEmpty());
  goldenAction_->setToolTip(noGolden.isEmpty()
                                ? tr("Run this run's input and parameters again on the CPU float64 "
                                     "path and compare against it when it finishes")
                                : noGolden);
}

void RunListPanel::showContextMenu(const QPoint& position) {
  const QModelIndex index = view_->indexAt(position);
  if (!index.isValid()) return;
  // A right-click on a selected row keeps the selection (two runs to compare).
  const int clicked = model_->runIdAt(index.row());
  if (!selectedRunIds().contains(clicked)) selectRun(clicked);
  QMenu menu(this);
  menu.addAction(reopenAction_);
  menu.addAction(recordAction_);
  menu.addSeparator();
  menu.addAction(compareAction_);
  menu.addAction(goldenAction_);
  menu.addSeparator();
  menu.addAction(cancelAction_);
  menu.addAction(upAction_);
  menu.addAction(downAction_);
  menu.addAction(removeAction_);
  menu.exec(view_->viewport()->mapToGlobal(position));
}

}  // namespace tomowb::gui
