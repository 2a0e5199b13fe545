// The ROIs' voxels come from render::roiVoxelIndices (one slice each); the figures from
// gui/core/CnrMeasurement, on the GUI thread: an ROI is one slice's disc or box, so a
// measurement costs well under a millisecond.
#include "gui/CnrPanel.h"

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
#include <cmath>

#include "gui/ExportFiles.h"
#include "render/ChartView.h"
#include "render/EventTrace.h"

namespace tomowb::gui {
namespace {

enum Column { RoiColumn, VoxelsColumn, MeanColumn, BackgroundColumn, NoiseColumn, CnrColumn };

QString value(double v) {
  return std::isnan(v) ? QStringLiteral("\u2014") : QString::number(v, 'g', 5);
}

QString csvNumber(double v) {
  if (std::isnan(v)) return {};
  if (std::isinf(v)) return v > 0 ? QStringLiteral("inf") : QStringLiteral("-inf");
  return QString::number(v, 'g', QLocale::FloatingPointShortest);
}

QString csvField(const QString& text) {
  if (!text.contains(',') && !text.contains('"') && !text.contains('\n')) return text;
  QString quoted = text;
  quoted.replace('"', "\"\"");
  return '"' + quoted + '"';
}

}  // namespace

CnrPanel::CnrPanel(QWidget* parent) : QWidget(parent) {
  status_ = new QLabel(this);
  status_->setWordWrap(true);
  table_ = new QTableWidget(0, 6, this);
  table_->setHorizontalHeaderLabels(
      {tr("ROI"), tr("Voxels"), tr("Mean"), tr("BG mean"), tr("\u03c3 BG"), tr("CNR")});
  table_->verticalHeader()->hide();
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  table_->horizontalHeader()->setStretchLastSection(true);
  table_->setToolTip(
      tr("CNR = (mean - background mean) / background \u03c3; the background is "
         "every Background ROI together"));
  chart_ = new render::ChartView(this);
  chart_->setTitle(tr("CNR during the run"));
  chart_->setAxisTitles(tr("iteration / preview"), tr("CNR"));
  chart_->setMinimumHeight(160);
  clearButton_ = new QPushButton(tr("Clear history"), this);
  pngButton_ = new QPushButton(tr("Export PNG\u2026"), this);
  csvButton_ = new QPushButton(tr("Export CSV\u2026"), this);

  auto* splitter = new QSplitter(Qt::Vertical, this);
  splitter->addWidget(table_);
  splitter->addWidget(chart_);
  splitter->setStretchFactor(0, 1);
  splitter->setStretchFactor(1, 2);
  auto* buttons = new QHBoxLayout;
  buttons->addWidget(clearButton_);
  buttons->addStretch(1);
  buttons->addWidget(pngButton_);
  buttons->addWidget(csvButton_);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->addWidget(status_);
  layout->addWidget(splitter, 1);
  layout->addLayout(buttons);

  measureTimer_.setSingleShot(true);
  measureTimer_.setInterval(kMeasureIntervalMs);
  connect(&measureTimer_, &QTimer::timeout, this, &CnrPanel::measureNow);
  connect(clearButton_, &QPushButton::clicked, this, &CnrPanel::clearHistory);
  connect(pngButton_, &QPushButton::clicked, this, &CnrPanel::exportPngWithDialog);
  connect(csvButton_, &QPushButton::clicked, this, &CnrPanel::exportCsvWithDialog);
  measureNow();
}

void CnrPanel::setRois(std::vector<render::SliceRoi> rois) {
  if (rois == rois_) return;
  rois_ = std::move(rois);
  // Other ROIs make other curves: the history of the old ones does not continue.
  clearHistory();
  volumeIsNew_ = volume_ != nullptr;
  scheduleMeasure();
}

nlohmann::json CnrPanel::roisJson() const {
  nlohmann::json list = nlohmann::json::array();
  for (const render::SliceRoi& r : rois_) {
    list.push_back({{"id", r.id},
                    {"label", r.label.toStdString()},
                    {"role", r.role == render::SliceRoi::Background ? "background" : "signal"},
                    {"shape", r.shape == render::SliceRoi::Rectangle ? "rectangle" : "circle"},
                    {"axis", r.axis},
                    {"sliceMm", r.sliceMm},
                    {"centreMm", {r.centreMm.x(), r.centreMm.y()}},
                    {"halfSizeMm", {r.halfSizeMm.x(), r.halfSizeMm.y()}}});
  }
  return list;
}

std::vector<render::SliceRoi> CnrPanel::roisFromJson(const nlohmann::json& json) {
  std::vector<render::SliceRoi> rois;
  if (!json.is_array()) return rois;
  for (const nlohmann::json& j : json) {
    render::SliceRoi r;
    r.id = j.value("id", 0);
    r.label = QString::fromStdString(j.value("label", std::string()));
    r.role = j.value("role", std::string("signal")) == "background" ? render::SliceRoi::Background
                                                                    : render::SliceRoi::Signal;
    r.shape = j.value("shape", std::string("circle")) == "rectangle" ? render::SliceRoi::Rectangle
                                                                     : render::SliceRoi::Circle;
    r.axis = j.value("axis", 2);
    r.sliceMm = j.value("sliceMm", 0.0);
    const auto pair = [&](const char* key) {
      const nlohmann::json& p = j.contains(key) ? j.at(key) : nlohmann::json();
      return p.is_array() && p.size() == 2 ? Eigen::Vector2d(p[0].get<double>(), p[1].get<double>())
                                           : Eigen::Vector2d::Zero();
    };
    r.centreMm = pair("centreMm");
    r.halfSizeMm = pair("halfSizeMm");
    rois.push_back(r);
  }
  return rois;
}

void CnrPanel::setVolume(std::shared_ptr<const Volume> volume, const QString& label,
                         int iteration) {
  const render::EventTrace::Scope traced("CnrPanel::setVolume");
  if (volume == volume_ && label == volumeLabel_) return;
  volumeIsNew_ = volume != nullptr && volume.get() != lastHistoryVolume_ && iteration != kTableOnly;
  volume_ = std::move(volume);
  volumeLabel_ = label;
  iteration_ = iteration;
  scheduleMeasure();
}

void CnrPanel::scheduleMeasure() {
  if (!measureTimer_.isActive()) measureTimer_.start();
}

void CnrPanel::measureNow() {
  const render::EventTrace::Scope traced("CnrPanel::measureNow");
  measureTimer_.stop();
  rows_.clear();
  int signalCount = 0, backgroundCount = 0;
  for (const render::SliceRoi& r : rois_)
    (r.role == render::SliceRoi::Background ? backgroundCount : signalCount)++;
  if (!volume_) {
    status_->setText(tr("No volume. Open data or run a reconstruction."));
  } else if (signalCount == 0 || backgroundCount == 0) {
    status_->setText(tr("%1: draw at least one Signal and one Background ROI on a slice view.")
                         .arg(volumeLabel_));
  } else {
    status_->setText(volumeLabel_);
  }
  if (volume_) {
    std::vector<CnrRegion> regions;
    for (const render::SliceRoi& r : rois_)
      regions.push_back({r.id, r.label, r.role == render::SliceRoi::Background,
                         render::roiVoxelIndices(*volume_, r)});
    rows_ = measureCnr(*volume_, regions);
    // Background ROIs get rows too, for their own mean and noise.
    for (const CnrRegion& region : regions) {
      if (!region.background) continue;
      CnrRow row;
      row.id = region.id;
      row.label = region.label;
      row.figures.background = voxelListStatistics(*volume_, region.voxels);
      row.figures.noise = row.figures.background.std;
      row.problem = QStringLiteral("background");
      rows_.push_back(std::move(row));
    }
  }
  fillTable();
  if (volumeIsNew_) {
    addHistoryPoint();
    volumeIsNew_ = false;
  }
  emit measured();
}

void CnrPanel::fillTable() {
  table_->setRowCount(static_cast<int>(rows_.size()));
  for (int i = 0; i < static_cast<int>(rows_.size()); ++i) {
    const CnrRow& row = rows_[static_cast<std::size_t>(i)];
    const bool background = row.problem == QLatin1String("background");
    const CnrFigures& f = row.figures;
    QStringList cells;
    if (background) {
      cells = {tr("%1 (background)").arg(row.label),
               QString::number(f.background.count),
               value(f.background.mean),
               QString(),
               value(f.background.std),
               QString()};
    } else {
      cells = {row.label,
               QString::number(f.signal.count),
               value(f.signal.mean),
               value(f.background.mean),
               value(f.noise),
               row.measured() ? formatCnr(f.cnr) : row.problem};
    }
    for (int column = 0; column < cells.size(); ++column) {
      auto* item = new QTableWidgetItem(cells[column]);
      if (column > RoiColumn) item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
      if (column == CnrColumn && !background && !row.measured()) item->setToolTip(row.problem);
      table_->setItem(i, column, item);
    }
  }
}

void CnrPanel::addHistoryPoint() {
  std::vector<CnrRow> measuredRows;
  for (const CnrRow& r : rows_)
    if (r.measured()) measuredRows.push_back(r);
  if (measuredRows.empty() || !volume_) return;
  HistoryPoint point;
  point.x = iteration_ >= 0 ? iteration_ : (history_.empty() ? 1.0 : history_.back().x + 1.0);
  point.volumeLabel = volumeLabel_;
  point.rows = std::move(measuredRows);
  lastHistoryVolume_ = volume_.get();
  for (const CnrRow& r : point.rows) {
    chart_->addSeries(r.label, render::ChartView::SeriesStyle::LineAndPoints);
    // Noise-free data give an infinite CNR: it stays in the table and CSV, not on the plot.
    if (std::isfinite(r.figures.cnr)) chart_->appendPoint(r.label, point.x, r.figures.cnr);
  }
  history_.push_back(std::move(point));
}

void CnrPanel::clearHistory() {
  history_.clear();
  lastHistoryVolume_ = nullptr;
  chart_->clear();
}

QString CnrPanel::csvText() const {
  QString text =
      QStringLiteral("x,volume,roi,voxels,mean,background_mean,background_voxels,noise,cnr\n");
  for (const HistoryPoint& p : history_) {
    for (const CnrRow& r : p.rows) {
      const CnrFigures& f = r.figures;
      text += QStringList{csvNumber(p.x),
                          csvField(p.volumeLabel),
                          csvField(r.label),
                          QString::number(f.signal.count),
                          csvNumber(f.signal.mean),
                          csvNumber(f.background.mean),
                          QString::number(f.background.count),
                          csvNumber(f.noise),
                          csvNumber(f.cnr)}
                  .join(',') +
              '\n';
    }
  }
  return text;
}

bool CnrPanel::exportCsv(const QString& path, QString* error) const {
  return saveTextAtomically(path, csvText(), error);
}

bool CnrPanel::exportPng(const QString& path, QString* error) {
  chart_->flush();
  return savePngAtomically(path, grab(), error);
}

void CnrPanel::exportPngWithDialog() {
  exportWithDialog(this, tr("Export CNR"), QStringLiteral("cnr.png"), tr("PNG images (*.png)"),
                   tr("Export PNG"),
                   [this](const QString& path, QString* error) { return exportPng(path, error); });
}

void CnrPanel::exportCsvWithDialog() {
  exportWithDialog(this, tr("Export CNR"), QStringLiteral("cnr.csv"), tr("CSV files (*.csv)"),
                   tr("Export CSV"),
                   [this](const QString& path, QString* error) { return exportCsv(path, error); });
}

}  // namespace tomowb::gui
