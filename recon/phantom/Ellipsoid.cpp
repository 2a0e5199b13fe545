#include "recon/phantom/Ellipsoid.h"

#include <numbers>

#include "recon/phantom/PreparedShape.h"

namespace tomowb::phantom {

Ellipsoid Ellipsoid::sphere(const Eigen::Vector3d& centreMm, double radiusMm, double density) {
  Ellipsoid e;
  e.centreMm = centreMm;
  e.semiAxesMm = Eigen::Vector3d::Constant(radiusMm);
  e.density = density;
  return e;
}

bool Ellipsoid::contains(const Eigen::Vector3d& pointMm) const {
  return PreparedShape(*this).contains(pointMm);
}

std::optional<RayInterval> Ellipsoid::intersect(const Eigen::Vector3d& origin,
                                                const Eigen::Vector3d& direction) const {
  RayInterval interval;
  if (!PreparedShape(*this).intersect(origin, direction, interval)) return std::nullopt;
  return interval;
}

double Ellipsoid::chordLength(const Eigen::Vector3d& rayOrigin,
                              const Eigen::Vector3d& unitDirection) const {
  const auto interval = intersect(rayOrigin, unitDirection);
  return interval ? interval->length() : 0.0;
}

double Ellipsoid::volumeMm3() const {
  return 4.0 / 3.0 * std::numbers::pi * semiAxesMm.prod();
}

Eigen::Vector3d Ellipsoid::halfExtentMm() const {
  // Support function of the ellipsoid along world axis i: |diag(a) R^T e_i|.
  const Eigen::Matrix3d scaledAxes = rotation * semiAxesMm.asDiagonal();
  return scaledAxes.rowwise().norm();
}

}  // namespace tomowb::phantom
