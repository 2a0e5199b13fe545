// SliceView: see the header. The image and the overlays share one camera; the overlays sit in a
// second renderer on layer 1 so that the crosshair and ROI outlines drawn in the slice plane are
// never hidden by the image (no depth fight, no offset along the normal).
#include "render/SliceView.h"

#include <vtkActor.h>
#include <vtkActor2D.h>
#include <vtkCamera.h>
#include <vtkCellArray.h>
#include <vtkCellData.h>
#include <vtkCoordinate.h>
#include <vtkGenericOpenGLRenderWindow.h>
#include <vtkGenericRenderWindowInteractor.h>
#include <vtkImageData.h>
#include <vtkImageProperty.h>
#include <vtkImageSlice.h>
#include <vtkImageSliceMapper.h>
#include <vtkLookupTable.h>
#include <vtkPointData.h>
#include <vtkPoints.h>
#include <vtkPolyData.h>
#include <vtkPolyDataMapper.h>
#include <vtkPolyDataMapper2D.h>
#include <vtkProperty.h>
#include <vtkProperty2D.h>
#include <vtkRenderer.h>
#include <vtkTextActor.h>
#include <vtkTextProperty.h>
#include <vtkUnsignedCharArray.h>

#include <QKeyEvent>
#include <QMouseEvent>
#include <QWheelEvent>
#include <algorithm>
#include <cmath>
#include <limits>

#include "render/VolumeImage.h"

namespace tomowb::render {

namespace {

constexpr double kClickTolerancePx = 3.0;  // a press and release closer than this is a click
constexpr double kCrosshairGapPx = 8.0;    // gap around the crosshair point, screen pixels
constexpr double kWheelZoomStep = 1.1;     // Ctrl+wheel: per notch
constexpr double kDragZoomPerPx = 1.01;    // right-drag: per pixel upwards
constexpr int kCircleSegments = 72;
constexpr unsigned char kSignalColour[3] = {80, 230, 80};
constexpr unsigned char kBackgroundColour[3] = {80, 170, 255};
constexpr unsigned char kSelectedColour[3] = {255, 230, 40};
constexpr unsigned char kDraftColour[3] = {255, 255, 255};

// ROI ids are unique across all views of the process (GUI thread only).
int nextRoiId = 1;

QString roiLabel(const SliceRoi& roi) {
  return (roi.role == SliceRoi::Background ? QStringLiteral("BG %1") : QStringLiteral("ROI %1"))
      .arg(roi.id);
}

vtkSmartPointer<vtkTextActor> makeText(double x, double y, bool top, bool right) {
  auto text = vtkSmartPointer<vtkTextActor>::New();
  text->GetPositionCoordinate()->SetCoordinateSystemToNormalizedViewport();
  text->GetPositionCoordinate()->SetValue(x, y);
  vtkTextProperty* p = text->GetTextProperty();
  p->SetFontSize(13);
  p->SetColor(0.95, 0.95, 0.85);
  p->SetShadow(1);
  p->SetFontFamilyToCourier();
  if (top) p->SetVerticalJustificationToTop();
  if (right) p->SetJustificationToRight();
  return text;
}

// "1.5", "10", "0.25": a length without trailing zeros.
QString lengthText(double mm) {
  if (mm >= 1.0) return QString::number(mm, 'g', 6) + " mm";
  return QString::number(mm * 1000.0, 'g', 6) + QString::fromUtf8(" \u00b5m");
}

QString valueText(double v) {
  if (!std::isfinite(v)) return "-";
  return QString::number(v, 'g', 5);
}

}  // namespace

QString SliceView::axisName(Axis axis) {
  switch (axis) {
    case Axis::Axial:
      return "Axial";
    case Axis::Coronal:
      return "Coronal";
    case Axis::Sagittal:
      return "Sagittal";
  }
  return {};
}

SliceView::SliceView(Axis axis, QWidget* parent) : VtkOpenGLWidget(parent), axis_(axis) {
  // Interaction is ours (Qt events); no VTK style may act on forwarded events.
  interactor()->SetInteractorStyle(nullptr);
  buildPipeline();
  setRowsDown(false);
}

SliceView::~SliceView() = default;

void SliceView::buildPipeline() {
  renderer()->SetBackground(0.07, 0.07, 0.09);
  renderWindow()->SetNumberOfLayers(2);
  overlay_ = vtkSmartPointer<vtkRenderer>::New();
  overlay_->SetLayer(1);
  overlay_->InteractiveOff();
  overlay_->SetActiveCamera(renderer()->GetActiveCamera());
  renderWindow()->AddRenderer(overlay_);
  renderer()->GetActiveCamera()->ParallelProjectionOn();

  mapper_ = vtkSmartPointer<vtkImageSliceMapper>::New();
  mapper_->SetOrientation(axisIndex());
  mapper_->SliceAtFocalPointOff();
  mapper_->SliceFacesCameraOff();
  mapper_->BorderOn();  // voxels are squares centred on their positions, edges included
  lookupTable_ = makeLookupTable(colourMap_, 0.0, 1.0);
  imageProperty_ = vtkSmartPointer<vtkImageProperty>::New();
  imageProperty_->SetLookupTable(lookupTable_);
  imageProperty_->UseLookupTableScalarRangeOff();   // the range follows window/level
  imageProperty_->SetInterpolationTypeToNearest();  // QA wants to see voxels
  imageSlice_ = vtkSmartPointer<vtkImageSlice>::New();
  imageSlice_->SetMapper(mapper_);
  imageSlice_->SetProperty(imageProperty_);
  imageSlice_->VisibilityOff();
  renderer()->AddViewProp(imageSlice_);

  auto lineActor = [this](vtkSmartPointer<vtkPolyData>& lines, vtkSmartPointer<vtkActor>& actor) {
    lines = vtkSmartPointer<vtkPolyData>::New();
    lines->SetPoints(vtkSmartPointer<vtkPoints>::New());
    lines->SetLines(vtkSmartPointer<vtkCellArray>::New());
    vtkNew<vtkPolyDataMapper> m;
    m->SetInputData(lines);
    actor = vtkSmartPointer<vtkActor>::New();
    actor->SetMapper(m);
    actor->GetProperty()->SetLighting(false);
    overlay_->AddActor(actor);
  };
  lineActor(crosshairLines_, crosshairActor_);
  crosshairActor_->GetProperty()->SetColor(1.0, 0.8, 0.2);
  crosshairActor_->GetProperty()->SetOpacity(0.75);
  lineActor(roiLines_, roiActor_);
  roiActor_->GetProperty()->SetLineWidth(2.0);

  scaleBarLines_ = vtkSmartPointer<vtkPolyData>::New();
  scaleBarLines_->SetPoints(vtkSmartPointer<vtkPoints>::New());
  scaleBarLines_->SetLines(vtkSmartPointer<vtkCellArray>::New());
  vtkNew<vtkPolyDataMapper2D> barMapper;
  barMapper->SetInputData(scaleBarLines_);
  scaleBarActor_ = vtkSmartPointer<vtkActor2D>::New();
  scaleBarActor_->SetMapper(barMapper);
  scaleBarActor_->GetProperty()->SetColor(0.95, 0.95, 0.85);
  scaleBarActor_->GetProperty()->SetLineWidth(2.0);
  renderer()->AddActor2D(scaleBarActor_);
  scaleBarText_ = makeText(0.0, 0.0, false, false);
  scaleBarText_->GetTextProperty()->SetJustificationToCentered();
  scaleBarText_->GetPositionCoordinate()->SetCoordinateSystemToDisplay();
  renderer()->AddActor2D(scaleBarText_);
  infoText_ = makeText(0.01, 0.99, true, false);
  renderer()->AddActor2D(infoText_);
  cursorText_ = makeText(0.01, 0.01, false, false);
  renderer()->AddActor2D(cursorText_);
}

int SliceView::sliceCount() const noexcept {
  if (!volume_) return 0;
  const std::int64_t n[3] = {volume_->nx(), volume_->ny(), volume_->nz()};
  return static_cast<int>(n[axisIndex()]);
}

double SliceView::slicePositionMm() const noexcept {
  if (!volume_) return 0.0;
  return volume_->originMm()[axisIndex()] + slice_ * volume_->voxelSizeMm()[axisIndex()];
}

void SliceView::setSlicePositionMm(double mm) {
  if (!volume_) return;
  const int a = axisIndex();
  setSlice(
      static_cast<int>(std::lround((mm - volume_->originMm()[a]) / volume_->voxelSizeMm()[a])));
}

void SliceView::setVolume(std::shared_ptr<const Volume> volume, bool keepViewState,
                          std::optional<WindowLevel> defaultWindowLevel) {
  if (!volume || volume->empty()) {
    volume_.reset();
    image_ = nullptr;
    mapper_->RemoveAllInputs();
    imageSlice_->VisibilityOff();
    rois_.clear();
    updateCrosshair();
    updateRois();
    updateText();
    requestRender();
    return;
  }
  const bool hadVolume = static_cast<bool>(volume_);
  keepViewState = keepViewState && hadVolume;
  if (keepViewState && sameGrid(image_, *volume)) {
    // The live-preview path: same grid, new voxels. Nothing else changes.
    volume_ = volume;
    swapImageVoxels(image_, std::move(volume));
    if (!defaultWindowLevelFromUser_) defaultWindowLevel_ = defaultWindowLevel;  // or on demand
    updateText();
    requestRender();
    return;
  }
  volume_ = volume;
  image_ = makeImageData(volume_);
  mapper_->SetInputData(image_);
  imageSlice_->VisibilityOn();
  defaultWindowLevel_ = defaultWindowLevel;
  defaultWindowLevelFromUser_ = false;
  const int oldSlice = slice_;
  if (keepViewState) {
    slice_ = std::clamp(oldSlice, 0, sliceCount() - 1);
  } else {
    slice_ = sliceCount() / 2;
    crosshair_ = volume_->worldPosition(0.5 * (volume_->nx() - 1), 0.5 * (volume_->ny() - 1),
                                        0.5 * (volume_->nz() - 1));
    crosshair_[axisIndex()] = slicePositionMm();
    cameraTouched_ = false;
    resetView();
    windowLevel_ = this->defaultWindowLevel();
    applyWindowLevel();
    emit windowLevelChanged(windowLevel_.window, windowLevel_.level);
  }
  applySlice();
  if (slice_ != oldSlice) emit sliceChanged(slice_);
}

void SliceView::applySlice() {
  if (!volume_) return;
  mapper_->SetSliceNumber(slice_);
  updateCrosshair();
  updateRois();
  updateText();
  requestRender();
}

void SliceView::setSlice(int index) {
  if (!volume_) return;
  index = std::clamp(index, 0, sliceCount() - 1);
  if (index == slice_) return;
  slice_ = index;
  applySlice();
  emit sliceChanged(slice_);
}

WindowLevel SliceView::defaultWindowLevel() {
  if (!defaultWindowLevel_.has_value()) {
    defaultWindowLevel_ =
        volume_ ? render::defaultWindowLevel(computeStatistics(volume_->voxels())) : WindowLevel{};
  }
  return *defaultWindowLevel_;
}

void SliceView::setWindowLevel(double window, double level) {
  if (!(window > 0.0) || !std::isfinite(window)) window = 1e-6;
  if (!std::isfinite(level)) return;
  if (window == windowLevel_.window && level == windowLevel_.level) return;
  windowLevel_ = {window, level};
  applyWindowLevel();
  emit windowLevelChanged(window, level);
}

void SliceView::applyWindowLevel() {
  imageProperty_->SetColorWindow(windowLevel_.window);
  imageProperty_->SetColorLevel(windowLevel_.level);
  updateText();
  requestRender();
}

void SliceView::setColourMap(ColourMap map) {
  if (map == colourMap_) return;
  colourMap_ = map;
  fillLookupTable(lookupTable_, map, windowLevel_.lower(), windowLevel_.upper());
  imageProperty_->Modified();
  requestRender();
  emit colourMapChanged(map);
}

// --- camera -------------------------------------------------------------------------------

void SliceView::setRowsDown(bool rowsDown) {
  rowsDown_ = rowsDown && axis_ == Axis::Axial;
  switch (axis_) {
    case Axis::Axial:
      right_ = {1, 0, 0};
      up_ = rowsDown_ ? Eigen::Vector3d(0, -1, 0) : Eigen::Vector3d(0, 1, 0);
      towards_ = rowsDown_ ? Eigen::Vector3d(0, 0, -1) : Eigen::Vector3d(0, 0, 1);
      break;
    case Axis::Coronal:
      right_ = {1, 0, 0};
      up_ = {0, 0, 1};
      towards_ = {0, -1, 0};
      break;
    case Axis::Sagittal:
      right_ = {0, 1, 0};
      up_ = {0, 0, 1};
      towards_ = {1, 0, 0};
      break;
  }
  if (volume_) resetView();
}

void SliceView::setTitle(const QString& title) {
  title_ = title;
  updateText();
  requestRender();
}

void SliceView::setShowSliceInfo(bool show) {
  showSliceInfo_ = show;
  updateText();
  requestRender();
}

void SliceView::setupCamera(const Eigen::Vector3d& focal, double parallelScale) {
  vtkCamera* camera = renderer()->GetActiveCamera();
  double diagonal = 1.0;
  if (volume_) {
    const Eigen::Vector3d extent = volume_->voxelSizeMm().cwiseProduct(
        Eigen::Vector3d(volume_->nx(), volume_->ny(), volume_->nz()));
    diagonal = extent.norm() + 1.0;
  }
  const double distance = 2.0 * diagonal;
  const Eigen::Vector3d position = focal + distance * towards_;
  camera->SetFocalPoint(focal.data());
  camera->SetPosition(position.data());
  camera->SetViewUp(up_.data());
  camera->SetParallelScale(parallelScale);
  // The whole volume lies within one diagonal of the focal point.
  camera->SetClippingRange(std::max(1e-3, distance - 1.5 * diagonal), distance + 1.5 * diagonal);
  updateCrosshair();
  updateScaleBar();
  requestRender();
}

double SliceView::fittedParallelScale() const {
  if (!volume_) return 1.0;
  const Eigen::Vector3d extent = volume_->voxelSizeMm().cwiseProduct(
      Eigen::Vector3d(volume_->nx(), volume_->ny(), volume_->nz()));
  const double widthMm = std::abs(extent.dot(right_)), heightMm = std::abs(extent.dot(up_));
  const double aspect = height() > 0 ? static_cast<double>(width()) / height() : 1.0;
  return 0.5 * std::max(heightMm, widthMm / aspect) * 1.04;
}

void SliceView::resetView() {
  if (!volume_) return;
  const Eigen::Vector3d centre = volume_->worldPosition(
      0.5 * (volume_->nx() - 1), 0.5 * (volume_->ny() - 1), 0.5 * (volume_->nz() - 1));
  cameraTouched_ = false;
  setupCamera(centre, fittedParallelScale());
}

double SliceView::zoomFactor() const {
  return fittedParallelScale() / renderer()->GetActiveCamera()->GetParallelScale();
}

void SliceView::setZoomFactor(double factor) {
  if (!(factor > 0.0)) return;
  cameraTouched_ = true;
  setupCamera(viewCentreMm(), fittedParallelScale() / factor);
  updateRois();
}

Eigen::Vector3d SliceView::viewCentreMm() const {
  return Eigen::Vector3d(renderer()->GetActiveCamera()->GetFocalPoint());
}

void SliceView::panByMm(const Eigen::Vector3d& worldDeltaMm) {
  cameraTouched_ = true;
  setupCamera(viewCentreMm() + worldDeltaMm, renderer()->GetActiveCamera()->GetParallelScale());
}

double SliceView::worldPerPixel() const {
  return 2.0 * renderer()->GetActiveCamera()->GetParallelScale() / std::max(1, height());
}

Eigen::Vector3d SliceView::worldAt(const QPointF& p) const {
  const double wpp = worldPerPixel();
  Eigen::Vector3d world = viewCentreMm() + (p.x() + 0.5 - 0.5 * width()) * wpp * right_ +
                          (0.5 * height() - p.y() - 0.5) * wpp * up_;
  world[axisIndex()] = slicePositionMm();
  return world;
}

QPointF SliceView::widgetPositionOf(const Eigen::Vector3d& worldMm) const {
  const double wpp = worldPerPixel();
  const Eigen::Vector3d d = worldMm - viewCentreMm();
  return {0.5 * width() + d.dot(right_) / wpp - 0.5, 0.5 * height() - d.dot(up_) / wpp - 0.5};
}

float SliceView::valueAt(const Eigen::Vector3d& worldMm) const {
  if (!volume_) return std::numeric_limits<float>::quiet_NaN();
  std::int64_t index[3];
  const std::int64_t n[3] = {volume_->nx(), volume_->ny(), volume_->nz()};
  for (int a = 0; a < 3; ++a) {
    index[a] = std::lround((worldMm[a] - volume_->originMm()[a]) / volume_->voxelSizeMm()[a]);
    if (index[a] < 0 || index[a] >= n[a]) return std::numeric_limits<float>::quiet_NaN();
  }
  return volume_->at(index[0], index[1], index[2]);
}

void SliceView::resizeGL(int w, int h) {
  VtkOpenGLWidget::resizeGL(w, h);
  if (volume_ && !cameraTouched_) {
    resetView();
  } else {
    updateCrosshair();
    updateScaleBar();
  }
  updateRois();
}

// --- overlays -----------------------------------------------------------------------------

void SliceView::setCrosshair(const Eigen::Vector3d& worldMm) {
  crosshair_ = worldMm;
  updateCrosshair();
  requestRender();
}

void SliceView::setCrosshairVisible(bool visible) {
  crosshairVisible_ = visible;
  crosshairActor_->SetVisibility(visible);
  requestRender();
}

void SliceView::updateCrosshair() {
  vtkPoints* points = crosshairLines_->GetPoints();
  points->Reset();
  vtkNew<vtkCellArray> lines;
  if (volume_) {
    const int a = axisIndex();
    Eigen::Vector3d centre = crosshair_;
    centre[a] = slicePositionMm();
    const double gap = kCrosshairGapPx * worldPerPixel();
    const Eigen::Vector3d lo = volume_->originMm() - 0.5 * volume_->voxelSizeMm();
    const Eigen::Vector3d hi =
        volume_->worldPosition(volume_->nx() - 0.5, volume_->ny() - 0.5, volume_->nz() - 0.5);
    for (int axisInPlane : inPlaneAxes(a)) {
      for (int side = 0; side < 2; ++side) {
        Eigen::Vector3d from = centre, to = centre;
        from[axisInPlane] = side == 0 ? lo[axisInPlane] : centre[axisInPlane] + gap;
        to[axisInPlane] = side == 0 ? centre[axisInPlane] - gap : hi[axisInPlane];
        if (to[axisInPlane] <= from[axisInPlane]) continue;
        const vtkIdType ids[2] = {points->InsertNextPoint(from.data()),
                                  points->InsertNextPoint(to.data())};
        lines->InsertNextCell(2, ids);
      }
    }
  }
  crosshairLines_->SetLines(lines);
  points->Modified();
  crosshairLines_->Modified();
  crosshairActor_->SetVisibility(crosshairVisible_ && volume_ != nullptr);
}

Eigen::Vector2d SliceView::inPlane(const Eigen::Vector3d& worldMm) const {
  const auto [a, b] = inPlaneAxes(axisIndex());
  return {worldMm[a], worldMm[b]};
}

bool SliceView::roiVisibleHere(const SliceRoi& roi) const {
  return volume_ && roi.axis == axisIndex() &&
         std::abs(roi.sliceMm - slicePositionMm()) < 0.5 * volume_->voxelSizeMm()[axisIndex()];
}

std::optional<SliceRoi> SliceView::draftRoi(const Eigen::Vector3d& endMm) const {
  if (roiTool_ == RoiTool::None || !volume_) return std::nullopt;
  SliceRoi roi;
  roi.axis = axisIndex();
  roi.sliceMm = slicePositionMm();
  roi.role = newRoiRole_;
  const Eigen::Vector2d a = inPlane(pressWorld_), b = inPlane(endMm);
  if (roiTool_ == RoiTool::Circle) {
    roi.shape = SliceRoi::Circle;
    roi.centreMm = a;
    const double r = (b - a).norm();
    roi.halfSizeMm = {r, r};
  } else {
    roi.shape = SliceRoi::Rectangle;
    roi.centreMm = 0.5 * (a + b);
    roi.halfSizeMm = 0.5 * (b - a).cwiseAbs();
  }
  return roi;
}

void SliceView::updateRois() {
  vtkPoints* points = roiLines_->GetPoints();
  points->Reset();
  vtkNew<vtkCellArray> lines;
  vtkNew<vtkUnsignedCharArray> colours;
  colours->SetNumberOfComponents(3);
  for (auto& label : roiLabels_) overlay_->RemoveActor2D(label);
  const auto [a, b] = inPlaneAxes(axisIndex());
  std::size_t labelCount = 0;
  auto addOutline = [&](const SliceRoi& roi, const unsigned char* colour, bool labelled) {
    Eigen::Vector3d point = Eigen::Vector3d::Zero();
    point[axisIndex()] = slicePositionMm();
    std::vector<vtkIdType> ids;
    auto add = [&](double u, double v) {
      point[a] = u;
      point[b] = v;
      ids.push_back(points->InsertNextPoint(point.data()));
    };
    const Eigen::Vector2d c = roi.centreMm, h = roi.halfSizeMm;
    if (roi.shape == SliceRoi::Circle) {
      for (int i = 0; i < kCircleSegments; ++i) {
        const double t = 2.0 * M_PI * i / kCircleSegments;
        add(c.x() + h.x() * std::cos(t), c.y() + h.y() * std::sin(t));
      }
    } else {
      add(c.x() - h.x(), c.y() - h.y());
      add(c.x() + h.x(), c.y() - h.y());
      add(c.x() + h.x(), c.y() + h.y());
      add(c.x() - h.x(), c.y() + h.y());
    }
    ids.push_back(ids.front());
    lines->InsertNextCell(static_cast<vtkIdType>(ids.size()), ids.data());
    colours->InsertNextTypedTuple(colour);
    if (!labelled) return;
    if (labelCount == roiLabels_.size()) {
      auto text = vtkSmartPointer<vtkTextActor>::New();
      text->GetPositionCoordinate()->SetCoordinateSystemToWorld();
      text->GetTextProperty()->SetFontSize(12);
      text->GetTextProperty()->SetShadow(1);
      text->GetTextProperty()->SetVerticalJustificationToBottom();
      roiLabels_.push_back(text);
    }
    vtkTextActor* text = roiLabels_[labelCount++];
    // Above the shape, at its left edge as seen on screen.
    Eigen::Vector3d anchor = Eigen::Vector3d::Zero();
    anchor[axisIndex()] = slicePositionMm();
    anchor[a] = c.x();
    anchor[b] = c.y();
    const Eigen::Vector3d upExtent = (up_[a] != 0 ? h.x() : h.y()) * up_;
    const Eigen::Vector3d leftExtent = -(right_[a] != 0 ? h.x() : h.y()) * right_;
    anchor += upExtent + leftExtent;
    text->GetPositionCoordinate()->SetValue(anchor.data());
    text->SetInput(roi.label.toUtf8().constData());
    text->GetTextProperty()->SetColor(colour[0] / 255.0, colour[1] / 255.0, colour[2] / 255.0);
    overlay_->AddActor2D(text);
  };
  for (const SliceRoi& roi : rois_) {
    if (!roiVisibleHere(roi)) continue;
    const unsigned char* colour = roi.id == selectedRoi_             ? kSelectedColour
                                  : roi.role == SliceRoi::Background ? kBackgroundColour
                                                                     : kSignalColour;
    addOutline(roi, colour, true);
  }
  if (drag_ == Drag::DrawRoi) {
    if (auto draft = draftRoi(dragWorld_)) addOutline(*draft, kDraftColour, false);
  }
  roiLines_->SetLines(lines);
  roiLines_->GetCellData()->SetScalars(colours);
  points->Modified();
  roiLines_->Modified();
}

void SliceView::updateScaleBar() {
  vtkPoints* points = scaleBarLines_->GetPoints();
  points->Reset();
  vtkNew<vtkCellArray> lines;
  const double dpr = devicePixelRatioF();
  const double mmPerPixel = worldPerPixel();
  const double viewWidthMm = width() * mmPerPixel;
  if (volume_ && viewWidthMm > 0.0 && width() > 80) {
    // The largest 1, 2 or 5 x 10^k mm not longer than a fifth of the view.
    const double target = 0.2 * viewWidthMm;
    const double decade = std::pow(10.0, std::floor(std::log10(target)));
    double length = decade;
    for (double m : {2.0, 5.0})
      if (m * decade <= target) length = m * decade;
    const double lengthPx = length / mmPerPixel * dpr;
    const double x1 = (width() - 16) * dpr, x0 = x1 - lengthPx, y = 14 * dpr, tick = 5 * dpr;
    const vtkIdType bar[2] = {points->InsertNextPoint(x0, y, 0), points->InsertNextPoint(x1, y, 0)};
    const vtkIdType left[2] = {points->InsertNextPoint(x0, y, 0),
                               points->InsertNextPoint(x0, y + tick, 0)};
    const vtkIdType right[2] = {points->InsertNextPoint(x1, y, 0),
                                points->InsertNextPoint(x1, y + tick, 0)};
    lines->InsertNextCell(2, bar);
    lines->InsertNextCell(2, left);
    lines->InsertNextCell(2, right);
    scaleBarText_->SetInput(lengthText(length).toUtf8().constData());
    scaleBarText_->GetPositionCoordinate()->SetValue(0.5 * (x0 + x1), y + 4 * dpr);
    scaleBarText_->SetVisibility(true);
  } else {
    scaleBarText_->SetVisibility(false);
  }
  scaleBarLines_->SetLines(lines);
  points->Modified();
  scaleBarLines_->Modified();
}

void SliceView::updateText() {
  QStringList lines;
  if (!title_.isEmpty()) lines << title_;
  if (volume_) {
    const char axisLetter = "xyz"[axisIndex()];
    if (showSliceInfo_ && sliceCount() > 1)
      lines << QStringLiteral("%1  %2 = %3 mm  [%4/%5]")
                   .arg(axisName(axis_))
                   .arg(QChar(axisLetter))
                   .arg(slicePositionMm(), 0, 'f', 2)
                   .arg(slice_)
                   .arg(sliceCount() - 1);
    lines << QStringLiteral("W %1  L %2")
                 .arg(valueText(windowLevel_.window), valueText(windowLevel_.level));
  }
  infoText_->SetInput(lines.join('\n').toUtf8().constData());
}

void SliceView::updateCursorText(const Eigen::Vector3d& worldMm, float value) {
  if (!volume_ || !std::isfinite(value)) {
    cursorText_->SetInput("");
    return;
  }
  cursorText_->SetInput(QStringLiteral("(%1, %2, %3) mm  value %4")
                            .arg(worldMm.x(), 0, 'f', 2)
                            .arg(worldMm.y(), 0, 'f', 2)
                            .arg(worldMm.z(), 0, 'f', 2)
                            .arg(valueText(value))
                            .toUtf8()
                            .constData());
}

// --- ROIs ---------------------------------------------------------------------------------

void SliceView::setRoiTool(RoiTool tool) {
  roiTool_ = tool;
  setCursor(tool == RoiTool::None ? Qt::ArrowCursor : Qt::CrossCursor);
}

void SliceView::setRois(std::vector<SliceRoi> rois) {
  rois_ = std::move(rois);
  for (SliceRoi& roi : rois_) {
    if (roi.id <= 0) roi.id = nextRoiId++;
    nextRoiId = std::max(nextRoiId, roi.id + 1);
    if (roi.label.isEmpty()) roi.label = roiLabel(roi);
  }
  if (std::none_of(rois_.begin(), rois_.end(),
                   [this](const SliceRoi& r) { return r.id == selectedRoi_; }))
    selectedRoi_ = -1;
  updateRois();
  requestRender();
  emit roisChanged();
}

void SliceView::selectRoi(int id) {
  if (id == selectedRoi_) return;
  selectedRoi_ = id;
  updateRois();
  requestRender();
  emit roiSelected(id);
}

void SliceView::setRoiRole(int id, SliceRoi::Role role) {
  for (SliceRoi& roi : rois_) {
    if (roi.id != id || roi.role == role) continue;
    const bool defaultLabel = roi.label == roiLabel(roi);
    roi.role = role;
    if (defaultLabel) roi.label = roiLabel(roi);
    updateRois();
    requestRender();
    emit roisChanged();
  }
}

void SliceView::deleteSelectedRoi() {
  const auto it = std::find_if(rois_.begin(), rois_.end(),
                               [this](const SliceRoi& r) { return r.id == selectedRoi_; });
  if (it == rois_.end()) return;
  rois_.erase(it);
  selectedRoi_ = -1;
  updateRois();
  requestRender();
  emit roisChanged();
}

int SliceView::roiAt(const Eigen::Vector3d& worldMm) const {
  // The last drawn (topmost) ROI wins.
  for (auto it = rois_.rbegin(); it != rois_.rend(); ++it)
    if (roiVisibleHere(*it) && it->containsInPlane(inPlane(worldMm))) return it->id;
  return -1;
}

void SliceView::finishRoi(const Eigen::Vector3d& endMm) {
  std::optional<SliceRoi> roi = draftRoi(endMm);
  // Too small to be meant (under two screen pixels): ignore.
  if (!roi || roi->halfSizeMm.maxCoeff() < 2.0 * worldPerPixel()) return;
  roi->id = nextRoiId++;
  roi->label = roiLabel(*roi);
  rois_.push_back(*roi);
  selectedRoi_ = roi->id;
  emit roisChanged();
  emit roiSelected(roi->id);
}

bool SliceView::exportScreenshot(const QString& path) {
  return grabImage().save(path);
}

// --- interaction --------------------------------------------------------------------------

void SliceView::emitCursor(const QPointF& position) {
  if (!volume_) return;
  const Eigen::Vector3d world = worldAt(position);
  const float value = valueAt(world);
  updateCursorText(world, value);
  requestRender();
  emit cursorMoved(world, value);
}

void SliceView::mousePressEvent(QMouseEvent* event) {
  setFocus(Qt::MouseFocusReason);
  if (drag_ != Drag::None || !volume_) return;
  const bool shift = event->modifiers() & Qt::ShiftModifier;
  switch (event->button()) {
    case Qt::LeftButton:
      drag_ = shift ? Drag::Pan : roiTool_ != RoiTool::None ? Drag::DrawRoi : Drag::WindowLevel;
      break;
    case Qt::MiddleButton:
      drag_ = Drag::Pan;
      break;
    case Qt::RightButton:
      drag_ = Drag::Zoom;
      break;
    default:
      return;
  }
  dragButton_ = event->button();
  pressPosition_ = event->position();
  dragMoved_ = false;
  pressWindowLevel_ = windowLevel_;
  pressParallelScale_ = renderer()->GetActiveCamera()->GetParallelScale();
  pressFocal_ = viewCentreMm();
  pressWorld_ = worldAt(pressPosition_);
  dragWorld_ = pressWorld_;
  event->accept();
}

void SliceView::mouseMoveEvent(QMouseEvent* event) {
  const QPointF position = event->position();
  if (drag_ == Drag::None) {
    emitCursor(position);
    if ((event->modifiers() & Qt::ShiftModifier) && volume_) {
      crosshair_ = worldAt(position);
      updateCrosshair();
      requestRender();
      emit crosshairMoved(crosshair_);
    }
    return;
  }
  const QPointF delta = position - pressPosition_;
  if (std::abs(delta.x()) + std::abs(delta.y()) > kClickTolerancePx) dragMoved_ = true;
  if (!dragMoved_) return;
  switch (drag_) {
    case Drag::WindowLevel: {
      // As vtkInteractorStyleImage: a drag across the whole widget changes the window by 4x its
      // value; up raises the level.
      const double scale = std::max(std::abs(pressWindowLevel_.window), 1e-9);
      const double window =
          pressWindowLevel_.window + 4.0 * delta.x() / std::max(1, width()) * scale;
      const double level =
          pressWindowLevel_.level - 4.0 * delta.y() / std::max(1, height()) * scale;
      setWindowLevel(std::max(window, 1e-3 * scale), level);
      break;
    }
    case Drag::Pan: {
      const double wpp = 2.0 * pressParallelScale_ / std::max(1, height());
      cameraTouched_ = true;
      setupCamera(pressFocal_ - delta.x() * wpp * right_ + delta.y() * wpp * up_,
                  pressParallelScale_);
      updateRois();
      break;
    }
    case Drag::Zoom: {
      cameraTouched_ = true;
      setupCamera(pressFocal_, pressParallelScale_ * std::pow(kDragZoomPerPx, delta.y()));
      updateRois();
      break;
    }
    case Drag::DrawRoi:
      dragWorld_ = worldAt(position);
      updateRois();
      requestRender();
      break;
    case Drag::None:
      break;
  }
  emitCursor(position);
}

void SliceView::mouseReleaseEvent(QMouseEvent* event) {
  if (drag_ == Drag::None || event->button() != dragButton_) return;
  const Drag drag = drag_;
  drag_ = Drag::None;
  dragButton_ = Qt::NoButton;
  const Eigen::Vector3d world = worldAt(event->position());
  if (!dragMoved_ && (drag == Drag::WindowLevel || drag == Drag::DrawRoi)) {
    // A click: select the ROI under it, else move the crosshair there.
    const int roi = roiAt(world);
    if (roi >= 0) {
      selectRoi(roi);
    } else {
      if (selectedRoi_ >= 0) selectRoi(-1);
      crosshair_ = world;
      updateCrosshair();
      requestRender();
      emit crosshairMoved(crosshair_);
    }
  } else if (drag == Drag::DrawRoi) {
    finishRoi(world);
  }
  updateRois();
  requestRender();
  event->accept();
}

void SliceView::mouseDoubleClickEvent(QMouseEvent* event) {
  if (event->button() != Qt::LeftButton) return;
  if (event->modifiers() & Qt::ControlModifier)
    resetWindowLevel();
  else
    emit maximiseToggleRequested();
  event->accept();
}

void SliceView::wheelEvent(QWheelEvent* event) {
  const int delta = event->angleDelta().y();
  event->accept();
  if (delta == 0 || !volume_) return;
  const int steps = std::max(1, std::abs(delta) / 120) * (delta > 0 ? 1 : -1);
  if (event->modifiers() & Qt::ControlModifier) {
    cameraTouched_ = true;
    setupCamera(viewCentreMm(), renderer()->GetActiveCamera()->GetParallelScale() *
                                    std::pow(kWheelZoomStep, -steps));
    updateRois();
  } else {
    stepSlice(steps);
    emitCursor(event->position());
  }
}

void SliceView::keyPressEvent(QKeyEvent* event) {
  switch (event->key()) {
    case Qt::Key_Left:
    case Qt::Key_Down:
    case Qt::Key_B:
      stepSlice(-1);
      break;
    case Qt::Key_Right:
    case Qt::Key_Up:
    case Qt::Key_F:
      stepSlice(+1);
      break;
    case Qt::Key_PageDown:
      stepSlice(-10);
      break;
    case Qt::Key_PageUp:
      stepSlice(+10);
      break;
    case Qt::Key_R:
      if (event->modifiers() & Qt::ControlModifier) return QOpenGLWidget::keyPressEvent(event);
      resetView();
      updateRois();
      break;
    case Qt::Key_Delete:
    case Qt::Key_Backspace:
      deleteSelectedRoi();
      break;
    case Qt::Key_Escape:
      if (drag_ == Drag::DrawRoi) {
        drag_ = Drag::None;
        updateRois();
        requestRender();
      } else {
        return QOpenGLWidget::keyPressEvent(event);
      }
      break;
    default:
      return QOpenGLWidget::keyPressEvent(event);  // shortcuts and parents
  }
  event->accept();
}

void SliceView::keyReleaseEvent(QKeyEvent* event) {
  QOpenGLWidget::keyReleaseEvent(event);
}

void SliceView::leaveEvent(QEvent* event) {
  cursorText_->SetInput("");
  requestRender();
  QOpenGLWidget::leaveEvent(event);
}

}  // namespace tomowb::render
