// Telemetry comes from RunController::runTelemetry (the controller also keeps it in RunInfo, so
// showRun() redraws an ended run from there); memory samples are this panel's own.
#include "gui/ThroughputPanel.h"

#include <QDateTime>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QMessageBox>
#include <QPushButton>
#include <QSplitter>
#include <QTableWidget>
#include <QVBoxLayout>
#include <algorithm>
#include <map>

#include "gui/ExportFiles.h"
#include "recon/job/GpuMonitor.h"
#include "render/ChartView.h"

namespace tomowb::gui {
namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

QString gib(double bytes) {
  return QStringLiteral("%1 GiB").arg(bytes / kGiB, 0, 'f', 2);
}

QString number(double value) {
  return QString::number(value, 'g', QLocale::FloatingPointShortest);
}

struct StageTotals {
  QString variant;
  int count = 0;
  double seconds = 0, voxelUpdates = 0, bytesMoved = 0;
};

double secondsSinceStart(const RunInfo& info) {
  return info.startedAt.isValid() ? info.startedAt.msecsTo(QDateTime::currentDateTime()) / 1000.0
                                  : 0.0;
}

}  // namespace

ThroughputPanel::ThroughputPanel(RunController& runs, QWidget* parent)
    : QWidget(parent), runs_(runs), gpu_(std::make_unique<GpuMonitor>()) {
  header_ = new QLabel(tr("No run yet."), this);
  header_->setWordWrap(true);
  gupsChart_ = new render::ChartView(this);
  gupsChart_->setTitle(tr("Throughput per step"));
  gupsChart_->setAxisTitles(tr("time since start (s)"), tr("GUPS"));
  gupsChart_->setMinimumHeight(180);
  bandwidthChart_ = new render::ChartView(this);
  bandwidthChart_->setTitle(tr("Transfers (GPU runs)"));
  bandwidthChart_->setAxisTitles(tr("time since start (s)"), tr("GB/s"));
  bandwidthChart_->setMinimumHeight(120);
  memoryChart_ = new render::ChartView(this);
  memoryChart_->setTitle(tr("Memory in use"));
  memoryChart_->setAxisTitles(tr("time since start (s)"), tr("GiB"));
  memoryChart_->setMinimumHeight(140);
  stages_ = new QTableWidget(0, 6, this);
  stages_->setHorizontalHeaderLabels(
      {tr("Step"), tr("Variant"), tr("Count"), tr("Time (s)"), tr("GUPS"), tr("GB/s")});
  stages_->verticalHeader()->hide();
  stages_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  stages_->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Stretch);
  stages_->setToolTip(
      tr("Per step: total wall time, GUPS = voxel updates / that time / 1e9, and GB/s = bytes "
         "moved / that time / 1e9"));
  hostLabel_ = new QLabel(this);
  hostLabel_->setWordWrap(
      true);  // its text ("Host: this process … resident …") set the dock's width
  gpuLabel_ = new QLabel(this);
  gpuLabel_->setWordWrap(true);
  gpuLabel_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  if (!gpu_->available()) {
    gpuLabel_->setText(tr("NVML not available"));
    gpuLabel_->setToolTip(QString::fromStdString(gpu_->unavailableReason()));
  }
  pngButton_ = new QPushButton(tr("Export PNG\u2026"), this);
  csvButton_ = new QPushButton(tr("Export CSV\u2026"), this);

  auto* splitter = new QSplitter(Qt::Vertical, this);
  splitter->addWidget(gupsChart_);
  splitter->addWidget(bandwidthChart_);
  splitter->addWidget(stages_);
  splitter->addWidget(memoryChart_);
  splitter->setStretchFactor(0, 3);
  splitter->setStretchFactor(1, 2);
  splitter->setStretchFactor(2, 1);
  splitter->setStretchFactor(3, 2);
  auto* buttons = new QHBoxLayout;
  buttons->addStretch(1);
  buttons->addWidget(pngButton_);
  buttons->addWidget(csvButton_);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->addWidget(header_);
  layout->addWidget(splitter, 1);
  layout->addWidget(hostLabel_);
  layout->addWidget(gpuLabel_);
  layout->addLayout(buttons);

  sampleTimer_.setInterval(kSampleIntervalMs);
  connect(&sampleTimer_, &QTimer::timeout, this, &ThroughputPanel::sampleNow);
  connect(&runs_, &RunController::runStarted, this, &ThroughputPanel::onRunStarted);
  connect(&runs_, &RunController::runTelemetry, this, &ThroughputPanel::onTelemetry);
  connect(&runs_, &RunController::runFinished, this, &ThroughputPanel::onRunEnded);
  connect(&runs_, &RunController::runFailed, this, [this](int id) { onRunEnded(id); });
  connect(&runs_, &RunController::runCancelled, this, &ThroughputPanel::onRunEnded);
  connect(&runs_, &RunController::runForgotten, this, [this](int id) {
    memory_.erase(id);
    if (id == shownRun_) showRun(-1);
  });
  connect(pngButton_, &QPushButton::clicked, this, &ThroughputPanel::exportPngWithDialog);
  connect(csvButton_, &QPushButton::clicked, this, &ThroughputPanel::exportCsvWithDialog);
  sampleNow();  // the memory labels are right before any run
}

ThroughputPanel::~ThroughputPanel() = default;

QString ThroughputPanel::gpuText() const {
  return gpuLabel_->text();
}

void ThroughputPanel::showRun(int runId) {
  const RunInfo* info = runs_.run(runId);
  shownRun_ = info ? runId : -1;
  gupsChart_->clear();
  bandwidthChart_->clear();
  memoryChart_->clear();
  if (info != nullptr) {
    for (const TelemetrySample& s : info->telemetry) addTelemetryPoint(s);
    if (const auto it = memory_.find(runId); it != memory_.end())
      for (const MemorySample& m : it->second) addMemoryPoint(m);
  }
  refreshStageTable();
  refreshHeader();
}

void ThroughputPanel::sampleNow() {
  const HostMemorySample host = hostMemory();
  hostLabel_->setText(host.valid ? tr("Host: this process %1 resident, %2 of %3 available")
                                       .arg(gib(double(host.processResidentBytes)))
                                       .arg(gib(double(host.availableBytes)))
                                       .arg(gib(double(host.totalBytes)))
                                 : tr("Host memory: /proc not readable"));
  MemorySample sample;
  sample.hostResidentBytes = host.processResidentBytes;
  sample.hostAvailableBytes = host.availableBytes;
  if (gpu_->available()) {
    QStringList lines;
    for (int device = 0; device < gpu_->deviceCount(); ++device) {
      const std::optional<GpuSample> g = gpu_->sample(device);
      if (!g) {
        lines << tr("GPU %1: no answer").arg(device);
        continue;
      }
      QString line = tr("GPU %1 %2: %3 of %4")
                         .arg(device)
                         .arg(QString::fromStdString(g->name))
                         .arg(gib(double(g->memoryUsedBytes)))
                         .arg(gib(double(g->memoryTotalBytes)));
      if (g->gpuUtilisationPercent) line += tr(", %1 % busy").arg(*g->gpuUtilisationPercent);
      if (g->smClockMHz && g->memoryClockMHz)
        line += tr(", SM %1 / mem %2 MHz").arg(*g->smClockMHz).arg(*g->memoryClockMHz);
      if (g->powerWatts) line += tr(", %1 W").arg(*g->powerWatts, 0, 'f', 0);
      if (g->temperatureCelsius) line += tr(", %1 \u00b0C").arg(*g->temperatureCelsius);
      lines << line;
      if (device == 0) {
        sample.gpuUsedBytes = g->memoryUsedBytes;
        sample.gpuUtilisationPercent = g->gpuUtilisationPercent;
      }
    }
    gpuLabel_->setText(lines.join('\n'));
  }
  const int running = runs_.runningId();
  const RunInfo* info = runs_.run(running);
  if (info == nullptr) return;
  sample.elapsedSeconds = secondsSinceStart(*info);
  memory_[running].push_back(sample);
  if (running == shownRun_) addMemoryPoint(sample);
}

void ThroughputPanel::onRunStarted(int runId) {
  memory_[runId].clear();
  showRun(runId);
  sampleNow();
  sampleTimer_.start();
}

void ThroughputPanel::onRunEnded(int runId) {
  if (runs_.runningId() < 0) sampleTimer_.stop();
  if (runId == shownRun_) {
    refreshStageTable();
    refreshHeader();
  }
}

void ThroughputPanel::onTelemetry(int runId, const TelemetrySample& sample) {
  if (runId != shownRun_) return;
  addTelemetryPoint(sample);
  refreshStageTable();
}

void ThroughputPanel::addTelemetryPoint(const TelemetrySample& sample) {
  const TelemetryEvent& e = sample.event;
  const QString step = QString::fromStdString(e.step);
  // Steps without voxel updates (file reads, filtering) have no GUPS: they show in the table.
  if (e.voxelUpdates > 0 && e.seconds > 0) {
    gupsChart_->addSeries(step, render::ChartView::SeriesStyle::LineAndPoints);
    gupsChart_->appendPoint(step, sample.elapsedSeconds, e.gups());
  }
  if (e.bytesMoved > 0 && e.seconds > 0) {
    bandwidthChart_->addSeries(step, render::ChartView::SeriesStyle::LineAndPoints);
    bandwidthChart_->appendPoint(step, sample.elapsedSeconds, e.bandwidthGBps());
  }
  // What the run itself holds on the device, beside NVML's figure for every process.
  if (e.deviceMemoryBytes > 0)
    memoryChart_->appendPoint(tr("GPU %1, this run").arg(std::max(e.device, 0)),
                              sample.elapsedSeconds, e.deviceMemoryBytes / kGiB);
}

void ThroughputPanel::addMemoryPoint(const MemorySample& sample) {
  memoryChart_->appendPoint(tr("host, this process"), sample.elapsedSeconds,
                            double(sample.hostResidentBytes) / kGiB);
  if (sample.gpuUsedBytes)
    memoryChart_->appendPoint(tr("GPU 0, all processes"), sample.elapsedSeconds,
                              double(*sample.gpuUsedBytes) / kGiB);
}

void ThroughputPanel::refreshStageTable() {
  std::vector<std::pair<std::string, StageTotals>> totals;  // in order of first appearance
  if (const RunInfo* info = runs_.run(shownRun_)) {
    for (const TelemetrySample& s : info->telemetry) {
      auto it = std::find_if(totals.begin(), totals.end(),
                             [&](const auto& t) { return t.first == s.event.step; });
      if (it == totals.end()) {
        totals.push_back({s.event.step, {}});
        it = totals.end() - 1;
      }
      StageTotals& t = it->second;
      t.variant = QString::fromStdString(s.event.variant);
      ++t.count;
      t.seconds += s.event.seconds;
      t.voxelUpdates += s.event.voxelUpdates;
      t.bytesMoved += s.event.bytesMoved;
    }
  }
  stages_->setRowCount(static_cast<int>(totals.size()));
  for (int row = 0; row < static_cast<int>(totals.size()); ++row) {
    const auto& [step, t] = totals[static_cast<std::size_t>(row)];
    const double gups = t.seconds > 0 ? t.voxelUpdates / t.seconds / 1e9 : 0.0;
    const double gbps = t.seconds > 0 ? t.bytesMoved / t.seconds / 1e9 : 0.0;
    const QStringList cells = {QString::fromStdString(step),
                               t.variant,
                               QString::number(t.count),
                               QString::number(t.seconds, 'f', 3),
                               t.voxelUpdates > 0 ? QString::number(gups, 'f', 3) : QString(),
                               t.bytesMoved > 0 ? QString::number(gbps, 'f', 2) : QString()};
    for (int column = 0; column < cells.size(); ++column) {
      auto* item = new QTableWidgetItem(cells[column]);
      if (column >= 2) item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
      stages_->setItem(row, column, item);
    }
  }
}

void ThroughputPanel::refreshHeader() {
  const RunInfo* info = runs_.run(shownRun_);
  if (info == nullptr) {
    header_->setText(tr("No run selected."));
    return;
  }
  header_->setText(
      tr("Run %1: %2 (%3)").arg(info->id).arg(info->spec.title).arg(toString(info->state)));
}

QString ThroughputPanel::csvText() const {
  QString text = QStringLiteral(
      "kind,elapsed_s,step,variant,seconds,voxel_updates,bytes_moved,gups,"
      "host_resident_bytes,host_available_bytes,gpu0_used_bytes,gpu0_utilisation_percent,"
      "device,device_memory_bytes,bandwidth_gbps\n");
  const RunInfo* info = runs_.run(shownRun_);
  if (info == nullptr) return text;
  for (const TelemetrySample& s : info->telemetry) {
    const TelemetryEvent& e = s.event;
    text += QStringLiteral("telemetry,%1,%2,%3,%4,%5,%6,%7,,,,,%8,%9,%10\n")
                .arg(number(s.elapsedSeconds), QString::fromStdString(e.step),
                     QString::fromStdString(e.variant), number(e.seconds), number(e.voxelUpdates),
                     number(e.bytesMoved), number(e.gups()), QString::number(e.device),
                     number(e.deviceMemoryBytes))
                .arg(number(e.bandwidthGBps()));
  }
  if (const auto it = memory_.find(shownRun_); it != memory_.end()) {
    for (const MemorySample& m : it->second) {
      text +=
          QStringLiteral("memory,%1,,,,,,,%2,%3,%4,%5,,,\n")
              .arg(number(m.elapsedSeconds), QString::number(m.hostResidentBytes),
                   QString::number(m.hostAvailableBytes),
                   m.gpuUsedBytes ? QString::number(*m.gpuUsedBytes) : QString(),
                   m.gpuUtilisationPercent ? QString::number(*m.gpuUtilisationPercent) : QString());
    }
  }
  return text;
}

bool ThroughputPanel::exportCsv(const QString& path, QString* error) const {
  return saveTextAtomically(path, csvText(), error);
}

bool ThroughputPanel::exportPng(const QString& path, QString* error) {
  // QWidget::grab renders the VTK charts (QOpenGLWidgets) through their framebuffers.
  gupsChart_->flush();
  bandwidthChart_->flush();
  memoryChart_->flush();
  return savePngAtomically(path, grab(), error);
}

void ThroughputPanel::exportPngWithDialog() {
  exportWithDialog(this, tr("Export throughput"),
                   QStringLiteral("throughput-run%1.png").arg(shownRun_), tr("PNG images (*.png)"),
                   tr("Export PNG"),
                   [this](const QString& path, QString* error) { return exportPng(path, error); });
}

void ThroughputPanel::exportCsvWithDialog() {
  exportWithDialog(this, tr("Export throughput"),
                   QStringLiteral("throughput-run%1.csv").arg(shownRun_), tr("CSV files (*.csv)"),
                   tr("Export CSV"),
                   [this](const QString& path, QString* error) { return exportCsv(path, error); });
}

}  // namespace tomowb::gui
