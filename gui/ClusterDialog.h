// ClusterDialog: Run > Cluster… (issue #22, point 5). Cluster profiles (SLURM partition, nodes,
// ranks and GPUs per node, CPUs per task, time limit, account, ssh host or this machine, the work
// folder and tomowb-cli on the cluster, setup lines) are edited and saved as the JSON files
// `tomowb-cli cluster` reads (recon/cluster/ClusterProfile.h). "Submit to cluster" sends the
// algorithm panel's run (its algorithm, parameters and grid, on the projections file; FDK in
// slabs over the ranks) as the tomowb-cli arguments a script would give (RunArguments.h) through
// SlurmClient. The job list (every job on record, the CLI's too) shows SLURM's state and the
// progress from the run's progress file, polled every second on a worker thread: sbatch, squeue,
// scancel and ssh never run on the GUI thread. Cancel sends scancel; Open result loads the output
// when it has landed (copied here with scp first for an ssh profile).
#pragma once

#include <QDialog>
#include <QThread>
#include <functional>
#include <map>
#include <vector>

#include "recon/cluster/ClusterJob.h"
#include "recon/cluster/ClusterProfile.h"

class QComboBox;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QPushButton;
class QSpinBox;
class QTableWidget;
class QTimer;
class QVBoxLayout;

namespace tomowb::gui {

class AlgorithmPanel;
class Workspace;

class ClusterDialog : public QDialog {
  Q_OBJECT

 public:
  enum Column { Job, Profile, Name, State, Progress, Output, ColumnCount };

  ClusterDialog(Workspace& workspace, AlgorithmPanel& algorithm, QWidget* parent = nullptr);
  ~ClusterDialog() override;
  ClusterDialog(const ClusterDialog&) = delete;
  ClusterDialog& operator=(const ClusterDialog&) = delete;

  // The profile in the form (not saved); ParameterError naming the field when it is not valid.
  cluster::ClusterProfile formProfile() const;
  void showProfile(const cluster::ClusterProfile& profile);
  // Saves the form's profile in the profile folder; false with the reason in the status line.
  bool saveProfile();

  // False with the reason (one sentence) when the current run cannot be submitted.
  bool canSubmit(QString* why = nullptr) const;
  // Submits the current run with the form's profile (on the worker thread); false with the
  // reason in the status line when it cannot start. submitted() or the status line follow.
  bool submit();
  // scancel of the selected job (worker thread).
  void cancelSelected();
  // Loads the selected job's result into the window (after copying it here for ssh).
  void openSelected();
  // Looks at every job not yet finished now (also done every second).
  void refresh();

  const std::vector<cluster::ClusterJob>& jobs() const { return jobs_; }
  // The last status of a job (state Unknown before the first look).
  cluster::JobStatus statusOf(const std::string& jobId) const;
  int rowOf(const std::string& jobId) const;

  QComboBox& profileChoice() { return *profiles_; }
  QLineEdit& nameEdit() { return *name_; }
  QLineEdit& partitionEdit() { return *partition_; }
  QSpinBox& nodesSpin() { return *nodes_; }
  QSpinBox& tasksSpin() { return *tasks_; }
  QLineEdit& workFolderEdit() { return *workFolder_; }
  QLineEdit& cliEdit() { return *cli_; }
  QLineEdit& outputEdit() { return *output_; }
  QSpinBox& slabSlicesSpin() { return *slabSlices_; }
  QTableWidget& table() { return *table_; }
  QPushButton& submitButton() { return *submit_; }
  QPushButton& cancelButton() { return *cancel_; }
  QPushButton& openButton() { return *open_; }
  QLabel& statusLine() { return *status_; }

 signals:
  void submitted(const QString& jobId);
  void submitFailed(const QString& message);
  // The job's output, a path here, to load as a volume (MainWindow opens it).
  void resultReady(const QString& path);

 private:
  void buildProfileBox(QVBoxLayout* layout);
  void buildRunBox(QVBoxLayout* layout);
  void buildJobsBox(QVBoxLayout* layout);
  void reloadProfiles(const QString& select = {});
  void describeRun();
  void addJobRow(const cluster::ClusterJob& job, bool atTop = false);
  void showStatus(const std::string& jobId, const cluster::JobStatus& status);
  void updateButtons();
  int selectedIndex() const;
  // Runs `work` on the worker thread, then `done` with its result (or error text) here.
  void inWorker(std::function<QString()> work, std::function<void(const QString&)> done);

  Workspace& workspace_;
  AlgorithmPanel& algorithm_;
  QComboBox* profiles_ = nullptr;
  QLineEdit *name_ = nullptr, *partition_ = nullptr, *time_ = nullptr, *account_ = nullptr;
  QLineEdit *ssh_ = nullptr, *workFolder_ = nullptr, *cli_ = nullptr, *output_ = nullptr;
  QLineEdit* jobName_ = nullptr;
  QSpinBox *nodes_ = nullptr, *tasks_ = nullptr, *gpus_ = nullptr, *cpus_ = nullptr;
  QSpinBox* slabSlices_ = nullptr;
  QPlainTextEdit* setup_ = nullptr;
  QLabel *runText_ = nullptr, *status_ = nullptr;
  QPushButton *submit_ = nullptr, *cancel_ = nullptr, *open_ = nullptr;
  QTableWidget* table_ = nullptr;
  QTimer* poll_ = nullptr;

  std::vector<cluster::ClusterJob> jobs_;
  std::map<std::string, cluster::JobStatus> statuses_;
  bool polling_ = false, submitting_ = false;
  QThread thread_;
  QObject* worker_ = nullptr;
};

}  // namespace tomowb::gui
