// SliceView: one orthogonal slice of a Volume (axial = normal z, coronal = normal y, sagittal =
// normal x) in a VtkOpenGLWidget, with the mouse and keys of reference/ux-and-robustness.md 1.1:
// left-drag = window/level (horizontal = width, vertical = level), right-drag or Ctrl+wheel =
// zoom, middle-drag or Shift+left-drag = pan, wheel, arrow keys and b/f = slice step, a click or
// Shift+move = crosshair, `r` = reset view, left-double-click = maximise/restore (a signal for the
// layout), Ctrl+left-double-click = reset W/L. Interaction is handled on Qt's events (modifiers,
// double clicks and keys arrive there complete) instead of a VTK interactor style.
// On top of the image: the crosshair, a scale bar, overlay text (slice index and position in mm,
// W/L, the voxel value and position under the cursor), circle / rectangle ROIs for
// contrast-to-noise measurements (SliceRoi.h) each labelled with its statistics (mean, SD, area:
// recon/metrics/PlanarRoi), rulers labelled with their length, and the line of the line profile.
// The drawing tools (ROI, ruler, profile) go back to window/level after one shape unless Shift
// is held when the button is released; Escape disarms them, Delete removes the selected shape.
// Live previews of a running reconstruction swap the voxel array of the existing pipeline
// (setVolume(..., keepViewState = true)): no rebuild, and zoom, slice and W/L stay as the user
// left them.
#pragma once

#include <vtkSmartPointer.h>

#include <Eigen/Core>
#include <QString>
#include <map>
#include <memory>
#include <optional>
#include <vector>

#include "recon/core/DisplayUnits.h"
#include "recon/core/Volume.h"
#include "render/ColourMaps.h"
#include "render/SliceRoi.h"
#include "render/VtkOpenGLWidget.h"
#include "render/WindowLevel.h"

class vtkActor;
class vtkActor2D;
class vtkImageData;
class vtkImageProperty;
class vtkImageSlice;
class vtkImageSliceMapper;
class vtkLookupTable;
class vtkPolyData;
class vtkTextActor;

namespace tomowb::render {

class SliceView : public VtkOpenGLWidget {
  Q_OBJECT

 public:
  // The value is the world axis normal to the slice.
  enum class Axis { Sagittal = 0, Coronal = 1, Axial = 2 };
  // What a left-drag draws (None: it changes window/level).
  enum class RoiTool { None, Circle, Rectangle, Ruler, Profile };

  explicit SliceView(Axis axis = Axis::Axial, QWidget* parent = nullptr);
  ~SliceView() override;

  Axis axis() const noexcept { return axis_; }
  int axisIndex() const noexcept { return static_cast<int>(axis_); }
  static QString axisName(Axis axis);  // "Axial", "Coronal", "Sagittal"

  // Shows `volume` (nullptr clears the view). keepViewState = false: middle slice, fitted view,
  // default W/L (0.1-99.9 %). keepViewState = true (live previews): slice, zoom, pan and W/L stay;
  // a volume on the same grid only swaps the voxel array. `defaultWindowLevel`, when given, saves
  // the percentile pass (OrthoViews computes it once for its three views).
  void setVolume(std::shared_ptr<const Volume> volume, bool keepViewState = false,
                 std::optional<WindowLevel> defaultWindowLevel = std::nullopt);
  const std::shared_ptr<const Volume>& volume() const noexcept { return volume_; }

  // --- slices ---
  int slice() const noexcept { return slice_; }
  int sliceCount() const noexcept;
  void setSlice(int index);  // clamped to 0..sliceCount()-1; emits sliceChanged when it changes
  void stepSlice(int delta) { setSlice(slice_ + delta); }
  double slicePositionMm() const noexcept;  // world coordinate of the slice along the axis
  void setSlicePositionMm(double mm);       // the nearest slice

  // --- window/level and colour ---
  WindowLevel windowLevel() const noexcept { return windowLevel_; }
  // Emits windowLevelChanged when it changes. A window <= 0 is replaced by a tiny positive one.
  void setWindowLevel(double window, double level);
  void setWindowLevel(const WindowLevel& wl) { setWindowLevel(wl.window, wl.level); }
  // What Ctrl+left-double-click restores; by default the 0.1-99.9 % percentile of the volume.
  void setDefaultWindowLevel(const WindowLevel& wl) {
    defaultWindowLevel_ = wl;
    defaultWindowLevelFromUser_ = true;
  }
  WindowLevel defaultWindowLevel();
  void resetWindowLevel() { setWindowLevel(defaultWindowLevel()); }
  ColourMap colourMap() const noexcept { return colourMap_; }
  void setColourMap(ColourMap map);

  // --- crosshair (the linked cursor point of OrthoViews) ---
  Eigen::Vector3d crosshair() const noexcept { return crosshair_; }
  void setCrosshair(const Eigen::Vector3d& worldMm);  // draws it; does not change the slice
  void setCrosshairVisible(bool visible);

  // --- camera ---
  void resetView();  // fit the slice to the widget
  // 1 = fitted; 2 = twice as large.
  double zoomFactor() const;
  void setZoomFactor(double factor);
  // World point shown at the centre of the widget (its coordinate along the axis is meaningless).
  Eigen::Vector3d viewCentreMm() const;
  void panByMm(const Eigen::Vector3d& worldDeltaMm);
  // Image row 0 at the top (projections, sinograms) instead of +y up. Axial views only.
  void setRowsDown(bool rowsDown);
  // First line of the overlay (the volume's name, "projection 12").
  void setTitle(const QString& title);
  void setShowSliceInfo(bool show);
  // How lengths (scale bar, positions), values (cursor, W/L) and the view's name read: mm and
  // native values by default, nm and "XY" for a tomogram, HU where the data allow it.
  void setDisplayUnits(const DisplayUnits& units);
  const DisplayUnits& displayUnits() const noexcept { return units_; }
  // The view's name in these units ("Axial", or "XY" for a tomogram).
  QString viewName() const;

  // --- coordinates and values ---
  // World point (mm) on the current slice under a widget position (logical pixels).
  Eigen::Vector3d worldAt(const QPointF& widgetPosition) const;
  // Widget position (logical pixels, centre of the pixel) of a world point projected on the view.
  QPointF widgetPositionOf(const Eigen::Vector3d& worldMm) const;
  // Nearest voxel's value; NaN outside the volume.
  float valueAt(const Eigen::Vector3d& worldMm) const;

  // --- ROIs, rulers and the profile line ---
  // Arms a drawing tool; emits roiToolChanged when it changes.
  void setRoiTool(RoiTool tool);
  RoiTool roiTool() const noexcept { return roiTool_; }
  void setNewRoiRole(SliceRoi::Role role) { newRoiRole_ = role; }
  std::vector<SliceRoi> rois() const { return rois_; }
  // Replaces the list (ROIs of another axis are kept but never shown here). Emits roisChanged.
  void setRois(std::vector<SliceRoi> rois);
  // The selected ROI, ruler or profile line (ids are unique among all of them), or -1.
  int selectedRoi() const noexcept { return selectedRoi_; }
  void selectRoi(int id);
  void setRoiRole(int id, SliceRoi::Role role);
  void deleteSelectedRoi() { deleteMeasurement(selectedRoi_); }
  // Deletes the ROI, ruler or profile line `id`; false when this view has none of that id.
  bool deleteMeasurement(int id);
  // Deletes every ROI, ruler and the profile line (new data: nothing measured on the old data
  // stays). Emits what changed.
  void clearMeasurements();
  std::vector<SliceLine> rulers() const { return rulers_; }
  // Replaces the rulers (lines of another axis are kept but never shown). Emits rulersChanged.
  void setRulers(std::vector<SliceLine> rulers);
  // The line of the line profile (one per view at most); emits profileLineChanged.
  const std::optional<SliceLine>& profileLine() const noexcept { return profileLine_; }
  void setProfileLine(std::optional<SliceLine> line);
  // The label drawn beside ROI or ruler `id`: "ROI 1  0.7043 ± 0.0121\n123.4 mm²" (mean ± SD of
  // the current volume, area), "Ruler 2  12.35 mm"; empty for an unknown id.
  QString overlayText(int id) const;

  bool exportScreenshot(const QString& path);

 signals:
  // The point under the mouse and its voxel value (NaN outside the volume).
  void cursorMoved(Eigen::Vector3d worldMm, float value);
  void sliceChanged(int index);
  void windowLevelChanged(double window, double level);
  // The user placed the crosshair (click or Shift+move).
  void crosshairMoved(Eigen::Vector3d worldMm);
  // Left double-click: the layout should maximise or restore this view.
  void maximiseToggleRequested();
  void roisChanged();
  void rulersChanged();
  void profileLineChanged();
  void roiSelected(int id);
  // The drawing tool changed (setRoiTool, or back to None after one shape or on Escape).
  void roiToolChanged(tomowb::render::SliceView::RoiTool tool);
  void colourMapChanged(tomowb::render::ColourMap map);

 protected:
  void resizeGL(int width, int height) override;
  void mousePressEvent(QMouseEvent* event) override;
  void mouseReleaseEvent(QMouseEvent* event) override;
  void mouseMoveEvent(QMouseEvent* event) override;
  void mouseDoubleClickEvent(QMouseEvent* event) override;
  void wheelEvent(QWheelEvent* event) override;
  void keyPressEvent(QKeyEvent* event) override;
  void keyReleaseEvent(QKeyEvent* event) override;
  void leaveEvent(QEvent* event) override;

 private:
  enum class Drag { None, WindowLevel, Pan, Zoom, DrawRoi };

  void buildPipeline();
  void applySlice();
  void applyWindowLevel();
  void setupCamera(const Eigen::Vector3d& focal, double parallelScale);
  double fittedParallelScale() const;
  double worldPerPixel() const;  // mm per logical pixel
  void updateCrosshair();
  void updateRois();
  void updateMeasurementTexts();  // the ROIs' statistics and the rulers' lengths, for labels
  void updateScaleBar();
  void updateText();
  void updateCursorText(const Eigen::Vector3d& worldMm, float value);
  bool roiVisibleHere(const SliceRoi& roi) const;
  int roiAt(const Eigen::Vector3d& worldMm) const;
  Eigen::Vector2d inPlane(const Eigen::Vector3d& worldMm) const;
  // Adds the shape drawn from the press to `endMm`; false when it was too small to be meant.
  bool finishRoi(const Eigen::Vector3d& endMm);
  std::optional<SliceRoi> draftRoi(const Eigen::Vector3d& endMm) const;
  std::optional<SliceLine> draftLine(const Eigen::Vector3d& endMm) const;
  bool lineVisibleHere(const SliceLine& line) const;
  void emitCursor(const QPointF& position);

  Axis axis_;
  std::shared_ptr<const Volume> volume_;
  vtkSmartPointer<vtkImageData> image_;  // the shown slice only (copySliceInto)
  vtkSmartPointer<vtkImageSliceMapper> mapper_;
  vtkSmartPointer<vtkImageSlice> imageSlice_;
  vtkSmartPointer<vtkImageProperty> imageProperty_;
  vtkSmartPointer<vtkLookupTable> lookupTable_;
  vtkSmartPointer<vtkRenderer> overlay_;  // layer 1: crosshair and ROIs, never hidden by the image
  vtkSmartPointer<vtkPolyData> crosshairLines_;
  vtkSmartPointer<vtkActor> crosshairActor_;
  vtkSmartPointer<vtkPolyData> roiLines_;
  vtkSmartPointer<vtkActor> roiActor_;
  std::vector<vtkSmartPointer<vtkTextActor>> roiLabels_;
  vtkSmartPointer<vtkPolyData> scaleBarLines_;
  vtkSmartPointer<vtkActor2D> scaleBarActor_;
  vtkSmartPointer<vtkTextActor> scaleBarText_;
  vtkSmartPointer<vtkTextActor> infoText_;
  vtkSmartPointer<vtkTextActor> cursorText_;

  int slice_ = 0;
  WindowLevel windowLevel_;
  std::optional<WindowLevel> defaultWindowLevel_;
  bool defaultWindowLevelFromUser_ = false;
  ColourMap colourMap_ = ColourMap::Grey;
  Eigen::Vector3d crosshair_ = Eigen::Vector3d::Zero();
  bool crosshairVisible_ = true;
  bool rowsDown_ = false;
  bool showSliceInfo_ = true;
  bool cameraTouched_ = false;  // the user zoomed or panned: resizes no longer refit
  QString title_;
  DisplayUnits units_;
  // Camera frame: right and up on screen, and towards the viewer.
  Eigen::Vector3d right_, up_, towards_;

  Drag drag_ = Drag::None;
  Qt::MouseButton dragButton_ = Qt::NoButton;
  QPointF pressPosition_;
  bool dragMoved_ = false;
  WindowLevel pressWindowLevel_;
  double pressParallelScale_ = 1.0;
  Eigen::Vector3d pressFocal_ = Eigen::Vector3d::Zero();
  Eigen::Vector3d pressWorld_ = Eigen::Vector3d::Zero();
  Eigen::Vector3d dragWorld_ = Eigen::Vector3d::Zero();

  RoiTool roiTool_ = RoiTool::None;
  SliceRoi::Role newRoiRole_ = SliceRoi::Signal;
  std::vector<SliceRoi> rois_;
  std::vector<SliceLine> rulers_;
  std::optional<SliceLine> profileLine_;
  std::map<int, QString> overlayTexts_;  // by id: what updateMeasurementTexts computed
  int selectedRoi_ = -1;
};

}  // namespace tomowb::render
