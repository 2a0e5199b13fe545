// ProjectionBrowser: scrub through the projections of the loaded data (slider and spin box over
// the views) beside the sinogram of one detector row, as Mantid Imaging's recon window shows
// projection | sinogram (reference/ux-and-robustness.md 1.4). Both are render::ProjectionView
// (slice views on nz = 1 images: W/L drag, zoom, pan, value under the cursor). "Auto W/L" gives
// each projection its own 0.1-99.9 % window; off, the window stays as the user left it. The row
// of the sinogram is marked nowhere else yet; pick it with its spin box. For a tilt series the
// tilt angle of the view shown is given beside the view number (read from the views' ray
// directions, gui/core/TiltAngles.h), and the sinogram is then rows x tilts.
#pragma once

#include <QWidget>
#include <memory>
#include <optional>
#include <vector>

#include "recon/data/ProjectionStack.h"

class QCheckBox;
class QLabel;
class QSlider;
class QSpinBox;

namespace tomowb::render {
class ProjectionView;
}

namespace tomowb::gui {

class ProjectionBrowser : public QWidget {
  Q_OBJECT

 public:
  explicit ProjectionBrowser(QWidget* parent = nullptr);

  // nullptr clears both views.
  void setProjections(std::shared_ptr<const ProjectionStack> projections);
  const std::shared_ptr<const ProjectionStack>& projections() const { return projections_; }

  void setView(int view);  // the projection shown (clamped)
  int view() const;
  void setSinogramRow(int row);  // the detector row of the sinogram (clamped)
  int sinogramRow() const;
  void setAutoWindowLevel(bool automatic);
  // Tilt series: the tilt angle of a view in degrees (nullopt for other data or a bad index),
  // and the text shown for the current view ("tilt +12.0°", empty for other data).
  std::optional<double> tiltAngleDeg(int view) const;
  QString tiltText() const;

  render::ProjectionView& projectionView() { return *projection_; }
  render::ProjectionView& sinogramView() { return *sinogram_; }

 signals:
  void viewChanged(int view);
  // Value under the cursor, for the status bar.
  void cursorInfo(const QString& text);

 private:
  void updateControls();

  std::shared_ptr<const ProjectionStack> projections_;
  render::ProjectionView* projection_ = nullptr;
  render::ProjectionView* sinogram_ = nullptr;
  QSlider* viewSlider_ = nullptr;
  QSpinBox* viewSpin_ = nullptr;
  QSpinBox* rowSpin_ = nullptr;
  QCheckBox* autoWindowLevel_ = nullptr;
  QLabel* info_ = nullptr;
  QLabel* tilt_ = nullptr;
  std::vector<double> tiltsDeg_;  // per view, for a tilt series; else empty
};

}  // namespace tomowb::gui
