// RunLogPanel: the run log dock. Shows RunController::logLine lines (the controller stamps them
// "hh:mm:ss.zzz [run N] ..."), failures in red, filtered to one run or all; Clear empties the
// view (the controller keeps each run's own log), Save writes what is shown. Holds the last
// kMaxLines lines, so a long session cannot grow it without bound.
#pragma once

#include <QString>
#include <QTimer>
#include <QWidget>
#include <deque>

class QComboBox;
class QPlainTextEdit;
class QPushButton;

namespace tomowb::gui {

class RunController;

class RunLogPanel : public QWidget {
  Q_OBJECT

 public:
  static constexpr int kMaxLines = 10000;

  explicit RunLogPanel(RunController& runs, QWidget* parent = nullptr);

  // -1: every run; otherwise only the lines of that run.
  void setRunFilter(int runId);
  int runFilter() const { return filter_; }
  // What the view shows (after the filter), one line per entry.
  QString visibleText() const;
  int lineCount() const { return static_cast<int>(entries_.size()); }
  // Writes visibleText() to a temporary file renamed over `path` when complete.
  bool saveLog(const QString& path, QString* error = nullptr) const;

 public slots:
  void clear();

 private:
  struct Entry {
    int runId = -1;
    QString text;
    bool error = false;
  };
  void onLogLine(int runId, const QString& line);
  void onRunFailed(int runId, const QString& message);
  void flush();
  void rebuild();
  void refreshFilterChoices();
  bool shown(const Entry& entry) const { return filter_ < 0 || entry.runId == filter_; }
  QString html(const Entry& entry) const;
  void saveWithDialog();

  RunController& runs_;
  std::deque<Entry> entries_;
  std::size_t unflushed_ = 0;  // entries at the back not yet in the view
  int filter_ = -1;
  QComboBox* filterBox_ = nullptr;
  QPlainTextEdit* text_ = nullptr;
  QPushButton* clearButton_ = nullptr;
  QPushButton* saveButton_ = nullptr;
  QTimer flushTimer_;
};

}  // namespace tomowb::gui
