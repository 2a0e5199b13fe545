#include "recon/fdk/HelicalOrbit.h"

#include <Eigen/Geometry>
#include <algorithm>
#include <cmath>
#include <numbers>
#include <numeric>
#include <sstream>

#include "recon/core/Error.h"

namespace tomowb::fdk {

namespace {
constexpr double kPi = std::numbers::pi;

// A view agrees with the orbit when its source, detector centre and axes lie within this
// fraction of a column pitch of the reference view moved along the helix.
constexpr double kRigidTolerancePixels = 1e-3;

// The coverage check samples points on three rings (centre, half and full radius), 16 azimuths
// each, and source angles every half degree over a turn around mid-scan.
constexpr int kCoverageAzimuths = 16;
constexpr int kCoverageAnglesPerTurn = 720;

std::string viewField(std::size_t view, const char* field) {
  return "views[" + std::to_string(view) + "]." + field;
}

double wrapToPi(double a) {
  a = std::remainder(a, 2 * kPi);
  return a <= -kPi ? a + 2 * kPi : a;
}

// The point's fan angle seen from a source at `sourceXy`: counter-clockwise from the central
// ray (towards the axis) to the ray through the point.
double fanAngle(const Eigen::Vector2d& point, const Eigen::Vector2d& sourceXy) {
  const Eigen::Vector2d central = -sourceXy;
  const Eigen::Vector2d ray = point - sourceXy;
  return std::atan2(central.x() * ray.y() - central.y() * ray.x(), central.dot(ray));
}
}  // namespace

bool HelicalOrbit::sourcesLeaveThePlane(const Geometry& geometry) {
  if (geometry.beam() != BeamKind::Cone || geometry.viewCount() < 2) return false;
  double zMin = 1e300, zMax = -1e300, scale = 1.0;
  for (const View& v : geometry.views()) {
    zMin = std::min(zMin, v.source.z());
    zMax = std::max(zMax, v.source.z());
    scale = std::max(scale, v.source.head<2>().norm());
  }
  // The rule FdkWeightPlan has always used to call an orbit circular.
  return zMax - zMin > 1e-6 * scale;
}

HelicalOrbit::HelicalOrbit(const Geometry& g) : rows_(g.detector().rows) {
  requireFlatDetectors(g, "the helical FDK orbit");
  if (g.beam() != BeamKind::Cone)
    throw ParameterError("geometry", "a helical orbit needs a cone beam");
  const std::size_t n = static_cast<std::size_t>(g.viewCount());
  if (n < 2) throw ParameterError("geometry", "a helical orbit needs at least two views");
  // Order by source z and unwrap the azimuths along that order.
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return g.views()[a].source.z() < g.views()[b].source.z();
  });
  const auto azimuth = [&](std::size_t i) {
    const Eigen::Vector3d& s = g.views()[i].source;
    return std::atan2(s.y(), s.x());
  };
  angles_.assign(n, 0.0);
  angles_[order[0]] = azimuth(order[0]);
  double sense = 0;
  for (std::size_t k = 1; k < n; ++k) {
    const double step = wrapToPi(azimuth(order[k]) - azimuth(order[k - 1]));
    if (step == 0.0 || step * sense < 0)
      throw ParameterError(viewField(order[k], "source"),
                           "the views do not turn one way round the z axis as the source moves "
                           "along it: not a helical orbit");
    sense = step > 0 ? 1.0 : -1.0;
    angles_[order[k]] = angles_[order[k - 1]] + step;
  }
  // Least-squares fit z = z0 + h a.
  double meanA = 0, meanZ = 0;
  for (std::size_t i = 0; i < n; ++i) {
    meanA += angles_[i];
    meanZ += g.views()[i].source.z();
  }
  meanA /= double(n);
  meanZ /= double(n);
  double saa = 0, saz = 0;
  for (std::size_t i = 0; i < n; ++i) {
    saa += (angles_[i] - meanA) * (angles_[i] - meanA);
    saz += (angles_[i] - meanA) * (g.views()[i].source.z() - meanZ);
  }
  zPerRad_ = saz / saa;
  z0_ = meanZ - zPerRad_ * meanA;

  // The reference view: the first along the orbit. Every view must be it, moved along the helix.
  std::vector<std::size_t> byAngle(n);
  std::iota(byAngle.begin(), byAngle.end(), std::size_t{0});
  std::sort(byAngle.begin(), byAngle.end(),
            [&](std::size_t a, std::size_t b) { return angles_[a] < angles_[b]; });
  const std::size_t ref = byAngle[0];
  const View& r = g.views()[ref];
  referenceAngle_ = angles_[ref];
  reference_ = g.projectionMatrix(static_cast<std::int64_t>(ref));
  const double tolerance = kRigidTolerancePixels * r.u.norm();
  referenceSourceXy_ = r.source.head<2>();
  referenceSourceZ_ = r.source.z();
  for (std::size_t i = 0; i < n; ++i) {
    const View& v = g.views()[i];
    const double turn = angles_[i] - referenceAngle_;
    const Eigen::Matrix3d rot =
        Eigen::AngleAxisd(turn, Eigen::Vector3d::UnitZ()).toRotationMatrix();
    const Eigen::Vector3d lift(0, 0, sourceZAt(angles_[i]) - r.source.z());
    const double off = std::max({(rot * r.source + lift - v.source).norm(),
                                 (rot * r.detectorCentre + lift - v.detectorCentre).norm(),
                                 (rot * r.u - v.u).norm(), (rot * r.v - v.v).norm()});
    if (!(off <= tolerance)) {
      std::ostringstream text;
      text << "is not the first view of the orbit turned by " << turn * 180.0 / kPi
           << " deg about z and moved " << lift.z() << " mm along it (off by " << off
           << " mm): helical FDK needs one source and detector moving on a helix";
      throw ParameterError(viewField(i, "source"), text.str());
    }
  }

  // The angle each view stands for.
  steps_.assign(n, 0.0);
  for (std::size_t k = 0; k < n; ++k) {
    const double before = k > 0 ? angles_[byAngle[k]] - angles_[byAngle[k - 1]]
                                : angles_[byAngle[1]] - angles_[byAngle[0]];
    const double after = k + 1 < n ? angles_[byAngle[k + 1]] - angles_[byAngle[k]]
                                   : angles_[byAngle[n - 1]] - angles_[byAngle[n - 2]];
    steps_[byAngle[k]] = 0.5 * (before + after);
  }
  start_ = angles_[byAngle[0]] - 0.5 * steps_[byAngle[0]];
  end_ = angles_[byAngle[n - 1]] + 0.5 * steps_[byAngle[n - 1]];

  Eigen::Vector3d normal = r.u.cross(r.v).normalized();
  if (normal.dot(r.detectorCentre - r.source) < 0) normal = -normal;
  sourceToDetector_ = normal.dot(r.detectorCentre - r.source);
  sourceToIsocentre_ = r.source.head<2>().norm();
  heightAtIsocentre_ =
      double(g.detector().rows) * r.v.norm() * sourceToIsocentre_ / sourceToDetector_;
}

double HelicalOrbit::turns() const noexcept {
  return (end_ - start_) / (2 * kPi);
}

double HelicalOrbit::feedPerTurnMm() const noexcept {
  return 2 * kPi * std::abs(zPerRad_);
}

double HelicalOrbit::pitch() const noexcept {
  return feedPerTurnMm() / heightAtIsocentre_;
}

ProjectionMatrix HelicalOrbit::matrixAt(double angleRad) const {
  const double turn = angleRad - referenceAngle_;
  // A point X is seen by the view at `angleRad` where the reference view sees X turned back by
  // `turn` about z and moved back along it.
  Eigen::Matrix4d back = Eigen::Matrix4d::Identity();
  back.topLeftCorner<3, 3>() =
      Eigen::AngleAxisd(-turn, Eigen::Vector3d::UnitZ()).toRotationMatrix();
  back(2, 3) = -(sourceZAt(angleRad) - referenceSourceZ_);
  return reference_ * back;
}

double HelicalOrbit::firstCompleteZMm() const noexcept {
  const double margin = std::abs(zPerRad_) * (0.5 * kPi + halfFan_);
  return std::min(sourceZAt(start_), sourceZAt(end_)) + margin;
}

double HelicalOrbit::lastCompleteZMm() const noexcept {
  const double margin = std::abs(zPerRad_) * (0.5 * kPi + halfFan_);
  return std::max(sourceZAt(start_), sourceZAt(end_)) - margin;
}

// For points on rings about the axis at the height of the source at mid-scan: every source
// angle within a turn of mid-scan must have, among its conjugates for the point (a + 2 pi m and
// a + (2m + 1) pi + 2 gamma, inside the scanned arc), one that has the point on the detector.
bool HelicalOrbit::everyLineSeen(double radiusMm, double zPerRad) const {
  const double mid = 0.5 * (start_ + end_);
  const double zMid = sourceZAt(mid);
  const double rowCentre = 0.5 * double(rows_ - 1), halfRows = 0.5 * double(rows_);
  const auto rowFraction = [&](const Eigen::Vector3d& p, double a) {
    // As matrixAt(a), with the table moving zPerRad per radian from zMid at mid-scan.
    const Eigen::Vector2d back = Eigen::Rotation2Dd(referenceAngle_ - a) * p.head<2>();
    const double lift = zMid + zPerRad * (a - mid) - referenceSourceZ_;
    const Eigen::Vector3d c = reference_ * Eigen::Vector4d(back.x(), back.y(), p.z() - lift, 1.0);
    return (c.y() / c.z() - rowCentre) / halfRows;
  };
  const int maxK = int(std::ceil((end_ - start_) / kPi)) + 1;
  // Conjugates whose source is further from the point's height than the detector reaches (seen
  // from the far side of the ring, with a margin) cannot see it.
  const double reachMm =
      0.75 * heightAtIsocentre_ * (sourceToIsocentre_ + radiusMm) / sourceToIsocentre_;
  const double step = 2 * kPi / kCoverageAnglesPerTurn;
  for (double ring : {0.0, 0.5, 1.0}) {
    for (int az = 0; az < (ring == 0.0 ? 1 : kCoverageAzimuths); ++az) {
      const double phi = 2 * kPi * az / kCoverageAzimuths;
      const Eigen::Vector3d p(ring * radiusMm * std::cos(phi), ring * radiusMm * std::sin(phi),
                              zMid);
      for (int i = 0; i < kCoverageAnglesPerTurn; ++i) {
        const double a = mid - kPi + step * i;
        const Eigen::Vector2d s = Eigen::Rotation2Dd(a - referenceAngle_) * referenceSourceXy_;
        const double gamma = fanAngle(p.head<2>(), s);
        bool seen = false;
        for (int k = -maxK; k <= maxK && !seen; ++k) {
          const double conjugate = a + k * kPi + (k % 2 != 0 ? 2 * gamma : 0.0);
          if (conjugate < start_ || conjugate > end_) continue;
          if (std::abs(zMid + zPerRad * (conjugate - mid) - p.z()) > reachMm) continue;
          seen = std::abs(rowFraction(p, conjugate)) < 1.0;
        }
        if (!seen) return false;
      }
    }
  }
  return true;
}

std::optional<std::string> HelicalOrbit::coverageProblem(double radiusMm) const {
  if (everyLineSeen(radiusMm, zPerRad_)) return std::nullopt;
  std::ostringstream text;
  text.precision(2);
  text << std::fixed << "the helical scan's pitch " << pitch() << " (table feed " << feedPerTurnMm()
       << " mm per turn over a detector " << heightAtIsocentre_
       << " mm high at the isocentre) leaves lines through points up to " << radiusMm
       << " mm from the axis unmeasured";
  const double largest = largestCoveredPitch(radiusMm);
  if (largest > 0.01 * pitch())
    text << ": this detector covers pitches up to about " << largest
         << "; lower the pitch or use a taller detector";
  else
    text << ": the helix (" << turns() << " turns) is too short to measure a whole slice";
  return text.str();
}

double HelicalOrbit::largestCoveredPitch(double radiusMm) const {
  double lo = 0.0, hi = 1.0;  // fractions of this orbit's feed per radian
  if (everyLineSeen(radiusMm, zPerRad_)) {
    lo = 1.0;
    hi = 2.0;
    while (hi < 64.0 && everyLineSeen(radiusMm, zPerRad_ * hi)) hi *= 2.0;
  }
  for (int i = 0; i < 20; ++i) {
    const double m = 0.5 * (lo + hi);
    (everyLineSeen(radiusMm, zPerRad_ * m) ? lo : hi) = m;
  }
  return lo * pitch();
}

std::string HelicalOrbit::summary() const {
  std::ostringstream text;
  text.precision(2);
  text << std::fixed << "helical orbit of " << turns() << " turns, pitch " << pitch() << " (feed "
       << feedPerTurnMm() << " mm per turn, detector " << heightAtIsocentre_
       << " mm high at the isocentre)";
  return text.str();
}

}  // namespace tomowb::fdk
