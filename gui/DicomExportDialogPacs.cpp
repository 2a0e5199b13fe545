// DicomExportDialogPacs.cpp: the DICOM nodes in QSettings, the node editor with its echo test,
// and the PacsSender worker (DicomExportDialogPacs.h).
#include "gui/DicomExportDialogPacs.h"

#include <QCheckBox>
#include <QComboBox>
#include <QCoreApplication>
#include <QDialogButtonBox>
#include <QDir>
#include <QElapsedTimer>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QMetaObject>
#include <QProgressBar>
#include <QPushButton>
#include <QSettings>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QTimer>
#include <QVBoxLayout>
#include <algorithm>
#include <chrono>
#include <cmath>

#include "gui/DicomExportDialog.h"
#include "recon/core/Error.h"
#include "recon/job/JobContext.h"
#include "recon/job/ProgressSink.h"

namespace tomowb::gui {

namespace {

using io::dicom::DicomNode;

const char* const kNodesKey = "pacs/nodes";
const char* const kLastNodeKey = "pacs/lastNode";
constexpr int kProgressShowDelayMs = 300;
constexpr auto kProgressInterval = std::chrono::milliseconds(50);

struct FunctionProgressSink : ProgressSink {
  std::function<void(double)> onReport;
  void report(std::string_view, double fraction) override { onReport(fraction); }
};

QString nodeLabel(const DicomNode& node) {
  return QString::fromStdString(node.describe());
}

}  // namespace

std::vector<DicomNode> loadDicomNodes() {
  QSettings settings;
  std::vector<DicomNode> nodes;
  const int n = settings.beginReadArray(kNodesKey);
  for (int i = 0; i < n; ++i) {
    settings.setArrayIndex(i);
    DicomNode node;
    node.name = settings.value("name").toString().toStdString();
    node.host = settings.value("host", QString::fromStdString(node.host)).toString().toStdString();
    node.port = settings.value("port", node.port).toInt();
    node.calledAeTitle = settings.value("calledAe", QString::fromStdString(node.calledAeTitle))
                             .toString()
                             .toStdString();
    node.callingAeTitle = settings.value("callingAe", QString::fromStdString(node.callingAeTitle))
                              .toString()
                              .toStdString();
    node.timeoutSeconds = settings.value("timeoutSeconds", node.timeoutSeconds).toInt();
    nodes.push_back(node);
  }
  settings.endArray();
  return nodes;
}

void saveDicomNodes(const std::vector<DicomNode>& nodes) {
  QSettings settings;
  settings.remove(kNodesKey);
  settings.beginWriteArray(kNodesKey, static_cast<int>(nodes.size()));
  for (int i = 0; i < static_cast<int>(nodes.size()); ++i) {
    const DicomNode& node = nodes[static_cast<std::size_t>(i)];
    settings.setArrayIndex(i);
    settings.setValue("name", QString::fromStdString(node.name));
    settings.setValue("host", QString::fromStdString(node.host));
    settings.setValue("port", node.port);
    settings.setValue("calledAe", QString::fromStdString(node.calledAeTitle));
    settings.setValue("callingAe", QString::fromStdString(node.callingAeTitle));
    settings.setValue("timeoutSeconds", node.timeoutSeconds);
  }
  settings.endArray();
}

int lastDicomNodeIndex() {
  return QSettings().value(kLastNodeKey, -1).toInt();
}
void setLastDicomNodeIndex(int index) {
  QSettings().setValue(kLastNodeKey, index);
}

// --- DicomNodeEditor ---------------------------------------------------------------------------

DicomNodeEditor::DicomNodeEditor(std::vector<DicomNode> nodes, int current, QWidget* parent)
    : QDialog(parent), nodes_(std::move(nodes)) {
  setObjectName(QStringLiteral("dicomNodeEditor"));
  setWindowTitle(tr("DICOM nodes"));
  auto* layout = new QVBoxLayout(this);
  auto* top = new QHBoxLayout;
  list_ = new QComboBox(this);
  list_->setObjectName(QStringLiteral("dicomNodeList"));
  auto* add = new QPushButton(tr("&Add"), this);
  auto* remove = new QPushButton(tr("&Remove"), this);
  top->addWidget(list_, 1);
  top->addWidget(add);
  top->addWidget(remove);
  layout->addLayout(top);

  auto* form = new QFormLayout;
  name_ = new QLineEdit(this);
  name_->setPlaceholderText(tr("e.g. Lab PACS (optional)"));
  host_ = new QLineEdit(this);
  host_->setObjectName(QStringLiteral("dicomNodeHost"));
  port_ = new QSpinBox(this);
  port_->setObjectName(QStringLiteral("dicomNodePort"));
  port_->setRange(1, 65535);
  calledAe_ = new QLineEdit(this);
  calledAe_->setObjectName(QStringLiteral("dicomNodeCalledAe"));
  calledAe_->setMaxLength(16);
  calledAe_->setToolTip(tr("The node's own AE title, as its administrator gave it"));
  callingAe_ = new QLineEdit(this);
  callingAe_->setObjectName(QStringLiteral("dicomNodeCallingAe"));
  callingAe_->setMaxLength(16);
  callingAe_->setToolTip(tr("This workstation's AE title: the node accepts only those it knows"));
  timeout_ = new QSpinBox(this);
  timeout_->setRange(1, 600);
  timeout_->setSuffix(tr(" s"));
  form->addRow(tr("&Name"), name_);
  form->addRow(tr("&Host"), host_);
  form->addRow(tr("&Port"), port_);
  form->addRow(tr("&Called AE title (the node)"), calledAe_);
  form->addRow(tr("C&alling AE title (us)"), callingAe_);
  form->addRow(tr("&Timeout"), timeout_);
  layout->addLayout(form);

  auto* testRow = new QHBoxLayout;
  test_ = new QPushButton(tr("&Test (echo)"), this);
  test_->setObjectName(QStringLiteral("dicomNodeTest"));
  test_->setToolTip(tr("Ask the node to answer a DICOM echo (C-ECHO) with these settings"));
  testResult_ = new QLabel(this);
  testResult_->setObjectName(QStringLiteral("dicomNodeTestResult"));
  testResult_->setWordWrap(true);
  testResult_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  testRow->addWidget(test_);
  testRow->addWidget(testResult_, 1);
  layout->addLayout(testRow);
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
  layout->addWidget(buttons);

  connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
  connect(add, &QPushButton::clicked, this, &DicomNodeEditor::addNode);
  connect(remove, &QPushButton::clicked, this, [this] {
    if (shown_ < 0) return;
    const int removed = shown_;
    shown_ = -1;  // the list's change of item must not store the fields into another node
    nodes_.erase(nodes_.begin() + removed);
    list_->removeItem(removed);
    showNode(list_->currentIndex());
  });
  connect(list_, &QComboBox::currentIndexChanged, this, [this](int index) {
    storeShown();
    showNode(index);
  });
  connect(test_, &QPushButton::clicked, this, [this] { testCurrent(); });

  for (const DicomNode& node : nodes_) list_->addItem(nodeLabel(node));
  if (nodes_.empty()) addNode();
  list_->setCurrentIndex(std::clamp(current, 0, list_->count() - 1));
  showNode(list_->currentIndex());
}

DicomNodeEditor::~DicomNodeEditor() {
  if (tester_.joinable()) tester_.join();
}

void DicomNodeEditor::addNode() {
  storeShown();
  DicomNode node;
  node.name = tr("New node").toStdString();
  nodes_.push_back(node);
  list_->addItem(nodeLabel(node));
  list_->setCurrentIndex(list_->count() - 1);
}

void DicomNodeEditor::showNode(int index) {
  shown_ = index;
  const bool any = index >= 0 && index < static_cast<int>(nodes_.size());
  for (QWidget* w :
       std::initializer_list<QWidget*>{name_, host_, port_, calledAe_, callingAe_, timeout_, test_})
    w->setEnabled(any);
  testResult_->clear();
  if (!any) return;
  const DicomNode& node = nodes_[static_cast<std::size_t>(index)];
  name_->setText(QString::fromStdString(node.name));
  host_->setText(QString::fromStdString(node.host));
  port_->setValue(node.port);
  calledAe_->setText(QString::fromStdString(node.calledAeTitle));
  callingAe_->setText(QString::fromStdString(node.callingAeTitle));
  timeout_->setValue(node.timeoutSeconds);
}

DicomNode DicomNodeEditor::currentNode() const {
  DicomNode node;
  node.name = name_->text().trimmed().toStdString();
  node.host = host_->text().trimmed().toStdString();
  node.port = port_->value();
  node.calledAeTitle = calledAe_->text().trimmed().toStdString();
  node.callingAeTitle = callingAe_->text().trimmed().toStdString();
  node.timeoutSeconds = timeout_->value();
  return node;
}

void DicomNodeEditor::setCurrentNode(const DicomNode& node) {
  if (shown_ < 0) addNode();
  nodes_[static_cast<std::size_t>(shown_)] = node;
  showNode(shown_);
  list_->setItemText(shown_, nodeLabel(node));
}

void DicomNodeEditor::storeShown() {
  if (shown_ < 0 || shown_ >= static_cast<int>(nodes_.size())) return;
  nodes_[static_cast<std::size_t>(shown_)] = currentNode();
  list_->setItemText(shown_, nodeLabel(nodes_[static_cast<std::size_t>(shown_)]));
}

std::vector<DicomNode> DicomNodeEditor::nodes() const {
  std::vector<DicomNode> all = nodes_;
  if (shown_ >= 0 && shown_ < static_cast<int>(all.size()))
    all[static_cast<std::size_t>(shown_)] = currentNode();
  return all;
}

int DicomNodeEditor::currentIndex() const {
  return list_->currentIndex();
}

QString DicomNodeEditor::testResult() const {
  return testResult_->text();
}

bool DicomNodeEditor::testCurrent() {
  if (isTesting()) return false;
  const DicomNode node = currentNode();
  try {
    io::dicom::validateDicomNode(node);
  } catch (const Error& e) {
    onTestDone(false, QString::fromStdString(e.what()));
    return false;
  }
  test_->setEnabled(false);
  testOk_ = false;
  testResult_->setText(tr("Asking %1…").arg(nodeLabel(node)));
  tester_ = std::thread([this, node] {
    bool ok = false;
    QString message;
    try {
      const double seconds = io::dicom::echoDicomNode(node);
      ok = true;
      message = tr("%1 answered in %2 ms").arg(nodeLabel(node)).arg(std::lround(seconds * 1000.0));
    } catch (const std::exception& e) {
      message = QString::fromStdString(e.what());
    }
    QMetaObject::invokeMethod(
        this, [this, ok, message] { onTestDone(ok, message); }, Qt::QueuedConnection);
  });
  return true;
}

void DicomNodeEditor::onTestDone(bool ok, const QString& message) {
  if (tester_.joinable()) tester_.join();
  testOk_ = ok;
  testResult_->setText(message);
  testResult_->setStyleSheet(ok ? QString() : QStringLiteral("color: #b00020;"));
  test_->setEnabled(shown_ >= 0);
}

bool DicomNodeEditor::waitForTest(int timeoutMs) {
  QElapsedTimer timer;
  timer.start();
  while (isTesting() && timer.elapsed() < timeoutMs)
    QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
  return !isTesting();
}

void DicomNodeEditor::done(int result) {
  if (result == QDialog::Accepted) {
    storeShown();
    for (const DicomNode& node : nodes_) {
      try {
        io::dicom::validateDicomNode(node);
      } catch (const Error& e) {
        testResult_->setText(tr("%1: %2").arg(nodeLabel(node), QString::fromStdString(e.what())));
        testResult_->setStyleSheet(QStringLiteral("color: #b00020;"));
        return;
      }
    }
  }
  QDialog::done(result);
}

// --- PacsSender --------------------------------------------------------------------------------

PacsSender::PacsSender(QWidget* parentWidget) : QObject(parentWidget) {
  progress_ = new QDialog(parentWidget);
  progress_->setObjectName(QStringLiteral("pacsSendProgress"));
  progress_->setWindowTitle(tr("Send to PACS"));
  progress_->setWindowModality(Qt::WindowModal);
  auto* layout = new QVBoxLayout(progress_);
  progressLabel_ = new QLabel(progress_);
  progressLabel_->setWordWrap(true);
  progressLabel_->setMinimumWidth(360);
  layout->addWidget(progressLabel_);
  progressBar_ = new QProgressBar(progress_);
  progressBar_->setRange(0, 1000);
  layout->addWidget(progressBar_);
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Cancel, progress_);
  progressCancel_ = buttons->button(QDialogButtonBox::Cancel);
  progressCancel_->setToolTip(tr("Stop after the file being sent; the node keeps what it has"));
  layout->addWidget(buttons);
  const auto onCancel = [this] {
    cancel();
    progressLabel_->setText(tr("Cancelling after the file being sent…"));
    progressCancel_->setEnabled(false);
  };
  connect(buttons, &QDialogButtonBox::rejected, this, onCancel);
  connect(progress_, &QDialog::rejected, this, [this, onCancel] {
    if (isSending()) onCancel();
  });
}

PacsSender::~PacsSender() {
  cancel();
  if (worker_.joinable()) worker_.join();
}

void PacsSender::cancel() {
  if (cancel_) cancel_->request();
}

bool PacsSender::start(const DicomNode& node, std::vector<std::filesystem::path> files,
                       const std::string& seriesInstanceUid) {
  if (isSending()) return false;
  cancel_ = std::make_shared<CancelToken>();
  outcome_ = Outcome{};
  progressLabel_->setText(tr("Sending %1 files to %2…").arg(files.size()).arg(nodeLabel(node)));
  progressBar_->setValue(0);
  progressCancel_->setEnabled(true);
  QTimer::singleShot(kProgressShowDelayMs, this, [this] {
    if (isSending()) progress_->open();
  });
  worker_ = std::thread([this, node, files = std::move(files), seriesInstanceUid, cancel = cancel_,
                         observer = fileObserver_] {
    Outcome o;
    o.files = static_cast<std::int64_t>(files.size());
    std::chrono::steady_clock::time_point lastPost{};
    FunctionProgressSink sink;
    sink.onReport = [&](double fraction) {
      if (observer && fraction < 1.0)
        observer(static_cast<std::size_t>(std::lround(fraction * static_cast<double>(o.files))));
      const auto now = std::chrono::steady_clock::now();
      if (now - lastPost < kProgressInterval && fraction < 1.0) return;
      lastPost = now;
      QMetaObject::invokeMethod(
          this,
          [this, fraction] {
            progressBar_->setValue(static_cast<int>(std::lround(fraction * 1000)));
          },
          Qt::QueuedConnection);
    };
    try {
      JobContext context(*cancel, &sink);
      sendAndCount(node, files, seriesInstanceUid, context, o);
    } catch (const std::exception& e) {
      o.message = QString::fromStdString(e.what());
    }
    QMetaObject::invokeMethod(
        this, [this, o] { onDone(o); }, Qt::QueuedConnection);
  });
  return true;
}

void PacsSender::sendAndCount(const DicomNode& node,
                              const std::vector<std::filesystem::path>& files,
                              const std::string& seriesInstanceUid, const JobContext& context,
                              Outcome& o) {
  const QString where = nodeLabel(node);
  const io::dicom::DicomStoreResult r = io::dicom::storeToDicomNode(node, files, context);
  o.stored = r.storedCount;
  o.cancelled = r.cancelled;
  if (r.cancelled) {
    o.message = tr("Sending cancelled: %1 of %2 files went to %3 (it keeps them)")
                    .arg(o.stored)
                    .arg(o.files)
                    .arg(where);
    return;
  }
  o.arrived = io::dicom::instancesHeld(
      io::dicom::queryDicomNode(node, "", seriesInstanceUid, false), seriesInstanceUid);
  o.ok = o.stored == o.files && o.arrived >= o.files;
  o.message = tr("%1 of %2 instances arrived at %3").arg(o.arrived).arg(o.files).arg(where);
  const auto refused =
      std::find_if(r.files.begin(), r.files.end(), [](const auto& f) { return !f.stored; });
  if (refused != r.files.end())
    o.message += tr(" (%1 refused; the first: %2)")
                     .arg(o.files - o.stored)
                     .arg(QString::fromStdString(refused->file.filename().string() + ": " +
                                                 refused->message));
}

bool PacsSender::waitForSend(int timeoutMs) {
  QElapsedTimer timer;
  timer.start();
  while (isSending() && timer.elapsed() < timeoutMs)
    QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
  return !isSending();
}

void PacsSender::onDone(const Outcome& outcome) {
  if (worker_.joinable()) worker_.join();
  progress_->hide();
  outcome_ = outcome;
  emit finished(outcome.ok, outcome.message);
}

// --- The export dialog's "Send to PACS" row ------------------------------------------------------

QLayout* DicomExportDialog::buildPacsRow() {
  auto* row = new QHBoxLayout;
  sendToPacs_ = new QCheckBox(tr("After export, &send to"), this);
  sendToPacs_->setObjectName(QStringLiteral("dicomSendToPacs"));
  sendToPacs_->setToolTip(
      tr("Send the written series to this DICOM node (C-STORE), then ask it how many images "
         "arrived"));
  pacsNode_ = new QComboBox(this);
  pacsNode_->setObjectName(QStringLiteral("dicomPacsNode"));
  pacsNode_->setSizeAdjustPolicy(QComboBox::AdjustToContents);
  auto* nodes = new QPushButton(tr("N&odes…"), this);
  nodes->setObjectName(QStringLiteral("dicomPacsNodes"));
  nodes->setToolTip(tr("Add, edit and test (echo) the DICOM nodes you send to"));
  row->addWidget(sendToPacs_);
  row->addWidget(pacsNode_, 1);
  row->addWidget(nodes);
  pacsSender_ = new PacsSender(this);
  connect(nodes, &QPushButton::clicked, this, &DicomExportDialog::editPacsNodes);
  connect(pacsSender_, &PacsSender::finished, this, &DicomExportDialog::onPacsSendDone);
  connect(pacsNode_, &QComboBox::currentIndexChanged, this, [this](int index) {
    if (index >= 0) setLastDicomNodeIndex(index);
  });
  reloadPacsNodes();
  return row;
}

void DicomExportDialog::reloadPacsNodes() {
  const QSignalBlocker block(pacsNode_);
  pacsNode_->clear();
  for (const DicomNode& node : loadDicomNodes()) pacsNode_->addItem(nodeLabel(node));
  const bool any = pacsNode_->count() > 0;
  if (any) pacsNode_->setCurrentIndex(std::clamp(lastDicomNodeIndex(), 0, pacsNode_->count() - 1));
  pacsNode_->setEnabled(any);
  if (!any) sendToPacs_->setChecked(false);
  sendToPacs_->setEnabled(any);
  if (!any) sendToPacs_->setToolTip(tr("Add a DICOM node first (Nodes…)"));
}

void DicomExportDialog::editPacsNodes() {
  DicomNodeEditor editor(loadDicomNodes(), pacsNode_->currentIndex(), this);
  if (editor.exec() != QDialog::Accepted) return;
  saveDicomNodes(editor.nodes());
  setLastDicomNodeIndex(editor.currentIndex());
  reloadPacsNodes();
  if (pacsNode_->count() > 0) sendToPacs_->setChecked(true);
}

bool DicomExportDialog::isSendingToPacs() const {
  return pacsSender_ && pacsSender_->isSending();
}

bool DicomExportDialog::startPacsSend() {
  lastPacsMessage_.clear();
  if (!sendToPacs_->isChecked() || !result_) return false;
  const std::vector<DicomNode> nodes = loadDicomNodes();
  const int index = pacsNode_->currentIndex();
  if (index < 0 || index >= static_cast<int>(nodes.size())) return false;
  std::vector<std::filesystem::path> files;
  for (const auto& f : result_->files) files.push_back(result_->folder / f);
  exportButton_->setEnabled(false);
  return pacsSender_->start(nodes[static_cast<std::size_t>(index)], std::move(files),
                            result_->seriesInstanceUid);
}

void DicomExportDialog::onPacsSendDone(bool ok, const QString& message) {
  lastPacsMessage_ = message;
  lastMessage_ += QStringLiteral("; ") + message;
  emit exportSucceeded(lastMessage_);
  updateExportButton();
  if (ok) {
    accept();
    return;
  }
  // The series is written; only the send fell short: say so and keep the dialog open.
  summary_->setText(summary_->text() +
                    QStringLiteral("<br><b>%1</b>").arg(message.toHtmlEscaped()));
  if (showsErrorDialogs_ && !pacsSender_->lastOutcome().cancelled) {
    auto* box = new QMessageBox(QMessageBox::Warning, tr("Send to PACS"),
                                tr("The series was written to %1.\n\n%2")
                                    .arg(QDir::toNativeSeparators(exportFolder_), message),
                                QMessageBox::Ok, this);
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->open();
  }
}

}  // namespace tomowb::gui
