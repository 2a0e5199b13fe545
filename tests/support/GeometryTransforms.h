// Ways to describe one scan differently, for the invariance tests (issue #17, point 2): the
// same rays with a flipped detector axis, the views listed backwards or from another origin, the
// world mirrored (the rotation sense reversed) or the whole set-up turned about the axis. Each
// returns the projections in the new description; the reconstruction must not change, or must
// turn or mirror with the set-up (mirrorVolumeY, rotateVolumeQuarterTurns).
#pragma once

#include <Eigen/Geometry>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numbers>
#include <vector>

#include "recon/core/Volume.h"
#include "recon/data/ProjectionStack.h"

namespace tomowb::test {

// u -> -u with the columns mirrored: every pixel keeps its position and its value.
inline ProjectionStack flipDetectorU(const ProjectionStack& in) {
  Geometry g = in.geometry();
  for (std::int64_t i = 0; i < g.viewCount(); ++i) g.view(i).u = -g.view(i).u;
  ProjectionStack out(g);
  for (std::int64_t i = 0; i < in.viewCount(); ++i)
    for (std::int64_t r = 0; r < in.rows(); ++r)
      for (std::int64_t c = 0; c < in.cols(); ++c) out.at(i, r, c) = in.at(i, r, in.cols() - 1 - c);
  return out;
}

// v -> -v with the rows mirrored.
inline ProjectionStack flipDetectorV(const ProjectionStack& in) {
  Geometry g = in.geometry();
  for (std::int64_t i = 0; i < g.viewCount(); ++i) g.view(i).v = -g.view(i).v;
  ProjectionStack out(g);
  for (std::int64_t i = 0; i < in.viewCount(); ++i)
    for (std::int64_t r = 0; r < in.rows(); ++r)
      for (std::int64_t c = 0; c < in.cols(); ++c) out.at(i, r, c) = in.at(i, in.rows() - 1 - r, c);
  return out;
}

// View k of the result is view order[k] of the input.
inline ProjectionStack reorderViews(const ProjectionStack& in,
                                    const std::vector<std::int64_t>& order) {
  std::vector<View> views;
  for (std::int64_t k : order) views.push_back(in.geometry().view(k));
  ProjectionStack out(Geometry(in.geometry().beam(), in.geometry().detector(), std::move(views)));
  for (std::size_t k = 0; k < order.size(); ++k) {
    const auto src = in.viewPixels(order[k]);
    std::copy(src.begin(), src.end(), out.viewPixels(std::int64_t(k)).begin());
  }
  return out;
}

inline ProjectionStack reverseViews(const ProjectionStack& in) {
  std::vector<std::int64_t> order;
  for (std::int64_t k = in.viewCount() - 1; k >= 0; --k) order.push_back(k);
  return reorderViews(in, order);
}

// The angle origin moved: the list starts at view `first` and wraps round.
inline ProjectionStack startViewsAt(const ProjectionStack& in, std::int64_t first) {
  std::vector<std::int64_t> order;
  for (std::int64_t k = 0; k < in.viewCount(); ++k) order.push_back((first + k) % in.viewCount());
  return reorderViews(in, order);
}

// Applies a linear map of the world to every view (the data stay: the rays move with the map).
inline ProjectionStack transformWorld(const ProjectionStack& in, const Eigen::Matrix3d& m) {
  Geometry g = in.geometry();
  for (std::int64_t i = 0; i < g.viewCount(); ++i) {
    View& v = g.view(i);
    v.source = m * v.source;
    v.rayDirection = m * v.rayDirection;
    v.detectorCentre = m * v.detectorCentre;
    v.u = m * v.u;
    v.v = m * v.v;
  }
  ProjectionStack out(g);
  std::copy(in.pixels().begin(), in.pixels().end(), out.pixels().begin());
  return out;
}

// y -> -y: the scan turns the other way round and the object is mirrored with it.
inline ProjectionStack mirrorWorldY(const ProjectionStack& in) {
  return transformWorld(in, Eigen::Vector3d(1, -1, 1).asDiagonal());
}

// The set-up turned by quarterTurns x 90 deg about +z; the object turns with it.
inline ProjectionStack rotateWorldQuarterTurns(const ProjectionStack& in, int quarterTurns) {
  const double a = 0.5 * std::numbers::pi * quarterTurns;
  Eigen::Matrix3d m = Eigen::AngleAxisd(a, Eigen::Vector3d::UnitZ()).toRotationMatrix();
  for (int i = 0; i < 9; ++i) m.data()[i] = std::round(m.data()[i]);  // exact quarter turns
  return transformWorld(in, m);
}

// What a centred grid holds after the world is mirrored in y.
inline Volume mirrorVolumeY(const Volume& in) {
  Volume out = in;
  for (std::int64_t z = 0; z < in.nz(); ++z)
    for (std::int64_t y = 0; y < in.ny(); ++y)
      for (std::int64_t x = 0; x < in.nx(); ++x) out.at(x, y, z) = in.at(x, in.ny() - 1 - y, z);
  return out;
}

// What a centred square grid holds after the world turns by quarterTurns x 90 deg about +z.
inline Volume rotateVolumeQuarterTurns(const Volume& in, int quarterTurns) {
  Volume current = in;
  for (int t = 0; t < ((quarterTurns % 4) + 4) % 4; ++t) {
    Volume out = current;
    const std::int64_t n = current.nx();
    for (std::int64_t z = 0; z < current.nz(); ++z)
      for (std::int64_t b = 0; b < n; ++b)
        for (std::int64_t a = 0; a < n; ++a) out.at(a, b, z) = current.at(b, n - 1 - a, z);
    current = std::move(out);
  }
  return current;
}

// Largest |a - b| over the largest |a|: float rounding only stays well below 1e-4.
inline double maxRelativeDifference(const Volume& a, const Volume& b) {
  double peak = 0, worst = 0;
  const auto av = a.voxels();
  const auto bv = b.voxels();
  for (std::size_t i = 0; i < av.size(); ++i) {
    peak = std::max(peak, double(std::abs(av[i])));
    worst = std::max(worst, double(std::abs(av[i] - bv[i])));
  }
  return peak > 0 ? worst / peak : worst;
}

}  // namespace tomowb::test
