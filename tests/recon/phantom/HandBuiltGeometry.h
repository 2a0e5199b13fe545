// Geometries built view by view from the vector-form fields, for the phantom tests: they depend
// only on Geometry.h's documented conventions, not on the scan builders.
#pragma once

#include <cmath>
#include <cstdint>
#include <numbers>
#include <vector>

#include "recon/geometry/Geometry.h"

namespace tomowb::phantom::test {

// Circular cone beam: source at sourceToIsocentreMm (cos t, sin t, 0), flat detector centred at
// -(sourceToDetectorMm - sourceToIsocentreMm) (cos t, sin t, 0), u = pitch (-sin t, cos t, 0),
// v = pitch (0, 0, 1).
inline Geometry circularCone(const std::vector<double>& anglesRad, double sourceToIsocentreMm,
                             double sourceToDetectorMm, std::int64_t cols, std::int64_t rows,
                             double pitchMm) {
  std::vector<View> views;
  for (double t : anglesRad) {
    const Eigen::Vector3d radial(std::cos(t), std::sin(t), 0.0);
    View view;
    view.source = sourceToIsocentreMm * radial;
    view.detectorCentre = -(sourceToDetectorMm - sourceToIsocentreMm) * radial;
    view.u = pitchMm * Eigen::Vector3d(-std::sin(t), std::cos(t), 0.0);
    view.v = pitchMm * Eigen::Vector3d::UnitZ();
    views.push_back(view);
  }
  return Geometry(BeamKind::Cone, DetectorShape{cols, rows}, views);
}

// Parallel beam: rays travel along -(cos t, sin t, 0); the detector is centred 200 mm down the
// beam with the same u and v as circularCone.
inline Geometry parallel(const std::vector<double>& anglesRad, std::int64_t cols, std::int64_t rows,
                         double pitchMm) {
  std::vector<View> views;
  for (double t : anglesRad) {
    const Eigen::Vector3d radial(std::cos(t), std::sin(t), 0.0);
    View view;
    view.rayDirection = -radial;
    view.detectorCentre = -200.0 * radial;
    view.u = pitchMm * Eigen::Vector3d(-std::sin(t), std::cos(t), 0.0);
    view.v = pitchMm * Eigen::Vector3d::UnitZ();
    views.push_back(view);
  }
  return Geometry(BeamKind::Parallel, DetectorShape{cols, rows}, views);
}

inline std::vector<double> evenAnglesRad(int count, double startRad = 0.0) {
  std::vector<double> angles;
  for (int i = 0; i < count; ++i) angles.push_back(startRad + 2.0 * std::numbers::pi * i / count);
  return angles;
}

}  // namespace tomowb::phantom::test
