// Lines are appended in batches (a zero-delay timer gathers what arrived in one event-loop pass),
// which also lets a runFailed that follows its own "failed:" log line colour that line red
// before it is shown.
#include "gui/RunLogPanel.h"

#include <QComboBox>
#include <QFileDialog>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QLabel>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSaveFile>
#include <QScrollBar>
#include <QVBoxLayout>

#include "gui/core/RunController.h"

namespace tomowb::gui {

RunLogPanel::RunLogPanel(RunController& runs, QWidget* parent) : QWidget(parent), runs_(runs) {
  filterBox_ = new QComboBox(this);
  filterBox_->setSizeAdjustPolicy(QComboBox::AdjustToContents);
  filterBox_->setToolTip(tr("Show the lines of one run only"));
  text_ = new QPlainTextEdit(this);
  text_->setReadOnly(true);
  text_->setLineWrapMode(QPlainTextEdit::NoWrap);
  text_->setMaximumBlockCount(kMaxLines);
  text_->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
  text_->setPlaceholderText(tr("Runs write their progress here."));
  clearButton_ = new QPushButton(tr("Clear"), this);
  clearButton_->setToolTip(tr("Empty this view (each run keeps its own log in its record)"));
  saveButton_ = new QPushButton(tr("Save log\u2026"), this);

  auto* bar = new QHBoxLayout;
  bar->addWidget(new QLabel(tr("Run:"), this));
  bar->addWidget(filterBox_);
  bar->addStretch(1);
  bar->addWidget(clearButton_);
  bar->addWidget(saveButton_);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->addLayout(bar);
  layout->addWidget(text_, 1);

  flushTimer_.setSingleShot(true);
  flushTimer_.setInterval(0);
  connect(&flushTimer_, &QTimer::timeout, this, &RunLogPanel::flush);
  connect(&runs_, &RunController::logLine, this, &RunLogPanel::onLogLine);
  connect(&runs_, &RunController::runFailed, this, &RunLogPanel::onRunFailed);
  connect(&runs_, &RunController::runQueued, this, &RunLogPanel::refreshFilterChoices);
  connect(&runs_, &RunController::runForgotten, this, &RunLogPanel::refreshFilterChoices);
  connect(filterBox_, &QComboBox::activated, this,
          [this](int index) { setRunFilter(filterBox_->itemData(index).toInt()); });
  connect(clearButton_, &QPushButton::clicked, this, &RunLogPanel::clear);
  connect(saveButton_, &QPushButton::clicked, this, &RunLogPanel::saveWithDialog);
  refreshFilterChoices();
}

void RunLogPanel::setRunFilter(int runId) {
  flush();
  filter_ = runId;
  const int index = filterBox_->findData(runId);
  if (index >= 0) filterBox_->setCurrentIndex(index);
  rebuild();
}

QString RunLogPanel::visibleText() const {
  QStringList lines;
  for (const Entry& e : entries_)
    if (shown(e)) lines << e.text;
  return lines.isEmpty() ? QString() : lines.join('\n') + '\n';
}

bool RunLogPanel::saveLog(const QString& path, QString* error) const {
  QSaveFile file(path);
  const QByteArray bytes = visibleText().toUtf8();
  if (!file.open(QIODevice::WriteOnly) || file.write(bytes) != bytes.size() || !file.commit()) {
    if (error) *error = path + ": " + file.errorString();
    return false;
  }
  return true;
}

void RunLogPanel::clear() {
  entries_.clear();
  unflushed_ = 0;
  text_->clear();
}

void RunLogPanel::onLogLine(int runId, const QString& line) {
  entries_.push_back({runId, line, false});
  ++unflushed_;
  if (entries_.size() > static_cast<std::size_t>(kMaxLines)) {
    entries_.pop_front();
    unflushed_ = std::min(unflushed_, entries_.size());
  }
  if (!flushTimer_.isActive()) flushTimer_.start();
}

void RunLogPanel::onRunFailed(int runId, const QString& message) {
  // The controller logs "failed: <message>" just before it signals the failure.
  for (auto it = entries_.rbegin(); it != entries_.rend(); ++it) {
    if (it->runId != runId) continue;
    if (it->text.endsWith(message) && it->text.contains(QStringLiteral("failed"))) {
      it->error = true;
      if (static_cast<std::size_t>(it - entries_.rbegin()) >= unflushed_) rebuild();
      return;
    }
    break;
  }
  onLogLine(runId, QStringLiteral("[run %1] failed: %2").arg(runId).arg(message));
  entries_.back().error = true;
}

void RunLogPanel::flush() {
  flushTimer_.stop();
  if (unflushed_ == 0) return;
  QScrollBar* scroll = text_->verticalScrollBar();
  const bool atEnd = scroll->value() == scroll->maximum();
  for (auto it = entries_.end() - static_cast<std::ptrdiff_t>(unflushed_); it != entries_.end();
       ++it)
    if (shown(*it)) text_->appendHtml(html(*it));
  unflushed_ = 0;
  if (atEnd) scroll->setValue(scroll->maximum());
}

void RunLogPanel::rebuild() {
  unflushed_ = 0;
  QStringList blocks;
  for (const Entry& e : entries_)
    if (shown(e)) blocks << html(e);
  text_->clear();
  if (!blocks.isEmpty()) text_->appendHtml(blocks.join(QStringLiteral("<br>")));
  text_->verticalScrollBar()->setValue(text_->verticalScrollBar()->maximum());
}

void RunLogPanel::refreshFilterChoices() {
  filterBox_->clear();
  filterBox_->addItem(tr("All runs"), -1);
  for (const int id : runs_.runIds()) {
    const RunInfo* info = runs_.run(id);
    filterBox_->addItem(tr("Run %1: %2").arg(id).arg(info ? info->spec.title : QString()), id);
  }
  const int index = filterBox_->findData(filter_);
  filterBox_->setCurrentIndex(index >= 0 ? index : 0);
}

QString RunLogPanel::html(const Entry& entry) const {
  const QString escaped = entry.text.toHtmlEscaped();
  if (!entry.error) return escaped;
  // Red that reads on both light and dark bases.
  const bool dark = palette().color(QPalette::Base).lightnessF() < 0.5;
  return QStringLiteral("<span style=\"color:%1\">%2</span>")
      .arg(dark ? QStringLiteral("#ff6b6b") : QStringLiteral("#c00000"), escaped);
}

void RunLogPanel::saveWithDialog() {
  const QString path =
      QFileDialog::getSaveFileName(this, tr("Save run log"), QStringLiteral("tomowb-run-log.txt"),
                                   tr("Text files (*.txt *.log)"));
  if (path.isEmpty()) return;
  QString error;
  if (!saveLog(path, &error)) QMessageBox::warning(this, tr("Save run log"), error);
}

}  // namespace tomowb::gui
