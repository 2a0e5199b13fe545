// SweepDialog: Run > Sweep variants… (issue #9, points 3 and 4). Runs every registered kernel
// variant of the algorithm panel's algorithm on the current projections (FDK and WBP:
// qa::sweepFdk over the "fdk.bp." backprojectors on the panel's grid; SIRT, OS-SIRT and SART of a
// tilt series: qa::sweepSirt over the projector pairs with the panel's grid and iterations), on
// the devices chosen, each timed as the median of several runs after untimed warm-ups and
// compared with the CPU float64 reference. The sweep runs on a worker thread (SweepRunner) with a
// progress bar and Cancel. Results: the table (variant, accuracy class, device, median time,
// GUPS, reference, NRMSE, max-abs/range, pass / fail in colour, determinism, adjoint relative
// error) beside the accuracy-against-speed chart (log time, log NRMSE; green pass, red fail; the
// Pareto front joined). Export report… writes qa::writeSweepReport (report.md, pareto.svg,
// slices) into a folder.
#pragma once

#include <QDialog>
#include <memory>

#include "recon/qa/VariantSweep.h"

class QComboBox;
class QLabel;
class QLineEdit;
class QProgressBar;
class QPushButton;
class QSpinBox;
class QTableWidget;

namespace tomowb::render {
class ChartView;
}

namespace tomowb::gui {

class AlgorithmPanel;
class SweepRunner;
class Workspace;

class SweepDialog : public QDialog {
  Q_OBJECT

 public:
  enum Column {
    Variant,
    Class,
    Device,
    MedianSeconds,  // kernel time, median of the timed runs
    WallSeconds,    // wall time of the whole run, median
    Gups,
    Reference,
    Nrmse,
    MaxAbsRelative,
    Verdict,
    Determinism,
    Adjoint,
    ColumnCount
  };
  enum DeviceChoice { CpuOnly, GpuOnly, CpuAndGpu };

  SweepDialog(Workspace& workspace, AlgorithmPanel& algorithm, QWidget* parent = nullptr);
  ~SweepDialog() override;
  SweepDialog(const SweepDialog&) = delete;
  SweepDialog& operator=(const SweepDialog&) = delete;

  // False with the reason (one sentence) when no sweep can start: no projections, an algorithm
  // without a sweep, parameters the panel refuses, a sweep running.
  bool canStart(QString* why = nullptr) const;
  // Starts the sweep (Run); false with the reason in the status line if it cannot.
  bool start();
  void cancel();
  bool running() const;

  // Writes the report of the last sweep into `folder` (new or empty; replaced when `replace`).
  // False with the reason in *error.
  bool exportReportTo(const QString& folder, bool replace, QString* error = nullptr);

  QTableWidget& table() { return *table_; }
  render::ChartView& chart() { return *chart_; }
  QComboBox& deviceChoice() { return *device_; }
  QSpinBox& repeats() { return *repeats_; }
  QSpinBox& warmups() { return *warmups_; }
  QLineEdit& variantFilter() { return *filter_; }
  QPushButton& runButton() { return *run_; }
  QPushButton& cancelButton() { return *cancel_; }
  QPushButton& exportButton() { return *export_; }
  QProgressBar& progressBar() { return *progress_; }
  QString statusText() const;
  // The last finished sweep (null before one).
  const std::shared_ptr<const qa::SweepResult>& result() const { return result_; }

 signals:
  void sweepFinished();
  void sweepEnded();  // finished, failed or cancelled

 private:
  void updateState();
  void onFinished(std::shared_ptr<const qa::SweepResult> result);
  void onEnded(const QString& message, bool error);
  void fillTable(const qa::SweepResult& result);
  void fillChart(const qa::SweepResult& result);
  void exportReport();

  Workspace& workspace_;
  AlgorithmPanel& algorithm_;
  SweepRunner* runner_ = nullptr;
  std::shared_ptr<const qa::SweepResult> result_;
  QLabel* input_ = nullptr;
  QComboBox* device_ = nullptr;
  QSpinBox* repeats_ = nullptr;
  QSpinBox* warmups_ = nullptr;
  QLineEdit* filter_ = nullptr;
  QPushButton* run_ = nullptr;
  QPushButton* cancel_ = nullptr;
  QPushButton* export_ = nullptr;
  QProgressBar* progress_ = nullptr;
  QLabel* status_ = nullptr;
  QTableWidget* table_ = nullptr;
  render::ChartView* chart_ = nullptr;
  QString gpuUnavailable_;  // why GPU choices are disabled (empty: a GPU is present)
};

}  // namespace tomowb::gui
