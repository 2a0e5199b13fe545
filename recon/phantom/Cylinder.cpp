#include "recon/phantom/Cylinder.h"

#include <algorithm>
#include <cmath>
#include <numbers>

#include "recon/phantom/PreparedShape.h"

namespace tomowb::phantom {

bool Cylinder::contains(const Eigen::Vector3d& pointMm) const {
  return PreparedShape(*this).contains(pointMm);
}

std::optional<RayInterval> Cylinder::intersect(const Eigen::Vector3d& origin,
                                               const Eigen::Vector3d& direction) const {
  RayInterval interval;
  if (!PreparedShape(*this).intersect(origin, direction, interval)) return std::nullopt;
  return interval;
}

double Cylinder::chordLength(const Eigen::Vector3d& rayOrigin,
                             const Eigen::Vector3d& unitDirection) const {
  const auto interval = intersect(rayOrigin, unitDirection);
  return interval ? interval->length() : 0.0;
}

double Cylinder::volumeMm3() const {
  return std::numbers::pi * radiusMm * radiusMm * 2.0 * halfLengthMm;
}

Eigen::Vector3d Cylinder::halfExtentMm() const {
  // Along world axis i the end discs reach r * sqrt(1 - a_i^2) and the axis h * |a_i|, where a is
  // the unit axis.
  Eigen::Vector3d extent;
  for (int i = 0; i < 3; ++i) {
    const double axial = rotation(i, 2);
    extent[i] =
        radiusMm * std::sqrt(std::max(0.0, 1.0 - axial * axial)) + halfLengthMm * std::abs(axial);
  }
  return extent;
}

}  // namespace tomowb::phantom
