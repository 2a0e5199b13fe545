#include "recon/geometry/ScanBuilders.h"

#include <Eigen/Geometry>
#include <algorithm>
#include <cmath>
#include <numbers>
#include <string>

#include "recon/core/Error.h"

namespace tomowb {

namespace {

constexpr double kPi = std::numbers::pi;

void requirePositive(const char* name, double value) {
  if (!(value > 0.0) || !std::isfinite(value))
    throw ParameterError(name, "must be finite and > 0, got " + std::to_string(value));
}

void checkDetector(const DetectorParams& d) {
  if (d.cols < 1 || d.rows < 1)
    throw ParameterError("detector", "needs at least 1 column and 1 row, got " +
                                         std::to_string(d.cols) + "x" + std::to_string(d.rows));
  requirePositive("detector.pitchUMm", d.pitchUMm);
  requirePositive("detector.pitchVMm", d.pitchVMm);
  for (double x :
       {d.offsetUMm, d.offsetVMm, d.tiltRad, d.slantRad, d.inPlaneRotationRad, d.skewRad})
    if (!std::isfinite(x)) throw ParameterError("detector", "offsets and angles must be finite");
  if (std::abs(d.skewRad) >= kPi / 2)
    throw ParameterError("detector.skewRad", "must be within (-pi/2, pi/2)");
  if (d.surface == DetectorSurface::Cylinder &&
      (d.tiltRad != 0.0 || d.slantRad != 0.0 || d.inPlaneRotationRad != 0.0 || d.skewRad != 0.0))
    throw ParameterError("detector.surface",
                         "a cylindrical (arc) detector cannot be tilted, slanted, rotated in its "
                         "plane or skewed: its axis is the rotation axis");
}

void checkAngles(const std::vector<double>& angles) {
  if (angles.empty()) throw ParameterError("anglesRad", "no views: the angle list is empty");
  for (std::size_t i = 0; i < angles.size(); ++i)
    if (!std::isfinite(angles[i]))
      throw ParameterError("anglesRad[" + std::to_string(i) + "]", "is not finite");
}

struct DetectorFrame {
  Eigen::Vector3d towardsSource, eu, ev;
};

DetectorFrame frameAt(double angleRad) {
  const double c = std::cos(angleRad), s = std::sin(angleRad);
  return {Eigen::Vector3d(c, s, 0.0), Eigen::Vector3d(-s, c, 0.0), Eigen::Vector3d::UnitZ()};
}

// Fills u, v and the centre offset of a view from the detector parameters in a given frame.
void placeDetector(const DetectorParams& d, const DetectorFrame& f, const Eigen::Vector3d& centre,
                   View& view) {
  const Eigen::Vector3d normal = f.eu.cross(f.ev);
  const Eigen::Matrix3d rotation =
      (Eigen::AngleAxisd(d.inPlaneRotationRad, normal) * Eigen::AngleAxisd(d.tiltRad, f.eu) *
       Eigen::AngleAxisd(d.slantRad, f.ev))
          .toRotationMatrix();
  const Eigen::Vector3d rowAxis = std::cos(d.skewRad) * f.ev + std::sin(d.skewRad) * f.eu;
  view.u = rotation * f.eu * d.pitchUMm;
  view.v = rotation * rowAxis * d.pitchVMm;
  view.detectorCentre = centre + d.offsetUMm * f.eu + d.offsetVMm * f.ev;
}

// The arc (cylinder) detector of a cone view whose source sits at `source`, facing `f`: centred
// on the source with radius sdd, turned about the axis by offsetU / sdd, shifted by offsetV.
void placeArcDetector(const DetectorParams& d, const DetectorFrame& f,
                      const Eigen::Vector3d& source, double sdd, View& view) {
  const double turn = d.offsetUMm / sdd;
  const Eigen::Vector3d ahead = -f.towardsSource;
  const Eigen::Vector3d n = std::cos(turn) * ahead + std::sin(turn) * f.eu;
  const Eigen::Vector3d e = -std::sin(turn) * ahead + std::cos(turn) * f.eu;
  view.surface = DetectorSurface::Cylinder;
  view.u = e * d.pitchUMm;
  view.v = f.ev * d.pitchVMm;
  view.detectorCentre = source + sdd * n + d.offsetVMm * f.ev;
}

void checkCircular(const CircularConeParams& p) {
  requirePositive("sourceToIsocentreMm", p.sourceToIsocentreMm);
  requirePositive("sourceToDetectorMm", p.sourceToDetectorMm);
  if (p.sourceToDetectorMm <= p.sourceToIsocentreMm)
    throw ParameterError("sourceToDetectorMm", "must exceed sourceToIsocentreMm (" +
                                                   std::to_string(p.sourceToIsocentreMm) +
                                                   "), got " +
                                                   std::to_string(p.sourceToDetectorMm));
  checkDetector(p.detector);
  checkAngles(p.anglesRad);
}

}  // namespace

std::vector<double> fullScanAnglesRad(std::int64_t viewCount, double startRad) {
  if (viewCount < 1)
    throw ParameterError("views", "must be >= 1, got " + std::to_string(viewCount));
  std::vector<double> angles(static_cast<std::size_t>(viewCount));
  for (std::int64_t i = 0; i < viewCount; ++i)
    angles[static_cast<std::size_t>(i)] =
        startRad + 2.0 * kPi * static_cast<double>(i) / static_cast<double>(viewCount);
  return angles;
}

std::vector<double> arcAnglesRad(std::int64_t viewCount, double rangeRad, double startRad) {
  if (viewCount < 2) throw ParameterError("views", "an arc needs >= 2 views");
  std::vector<double> angles(static_cast<std::size_t>(viewCount));
  for (std::int64_t i = 0; i < viewCount; ++i)
    angles[static_cast<std::size_t>(i)] =
        startRad + rangeRad * static_cast<double>(i) / static_cast<double>(viewCount - 1);
  return angles;
}

double fullFanAngleRad(const CircularConeParams& p) {
  const auto& d = p.detector;
  const double halfWidth = 0.5 * static_cast<double>(d.cols) * d.pitchUMm;
  if (d.surface == DetectorSurface::Cylinder)  // arc lengths over the radius are the angles
    return 2.0 * (std::abs(d.offsetUMm) + halfWidth) / p.sourceToDetectorMm;
  const double left = std::abs(std::atan((d.offsetUMm - halfWidth) / p.sourceToDetectorMm));
  const double right = std::abs(std::atan((d.offsetUMm + halfWidth) / p.sourceToDetectorMm));
  return 2.0 * std::max(left, right);
}

std::vector<double> shortScanAnglesRad(const CircularConeParams& params, std::int64_t viewCount,
                                       double startRad, double extraRad) {
  return arcAnglesRad(viewCount, kPi + fullFanAngleRad(params) + extraRad, startRad);
}

Geometry circularConeBeam(const CircularConeParams& p) {
  checkCircular(p);
  std::vector<View> views;
  views.reserve(p.anglesRad.size());
  for (double angle : p.anglesRad) {
    const DetectorFrame f = frameAt(angle);
    View view;
    view.source = p.sourceToIsocentreMm * f.towardsSource;
    if (p.detector.surface == DetectorSurface::Cylinder)
      placeArcDetector(p.detector, f, view.source, p.sourceToDetectorMm, view);
    else
      placeDetector(p.detector, f,
                    -(p.sourceToDetectorMm - p.sourceToIsocentreMm) * f.towardsSource, view);
    views.push_back(view);
  }
  return Geometry(BeamKind::Cone, {p.detector.cols, p.detector.rows}, std::move(views));
}

double helicalFeedPerTurnMm(const HelicalConeParams& p) {
  const auto& c = p.circular;
  return p.pitch * static_cast<double>(c.detector.rows) * c.detector.pitchVMm *
         c.sourceToIsocentreMm / c.sourceToDetectorMm;
}

Geometry helicalConeBeam(const HelicalConeParams& p) {
  checkCircular(p.circular);
  if (!std::isfinite(p.pitch) || p.pitch < 0.0)
    throw ParameterError("pitch", "must be finite and >= 0, got " + std::to_string(p.pitch));
  Geometry g = circularConeBeam(p.circular);
  const double feed = helicalFeedPerTurnMm(p);
  const double first = p.circular.anglesRad.front();
  for (std::int64_t i = 0; i < g.viewCount(); ++i) {
    const double z = p.startZMm + feed *
                                      (p.circular.anglesRad[static_cast<std::size_t>(i)] - first) /
                                      (2.0 * kPi);
    g.view(i).source.z() += z;
    g.view(i).detectorCentre.z() += z;
  }
  return g;
}

CircularConeParams geLightSpeedCircular(std::int64_t viewsPerTurn, DetectorSurface surface) {
  CircularConeParams p;
  p.sourceToIsocentreMm = 541.0;
  p.sourceToDetectorMm = 949.075;
  p.detector.cols = 888;
  p.detector.rows = 64;
  p.detector.pitchUMm = 1.0239;
  p.detector.pitchVMm = 1.096436;
  // The isocentre's ray on column (cols - 1) / 2 + 1.25: the detector moves the other way.
  p.detector.offsetUMm = -1.25 * p.detector.pitchUMm;
  p.detector.surface = surface;
  p.anglesRad = fullScanAnglesRad(viewsPerTurn);
  return p;
}

HelicalConeParams geLightSpeedHelical(double turns, double pitch, std::int64_t viewsPerTurn,
                                      DetectorSurface surface) {
  if (!(turns > 0.0) || !std::isfinite(turns))
    throw ParameterError("turns", "must be finite and > 0, got " + std::to_string(turns));
  HelicalConeParams p;
  p.circular = geLightSpeedCircular(viewsPerTurn, surface);
  // Views at the same angle on every turn (reusable footprints, [S2]).
  const auto views = std::max<std::int64_t>(
      1, static_cast<std::int64_t>(std::llround(turns * static_cast<double>(viewsPerTurn))));
  p.circular.anglesRad.resize(static_cast<std::size_t>(views));
  for (std::size_t i = 0; i < p.circular.anglesRad.size(); ++i)
    p.circular.anglesRad[i] =
        2.0 * kPi * static_cast<double>(i) / static_cast<double>(viewsPerTurn);
  p.pitch = pitch;
  p.startZMm = -0.5 * turns * helicalFeedPerTurnMm(p);
  return p;
}

Geometry parallelBeam(const ParallelBeamParams& p) {
  checkDetector(p.detector);
  if (p.detector.surface == DetectorSurface::Cylinder)
    throw ParameterError("detector.surface",
                         "a parallel beam has no source for a cylindrical detector to be centred "
                         "on: use a flat detector");
  checkAngles(p.anglesRad);
  std::vector<View> views;
  views.reserve(p.anglesRad.size());
  for (double angle : p.anglesRad) {
    const DetectorFrame f = frameAt(angle);
    View view;
    view.rayDirection = -f.towardsSource;
    placeDetector(p.detector, f, Eigen::Vector3d::Zero(), view);
    views.push_back(view);
  }
  return Geometry(BeamKind::Parallel, {p.detector.cols, p.detector.rows}, std::move(views));
}

Geometry tiltSeries(const TiltSeriesParams& p) {
  if (p.cols < 1 || p.rows < 1)
    throw ParameterError("tiltSeries", "needs at least 1 column and 1 row");
  requirePositive("pixelSizeMm", p.pixelSizeMm);
  checkAngles(p.tiltAnglesRad);
  if (!std::isfinite(p.tiltAxisAngleRad) || !std::isfinite(p.tiltAxisShiftPixels))
    throw ParameterError("tiltSeries", "tilt-axis angle and shift must be finite");
  const double ca = std::cos(p.tiltAxisAngleRad), sa = std::sin(p.tiltAxisAngleRad);
  std::vector<View> views;
  views.reserve(p.tiltAnglesRad.size());
  for (double tilt : p.tiltAnglesRad) {
    const DetectorFrame f = frameAt(kPi / 2 + tilt);
    View view;
    view.rayDirection = -f.towardsSource;
    // The world tilt axis (+z) appears in the image at tiltAxisAngle counter-clockwise from +v.
    view.u = (ca * f.eu - sa * f.ev) * p.pixelSizeMm;
    view.v = (sa * f.eu + ca * f.ev) * p.pixelSizeMm;
    // Shift across the axis: in the detector plane that direction is e_u whatever the angle.
    view.detectorCentre = -p.tiltAxisShiftPixels * p.pixelSizeMm * f.eu;
    views.push_back(view);
  }
  return Geometry(BeamKind::Parallel, {p.cols, p.rows}, std::move(views));
}

}  // namespace tomowb
