// PreparedShape: an Ellipsoid or Cylinder turned, once, into the affine map that takes world
// points to its canonical frame (the unit sphere, or the unit cylinder x^2 + y^2 <= 1, |z| <= 1),
// plus its axis-aligned bounding box. The projector and the voxeliser intersect millions of rays
// with a few shapes, so the intersection is inline and works on canonical-frame vectors that the
// callers update incrementally (the map is affine, so the ray parameter t is the same in both
// frames). The closest-approach form below keeps tangent and far-away rays accurate: it never
// subtracts two large squared distances.
#pragma once

#include <Eigen/Core>
#include <cassert>
#include <cmath>
#include <limits>

#include "recon/phantom/Cylinder.h"
#include "recon/phantom/Ellipsoid.h"
#include "recon/phantom/RayInterval.h"

namespace tomowb::phantom {

class PreparedShape {
 public:
  enum class Kind { Ellipsoid, Cylinder };

  explicit PreparedShape(const Ellipsoid& ellipsoid);
  explicit PreparedShape(const Cylinder& cylinder);

  Kind kind() const noexcept { return kind_; }
  double density() const noexcept { return density_; }
  double volumeMm3() const noexcept { return volumeMm3_; }
  const Eigen::Vector3d& centreMm() const noexcept { return centre_; }
  const Eigen::Vector3d& boxMinMm() const noexcept { return boxMin_; }
  const Eigen::Vector3d& boxMaxMm() const noexcept { return boxMax_; }

  // World point / world vector in the canonical frame.
  Eigen::Vector3d localPoint(const Eigen::Vector3d& pointMm) const {
    return toLocal_ * (pointMm - centre_);
  }
  Eigen::Vector3d localVector(const Eigen::Vector3d& vectorMm) const { return toLocal_ * vectorMm; }

  bool containsLocal(const Eigen::Vector3d& q) const noexcept {
    if (kind_ == Kind::Ellipsoid) return q.squaredNorm() <= 1.0;
    return q.x() * q.x() + q.y() * q.y() <= 1.0 && std::abs(q.z()) <= 1.0;
  }
  bool contains(const Eigen::Vector3d& pointMm) const { return containsLocal(localPoint(pointMm)); }

  // The interval of t where origin + t * direction (both in the canonical frame) is inside;
  // false on a miss. The direction must not be zero.
  bool intersectLocal(const Eigen::Vector3d& origin, const Eigen::Vector3d& direction,
                      RayInterval& out) const noexcept {
    return kind_ == Kind::Ellipsoid ? intersectUnitSphere(origin, direction, out)
                                    : intersectUnitCylinder(origin, direction, out);
  }
  bool intersect(const Eigen::Vector3d& originMm, const Eigen::Vector3d& direction,
                 RayInterval& out) const {
    return intersectLocal(localPoint(originMm), localVector(direction), out);
  }

  static bool intersectUnitSphere(const Eigen::Vector3d& o, const Eigen::Vector3d& d,
                                  RayInterval& out) noexcept {
    const double a = d.squaredNorm();
    assert(a > 0.0);
    const double tClosest = -o.dot(d) / a;
    const double h = 1.0 - (o + tClosest * d).squaredNorm();
    if (!(h >= 0.0)) return false;
    const double half = std::sqrt(h / a);
    out.enter = tClosest - half;
    out.exit = tClosest + half;
    return true;
  }

  static bool intersectUnitCylinder(const Eigen::Vector3d& o, const Eigen::Vector3d& d,
                                    RayInterval& out) noexcept {
    double lo = -std::numeric_limits<double>::infinity();
    double hi = std::numeric_limits<double>::infinity();
    const double a = d.x() * d.x() + d.y() * d.y();
    if (a > 0.0) {
      const double tClosest = -(o.x() * d.x() + o.y() * d.y()) / a;
      const double qx = o.x() + tClosest * d.x();
      const double qy = o.y() + tClosest * d.y();
      const double h = 1.0 - (qx * qx + qy * qy);
      if (!(h >= 0.0)) return false;
      const double half = std::sqrt(h / a);
      lo = tClosest - half;
      hi = tClosest + half;
    } else if (o.x() * o.x() + o.y() * o.y() > 1.0) {
      return false;
    }
    if (d.z() != 0.0) {
      double t1 = (-1.0 - o.z()) / d.z();
      double t2 = (1.0 - o.z()) / d.z();
      if (t1 > t2) std::swap(t1, t2);
      lo = std::max(lo, t1);
      hi = std::min(hi, t2);
    } else if (std::abs(o.z()) > 1.0) {
      return false;
    }
    assert(a > 0.0 || d.z() != 0.0);
    if (lo > hi) return false;
    out.enter = lo;
    out.exit = hi;
    return true;
  }

 private:
  Kind kind_;
  double density_;
  double volumeMm3_;
  Eigen::Vector3d centre_;
  Eigen::Matrix3d toLocal_;
  Eigen::Vector3d boxMin_, boxMax_;
};

}  // namespace tomowb::phantom
