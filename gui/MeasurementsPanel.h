// MeasurementsPanel: the "Measurements" dock. A table of every ROI (voxel count, area, mean,
// SD, min, max on the volume shown) and every ruler (length) drawn on the slice views, with
// Delete, Delete all and a context menu, and the line profile of the profile line in a chart
// (values against distance along the line, bilinear in the slice: recon/metrics). It follows
// render::OrthoViews: new shapes, deleted ones and every new volume (throttled to
// kMeasureIntervalMs during live previews); selecting a row selects the shape in its view.
// Exports the table as CSV and the profile as CSV or PNG.
#pragma once

#include <QString>
#include <QTimer>
#include <QWidget>
#include <vector>

#include "recon/core/DisplayUnits.h"
#include "recon/metrics/PlanarRoi.h"
#include "recon/metrics/SliceLineProfile.h"
#include "render/SliceRoi.h"

class QLabel;
class QPushButton;
class QTableWidget;

namespace tomowb::render {
class ChartView;
class OrthoViews;
}  // namespace tomowb::render

namespace tomowb::gui {

class MeasurementsPanel : public QWidget {
  Q_OBJECT

 public:
  static constexpr int kMeasureIntervalMs = 250;

  enum Column {
    NameColumn,
    ViewColumn,
    VoxelsColumn,
    AreaColumn,
    MeanColumn,
    SdColumn,
    MinColumn,
    MaxColumn,
    LengthColumn,
    ColumnCount
  };

  // One row of the table: an ROI's figures or a ruler's length.
  struct Row {
    int id = 0;
    QString name;
    QString view;  // "Axial z = 12.00 mm"
    bool ruler = false;
    metrics::PlanarRoiStats stats;  // ROIs
    double lengthMm = 0.0;          // rulers
  };

  explicit MeasurementsPanel(render::OrthoViews& views, QWidget* parent = nullptr);

  // Measures now instead of at the next throttle tick (tests, exports).
  void measureNow();
  const std::vector<Row>& rows() const { return rows_; }
  const metrics::SliceLineProfile& profile() const { return profile_; }
  QTableWidget& table() { return *table_; }
  render::ChartView& profileChart() { return *chart_; }

  // Deletes the shapes of the selected rows; deletes every ROI, ruler and the profile line.
  void deleteSelected();
  void deleteAll();

  // "name,view,voxels,area_mm2,mean,sd,min,max,length_mm" and one line per row.
  QString csvText() const;

 private:
  // The units the slice views show these data in (view names, lengths).
  const DisplayUnits& units() const;
  void scheduleMeasure();
  void fillTable();
  void updateProfile();
  void showContextMenu(const QPoint& position);
  void selectInView();

  render::OrthoViews& views_;
  std::vector<Row> rows_;
  metrics::SliceLineProfile profile_;
  QTimer measureTimer_;
  QLabel* status_ = nullptr;
  QTableWidget* table_ = nullptr;
  QLabel* profileLabel_ = nullptr;
  render::ChartView* chart_ = nullptr;
  QPushButton* deleteButton_ = nullptr;
  QPushButton* deleteAllButton_ = nullptr;
  bool filling_ = false;  // table updates of our own, not the user's selection
};

}  // namespace tomowb::gui
