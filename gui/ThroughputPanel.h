// ThroughputPanel: what the current run achieves while it runs (DESIGN.md, "Telemetry",
// "Measuring"): GUPS per telemetry step over the run's time (the step's own figure: voxel
// updates / its wall time, so kernel-only or end to end as the step measured it), the bandwidth
// of steps that move data (a GPU run's fdk.upload and fdk.download: bytes / wall time), a table
// of time per stage (filter, backproject, upload, ...), and memory: this process's resident
// memory and the machine's available memory, the device memory a GPU run reports with its
// events, and per GPU its memory, utilisation, clocks and power from NVML (or why NVML is not
// available). Memory is sampled by a 2 Hz timer while a run runs and kept
// per run, so showRun() shows any ended run's figures again. Export PNG (the panel) and CSV
// (every telemetry event and memory sample of the shown run).
#pragma once

#include <QString>
#include <QTimer>
#include <QWidget>
#include <map>
#include <memory>
#include <optional>
#include <vector>

#include "gui/core/RunController.h"

class QLabel;
class QPushButton;
class QTableWidget;

namespace tomowb {
class GpuMonitor;
}

namespace tomowb::render {
class ChartView;
}

namespace tomowb::gui {

class ThroughputPanel : public QWidget {
  Q_OBJECT

 public:
  static constexpr int kSampleIntervalMs = 500;  // 2 Hz

  explicit ThroughputPanel(RunController& runs, QWidget* parent = nullptr);
  ~ThroughputPanel() override;

  // The run whose figures are shown (-1: none). A starting run is shown automatically.
  int shownRun() const { return shownRun_; }
  render::ChartView& gupsChart() { return *gupsChart_; }
  render::ChartView& bandwidthChart() { return *bandwidthChart_; }
  render::ChartView& memoryChart() { return *memoryChart_; }
  QTableWidget& stageTable() { return *stages_; }
  QString gpuText() const;  // the GPU line(s) as shown
  bool sampling() const { return sampleTimer_.isActive(); }

  QString csvText() const;
  bool exportCsv(const QString& path, QString* error = nullptr) const;
  bool exportPng(const QString& path, QString* error = nullptr);

 public slots:
  // Shows the figures of a run (running or ended); unknown ids show nothing.
  void showRun(int runId);
  // One memory sample now (the timer calls it; tests too).
  void sampleNow();

 private:
  struct MemorySample {
    double elapsedSeconds = 0;
    std::uint64_t hostResidentBytes = 0;
    std::uint64_t hostAvailableBytes = 0;
    std::optional<std::uint64_t> gpuUsedBytes;  // GPU 0
    std::optional<unsigned> gpuUtilisationPercent;
  };
  void onRunStarted(int runId);
  void onRunEnded(int runId);
  void onTelemetry(int runId, const TelemetrySample& sample);
  void addTelemetryPoint(const TelemetrySample& sample);
  void addMemoryPoint(const MemorySample& sample);
  void refreshStageTable();
  void refreshHeader();
  void exportPngWithDialog();
  void exportCsvWithDialog();

  RunController& runs_;
  std::unique_ptr<GpuMonitor> gpu_;
  std::map<int, std::vector<MemorySample>> memory_;  // per run
  int shownRun_ = -1;
  QTimer sampleTimer_;
  QLabel* header_ = nullptr;
  QLabel* hostLabel_ = nullptr;
  QLabel* gpuLabel_ = nullptr;
  render::ChartView* gupsChart_ = nullptr;
  render::ChartView* bandwidthChart_ = nullptr;
  render::ChartView* memoryChart_ = nullptr;
  QTableWidget* stages_ = nullptr;
  QPushButton* pngButton_ = nullptr;
  QPushButton* csvButton_ = nullptr;
};

}  // namespace tomowb::gui
