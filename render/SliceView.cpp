// SliceView: see the header. The image and the overlays share one camera; the overlays sit in a
// second renderer on layer 1 so that the crosshair and ROI outlines drawn in the slice plane are
// never hidden by the image (no depth fight, no offset along the normal).
// This file builds the pipeline and holds the volume, slice, window/level and camera; the overlays
// and ROIs are in SliceViewOverlays.cpp, the mouse and keyboard in SliceViewInteraction.cpp.
#include "render/SliceView.h"

#include <vtkActor.h>
#include <vtkActor2D.h>
#include <vtkCamera.h>
#include <vtkCellArray.h>
#include <vtkCoordinate.h>
#include <vtkGenericOpenGLRenderWindow.h>
#include <vtkGenericRenderWindowInteractor.h>
#include <vtkImageData.h>
#include <vtkImageProperty.h>
#include <vtkImageSlice.h>
#include <vtkImageSliceMapper.h>
#include <vtkLookupTable.h>
#include <vtkPoints.h>
#include <vtkPolyData.h>
#include <vtkPolyDataMapper.h>
#include <vtkPolyDataMapper2D.h>
#include <vtkProperty.h>
#include <vtkProperty2D.h>
#include <vtkRenderer.h>
#include <vtkTextActor.h>
#include <vtkTextProperty.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "render/EventTrace.h"
#include "render/VolumeImage.h"

namespace tomowb::render {

namespace {

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
  const render::EventTrace::Scope traced("SliceView::setVolume");
  if (!volume || volume->empty()) {
    volume_.reset();
    image_ = nullptr;
    mapper_->RemoveAllInputs();
    imageSlice_->VisibilityOff();
    rois_.clear();
    rulers_.clear();
    profileLine_.reset();
    updateMeasurementTexts();
    updateCrosshair();
    updateRois();
    updateText();
    requestRender();
    return;
  }
  const bool hadVolume = static_cast<bool>(volume_);
  keepViewState = keepViewState && hadVolume;
  if (keepViewState && sameVolumeGrid(*volume_, *volume)) {
    // The live-preview path: same grid, new voxels. Nothing else changes.
    volume_ = std::move(volume);
    copySliceInto(image_, *volume_, axisIndex(), slice_);
    if (!defaultWindowLevelFromUser_) defaultWindowLevel_ = defaultWindowLevel;  // or on demand
    updateMeasurementTexts();
    updateRois();
    updateText();
    requestRender();
    return;
  }
  volume_ = volume;
  {
    const render::EventTrace::Scope part("SliceView::setVolume measurements");
    updateMeasurementTexts();
  }
  {
    const render::EventTrace::Scope part("SliceView::setVolume mapper input");
    if (!image_) image_ = vtkSmartPointer<vtkImageData>::New();  // filled by applySlice()
    mapper_->SetInputData(image_);
    imageSlice_->VisibilityOn();
  }
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
    {
      const render::EventTrace::Scope part("SliceView::setVolume camera");
      resetView();
    }
    {
      const render::EventTrace::Scope part("SliceView::setVolume window/level");
      windowLevel_ = this->defaultWindowLevel();
      applyWindowLevel();
    }
    const render::EventTrace::Scope part("SliceView::setVolume windowLevelChanged slots");
    emit windowLevelChanged(windowLevel_.window, windowLevel_.level);
  }
  applySlice();
  const render::EventTrace::Scope part("SliceView::setVolume sliceChanged slots");
  if (slice_ != oldSlice) emit sliceChanged(slice_);
}

void SliceView::applySlice() {
  const render::EventTrace::Scope traced("SliceView::applySlice");
  if (!volume_) return;
  {
    const render::EventTrace::Scope part("SliceView::applySlice copy");
    copySliceInto(image_, *volume_, axisIndex(), slice_);
    mapper_->SetSliceNumber(slice_);
  }
  const render::EventTrace::Scope part("SliceView::applySlice overlays");
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

bool SliceView::exportScreenshot(const QString& path) {
  return grabImage().save(path);
}

}  // namespace tomowb::render
