// Cylinder: a solid right circular cylinder of a phantom (the water body of the contrast-to-noise
// phantom). Like an Ellipsoid it adds `density` inside and has an exact ray intersection: the
// quadratic of the round side, clipped by the slab between the two flat end caps.
#pragma once

#include <Eigen/Core>
#include <optional>

#include "recon/phantom/RayInterval.h"

namespace tomowb::phantom {

struct Cylinder {
  Eigen::Vector3d centreMm = Eigen::Vector3d::Zero();  // centre of the axis segment
  double radiusMm = 1.0;
  double halfLengthMm = 1.0;  // from the centre to each end cap, along the axis
  // Column 2 is the cylinder axis in world coordinates (identity: the axis is +z); orthonormal.
  Eigen::Matrix3d rotation = Eigen::Matrix3d::Identity();
  double density = 0.0;  // added inside, as Ellipsoid::density

  // True on the surface and inside.
  bool contains(const Eigen::Vector3d& pointMm) const;
  // Where the whole line origin + t * direction is inside, or nullopt if it misses.
  std::optional<RayInterval> intersect(const Eigen::Vector3d& origin,
                                       const Eigen::Vector3d& direction) const;
  // Exact length (mm) of the intersection of the whole line with the cylinder; 0 on a miss.
  double chordLength(const Eigen::Vector3d& rayOrigin, const Eigen::Vector3d& unitDirection) const;
  double volumeMm3() const;
  // Half sizes (mm) of the axis-aligned bounding box, exact for any rotation.
  Eigen::Vector3d halfExtentMm() const;
};

}  // namespace tomowb::phantom
