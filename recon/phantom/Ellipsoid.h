// Ellipsoid: one additive ellipsoid of an analytic phantom, as in the 3-D Shepp-Logan phantom of
// Kak & Slaney ("Principles of Computerized Tomographic Imaging", 1988, ch. 3): inside it the
// phantom's value grows by `density`; ellipsoids that overlap add. The ray intersection is exact
// (a quadratic in the ellipsoid's unit-sphere frame), so line integrals through a phantom made of
// ellipsoids are exact up to rounding (docs/phantoms.md).
#pragma once

#include <Eigen/Core>
#include <optional>

#include "recon/phantom/RayInterval.h"

namespace tomowb::phantom {

struct Ellipsoid {
  Eigen::Vector3d centreMm = Eigen::Vector3d::Zero();
  Eigen::Vector3d semiAxesMm = Eigen::Vector3d::Ones();
  // Columns are the ellipsoid's own axes (those of semiAxesMm) in world coordinates; orthonormal.
  Eigen::Matrix3d rotation = Eigen::Matrix3d::Identity();
  // Added to the phantom inside the ellipsoid: attenuation in 1/mm (or any "phantom unit": line
  // integrals then come out in that unit times mm).
  double density = 0.0;

  static Ellipsoid sphere(const Eigen::Vector3d& centreMm, double radiusMm, double density);

  // True on the surface and inside.
  bool contains(const Eigen::Vector3d& pointMm) const;
  // Where the whole line origin + t * direction (direction need not be unit) is inside, or
  // nullopt if it misses. A tangent line gives an empty interval.
  std::optional<RayInterval> intersect(const Eigen::Vector3d& origin,
                                       const Eigen::Vector3d& direction) const;
  // Exact length (mm) of the intersection of the whole line with the ellipsoid; 0 on a miss.
  double chordLength(const Eigen::Vector3d& rayOrigin, const Eigen::Vector3d& unitDirection) const;
  double volumeMm3() const;
  // Half sizes (mm) of the ellipsoid's axis-aligned bounding box, exact for any rotation.
  Eigen::Vector3d halfExtentMm() const;
};

}  // namespace tomowb::phantom
