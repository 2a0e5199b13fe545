// MeasurementsPanel: see the header. The figures come from recon/metrics (PlanarRoi,
// SliceLineProfile) on the GUI thread: an ROI is one slice's disc or box and a profile a few
// thousand bilinear samples, so a measurement costs well under a millisecond.
#include "gui/MeasurementsPanel.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QMenu>
#include <QPushButton>
#include <QSet>
#include <QSplitter>
#include <QTableWidget>
#include <QVBoxLayout>
#include <cmath>

#include "gui/ExportFiles.h"
#include "recon/metrics/MeasurementText.h"
#include "render/ChartView.h"
#include "render/EventTrace.h"
#include "render/OrthoViews.h"

namespace tomowb::gui {
namespace {

QString value(double v) {
  return std::isfinite(v) ? QString::number(v, 'g', 5) : QStringLiteral("\u2014");
}

QString csvNumber(double v) {
  return std::isfinite(v) ? QString::number(v, 'g', QLocale::FloatingPointShortest) : QString();
}

QString csvField(const QString& text) {
  if (!text.contains(',') && !text.contains('"') && !text.contains('\n')) return text;
  QString quoted = text;
  quoted.replace('"', "\"\"");
  return '"' + quoted + '"';
}

// "Axial z = 12.5 mm", or for a tomogram "XY z = 120 nm": the view's name as the slice views
// give it for these data (DisplayUnits::viewNames, indexed by the normal: z, y, x).
QString viewText(const DisplayUnits& units, int axis, double sliceMm) {
  if (axis < 0 || axis > 2) return {};
  return QStringLiteral("%1 %2 = %3")
      .arg(QString::fromStdString(units.viewNames()[static_cast<std::size_t>(2 - axis)]),
           QChar("xyz"[axis]), QString::fromStdString(metrics::lengthText(sliceMm)));
}

}  // namespace

MeasurementsPanel::MeasurementsPanel(render::OrthoViews& views, QWidget* parent)
    : QWidget(parent), views_(views) {
  status_ = new QLabel(this);
  status_->setWordWrap(true);
  table_ = new QTableWidget(0, ColumnCount, this);
  table_->setObjectName(QStringLiteral("measurementsTable"));
  table_->setHorizontalHeaderLabels({tr("Name"), tr("View"), tr("Voxels"), tr("Area"), tr("Mean"),
                                     tr("SD"), tr("Min"), tr("Max"), tr("Length")});
  table_->verticalHeader()->hide();
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table_->setSelectionBehavior(QAbstractItemView::SelectRows);
  table_->setSelectionMode(QAbstractItemView::ExtendedSelection);
  table_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  table_->horizontalHeader()->setStretchLastSection(true);
  table_->setContextMenuPolicy(Qt::CustomContextMenu);
  table_->setToolTip(
      tr("Every ROI and ruler on the slice views, measured on the volume shown. SD is the sample "
         "standard deviation; the area is the voxel count times the pixel area."));
  profileLabel_ = new QLabel(this);
  profileLabel_->setWordWrap(true);
  chart_ = new render::ChartView(this);
  chart_->setObjectName(QStringLiteral("profileChart"));
  chart_->setTitle(tr("Line profile"));
  chart_->setAxisTitles(tr("distance (mm)"), tr("value"));
  chart_->setLegendVisible(false);
  chart_->setMinimumHeight(140);
  deleteButton_ = new QPushButton(tr("Delete"), this);
  deleteButton_->setToolTip(tr("Delete the selected ROIs and rulers (Delete key in a view)"));
  deleteAllButton_ = new QPushButton(tr("Delete all"), this);
  deleteAllButton_->setToolTip(tr("Delete every ROI, ruler and the profile line"));
  // "CSV…", not "Export CSV…": the row of buttons sets the dock's narrowest width.
  auto* csvButton = new QPushButton(tr("CSV\u2026"), this);
  csvButton->setToolTip(tr("Export the table as CSV"));
  auto* profileCsvButton = new QPushButton(tr("Profile CSV\u2026"), this);
  profileCsvButton->setToolTip(tr("The line profile as CSV (distance, value)"));

  auto* tablePart = new QWidget(this);
  auto* tableLayout = new QVBoxLayout(tablePart);
  tableLayout->setContentsMargins(0, 0, 0, 0);
  tableLayout->addWidget(table_, 1);
  auto* buttons = new QHBoxLayout;
  buttons->addWidget(deleteButton_);
  buttons->addWidget(deleteAllButton_);
  buttons->addStretch(1);
  buttons->addWidget(csvButton);
  tableLayout->addLayout(buttons);
  auto* profilePart = new QWidget(this);
  auto* profileLayout = new QVBoxLayout(profilePart);
  profileLayout->setContentsMargins(0, 0, 0, 0);
  auto* profileHeader = new QHBoxLayout;
  profileHeader->addWidget(profileLabel_, 1);
  profileHeader->addWidget(profileCsvButton);
  profileLayout->addLayout(profileHeader);
  profileLayout->addWidget(chart_, 1);
  auto* splitter = new QSplitter(Qt::Vertical, this);
  splitter->addWidget(tablePart);
  splitter->addWidget(profilePart);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->addWidget(status_);
  layout->addWidget(splitter, 1);

  measureTimer_.setSingleShot(true);
  measureTimer_.setInterval(kMeasureIntervalMs);
  connect(&measureTimer_, &QTimer::timeout, this, &MeasurementsPanel::measureNow);
  connect(&views_, &render::OrthoViews::roisChanged, this, &MeasurementsPanel::scheduleMeasure);
  connect(&views_, &render::OrthoViews::rulersChanged, this, &MeasurementsPanel::scheduleMeasure);
  connect(&views_, &render::OrthoViews::profileLineChanged, this,
          &MeasurementsPanel::scheduleMeasure);
  connect(&views_, &render::OrthoViews::volumeChanged, this, &MeasurementsPanel::scheduleMeasure);
  connect(deleteButton_, &QPushButton::clicked, this, &MeasurementsPanel::deleteSelected);
  connect(deleteAllButton_, &QPushButton::clicked, this, &MeasurementsPanel::deleteAll);
  connect(table_, &QTableWidget::customContextMenuRequested, this,
          &MeasurementsPanel::showContextMenu);
  connect(table_, &QTableWidget::itemSelectionChanged, this, &MeasurementsPanel::selectInView);
  connect(csvButton, &QPushButton::clicked, this, [this] {
    exportWithDialog(this, tr("Export measurements"), QStringLiteral("measurements.csv"),
                     tr("CSV files (*.csv)"), tr("Export CSV"),
                     [this](const QString& path, QString* error) {
                       return saveTextAtomically(path, csvText(), error);
                     });
  });
  connect(profileCsvButton, &QPushButton::clicked, this, [this] {
    exportWithDialog(
        this, tr("Export line profile"), QStringLiteral("profile.csv"), tr("CSV files (*.csv)"),
        tr("Export CSV"),
        [this](const QString& path, QString* error) { return chart_->exportCsv(path, error); });
  });
  measureNow();
}

const DisplayUnits& MeasurementsPanel::units() const {
  return views_.view(render::SliceView::Axis::Axial)->displayUnits();
}

void MeasurementsPanel::scheduleMeasure() {
  if (!measureTimer_.isActive()) measureTimer_.start();
}

void MeasurementsPanel::measureNow() {
  const render::EventTrace::Scope traced("MeasurementsPanel::measureNow");
  measureTimer_.stop();
  rows_.clear();
  const std::shared_ptr<const Volume>& volume = views_.volume();
  for (const render::SliceRoi& roi : views_.rois()) {
    Row row;
    row.id = roi.id;
    row.name = roi.label;
    row.view = viewText(units(), roi.axis, roi.sliceMm);
    if (volume) row.stats = metrics::planarRoiStatistics(*volume, roi.planar());
    rows_.push_back(std::move(row));
  }
  for (const render::SliceLine& line : views_.rulers()) {
    Row row;
    row.id = line.id;
    row.name = line.label;
    row.view = viewText(units(), line.axis, line.sliceMm);
    row.ruler = true;
    row.lengthMm = line.lengthMm();
    rows_.push_back(std::move(row));
  }
  if (!volume)
    status_->setText(tr("No volume. Open data or run a reconstruction."));
  else if (rows_.empty() && !views_.profileLine())
    status_->setText(
        tr("Draw an ROI, a ruler or a profile line on a slice view (view toolbar). "
           "Hold Shift when releasing to draw another."));
  else
    status_->setText(tr("%n measurement(s)", nullptr, static_cast<int>(rows_.size())));
  fillTable();
  updateProfile();
  deleteAllButton_->setEnabled(!rows_.empty() || views_.profileLine().has_value());
}

void MeasurementsPanel::fillTable() {
  filling_ = true;
  QSet<int> selected;
  for (const QModelIndex& index : table_->selectionModel()->selectedRows())
    selected.insert(table_->item(index.row(), NameColumn)->data(Qt::UserRole).toInt());
  table_->clearSelection();
  table_->setRowCount(static_cast<int>(rows_.size()));
  for (int i = 0; i < static_cast<int>(rows_.size()); ++i) {
    const Row& row = rows_[static_cast<std::size_t>(i)];
    const metrics::PlanarRoiStats& s = row.stats;
    QStringList cells;
    if (row.ruler) {
      cells = {row.name, row.view, {},
               {},       {},       {},
               {},       {},       QString::fromStdString(metrics::lengthText(row.lengthMm))};
    } else {
      cells = {row.name,
               row.view,
               QString::number(s.voxelCount),
               QString::fromStdString(metrics::areaText(s.areaMm2)),
               value(s.mean),
               value(s.std),
               value(s.min),
               value(s.max),
               {}};
    }
    for (int column = 0; column < ColumnCount; ++column) {
      auto* item = new QTableWidgetItem(cells[column]);
      if (column >= VoxelsColumn) item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
      if (column == NameColumn) item->setData(Qt::UserRole, row.id);
      if (!row.ruler && s.voxelCount == 0)
        item->setToolTip(tr("The ROI lies outside the volume shown"));
      else if (!row.ruler && s.nonFiniteCount > 0)
        item->setToolTip(tr("%n voxel(s) are NaN or infinite and left out", nullptr,
                            static_cast<int>(s.nonFiniteCount)));
      table_->setItem(i, column, item);
    }
    if (selected.contains(row.id)) table_->selectRow(i);
  }
  deleteButton_->setEnabled(!table_->selectionModel()->selectedRows().isEmpty());
  filling_ = false;
}

void MeasurementsPanel::updateProfile() {
  const std::optional<render::SliceLine> line = views_.profileLine();
  const std::shared_ptr<const Volume>& volume = views_.volume();
  profile_ = {};
  chart_->clear();
  if (!line || !volume) {
    profileLabel_->setText(tr("Line profile: draw one with the Profile tool"));
    return;
  }
  profile_ =
      metrics::sliceLineProfile(*volume, line->axis, line->sliceMm, line->fromMm, line->toMm);
  profileLabel_->setText(tr("%1, %2 long, %3 samples")
                             .arg(viewText(units(), line->axis, line->sliceMm),
                                  QString::fromStdString(metrics::lengthText(profile_.lengthMm)))
                             .arg(profile_.values.size()));
  // Samples outside the volume (NaN) are left out of the plot.
  std::vector<double> x, y;
  for (std::size_t i = 0; i < profile_.values.size(); ++i) {
    if (!std::isfinite(profile_.values[i])) continue;
    x.push_back(profile_.distanceMm[i]);
    y.push_back(profile_.values[i]);
  }
  chart_->setSeriesData(tr("profile"), x, y);
}

void MeasurementsPanel::deleteSelected() {
  std::vector<int> ids;
  for (const QModelIndex& index : table_->selectionModel()->selectedRows())
    ids.push_back(table_->item(index.row(), NameColumn)->data(Qt::UserRole).toInt());
  for (int id : ids) views_.deleteMeasurement(id);
  measureNow();
}

void MeasurementsPanel::deleteAll() {
  views_.clearMeasurements();
  measureNow();
}

void MeasurementsPanel::showContextMenu(const QPoint& position) {
  QMenu menu(this);
  QAction* remove = menu.addAction(tr("Delete"));
  remove->setEnabled(!table_->selectionModel()->selectedRows().isEmpty());
  QAction* removeAll = menu.addAction(tr("Delete all ROIs and rulers"));
  removeAll->setEnabled(table_->rowCount() > 0 || views_.profileLine().has_value());
  QAction* chosen = menu.exec(table_->viewport()->mapToGlobal(position));
  if (chosen == remove) deleteSelected();
  if (chosen == removeAll) deleteAll();
}

void MeasurementsPanel::selectInView() {
  const QModelIndexList selected = table_->selectionModel()->selectedRows();
  deleteButton_->setEnabled(!selected.isEmpty());
  if (filling_ || selected.size() != 1) return;
  const int id = table_->item(selected.front().row(), NameColumn)->data(Qt::UserRole).toInt();
  for (render::SliceView* v : views_.sliceViews()) {
    bool here = false;
    for (const render::SliceRoi& roi : v->rois()) here = here || roi.id == id;
    for (const render::SliceLine& line : v->rulers()) here = here || line.id == id;
    v->selectRoi(here ? id : -1);
  }
}

QString MeasurementsPanel::csvText() const {
  QString text = QStringLiteral("name,view,voxels,area_mm2,mean,sd,min,max,length_mm\n");
  for (const Row& r : rows_) {
    const metrics::PlanarRoiStats& s = r.stats;
    QStringList fields = {csvField(r.name), csvField(r.view)};
    if (r.ruler)
      fields << QString() << QString() << QString() << QString() << QString() << QString()
             << csvNumber(r.lengthMm);
    else
      fields << QString::number(s.voxelCount) << csvNumber(s.areaMm2) << csvNumber(s.mean)
             << csvNumber(s.std) << csvNumber(s.min) << csvNumber(s.max) << QString();
    text += fields.join(',') + '\n';
  }
  return text;
}

}  // namespace tomowb::gui
