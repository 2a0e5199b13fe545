// ArcFrame: the frame of a cone view whose detector is a cylinder centred on the source (an arc
// detector, as on third-generation CT scanners such as the GE LightSpeed of the SF seed; ASTRA's
// cyl_cone_vec), and the two maps every consumer of such a view shares: pixel (col, row) to world
// and world to fractional (col, row). Ray-driven projectors, the separable-footprint pair (CPU and
// GPU) and the analytic phantom projector all go through these, so that they agree on where a
// cell is (reference/sf-projectors.md, section 2 "Arc detectors"; docs/geometry.md).
//
// For view (S source, D detector centre, u, v) the cylinder's axis runs through S along
// v^ = v/|v|; n is the unit vector from S towards D in the plane perpendicular to v^, e = u/|u|
// (the arc's tangent at D, so e is perpendicular to n and v^), R the in-plane distance from S to D
// (= |D - S| unless D is shifted along the axis by h0 = (D - S).v^). Pixel (c, r) lies at
//   S + R (cos g n + sin g e) + h0 v^ + (r - centreRow) v,   g = (c - centreColumn) |u| / R,
// so columns grow along e (the same side as a flat detector's u), g is the fan angle of the
// column, and pixel (centreColumn, centreRow) is D.
#pragma once

#include <Eigen/Core>
#include <cstdint>

#include "recon/geometry/Geometry.h"

namespace tomowb {

struct ArcFrame {
  Eigen::Vector3d source = Eigen::Vector3d::Zero();
  Eigen::Vector3d n = Eigen::Vector3d::UnitX();  // unit, source -> detector centre, in-plane
  Eigen::Vector3d e = Eigen::Vector3d::UnitY();  // unit, u / |u|: columns grow along it
  Eigen::Vector3d v = Eigen::Vector3d::UnitZ();  // unit, the cylinder's axis (rows grow along it)
  double radius = 1.0;        // R, mm: in-plane distance from the source to the detector
  double columnPitch = 1.0;   // |u|: arc length per column, mm
  double rowPitch = 1.0;      // |v|, mm
  double centreColumn = 0.0;  // (cols - 1) / 2
  double centreRow = 0.0;     // (rows - 1) / 2
  double axialOffset = 0.0;   // h0 = (D - S) . v^, mm: 0 unless the detector is shifted along v

  // The fan angle (radians) of column coordinate `col`: positive towards e.
  double fanAngle(double col) const { return (col - centreColumn) * columnPitch / radius; }
  // World position of pixel (col, row), fractional coordinates allowed.
  Eigen::Vector3d pixel(double col, double row) const;
  // Fractional (col, row) where the ray from the source through `point` meets the cylinder:
  //   col = centreColumn + R atan2((p - S).e, (p - S).n) / |u|,
  //   row = centreRow + ((p - S).v^ R / rInPlane - h0) / |v|,
  // rInPlane = |(p - S) - ((p - S).v^) v^|, the point's distance from the axis. A point on the
  // axis (rInPlane = 0) has no column: the result is then not finite.
  Eigen::Vector2d pixelCoordinates(const Eigen::Vector3d& point) const;
  // The point's distance from the cylinder's axis (the in-plane source distance r of the SF
  // digest, which takes the place of a flat detector's depth).
  double inPlaneDistance(const Eigen::Vector3d& point) const;
};

// The frame of view `viewIndex`, which must have a cylindrical detector (assert); the geometry is
// assumed valid (Geometry::validate).
ArcFrame arcFrame(const Geometry& geometry, std::int64_t viewIndex);

// The geometry whose views are those of `geometry` with every cylindrical detector replaced by
// the flat one tangent to it at its centre that spans the same fan angles with the same columns
// (column pitch 2 R tan(arc / 2) / cols) and has its rows. Its field of view is the arc's; an arc
// column's rows subtend at least the flat one's, so a slab the flat detector measures completely
// the arc does too. For grid policies (fdk::fieldOfViewGrid), never for projections.
Geometry flatEquivalentGeometry(const Geometry& geometry);

}  // namespace tomowb
