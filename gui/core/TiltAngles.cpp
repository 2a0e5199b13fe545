// TiltAngles: see the header.
#include "gui/core/TiltAngles.h"

#include <Eigen/Eigenvalues>
#include <algorithm>
#include <cmath>
#include <numbers>

namespace tomowb::gui {

namespace {

// Rays may depart from the plane by this much (|r . axis|) in a single-axis series: alignment
// never moves the rays, so a real series is exact to rounding.
constexpr double kOffAxisTolerance = 1e-3;
// A tilt range of 170 degrees or more is a parallel CT scan, not an ET tilt series.
constexpr double kMaxTiltRangeRad = 170.0 * std::numbers::pi / 180.0;

}  // namespace

TiltAxisFit fitTiltAxis(const Geometry& geometry) {
  TiltAxisFit fit;
  if (geometry.beam() != BeamKind::Parallel || geometry.viewCount() == 0) return fit;
  Eigen::Matrix3d scatter = Eigen::Matrix3d::Zero();
  std::vector<Eigen::Vector3d> rays;
  rays.reserve(static_cast<std::size_t>(geometry.viewCount()));
  for (const View& v : geometry.views()) {
    const double norm = v.rayDirection.norm();
    const Eigen::Vector3d r = norm > 0 ? Eigen::Vector3d(v.rayDirection / norm) : Eigen::Vector3d();
    rays.push_back(r);
    scatter += r * r.transpose();
  }
  // With one view (or views along one ray) the plane is not fixed by the rays: keep +z then.
  const Eigen::SelfAdjointEigenSolver<Eigen::Matrix3d> solver(scatter);
  const Eigen::Vector3d& values = solver.eigenvalues();  // ascending
  Eigen::Vector3d axis = Eigen::Vector3d::UnitZ();
  if (values(1) > 1e-9 * std::max(values(2), 1e-300)) axis = solver.eigenvectors().col(0);
  if (axis.z() < 0 || (axis.z() == 0 && axis.x() + axis.y() < 0)) axis = -axis;
  fit.axis = axis.normalized();
  // Tilt 0 is -y within the plane; if -y is (nearly) along the axis use the first ray instead.
  Eigen::Vector3d zero = -Eigen::Vector3d::UnitY();
  zero -= fit.axis * fit.axis.dot(zero);
  if (zero.norm() < 1e-6) zero = rays.front() - fit.axis * fit.axis.dot(rays.front());
  zero.normalize();
  const Eigen::Vector3d quarter = fit.axis.cross(zero);  // tilt +90 degrees
  for (const Eigen::Vector3d& r : rays) {
    fit.tiltsRad.push_back(std::atan2(r.dot(quarter), r.dot(zero)));
    fit.largestOffAxis = std::max(fit.largestOffAxis, std::abs(r.dot(fit.axis)));
  }
  return fit;
}

bool isTiltSeries(const Geometry& geometry) {
  const TiltAxisFit fit = fitTiltAxis(geometry);
  if (fit.tiltsRad.empty() || fit.largestOffAxis > kOffAxisTolerance) return false;
  const auto [lo, hi] = std::minmax_element(fit.tiltsRad.begin(), fit.tiltsRad.end());
  return *hi - *lo < kMaxTiltRangeRad;
}

}  // namespace tomowb::gui
