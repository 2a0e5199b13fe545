// VolumeView3D: see the header. The GPU mapper is asked for explicitly (RenderModeToGPU) so that
// an unsupported context shows up as vtkSmartVolumeMapper::InvalidRenderMode after the first
// render instead of a silent switch to CPU ray casting, which is too slow for interaction at
// 256^3 in software GL; the view then switches to slice planes.
#include "render/VolumeView3D.h"

#include <vtkActor.h>
#include <vtkAxesActor.h>
#include <vtkCamera.h>
#include <vtkColorTransferFunction.h>
#include <vtkGenericOpenGLRenderWindow.h>
#include <vtkGenericRenderWindowInteractor.h>
#include <vtkImageActor.h>
#include <vtkImageData.h>
#include <vtkImageMapper3D.h>
#include <vtkImageProperty.h>
#include <vtkInteractorStyleTrackballCamera.h>
#include <vtkLookupTable.h>
#include <vtkObjectFactory.h>
#include <vtkOrientationMarkerWidget.h>
#include <vtkOutlineSource.h>
#include <vtkPiecewiseFunction.h>
#include <vtkPolyDataMapper.h>
#include <vtkProperty.h>
#include <vtkRenderer.h>
#include <vtkSmartVolumeMapper.h>
#include <vtkVolume.h>
#include <vtkVolumeProperty.h>

#include <QCoreApplication>
#include <QMetaObject>
#include <QMouseEvent>
#include <QPointer>
#include <QThreadPool>
#include <algorithm>
#include <cmath>
#include <functional>

#include "render/EventTrace.h"
#include "render/VolumeImage.h"

namespace tomowb::render {

namespace {

constexpr double kMaxOpacity = 0.5;  // at the top of the window; the rest of the ramp is linear

// Trackball camera (left rotate, middle or Shift+left pan, right or wheel zoom) whose only key
// is `r`: the base style's other keys (wireframe, stereo, exit, pick) make no sense here.
class CameraStyle : public vtkInteractorStyleTrackballCamera {
 public:
  static CameraStyle* New();
  vtkTypeMacro(CameraStyle, vtkInteractorStyleTrackballCamera);
  std::function<void()> onReset;

  void OnChar() override {
    const char key = this->Interactor->GetKeyCode();
    if ((key == 'r' || key == 'R') && onReset) onReset();
  }
  void OnKeyPress() override {}
};
vtkStandardNewMacro(CameraStyle);

}  // namespace

VolumeView3D::VolumeView3D(QWidget* parent) : VtkOpenGLWidget(parent) {
  renderer()->SetBackground(0.05, 0.05, 0.07);
  renderer()->SetBackground2(0.20, 0.22, 0.28);
  renderer()->GradientBackgroundOn();

  vtkNew<CameraStyle> style;
  style->onReset = [this] { resetCamera(); };
  interactor()->SetInteractorStyle(style);

  colours_ = vtkSmartPointer<vtkColorTransferFunction>::New();
  opacity_ = vtkSmartPointer<vtkPiecewiseFunction>::New();
  volumeProperty_ = vtkSmartPointer<vtkVolumeProperty>::New();
  volumeProperty_->SetColor(colours_);
  volumeProperty_->SetScalarOpacity(opacity_);
  volumeProperty_->SetInterpolationTypeToLinear();
  volumeProperty_->ShadeOff();
  volumeMapper_ = vtkSmartPointer<vtkSmartVolumeMapper>::New();
  volumeMapper_->SetRequestedRenderModeToGPU();
  volumeMapper_->SetBlendModeToComposite();
  volumeProp_ = vtkSmartPointer<vtkVolume>::New();
  volumeProp_->SetMapper(volumeMapper_);
  volumeProp_->SetProperty(volumeProperty_);
  volumeProp_->VisibilityOff();
  renderer()->AddVolume(volumeProp_);

  planeTable_ = makeLookupTable(colourMap_, 0.0, 1.0);
  for (auto& plane : planes_) {
    plane = vtkSmartPointer<vtkImageActor>::New();
    plane->GetProperty()->SetLookupTable(planeTable_);
    plane->GetProperty()->UseLookupTableScalarRangeOff();
    plane->GetProperty()->SetInterpolationTypeToLinear();
    plane->VisibilityOff();
    renderer()->AddActor(plane);
  }

  vtkNew<vtkPolyDataMapper> outlineMapper;
  outline_ = vtkSmartPointer<vtkActor>::New();
  outline_->SetMapper(outlineMapper);
  outline_->GetProperty()->SetColor(0.9, 0.8, 0.3);
  outline_->GetProperty()->SetLighting(false);
  outline_->VisibilityOff();
  renderer()->AddActor(outline_);

  vtkNew<vtkAxesActor> axes;
  axes->SetTotalLength(1.0, 1.0, 1.0);
  axesWidget_ = vtkSmartPointer<vtkOrientationMarkerWidget>::New();
  axesWidget_->SetOrientationMarker(axes);
  axesWidget_->SetInteractor(interactor());
  axesWidget_->SetViewport(0.0, 0.0, 0.22, 0.22);
  axesWidget_->SetEnabled(1);
  axesWidget_->InteractiveOff();
}

VolumeView3D::~VolumeView3D() {
  axesWidget_->SetEnabled(0);
}

namespace {

// Volumes above this many voxels are rendered from an f x f x f box-averaged copy: a 256^3
// float texture took ~500 ms per frame under Mesa's llvmpipe, which would freeze the window.
// With a hardware GPU 160^3 is plenty for an overview (the slice views show full resolution);
// with software OpenGL 100^3 keeps a frame near 30 ms on two cores.
constexpr std::int64_t kMaxRenderedVoxels = 160ll * 160 * 160;
constexpr std::int64_t kMaxRenderedVoxelsSoftware = 100ll * 100 * 100;

std::shared_ptr<const Volume> reducedForRendering(std::shared_ptr<const Volume> volume,
                                                  std::int64_t maxVoxels) {
  const render::EventTrace::Scope traced("VolumeView3D: reduce for rendering");
  if (volume->voxelCount() <= maxVoxels) return volume;
  const auto f = static_cast<std::int64_t>(
      std::ceil(std::cbrt(static_cast<double>(volume->voxelCount()) / double(maxVoxels))));
  const std::int64_t nx = (volume->nx() + f - 1) / f, ny = (volume->ny() + f - 1) / f,
                     nz = (volume->nz() + f - 1) / f;
  const double half = 0.5 * double(f - 1);  // centre of the first f^3 block, in voxels
  auto reduced =
      std::make_shared<Volume>(VolumeShape{nx, ny, nz}, double(f) * volume->voxelSizeMm(),
                               volume->worldPosition(half, half, half));
#pragma omp parallel for schedule(static)
  for (std::int64_t z = 0; z < nz; ++z)
    for (std::int64_t y = 0; y < ny; ++y)
      for (std::int64_t x = 0; x < nx; ++x) {
        float sum = 0;
        int count = 0;
        for (std::int64_t sz = z * f; sz < std::min(volume->nz(), (z + 1) * f); ++sz)
          for (std::int64_t sy = y * f; sy < std::min(volume->ny(), (y + 1) * f); ++sy)
            for (std::int64_t sx = x * f; sx < std::min(volume->nx(), (x + 1) * f); ++sx) {
              sum += volume->at(sx, sy, sz);
              ++count;
            }
        reduced->at(x, y, z) = sum / static_cast<float>(count);
      }
  return reduced;
}

}  // namespace

void VolumeView3D::setVolume(std::shared_ptr<const Volume> fullVolume, bool keepViewState) {
  const EventTrace::Scope traced("VolumeView3D::setVolume");
  const std::uint64_t generation = ++volumeGeneration_;
  windowLevelGiven_ = crosshairGiven_ = false;
  const std::int64_t limit =
      VtkOpenGLWidget::softwareRendering() ? kMaxRenderedVoxelsSoftware : kMaxRenderedVoxels;
  if (!fullVolume || fullVolume->voxelCount() <= limit) {
    reductionPending_ = false;
    showVolume(std::move(fullVolume), keepViewState);
    return;
  }
  // Box-averaging a 512^3 result reads all of its 512 MiB: on a worker thread, so that the
  // slice views show the result while this view catches up.
  reductionPending_ = true;
  QPointer<VolumeView3D> self(this);
  QThreadPool::globalInstance()->start(
      [self, generation, full = std::move(fullVolume), limit, keepViewState]() mutable {
        std::shared_ptr<const Volume> reduced = reducedForRendering(std::move(full), limit);
        QCoreApplication* app = QCoreApplication::instance();
        if (app == nullptr) return;
        QMetaObject::invokeMethod(
            app,
            [self, generation, reduced = std::move(reduced), keepViewState]() mutable {
              if (self.isNull() || self->volumeGeneration_ != generation) return;
              self->reductionPending_ = false;
              self->showVolume(std::move(reduced), keepViewState);
            },
            Qt::QueuedConnection);
      });
}

void VolumeView3D::showVolume(std::shared_ptr<const Volume> volume, bool keepViewState) {
  const EventTrace::Scope traced("VolumeView3D::showVolume");
  if (!volume || volume->empty()) {
    volume_.reset();
    image_ = nullptr;
    volumeProp_->VisibilityOff();
    for (auto& plane : planes_) plane->VisibilityOff();
    outline_->VisibilityOff();
    requestRender();
    return;
  }
  const bool hadVolume = static_cast<bool>(volume_);
  if (keepViewState && hadVolume && sameGrid(image_, *volume)) {
    volume_ = volume;
    swapImageVoxels(image_, std::move(volume));
    requestRender();
    return;
  }
  volume_ = std::move(volume);
  image_ = makeImageData(volume_);
  volumeMapper_->SetInputData(image_);
  for (auto& plane : planes_) plane->GetMapper()->SetInputData(image_);
  volumeProperty_->SetScalarOpacityUnitDistance(volume_->voxelSizeMm().minCoeff());
  if (!crosshairGiven_)
    crosshair_ =
        volume_->worldPosition(0.5 * double(volume_->nx() - 1), 0.5 * double(volume_->ny() - 1),
                               0.5 * double(volume_->nz() - 1));
  if ((!keepViewState || !hadVolume) && !windowLevelGiven_)
    windowLevel_ = defaultWindowLevel(computeStatistics(volume_->voxels(), 1024));
  updateOutline();
  updateTransferFunctions();
  applyMode();
  if (!keepViewState || !hadVolume) resetCamera();
  requestRender();
}

void VolumeView3D::updateOutline() {
  vtkNew<vtkOutlineSource> box;
  const Eigen::Vector3d lo = volume_->worldPosition(-0.5, -0.5, -0.5);
  const Eigen::Vector3d hi =
      volume_->worldPosition(volume_->nx() - 0.5, volume_->ny() - 0.5, volume_->nz() - 0.5);
  box->SetBounds(lo.x(), hi.x(), lo.y(), hi.y(), lo.z(), hi.z());
  box->Update();
  static_cast<vtkPolyDataMapper*>(outline_->GetMapper())->SetInputData(box->GetOutput());
  outline_->VisibilityOn();
}

void VolumeView3D::setWindowLevel(double window, double level) {
  if (!(window > 0.0)) return;
  windowLevel_ = {window, level};
  windowLevelGiven_ = true;
  updateTransferFunctions();
  requestRender();
}

void VolumeView3D::setColourMap(ColourMap map) {
  colourMap_ = map;
  updateTransferFunctions();
  requestRender();
}

void VolumeView3D::setCrosshair(const Eigen::Vector3d& worldMm) {
  crosshair_ = worldMm;
  crosshairGiven_ = true;
  if (mode_ == Mode::SlicePlanes) {
    updatePlanes();
    requestRender();
  }
}

void VolumeView3D::warmUp() {
  if (warmedUp_ || volume_ || !isVisible()) return;
  warmedUp_ = true;
  setVolume(std::make_shared<Volume>(Volume::centred({8, 8, 8}, Eigen::Vector3d::Ones())));
  opacity_->RemoveAllPoints();  // nothing of it is seen
  opacity_->AddPoint(-1.0, 0.0);
  opacity_->AddPoint(1.0, 0.0);
  outline_->VisibilityOff();
  (void)grabImage();  // renders now, in this context
  setVolume(nullptr);
}

void VolumeView3D::updateTransferFunctions() {
  const double lo = windowLevel_.lower(), hi = windowLevel_.upper();
  fillColourTransferFunction(colours_, colourMap_, lo, hi);
  opacity_->RemoveAllPoints();
  opacity_->AddPoint(lo, 0.0);
  opacity_->AddPoint(hi, kMaxOpacity);
  opacity_->ClampingOn();
  fillLookupTable(planeTable_, colourMap_, lo, hi);
  for (auto& plane : planes_) {
    plane->GetProperty()->SetColorWindow(windowLevel_.window);
    plane->GetProperty()->SetColorLevel(windowLevel_.level);
  }
}

void VolumeView3D::updatePlanes() {
  if (!volume_) return;
  const std::int64_t n[3] = {volume_->nx(), volume_->ny(), volume_->nz()};
  int index[3];
  for (int a = 0; a < 3; ++a) {
    const double i = (crosshair_[a] - volume_->originMm()[a]) / volume_->voxelSizeMm()[a];
    index[a] = static_cast<int>(std::clamp<std::int64_t>(std::lround(i), 0, n[a] - 1));
  }
  for (int a = 0; a < 3; ++a) {
    int extent[6] = {0, static_cast<int>(n[0] - 1), 0, static_cast<int>(n[1] - 1),
                     0, static_cast<int>(n[2] - 1)};
    extent[2 * a] = extent[2 * a + 1] = index[a];
    planes_[a]->SetDisplayExtent(extent);
  }
}

void VolumeView3D::applyMode() {
  const bool planes = forcePlanes_ || mode_ == Mode::SlicePlanes;
  mode_ = planes ? Mode::SlicePlanes : Mode::VolumeRendering;
  const bool shown = volume_ != nullptr;
  volumeProp_->SetVisibility(shown && !planes);
  for (auto& plane : planes_) plane->SetVisibility(shown && planes);
  if (planes) updatePlanes();
}

void VolumeView3D::setForceSlicePlanes(bool force) {
  forcePlanes_ = force;
  if (!force) mode_ = Mode::VolumeRendering;
  supportChecked_ = false;
  applyMode();
  requestRender();
}

void VolumeView3D::resetCamera() {
  vtkCamera* camera = renderer()->GetActiveCamera();
  // An oblique view from the front-right, z up: all three axes are visible.
  camera->SetFocalPoint(0, 0, 0);
  camera->SetPosition(1.0, -1.6, 0.9);
  camera->SetViewUp(0, 0, 1);
  camera->ParallelProjectionOff();
  renderer()->ResetCamera();
  requestRender();
}

void VolumeView3D::paintGL() {
  VtkOpenGLWidget::paintGL();
  // The GPU ray caster's support is known only after it tried to render in this context.
  if (!supportChecked_ && volume_ && mode_ == Mode::VolumeRendering && !forcePlanes_) {
    supportChecked_ = true;
    if (volumeMapper_->GetLastUsedRenderMode() == vtkSmartVolumeMapper::InvalidRenderMode) {
      mode_ = Mode::SlicePlanes;
      applyMode();
      requestRender();
    }
  }
}

void VolumeView3D::mouseDoubleClickEvent(QMouseEvent* event) {
  if (event->button() == Qt::LeftButton && !(event->modifiers() & Qt::ControlModifier)) {
    emit maximiseToggleRequested();
    event->accept();
    return;
  }
  VtkOpenGLWidget::mouseDoubleClickEvent(event);
}

bool VolumeView3D::exportScreenshot(const QString& path) {
  return grabImage().save(path);
}

}  // namespace tomowb::render
