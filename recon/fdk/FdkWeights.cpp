#include "recon/fdk/FdkWeights.h"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <numbers>
#include <sstream>

#include "recon/core/Error.h"

namespace tomowb::fdk {

namespace {
constexpr double kPi = std::numbers::pi;
constexpr double kRadToDeg = 180.0 / kPi;

double sinSquared(double x) {
  const double s = std::sin(x);
  return s * s;
}

std::string degrees(double rad) {
  std::ostringstream text;
  text.precision(1);
  text << std::fixed << rad * kRadToDeg << " deg";
  return text.str();
}
}  // namespace

std::string_view toString(RedundancyMode mode) {
  switch (mode) {
    case RedundancyMode::Auto:
      return "auto";
    case RedundancyMode::FullScan:
      return "full-scan";
    case RedundancyMode::Parker:
      return "parker";
    case RedundancyMode::OffsetDetector:
      return "offset-detector";
    case RedundancyMode::None:
      return "none";
  }
  return "?";
}

RedundancyMode redundancyModeFromString(std::string_view name) {
  for (RedundancyMode m : {RedundancyMode::Auto, RedundancyMode::FullScan, RedundancyMode::Parker,
                           RedundancyMode::OffsetDetector, RedundancyMode::None})
    if (name == toString(m)) return m;
  throw ParameterError("redundancy",
                       "unknown mode '" + std::string(name) +
                           "': choose auto, full-scan, parker, offset-detector or none");
}

FdkWeightPlan::FdkWeightPlan(const Geometry& geometry, RedundancyMode requested)
    : geometry_(geometry) {
  geometry.validate();
  computeFrames();
  const Coverage coverage = computeAngularSteps();
  const DetectorSides sides = measureDetector();
  chooseMode(requested, coverage, sides);
  if (mode_ == RedundancyMode::OffsetDetector) {
    const ViewFrame& f = frames_[0];
    const auto extra = static_cast<std::int64_t>(std::ceil(
        std::abs(std::abs(f.lastEdgeMm) - std::abs(f.firstEdgeMm)) / geometry.view(0).u.norm()));
    if (std::abs(f.firstEdgeMm) < std::abs(f.lastEdgeMm))
      extension_.before = extra;
    else
      extension_.after = extra;
  }
  // Field of view: radius of the cylinder all views see (the long side counts for offset scans).
  const double side = mode_ == RedundancyMode::OffsetDetector ? sides.longMm : sides.shortMm;
  const ViewFrame& f0 = frames_[0];
  fovRadiusMm_ = geometry.beam() == BeamKind::Cone
                     ? f0.sourceToIsocentreMm * std::sin(std::atan(side / f0.sourceToDetectorMm))
                     : side;
}

// Per-view distances, principal point and column edges.
void FdkWeightPlan::computeFrames() {
  const std::int64_t n = geometry_.viewCount();
  const bool cone = geometry_.beam() == BeamKind::Cone;
  const double cols = static_cast<double>(geometry_.detector().cols);
  frames_.resize(static_cast<std::size_t>(n));
  double zMin = 1e300, zMax = -1e300;
  for (std::int64_t i = 0; i < n; ++i) {
    const View& v = geometry_.view(i);
    ViewFrame& f = frames_[static_cast<std::size_t>(i)];
    // The rotation axis' trace plays the principal point's part for parallel beams: every
    // point of the ray through the origin projects there, the origin too.
    Eigen::Vector3d principal = Eigen::Vector3d::Zero();
    f.sourceToDetectorMm = f.sourceToIsocentreMm = 1.0;
    f.isocentrePitchMm = v.u.norm();
    if (cone) {
      Eigen::Vector3d normal = v.u.cross(v.v).normalized();
      if (normal.dot(v.detectorCentre - v.source) < 0) normal = -normal;
      f.sourceToDetectorMm = normal.dot(v.detectorCentre - v.source);
      f.sourceToIsocentreMm = -normal.dot(v.source);
      if (f.sourceToIsocentreMm <= 0)
        throw ParameterError("views[" + std::to_string(i) + "].source",
                             "the isocentre (world origin) is not between source and detector");
      principal = v.source + f.sourceToDetectorMm * normal;
      f.isocentrePitchMm = v.u.norm() * f.sourceToIsocentreMm / f.sourceToDetectorMm;
      zMin = std::min(zMin, v.source.z());
      zMax = std::max(zMax, v.source.z());
    }
    const Eigen::Vector3d pc = geometry_.projectionMatrix(i) * principal.homogeneous();
    f.principalCol = pc.x() / pc.z();
    f.principalRow = pc.y() / pc.z();
    f.firstEdgeMm = (-0.5 - f.principalCol) * v.u.norm();
    f.lastEdgeMm = (cols - 0.5 - f.principalCol) * v.u.norm();
  }
  if (cone && zMax - zMin > 1e-6 * std::max(1.0, frames_[0].sourceToIsocentreMm))
    throw ParameterError("geometry",
                         "the sources do not lie in one plane (helical orbit?): FDK "
                         "here reconstructs circular orbits only");
}

// Angle travelled in the rotation sense, coverage and each view's integration step.
FdkWeightPlan::Coverage FdkWeightPlan::computeAngularSteps() {
  const std::int64_t n = geometry_.viewCount();
  const std::vector<double> az = geometry_.sourceAzimuthsRad();
  rotationSense_ = (n > 1 && az.back() < az.front()) ? -1.0 : 1.0;
  betaRad_.resize(static_cast<std::size_t>(n));
  for (std::size_t i = 0; i < az.size(); ++i) betaRad_[i] = rotationSense_ * (az[i] - az[0]);
  std::vector<std::size_t> order(static_cast<std::size_t>(n));
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(),
            [&](std::size_t a, std::size_t b) { return betaRad_[a] < betaRad_[b]; });
  Coverage c;
  c.span = n > 1 ? betaRad_[order.back()] - betaRad_[order.front()] : 0.0;
  c.meanStep = n > 1 ? c.span / static_cast<double>(n - 1) : 2 * kPi;
  c.fullTurn = c.span + c.meanStep > 2 * kPi - 0.25 * c.meanStep;
  if (c.span + c.meanStep > 2 * kPi + 1.5 * c.meanStep)
    throw ParameterError("geometry", "the views cover " + degrees(c.span) +
                                         ", more than one turn: FDK here needs a single turn "
                                         "or a short scan");
  // Evenly spaced parallel views over [0, pi) are periodic too: the view at pi would mirror
  // the first one, so they integrate like a full turn with period pi.
  c.halfTurnParallel = geometry_.beam() == BeamKind::Parallel && !c.fullTurn &&
                       std::abs(c.span + c.meanStep - kPi) < 0.25 * c.meanStep;
  const bool periodic = c.fullTurn || c.halfTurnParallel;
  const double period = c.fullTurn ? 2 * kPi : kPi;
  coverageRad_ = c.fullTurn ? 2 * kPi : (c.halfTurnParallel ? kPi : c.span);
  steps_.assign(static_cast<std::size_t>(n), n > 1 ? 0.0 : kPi);
  for (std::size_t k = 0; n > 1 && k < order.size(); ++k) {
    const double here = betaRad_[order[k]];
    const double wrapPrev = periodic ? betaRad_[order.back()] - period : here;
    const double wrapNext = periodic ? betaRad_[order.front()] + period : here;
    const double prev = k > 0 ? betaRad_[order[k - 1]] : wrapPrev;
    const double next = k + 1 < order.size() ? betaRad_[order[k + 1]] : wrapNext;
    steps_[order[k]] = 0.5 * (next - prev);
  }
  return c;
}

// Fan angle and offset-detector detection from the column edges.
FdkWeightPlan::DetectorSides FdkWeightPlan::measureDetector() {
  const bool cone = geometry_.beam() == BeamKind::Cone;
  DetectorSides sides;
  sides.shortMm = 1e300;
  halfFanRad_ = 0;
  for (const ViewFrame& f : frames_) {
    const double d = cone ? f.sourceToDetectorMm : 1e300;
    halfFanRad_ = std::max({halfFanRad_, std::abs(std::atan(f.firstEdgeMm / d)),
                            std::abs(std::atan(f.lastEdgeMm / d))});
    sides.shortMm = std::min({sides.shortMm, std::abs(f.firstEdgeMm), std::abs(f.lastEdgeMm)});
    sides.longMm = std::max({sides.longMm, std::abs(f.firstEdgeMm), std::abs(f.lastEdgeMm)});
    sides.straddles = sides.straddles && f.firstEdgeMm < 0 && f.lastEdgeMm > 0;
  }
  sides.offset = sides.straddles && sides.longMm - sides.shortMm > 4.0 * geometry_.view(0).u.norm();
  return sides;
}

void FdkWeightPlan::chooseMode(RedundancyMode requested, const Coverage& c,
                               const DetectorSides& sides) {
  const bool cone = geometry_.beam() == BeamKind::Cone;
  mode_ = requested;
  if (mode_ == RedundancyMode::Auto) {
    if (c.fullTurn)
      mode_ = sides.offset ? RedundancyMode::OffsetDetector : RedundancyMode::FullScan;
    else if (!cone && (c.halfTurnParallel || c.span <= kPi + 0.5 * c.meanStep))
      mode_ = RedundancyMode::None;  // a pi parallel scan, or limited-angle (tilt series)
    else
      mode_ = RedundancyMode::Parker;
  }
  parkerDeltaRad_ = 0.5 * (c.span - kPi);
  if (mode_ == RedundancyMode::Parker) {
    if (c.fullTurn)
      warnings_.push_back("Parker weights on a full turn: only the first pi + fan is weighted");
    const double needed = kPi + 2 * (cone ? halfFanRad_ : 0.0);
    if (c.span < needed - 0.5 * c.meanStep) {
      const std::string text = "the short scan covers " + degrees(c.span) + " but needs " +
                               degrees(needed) + " (180 deg + fan angle)";
      if (requested == RedundancyMode::Auto)
        throw ParameterError("geometry", text +
                                             "; choose redundancy 'none' to reconstruct "
                                             "the incomplete data anyway");
      warnings_.push_back(text + ": rays at the fan's edges are weighted wrongly");
    }
  }
  if (mode_ == RedundancyMode::OffsetDetector && !c.fullTurn)
    throw ParameterError("redundancy", "offset-detector weights need a full turn");
  if (mode_ == RedundancyMode::OffsetDetector && !sides.straddles)
    throw ParameterError("redundancy",
                         "the detector does not cover the central ray, so an "
                         "offset (half-fan) scan cannot be completed");
  if (mode_ == RedundancyMode::FullScan && !c.fullTurn)
    warnings_.push_back("full-scan weights on " + degrees(c.span) +
                        ": the result will be too dark");
  if (mode_ == RedundancyMode::FullScan && sides.offset)
    warnings_.push_back(
        "the detector is offset but full-scan weights were chosen: expect a "
        "bright ring around the centre");
}

double FdkWeightPlan::fanAngleOfColumn(std::int64_t view, double col) const {
  const ViewFrame& f = frame(view);
  const double xi = (col - f.principalCol) * geometry_.view(view).u.norm();
  if (geometry_.beam() == BeamKind::Parallel) return 0.0;
  return std::atan(xi / f.sourceToDetectorMm);
}

double FdkWeightPlan::redundancyWeight(std::int64_t view, double col) const {
  switch (mode_) {
    case RedundancyMode::Auto:
    case RedundancyMode::FullScan:
      return 0.5;
    case RedundancyMode::None:
      return 1.0;
    case RedundancyMode::OffsetDetector: {
      const ViewFrame& f = frame(view);
      const double xi = (col - f.principalCol) * geometry_.view(view).u.norm();
      const bool longIsLast = std::abs(f.lastEdgeMm) >= std::abs(f.firstEdgeMm);
      const double overlap = std::min(std::abs(f.firstEdgeMm), std::abs(f.lastEdgeMm));
      const double t = (longIsLast ? xi : -xi) / overlap;
      if (t <= -1.0) return 0.0;
      if (t >= 1.0) return 1.0;
      return sinSquared(0.25 * kPi * (1.0 + t));
    }
    case RedundancyMode::Parker: {
      const double beta = betaRad_[static_cast<std::size_t>(view)];
      const double delta = parkerDeltaRad_;
      // Parker's gamma has the opposite sign of ours for a counter-clockwise orbit.
      double gamma = -rotationSense_ * fanAngleOfColumn(view, col);
      if (delta <= 0) return 1.0;
      gamma = std::clamp(gamma, -delta * 0.999999, delta * 0.999999);
      if (beta < 0 || beta > kPi + 2 * delta) return 0.0;
      if (beta < 2 * (delta - gamma)) return sinSquared(0.25 * kPi * beta / (delta - gamma));
      if (beta < kPi - 2 * gamma) return 1.0;
      return sinSquared(0.25 * kPi * (kPi + 2 * delta - beta) / (delta + gamma));
    }
  }
  return 1.0;
}

void FdkWeightPlan::weightView(std::int64_t view, std::span<float> pixels) const {
  const std::int64_t cols = geometry_.detector().cols;
  const std::int64_t rows = geometry_.detector().rows;
  const ViewFrame& f = frame(view);
  const double scale = angularStepRad(view) / f.isocentrePitchMm;
  std::vector<double> columnWeight(static_cast<std::size_t>(cols));
  for (std::int64_t c = 0; c < cols; ++c)
    columnWeight[static_cast<std::size_t>(c)] = scale * redundancyWeight(view, double(c));
  const View& v = geometry_.view(view);
  const bool cone = geometry_.beam() == BeamKind::Cone;
  for (std::int64_t r = 0; r < rows; ++r) {
    float* row = pixels.data() + r * cols;
    for (std::int64_t c = 0; c < cols; ++c) {
      double w = columnWeight[static_cast<std::size_t>(c)];
      if (cone)
        w *= f.sourceToDetectorMm /
             (geometry_.pixelPosition(view, double(c), double(r)) - v.source).norm();
      row[c] = static_cast<float>(row[c] * w);
    }
  }
}

std::string FdkWeightPlan::summary() const {
  std::ostringstream text;
  text << "redundancy " << toString(mode_) << ", coverage " << degrees(coverageRad_)
       << ", half fan " << degrees(halfFanRad_);
  if (mode_ == RedundancyMode::Parker) text << ", Parker delta " << degrees(parkerDeltaRad_);
  text << ", FOV radius " << fovRadiusMm_ << " mm";
  return text.str();
}

}  // namespace tomowb::fdk
