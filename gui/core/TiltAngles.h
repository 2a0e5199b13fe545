// TiltAngles: the tilt angle of every view of a parallel-beam geometry, read back from the views'
// ray directions, so that the projection browser can say "view 12: tilt -36.0 degrees" for any
// tilt series however it was built (tiltSeries(), an MRC stack with its .tlt, .xf and .xtilt).
//
// The tilt axis is the direction the rays are all perpendicular to: the eigenvector of the
// smallest eigenvalue of sum(r r^T) over the views' unit ray directions r (for a single-axis
// series the rays lie in one plane and that eigenvalue is 0), signed to point along +z
// (ScanBuilders.h: the tilt axis is world +z). Tilt 0 is the ray along -y (the beam at tilt 0),
// projected onto the plane of the rays, and the angle grows right-handed about the axis, so a
// geometry made by tiltSeries() gives back its own tiltAnglesRad (with an x-axis tilt too: the
// whole plane turns with it).
#pragma once

#include <Eigen/Core>
#include <vector>

#include "recon/geometry/Geometry.h"

namespace tomowb::gui {

struct TiltAxisFit {
  Eigen::Vector3d axis = Eigen::Vector3d::UnitZ();  // unit, z >= 0
  std::vector<double> tiltsRad;                     // one per view
  // The largest |r . axis| over the views: 0 for a single-axis series.
  double largestOffAxis = 0;
};

// Empty tiltsRad for a cone beam or a geometry without views.
TiltAxisFit fitTiltAxis(const Geometry& geometry);

// A single-axis tilt series as ET takes it: parallel beam, every ray within 1e-3 of the plane
// perpendicular to one axis, and a tilt range short of 170 degrees (the missing wedge; a parallel
// CT scan over 180 degrees is not one).
bool isTiltSeries(const Geometry& geometry);

}  // namespace tomowb::gui
