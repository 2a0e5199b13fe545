#include "recon/phantom/Phantom.h"

#include <Eigen/Geometry>
#include <algorithm>
#include <array>
#include <cmath>
#include <numbers>
#include <string>
#include <utility>

#include "recon/core/Error.h"

namespace tomowb::phantom {

namespace {

std::string field(const char* list, std::size_t i, const char* name) {
  return std::string("phantom.") + list + "[" + std::to_string(i) + "]." + name;
}

void checkRotation(const Eigen::Matrix3d& rotation, const std::string& name) {
  if (!rotation.allFinite() ||
      (rotation.transpose() * rotation - Eigen::Matrix3d::Identity()).cwiseAbs().maxCoeff() > 1e-9)
    throw ParameterError(name, "is not an orthonormal matrix");
}

void checkPositive(double value, const std::string& name) {
  if (!(value > 0.0) || !std::isfinite(value))
    throw ParameterError(name, "must be finite and > 0, got " + std::to_string(value));
}

void validate(const std::vector<Ellipsoid>& ellipsoids, const std::vector<Cylinder>& cylinders) {
  for (std::size_t i = 0; i < ellipsoids.size(); ++i) {
    const Ellipsoid& e = ellipsoids[i];
    for (int axis = 0; axis < 3; ++axis)
      checkPositive(e.semiAxesMm[axis], field("ellipsoids", i, "semiAxesMm"));
    if (!e.centreMm.allFinite())
      throw ParameterError(field("ellipsoids", i, "centreMm"), "is not finite");
    if (!std::isfinite(e.density))
      throw ParameterError(field("ellipsoids", i, "density"), "is not finite");
    checkRotation(e.rotation, field("ellipsoids", i, "rotation"));
  }
  for (std::size_t i = 0; i < cylinders.size(); ++i) {
    const Cylinder& c = cylinders[i];
    checkPositive(c.radiusMm, field("cylinders", i, "radiusMm"));
    checkPositive(c.halfLengthMm, field("cylinders", i, "halfLengthMm"));
    if (!c.centreMm.allFinite())
      throw ParameterError(field("cylinders", i, "centreMm"), "is not finite");
    if (!std::isfinite(c.density))
      throw ParameterError(field("cylinders", i, "density"), "is not finite");
    checkRotation(c.rotation, field("cylinders", i, "rotation"));
  }
}

// One row of a Shepp-Logan table: centre and semi-axes in units of the phantom's scale, rotation
// about +z (degrees, the first semi-axis turned from +x towards +y).
struct SheppLoganRow {
  double x, y, z, a, b, c, phiDeg;
};

// Kak & Slaney's 3-D head (1988, ch. 3, p. 102) as commonly reproduced: Yu, Ye & Wang (2004)
// and MATLAB's phantom3d ("yu_ye_wang") use the same rows. Ellipsoids a..j in the book's order:
// a skull, b brain, c/d ventricles, e..j small features.
constexpr std::array<SheppLoganRow, 10> kSheppLoganRows{{
    {0.00, 0.000, 0.000, 0.6900, 0.920, 0.900, 0.0},
    {0.00, 0.000, 0.000, 0.6624, 0.874, 0.880, 0.0},
    {-0.22, 0.000, -0.250, 0.4100, 0.160, 0.210, 108.0},
    {0.22, 0.000, -0.250, 0.3100, 0.110, 0.220, 72.0},
    {0.00, 0.350, -0.250, 0.2100, 0.250, 0.500, 0.0},
    {0.00, 0.100, -0.250, 0.0460, 0.046, 0.046, 0.0},
    {-0.08, -0.650, -0.250, 0.0460, 0.023, 0.020, 0.0},
    {0.06, -0.650, -0.250, 0.0460, 0.023, 0.020, 90.0},
    {0.06, -0.105, 0.625, 0.0560, 0.040, 0.100, 90.0},
    {0.00, 0.100, 0.625, 0.0560, 0.056, 0.100, 0.0},
}};

constexpr std::array<double, 10> kSheppLoganDensities{2.0,  -0.98, -0.02, -0.02, 0.02,
                                                      0.02, 0.01,  0.01,  0.02,  -0.02};
constexpr std::array<double, 10> kModifiedSheppLoganDensities{1.0, -0.8, -0.2, -0.2, 0.2,
                                                              0.2, 0.1,  0.1,  0.2,  -0.2};

Phantom buildSheppLogan(std::string name, double scaleMm, double densityScale,
                        const std::array<double, 10>& densities) {
  checkPositive(scaleMm, "sheppLogan.scaleMm");
  if (!std::isfinite(densityScale))
    throw ParameterError("sheppLogan.densityScale", "is not finite");
  std::vector<Ellipsoid> ellipsoids;
  for (std::size_t i = 0; i < kSheppLoganRows.size(); ++i) {
    const SheppLoganRow& row = kSheppLoganRows[i];
    Ellipsoid e;
    e.centreMm = scaleMm * Eigen::Vector3d(row.x, row.y, row.z);
    e.semiAxesMm = scaleMm * Eigen::Vector3d(row.a, row.b, row.c);
    e.rotation = Eigen::AngleAxisd(row.phiDeg * std::numbers::pi / 180.0, Eigen::Vector3d::UnitZ())
                     .toRotationMatrix();
    e.density = densities[i] * densityScale;
    ellipsoids.push_back(e);
  }
  return Phantom(std::move(name), std::move(ellipsoids));
}

}  // namespace

Phantom::Phantom(std::string name, std::vector<Ellipsoid> ellipsoids,
                 std::vector<Cylinder> cylinders)
    : name_(std::move(name)), ellipsoids_(std::move(ellipsoids)), cylinders_(std::move(cylinders)) {
  validate(ellipsoids_, cylinders_);
  prepared_.reserve(ellipsoids_.size() + cylinders_.size());
  for (const Ellipsoid& e : ellipsoids_) prepared_.emplace_back(e);
  for (const Cylinder& c : cylinders_) prepared_.emplace_back(c);
}

double Phantom::valueAt(const Eigen::Vector3d& pointMm) const {
  double value = 0.0;
  for (const PreparedShape& shape : prepared_) {
    if ((pointMm.array() < shape.boxMinMm().array()).any() ||
        (pointMm.array() > shape.boxMaxMm().array()).any())
      continue;
    if (shape.contains(pointMm)) value += shape.density();
  }
  return value;
}

double Phantom::lineIntegral(const Eigen::Vector3d& origin,
                             const Eigen::Vector3d& unitDirection) const {
  double sum = 0.0;
  RayInterval interval;
  for (const PreparedShape& shape : prepared_)
    if (shape.intersect(origin, unitDirection, interval))
      sum += shape.density() * interval.length();
  return sum;
}

double Phantom::segmentIntegral(const Eigen::Vector3d& from, const Eigen::Vector3d& to) const {
  const Eigen::Vector3d step = to - from;
  const double length = step.norm();
  if (length == 0.0) return 0.0;
  double sum = 0.0;
  RayInterval interval;
  for (const PreparedShape& shape : prepared_) {
    if (!shape.intersect(from, step, interval)) continue;
    const double enter = std::max(interval.enter, 0.0);
    const double exit = std::min(interval.exit, 1.0);
    if (exit > enter) sum += shape.density() * (exit - enter) * length;
  }
  return sum;
}

double Phantom::volumeIntegral() const {
  double sum = 0.0;
  for (const PreparedShape& shape : prepared_) sum += shape.density() * shape.volumeMm3();
  return sum;
}

double Phantom::boundingRadiusMm() const {
  double radius = 0.0;
  for (const Ellipsoid& e : ellipsoids_)
    radius = std::max(radius, e.centreMm.norm() + e.semiAxesMm.maxCoeff());
  for (const Cylinder& c : cylinders_)
    radius = std::max(radius, c.centreMm.norm() + std::hypot(c.radiusMm, c.halfLengthMm));
  return radius;
}

Eigen::Vector3d Phantom::boxMinMm() const {
  Eigen::Vector3d box = Eigen::Vector3d::Zero();
  for (std::size_t i = 0; i < prepared_.size(); ++i)
    box = i == 0 ? prepared_[i].boxMinMm() : Eigen::Vector3d(box.cwiseMin(prepared_[i].boxMinMm()));
  return box;
}

Eigen::Vector3d Phantom::boxMaxMm() const {
  Eigen::Vector3d box = Eigen::Vector3d::Zero();
  for (std::size_t i = 0; i < prepared_.size(); ++i)
    box = i == 0 ? prepared_[i].boxMaxMm() : Eigen::Vector3d(box.cwiseMax(prepared_[i].boxMaxMm()));
  return box;
}

Phantom sheppLogan3d(double scaleMm, double densityScale) {
  return buildSheppLogan("shepp-logan-3d", scaleMm, densityScale, kSheppLoganDensities);
}

Phantom modifiedSheppLogan3d(double scaleMm, double densityScale) {
  return buildSheppLogan("modified-shepp-logan-3d", scaleMm, densityScale,
                         kModifiedSheppLoganDensities);
}

Phantom orientationPhantom(double scaleMm, double densityScale) {
  checkPositive(scaleMm, "orientationPhantom.scaleMm");
  const double s = scaleMm;
  return Phantom("orientation",
                 {Ellipsoid::sphere(Eigen::Vector3d::Zero(), 0.08 * s, densityScale),
                  Ellipsoid::sphere(Eigen::Vector3d(0.5 * s, 0.0, 0.0), 0.10 * s, densityScale),
                  Ellipsoid::sphere(Eigen::Vector3d(0.0, 0.5 * s, 0.0), 0.15 * s, densityScale),
                  Ellipsoid::sphere(Eigen::Vector3d(0.0, 0.0, 0.5 * s), 0.20 * s, densityScale)});
}

Phantom etSpecimenPhantom(double widthMm, double thicknessMm, double heightMm,
                          double densityScale) {
  checkPositive(widthMm, "etSpecimenPhantom.widthMm");
  checkPositive(thicknessMm, "etSpecimenPhantom.thicknessMm");
  checkPositive(heightMm, "etSpecimenPhantom.heightMm");
  const Eigen::Vector3d half(widthMm / 2, thicknessMm / 2, heightMm / 2);
  const auto at = [&](double x, double y, double z) {
    return Eigen::Vector3d(x * half.x(), y * half.y(), z * half.z());
  };
  const auto rotated = [](double aboutZ, double aboutX, double aboutY) {
    return (Eigen::AngleAxisd(aboutZ, Eigen::Vector3d::UnitZ()) *
            Eigen::AngleAxisd(aboutX, Eigen::Vector3d::UnitX()) *
            Eigen::AngleAxisd(aboutY, Eigen::Vector3d::UnitY()))
        .toRotationMatrix();
  };
  std::vector<Ellipsoid> shapes;
  // The embedding slab.
  shapes.push_back({Eigen::Vector3d::Zero(), at(0.9, 0.8, 0.9), Eigen::Matrix3d::Identity(),
                    0.2 * densityScale});
  // Cells: centre (fractions of the half extents), semi-axes (of the smallest half extent),
  // rotation angles, added density.
  struct Cell {
    double x, y, z, a, b, c, rz, rx, ry, density;
  };
  // Cell sizes scale with the slice (x-y) and, along the tilt axis, with the height.
  const double unit = std::min(half.x(), half.y());
  for (const Cell& c : {Cell{-0.45, 0.05, -0.40, 0.55, 0.35, 0.45, 0.3, 0.1, 0.0, 0.3},
                        Cell{0.30, -0.10, -0.35, 0.40, 0.30, 0.60, -0.6, 0.2, 0.4, 0.5},
                        Cell{-0.10, 0.15, 0.30, 0.70, 0.40, 0.35, 1.1, -0.3, 0.2, 0.4},
                        Cell{0.50, 0.00, 0.45, 0.30, 0.25, 0.30, 0.0, 0.0, 0.7, 0.8},
                        Cell{-0.55, -0.15, 0.55, 0.25, 0.20, 0.40, 0.9, 0.5, 0.0, 0.6},
                        Cell{0.05, -0.05, -0.05, 0.20, 0.15, 0.20, 0.0, 0.0, 0.0, 0.7},
                        Cell{0.15, 0.20, -0.65, 0.35, 0.20, 0.25, -1.2, 0.0, 0.3, 0.25},
                        Cell{-0.30, -0.20, 0.00, 0.15, 0.12, 0.30, 0.4, 0.8, 0.0, 0.45}})
    shapes.push_back({at(c.x, c.y, c.z), Eigen::Vector3d(c.a * unit, c.b * unit, c.c * half.z()),
                      rotated(c.rz, c.rx, c.ry), c.density * densityScale});
  // Gold beads: (x, y, z) fractions and radius in widths.
  struct Bead {
    double x, y, z, radius;
  };
  for (const Bead& b : {Bead{-0.70, 0.78, -0.70, 0.012}, Bead{0.62, 0.78, -0.55, 0.010},
                        Bead{-0.20, -0.78, 0.65, 0.012}, Bead{0.75, -0.78, 0.20, 0.014},
                        Bead{0.10, 0.78, 0.10, 0.010}, Bead{-0.75, -0.78, 0.05, 0.016},
                        Bead{0.40, 0.30, -0.10, 0.020}, Bead{-0.40, -0.30, -0.75, 0.025},
                        Bead{0.05, 0.00, 0.80, 0.012}, Bead{0.70, 0.40, 0.70, 0.010},
                        Bead{-0.60, 0.20, 0.40, 0.014}, Bead{0.25, -0.45, -0.80, 0.018}})
    shapes.push_back(Ellipsoid::sphere(at(b.x, b.y, b.z), b.radius * widthMm, 10.0 * densityScale));
  // The L marker near +x, +z: a long bar along z and a short foot along -x at its bottom.
  shapes.push_back({at(0.80, 0.0, 0.62),
                    Eigen::Vector3d(0.02 * widthMm, 0.3 * unit, 0.2 * half.z()),
                    Eigen::Matrix3d::Identity(), 1.0 * densityScale});
  shapes.push_back({at(0.74, 0.0, 0.44),
                    Eigen::Vector3d(0.06 * widthMm, 0.3 * unit, 0.02 * half.z()),
                    Eigen::Matrix3d::Identity(), 1.0 * densityScale});
  return Phantom("et-specimen", std::move(shapes));
}

}  // namespace tomowb::phantom
