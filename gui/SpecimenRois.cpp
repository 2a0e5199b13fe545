// SpecimenRois: see the header.
#include "gui/SpecimenRois.h"

#include <QObject>
#include <algorithm>
#include <cmath>
#include <map>
#include <numbers>

namespace tomowb::gui {

namespace {

// True when every sample of a disc (radius r around c in the x-z plane at y) has the value v.
bool discIsUniform(const phantom::Phantom& p, double y, const Eigen::Vector2d& c, double r,
                   double v) {
  constexpr int kRings = 4, kPerRing = 16;
  for (int ring = 0; ring <= kRings; ++ring)
    for (int k = 0; k < (ring == 0 ? 1 : kPerRing); ++k) {
      const double a = 2.0 * std::numbers::pi * k / kPerRing, rr = r * ring / kRings;
      const Eigen::Vector3d at(c.x() + rr * std::cos(a), y, c.y() + rr * std::sin(a));
      if (std::abs(p.valueAt(at) - v) > 1e-9 * std::max(1.0, std::abs(v))) return false;
    }
  return true;
}

// True when every sample of a disc (radius r around c in the x-y plane at z) has the value v.
bool axialDiscIsUniform(const phantom::Phantom& p, double z, const Eigen::Vector2d& c, double r,
                        double v) {
  constexpr int kRings = 3, kPerRing = 12;
  for (int ring = 1; ring <= kRings; ++ring)
    for (int k = 0; k < kPerRing; ++k) {
      const double a = 2.0 * std::numbers::pi * k / kPerRing, rr = r * ring / kRings;
      const Eigen::Vector3d at(c.x() + rr * std::cos(a), c.y() + rr * std::sin(a), z);
      if (std::abs(p.valueAt(at) - v) > 1e-9 * std::max(1.0, std::abs(v))) return false;
    }
  return true;
}

}  // namespace

std::vector<render::SliceRoi> axialPhantomRois(const phantom::Phantom& p, double zMm) {
  std::vector<render::SliceRoi> rois;
  const Eigen::Vector3d lo = p.boxMinMm(), hi = p.boxMaxMm();
  if (zMm < lo.z() || zMm > hi.z()) return rois;
  const double radius = 0.04 * std::min(hi.x() - lo.x(), hi.y() - lo.y());
  const double step = radius / 2;
  // Uniform discs by value, on a grid of the slice.
  std::map<double, std::vector<Eigen::Vector2d>> discs;
  for (double y = lo.y() + radius; y <= hi.y() - radius; y += step)
    for (double x = lo.x() + radius; x <= hi.x() - radius; x += step) {
      const double v = p.valueAt({x, y, zMm});
      if (v > 0 && axialDiscIsUniform(p, zMm, {x, y}, radius, v)) discs[v].push_back({x, y});
    }
  if (discs.size() < 2) return rois;
  // The background: the value most discs have (the brain); the signal: the lowest contrast
  // against it (the subtle insert CNR is about), at the middle of its discs.
  const auto background = std::max_element(discs.begin(), discs.end(), [](auto& a, auto& b) {
    return a.second.size() < b.second.size();
  });
  const double bg = background->first;
  const std::vector<Eigen::Vector2d>* signal = nullptr;
  double signalValue = 0;
  for (const auto& [v, centres] : discs)
    if (v != bg && (signal == nullptr || std::abs(v - bg) < std::abs(signalValue - bg))) {
      signal = &centres;
      signalValue = v;
    }
  Eigen::Vector2d mean = Eigen::Vector2d::Zero();
  for (const Eigen::Vector2d& c : *signal) mean += c;
  mean /= static_cast<double>(signal->size());
  const auto nearest = [](const std::vector<Eigen::Vector2d>& centres, const Eigen::Vector2d& to,
                          double atLeast) {
    const Eigen::Vector2d* best = nullptr;
    for (const Eigen::Vector2d& c : centres)
      if ((c - to).norm() >= atLeast && (best == nullptr || (c - to).norm() < (*best - to).norm()))
        best = &c;
    return best;
  };
  const Eigen::Vector2d* s = nearest(*signal, mean, 0.0);
  const Eigen::Vector2d* b = nearest(background->second, *s, 3 * radius);
  if (b == nullptr) return rois;
  render::SliceRoi roi;
  roi.id = 1001;
  roi.label = QObject::tr("insert %1%2 %")
                  .arg(signalValue > bg ? QStringLiteral("+") : QString())
                  .arg(100.0 * (signalValue - bg) / bg, 0, 'g', 3);
  roi.role = render::SliceRoi::Signal;
  roi.shape = render::SliceRoi::Circle;
  roi.axis = 2;
  roi.sliceMm = zMm;
  roi.centreMm = *s;
  roi.halfSizeMm = Eigen::Vector2d::Constant(radius);
  rois.push_back(roi);
  roi.id = 1000;
  roi.label = QObject::tr("background");
  roi.role = render::SliceRoi::Background;
  roi.centreMm = *b;
  rois.push_back(roi);
  return rois;
}

bool isEtSpecimen(const phantom::Phantom* p) {
  return p != nullptr && p->name() == "et-specimen";
}

// CNR ROIs for the ET demo's specimen (etSpecimenPhantom), all on the mid-plane y = 0 that the
// coronal view shows first (the specimen seen from the beam at tilt 0, free of the missing
// wedge's elongation): circles inside the two largest cells that cross it, against a disc of
// bare embedding slab.
std::vector<render::SliceRoi> etSpecimenRois(const phantom::Phantom& p) {
  const auto& shapes = p.ellipsoids();
  std::vector<render::SliceRoi> rois;
  if (shapes.empty()) return rois;
  const double slab = shapes.front().density;
  // Cells add 0.2 to 0.8 (Phantom.h); the L marker adds 1 and the gold beads 10, five and fifty
  // times the slab's 0.2.
  std::vector<std::size_t> cells;
  for (std::size_t i = 1; i < shapes.size(); ++i)
    if (shapes[i].density < 5.0 * slab) cells.push_back(i);
  std::sort(cells.begin(), cells.end(), [&](std::size_t a, std::size_t b) {
    return shapes[a].semiAxesMm.minCoeff() > shapes[b].semiAxesMm.minCoeff();
  });
  int id = 1000;
  for (const std::size_t i : cells) {
    const phantom::Ellipsoid& e = shapes[i];
    const Eigen::Vector2d centre(e.centreMm.x(), e.centreMm.z());
    const double inside = p.valueAt({centre.x(), 0.0, centre.y()});
    const double radius = 0.45 * e.semiAxesMm.minCoeff();
    if (inside <= slab || !discIsUniform(p, 0.0, centre, radius, inside)) continue;
    render::SliceRoi roi;
    roi.id = ++id;
    roi.label = QObject::tr("cell %1").arg(rois.size() + 1);
    roi.role = render::SliceRoi::Signal;
    roi.axis = 1;
    roi.centreMm = centre;
    roi.halfSizeMm = Eigen::Vector2d::Constant(radius);
    rois.push_back(roi);
    if (rois.size() == 2) break;
  }
  // Background: the largest disc of bare slab found on a coarse grid of the mid-plane.
  const Eigen::Vector3d lo = p.boxMinMm(), hi = p.boxMaxMm();
  const double step = (hi.x() - lo.x()) / 40.0;
  bool found = false;
  for (double radius = (hi.z() - lo.z()) / 8; radius > step / 2 && !found; radius *= 0.75)
    for (double z = lo.z() + radius; z <= hi.z() - radius && !found; z += step)
      for (double x = lo.x() + radius; x <= hi.x() - radius && !found; x += step)
        if (discIsUniform(p, 0.0, {x, z}, radius, slab)) {
          render::SliceRoi bg;
          bg.id = 1000;
          bg.label = QObject::tr("slab");
          bg.role = render::SliceRoi::Background;
          bg.axis = 1;
          bg.centreMm = {x, z};
          bg.halfSizeMm = Eigen::Vector2d::Constant(radius);
          rois.push_back(bg);
          found = true;
        }
  return rois;
}

}  // namespace tomowb::gui
