#include "recon/geometry/ArcFrame.h"

#include <cassert>
#include <cmath>
#include <utility>
#include <vector>

namespace tomowb {

Eigen::Vector3d ArcFrame::pixel(double col, double row) const {
  const double g = fanAngle(col);
  return source + radius * (std::cos(g) * n + std::sin(g) * e) +
         (axialOffset + (row - centreRow) * rowPitch) * v;
}

double ArcFrame::inPlaneDistance(const Eigen::Vector3d& point) const {
  const Eigen::Vector3d d = point - source;
  return (d - d.dot(v) * v).norm();
}

Eigen::Vector2d ArcFrame::pixelCoordinates(const Eigen::Vector3d& point) const {
  const Eigen::Vector3d d = point - source;
  const double along = d.dot(v);
  const double rInPlane = (d - along * v).norm();
  const double col = centreColumn + radius * std::atan2(d.dot(e), d.dot(n)) / columnPitch;
  const double row = centreRow + (along * radius / rInPlane - axialOffset) / rowPitch;
  return {col, row};
}

ArcFrame arcFrame(const Geometry& geometry, std::int64_t viewIndex) {
  const View& view = geometry.view(viewIndex);
  assert(view.surface == DetectorSurface::Cylinder);
  ArcFrame f;
  f.source = view.source;
  f.rowPitch = view.v.norm();
  f.v = view.v / f.rowPitch;
  f.columnPitch = view.u.norm();
  f.e = view.u / f.columnPitch;
  const Eigen::Vector3d toCentre = view.detectorCentre - view.source;
  f.axialOffset = toCentre.dot(f.v);
  const Eigen::Vector3d inPlane = toCentre - f.axialOffset * f.v;
  f.radius = inPlane.norm();
  f.n = inPlane / f.radius;
  f.centreColumn = 0.5 * static_cast<double>(geometry.detector().cols - 1);
  f.centreRow = 0.5 * static_cast<double>(geometry.detector().rows - 1);
  return f;
}

Geometry flatEquivalentGeometry(const Geometry& geometry) {
  std::vector<View> views = geometry.views();
  const auto cols = static_cast<double>(geometry.detector().cols);
  for (std::size_t i = 0; i < views.size(); ++i) {
    View& view = views[i];
    if (view.surface != DetectorSurface::Cylinder) continue;
    const ArcFrame f = arcFrame(geometry, static_cast<std::int64_t>(i));
    const double halfArc = 0.5 * cols * f.columnPitch / f.radius;
    view.u = f.e * (2.0 * f.radius * std::tan(halfArc) / cols);
    view.surface = DetectorSurface::Flat;
  }
  return {geometry.beam(), geometry.detector(), std::move(views)};
}

}  // namespace tomowb
