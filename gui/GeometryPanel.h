// GeometryPanel: the geometry editor dock. A form for every parameter of the core's scan
// builders (gui/core/GeometryForm.h: circular cone beam, short scan, helical, parallel beam, ET
// tilt series; per-view vectors/matrices are shown as a read-only list, import only), each field
// with its unit, limits and a tooltip; Import/Export JSON (recon/io/GeometryJson.h plus the
// form's "editor" block); Apply (Workspace::setGeometry: the view count and detector size must
// stay) and Revert; a view slider; the 3-D scene (render/GeometryScene) following the form as
// the user types (debounced 100 ms); warnings (truncation, short scan / offset detector and the
// redundancy weights FDK needs, too few degrees); and the selected view's FDK redundancy weight
// along the central detector row (recon/fdk/FdkWeights.h). The consistency overlay is a separate
// dock (ConsistencyView) fed by editedGeometryChanged and selectedViewChanged.
#pragma once

#include <QStringList>
#include <QTimer>
#include <QWidget>
#include <functional>
#include <optional>
#include <vector>

#include "gui/core/GeometryForm.h"
#include "recon/fdk/FdkWeights.h"
#include "recon/geometry/Geometry.h"

class QComboBox;
class QDoubleSpinBox;
class QFormLayout;
class QGroupBox;
class QLabel;
class QListWidget;
class QPushButton;
class QSlider;
class QSpinBox;
class QTableWidget;

namespace tomowb::render {
class GeometryScene;
}

namespace tomowb::gui {

class Workspace;
class WeightProfileWidget;

class GeometryPanel : public QWidget {
  Q_OBJECT

 public:
  explicit GeometryPanel(Workspace& workspace, QWidget* parent = nullptr);

  // The form's values as they stand (scan type included).
  GeometryForm form() const;
  // Fills the form (no rebuild signal storm: one debounced rebuild follows).
  void setForm(const GeometryForm& form);
  // The geometry the form (or the imported per-view list) gives, once built; nullopt while a
  // value is invalid (then formError() says which field).
  const std::optional<Geometry>& editedGeometry() const noexcept { return edited_; }
  QString formError() const { return formError_; }
  int selectedView() const;
  QStringList warnings() const;  // the warning texts as shown
  render::GeometryScene& scene() { return *scene_; }
  WeightProfileWidget& weightProfile() { return *weights_; }

  // Builds the geometry now instead of after the debounce (tests, Apply).
  void rebuildNow();
  // These return false and set *error (naming the file and field) instead of showing a message
  // box; the buttons call them and show the box.
  bool importJson(const QString& path, QString* error = nullptr);
  bool exportJson(const QString& path, QString* error = nullptr);
  bool apply(QString* error = nullptr);

 public slots:
  void revert();  // back to the workspace's geometry
  // The algorithm panel's redundancy weights: a short scan or offset detector whose weights do
  // not match becomes a warning.
  void setRedundancyMode(tomowb::fdk::RedundancyMode mode);
  void setSelectedView(int view);

 signals:
  void editedGeometryChanged(const tomowb::Geometry& geometry);
  void selectedViewChanged(int view);
  void formInvalid(const QString& message);

 private:
  void buildForm();
  QDoubleSpinBox* addDouble(QFormLayout* layout, const QString& label, double GeometryForm::*field,
                            double min, double max, int decimals, const QString& suffix,
                            const QString& tip);
  QSpinBox* addCount(QFormLayout* layout, const QString& label, std::int64_t GeometryForm::*field,
                     int min, const QString& tip, std::optional<bool> tiltSeriesOnly = {});
  void showRowsFor(ScanType type);
  void scheduleRebuild();
  void loadFromWorkspace();
  void showPerView(const Geometry& geometry);
  void updateVolumeBox();
  void updateWarnings();
  void updateWeights();
  void addWarning(const QString& text, bool severe);

  Workspace& workspace_;
  QTimer debounce_;
  bool filling_ = false;  // setForm in progress: field signals do not reschedule
  std::optional<Geometry> edited_;
  std::optional<Geometry> perView_;  // the imported or loaded list when no builder made it
  QString formError_;

  std::vector<std::function<void(GeometryForm&)>> readers_;
  std::vector<std::function<void(const GeometryForm&)>> writers_;
  QComboBox* scanType_ = nullptr;
  QComboBox* sense_ = nullptr;
  QFormLayout* anglesLayout_ = nullptr;
  QGroupBox *orbitGroup_ = nullptr, *anglesGroup_ = nullptr, *helicalGroup_ = nullptr,
            *detectorGroup_ = nullptr, *tiltGroup_ = nullptr, *perViewGroup_ = nullptr;
  QWidget *rangeField_ = nullptr, *extraField_ = nullptr, *turnsField_ = nullptr;
  QTableWidget* perViewTable_ = nullptr;
  QLabel* errorLabel_ = nullptr;
  QLabel* fovLabel_ = nullptr;
  QLabel* surfaceLabel_ = nullptr;                   // the detector surface, read only
  DetectorSurface surface_ = DetectorSurface::Flat;  // the form's, kept for form()
  QSlider* viewSlider_ = nullptr;
  QSpinBox* viewSpin_ = nullptr;
  QListWidget* warningList_ = nullptr;
  WeightProfileWidget* weights_ = nullptr;
  render::GeometryScene* scene_ = nullptr;
  QPushButton *applyButton_ = nullptr, *revertButton_ = nullptr;
  fdk::RedundancyMode chosenRedundancy_ = fdk::RedundancyMode::Auto;
};

}  // namespace tomowb::gui
