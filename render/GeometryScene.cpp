#include "render/GeometryScene.h"

#include <vtkActor.h>
#include <vtkAxesActor.h>
#include <vtkBillboardTextActor3D.h>
#include <vtkCamera.h>
#include <vtkCaptionActor2D.h>
#include <vtkCellArray.h>
#include <vtkGenericRenderWindowInteractor.h>
#include <vtkInteractorStyleTrackballCamera.h>
#include <vtkNew.h>
#include <vtkObjectFactory.h>
#include <vtkPoints.h>
#include <vtkPolyData.h>
#include <vtkPolyDataMapper.h>
#include <vtkProperty.h>
#include <vtkRenderWindowInteractor.h>
#include <vtkRenderer.h>
#include <vtkTextActor.h>
#include <vtkTextProperty.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <numbers>
#include <string>
#include <vector>

namespace tomowb::render {

namespace {

constexpr double kPi = std::numbers::pi;
// Views drawn as arrows for a parallel beam: more would hide each other.
constexpr std::int64_t kMaxArrows = 36;
// Flat pieces an arc detector is drawn with: enough for the arc to look round.
constexpr int kArcSegments = 24;

using Points = std::vector<Eigen::Vector3d>;
using Cells = std::vector<std::vector<vtkIdType>>;

// Trackball camera without VTK's other keys ('q'/'e' quit, 'w'/'s' wireframe, '3' stereo...):
// only `r`, which resets to our oblique view.
class SceneInteractorStyle : public vtkInteractorStyleTrackballCamera {
 public:
  static SceneInteractorStyle* New();
  vtkTypeMacro(SceneInteractorStyle, vtkInteractorStyleTrackballCamera);
  void OnChar() override {
    const char key = this->Interactor ? this->Interactor->GetKeyCode() : 0;
    if ((key == 'r' || key == 'R') && reset) reset();
  }
  void OnKeyPress() override {}
  std::function<void()> reset;
};
vtkStandardNewMacro(SceneInteractorStyle);

// Replaces the polydata's content: points, and `lines` (polylines) or `polys`.
void setPolyData(vtkPolyData* data, const Points& points, const Cells& lines,
                 const Cells& polys = {}, bool vertices = false) {
  vtkNew<vtkPoints> p;
  p->SetNumberOfPoints(static_cast<vtkIdType>(points.size()));
  for (std::size_t i = 0; i < points.size(); ++i)
    p->SetPoint(static_cast<vtkIdType>(i), points[i].x(), points[i].y(), points[i].z());
  auto cells = [](const Cells& list) {
    vtkNew<vtkCellArray> array;
    for (const auto& cell : list)
      array->InsertNextCell(static_cast<vtkIdType>(cell.size()), cell.data());
    return vtkSmartPointer<vtkCellArray>(array.GetPointer());
  };
  data->SetPoints(p);
  data->SetLines(cells(lines));
  data->SetPolys(cells(polys));
  vtkNew<vtkCellArray> verts;
  if (vertices)
    for (vtkIdType i = 0; i < static_cast<vtkIdType>(points.size()); ++i)
      verts->InsertNextCell(1, &i);
  data->SetVerts(verts);
  data->Modified();
}

void clearPolyData(vtkPolyData* data) {
  setPolyData(data, {}, {});
}

Eigen::Vector3d xy(const Eigen::Vector3d& p) {
  return {p.x(), p.y(), 0.0};
}

double cross2(const Eigen::Vector3d& a, const Eigen::Vector3d& b) {
  return a.x() * b.y() - a.y() * b.x();
}

}  // namespace

double fieldOfViewRadiusMm(const Geometry& g) {
  if (g.viewCount() == 0) return 0.0;
  const auto& det = g.detector();
  const double midRow = 0.5 * static_cast<double>(det.rows - 1);
  double radius = std::numeric_limits<double>::infinity();
  for (std::int64_t i = 0; i < g.viewCount(); ++i) {
    const Eigen::Vector3d left = xy(g.pixelPosition(i, -0.5, midRow));
    const Eigen::Vector3d right =
        xy(g.pixelPosition(i, static_cast<double>(det.cols) - 0.5, midRow));
    double dl, dr;  // signed distances of the axis from the two edge rays
    if (g.beam() == BeamKind::Cone) {
      const Eigen::Vector3d s = xy(g.view(i).source);
      if ((left - s).norm() < 1e-12 || (right - s).norm() < 1e-12) return 0.0;
      dl = cross2(left - s, -s) / (left - s).norm();
      dr = cross2(right - s, -s) / (right - s).norm();
    } else {
      const Eigen::Vector3d d = xy(g.view(i).rayDirection);
      if (d.norm() < 1e-12) return 0.0;
      const Eigen::Vector3d n(-d.y() / d.norm(), d.x() / d.norm(), 0.0);
      dl = -left.dot(n);
      dr = -right.dot(n);
    }
    if (dl * dr >= 0) return 0.0;  // the axis lies outside this view's beam
    radius = std::min(radius, std::min(std::abs(dl), std::abs(dr)));
  }
  return std::isfinite(radius) ? radius : 0.0;
}

GeometryScene::GeometryScene(QWidget* parent) : VtkOpenGLWidget(parent) {
  for (auto* data : {&trajectory_, &rayArrows_, &sourceMarker_, &detectorQuad_, &detectorEdges_,
                     &detectorU_, &detectorV_, &pixelZero_, &centralRay_, &edgeRays_,
                     &volumeBoxData_, &fovCylinder_, &rotationAxis_})
    *data = vtkSmartPointer<vtkPolyData>::New();

  vtkRenderer* r = renderer();
  r->SetBackground(0.10, 0.11, 0.14);
  r->SetBackground2(0.22, 0.24, 0.30);
  r->GradientBackgroundOn();

  addActor(trajectory_, 1.0, 0.85, 0.2, 2.0);
  addActor(rayArrows_, 1.0, 0.85, 0.2, 2.0);
  auto source = addActor(sourceMarker_, 1.0, 0.95, 0.3);
  source->GetProperty()->SetPointSize(12);
  source->GetProperty()->RenderPointsAsSpheresOn();
  detectorActor_ = addActor(detectorQuad_, 0.35, 0.65, 0.95, 1.0, 0.55);
  addActor(detectorEdges_, 0.6, 0.85, 1.0, 2.0);
  addActor(detectorU_, 1.0, 0.25, 0.25, 4.0);
  addActor(detectorV_, 0.3, 1.0, 0.3, 4.0);
  auto zero = addActor(pixelZero_, 1.0, 1.0, 1.0);
  zero->GetProperty()->SetPointSize(10);
  zero->GetProperty()->RenderPointsAsSpheresOn();
  addActor(centralRay_, 1.0, 1.0, 1.0, 2.0);
  addActor(edgeRays_, 0.75, 0.75, 0.75, 1.0, 0.5);
  addActor(volumeBoxData_, 0.95, 0.55, 0.95, 2.0);
  addActor(fovCylinder_, 0.3, 0.9, 0.8, 1.0, 0.7);
  addActor(rotationAxis_, 0.7, 0.7, 0.7, 1.0);

  axes_ = vtkSmartPointer<vtkAxesActor>::New();
  axes_->SetShaftTypeToLine();
  for (vtkCaptionActor2D* caption :
       {axes_->GetXAxisCaptionActor2D(), axes_->GetYAxisCaptionActor2D(),
        axes_->GetZAxisCaptionActor2D()}) {
    // Fixed-size labels: by default a caption scales with the viewport and dwarfs the scene.
    caption->GetTextActor()->SetTextScaleModeToNone();
    caption->GetCaptionTextProperty()->SetFontSize(14);
    caption->GetCaptionTextProperty()->BoldOff();
    caption->GetCaptionTextProperty()->ShadowOff();
    caption->GetCaptionTextProperty()->ItalicOff();
  }
  r->AddActor(axes_);

  auto makeLabel = [r](double red, double green, double blue) {
    auto label = vtkSmartPointer<vtkBillboardTextActor3D>::New();
    label->GetTextProperty()->SetFontSize(14);
    label->GetTextProperty()->SetColor(red, green, blue);
    label->GetTextProperty()->SetJustificationToLeft();
    r->AddActor(label);
    return label;
  };
  sourceLabel_ = makeLabel(1.0, 0.9, 0.4);
  detectorLabel_ = makeLabel(0.7, 0.9, 1.0);

  vtkNew<SceneInteractorStyle> style;
  style->reset = [this] { resetCamera(); };
  style->SetDefaultRenderer(r);
  interactor()->SetInteractorStyle(style);
}

GeometryScene::~GeometryScene() = default;

vtkSmartPointer<vtkActor> GeometryScene::addActor(vtkPolyData* data, double r, double g, double b,
                                                  double lineWidth, double opacity) {
  vtkNew<vtkPolyDataMapper> mapper;
  mapper->SetInputData(data);
  auto actor = vtkSmartPointer<vtkActor>::New();
  actor->SetMapper(mapper);
  actor->GetProperty()->SetColor(r, g, b);
  actor->GetProperty()->SetLineWidth(static_cast<float>(lineWidth));
  actor->GetProperty()->SetOpacity(opacity);
  actor->GetProperty()->SetAmbient(0.6);
  actor->GetProperty()->SetDiffuse(0.4);
  actor->PickableOff();
  renderer()->AddActor(actor);
  return actor;
}

void GeometryScene::setGeometry(const Geometry& geometry) {
  geometry_ = geometry;
  if (selectedView_ >= geometry_.viewCount()) selectedView_ = 0;
  fovRadiusMm_ = fieldOfViewRadiusMm(geometry_);
  rebuildTrajectory();
  rebuildSelectedView();
  rebuildVolumeAndFov();
  const double extent = sceneExtentMm();
  if (cameraExtentMm_ <= 0 || extent > 2 * cameraExtentMm_ || extent < 0.5 * cameraExtentMm_)
    resetCamera();
  requestRender();
}

void GeometryScene::setSelectedView(int view) {
  if (view < 0 || view >= geometry_.viewCount()) return;
  selectedView_ = view;
  rebuildSelectedView();
  requestRender();
}

void GeometryScene::setVolumeBox(const Eigen::Vector3d& minCornerMm,
                                 const Eigen::Vector3d& sizeMm) {
  volumeBox_ = std::make_pair(minCornerMm, sizeMm);
  rebuildVolumeAndFov();
  requestRender();
}

void GeometryScene::clearVolumeBox() {
  volumeBox_.reset();
  rebuildVolumeAndFov();
  requestRender();
}

double GeometryScene::sceneExtentMm() const {
  // From the geometry alone: a tilt series of nanometre pixels spans a micrometre.
  double extent = 0.0;
  const auto& det = geometry_.detector();
  for (std::int64_t i = 0; i < geometry_.viewCount(); ++i) {
    const View& v = geometry_.view(i);
    const double halfDiagonal = 0.5 * (static_cast<double>(det.cols) * v.u.norm() +
                                       static_cast<double>(det.rows) * v.v.norm());
    extent = std::max(extent, v.detectorCentre.norm() + halfDiagonal);
    if (geometry_.beam() == BeamKind::Cone) extent = std::max(extent, v.source.norm());
  }
  if (volumeBox_) {
    const Eigen::Vector3d lo = volumeBox_->first, hi = lo + volumeBox_->second;
    extent = std::max({extent, lo.cwiseAbs().maxCoeff(), hi.cwiseAbs().maxCoeff()});
  }
  return extent > 0 && std::isfinite(extent) ? extent : 1.0;
}

void GeometryScene::rebuildTrajectory() {
  const std::int64_t n = geometry_.viewCount();
  if (geometry_.beam() == BeamKind::Cone) {
    Points points;
    std::vector<vtkIdType> line;
    for (std::int64_t i = 0; i < n; ++i) {
      points.push_back(geometry_.view(i).source);
      line.push_back(static_cast<vtkIdType>(i));
    }
    setPolyData(trajectory_, points, {line});
    clearPolyData(rayArrows_);
    return;
  }
  clearPolyData(trajectory_);
  // Parallel beam: an arrow per view (at most kMaxArrows, evenly picked) on the source side,
  // pointing along the rays, at a distance beyond the detector.
  const double distance = 0.9 * sceneExtentMm();
  Points points;
  Cells lines;
  const std::int64_t step = std::max<std::int64_t>(1, (n + kMaxArrows - 1) / kMaxArrows);
  for (std::int64_t i = 0; i < n; i += step) {
    const Eigen::Vector3d d = geometry_.view(i).rayDirection.normalized();
    Eigen::Vector3d side = Eigen::Vector3d::UnitZ().cross(d);
    if (side.norm() < 1e-9) side = Eigen::Vector3d::UnitX();
    side.normalize();
    const Eigen::Vector3d tail = -1.3 * distance * d, tip = -0.85 * distance * d;
    const double head = 0.08 * distance;
    const auto base = static_cast<vtkIdType>(points.size());
    points.insert(points.end(), {tail, tip, tip - head * d + 0.5 * head * side,
                                 tip - head * d - 0.5 * head * side});
    lines.push_back({base, base + 1});
    lines.push_back({base + 2, base + 1, base + 3});
  }
  setPolyData(rayArrows_, points, lines);
}

void GeometryScene::rebuildSelectedView() {
  if (geometry_.viewCount() == 0) {
    for (vtkPolyData* d :
         {sourceMarker_.Get(), detectorQuad_.Get(), detectorEdges_.Get(), detectorU_.Get(),
          detectorV_.Get(), pixelZero_.Get(), centralRay_.Get(), edgeRays_.Get()})
      clearPolyData(d);
    sourceLabel_->SetInput("");
    detectorLabel_->SetInput("");
    return;
  }
  const std::int64_t i = selectedView_;
  const View& v = geometry_.view(i);
  const auto cols = static_cast<double>(geometry_.detector().cols);
  const auto rows = static_cast<double>(geometry_.detector().rows);
  // Outer corners of the detector, starting at pixel (0,0)'s corner.
  const Points corners{geometry_.pixelPosition(i, -0.5, -0.5),
                       geometry_.pixelPosition(i, cols - 0.5, -0.5),
                       geometry_.pixelPosition(i, cols - 0.5, rows - 0.5),
                       geometry_.pixelPosition(i, -0.5, rows - 0.5)};
  if (v.surface == DetectorSurface::Cylinder) {
    // An arc detector: a strip of quads along the arc, its outline following the arc.
    Points strip;
    Cells quads;
    std::vector<vtkIdType> outline;
    for (int k = 0; k <= kArcSegments; ++k) {
      const double col = -0.5 + cols * static_cast<double>(k) / kArcSegments;
      strip.push_back(geometry_.pixelPosition(i, col, -0.5));
      strip.push_back(geometry_.pixelPosition(i, col, rows - 0.5));
      if (k > 0) quads.push_back({2 * k - 2, 2 * k, 2 * k + 1, 2 * k - 1});
    }
    for (vtkIdType k = 0; k <= kArcSegments; ++k) outline.push_back(2 * k);
    for (vtkIdType k = kArcSegments; k >= 0; --k) outline.push_back(2 * k + 1);
    outline.push_back(0);
    setPolyData(detectorQuad_, strip, {}, quads);
    setPolyData(detectorEdges_, strip, {outline});
  } else {
    setPolyData(detectorQuad_, corners, {}, {{0, 1, 2, 3}});
    setPolyData(detectorEdges_, corners, {{0, 1, 2, 3, 0}});
  }
  // u and v axes from pixel (0,0): a third of the detector's width and height.
  const Eigen::Vector3d origin = geometry_.pixelPosition(i, 0, 0);
  setPolyData(detectorU_, {origin, origin + v.u * std::max(1.0, cols / 3)}, {{0, 1}});
  setPolyData(detectorV_, {origin, origin + v.v * std::max(1.0, rows / 3)}, {{0, 1}});
  setPolyData(pixelZero_, {origin}, {}, {}, true);

  Eigen::Vector3d from;
  if (geometry_.beam() == BeamKind::Cone) {
    from = v.source;
    setPolyData(sourceMarker_, {v.source}, {}, {}, true);
    Points rays{v.source};
    rays.insert(rays.end(), corners.begin(), corners.end());
    setPolyData(edgeRays_, rays, {{0, 1}, {0, 2}, {0, 3}, {0, 4}});
    sourceLabel_->SetInput("source");
    sourceLabel_->SetPosition(v.source.x(), v.source.y(), v.source.z());
  } else {
    const Eigen::Vector3d d = v.rayDirection.normalized();
    from = v.detectorCentre - 1.2 * sceneExtentMm() * d;
    clearPolyData(sourceMarker_);
    Points rays;
    Cells lines;
    for (const auto& c : corners) {
      lines.push_back(
          {static_cast<vtkIdType>(rays.size()), static_cast<vtkIdType>(rays.size() + 1)});
      rays.push_back(c - 1.2 * sceneExtentMm() * d);
      rays.push_back(c);
    }
    setPolyData(edgeRays_, rays, lines);
    sourceLabel_->SetInput("");
  }
  setPolyData(centralRay_, {from, v.detectorCentre}, {{0, 1}});
  const std::string label = "detector, view " + std::to_string(i) + " (u red, v green)";
  detectorLabel_->SetInput(label.c_str());
  detectorLabel_->SetPosition(corners[2].x(), corners[2].y(), corners[2].z());
}

void GeometryScene::rebuildVolumeAndFov() {
  // Volume box: 12 edges.
  if (volumeBox_) {
    const Eigen::Vector3d lo = volumeBox_->first, size = volumeBox_->second;
    Points p;
    for (int k = 0; k < 8; ++k)
      p.push_back(lo + Eigen::Vector3d((k & 1) ? size.x() : 0, (k & 2) ? size.y() : 0,
                                       (k & 4) ? size.z() : 0));
    setPolyData(volumeBoxData_, p,
                {{0, 1, 3, 2, 0}, {4, 5, 7, 6, 4}, {0, 4}, {1, 5}, {2, 6}, {3, 7}});
  } else {
    clearPolyData(volumeBoxData_);
  }

  // Height of the FOV cylinder and the axis: the volume box, else the detector's height scaled
  // to the axis (and the helix' rise).
  double zLo = 0, zHi = 0;
  if (volumeBox_) {
    zLo = volumeBox_->first.z();
    zHi = zLo + volumeBox_->second.z();
  } else if (geometry_.viewCount() > 0) {
    zLo = std::numeric_limits<double>::infinity();
    zHi = -zLo;
    for (std::int64_t i = 0; i < geometry_.viewCount(); ++i) {
      const View& v = geometry_.view(i);
      double half = 0.5 * static_cast<double>(geometry_.detector().rows) * v.v.norm();
      double centreZ = v.detectorCentre.z();
      if (geometry_.beam() == BeamKind::Cone) {
        const double toDetector = (xy(v.detectorCentre) - xy(v.source)).norm();
        const double magnification = toDetector > 0 ? xy(v.source).norm() / toDetector : 1.0;
        half *= magnification;
        centreZ = v.source.z() + (v.detectorCentre.z() - v.source.z()) * magnification;
      }
      zLo = std::min(zLo, centreZ - half);
      zHi = std::max(zHi, centreZ + half);
    }
  }
  const double extent = sceneExtentMm();
  setPolyData(rotationAxis_,
              {Eigen::Vector3d(0, 0, std::min(zLo, 0.0) - 0.3 * extent),
               Eigen::Vector3d(0, 0, std::max(zHi, 0.0) + 0.3 * extent)},
              {{0, 1}});
  axes_->SetTotalLength(0.3 * extent, 0.3 * extent, 0.3 * extent);

  if (fovRadiusMm_ <= 0 || !(zHi > zLo)) {
    clearPolyData(fovCylinder_);
    return;
  }
  constexpr int kSegments = 72;
  Points p;
  Cells lines;
  for (const double z : {zLo, zHi}) {
    std::vector<vtkIdType> ring;
    for (int k = 0; k <= kSegments; ++k) {
      const double a = 2 * kPi * k / kSegments;
      ring.push_back(static_cast<vtkIdType>(p.size()));
      p.emplace_back(fovRadiusMm_ * std::cos(a), fovRadiusMm_ * std::sin(a), z);
    }
    lines.push_back(ring);
  }
  for (int k = 0; k < kSegments; k += kSegments / 8) lines.push_back({k, k + kSegments + 1});
  setPolyData(fovCylinder_, p, lines);
}

void GeometryScene::resetCamera() {
  vtkRenderer* r = renderer();
  vtkCamera* camera = r->GetActiveCamera();
  const double extent = sceneExtentMm();
  camera->SetFocalPoint(0, 0, 0);
  camera->SetPosition(1.6 * extent, -2.4 * extent, 1.5 * extent);
  camera->SetViewUp(0, 0, 1);
  // Framed on the scene's own extent, not on the props' bounds: the text and axes props keep
  // bounds of their own that dwarf a micrometre-sized tilt series.
  const double bounds[6] = {-extent, extent, -extent, extent, -extent, extent};
  r->ResetCamera(bounds);
  camera->Zoom(1.15);
  cameraExtentMm_ = extent;
  requestRender();
}

}  // namespace tomowb::render
