// ConvergencePanel: see the header. A curve is created when an iterative run starts, so its colour
// is the same in both charts (ChartView picks the next palette colour per added series).
#include "gui/ConvergencePanel.h"

#include <QFileDialog>
#include <QHBoxLayout>
#include <QLabel>
#include <QLocale>
#include <QMessageBox>
#include <QPushButton>
#include <QSplitter>
#include <QVBoxLayout>
#include <cmath>

#include "gui/AlgorithmPanel.h"
#include "gui/ExportFiles.h"
#include "gui/core/CatalogRun.h"
#include "gui/core/RunController.h"
#include "recon/core/Error.h"
#include "render/ChartView.h"

namespace tomowb::gui {
namespace {

QString number(double value) {
  return QString::number(value, 'g', QLocale::FloatingPointShortest);
}

QString methodLabel(const QString& algorithm) {
  // The catalogue's label ("OS-SIRT"); an opened record of an algorithm this build lacks: the id.
  const catalog::AlgorithmDescriptor* d = algorithmDescriptor(algorithm);
  return d != nullptr ? QString::fromStdString(d->label) : algorithm.toUpper();
}

}  // namespace

bool ConvergencePanel::isIterative(const QString& algorithm) {
  // Whatever the catalogue says reports iterations (sirt, os-sirt, sart, cgls, ...): one list.
  return isIterativeAlgorithm(algorithm);
}

ConvergencePanel::ConvergencePanel(RunController& runs, QWidget* parent)
    : QWidget(parent), runs_(runs) {
  setObjectName(QStringLiteral("convergencePanel"));
  header_ = new QLabel(tr("Run SIRT, OS-SIRT or SART to see the residual fall here."), this);
  header_->setObjectName(QStringLiteral("convergenceHeader"));
  header_->setWordWrap(true);
  header_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  relativeChart_ = new render::ChartView(this);
  relativeChart_->setObjectName(QStringLiteral("relativeResidualChart"));
  // ASCII: VTK's chart font has no norm bars or minus sign.
  relativeChart_->setTitle(tr("Relative residual |b - Ax| / |b|"));
  relativeChart_->setAxisTitles(tr("iteration"), tr("relative residual"));
  relativeChart_->setLogScaleY(true);
  relativeChart_->setMinimumHeight(170);
  weightedChart_ = new render::ChartView(this);
  weightedChart_->setObjectName(QStringLiteral("weightedResidualChart"));
  weightedChart_->setTitle(tr("Weighted residual |b - Ax|_R (what SIRT minimises)"));
  weightedChart_->setAxisTitles(tr("iteration"), tr("weighted residual"));
  weightedChart_->setLogScaleY(true);
  weightedChart_->setMinimumHeight(150);
  clearButton_ = new QPushButton(tr("Clear ended runs"), this);
  clearButton_->setToolTip(tr("Remove the curves of runs that have ended"));
  pngButton_ = new QPushButton(tr("Export PNG\u2026"), this);
  csvButton_ = new QPushButton(tr("Export CSV\u2026"), this);

  auto* splitter = new QSplitter(Qt::Vertical, this);
  splitter->addWidget(relativeChart_);
  splitter->addWidget(weightedChart_);
  splitter->setStretchFactor(0, 3);
  splitter->setStretchFactor(1, 2);
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

  connect(&runs_, &RunController::runStarted, this, &ConvergencePanel::onRunStarted);
  connect(&runs_, &RunController::runIteration, this, &ConvergencePanel::onIteration);
  connect(&runs_, &RunController::runFinished, this, &ConvergencePanel::onRunEnded);
  connect(&runs_, &RunController::runFailed, this, [this](int id) { onRunEnded(id); });
  connect(&runs_, &RunController::runCancelled, this, &ConvergencePanel::onRunEnded);
  connect(&runs_, &RunController::runForgotten, this, &ConvergencePanel::onRunForgotten);
  connect(clearButton_, &QPushButton::clicked, this, &ConvergencePanel::clearEndedRuns);
  connect(pngButton_, &QPushButton::clicked, this, &ConvergencePanel::exportPngWithDialog);
  connect(csvButton_, &QPushButton::clicked, this, &ConvergencePanel::exportCsvWithDialog);
}

QString ConvergencePanel::seriesName(int runId) const {
  const auto it = curves_.find(runId);
  return it == curves_.end() ? QString() : it->second.name;
}

std::vector<int> ConvergencePanel::plottedRuns() const {
  std::vector<int> ids;
  for (const auto& [id, curve] : curves_) ids.push_back(id);
  return ids;
}

QString ConvergencePanel::headerText() const {
  return header_->text();
}

void ConvergencePanel::onRunStarted(int runId) {
  const RunInfo* info = runs_.run(runId);
  if (info == nullptr || !isIterative(info->spec.algorithm)) return;
  Curve curve;
  curve.method = methodLabel(info->spec.algorithm);
  curve.name = tr("run %1: %2").arg(runId).arg(curve.method);
  // Short, for a legend inside a narrow dock: the backprojector's kind tells runs of one method
  // apart ("et.bp.cpu-matched" -> "matched"), and a relaxation other than the method's default
  // is given. ASCII only: VTK's chart font has no Greek letters.
  const nlohmann::json& parameters = info->spec.parameters;
  if (parameters.value("backVariant", nlohmann::json()).is_string()) {
    const QString back = QString::fromStdString(parameters["backVariant"].get<std::string>());
    curve.name += QStringLiteral(" ") + back.section(QLatin1Char('.'), -1).section('-', -1);
  }
  // A relaxation other than the algorithm's default (the descriptor's; CGLS has none).
  const catalog::AlgorithmDescriptor* d = algorithmDescriptor(info->spec.algorithm);
  const catalog::ParameterSpec* relaxationSpec = d ? d->parameter("relaxation") : nullptr;
  if (relaxationSpec != nullptr && parameters.value("relaxation", nlohmann::json()).is_number()) {
    const double relaxation = parameters["relaxation"].get<double>();
    if (std::abs(relaxation - relaxationSpec->defaultValue.get<double>()) > 1e-12)
      curve.name += tr(" lambda %1").arg(relaxation);
  }
  for (render::ChartView* chart : {relativeChart_, weightedChart_})
    chart->addSeries(curve.name, render::ChartView::SeriesStyle::LineAndPoints);
  curves_[runId] = curve;
  header_->setText(
      tr("Run %1 (%2): setting up the weights\u2026").arg(runId).arg(info->spec.title));
}

void ConvergencePanel::onIteration(int runId, const IterationRecord& record) {
  const auto it = curves_.find(runId);
  if (it == curves_.end()) return;
  Curve& curve = it->second;
  curve.points.push_back(record);
  // A log axis takes positive values only: an exact fit (0) leaves a gap, not a broken axis.
  if (record.relativeResidual > 0)
    relativeChart_->appendPoint(curve.name, record.iteration, record.relativeResidual);
  if (record.weightedResidualNorm > 0)
    weightedChart_->appendPoint(curve.name, record.iteration, record.weightedResidualNorm);
  updateHeader(runId);
}

void ConvergencePanel::onRunEnded(int runId) {
  if (curves_.count(runId) != 0) updateHeader(runId);
}

void ConvergencePanel::onRunForgotten(int runId) {
  const auto it = curves_.find(runId);
  if (it == curves_.end()) return;
  relativeChart_->removeSeries(it->second.name);
  weightedChart_->removeSeries(it->second.name);
  curves_.erase(it);
}

void ConvergencePanel::clearEndedRuns() {
  std::vector<int> ended;
  for (const auto& [id, curve] : curves_)
    if (runs_.runningId() != id) ended.push_back(id);
  for (const int id : ended) onRunForgotten(id);
}

void ConvergencePanel::updateHeader(int runId) {
  const Curve& curve = curves_.at(runId);
  const RunInfo* info = runs_.run(runId);
  QString text;
  if (!curve.points.empty()) {
    const IterationRecord& last = curve.points.back();
    text = tr("Run %1 (%2): iteration %3 of %4 \u00b7 relative residual %5 \u00b7 weighted %6 "
              "\u00b7 %7 s per iteration")
               .arg(runId)
               .arg(curve.method)
               .arg(last.iteration)
               .arg(last.maxIterations)
               .arg(last.relativeResidual, 0, 'g', 3)
               .arg(last.weightedResidualNorm, 0, 'g', 3)
               .arg(last.seconds, 0, 'f', 2);
  }
  if (info != nullptr && info->state != RunState::Running && info->state != RunState::Queued) {
    const std::string stop =
        info->record.value("report", nlohmann::json::object()).value("stopReason", std::string());
    text += tr("\n%1 in %2 s").arg(toString(info->state)).arg(info->seconds, 0, 'f', 1);
    if (!stop.empty()) text += tr(": %1").arg(QString::fromStdString(stop));
  }
  header_->setText(text);
}

QString ConvergencePanel::csvText() const {
  QString text = QStringLiteral(
      "run,method,iteration,relative_residual,weighted_residual,residual_norm,seconds\n");
  for (const auto& [id, curve] : curves_)
    for (const IterationRecord& r : curve.points)
      text += QStringList{QString::number(id),
                          curve.method,
                          QString::number(r.iteration),
                          number(r.relativeResidual),
                          number(r.weightedResidualNorm),
                          number(r.residualNorm),
                          number(r.seconds)}
                  .join(',') +
              '\n';
  return text;
}

bool ConvergencePanel::exportCsv(const QString& path, QString* error) const {
  return saveTextAtomically(path, csvText(), error);
}

bool ConvergencePanel::exportPng(const QString& path, QString* error) {
  relativeChart_->flush();
  weightedChart_->flush();
  return savePngAtomically(path, grab(), error);
}

void ConvergencePanel::exportPngWithDialog() {
  exportWithDialog(this, tr("Export convergence"), QStringLiteral("convergence.png"),
                   tr("PNG images (*.png)"), tr("Export PNG"),
                   [this](const QString& path, QString* error) { return exportPng(path, error); });
}

void ConvergencePanel::exportCsvWithDialog() {
  exportWithDialog(this, tr("Export convergence"), QStringLiteral("convergence.csv"),
                   tr("CSV files (*.csv)"), tr("Export CSV"),
                   [this](const QString& path, QString* error) { return exportCsv(path, error); });
}

}  // namespace tomowb::gui
