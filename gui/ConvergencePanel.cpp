// ConvergencePanel: see the header. A curve is created when an iterative run starts, so its colour
// is the same in both charts (ChartView picks the next palette colour per added series).
#include "gui/ConvergencePanel.h"

#include <QComboBox>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QLabel>
#include <QLocale>
#include <QMessageBox>
#include <QPushButton>
#include <QSplitter>
#include <QVBoxLayout>
#include <algorithm>
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

// The figures runs of a statistical algorithm (one that reports RMSE or takes weights: PWLS) show
// first: their cost, and their RMSE against a reference when they have one.
bool costFirst(const catalog::AlgorithmDescriptor* d) {
  return d != nullptr && (d->acceptsWeights || std::find(d->metrics.begin(), d->metrics.end(),
                                                         "RMSE") != d->metrics.end());
}

// A chart's title and y axis (ASCII: VTK's chart font has no norm bars, Greek or minus sign).
struct FigureText {
  QString title, axis, item;
};

FigureText figureText(const QString& figure, const QString& costName) {
  if (figure == ConvergencePanel::kRelativeResidual)
    return {ConvergencePanel::tr("Relative residual |b - Ax| / |b|"),
            ConvergencePanel::tr("relative residual"), ConvergencePanel::tr("Relative residual")};
  if (figure == ConvergencePanel::kWeightedResidual)
    return {ConvergencePanel::tr("Weighted residual |b - Ax|_R (what SIRT minimises)"),
            ConvergencePanel::tr("weighted residual"), ConvergencePanel::tr("Weighted residual")};
  if (figure == ConvergencePanel::kCost)
    return {costName.isEmpty()
                ? ConvergencePanel::tr("Cost (what the algorithm minimises)")
                : ConvergencePanel::tr("Cost: %1 (what the algorithm minimises)").arg(costName),
            ConvergencePanel::tr("cost"), ConvergencePanel::tr("Cost (objective)")};
  if (figure == QStringLiteral("RMSE"))
    return {ConvergencePanel::tr("RMSE against the reference"), ConvergencePanel::tr("RMSE"),
            ConvergencePanel::tr("RMSE against the reference")};
  QString item = figure;
  if (!item.isEmpty()) item[0] = item[0].toUpper();
  return {item, figure, item};
}

}  // namespace

bool ConvergencePanel::isIterative(const QString& algorithm) {
  // Whatever the catalogue says reports iterations (sirt, os-sirt, sart, cgls, ...): one list.
  return isIterativeAlgorithm(algorithm);
}

ConvergencePanel::ConvergencePanel(RunController& runs, QWidget* parent)
    : QWidget(parent), runs_(runs) {
  setObjectName(QStringLiteral("convergencePanel"));
  header_ = new QLabel(
      tr("Run an iterative algorithm (SIRT, CGLS, PWLS...) to see its residual or cost fall here."),
      this);
  header_->setObjectName(QStringLiteral("convergenceHeader"));
  header_->setWordWrap(true);
  header_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  auto* splitter = new QSplitter(Qt::Vertical, this);
  const char* names[2] = {"upperConvergenceChart", "lowerConvergenceChart"};
  for (int i = 0; i < 2; ++i) {
    auto* pane = new QWidget(splitter);
    auto* paneLayout = new QVBoxLayout(pane);
    paneLayout->setContentsMargins(0, 0, 0, 0);
    paneLayout->setSpacing(2);
    figureCombos_[i] = new QComboBox(pane);
    figureCombos_[i]->setObjectName(QStringLiteral("%1Figure").arg(QLatin1String(names[i])));
    figureCombos_[i]->setToolTip(tr("The figure this chart plots against the iteration"));
    charts_[i] = new render::ChartView(pane);
    charts_[i]->setObjectName(QLatin1String(names[i]));
    charts_[i]->setLogScaleY(true);
    charts_[i]->setMinimumHeight(i == 0 ? 170 : 150);
    paneLayout->addWidget(figureCombos_[i]);
    paneLayout->addWidget(charts_[i], 1);
    splitter->addWidget(pane);
    connect(figureCombos_[i], &QComboBox::activated, this, [this, i](int index) {
      figuresChosen_ = true;
      showFigure(i, figureCombos_[i]->itemData(index).toString());
    });
  }
  for (const QString& f : {kRelativeResidual, kWeightedResidual, kCost}) addFigure(f);
  showFigure(0, kRelativeResidual);
  showFigure(1, kWeightedResidual);
  clearButton_ = new QPushButton(tr("Clear ended runs"), this);
  clearButton_->setToolTip(tr("Remove the curves of runs that have ended"));
  pngButton_ = new QPushButton(tr("Export PNG\u2026"), this);
  csvButton_ = new QPushButton(tr("Export CSV\u2026"), this);

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

double ConvergencePanel::valueOf(const IterationRecord& r, const QString& figure) {
  if (figure == kRelativeResidual) return r.relativeResidual;
  if (figure == kWeightedResidual) return r.weightedResidualNorm;
  if (figure == kCost) return r.objectiveName.empty() ? std::nan("") : r.objective;
  const std::string name = figure.toStdString();
  for (const auto& [metric, value] : r.metrics)
    if (metric == name) return value;
  return std::nan("");
}

QStringList ConvergencePanel::figures() const {
  return QStringList{kRelativeResidual, kWeightedResidual, kCost} + reported_;
}

void ConvergencePanel::addFigure(const QString& figure) {
  const bool builtIn =
      figure == kRelativeResidual || figure == kWeightedResidual || figure == kCost;
  if (!builtIn) {
    if (reported_.contains(figure)) return;
    reported_ << figure;
  }
  for (QComboBox* combo : figureCombos_)
    if (combo->findData(figure) < 0) combo->addItem(figureText(figure, {}).item, figure);
}

QString ConvergencePanel::figure(int chart) const {
  return chart == 0 || chart == 1 ? figures_[chart] : QString();
}

bool ConvergencePanel::setFigure(int chart, const QString& figure) {
  if ((chart != 0 && chart != 1) || !figures().contains(figure)) return false;
  figuresChosen_ = true;
  showFigure(chart, figure);
  return true;
}

void ConvergencePanel::showFigure(int chart, const QString& figure) {
  addFigure(figure);
  const FigureText text = figureText(figure, costName_);
  charts_[chart]->setTitle(text.title);
  charts_[chart]->setAxisTitles(tr("iteration"), text.axis);
  {
    const QSignalBlocker block(figureCombos_[chart]);
    figureCombos_[chart]->setCurrentIndex(figureCombos_[chart]->findData(figure));
  }
  if (figures_[chart] == figure) return;
  figures_[chart] = figure;
  replot(chart);
}

void ConvergencePanel::replot(int chart) {
  for (const auto& [id, curve] : curves_) {
    std::vector<double> xs, ys;
    for (const IterationRecord& r : curve.points) {
      const double value = valueOf(r, figures_[chart]);
      if (!(value > 0)) continue;  // not on a log axis (or not reported)
      xs.push_back(r.iteration);
      ys.push_back(value);
    }
    charts_[chart]->setSeriesData(curve.name, xs, ys);
  }
}

std::vector<double> ConvergencePanel::figureValues(int runId, const QString& figure) const {
  std::vector<double> values;
  const auto it = curves_.find(runId);
  if (it == curves_.end()) return values;
  for (const IterationRecord& r : it->second.points)
    if (const double v = valueOf(r, figure); !std::isnan(v)) values.push_back(v);
  return values;
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
  for (render::ChartView* chart : charts_)
    chart->addSeries(curve.name, render::ChartView::SeriesStyle::LineAndPoints);
  curves_[runId] = curve;
  // The run's own figures, unless the user chose others: the residuals, or the cost and RMSE.
  if (!figuresChosen_) {
    const bool statistical = costFirst(d);
    const bool reference =
        parameters.value("input", nlohmann::json::object()).value("reference", false);
    if (statistical && reference) addFigure(QStringLiteral("RMSE"));
    showFigure(0, statistical ? kCost : kRelativeResidual);
    showFigure(1, !statistical ? kWeightedResidual
                  : reference  ? QStringLiteral("RMSE")
                               : kRelativeResidual);
  }
  header_->setText(
      tr("Run %1 (%2): setting up the weights\u2026").arg(runId).arg(info->spec.title));
}

void ConvergencePanel::onIteration(int runId, const IterationRecord& record) {
  const auto it = curves_.find(runId);
  if (it == curves_.end()) return;
  Curve& curve = it->second;
  curve.points.push_back(record);
  for (const auto& [name, value] : record.metrics) addFigure(QString::fromStdString(name));
  // A log axis takes positive values only: an exact fit (0) leaves a gap, not a broken axis.
  for (int i = 0; i < 2; ++i) {
    const double value = valueOf(record, figures_[i]);
    if (value > 0) charts_[i]->appendPoint(curve.name, record.iteration, value);
  }
  if (!record.objectiveName.empty() && record.objectiveName != costName_.toStdString()) {
    costName_ = QString::fromStdString(record.objectiveName);
    for (int i = 0; i < 2; ++i)
      if (figures_[i] == kCost) showFigure(i, kCost);  // the title names the cost
  }
  updateHeader(runId);
}

void ConvergencePanel::onRunEnded(int runId) {
  if (curves_.count(runId) != 0) updateHeader(runId);
}

void ConvergencePanel::onRunForgotten(int runId) {
  const auto it = curves_.find(runId);
  if (it == curves_.end()) return;
  for (render::ChartView* chart : charts_) chart->removeSeries(it->second.name);
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
    text = tr("Run %1 (%2): iteration %3 of %4")
               .arg(runId)
               .arg(curve.method)
               .arg(last.iteration)
               .arg(last.maxIterations);
    // The figures shown first: the cost and RMSE of a PWLS run, the residuals of a SIRT run.
    for (const QString& f : {figures_[0], figures_[1]}) {
      const double value = valueOf(last, f);
      if (!std::isnan(value))
        text += tr(" \u00b7 %1 %2").arg(figureText(f, {}).axis).arg(value, 0, 'g', 4);
    }
    text += tr(" \u00b7 %1 s per iteration").arg(last.seconds, 0, 'f', 2);
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
  QStringList columns = {QStringLiteral("run"),
                         QStringLiteral("method"),
                         QStringLiteral("iteration"),
                         QStringLiteral("relative_residual"),
                         QStringLiteral("weighted_residual"),
                         QStringLiteral("residual_norm"),
                         QStringLiteral("seconds"),
                         QStringLiteral("objective_name"),
                         QStringLiteral("objective")};
  for (const QString& name : reported_) columns << QString(name).replace(' ', '_');
  QString text = columns.join(',') + '\n';
  for (const auto& [id, curve] : curves_)
    for (const IterationRecord& r : curve.points) {
      QStringList row = {QString::number(id),
                         curve.method,
                         QString::number(r.iteration),
                         number(r.relativeResidual),
                         number(r.weightedResidualNorm),
                         number(r.residualNorm),
                         number(r.seconds),
                         QString::fromStdString(r.objectiveName).replace(',', ';'),
                         r.objectiveName.empty() ? QString() : number(r.objective)};
      for (const QString& name : reported_) {
        const double value = valueOf(r, name);
        row << (std::isnan(value) ? QString() : number(value));
      }
      text += row.join(',') + '\n';
    }
  return text;
}

bool ConvergencePanel::exportCsv(const QString& path, QString* error) const {
  return saveTextAtomically(path, csvText(), error);
}

bool ConvergencePanel::exportPng(const QString& path, QString* error) {
  for (render::ChartView* chart : charts_) chart->flush();
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
