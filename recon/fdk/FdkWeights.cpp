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
  const std::int64_t n = geometry.viewCount();
  const bool cone = geometry.beam() == BeamKind::Cone;
  const double cols = static_cast<double>(geometry.detector().cols);

  // Per-view frames: distances, principal point, column edges.
  frames_.resize(static_cast<std::size_t>(n));
  double zMin = 1e300, zMax = -1e300;
  for (std::int64_t i = 0; i < n; ++i) {
    const View& v = geometry.view(i);
    const ProjectionMatrix p = geometry.projectionMatrix(i);
    ViewFrame& f = frames_[static_cast<std::size_t>(i)];
    Eigen::Vector3d principal;
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
    } else {
      // The rotation axis' trace on the detector plays the principal point's part; every point
      // of the ray through the origin projects there, the origin too.
      principal = Eigen::Vector3d::Zero();
      f.sourceToDetectorMm = f.sourceToIsocentreMm = 1.0;
      f.isocentrePitchMm = v.u.norm();
    }
    const Eigen::Vector3d pc = p * principal.homogeneous();
    f.principalCol = pc.x() / pc.z();
    f.principalRow = pc.y() / pc.z();
    const double pitch = v.u.norm();
    f.firstEdgeMm = (-0.5 - f.principalCol) * pitch;
    f.lastEdgeMm = (cols - 0.5 - f.principalCol) * pitch;
  }
  if (cone && zMax - zMin > 1e-6 * std::max(1.0, frames_[0].sourceToIsocentreMm))
    throw ParameterError("geometry",
                         "the sources do not lie in one plane (helical orbit?): FDK "
                         "here reconstructs circular orbits only");

  // Angle travelled in the rotation sense, coverage and integration steps.
  const std::vector<double> az = geometry.sourceAzimuthsRad();
  rotationSense_ = (n > 1 && az.back() < az.front()) ? -1.0 : 1.0;
  betaRad_.resize(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i)
    betaRad_[static_cast<std::size_t>(i)] =
        rotationSense_ * (az[static_cast<std::size_t>(i)] - az[0]);
  std::vector<std::size_t> order(static_cast<std::size_t>(n));
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(),
            [&](std::size_t a, std::size_t b) { return betaRad_[a] < betaRad_[b]; });
  const double span = n > 1 ? betaRad_[order.back()] - betaRad_[order.front()] : 0.0;
  const double meanStep = n > 1 ? span / static_cast<double>(n - 1) : 2 * kPi;
  const bool fullTurn = span + meanStep > 2 * kPi - 0.25 * meanStep;
  if (span + meanStep > 2 * kPi + 1.5 * meanStep)
    throw ParameterError("geometry", "the views cover " + degrees(span) +
                                         ", more than one turn: FDK here needs a single turn "
                                         "or a short scan");
  // Evenly spaced parallel views over [0, pi) are periodic too: the view at pi would mirror
  // the first one, so they integrate like a full turn with period pi.
  const bool halfTurnParallel =
      !cone && !fullTurn && std::abs(span + meanStep - kPi) < 0.25 * meanStep;
  const double period = fullTurn ? 2 * kPi : kPi;
  coverageRad_ = fullTurn ? 2 * kPi : (halfTurnParallel ? kPi : span);
  steps_.assign(static_cast<std::size_t>(n), 0.0);
  for (std::size_t k = 0; k < order.size(); ++k) {
    const double here = betaRad_[order[k]];
    double prev, next;
    if (fullTurn || halfTurnParallel) {
      prev = k > 0 ? betaRad_[order[k - 1]] : betaRad_[order.back()] - period;
      next = k + 1 < order.size() ? betaRad_[order[k + 1]] : betaRad_[order.front()] + period;
    } else {
      prev = k > 0 ? betaRad_[order[k - 1]] : here;
      next = k + 1 < order.size() ? betaRad_[order[k + 1]] : here;
    }
    steps_[order[k]] = n > 1 ? 0.5 * (next - prev) : kPi;
  }

  // Fan angle and offset-detector detection from the column edges.
  halfFanRad_ = 0;
  double shortSide = 1e300, longSide = 0;
  bool straddles = true;
  for (const ViewFrame& f : frames_) {
    const double d = cone ? f.sourceToDetectorMm : 1e300;
    halfFanRad_ = std::max({halfFanRad_, std::abs(std::atan(f.firstEdgeMm / d)),
                            std::abs(std::atan(f.lastEdgeMm / d))});
    shortSide = std::min({shortSide, std::abs(f.firstEdgeMm), std::abs(f.lastEdgeMm)});
    longSide = std::max({longSide, std::abs(f.firstEdgeMm), std::abs(f.lastEdgeMm)});
    straddles = straddles && f.firstEdgeMm < 0 && f.lastEdgeMm > 0;
  }
  const double pitch0 = geometry.view(0).u.norm();
  const bool offsetDetector = straddles && longSide - shortSide > 4.0 * pitch0;

  // Choose the redundancy weights.
  mode_ = requested;
  if (mode_ == RedundancyMode::Auto) {
    if (fullTurn)
      mode_ = offsetDetector ? RedundancyMode::OffsetDetector : RedundancyMode::FullScan;
    else if (!cone && (halfTurnParallel || span <= kPi + 0.5 * meanStep))
      mode_ = RedundancyMode::None;  // a pi parallel scan, or limited-angle (tilt series)
    else
      mode_ = RedundancyMode::Parker;
  }
  parkerDeltaRad_ = 0.5 * (span - kPi);
  if (mode_ == RedundancyMode::Parker) {
    if (fullTurn)
      warnings_.push_back("Parker weights on a full turn: only the first pi + fan is weighted");
    const double needed = kPi + 2 * (cone ? halfFanRad_ : 0.0);
    if (span < needed - 0.5 * meanStep) {
      const std::string text = "the short scan covers " + degrees(span) + " but needs " +
                               degrees(needed) + " (180 deg + fan angle)";
      if (requested == RedundancyMode::Auto)
        throw ParameterError("geometry", text +
                                             "; choose redundancy 'none' to reconstruct "
                                             "the incomplete data anyway");
      warnings_.push_back(text + ": rays at the fan's edges are weighted wrongly");
    }
  }
  if (mode_ == RedundancyMode::OffsetDetector) {
    if (!fullTurn) throw ParameterError("redundancy", "offset-detector weights need a full turn");
    if (!straddles)
      throw ParameterError("redundancy",
                           "the detector does not cover the central ray, so an "
                           "offset (half-fan) scan cannot be completed");
  }
  if (mode_ == RedundancyMode::FullScan && !fullTurn)
    warnings_.push_back("full-scan weights on " + degrees(span) + ": the result will be too dark");
  if (mode_ == RedundancyMode::FullScan && offsetDetector)
    warnings_.push_back(
        "the detector is offset but full-scan weights were chosen: expect a "
        "bright ring around the centre");

  if (mode_ == RedundancyMode::OffsetDetector) {
    const ViewFrame& f = frames_[0];
    const double pitch = geometry.view(0).u.norm();
    const auto extra = static_cast<std::int64_t>(
        std::ceil((std::abs(std::abs(f.lastEdgeMm) - std::abs(f.firstEdgeMm))) / pitch));
    if (std::abs(f.firstEdgeMm) < std::abs(f.lastEdgeMm))
      extension_.before = extra;
    else
      extension_.after = extra;
  }

  // Field of view: radius of the cylinder all views see (the long side counts for offset scans).
  const double side = mode_ == RedundancyMode::OffsetDetector ? longSide : shortSide;
  const ViewFrame& f0 = frames_[0];
  fovRadiusMm_ =
      cone ? f0.sourceToIsocentreMm * std::sin(std::atan(side / f0.sourceToDetectorMm)) : side;
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
