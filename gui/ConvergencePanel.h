// ConvergencePanel: how iterative runs (SIRT, OS-SIRT, SART) converge, live. Two charts with a
// logarithmic y axis against the iteration: the relative residual ||b - Ax|| / ||b|| and the
// R-weighted residual ||b - Ax||_R that SIRT minimises (reference/sirt-et.md section 3), one
// curve per run, so runs (methods, relaxations, projector pairs) can be compared; curves stay
// until their run is forgotten or "Clear ended runs". The points come from
// RunController::runIteration (one per iteration; the controller batches their delivery), and
// the header says where the newest run is. Export PNG (the panel) and CSV (every point).
#pragma once

#include <QString>
#include <QWidget>
#include <map>
#include <vector>

#include "recon/job/IterationSink.h"

class QLabel;
class QPushButton;

namespace tomowb::render {
class ChartView;
}

namespace tomowb::gui {

class RunController;

class ConvergencePanel : public QWidget {
  Q_OBJECT

 public:
  explicit ConvergencePanel(RunController& runs, QWidget* parent = nullptr);

  render::ChartView& relativeChart() { return *relativeChart_; }
  render::ChartView& weightedChart() { return *weightedChart_; }
  // The curve of a run in both charts ("run 3: SIRT"); empty for a run with no curve.
  QString seriesName(int runId) const;
  std::vector<int> plottedRuns() const;
  QString headerText() const;

  // "run,method,iteration,relative_residual,weighted_residual,residual_norm,seconds".
  QString csvText() const;
  bool exportCsv(const QString& path, QString* error = nullptr) const;
  bool exportPng(const QString& path, QString* error = nullptr);

  // True for the algorithms this panel plots ("sirt", "os-sirt", "sart").
  static bool isIterative(const QString& algorithm);

 public slots:
  void clearEndedRuns();

 private:
  struct Curve {
    QString name;
    QString method;
    std::vector<IterationRecord> points;
  };
  void onRunStarted(int runId);
  void onIteration(int runId, const IterationRecord& record);
  void onRunEnded(int runId);
  void onRunForgotten(int runId);
  void updateHeader(int runId);
  void exportPngWithDialog();
  void exportCsvWithDialog();

  RunController& runs_;
  std::map<int, Curve> curves_;  // by run id
  QLabel* header_ = nullptr;
  render::ChartView* relativeChart_ = nullptr;
  render::ChartView* weightedChart_ = nullptr;
  QPushButton* clearButton_ = nullptr;
  QPushButton* pngButton_ = nullptr;
  QPushButton* csvButton_ = nullptr;
};

}  // namespace tomowb::gui
