// ConvergencePanel: how iterative runs (SIRT, OS-SIRT, SART, CGLS, PWLS) converge, live. Two
// charts with a logarithmic y axis against the iteration, one curve per run, so runs (methods,
// relaxations, projector pairs) can be compared; curves stay until their run is forgotten or
// "Clear ended runs". Each chart shows the figure chosen in its combo: the relative residual
// ||b - Ax|| / ||b||, the R-weighted residual ||b - Ax||_R that SIRT minimises
// (reference/sirt-et.md section 3), the cost the algorithm minimises (IterationRecord::objective:
// PWLS's 1/2 ||y - Ax||_W^2 + beta R(x)), or any figure the runs report by name ("RMSE" against a
// reference, "relative change"). A run of the residual family shows the two residuals; a run of
// an algorithm that reports RMSE or takes statistical weights (PWLS) shows its cost above and its
// RMSE (or, without a reference, its relative residual) below, until the user picks figures. The
// points come from RunController::runIteration (one per iteration; the controller batches their
// delivery), and the header says where the newest run is. Export PNG (the panel) and CSV (every
// point, every figure).
#pragma once

#include <QString>
#include <QStringList>
#include <QWidget>
#include <map>
#include <vector>

#include "recon/job/IterationSink.h"

class QComboBox;
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

  // The figures a chart can show: kRelativeResidual, kWeightedResidual, kCost, then the names of
  // the figures the runs report ("RMSE", "relative change"), in the order they first came.
  static inline const QString kRelativeResidual = QStringLiteral("relative residual");
  static inline const QString kWeightedResidual = QStringLiteral("weighted residual");
  static inline const QString kCost = QStringLiteral("cost");
  QStringList figures() const;
  // The upper (0) and lower (1) chart, the figure each shows, and choosing it (false when the
  // figure is not offered). A choice made here or in the combo stays for the next runs.
  render::ChartView& upperChart() { return *charts_[0]; }
  render::ChartView& lowerChart() { return *charts_[1]; }
  QString figure(int chart) const;
  bool setFigure(int chart, const QString& figure);
  // A run's values of a figure, one per iteration that reported it (whatever the charts show).
  std::vector<double> figureValues(int runId, const QString& figure) const;
  // The curve of a run in both charts ("run 3: SIRT"); empty for a run with no curve.
  QString seriesName(int runId) const;
  std::vector<int> plottedRuns() const;
  QString headerText() const;

  // "run,method,iteration,relative_residual,weighted_residual,residual_norm,seconds,
  // objective_name,objective", then one column per reported figure ("RMSE", in the order first
  // reported; empty where a run has none).
  QString csvText() const;
  bool exportCsv(const QString& path, QString* error = nullptr) const;
  bool exportPng(const QString& path, QString* error = nullptr);

  // True for the algorithms this panel plots (the catalogue's iterative ones).
  static bool isIterative(const QString& algorithm);

 public slots:
  void clearEndedRuns();

 private:
  struct Curve {
    QString name;
    QString method;
    std::vector<IterationRecord> points;
  };
  static double valueOf(const IterationRecord& record, const QString& figure);
  void addFigure(const QString& figure);
  void showFigure(int chart, const QString& figure);
  void replot(int chart);
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
  render::ChartView* charts_[2] = {nullptr, nullptr};
  QComboBox* figureCombos_[2] = {nullptr, nullptr};
  QString figures_[2];
  bool figuresChosen_ = false;  // by the user: runs no longer choose them
  QStringList reported_;        // the figures runs report by name, in the order first seen
  QString costName_;            // the newest run's objectiveName ("PWLS cost")
  QPushButton* clearButton_ = nullptr;
  QPushButton* pngButton_ = nullptr;
  QPushButton* csvButton_ = nullptr;
};

}  // namespace tomowb::gui
