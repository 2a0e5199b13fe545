#include "recon/fdk/FdkWeights.h"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <numbers>
#include <sstream>

#include "recon/core/Error.h"
#include "recon/fdk/HelicalBackprojector.h"

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
    case RedundancyMode::Helical:
      return "helical";
  }
  return "?";
}

RedundancyMode redundancyModeFromString(std::string_view name) {
  for (RedundancyMode m :
       {RedundancyMode::Auto, RedundancyMode::FullScan, RedundancyMode::Parker,
        RedundancyMode::OffsetDetector, RedundancyMode::None, RedundancyMode::Helical})
    if (name == toString(m)) return m;
  throw ParameterError("redundancy",
                       "unknown mode '" + std::string(name) +
                           "': choose auto, full-scan, parker, offset-detector, none or helical");
}

FdkWeightPlan::FdkWeightPlan(const Geometry& geometry, RedundancyMode requested,
                             bool allowIncomplete)
    : geometry_(geometry) {
  geometry.validate();
  // FDK's weights, filter rows and backprojection assume a flat detector (a 3x4 matrix per view).
  requireFlatDetectors(geometry, "FDK");
  if (computeFrames()) helical_ = std::make_shared<const HelicalOrbit>(geometry);
  const Coverage coverage = helical_ ? computeHelicalSteps() : computeAngularSteps();
  coverageRad_ = coverage.covered;
  const DetectorSides sides = measureDetector();
  chooseMode(requested, coverage, sides, allowIncomplete);
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
  if (helical_) checkHelicalCoverage(allowIncomplete);
}

// The helix's views stand for the steps between them along the orbit; the redundancy weight
// waits for the backprojection.
FdkWeightPlan::Coverage FdkWeightPlan::computeHelicalSteps() {
  const std::int64_t n = geometry_.viewCount();
  Coverage c;
  arcAngleRad_.assign(static_cast<std::size_t>(n), 0.0);
  steps_.assign(static_cast<std::size_t>(n), 0.0);
  for (std::int64_t i = 0; i < n; ++i) {
    steps_[static_cast<std::size_t>(i)] = helical_->stepRad(i);
    arcAngleRad_[static_cast<std::size_t>(i)] = helical_->angleRad(i) - helical_->startRad();
  }
  c.covered = helical_->endRad() - helical_->startRad();
  c.meanStep = c.covered / static_cast<double>(n);
  return c;
}

void FdkWeightPlan::checkHelicalCoverage(bool allowIncomplete) {
  auto orbit = std::make_shared<HelicalOrbit>(*helical_);
  orbit->setHalfFanAngleRad(halfFanRad_);
  helical_ = orbit;
  const std::optional<std::string> problem = orbit->coverageProblem(fovRadiusMm_);
  if (!problem) return;
  if (!allowIncomplete)
    throw ParameterError("geometry", *problem +
                                         "; allow incomplete data (--allow-incomplete) to "
                                         "reconstruct it anyway");
  warnings_.push_back(*problem + ": those voxels are weighted from the rays that see them");
}

// Per-view distances, principal point and column edges. True if the sources do not lie in one
// plane: a helical orbit.
bool FdkWeightPlan::computeFrames() {
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
  return cone && zMax - zMin > 1e-6 * std::max(1.0, frames_[0].sourceToIsocentreMm);
}

// Where the views lie on the circle, whatever order they are listed in: source azimuths about
// +z, sorted; the largest gap between neighbours is where the scan is not. Each view stands for
// the arc halfway to its neighbours, and the views at the ends of a short scan for as much on
// their open side as on the other, so N views spread evenly over [0, pi + fan) cover pi + fan.
FdkWeightPlan::Coverage FdkWeightPlan::computeAngularSteps() {
  const std::int64_t n = geometry_.viewCount();
  const std::size_t count = static_cast<std::size_t>(n);
  std::vector<double> az = geometry_.sourceAzimuthsRad();
  for (double& a : az) a = std::fmod(std::fmod(a, 2 * kPi) + 2 * kPi, 2 * kPi);
  std::vector<std::size_t> order(count);
  for (std::size_t i = 0; i < count; ++i) order[i] = i;
  std::sort(order.begin(), order.end(),
            [&](std::size_t a, std::size_t b) { return az[a] < az[b]; });
  Coverage c;
  arcAngleRad_.assign(count, 0.0);
  steps_.assign(count, kPi);
  if (n == 1) {
    c.covered = c.meanStep = 2 * kPi;
    return c;
  }
  // gap[k]: from the k-th view in sorted order to the next one, counter-clockwise.
  std::vector<double> gap(count);
  for (std::size_t k = 0; k < count; ++k)
    gap[k] =
        k + 1 < count ? az[order[k + 1]] - az[order[k]] : az[order[0]] + 2 * kPi - az[order[k]];
  const std::size_t widest =
      static_cast<std::size_t>(std::max_element(gap.begin(), gap.end()) - gap.begin());
  const double span = 2 * kPi - gap[widest];  // from the first view to the last one
  c.meanStep = span / static_cast<double>(n - 1);
  rejectMultipleTurns(2 * kPi / static_cast<double>(n));
  c.fullTurn = gap[widest] <= 1.5 * c.meanStep;
  if (c.fullTurn) {
    // Every gap is a neighbour's: the views integrate over the whole circle.
    c.covered = 2 * kPi;
    c.meanStep = 2 * kPi / static_cast<double>(n);
    for (std::size_t k = 0; k < count; ++k) {
      const double before = gap[(k + count - 1) % count];
      steps_[order[k]] = 0.5 * (before + gap[k]);
      // Parker on a full turn (asked for explicitly): the arc starts half a step before the
      // first view listed.
      arcAngleRad_[order[k]] =
          std::fmod(az[order[k]] - az[0] + 0.5 * c.meanStep + 2 * kPi, 2 * kPi);
    }
    return c;
  }
  // The arc runs counter-clockwise from the view after the widest gap to the one before it.
  std::vector<std::size_t> arc(count);
  for (std::size_t k = 0; k < count; ++k) arc[k] = order[(widest + 1 + k) % count];
  std::vector<double> along(count);  // counter-clockwise from the first view of the arc
  for (std::size_t k = 0; k < count; ++k)
    along[k] = std::fmod(az[arc[k]] - az[arc[0]] + 2 * kPi, 2 * kPi);
  const double firstGap = along[1] - along[0];
  const double lastGap = along[count - 1] - along[count - 2];
  c.covered = span + 0.5 * (firstGap + lastGap);
  // Evenly spaced parallel views over [0, pi) are periodic: the view at pi would mirror the
  // first one, so they integrate like a full turn with period pi.
  c.halfTurnParallel =
      geometry_.beam() == BeamKind::Parallel && std::abs(c.covered - kPi) < 0.25 * c.meanStep;
  const double wrapGap = kPi - span;  // half-turn parallel: from the last view to the first + pi
  for (std::size_t k = 0; k < count; ++k) {
    const double before =
        k > 0 ? along[k] - along[k - 1] : (c.halfTurnParallel ? wrapGap : firstGap);
    const double after =
        k + 1 < count ? along[k + 1] - along[k] : (c.halfTurnParallel ? wrapGap : lastGap);
    steps_[arc[k]] = 0.5 * (before + after);
    arcAngleRad_[arc[k]] = along[k] + 0.5 * firstGap;
  }
  if (c.halfTurnParallel) c.covered = kPi;
  return c;
}

// Listed in turn order, views that go round more than once; listed in any order, views that
// repeat azimuths of others (a second turn over the same angles).
void FdkWeightPlan::rejectMultipleTurns(double fullTurnStep) const {
  const std::vector<double> unwrapped = geometry_.sourceAzimuthsRad();
  const std::int64_t n = geometry_.viewCount();
  bool increasing = true, decreasing = true;
  for (std::size_t i = 1; i < unwrapped.size(); ++i) {
    increasing = increasing && unwrapped[i] >= unwrapped[i - 1];
    decreasing = decreasing && unwrapped[i] <= unwrapped[i - 1];
  }
  const auto [lo, hi] = std::minmax_element(unwrapped.begin(), unwrapped.end());
  const double range = *hi - *lo;
  const double step = range / static_cast<double>(n - 1);
  if ((increasing || decreasing) && range + step > 2 * kPi + 1.5 * step)
    throw ParameterError("geometry", "the views cover " + degrees(range + step) +
                                         ", more than one turn: FDK here needs a single turn "
                                         "or a short scan");
  std::vector<double> az = unwrapped;
  for (double& a : az) a = std::fmod(std::fmod(a, 2 * kPi) + 2 * kPi, 2 * kPi);
  std::sort(az.begin(), az.end());
  std::int64_t repeats = 0;
  for (std::size_t i = 1; i < az.size(); ++i)
    if (az[i] - az[i - 1] < 0.05 * fullTurnStep) ++repeats;
  if (repeats > n / 4)
    throw ParameterError("geometry", std::to_string(repeats) +
                                         " views repeat the source angle of another view: FDK "
                                         "here needs a single turn or a short scan");
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
                               const DetectorSides& sides, bool allowIncomplete) {
  const bool cone = geometry_.beam() == BeamKind::Cone;
  if (helical_) {
    if (requested != RedundancyMode::Auto && requested != RedundancyMode::Helical)
      throw ParameterError("redundancy", "'" + std::string(toString(requested)) +
                                             "' weights a circular orbit, but the sources move "
                                             "along z (a helical orbit): choose auto or helical");
    mode_ = RedundancyMode::Helical;
    return;
  }
  if (requested == RedundancyMode::Helical)
    throw ParameterError("redundancy",
                         "helical weights need a helical orbit, but the sources lie in one plane");
  mode_ = requested;
  if (mode_ == RedundancyMode::Auto) {
    if (c.fullTurn)
      mode_ = sides.offset ? RedundancyMode::OffsetDetector : RedundancyMode::FullScan;
    else if (!cone && c.covered <= kPi + 0.5 * c.meanStep)
      mode_ = RedundancyMode::None;  // a pi parallel scan, or limited-angle (tilt series)
    else
      mode_ = RedundancyMode::Parker;
  }
  parkerDeltaRad_ = 0.5 * (c.covered - kPi);
  if (mode_ == RedundancyMode::Parker) {
    if (c.fullTurn)
      warnings_.push_back(
          "Parker weights on a full turn: weighted as a scan of 360 deg that "
          "starts at the first view");
    const double needed = kPi + 2 * (cone ? halfFanRad_ : 0.0);
    if (c.covered < needed - c.meanStep) {
      const std::string text = "the short scan covers " + degrees(c.covered) + " but needs " +
                               degrees(needed) + " (180 deg + fan angle)";
      if (!allowIncomplete)
        throw ParameterError("geometry",
                             text +
                                 "; allow incomplete data (--allow-incomplete) to reconstruct "
                                 "it anyway, or choose redundancy 'none'");
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
    warnings_.push_back("full-scan weights on " + degrees(c.covered) +
                        ": the result will be too dark");
  if (mode_ == RedundancyMode::FullScan && sides.offset)
    warnings_.push_back(
        "the detector is offset but full-scan weights were chosen: expect a "
        "bright ring around the centre");
}

double FdkWeightPlan::fanAngleRad(std::int64_t view, double col) const {
  if (geometry_.beam() == BeamKind::Parallel) return 0.0;
  const View& v = geometry_.view(view);
  const Eigen::Vector3d ray =
      geometry_.pixelPosition(view, col, frame(view).principalRow) - v.source;
  const Eigen::Vector2d central = -v.source.head<2>();
  const Eigen::Vector2d d = ray.head<2>();
  return std::atan2(central.x() * d.y() - central.y() * d.x(), central.dot(d));
}

double FdkWeightPlan::parkerWeight(double beta, double gamma, double delta) {
  if (delta <= 0) return 1.0;
  // Beyond the half fan angle the scan is incomplete (allowed only with a warning): those rays
  // are weighted as the fan's edge is.
  gamma = std::clamp(gamma, -delta * 0.999999, delta * 0.999999);
  if (beta < 0 || beta > kPi + 2 * delta) return 0.0;
  if (beta < 2 * (delta - gamma)) return sinSquared(0.25 * kPi * beta / (delta - gamma));
  if (beta < kPi - 2 * gamma) return 1.0;
  return sinSquared(0.25 * kPi * (kPi + 2 * delta - beta) / (delta + gamma));
}

double FdkWeightPlan::redundancyWeight(std::int64_t view, double col) const {
  switch (mode_) {
    case RedundancyMode::Auto:
    case RedundancyMode::FullScan:
      return 0.5;
    case RedundancyMode::None:
    case RedundancyMode::Helical:  // per voxel, in the backprojection
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
    case RedundancyMode::Parker:
      return parkerWeight(arcAngleRad(view), fanAngleRad(view, col), parkerDeltaRad_);
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
  text << "redundancy " << toString(mode_);
  if (helical_)
    text << " (per-voxel weights normalised over conjugate rays, row taper flat to |q| = "
         << kHelicalFlatFraction << "), " << helical_->summary();
  text << ", coverage " << degrees(coverageRad_) << ", fan half-angle " << degrees(halfFanRad_);
  if (mode_ == RedundancyMode::Parker) text << ", Parker delta " << degrees(parkerDeltaRad_);
  text.precision(1);
  text << std::fixed << ", field-of-view radius " << fovRadiusMm_ << " mm";
  return text.str();
}

}  // namespace tomowb::fdk
