// CnrPanel: contrast-to-noise of the ROIs the user drew on the slice views (render::SliceRoi).
// Every Signal ROI is measured against the union of the Background ROIs on the current volume:
// mean, background mean, noise (std of the background) and CNR = (mean_signal - mean_background)
// / std_background (gui/core/CnrMeasurement). It re-measures when the ROIs or the volume change,
// at most every kMeasureIntervalMs (live previews arrive a few times a second), and keeps a
// history, one point per distinct volume measured, plotted as CNR against the iteration (or
// preview number) with ChartView while a run goes on. Export PNG (the panel) and CSV (history).
#pragma once

#include <QString>
#include <QTimer>
#include <QWidget>
#include <memory>
#include <nlohmann/json.hpp>
#include <vector>

#include "gui/core/CnrMeasurement.h"
#include "recon/core/Volume.h"
#include "render/SliceRoi.h"

class QLabel;
class QPushButton;
class QTableWidget;

namespace tomowb::render {
class ChartView;
}

namespace tomowb::gui {

class CnrPanel : public QWidget {
  Q_OBJECT

 public:
  static constexpr int kMeasureIntervalMs = 250;

  explicit CnrPanel(QWidget* parent = nullptr);

  void setRois(std::vector<render::SliceRoi> rois);
  const std::vector<render::SliceRoi>& rois() const { return rois_; }
  // The ROIs as saved with a run (parameters["rois"]) and read back.
  nlohmann::json roisJson() const;
  static std::vector<render::SliceRoi> roisFromJson(const nlohmann::json& json);

  // The volume to measure (nullptr: none). `iteration` >= 0 is the x of its history point;
  // -1 numbers it after the previous point; kTableOnly measures it without a history point (an
  // iterative run's start filling in). The same volume again adds no history point.
  static constexpr int kTableOnly = -2;
  void setVolume(std::shared_ptr<const Volume> volume, const QString& label, int iteration = -1);

  // Measures now instead of at the next throttle tick (tests, exports).
  void measureNow();
  const std::vector<CnrRow>& rows() const { return rows_; }
  QTableWidget& table() { return *table_; }
  render::ChartView& chart() { return *chart_; }
  int historySize() const { return static_cast<int>(history_.size()); }

  QString csvText() const;
  bool exportCsv(const QString& path, QString* error = nullptr) const;
  bool exportPng(const QString& path, QString* error = nullptr);

 public slots:
  void clearHistory();

 signals:
  // After each measurement (the rows changed).
  void measured();

 private:
  struct HistoryPoint {
    double x = 0;
    QString volumeLabel;
    std::vector<CnrRow> rows;
  };
  void scheduleMeasure();
  void fillTable();
  void addHistoryPoint();
  void exportPngWithDialog();
  void exportCsvWithDialog();

  std::vector<render::SliceRoi> rois_;
  std::shared_ptr<const Volume> volume_;
  QString volumeLabel_;
  int iteration_ = -1;
  bool volumeIsNew_ = false;  // not in the history yet
  const Volume* lastHistoryVolume_ = nullptr;
  std::vector<CnrRow> rows_;
  std::vector<HistoryPoint> history_;
  QTimer measureTimer_;
  QLabel* status_ = nullptr;
  QTableWidget* table_ = nullptr;
  render::ChartView* chart_ = nullptr;
  QPushButton* clearButton_ = nullptr;
  QPushButton* pngButton_ = nullptr;
  QPushButton* csvButton_ = nullptr;
};

}  // namespace tomowb::gui
