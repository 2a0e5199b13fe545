// CompareSliceView: a SliceView for the compare view (issue #9) with what A/B QA adds to a slice:
// a second volume (B) drawn over the right part of the image beyond a draggable vertical divider
// (the swipe mode: A left, B right, on one grid), a blue-white-red difference colour map with
// white at 0 (in place of the view's colour map, for A - B), a line drawn over the slice (the
// line profile) and a line tool that draws one with the left button. It tells its owner when the
// user moved the camera (zoom, pan, reset), so that linked views follow; the rest of the mouse and
// keys are SliceView's (reference/ux-and-robustness.md 1.1).
// The extra image and the lines sit a fraction of a voxel in front of the slice towards the
// camera, so they hide the image below them without touching SliceView's own pipeline.
#pragma once

#include <vtkSmartPointer.h>

#include <Eigen/Core>
#include <memory>
#include <optional>
#include <utility>

#include "render/SliceView.h"

class vtkActor;
class vtkImageData;
class vtkImageProperty;
class vtkImageSlice;
class vtkImageSliceMapper;
class vtkLookupTable;
class vtkPolyData;
class vtkTextActor;

namespace tomowb::render {

// 256 entries over [lower, upper]: blue at lower, white at the middle, red at upper.
vtkSmartPointer<vtkLookupTable> makeDifferenceLookupTable(double lower, double upper);

class CompareSliceView : public SliceView {
  Q_OBJECT

 public:
  using Line = std::pair<Eigen::Vector3d, Eigen::Vector3d>;  // world mm

  explicit CompareSliceView(Axis axis = Axis::Axial, QWidget* parent = nullptr);
  ~CompareSliceView() override;

  // The world axis that runs left to right on screen (x for axial and coronal, y for sagittal).
  int rightAxis() const noexcept { return axis() == Axis::Sagittal ? 1 : 0; }
  // The world axis that runs upwards on screen (y for axial, z for coronal and sagittal).
  int upAxis() const noexcept { return axis() == Axis::Axial ? 1 : 2; }

  // Blue-white-red for A - B instead of the colour map (it follows the window as any map).
  void useDifferenceColours();

  // Swipe: `volume` (same grid as the view's volume) right of the divider; nullptr ends it.
  void setSwipeVolume(std::shared_ptr<const Volume> volume);
  bool swiping() const noexcept { return static_cast<bool>(swipeVolume_); }
  // World coordinate of the divider along rightAxis(); the voxels whose centres lie at or right
  // of it show the swipe volume.
  void setDividerMm(double mm);
  double dividerMm() const noexcept { return dividerMm_; }
  // The first column (index along rightAxis()) shown from the swipe volume.
  int firstSwipeColumn() const;
  void setSwipeLabels(const QString& left, const QString& right);

  // A line over the slice (the profile), drawn on whatever slice is shown; nullopt hides it.
  void setLine(const std::optional<Line>& line);
  // On: a left-drag draws a line (lineDrawn at release) instead of changing window/level.
  void setLineTool(bool on);
  bool lineTool() const noexcept { return lineTool_; }

 signals:
  void dividerMoved(double mm);
  void lineDrawn(Eigen::Vector3d from, Eigen::Vector3d to);
  // The user zoomed, panned or reset this view: linked views copy its camera.
  void cameraChangedByUser();
  void viewResetByUser();

 protected:
  void mousePressEvent(QMouseEvent* event) override;
  void mouseMoveEvent(QMouseEvent* event) override;
  void mouseReleaseEvent(QMouseEvent* event) override;
  void wheelEvent(QWheelEvent* event) override;
  void keyPressEvent(QKeyEvent* event) override;

 private:
  enum class Drag { None, Divider, Line };

  void syncSwipeSlice();
  void syncSwipeWindow();
  void updateCropping();
  void updateDivider();
  void updateLineActor();
  double frontOffsetMm(double fraction) const;
  bool nearDivider(const QPointF& position) const;
  void noteCamera();
  bool cameraMovedSinceNoted() const;

  vtkImageSlice* baseSlice_ = nullptr;  // SliceView's image, for the difference colours
  vtkSmartPointer<vtkLookupTable> differenceTable_;

  std::shared_ptr<const Volume> swipeVolume_;
  vtkSmartPointer<vtkImageData> swipeImage_;
  vtkSmartPointer<vtkImageSliceMapper> swipeMapper_;
  vtkSmartPointer<vtkImageSlice> swipeSlice_;
  vtkSmartPointer<vtkImageProperty> swipeProperty_;
  vtkSmartPointer<vtkLookupTable> swipeTable_;
  double dividerMm_ = 0.0;
  vtkSmartPointer<vtkPolyData> dividerLine_;
  vtkSmartPointer<vtkActor> dividerActor_;
  vtkSmartPointer<vtkTextActor> dividerText_;
  QString leftLabel_ = QStringLiteral("A"), rightLabel_ = QStringLiteral("B");

  std::optional<Line> line_;
  vtkSmartPointer<vtkPolyData> lineData_;
  vtkSmartPointer<vtkActor> lineActor_;
  bool lineTool_ = false;

  Drag drag_ = Drag::None;
  Eigen::Vector3d lineStart_ = Eigen::Vector3d::Zero();
  Eigen::Vector3d notedFocal_ = Eigen::Vector3d::Zero();
  double notedScale_ = 0.0;
};

}  // namespace tomowb::render
