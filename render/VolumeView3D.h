// VolumeView3D: the 3-D view of a Volume. GPU ray casting (vtkSmartVolumeMapper; Mesa's
// llvmpipe runs it under Xvfb) with colour and opacity from the current window/level and colour
// map: values below the window are transparent, opacity rises linearly across it. When the
// mapper reports it cannot render in this context, the view falls back to three textured
// orthogonal slice planes (vtkImageActor) through the crosshair point. An outline box and
// orientation axes frame the data. Mouse as ParaView's and Slicer's common subset
// (reference/ux-and-robustness.md 1.2): left rotate, middle (or Shift+left) pan, right zoom,
// wheel zoom, `r` resets the camera; a left double-click asks the layout to maximise/restore.
#pragma once

#include <vtkSmartPointer.h>

#include <Eigen/Core>
#include <cstdint>
#include <memory>

#include "recon/core/Volume.h"
#include "render/ColourMaps.h"
#include "render/VtkOpenGLWidget.h"
#include "render/WindowLevel.h"

class vtkActor;
class vtkColorTransferFunction;
class vtkImageActor;
class vtkImageData;
class vtkLookupTable;
class vtkOrientationMarkerWidget;
class vtkPiecewiseFunction;
class vtkSmartVolumeMapper;
class vtkVolume;
class vtkVolumeProperty;

namespace tomowb::render {

class VolumeView3D : public VtkOpenGLWidget {
  Q_OBJECT

 public:
  enum class Mode { VolumeRendering, SlicePlanes };

  explicit VolumeView3D(QWidget* parent = nullptr);
  ~VolumeView3D() override;

  // keepViewState: keep the camera (live previews); a volume on the same grid only swaps the
  // voxel array. A volume above the rendered size is box-averaged on a worker thread and shown
  // when that is done: until then volume() is the one before and reductionPending() is true.
  void setVolume(std::shared_ptr<const Volume> volume, bool keepViewState = false);
  bool reductionPending() const noexcept { return reductionPending_; }
  // Draws a tiny invisible volume once, so the ray caster's shaders are compiled before the
  // first real volume arrives (that first draw took ~70 ms under software OpenGL, in the frame
  // that shows a run's result). Does nothing once a volume has been shown. Needs a shown widget.
  void warmUp();
  const std::shared_ptr<const Volume>& volume() const noexcept { return volume_; }

  void setWindowLevel(double window, double level);
  const WindowLevel& windowLevel() const noexcept { return windowLevel_; }
  void setColourMap(ColourMap map);
  // The point the fallback slice planes pass through (the linked crosshair).
  void setCrosshair(const Eigen::Vector3d& worldMm);

  // Volume rendering unless it was found unsupported or slice planes were forced.
  Mode mode() const noexcept { return mode_; }
  void setForceSlicePlanes(bool force);
  void resetCamera();
  bool exportScreenshot(const QString& path);

 signals:
  void maximiseToggleRequested();

 protected:
  void paintGL() override;
  void mouseDoubleClickEvent(QMouseEvent* event) override;

 private:
  void showVolume(std::shared_ptr<const Volume> volume, bool keepViewState);
  void updateTransferFunctions();
  void updatePlanes();
  void updateOutline();
  void applyMode();

  std::shared_ptr<const Volume> volume_;
  vtkSmartPointer<vtkImageData> image_;
  vtkSmartPointer<vtkSmartVolumeMapper> volumeMapper_;
  vtkSmartPointer<vtkVolume> volumeProp_;
  vtkSmartPointer<vtkVolumeProperty> volumeProperty_;
  vtkSmartPointer<vtkColorTransferFunction> colours_;
  vtkSmartPointer<vtkPiecewiseFunction> opacity_;
  vtkSmartPointer<vtkImageActor> planes_[3];
  vtkSmartPointer<vtkLookupTable> planeTable_;
  vtkSmartPointer<vtkActor> outline_;
  vtkSmartPointer<vtkOrientationMarkerWidget> axesWidget_;
  WindowLevel windowLevel_;
  ColourMap colourMap_ = ColourMap::Grey;
  Eigen::Vector3d crosshair_ = Eigen::Vector3d::Zero();
  Mode mode_ = Mode::VolumeRendering;
  bool forcePlanes_ = false;
  bool supportChecked_ = false;
  bool warmedUp_ = false;
  std::uint64_t volumeGeneration_ = 0;  // a reduction finishing late is dropped
  bool reductionPending_ = false;
  // Given since the last setVolume(): a volume shown later keeps them instead of its defaults.
  bool windowLevelGiven_ = false;
  bool crosshairGiven_ = false;
};

}  // namespace tomowb::render
