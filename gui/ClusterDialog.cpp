#include "gui/ClusterDialog.h"

#include <QComboBox>
#include <QDir>
#include <QFileInfo>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTableWidget>
#include <QTimer>
#include <QVBoxLayout>
#include <memory>

#include "gui/AlgorithmPanel.h"
#include "gui/core/Workspace.h"
#include "recon/cluster/RunArguments.h"
#include "recon/cluster/SlurmClient.h"
#include "recon/core/Error.h"

namespace tomowb::gui {

namespace {

QString qs(const std::string& text) {
  return QString::fromStdString(text);
}

std::string ss(const QString& text) {
  return text.trimmed().toStdString();
}

QSpinBox* spin(int minimum, int maximum, int value, QWidget* parent) {
  auto* box = new QSpinBox(parent);
  box->setRange(minimum, maximum);
  box->setValue(value);
  return box;
}

}  // namespace

ClusterDialog::ClusterDialog(Workspace& workspace, AlgorithmPanel& algorithm, QWidget* parent)
    : QDialog(parent), workspace_(workspace), algorithm_(algorithm) {
  setWindowTitle(tr("Cluster"));
  setObjectName(QStringLiteral("clusterDialog"));
  auto* layout = new QVBoxLayout(this);
  buildProfileBox(layout);
  buildRunBox(layout);
  buildJobsBox(layout);
  status_ = new QLabel(this);
  status_->setObjectName(QStringLiteral("clusterStatus"));
  status_->setWordWrap(true);
  status_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  layout->addWidget(status_);

  worker_ = new QObject;
  worker_->moveToThread(&thread_);
  connect(&thread_, &QThread::finished, worker_, &QObject::deleteLater);
  thread_.setObjectName(QStringLiteral("cluster client"));
  thread_.start();

  reloadProfiles();
  for (const cluster::ClusterJob& job : cluster::listJobRecords()) {
    jobs_.push_back(job);
    addJobRow(job);
  }
  describeRun();
  updateButtons();
  poll_ = new QTimer(this);
  poll_->setInterval(1000);
  connect(poll_, &QTimer::timeout, this, &ClusterDialog::refresh);
  poll_->start();
  QTimer::singleShot(0, this, &ClusterDialog::refresh);
  resize(960, 760);
}

ClusterDialog::~ClusterDialog() {
  // A command in flight ends within its time limit (SlurmClient's 30 s; usually milliseconds).
  thread_.quit();
  thread_.wait();
}

void ClusterDialog::buildProfileBox(QVBoxLayout* layout) {
  auto* box = new QGroupBox(tr("Cluster profile"), this);
  auto* outer = new QVBoxLayout(box);
  auto* top = new QHBoxLayout;
  profiles_ = new QComboBox(box);
  profiles_->setObjectName(QStringLiteral("clusterProfiles"));
  profiles_->setToolTip(tr("Profiles are JSON files in %1, shared with 'tomowb-cli cluster'")
                            .arg(qs(cluster::profileFolder().string())));
  auto* save = new QPushButton(tr("Save profile"), box);
  save->setObjectName(QStringLiteral("saveProfile"));
  auto* remove = new QPushButton(tr("Delete"), box);
  top->addWidget(new QLabel(tr("Profile:"), box));
  top->addWidget(profiles_, 1);
  top->addWidget(save);
  top->addWidget(remove);
  outer->addLayout(top);

  auto* columns = new QHBoxLayout;
  auto* left = new QFormLayout;
  auto* right = new QFormLayout;
  name_ = new QLineEdit(box);
  partition_ = new QLineEdit(box);
  partition_->setPlaceholderText(tr("the cluster's default"));
  nodes_ = spin(1, 100000, 1, box);
  tasks_ = spin(1, 4096, 1, box);
  gpus_ = spin(0, 64, 0, box);
  cpus_ = spin(0, 4096, 0, box);
  cpus_->setSpecialValueText(tr("default"));
  time_ = new QLineEdit(QStringLiteral("01:00:00"), box);
  account_ = new QLineEdit(box);
  account_->setPlaceholderText(tr("none"));
  ssh_ = new QLineEdit(box);
  ssh_->setPlaceholderText(tr("empty: submit on this machine"));
  workFolder_ = new QLineEdit(box);
  workFolder_->setPlaceholderText(tr("a folder every node sees"));
  cli_ = new QLineEdit(QStringLiteral("tomowb-cli"), box);
  setup_ = new QPlainTextEdit(box);
  setup_->setPlaceholderText(tr("module load …  (one shell line each, run before srun)"));
  setup_->setMaximumHeight(60);
  left->addRow(tr("Name"), name_);
  left->addRow(tr("Partition"), partition_);
  left->addRow(tr("Nodes"), nodes_);
  left->addRow(tr("Ranks per node"), tasks_);
  left->addRow(tr("GPUs per node"), gpus_);
  left->addRow(tr("CPUs per rank"), cpus_);
  right->addRow(tr("Time limit"), time_);
  right->addRow(tr("Account"), account_);
  right->addRow(tr("ssh host"), ssh_);
  right->addRow(tr("Work folder"), workFolder_);
  right->addRow(tr("tomowb-cli"), cli_);
  right->addRow(tr("Setup lines"), setup_);
  columns->addLayout(left, 1);
  columns->addLayout(right, 2);
  outer->addLayout(columns);
  layout->addWidget(box);

  connect(profiles_, &QComboBox::currentIndexChanged, this, [this](int index) {
    if (index < 0) return;
    try {
      showProfile(cluster::loadProfile(ss(profiles_->itemData(index).toString())));
    } catch (const std::exception& e) {
      status_->setText(qs(e.what()));
    }
  });
  connect(save, &QPushButton::clicked, this, &ClusterDialog::saveProfile);
  connect(remove, &QPushButton::clicked, this, [this] {
    const QString path = profiles_->currentData().toString();
    if (path.isEmpty()) return;
    QFile::remove(path);
    reloadProfiles();
  });
  for (QLineEdit* edit : {name_, partition_, time_, account_, ssh_, workFolder_, cli_})
    connect(edit, &QLineEdit::textChanged, this, &ClusterDialog::updateButtons);
}

void ClusterDialog::buildRunBox(QVBoxLayout* layout) {
  auto* box = new QGroupBox(tr("Submit the current run"), this);
  auto* form = new QFormLayout(box);
  runText_ = new QLabel(box);
  runText_->setWordWrap(true);
  runText_->setObjectName(QStringLiteral("clusterRun"));
  jobName_ = new QLineEdit(QStringLiteral("tomowb"), box);
  output_ = new QLineEdit(box);
  output_->setPlaceholderText(tr("empty: <algorithm>.raw in the job's folder"));
  slabSlices_ = spin(-1, 1 << 20, 16, box);
  slabSlices_->setSpecialValueText(tr("no slabs"));
  slabSlices_->setToolTip(
      tr("FDK: slices per slab, shared over the ranks (0: the tallest slab half the memory "
         "holds; 'no slabs': one process reconstructs the whole volume)"));
  submit_ = new QPushButton(tr("Submit to cluster"), box);
  submit_->setObjectName(QStringLiteral("submitToCluster"));
  form->addRow(tr("Run"), runText_);
  form->addRow(tr("Job name"), jobName_);
  form->addRow(tr("Output"), output_);
  form->addRow(tr("Slab slices"), slabSlices_);
  form->addRow(QString(), submit_);
  layout->addWidget(box);
  connect(submit_, &QPushButton::clicked, this, &ClusterDialog::submit);
}

void ClusterDialog::buildJobsBox(QVBoxLayout* layout) {
  auto* box = new QGroupBox(tr("Jobs"), this);
  auto* outer = new QVBoxLayout(box);
  table_ = new QTableWidget(0, ColumnCount, box);
  table_->setObjectName(QStringLiteral("clusterJobs"));
  table_->setHorizontalHeaderLabels(
      {tr("Job"), tr("Profile"), tr("Name"), tr("State"), tr("Progress"), tr("Output")});
  table_->setSelectionBehavior(QAbstractItemView::SelectRows);
  table_->setSelectionMode(QAbstractItemView::SingleSelection);
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table_->verticalHeader()->hide();
  table_->horizontalHeader()->setStretchLastSection(true);
  table_->setColumnWidth(State, 220);
  table_->setColumnWidth(Progress, 140);
  outer->addWidget(table_, 1);
  auto* buttons = new QHBoxLayout;
  cancel_ = new QPushButton(tr("Cancel job"), box);
  cancel_->setObjectName(QStringLiteral("cancelClusterJob"));
  open_ = new QPushButton(tr("Open result"), box);
  open_->setObjectName(QStringLiteral("openClusterResult"));
  auto* forget = new QPushButton(tr("Forget job"), box);
  forget->setToolTip(tr("Remove the job from this list (its files stay on the cluster)"));
  auto* close = new QPushButton(tr("Close"), box);
  buttons->addWidget(cancel_);
  buttons->addWidget(open_);
  buttons->addWidget(forget);
  buttons->addStretch(1);
  buttons->addWidget(close);
  outer->addLayout(buttons);
  layout->addWidget(box, 1);
  connect(cancel_, &QPushButton::clicked, this, &ClusterDialog::cancelSelected);
  connect(open_, &QPushButton::clicked, this, &ClusterDialog::openSelected);
  connect(close, &QPushButton::clicked, this, &QDialog::close);
  connect(forget, &QPushButton::clicked, this, [this] {
    const int index = selectedIndex();
    if (index < 0) return;
    cluster::removeJobRecord(jobs_[std::size_t(index)]);
    statuses_.erase(jobs_[std::size_t(index)].jobId);
    jobs_.erase(jobs_.begin() + index);
    table_->removeRow(index);
    updateButtons();
  });
  connect(table_, &QTableWidget::itemSelectionChanged, this, &ClusterDialog::updateButtons);
}

void ClusterDialog::reloadProfiles(const QString& select) {
  const QSignalBlocker block(profiles_);
  profiles_->clear();
  for (const cluster::ClusterProfile& p : cluster::listProfiles(cluster::profileFolder()))
    profiles_->addItem(qs(p.name), qs(cluster::profilePath(p.name).string()));
  if (profiles_->count() == 0) {
    name_->setText(QStringLiteral("local"));
    return;
  }
  const int index = select.isEmpty() ? 0 : std::max(0, profiles_->findText(select));
  profiles_->setCurrentIndex(index);
  try {
    showProfile(cluster::loadProfile(ss(profiles_->itemData(index).toString())));
  } catch (const std::exception& e) {
    status_->setText(qs(e.what()));
  }
}

cluster::ClusterProfile ClusterDialog::formProfile() const {
  cluster::ClusterProfile p;
  p.name = ss(name_->text());
  p.partition = ss(partition_->text());
  p.nodes = nodes_->value();
  p.tasksPerNode = tasks_->value();
  p.gpusPerNode = gpus_->value();
  p.cpusPerTask = cpus_->value();
  p.timeLimit = ss(time_->text());
  p.account = ss(account_->text());
  p.sshHost = ss(ssh_->text());
  p.workFolder = ss(workFolder_->text());
  p.cliPath = ss(cli_->text());
  for (const QString& line : setup_->toPlainText().split('\n', Qt::SkipEmptyParts))
    if (!line.trimmed().isEmpty()) p.setupLines.push_back(line.toStdString());
  p.validate();
  return p;
}

void ClusterDialog::showProfile(const cluster::ClusterProfile& p) {
  name_->setText(qs(p.name));
  partition_->setText(qs(p.partition));
  nodes_->setValue(p.nodes);
  tasks_->setValue(p.tasksPerNode);
  gpus_->setValue(p.gpusPerNode);
  cpus_->setValue(p.cpusPerTask);
  time_->setText(qs(p.timeLimit));
  account_->setText(qs(p.account));
  ssh_->setText(qs(p.sshHost));
  workFolder_->setText(qs(p.workFolder));
  cli_->setText(qs(p.cliPath));
  QStringList lines;
  for (const std::string& line : p.setupLines) lines << qs(line);
  setup_->setPlainText(lines.join('\n'));
  describeRun();
}

bool ClusterDialog::saveProfile() {
  try {
    const cluster::ClusterProfile p = formProfile();
    cluster::saveProfile(p, cluster::profilePath(p.name));
    reloadProfiles(qs(p.name));
    status_->setText(
        tr("Saved profile %1 (%2)").arg(qs(p.name), qs(cluster::profilePath(p.name).string())));
    return true;
  } catch (const std::exception& e) {
    status_->setText(tr("Cannot save the profile: %1").arg(qs(e.what())));
    return false;
  }
}

bool ClusterDialog::canSubmit(QString* why) const {
  const auto refuse = [&](const QString& reason) {
    if (why != nullptr) *why = reason;
    return false;
  };
  if (submitting_) return refuse(tr("A submission is on its way."));
  if (!workspace_.projections()) return refuse(tr("Open projections first."));
  if (workspace_.projectionsPath().isEmpty())
    return refuse(
        tr("The projections are only in memory (the demo): the cluster reads a file. "
           "Open the projections from a file (tomowb-cli phantom or convert writes "
           "one)."));
  if (workspace_.geometry() != &workspace_.projections()->geometry())
    return refuse(
        tr("The geometry was edited in the window; the cluster would read the file's. "
           "Save the edited geometry with the projections (tomowb-cli convert "
           "--geometry) and open that file."));
  QString panelWhy;
  if (!algorithm_.validate(&panelWhy)) return refuse(panelWhy);
  try {
    formProfile();
  } catch (const std::exception& e) {
    return refuse(tr("The profile: %1").arg(qs(e.what())));
  }
  return true;
}

void ClusterDialog::describeRun() {
  if (runText_ == nullptr) return;
  QString why;
  const bool ok = canSubmit(&why);
  const catalog::AlgorithmDescriptor& d = algorithm_.descriptor();
  QString text =
      tr("%1 on %2")
          .arg(qs(d.label), workspace_.projectionsPath().isEmpty() ? tr("(no projections file)")
                                                                   : workspace_.projectionsPath());
  if (!ok)
    text += QStringLiteral("\n") + why;
  else if (!ssh_->text().trimmed().isEmpty())
    text += tr("\nThe cluster must see this path; the result stays on %1 until opened.")
                .arg(ssh_->text().trimmed());
  runText_->setText(text);
  slabSlices_->setEnabled(d.id == "fdk");
}

void ClusterDialog::inWorker(std::function<QString()> work,
                             std::function<void(const QString&)> done) {
  QMetaObject::invokeMethod(
      worker_,
      [this, work = std::move(work), done = std::move(done)] {
        QString result;
        try {
          result = work();
        } catch (const std::exception& e) {
          result = QStringLiteral("error: ") + qs(e.what());
        }
        QMetaObject::invokeMethod(
            this, [done, result] { done(result); }, Qt::QueuedConnection);
      },
      Qt::QueuedConnection);
}

bool ClusterDialog::submit() {
  describeRun();
  QString why;
  if (!canSubmit(&why)) {
    status_->setText(tr("Cannot submit: %1").arg(why));
    emit submitFailed(why);
    return false;
  }
  const catalog::AlgorithmDescriptor& d = algorithm_.descriptor();
  auto job = std::make_shared<cluster::ClusterJob>();
  cluster::ClusterProfile profile;
  std::vector<std::string> args;
  cluster::ClusterRun run;
  try {
    profile = formProfile();
    const cluster::SlurmClient client(profile);
    const QString input = workspace_.projectionsPath();
    const std::string workFolder =
        profile.local() ? ss(QFileInfo(input).absolutePath()) : profile.workFolder;
    run = client.prepare({}, ss(jobName_->text()), workFolder);
    cluster::RunArgumentsOptions o;
    o.input = ss(input);
    o.output = ss(output_->text());
    if (o.output.empty()) o.output = run.jobFolder + "/" + d.id + ".raw";
    if (d.id == "fdk" && slabSlices_->value() >= 0) o.slabSlices = slabSlices_->value();
    run.arguments = cluster::reconArguments(d, algorithm_.algorithmParameters(), o);
    args = run.arguments;
  } catch (const std::exception& e) {
    status_->setText(tr("Cannot submit: %1").arg(qs(e.what())));
    emit submitFailed(qs(e.what()));
    return false;
  }
  submitting_ = true;
  submit_->setEnabled(false);
  status_->setText(tr("Submitting to %1…").arg(qs(profile.name)));
  inWorker(
      [profile, run, job] {
        cluster::SlurmClient client(profile);
        *job = client.submit(run);
        return QString();
      },
      [this, job](const QString& error) {
        submitting_ = false;
        updateButtons();
        if (!error.isEmpty()) {
          const QString message = error.mid(7);  // after "error: "
          status_->setText(tr("Submission failed: %1").arg(message));
          emit submitFailed(message);
          return;
        }
        jobs_.insert(jobs_.begin(), *job);
        addJobRow(*job, true);
        table_->selectRow(0);
        status_->setText(
            tr("Job %1 submitted; its files are in %2").arg(qs(job->jobId), qs(job->jobFolder)));
        emit submitted(qs(job->jobId));
        refresh();
      });
  return true;
}

void ClusterDialog::addJobRow(const cluster::ClusterJob& job, bool atTop) {
  int row = rowOf(job.jobId);
  if (row < 0) {
    row = atTop ? 0 : table_->rowCount();
    table_->insertRow(row);
  }
  const auto set = [&](int column, const QString& text) {
    auto* item = new QTableWidgetItem(text);
    item->setToolTip(text);
    table_->setItem(row, column, item);
  };
  set(Job, qs(job.jobId));
  set(Profile,
      qs(job.profile.name) +
          (job.profile.local() ? QString() : QStringLiteral(" (") + qs(job.profile.sshHost) + ")"));
  set(Name, qs(job.name));
  set(State, tr("…"));
  set(Output, qs(job.output));
  auto* bar = new QProgressBar(table_);
  bar->setRange(0, 1000);
  bar->setValue(0);
  bar->setFormat(QStringLiteral("%p%"));
  table_->setCellWidget(row, Progress, bar);
}

int ClusterDialog::rowOf(const std::string& jobId) const {
  for (int r = 0; r < table_->rowCount(); ++r)
    if (QTableWidgetItem* item = table_->item(r, Job); item != nullptr && ss(item->text()) == jobId)
      return r;
  return -1;
}

cluster::JobStatus ClusterDialog::statusOf(const std::string& jobId) const {
  const auto found = statuses_.find(jobId);
  return found == statuses_.end() ? cluster::JobStatus() : found->second;
}

void ClusterDialog::showStatus(const std::string& jobId, const cluster::JobStatus& s) {
  statuses_[jobId] = s;
  const int row = rowOf(jobId);
  if (row < 0) return;
  QString state = qs(std::string(cluster::jobStateName(s.state)));
  if (s.state == cluster::JobState::Done && s.outputPresent) state = tr("done: result landed");
  if (!s.message.empty())
    state += QStringLiteral(": ") + qs(s.message);
  else if (s.state == cluster::JobState::Pending && !s.reason.empty() && s.reason != "None")
    state += QStringLiteral(" (") + qs(s.reason) + ")";
  else if (s.slabsTotal > 0 && s.state == cluster::JobState::Running)
    state += tr(" (slabs %1/%2)").arg(s.slabsDone).arg(s.slabsTotal);
  QTableWidgetItem* item = table_->item(row, State);
  item->setText(state);
  QString tip = qs(s.summary());
  if (!s.logTail.empty()) tip += QStringLiteral("\n\n") + qs(s.logTail);
  item->setToolTip(tip);
  if (auto* bar = qobject_cast<QProgressBar*>(table_->cellWidget(row, Progress)))
    bar->setValue(static_cast<int>(1000 * s.fraction));
  updateButtons();
}

void ClusterDialog::refresh() {
  if (polling_) return;
  std::vector<cluster::ClusterJob> open;
  for (const cluster::ClusterJob& job : jobs_) {
    const auto found = statuses_.find(job.jobId);
    if (found == statuses_.end() || !cluster::isFinal(found->second.state)) open.push_back(job);
  }
  if (open.empty()) return;
  polling_ = true;
  auto results = std::make_shared<std::vector<std::pair<std::string, cluster::JobStatus>>>();
  auto errors = std::make_shared<QStringList>();
  inWorker(
      [open, results, errors] {
        for (const cluster::ClusterJob& job : open) {
          try {
            cluster::SlurmClient client(job.profile);
            results->emplace_back(job.jobId, client.status(job));
          } catch (const std::exception& e) {
            errors->append(QStringLiteral("job %1: %2").arg(qs(job.jobId), qs(e.what())));
          }
        }
        return QString();
      },
      [this, results, errors](const QString&) {
        polling_ = false;
        for (const auto& [id, status] : *results) showStatus(id, status);
        if (!errors->isEmpty()) status_->setText(errors->join('\n'));
      });
}

int ClusterDialog::selectedIndex() const {
  const QList<QTableWidgetItem*> selected = table_->selectedItems();
  if (selected.isEmpty()) return -1;
  const std::string id = ss(table_->item(selected.front()->row(), Job)->text());
  for (std::size_t i = 0; i < jobs_.size(); ++i)
    if (jobs_[i].jobId == id) return static_cast<int>(i);
  return -1;
}

void ClusterDialog::updateButtons() {
  const int index = selectedIndex();
  const cluster::JobStatus s =
      index >= 0 ? statusOf(jobs_[std::size_t(index)].jobId) : cluster::JobStatus();
  cancel_->setEnabled(index >= 0 && !cluster::isFinal(s.state));
  open_->setEnabled(index >= 0 && s.state == cluster::JobState::Done && s.outputPresent);
  submit_->setEnabled(!submitting_);
}

void ClusterDialog::cancelSelected() {
  const int index = selectedIndex();
  if (index < 0) return;
  const cluster::ClusterJob job = jobs_[std::size_t(index)];
  status_->setText(tr("Cancelling job %1…").arg(qs(job.jobId)));
  inWorker(
      [job] {
        cluster::SlurmClient client(job.profile);
        client.cancel(job);
        return QString();
      },
      [this, job](const QString& error) {
        status_->setText(error.isEmpty() ? tr("Job %1: cancel sent").arg(qs(job.jobId))
                                         : error.mid(7));
        refresh();
      });
}

void ClusterDialog::openSelected() {
  const int index = selectedIndex();
  if (index < 0) return;
  const cluster::ClusterJob job = jobs_[std::size_t(index)];
  // An ssh profile's result is copied into the cache folder first.
  const QString cache = QStandardPaths::writableLocation(QStandardPaths::CacheLocation) +
                        QStringLiteral("/cluster-results/") + qs(job.profile.name) + "-" +
                        qs(job.jobId);
  status_->setText(job.profile.local() ? QString()
                                       : tr("Copying the result of job %1 from %2…")
                                             .arg(qs(job.jobId), qs(job.profile.sshHost)));
  inWorker(
      [job, cache] {
        cluster::SlurmClient client(job.profile);
        return qs(client.fetchResult(job, ss(cache)).string());
      },
      [this](const QString& result) {
        if (result.startsWith(QStringLiteral("error: "))) {
          status_->setText(result.mid(7));
          return;
        }
        status_->setText(tr("Opening %1").arg(result));
        emit resultReady(result);
      });
}

}  // namespace tomowb::gui
