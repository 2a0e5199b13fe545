// PetQualityPanel: contrast recovery and noise of DIRECT runs against the iteration, live (issue
// #20, point 5; reference/direct-tof-pet.md section 4.2). Each PET run whose phantom is known
// reports, per iteration, the mean contrast recovery coefficient of the hot spheres and of the
// cold spheres and the background noise (SD / mean) (gui/core/PetRun.h, measured with
// recon/pet/PetImageQuality.h on the iterate); the upper chart plots the two CRC curves of every
// run (1 is full recovery), the lower one the noise, so the trade-off between recovery and noise
// of OSEM, ML-EM, RAMLA and the kernels can be watched and compared. Points come from
// RunController::runIteration; curves stay until their run is forgotten or "Clear ended runs".
// Export PNG (the panel) and CSV (every point).
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

class PetQualityPanel : public QWidget {
  Q_OBJECT

 public:
  explicit PetQualityPanel(RunController& runs, QWidget* parent = nullptr);

  render::ChartView& crcChart() { return *crcChart_; }
  render::ChartView& noiseChart() { return *noiseChart_; }
  // The series of a run ("run 3: OSEM hot"); empty for a run without one.
  QString hotSeries(int runId) const;
  QString coldSeries(int runId) const;
  QString noiseSeries(int runId) const;
  // A run's values of a metric (PetRun.h: kCrcHotMetric...), one per iteration.
  std::vector<double> values(int runId, const char* metric) const;
  QString headerText() const;

  // "run,method,iteration,crc_hot,crc_cold,noise,seconds".
  QString csvText() const;
  bool exportCsv(const QString& path, QString* error = nullptr) const;
  bool exportPng(const QString& path, QString* error = nullptr);

 public slots:
  void clearEndedRuns();

 private:
  struct Curve {
    QString method;  // "OSEM"
    QString name;    // "run 3: OSEM"
    std::vector<IterationRecord> points;
  };
  void onRunStarted(int runId);
  void onIteration(int runId, const IterationRecord& record);
  void onRunEnded(int runId);
  void onRunForgotten(int runId);
  void updateHeader(int runId);

  RunController& runs_;
  std::map<int, Curve> curves_;
  QLabel* header_ = nullptr;
  render::ChartView* crcChart_ = nullptr;
  render::ChartView* noiseChart_ = nullptr;
  QPushButton* clearButton_ = nullptr;
  QPushButton* pngButton_ = nullptr;
  QPushButton* csvButton_ = nullptr;
};

}  // namespace tomowb::gui
