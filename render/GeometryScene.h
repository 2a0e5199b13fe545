// GeometryScene: the geometry editor's 3-D picture of a scan, drawn with VTK inside our Qt 6
// adapter (VtkOpenGLWidget). It shows the source trajectory (a polyline through every view's
// source; for parallel beams, arrows along the ray directions), the detector of the selected view
// (a quad with its u (red) and v (green) axes drawn from pixel (0,0), whose centre is marked),
// the central ray and the four edge rays of that view, the volume box, the field-of-view cylinder
// (the largest cylinder about z that every view sees whole), the rotation axis (+z) and labelled
// world axes. Conventions are docs/geometry.md's. Updates only rebuild polydata, so it can follow
// the form as the user types. Mouse: left rotates, middle pans, right zooms (trackball camera);
// the `r` key resets the camera.
#pragma once

#include <vtkSmartPointer.h>

#include <Eigen/Core>
#include <optional>

#include "recon/geometry/Geometry.h"
#include "render/VtkOpenGLWidget.h"

class vtkActor;
class vtkAxesActor;
class vtkBillboardTextActor3D;
class vtkPolyData;
class vtkPoints;

namespace tomowb::render {

// Radius (mm) of the largest cylinder about the z axis that lies inside every view's beam, seen
// from above (the central row's fan for cone views, the detector's width for parallel views).
// 0 when some view does not straddle the axis.
double fieldOfViewRadiusMm(const Geometry& geometry);

class GeometryScene : public VtkOpenGLWidget {
  Q_OBJECT

 public:
  explicit GeometryScene(QWidget* parent = nullptr);
  ~GeometryScene() override;
  GeometryScene(const GeometryScene&) = delete;
  GeometryScene& operator=(const GeometryScene&) = delete;

  const Geometry& geometry() const noexcept { return geometry_; }
  int selectedView() const noexcept { return selectedView_; }
  double fieldOfViewRadius() const noexcept { return fovRadiusMm_; }

 public slots:
  // Replaces the scan; keeps the selected view if it still exists (else view 0). The camera is
  // reset the first time and whenever the scene's size changes by more than a factor of 2.
  void setGeometry(const tomowb::Geometry& geometry);
  void setSelectedView(int view);
  // The reconstruction volume's box: its minimum corner (the outer face of voxel (0,0,0), i.e.
  // Volume::originMm() - voxelSizeMm / 2) and its size (mm).
  void setVolumeBox(const Eigen::Vector3d& minCornerMm, const Eigen::Vector3d& sizeMm);
  void clearVolumeBox();
  // Looks at the whole scan from an oblique direction above the +x/-y quadrant.
  void resetCamera();

 private:
  void rebuildTrajectory();
  void rebuildSelectedView();
  void rebuildVolumeAndFov();
  double sceneExtentMm() const;
  vtkSmartPointer<vtkActor> addActor(vtkPolyData* data, double r, double g, double b,
                                     double lineWidth = 1.0, double opacity = 1.0);

  Geometry geometry_;
  int selectedView_ = 0;
  std::optional<std::pair<Eigen::Vector3d, Eigen::Vector3d>> volumeBox_;
  double fovRadiusMm_ = 0;
  double cameraExtentMm_ = 0;  // the extent the camera was last reset for

  vtkSmartPointer<vtkPolyData> trajectory_, rayArrows_, sourceMarker_, detectorQuad_,
      detectorEdges_, detectorU_, detectorV_, pixelZero_, centralRay_, edgeRays_, volumeBoxData_,
      fovCylinder_, rotationAxis_;
  vtkSmartPointer<vtkActor> detectorActor_;
  vtkSmartPointer<vtkAxesActor> axes_;
  vtkSmartPointer<vtkBillboardTextActor3D> detectorLabel_, sourceLabel_;
};

}  // namespace tomowb::render
