#include "recon/geometry/Geometry.h"

#include <Eigen/Dense>
#include <cmath>
#include <numbers>
#include <string>
#include <utility>

#include "recon/core/Error.h"
#include "recon/geometry/ArcFrame.h"

namespace tomowb {

std::string toString(BeamKind beam) {
  return beam == BeamKind::Cone ? "cone" : "parallel";
}

std::string toString(DetectorSurface surface) {
  return surface == DetectorSurface::Flat ? "flat" : "cylinder";
}

std::optional<DetectorSurface> detectorSurfaceFromString(std::string_view word) {
  if (word == "flat") return DetectorSurface::Flat;
  if (word == "cylinder" || word == "arc") return DetectorSurface::Cylinder;
  return std::nullopt;
}

Geometry::Geometry(BeamKind beam, DetectorShape detector, std::vector<View> views)
    : beam_(beam), detector_(detector), views_(std::move(views)) {}

Eigen::Vector3d Geometry::pixelPosition(std::int64_t viewIndex, double col, double row) const {
  const View& v = view(viewIndex);
  if (v.surface == DetectorSurface::Cylinder) return arcFrame(*this, viewIndex).pixel(col, row);
  return v.detectorCentre + (col - 0.5 * static_cast<double>(detector_.cols - 1)) * v.u +
         (row - 0.5 * static_cast<double>(detector_.rows - 1)) * v.v;
}

Eigen::Vector3d Geometry::rayDirectionTo(std::int64_t viewIndex, double col, double row) const {
  if (beam_ == BeamKind::Parallel) return view(viewIndex).rayDirection.normalized();
  return (pixelPosition(viewIndex, col, row) - view(viewIndex).source).normalized();
}

ProjectionMatrix Geometry::projectionMatrix(std::int64_t viewIndex) const {
  const View& v = view(viewIndex);
  if (v.surface == DetectorSurface::Cylinder)
    throw ParameterError("projectionMatrix", "view " + std::to_string(viewIndex) +
                                                 " has a cylindrical detector: no 3x4 projection "
                                                 "matrix describes it");
  const Eigen::Vector3d pixel00 = pixelPosition(viewIndex, 0.0, 0.0);
  ProjectionMatrix p;
  if (beam_ == BeamKind::Cone) {
    // A point X projects to pixel00 + c u + r v = s + lambda (X - s), so
    // [u v (pixel00 - s)] (c, r, 1)^T / lambda = X - s.
    Eigen::Matrix3d m;
    m << v.u, v.v, pixel00 - v.source;
    const Eigen::Matrix3d inv = m.inverse();
    p.leftCols<3>() = inv;
    p.col(3) = -inv * v.source;
    // Scale so that w = 1 at the world origin (isocentre): w(X) = depth(X) / depth(origin).
    // An origin in the source's plane parallel to the detector has no depth; then w = 1 at the
    // detector centre instead (FdkWeightPlan rejects such views).
    const double wOrigin = p(2, 3);
    if (std::abs(wOrigin) > 1e-12 * p.norm())
      p /= wOrigin;
    else
      p /= (p * v.detectorCentre.homogeneous()).z();
  } else {
    // Orthographic: c and r are the coordinates of X's projection along the ray in (u, v).
    const Eigen::Vector3d d = v.rayDirection.normalized();
    Eigen::Matrix3d m;
    m << v.u, v.v, d;
    const Eigen::Matrix3d inv = m.inverse();
    p.setZero();
    p.block<2, 3>(0, 0) = inv.topRows<2>();
    p.block<2, 1>(0, 3) = -inv.topRows<2>() * pixel00;
    p(2, 3) = 1.0;
  }
  return p;
}

namespace {
// Every coordinate of a view (source, ray direction, detector centre, u, v) must lie within
// +-1e9 mm (1000 km): far beyond any scanner, and small enough that no product the projectors
// form can overflow (docs/geometry.md).
constexpr double kMaxCoordinateMm = 1e9;

bool finite(const Eigen::Vector3d& x) {
  return x.allFinite();
}
std::string viewField(std::int64_t i, const char* field) {
  return "views[" + std::to_string(i) + "]." + field;
}

// How far from perpendicular (the cosine of the angle) the axes of a cylindrical detector may be:
// builders and files give them perpendicular to rounding.
constexpr double kPerpendicularTolerance = 1e-6;
}  // namespace

void Geometry::validateCylinder(std::int64_t i) const {
  const View& v = view(i);
  const std::string name = "view " + std::to_string(i) + " has a cylindrical detector";
  if (beam_ != BeamKind::Cone)
    throw ParameterError(viewField(i, "detector_surface"),
                         name +
                             ": only cone views can have one (a parallel beam has no source "
                             "for the cylinder to be centred on)");
  const Eigen::Vector3d eu = v.u.normalized(), ev = v.v.normalized();
  if (!(std::abs(eu.dot(ev)) <= kPerpendicularTolerance))
    throw ParameterError(viewField(i, "v"), name +
                                                ": its row axis v (the cylinder's axis) must "
                                                "be perpendicular to its column axis u");
  const Eigen::Vector3d toCentre = v.detectorCentre - v.source;
  const Eigen::Vector3d inPlane = toCentre - toCentre.dot(ev) * ev;
  if (!(inPlane.norm() >= 1e-6))
    throw ParameterError(viewField(i, "detectorCentre"),
                         name +
                             ": the detector centre lies on the cylinder's axis through the "
                             "source (radius 0)");
  if (!(std::abs(eu.dot(inPlane.normalized())) <= kPerpendicularTolerance))
    throw ParameterError(viewField(i, "u"), name +
                                                ": its column axis u must be the arc's tangent, "
                                                "perpendicular to the direction from the "
                                                "source to the detector centre");
  const double arcRad = static_cast<double>(detector_.cols) * v.u.norm() / inPlane.norm();
  if (!(arcRad < std::numbers::pi))
    throw ParameterError(viewField(i, "u"), name + " whose columns span " + std::to_string(arcRad) +
                                                " rad of arc: at most pi is supported");
}

void Geometry::validateView(std::int64_t i) const {
  const View& v = view(i);
  // Finite is not enough: vectors of 1e200 mm made u x v infinite, every test below compared NaN
  // and passed, and the projections came out all zero (hostile-input review, D22). Within
  // +-kMaxCoordinateMm every product below stays far from overflow.
  for (auto [vec, name] :
       {std::pair{&v.detectorCentre, "detectorCentre"}, std::pair{&v.u, "u"}, std::pair{&v.v, "v"},
        std::pair{&v.source, "source"}, std::pair{&v.rayDirection, "rayDirection"}}) {
    if (!finite(*vec)) throw ParameterError(viewField(i, name), "is not finite");
    if (vec->cwiseAbs().maxCoeff() > kMaxCoordinateMm)
      throw ParameterError(viewField(i, name), "has a coordinate beyond +-1e9 mm (1000 km)");
  }
  if (!(v.u.norm() > 0.0)) throw ParameterError(viewField(i, "u"), "has zero length");
  if (!(v.v.norm() > 0.0)) throw ParameterError(viewField(i, "v"), "has zero length");
  // On unit vectors, so that tiny pitches cannot underflow the test.
  const Eigen::Vector3d normal = v.u.normalized().cross(v.v.normalized());
  if (!(normal.norm() >= 1e-9))
    throw ParameterError(viewField(i, "v"), "is parallel to u: the detector has no area");
  if (v.surface == DetectorSurface::Cylinder) {
    validateCylinder(i);
    return;
  }
  if (beam_ == BeamKind::Cone) {
    const double sourceToPlane = std::abs(normal.normalized().dot(v.detectorCentre - v.source));
    if (!(sourceToPlane >= 1e-6))
      throw ParameterError(viewField(i, "source"), "lies on the detector plane");
  } else {
    const double n = v.rayDirection.norm();
    if (!(n > 0.0)) throw ParameterError(viewField(i, "rayDirection"), "has zero length");
    if (!(std::abs(normal.normalized().dot(v.rayDirection / n)) >= 1e-6))
      throw ParameterError(viewField(i, "rayDirection"), "is parallel to the detector plane");
  }
  // Everything the projectors derive from the view must be finite too.
  if (!projectionMatrix(i).allFinite())
    throw ParameterError(viewField(i, "u"),
                         "the view's projection matrix is not finite (degenerate vectors)");
}

void Geometry::validate() const {
  if (detector_.cols < 1 || detector_.rows < 1)
    throw ParameterError("detector", "needs at least 1 column and 1 row, got " +
                                         std::to_string(detector_.cols) + "x" +
                                         std::to_string(detector_.rows));
  if (views_.empty()) throw ParameterError("views", "the geometry has no views");
  for (std::int64_t i = 0; i < viewCount(); ++i) validateView(i);
}

std::int64_t Geometry::firstCylindricalView() const noexcept {
  for (std::size_t i = 0; i < views_.size(); ++i)
    if (views_[i].surface == DetectorSurface::Cylinder) return static_cast<std::int64_t>(i);
  return -1;
}

std::optional<std::string> flatDetectorRefusal(const Geometry& geometry,
                                               std::string_view consumer) {
  const std::int64_t arc = geometry.firstCylindricalView();
  if (arc < 0) return std::nullopt;
  return "view " + std::to_string(arc) + " has a cylindrical detector: " + std::string(consumer) +
         " needs a flat detector (a 3x4 projection matrix per view)";
}

void requireFlatDetectors(const Geometry& geometry, std::string_view consumer) {
  if (std::optional<std::string> why = flatDetectorRefusal(geometry, consumer))
    throw ParameterError(consumer, *why);
}

std::vector<double> Geometry::sourceAzimuthsRad() const {
  std::vector<double> azimuths;
  azimuths.reserve(views_.size());
  double previous = 0.0;
  for (std::size_t i = 0; i < views_.size(); ++i) {
    const View& v = views_[i];
    // The source direction seen from the isocentre; for parallel beams, opposite the ray.
    const Eigen::Vector3d towardsSource =
        beam_ == BeamKind::Cone ? Eigen::Vector3d(v.source) : Eigen::Vector3d(-v.rayDirection);
    double a = std::atan2(towardsSource.y(), towardsSource.x());
    if (i > 0) {
      while (a - previous > std::numbers::pi) a -= 2 * std::numbers::pi;
      while (a - previous < -std::numbers::pi) a += 2 * std::numbers::pi;
    }
    azimuths.push_back(a);
    previous = a;
  }
  return azimuths;
}

}  // namespace tomowb
