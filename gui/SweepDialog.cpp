// SweepDialog: see the header.
#include "gui/SweepDialog.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QProgressBar>
#include <QPushButton>
#include <QSettings>
#include <QSpinBox>
#include <QSplitter>
#include <QStandardItemModel>
#include <QTableWidget>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

#include "gui/AlgorithmPanel.h"
#include "gui/core/CatalogRun.h"
#include "gui/core/CompareModel.h"
#include "gui/core/SweepRunner.h"
#include "gui/core/Workspace.h"
#include "recon/device/GpuDevices.h"
#include "recon/qa/QaReport.h"
#include "render/ChartView.h"

namespace tomowb::gui {

namespace {

// NRMSE 0 (a row bit-identical to its reference, the reference row) has no place on a log axis:
// such points are drawn at a tenth of the smallest positive NRMSE (or 1e-12), below the others.
constexpr double kNrmseFloor = 1e-12;

const QColor kPassColour(0x2e, 0x9d, 0x3a);
const QColor kFailColour(0xd0, 0x30, 0x30);
const QColor kReferenceColour(0x80, 0x80, 0x80);

QString number(double v, int digits = 3) {
  return QString::number(v, 'g', digits);
}

QStringList filterItems(const QString& text) {
  QStringList items;
  for (const QString& part :
       text.split(QRegularExpression(QStringLiteral("[,\\s]+")), Qt::SkipEmptyParts))
    items << part.trimmed();
  return items;
}

// Whether the algorithm sweeps FDK backprojectors (one variant per row) rather than projector
// pairs: the catalogue's descriptor says which roles it runs on.
bool isFdkFamily(const AlgorithmPanel& panel) {
  return panel.descriptor().accepts(VariantRole::FdkBackprojector);
}

}  // namespace

SweepDialog::SweepDialog(Workspace& workspace, AlgorithmPanel& algorithm, QWidget* parent)
    : QDialog(parent), workspace_(workspace), algorithm_(algorithm) {
  setObjectName(QStringLiteral("sweepDialog"));
  setWindowTitle(tr("Sweep kernel variants"));
  runner_ = new SweepRunner(this);

  input_ = new QLabel(this);
  input_->setObjectName(QStringLiteral("sweepInput"));
  input_->setWordWrap(true);

  device_ = new QComboBox(this);
  device_->addItem(tr("CPU"), CpuOnly);
  device_->addItem(tr("GPU"), GpuOnly);
  device_->addItem(tr("CPU and GPU"), CpuAndGpu);
  if (cuda::listGpuDevices().empty()) {
    gpuUnavailable_ = tr("No GPU: %1").arg(QString::fromStdString(cuda::gpuStatus()));
    // GPU choices are shown, disabled, with the reason (their rows would all be skipped).
    auto* model = qobject_cast<QStandardItemModel*>(device_->model());
    for (int i : {1, 2}) {
      model->item(i)->setEnabled(false);
      model->item(i)->setToolTip(gpuUnavailable_);
    }
    device_->setToolTip(gpuUnavailable_);
    device_->setCurrentIndex(0);
  } else {
    device_->setCurrentIndex(2);
  }
  repeats_ = new QSpinBox(this);
  repeats_->setRange(1, 50);
  repeats_->setValue(5);
  repeats_->setToolTip(
      tr("Timed runs per variant: the median is reported; 2 or more also check that repeated "
         "runs give the same voxels"));
  warmups_ = new QSpinBox(this);
  warmups_->setRange(0, 10);
  warmups_->setValue(1);
  warmups_->setToolTip(tr("Untimed runs first (GPU context, caches)"));
  filter_ = new QLineEdit(this);
  filter_->setPlaceholderText(tr("all variants (or names and prefixes)"));
  filter_->setClearButtonEnabled(true);

  auto* form = new QFormLayout;
  form->addRow(tr("Input"), input_);
  form->addRow(tr("Device"), device_);
  auto* counts = new QHBoxLayout;
  counts->addWidget(repeats_);
  counts->addWidget(new QLabel(tr("warm-ups"), this));
  counts->addWidget(warmups_);
  counts->addStretch(1);
  form->addRow(tr("Repeats"), counts);
  form->addRow(tr("Variants"), filter_);

  run_ = new QPushButton(tr("Run"), this);
  run_->setObjectName(QStringLiteral("sweepRun"));
  run_->setDefault(true);
  cancel_ = new QPushButton(tr("Cancel"), this);
  cancel_->setObjectName(QStringLiteral("sweepCancel"));
  progress_ = new QProgressBar(this);
  progress_->setRange(0, 1000);
  progress_->setValue(0);
  progress_->setTextVisible(true);
  progress_->setFormat(QString());
  status_ = new QLabel(this);
  status_->setObjectName(QStringLiteral("sweepStatus"));
  status_->setWordWrap(true);
  auto* runRow = new QHBoxLayout;
  runRow->addWidget(run_);
  runRow->addWidget(cancel_);
  runRow->addWidget(progress_, 1);

  table_ = new QTableWidget(0, ColumnCount, this);
  table_->setObjectName(QStringLiteral("sweepTable"));
  table_->setHorizontalHeaderLabels({tr("Variant"), tr("Class"), tr("Device"),
                                     tr("Kernel time (s)"), tr("Wall time (s)"), tr("GUPS"),
                                     tr("Reference"), tr("NRMSE"), tr("Max-abs / range"),
                                     tr("Verdict"), tr("Determinism"), tr("Adjoint rel. error")});
  table_->horizontalHeaderItem(MedianSeconds)
      ->setToolTip(tr("Kernel time, median of the timed runs: FDK the backprojection, SIRT the "
                      "forward and back projection per iteration"));
  table_->horizontalHeaderItem(WallSeconds)
      ->setToolTip(tr("Wall time of the whole run (filtering, transfers, ...), median"));
  table_->horizontalHeaderItem(Gups)->setToolTip(
      tr("Voxel updates per second / 1e9, from the "
         "kernel time"));
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table_->setSelectionBehavior(QAbstractItemView::SelectRows);
  table_->verticalHeader()->hide();
  table_->horizontalHeader()->setStretchLastSection(true);
  table_->setWordWrap(false);

  chart_ = new render::ChartView(this);
  chart_->setObjectName(QStringLiteral("sweepChart"));
  chart_->setTitle(tr("Accuracy against speed"));
  chart_->setAxisTitles(tr("median kernel time (s, log scale)"),
                        tr("NRMSE vs reference (log scale)"));
  chart_->setLogScaleX(true);
  chart_->setLogScaleY(true);
  chart_->setLegendVisible(true);
  chart_->setMinimumSize(360, 300);

  auto* splitter = new QSplitter(Qt::Horizontal, this);
  splitter->addWidget(table_);
  splitter->addWidget(chart_);
  splitter->setStretchFactor(0, 3);
  splitter->setStretchFactor(1, 2);
  splitter->setSizes({900, 500});  // the table's eleven columns first

  export_ = new QPushButton(tr("Export report…"), this);
  export_->setObjectName(QStringLiteral("sweepExport"));
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
  buttons->addButton(export_, QDialogButtonBox::ActionRole);

  auto* layout = new QVBoxLayout(this);
  layout->addLayout(form);
  layout->addLayout(runRow);
  layout->addWidget(status_);
  layout->addWidget(splitter, 1);
  layout->addWidget(buttons);

  connect(run_, &QPushButton::clicked, this, &SweepDialog::start);
  connect(cancel_, &QPushButton::clicked, this, &SweepDialog::cancel);
  connect(export_, &QPushButton::clicked, this, &SweepDialog::exportReport);
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
  connect(runner_, &SweepRunner::progress, this, [this](const QString& stage, double fraction) {
    progress_->setValue(static_cast<int>(std::lround(fraction * 1000)));
    progress_->setFormat(QStringLiteral("%1  %p%").arg(stage));
  });
  connect(runner_, &SweepRunner::finished, this, &SweepDialog::onFinished);
  connect(runner_, &SweepRunner::failed, this,
          [this](const QString& message) { onEnded(tr("Sweep failed: %1").arg(message), true); });
  connect(runner_, &SweepRunner::cancelled, this,
          [this] { onEnded(tr("Sweep cancelled: nothing was kept"), false); });
  connect(&workspace_, &Workspace::projectionsChanged, this, &SweepDialog::updateState);
  connect(&workspace_, &Workspace::geometryChanged, this, &SweepDialog::updateState);
  updateState();
  resize(1500, 700);
}

SweepDialog::~SweepDialog() = default;

bool SweepDialog::running() const {
  return runner_->busy();
}

QString SweepDialog::statusText() const {
  return status_->text();
}

bool SweepDialog::canStart(QString* why) const {
  QString reason;
  if (runner_->busy())
    reason = tr("A sweep is running.");
  else if (!workspace_.projections())
    reason = tr("Open projections or a demo first.");
  else if (!isFdkFamily(algorithm_) && !algorithm_.dataIsTiltSeries())
    reason = tr("A sweep of %1 needs a single-axis tilt series (the projector sweep); FDK and "
                "WBP sweep the backprojectors of any scan.")
                 .arg(QString::fromStdString(algorithm_.descriptor().label));
  else if (QString panelWhy; !algorithm_.validate(&panelWhy))
    reason = panelWhy;
  if (why != nullptr) *why = reason;
  return reason.isEmpty();
}

void SweepDialog::updateState() {
  QString text;
  if (!workspace_.projections()) {
    text = tr("no projections");
  } else {
    const auto& p = *workspace_.projections();
    const QString what =
        isFdkFamily(algorithm_)
            ? tr("%1: every fdk.bp. backprojector against fdk.bp.cpu-f64")
                  .arg(QString::fromStdString(algorithm_.descriptor().label))
            : tr("%1 (%2 iterations): every et.fp. / et.bp. projector pair against the CPU pair")
                  .arg(QString::fromStdString(algorithm_.descriptor().label))
                  .arg(algorithm_.algorithmParameters().value("iterations", 0));
    // Demo names already say their views and detector; file names do not.
    QString name = workspace_.projectionsName();
    if (!name.contains(QStringLiteral("views")))
      name += tr(" (%1 views of %2 × %3)").arg(p.viewCount()).arg(p.cols()).arg(p.rows());
    text = tr("%1; %2; grid %3").arg(name, what, algorithm_.gridText());
  }
  input_->setText(text);
  // The filter's example names are those of the algorithm about to be swept.
  filter_->setPlaceholderText(
      isFdkFamily(algorithm_) ? tr("all variants (or names and prefixes: fdk.bp.cpu, fdk.bp.tex)")
                              : tr("all pairs (or names and prefixes: et.fp.cpu, et.bp.fast)"));
  QString why;
  const bool can = canStart(&why);
  run_->setEnabled(can);
  run_->setToolTip(can ? tr("Run the sweep") : why);
  if (!can && !runner_->busy())
    status_->setText(
        QStringLiteral("<span style='color:#c03030'>%1</span>").arg(why.toHtmlEscaped()));
  cancel_->setEnabled(runner_->busy());
  export_->setEnabled(result_ != nullptr && !runner_->busy());
  for (QWidget* w : std::initializer_list<QWidget*>{device_, repeats_, warmups_, filter_})
    w->setEnabled(!runner_->busy());
}

bool SweepDialog::start() {
  QString why;
  if (!canStart(&why)) {
    status_->setText(why);
    return false;
  }
  qa::SweepOptions options;
  options.repeats = repeats_->value();
  options.warmups = warmups_->value();
  const int choice = device_->currentData().toInt();
  options.cpu = choice != GpuOnly;
  options.gpu = choice != CpuOnly;
  for (const QString& item : filterItems(filter_->text()))
    options.only.push_back(item.toStdString());
  QSettings settings;
  options.tolerances = loadToleranceTable(settings);  // the compare view's edited limits
  const auto projections = workspace_.projections();
  // The geometry editor's edit replaces the projections' own, as for a run.
  std::shared_ptr<const ProjectionStack> input = projections;
  if (const Geometry* g = workspace_.geometry(); g != nullptr && !(*g == projections->geometry())) {
    auto relabelled = std::make_shared<ProjectionStack>(*projections);
    relabelled->geometry() = *g;
    input = std::move(relabelled);
  }
  const SweepRunner::Work sweep = SweepRunner::algorithmSweep(
      algorithm_.descriptor(), input, algorithm_.algorithmParameters(), options);
  // The report names the input as the dialog shows it.
  const SweepRunner::Work work = [sweep, input = input_->text().toStdString()](JobContext& c) {
    qa::SweepResult result = sweep(c);
    result.input = input;
    return result;
  };
  table_->setRowCount(0);
  chart_->clear();
  result_.reset();
  progress_->setValue(0);
  progress_->setFormat(tr("starting"));
  status_->setText(tr("Sweeping…"));
  runner_->start(work);
  updateState();
  return true;
}

void SweepDialog::cancel() {
  runner_->cancel();
  status_->setText(tr("Cancelling…"));
}

void SweepDialog::onFinished(std::shared_ptr<const qa::SweepResult> result) {
  result_ = std::move(result);
  fillTable(*result_);
  fillChart(*result_);
  int ran = 0, passed = 0, failed = 0;
  for (const qa::SweepRow& row : result_->rows) {
    const std::string verdict = qa::rowVerdict(row);
    ran += row.ran ? 1 : 0;
    passed += verdict == "pass" ? 1 : 0;
    failed += verdict == "FAIL" ? 1 : 0;
  }
  progress_->setValue(1000);
  progress_->setFormat(tr("done"));
  onEnded(tr("%1 sweep: %2 of %3 variants ran, %4 passed, %5 failed; reference %6 (kernel time "
             "%7 s)")
              .arg(QString::fromStdString(result_->algorithm))
              .arg(ran)
              .arg(result_->rows.size())
              .arg(passed)
              .arg(failed)
              .arg(QString::fromStdString(result_->reference))
              .arg(number(result_->referenceSeconds)),
          false);
  emit sweepFinished();
}

void SweepDialog::onEnded(const QString& message, bool error) {
  status_->setText(
      error ? QStringLiteral("<span style='color:#c03030'>%1</span>").arg(message.toHtmlEscaped())
            : message);
  if (!result_) {
    progress_->setValue(0);
    progress_->setFormat(QString());
  }
  updateState();
  if (!error || result_) status_->setText(message);
  emit sweepEnded();
}

void SweepDialog::fillTable(const qa::SweepResult& result) {
  table_->setRowCount(static_cast<int>(result.rows.size()));
  const QColor muted = palette().color(QPalette::Disabled, QPalette::Text);
  for (int i = 0; i < static_cast<int>(result.rows.size()); ++i) {
    const qa::SweepRow& row = result.rows[static_cast<std::size_t>(i)];
    auto set = [&](int column, const QString& text, const QString& tip = {}) {
      auto* item = new QTableWidgetItem(text);
      if (!tip.isEmpty()) item->setToolTip(tip);
      if (column == MedianSeconds || column == WallSeconds || column == Gups || column == Nrmse ||
          column == MaxAbsRelative || column == Adjoint)
        item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
      if (!row.ran) item->setForeground(muted);
      table_->setItem(i, column, item);
      return item;
    };
    set(Variant,
        QString::fromStdString(row.label) + (row.onParetoFront ? QStringLiteral(" ◆") : QString()),
        row.onParetoFront ? tr("On the Pareto front: no other variant is both faster and more "
                               "accurate")
                          : QString());
    set(Class, QString::fromStdString(qa::toString(row.accuracyClass)));
    if (!row.ran) {
      set(Device, QString());
      const QString why = QString::fromStdString(qa::rowVerdict(row));
      QTableWidgetItem* item = set(Verdict, why, why);
      if (!row.failed.empty()) item->setForeground(kFailColour);
      continue;
    }
    set(Device, QString::fromStdString(row.device));
    QStringList runs;
    for (double s : row.seconds) runs << number(s);
    set(MedianSeconds, number(row.medianSeconds),
        tr("Kernel time of each timed run: %1 s (median %2 s)")
            .arg(runs.join(QStringLiteral(", ")), number(row.medianSeconds)));
    set(WallSeconds, number(row.medianTotalSeconds),
        tr("Wall time of the whole run (filtering, transfers, ...), median of the timed runs"));
    set(Gups, number(row.gups));
    set(Reference, QString::fromStdString(row.reference));
    if (row.comparison) {
      const qa::RunComparison& c = *row.comparison;
      set(Nrmse, QString::number(c.metrics.nrmse, 'e', 2));
      set(MaxAbsRelative, QString::number(c.maxAbsRelative, 'e', 2));
      const std::string verdict = qa::rowVerdict(row);
      const bool pass = verdict == "pass";
      const bool fail = verdict == "FAIL";
      QString text = QString::fromStdString(verdict);
      if (pass) text = tr("PASS");
      const QString tip =
          row.isReference
              ? tr("This row runs the reference's own variants: compared with itself it measures "
                   "run-to-run agreement, not accuracy, so it has no pass or fail.")
              : QString::fromStdString(c.verdict);
      QTableWidgetItem* item = set(Verdict, text, tip);
      item->setForeground(Qt::white);
      item->setBackground(pass ? kPassColour : fail ? kFailColour : kReferenceColour);
      item->setTextAlignment(Qt::AlignCenter);
    }
    QTableWidgetItem* det = set(Determinism, QString::fromStdString(row.determinism.summary()),
                                QString::fromStdString(row.determinism.summary()));
    if (row.determinism.runs >= 2 && !row.determinism.bitIdentical())
      det->setForeground(QColor(0xc0, 0x80, 0x00));  // atomics noise: worth a look, not a fail
    if (row.adjoint)
      set(Adjoint, QString::number(row.adjoint->relativeError, 'e', 2),
          QString::fromStdString(row.adjoint->summary()));
    else
      set(Adjoint, tr("—"), tr("No projector pair: the adjoint test applies to SIRT sweeps"));
  }
  table_->resizeColumnsToContents();
}

void SweepDialog::fillChart(const qa::SweepResult& result) {
  chart_->clear();
  std::vector<std::pair<double, double>> front;
  double smallest = 0;
  for (const qa::SweepRow& row : result.rows)
    if (row.ran && row.comparison && row.comparison->metrics.nrmse > 0)
      smallest = smallest > 0 ? std::min(smallest, row.comparison->metrics.nrmse)
                              : row.comparison->metrics.nrmse;
  const double floor = smallest > 0 ? smallest / 10 : kNrmseFloor;
  for (const qa::SweepRow& row : result.rows) {
    if (!row.ran || !row.comparison || row.medianSeconds <= 0) continue;
    const double x = row.medianSeconds;  // the chart's log axes take the values themselves
    const bool zero = !(row.comparison->metrics.nrmse > 0);
    const double y = zero ? floor : row.comparison->metrics.nrmse;
    const std::string verdict = qa::rowVerdict(row);
    // One series per variant: its name in the legend labels the point.
    const QString name = QString::fromStdString(row.label) +
                         (row.isReference ? tr(" (reference)") : QString()) +
                         (zero ? tr(" (NRMSE 0)") : QString());
    chart_->addSeries(name, render::ChartView::SeriesStyle::LineAndPoints,
                      verdict == "pass"   ? kPassColour
                      : verdict == "FAIL" ? kFailColour
                                          : kReferenceColour);
    chart_->setSeriesData(name, {x}, {y});
    if (row.onParetoFront) front.emplace_back(x, y);
  }
  if (front.size() >= 2) {
    std::sort(front.begin(), front.end());
    std::vector<double> xs, ys;
    for (const auto& [x, y] : front) {
      xs.push_back(x);
      ys.push_back(y);
    }
    chart_->addSeries(tr("Pareto front"), render::ChartView::SeriesStyle::Line,
                      QColor(0x80, 0x80, 0x80));
    chart_->setSeriesData(tr("Pareto front"), xs, ys);
  }
  chart_->flush();
}

bool SweepDialog::exportReportTo(const QString& folder, bool replace, QString* error) {
  if (!result_) {
    if (error != nullptr) *error = tr("No sweep to report yet.");
    return false;
  }
  try {
    qa::writeSweepReport(folder.toStdString(), *result_, qa::ReportFormat::Markdown, replace);
    return true;
  } catch (const std::exception& e) {
    if (error != nullptr) *error = QString::fromStdString(e.what());
    return false;
  }
}

void SweepDialog::exportReport() {
  QSettings settings;
  const QString folder = QFileDialog::getExistingDirectory(
      this, tr("Export sweep report into folder"),
      settings.value(QStringLiteral("sweep/lastReportDir"), QDir::homePath()).toString());
  if (folder.isEmpty()) return;
  bool replace = false;
  if (!QDir(folder).isEmpty()) {
    const auto answer = QMessageBox::question(
        this, tr("Export report"),
        tr("%1 is not empty. Replace its contents with the report?").arg(folder));
    if (answer != QMessageBox::Yes) return;
    replace = true;
  }
  QString error;
  if (!exportReportTo(folder, replace, &error)) {
    QMessageBox::warning(this, tr("Export report"), error);
    return;
  }
  settings.setValue(QStringLiteral("sweep/lastReportDir"), folder);
  status_->setText(
      tr("Report written to %1").arg(QDir(folder).filePath(QStringLiteral("report.md"))));
}

}  // namespace tomowb::gui
