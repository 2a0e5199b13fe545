// CompareSliceView: see the header. SliceView keeps its pipeline private; this view finds its image
// prop in the renderer (the only vtkImageSlice there when the constructor runs) to swap in the
// difference colours, and adds its own props beside it.
#include "render/CompareSliceView.h"

#include <vtkActor.h>
#include <vtkCamera.h>
#include <vtkCellArray.h>
#include <vtkCoordinate.h>
#include <vtkImageData.h>
#include <vtkImageProperty.h>
#include <vtkImageSlice.h>
#include <vtkImageSliceMapper.h>
#include <vtkLookupTable.h>
#include <vtkPoints.h>
#include <vtkPolyData.h>
#include <vtkPolyDataMapper.h>
#include <vtkProp.h>
#include <vtkPropCollection.h>
#include <vtkProperty.h>
#include <vtkRenderer.h>
#include <vtkTextActor.h>
#include <vtkTextProperty.h>

#include <QKeyEvent>
#include <QMouseEvent>
#include <QWheelEvent>
#include <algorithm>
#include <cmath>

#include "render/ColourMaps.h"
#include "render/VolumeImage.h"

namespace tomowb::render {

namespace {

constexpr double kDividerGrabPx = 6.0;  // a press this close to the divider drags it
// In front of the slice, in voxels along the view direction: the swipe image, then the lines.
constexpr double kSwipeOffsetVoxels = 0.2;
constexpr double kLineOffsetVoxels = 0.4;

}  // namespace

vtkSmartPointer<vtkLookupTable> makeDifferenceLookupTable(double lower, double upper) {
  // Blue (negative) through white (0) to red (positive), Moreland's end colours.
  constexpr double kBlue[3] = {0.230, 0.299, 0.754};
  constexpr double kRed[3] = {0.706, 0.016, 0.150};
  constexpr int kEntries = 256;
  auto table = vtkSmartPointer<vtkLookupTable>::New();
  table->SetNumberOfTableValues(kEntries);
  table->SetRange(lower, upper > lower ? upper : lower + 1.0);
  for (int i = 0; i < kEntries; ++i) {
    const double t = static_cast<double>(i) / (kEntries - 1);
    const double* end = t < 0.5 ? kBlue : kRed;
    const double w = std::abs(t - 0.5) * 2.0;  // 0 at the centre, 1 at the ends
    table->SetTableValue(i, 1.0 + w * (end[0] - 1.0), 1.0 + w * (end[1] - 1.0),
                         1.0 + w * (end[2] - 1.0), 1.0);
  }
  return table;
}

CompareSliceView::CompareSliceView(Axis axis, QWidget* parent) : SliceView(axis, parent) {
  vtkPropCollection* props = renderer()->GetViewProps();
  props->InitTraversal();
  for (vtkProp* prop = props->GetNextProp(); prop != nullptr; prop = props->GetNextProp())
    if (auto* image = vtkImageSlice::SafeDownCast(prop)) {
      baseSlice_ = image;
      break;
    }

  auto addLines = [this](vtkSmartPointer<vtkPolyData>& data, vtkSmartPointer<vtkActor>& actor) {
    data = vtkSmartPointer<vtkPolyData>::New();
    data->SetPoints(vtkSmartPointer<vtkPoints>::New());
    data->SetLines(vtkSmartPointer<vtkCellArray>::New());
    vtkNew<vtkPolyDataMapper> mapper;
    mapper->SetInputData(data);
    actor = vtkSmartPointer<vtkActor>::New();
    actor->SetMapper(mapper);
    actor->GetProperty()->SetLighting(false);
    actor->GetProperty()->SetLineWidth(2.5);
    actor->VisibilityOff();
    renderer()->AddActor(actor);
  };
  addLines(dividerLine_, dividerActor_);
  dividerActor_->GetProperty()->SetColor(1.0, 1.0, 1.0);
  addLines(lineData_, lineActor_);
  lineActor_->GetProperty()->SetColor(0.2, 1.0, 0.4);

  dividerText_ = vtkSmartPointer<vtkTextActor>::New();
  dividerText_->GetPositionCoordinate()->SetCoordinateSystemToWorld();
  vtkTextProperty* text = dividerText_->GetTextProperty();
  text->SetFontSize(14);
  text->SetBold(1);
  text->SetShadow(1);
  text->SetColor(1.0, 1.0, 1.0);
  text->SetJustificationToCentered();
  text->SetVerticalJustificationToTop();  // below the volume, clear of the overlay text
  dividerText_->VisibilityOff();
  renderer()->AddActor2D(dividerText_);

  swipeMapper_ = vtkSmartPointer<vtkImageSliceMapper>::New();
  swipeMapper_->SetOrientation(axisIndex());
  swipeMapper_->SliceAtFocalPointOff();
  swipeMapper_->SliceFacesCameraOff();
  swipeMapper_->BorderOn();
  swipeMapper_->CroppingOn();
  swipeTable_ = makeLookupTable(colourMap(), 0.0, 1.0);
  swipeProperty_ = vtkSmartPointer<vtkImageProperty>::New();
  swipeProperty_->SetLookupTable(swipeTable_);
  swipeProperty_->UseLookupTableScalarRangeOff();
  swipeProperty_->SetInterpolationTypeToNearest();
  swipeSlice_ = vtkSmartPointer<vtkImageSlice>::New();
  swipeSlice_->SetMapper(swipeMapper_);
  swipeSlice_->SetProperty(swipeProperty_);
  swipeSlice_->VisibilityOff();
  renderer()->AddViewProp(swipeSlice_);

  connect(this, &SliceView::sliceChanged, this, [this] {
    syncSwipeSlice();
    updateDivider();
    updateLineActor();
  });
  connect(this, &SliceView::windowLevelChanged, this, [this] { syncSwipeWindow(); });
  connect(this, &SliceView::colourMapChanged, this, [this](ColourMap map) {
    fillLookupTable(swipeTable_, map, 0.0, 1.0);
    swipeProperty_->Modified();
    requestRender();
  });
}

CompareSliceView::~CompareSliceView() = default;

void CompareSliceView::useDifferenceColours() {
  if (baseSlice_ == nullptr) return;
  differenceTable_ = makeDifferenceLookupTable(0.0, 1.0);
  baseSlice_->GetProperty()->SetLookupTable(differenceTable_);
  baseSlice_->GetProperty()->Modified();
  requestRender();
}

double CompareSliceView::frontOffsetMm(double fraction) const {
  return volume() ? fraction * volume()->voxelSizeMm()[axisIndex()] : 0.0;
}

// --- swipe --------------------------------------------------------------------------------------

void CompareSliceView::setSwipeVolume(std::shared_ptr<const Volume> volume) {
  if (volume && this->volume() && volume->shape() != this->volume()->shape()) volume.reset();
  swipeVolume_ = std::move(volume);
  if (!swipeVolume_) {
    swipeMapper_->RemoveAllInputs();
    swipeImage_ = nullptr;
    swipeSlice_->VisibilityOff();
    dividerActor_->VisibilityOff();
    dividerText_->VisibilityOff();
    requestRender();
    return;
  }
  if (swipeImage_ && sameGrid(swipeImage_, *swipeVolume_)) {
    swapImageVoxels(swipeImage_, swipeVolume_);
  } else {
    swipeImage_ = makeImageData(swipeVolume_);
    swipeMapper_->SetInputData(swipeImage_);
    // The divider starts in the middle of the volume.
    const Volume& v = *swipeVolume_;
    const int a = rightAxis();
    const std::int64_t n[3] = {v.nx(), v.ny(), v.nz()};
    dividerMm_ = v.originMm()[a] + 0.5 * (n[a] - 1) * v.voxelSizeMm()[a];
  }
  // In front of the view's own image, towards the camera.
  double direction[3];
  renderer()->GetActiveCamera()->GetDirectionOfProjection(direction);
  const double offset = -frontOffsetMm(kSwipeOffsetVoxels);
  swipeSlice_->SetPosition(offset * direction[0], offset * direction[1], offset * direction[2]);
  swipeSlice_->VisibilityOn();
  syncSwipeSlice();
  syncSwipeWindow();
  fillLookupTable(swipeTable_, colourMap(), 0.0, 1.0);
  updateCropping();
  updateDivider();
  requestRender();
}

void CompareSliceView::setDividerMm(double mm) {
  if (!std::isfinite(mm)) return;
  dividerMm_ = mm;
  updateCropping();
  updateDivider();
  requestRender();
}

int CompareSliceView::firstSwipeColumn() const {
  const std::shared_ptr<const Volume>& v = swipeVolume_ ? swipeVolume_ : volume();
  if (!v) return 0;
  const int a = rightAxis();
  const std::int64_t n[3] = {v->nx(), v->ny(), v->nz()};
  const double index = (dividerMm_ - v->originMm()[a]) / v->voxelSizeMm()[a];
  return static_cast<int>(std::clamp<double>(std::ceil(index - 1e-9), 0.0, double(n[a])));
}

void CompareSliceView::setSwipeLabels(const QString& left, const QString& right) {
  leftLabel_ = left;
  rightLabel_ = right;
  updateDivider();
  requestRender();
}

void CompareSliceView::syncSwipeSlice() {
  if (swipeVolume_) swipeMapper_->SetSliceNumber(slice());
}

void CompareSliceView::syncSwipeWindow() {
  const WindowLevel wl = windowLevel();
  swipeProperty_->SetColorWindow(wl.window);
  swipeProperty_->SetColorLevel(wl.level);
  requestRender();
}

void CompareSliceView::updateCropping() {
  if (!swipeVolume_) return;
  const Volume& v = *swipeVolume_;
  int region[6] = {0, static_cast<int>(v.nx() - 1), 0, static_cast<int>(v.ny() - 1),
                   0, static_cast<int>(v.nz() - 1)};
  const int first = firstSwipeColumn();
  const int a = rightAxis();
  if (first > region[2 * a + 1]) {
    swipeSlice_->VisibilityOff();  // the divider is right of the volume: all A
    return;
  }
  region[2 * a] = first;
  swipeMapper_->SetCroppingRegion(region);
  swipeSlice_->VisibilityOn();
}

void CompareSliceView::updateDivider() {
  vtkPoints* points = dividerLine_->GetPoints();
  points->Reset();
  vtkNew<vtkCellArray> lines;
  const bool show = swipeVolume_ && volume();
  if (show) {
    const Volume& v = *volume();
    const int up = upAxis();
    const Eigen::Vector3d lo = v.originMm() - 0.5 * v.voxelSizeMm();
    const Eigen::Vector3d hi = v.worldPosition(v.nx() - 0.5, v.ny() - 0.5, v.nz() - 0.5);
    double direction[3];
    renderer()->GetActiveCamera()->GetDirectionOfProjection(direction);
    Eigen::Vector3d at = Eigen::Vector3d::Zero();
    at[axisIndex()] = slicePositionMm();
    at -= Eigen::Vector3d(direction[0], direction[1], direction[2]) *
          frontOffsetMm(kLineOffsetVoxels);
    // The divider sits on the edge between the last A column and the first B column.
    const double edge =
        v.originMm()[rightAxis()] + (firstSwipeColumn() - 0.5) * v.voxelSizeMm()[rightAxis()];
    at[rightAxis()] = edge;
    Eigen::Vector3d from = at, to = at;  // from the bottom edge of the volume to its top
    from[up] = lo[up];
    to[up] = hi[up];
    const vtkIdType ids[2] = {points->InsertNextPoint(from.data()),
                              points->InsertNextPoint(to.data())};
    lines->InsertNextCell(2, ids);
    dividerText_->GetPositionCoordinate()->SetValue(from.data());
    dividerText_->SetInput(
        QStringLiteral("%1 | %2").arg(leftLabel_, rightLabel_).toUtf8().constData());
  }
  dividerLine_->SetLines(lines);
  points->Modified();
  dividerLine_->Modified();
  dividerActor_->SetVisibility(show);
  dividerText_->SetVisibility(show);
}

bool CompareSliceView::nearDivider(const QPointF& position) const {
  if (!swipeVolume_ || !volume()) return false;
  const Volume& v = *volume();
  Eigen::Vector3d at = crosshair();
  at[rightAxis()] =
      v.originMm()[rightAxis()] + (firstSwipeColumn() - 0.5) * v.voxelSizeMm()[rightAxis()];
  return std::abs(widgetPositionOf(at).x() - position.x()) <= kDividerGrabPx;
}

// --- line ---------------------------------------------------------------------------------------

void CompareSliceView::setLine(const std::optional<Line>& line) {
  line_ = line;
  updateLineActor();
  requestRender();
}

void CompareSliceView::setLineTool(bool on) {
  lineTool_ = on;
  setCursor(on ? Qt::CrossCursor : Qt::ArrowCursor);
}

void CompareSliceView::updateLineActor() {
  vtkPoints* points = lineData_->GetPoints();
  points->Reset();
  vtkNew<vtkCellArray> lines;
  const bool show = line_.has_value() && volume();
  if (show) {
    double direction[3];
    renderer()->GetActiveCamera()->GetDirectionOfProjection(direction);
    const Eigen::Vector3d offset = -Eigen::Vector3d(direction[0], direction[1], direction[2]) *
                                   frontOffsetMm(kLineOffsetVoxels);
    Eigen::Vector3d from = line_->first, to = line_->second;
    from[axisIndex()] = to[axisIndex()] = slicePositionMm();
    from += offset;
    to += offset;
    const vtkIdType ids[2] = {points->InsertNextPoint(from.data()),
                              points->InsertNextPoint(to.data())};
    lines->InsertNextCell(2, ids);
  }
  lineData_->SetLines(lines);
  points->Modified();
  lineData_->Modified();
  lineActor_->SetVisibility(show);
}

// --- interaction --------------------------------------------------------------------------------

void CompareSliceView::noteCamera() {
  vtkCamera* camera = renderer()->GetActiveCamera();
  notedFocal_ = Eigen::Vector3d(camera->GetFocalPoint());
  notedScale_ = camera->GetParallelScale();
}

bool CompareSliceView::cameraMovedSinceNoted() const {
  vtkCamera* camera = renderer()->GetActiveCamera();
  return Eigen::Vector3d(camera->GetFocalPoint()) != notedFocal_ ||
         camera->GetParallelScale() != notedScale_;
}

void CompareSliceView::mousePressEvent(QMouseEvent* event) {
  if (event->button() == Qt::LeftButton && !(event->modifiers() & Qt::ShiftModifier) && volume()) {
    if (nearDivider(event->position())) {
      setFocus(Qt::MouseFocusReason);
      drag_ = Drag::Divider;
      event->accept();
      return;
    }
    if (lineTool_) {
      setFocus(Qt::MouseFocusReason);
      drag_ = Drag::Line;
      lineStart_ = worldAt(event->position());
      event->accept();
      return;
    }
  }
  noteCamera();
  SliceView::mousePressEvent(event);
}

void CompareSliceView::mouseMoveEvent(QMouseEvent* event) {
  const QPointF position = event->position();
  switch (drag_) {
    case Drag::Divider: {
      setDividerMm(worldAt(position)[rightAxis()]);
      emit dividerMoved(dividerMm_);
      event->accept();
      return;
    }
    case Drag::Line:
      setLine(Line{lineStart_, worldAt(position)});
      event->accept();
      return;
    case Drag::None:
      break;
  }
  if (event->buttons() == Qt::NoButton && !lineTool_)
    setCursor(nearDivider(position) ? Qt::SplitHCursor : Qt::ArrowCursor);
  noteCamera();
  SliceView::mouseMoveEvent(event);
  if (cameraMovedSinceNoted()) {
    updateDivider();
    emit cameraChangedByUser();
  }
}

void CompareSliceView::mouseReleaseEvent(QMouseEvent* event) {
  if (drag_ == Drag::Line && event->button() == Qt::LeftButton) {
    drag_ = Drag::None;
    const Eigen::Vector3d end = worldAt(event->position());
    // A click without a drag draws nothing: the profile stays as it was.
    if ((widgetPositionOf(end) - widgetPositionOf(lineStart_)).manhattanLength() > 3.0) {
      setLine(Line{lineStart_, end});
      emit lineDrawn(lineStart_, end);
    }
    event->accept();
    return;
  }
  if (drag_ == Drag::Divider && event->button() == Qt::LeftButton) {
    drag_ = Drag::None;
    event->accept();
    return;
  }
  SliceView::mouseReleaseEvent(event);
}

void CompareSliceView::wheelEvent(QWheelEvent* event) {
  noteCamera();
  SliceView::wheelEvent(event);
  if (cameraMovedSinceNoted()) emit cameraChangedByUser();
}

void CompareSliceView::keyPressEvent(QKeyEvent* event) {
  noteCamera();
  SliceView::keyPressEvent(event);
  if (event->key() == Qt::Key_R && !(event->modifiers() & Qt::ControlModifier))
    emit viewResetByUser();
  else if (cameraMovedSinceNoted())
    emit cameraChangedByUser();
}

}  // namespace tomowb::render
