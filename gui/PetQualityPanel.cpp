// PetQualityPanel: see the header. A run's three series are created when it starts, so their
// colours stay paired across the charts (ChartView picks the next palette colour per series).
#include "gui/PetQualityPanel.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QLocale>
#include <QPushButton>
#include <QSplitter>
#include <QVBoxLayout>
#include <cmath>
#include <cstring>

#include "gui/ExportFiles.h"
#include "gui/core/PetRun.h"
#include "gui/core/RunController.h"
#include "render/ChartView.h"

namespace tomowb::gui {

namespace {

QString number(double value) {
  return QString::number(value, 'g', QLocale::FloatingPointShortest);
}

double metricOf(const IterationRecord& r, const char* metric) {
  for (const auto& [name, value] : r.metrics)
    if (name == metric) return value;
  return std::nan("");
}

QString methodOf(const nlohmann::json& parameters) {
  const std::string algorithm = parameters.value("algorithm", std::string("osem"));
  if (algorithm == "mlem") return QStringLiteral("ML-EM");
  return QString::fromStdString(algorithm).toUpper();
}

}  // namespace

PetQualityPanel::PetQualityPanel(RunController& runs, QWidget* parent)
    : QWidget(parent), runs_(runs) {
  setObjectName(QStringLiteral("petQualityPanel"));
  header_ = new QLabel(tr("Run DIRECT on a simulated PET scan to see the spheres' contrast "
                          "recovery rise and the background noise grow with the iterations."),
                       this);
  header_->setObjectName(QStringLiteral("petQualityHeader"));
  header_->setWordWrap(true);
  header_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  auto* splitter = new QSplitter(Qt::Vertical, this);
  crcChart_ = new render::ChartView(splitter);
  crcChart_->setObjectName(QStringLiteral("petCrcChart"));
  crcChart_->setTitle(tr("Contrast recovery (1 = full)"));
  crcChart_->setAxisTitles(tr("iteration"), tr("CRC"));
  crcChart_->setMinimumHeight(170);
  crcChart_->setLegendAtLeft(true);  // the recovery rises to the right
  noiseChart_ = new render::ChartView(splitter);
  noiseChart_->setObjectName(QStringLiteral("petNoiseChart"));
  noiseChart_->setTitle(tr("Background noise (SD / mean)"));
  noiseChart_->setAxisTitles(tr("iteration"), tr("noise"));
  noiseChart_->setMinimumHeight(140);
  noiseChart_->setLegendAtLeft(true);  // so does the noise
  splitter->addWidget(crcChart_);
  splitter->addWidget(noiseChart_);
  splitter->setStretchFactor(0, 3);
  splitter->setStretchFactor(1, 2);
  clearButton_ = new QPushButton(tr("Clear ended runs"), this);
  clearButton_->setToolTip(tr("Remove the curves of runs that have ended"));
  pngButton_ = new QPushButton(tr("Export PNG\u2026"), this);
  csvButton_ = new QPushButton(tr("Export CSV\u2026"), this);
  auto* buttons = new QHBoxLayout;
  buttons->addWidget(clearButton_);
  buttons->addStretch(1);
  buttons->addWidget(pngButton_);
  buttons->addWidget(csvButton_);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->addWidget(header_);
  layout->addWidget(splitter, 1);
  layout->addLayout(buttons);

  connect(&runs_, &RunController::runStarted, this, &PetQualityPanel::onRunStarted);
  connect(&runs_, &RunController::runIteration, this, &PetQualityPanel::onIteration);
  connect(&runs_, &RunController::runFinished, this, &PetQualityPanel::onRunEnded);
  connect(&runs_, &RunController::runFailed, this, [this](int id) { onRunEnded(id); });
  connect(&runs_, &RunController::runCancelled, this, &PetQualityPanel::onRunEnded);
  connect(&runs_, &RunController::runForgotten, this, &PetQualityPanel::onRunForgotten);
  connect(clearButton_, &QPushButton::clicked, this, &PetQualityPanel::clearEndedRuns);
  connect(pngButton_, &QPushButton::clicked, this, [this] {
    exportWithDialog(
        this, tr("Export contrast recovery"), QStringLiteral("pet-contrast-recovery.png"),
        tr("PNG images (*.png)"), tr("Export PNG"),
        [this](const QString& path, QString* error) { return exportPng(path, error); });
  });
  connect(csvButton_, &QPushButton::clicked, this, [this] {
    exportWithDialog(
        this, tr("Export contrast recovery"), QStringLiteral("pet-contrast-recovery.csv"),
        tr("CSV files (*.csv)"), tr("Export CSV"),
        [this](const QString& path, QString* error) { return exportCsv(path, error); });
  });
}

QString PetQualityPanel::hotSeries(int runId) const {
  const auto it = curves_.find(runId);
  return it == curves_.end() ? QString() : tr("%1 hot").arg(it->second.name);
}

QString PetQualityPanel::coldSeries(int runId) const {
  const auto it = curves_.find(runId);
  return it == curves_.end() ? QString() : tr("%1 cold").arg(it->second.name);
}

QString PetQualityPanel::noiseSeries(int runId) const {
  const auto it = curves_.find(runId);
  return it == curves_.end() ? QString() : it->second.name;
}

std::vector<double> PetQualityPanel::values(int runId, const char* metric) const {
  std::vector<double> out;
  const auto it = curves_.find(runId);
  if (it == curves_.end()) return out;
  for (const IterationRecord& r : it->second.points)
    if (const double v = metricOf(r, metric); !std::isnan(v)) out.push_back(v);
  return out;
}

QString PetQualityPanel::headerText() const {
  return header_->text();
}

void PetQualityPanel::onRunStarted(int runId) {
  const RunInfo* info = runs_.run(runId);
  if (info == nullptr || info->spec.algorithm != kPetAlgorithmId) return;
  Curve curve;
  curve.method = methodOf(info->spec.parameters);
  curve.name = tr("run %1: %2").arg(runId).arg(curve.method);
  const std::string kernel = info->spec.parameters.value("lorKernel", std::string("invariant"));
  if (kernel != "invariant") curve.name += QLatin1Char(' ') + QString::fromStdString(kernel);
  curves_[runId] = curve;
  crcChart_->addSeries(hotSeries(runId), render::ChartView::SeriesStyle::LineAndPoints);
  crcChart_->addSeries(coldSeries(runId), render::ChartView::SeriesStyle::LineAndPoints);
  noiseChart_->addSeries(noiseSeries(runId), render::ChartView::SeriesStyle::LineAndPoints);
  const std::string reference = info->spec.parameters.value("reference", std::string("none"));
  header_->setText(reference == "none"
                       ? tr("Run %1 (%2): no phantom chosen, so no contrast recovery is "
                            "measured (algorithm panel: CRC spheres).")
                             .arg(runId)
                             .arg(info->spec.title)
                       : tr("Run %1 (%2): making the histo-images and corrections\u2026")
                             .arg(runId)
                             .arg(info->spec.title));
}

void PetQualityPanel::onIteration(int runId, const IterationRecord& record) {
  const auto it = curves_.find(runId);
  if (it == curves_.end()) return;
  it->second.points.push_back(record);
  const double hot = metricOf(record, kCrcHotMetric);
  const double cold = metricOf(record, kCrcColdMetric);
  const double noise = metricOf(record, kNoiseMetric);
  if (std::isfinite(hot)) crcChart_->appendPoint(hotSeries(runId), record.iteration, hot);
  if (std::isfinite(cold)) crcChart_->appendPoint(coldSeries(runId), record.iteration, cold);
  if (std::isfinite(noise)) noiseChart_->appendPoint(noiseSeries(runId), record.iteration, noise);
  updateHeader(runId);
}

void PetQualityPanel::onRunEnded(int runId) {
  if (curves_.count(runId) == 0) return;
  updateHeader(runId);
  // A run whose spheres never got measured leaves no empty legend entries behind.
  const Curve& curve = curves_.at(runId);
  if (values(runId, kCrcColdMetric).empty()) crcChart_->removeSeries(coldSeries(runId));
  if (values(runId, kCrcHotMetric).empty()) crcChart_->removeSeries(hotSeries(runId));
  if (values(runId, kNoiseMetric).empty()) noiseChart_->removeSeries(curve.name);
}

void PetQualityPanel::onRunForgotten(int runId) {
  const auto it = curves_.find(runId);
  if (it == curves_.end()) return;
  crcChart_->removeSeries(hotSeries(runId));
  crcChart_->removeSeries(coldSeries(runId));
  noiseChart_->removeSeries(noiseSeries(runId));
  curves_.erase(it);
}

void PetQualityPanel::clearEndedRuns() {
  std::vector<int> ended;
  for (const auto& [id, curve] : curves_)
    if (runs_.runningId() != id) ended.push_back(id);
  for (const int id : ended) onRunForgotten(id);
}

void PetQualityPanel::updateHeader(int runId) {
  const Curve& curve = curves_.at(runId);
  const RunInfo* info = runs_.run(runId);
  QString text;
  if (!curve.points.empty()) {
    const IterationRecord& last = curve.points.back();
    text = tr("Run %1 (%2): iteration %3 of %4")
               .arg(runId)
               .arg(curve.method)
               .arg(last.iteration)
               .arg(last.maxIterations);
    const double hot = metricOf(last, kCrcHotMetric);
    const double cold = metricOf(last, kCrcColdMetric);
    const double noise = metricOf(last, kNoiseMetric);
    if (std::isfinite(hot)) text += tr(" \u00b7 CRC hot %1").arg(hot, 0, 'f', 3);
    if (std::isfinite(cold)) text += tr(" \u00b7 cold %1").arg(cold, 0, 'f', 3);
    if (std::isfinite(noise)) text += tr(" \u00b7 noise %1 %").arg(100.0 * noise, 0, 'f', 1);
    text += tr(" \u00b7 %1 s per iteration").arg(last.seconds, 0, 'f', 2);
  } else if (info != nullptr) {
    text = header_->text();
  }
  if (info != nullptr && info->state != RunState::Running && info->state != RunState::Queued) {
    text = text.section(QLatin1Char('\n'), 0, 0);
    text += tr("\n%1 in %2 s").arg(toString(info->state)).arg(info->seconds, 0, 'f', 1);
    const nlohmann::json& report = info->record.value("report", nlohmann::json::object());
    if (report.contains("warnings"))
      for (const auto& w : report["warnings"])
        if (w.is_string())
          text += QStringLiteral("\n") + QString::fromStdString(w.get<std::string>());
  }
  header_->setText(text);
}

QString PetQualityPanel::csvText() const {
  QString text = QStringLiteral("run,method,iteration,crc_hot,crc_cold,noise,seconds\n");
  const auto field = [](double v) { return std::isnan(v) ? QString() : number(v); };
  for (const auto& [id, curve] : curves_)
    for (const IterationRecord& r : curve.points)
      text += QStringList{QString::number(id),
                          curve.method,
                          QString::number(r.iteration),
                          field(metricOf(r, kCrcHotMetric)),
                          field(metricOf(r, kCrcColdMetric)),
                          field(metricOf(r, kNoiseMetric)),
                          number(r.seconds)}
                  .join(QLatin1Char(',')) +
              QLatin1Char('\n');
  return text;
}

bool PetQualityPanel::exportCsv(const QString& path, QString* error) const {
  return saveTextAtomically(path, csvText(), error);
}

bool PetQualityPanel::exportPng(const QString& path, QString* error) {
  crcChart_->flush();
  noiseChart_->flush();
  return savePngAtomically(path, grab(), error);
}

}  // namespace tomowb::gui
