#include "recon/projector/SingleAxisGeometry.h"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <cstdio>

namespace tomowb::projector {

namespace {

// How far (in detector pixels or voxels, over the whole volume) the geometry may stray from the
// aligned case: below it, the CPU projectors' cross-slice interpolation weights are < 1e-6, so
// treating the problem as aligned changes results by less than float32 rounding of the sums.
constexpr double kTolerance = 1e-6;

std::string describe(const char* what, std::int64_t view, double value) {
  char text[200];
  std::snprintf(text, sizeof text, "%s (view %lld: %.3g)", what, static_cast<long long>(view),
                value);
  return text;
}

}  // namespace

SingleAxisGeometry SingleAxisGeometry::analyse(const Geometry& geometry, const VoxelGrid& grid) {
  SingleAxisGeometry out;
  if (geometry.beam() != BeamKind::Parallel) {
    out.reason = "cone beam: rays of one detector row cross several slices";
    return out;
  }
  if (geometry.viewCount() < 1) {
    out.reason = "the geometry has no views";
    return out;
  }
  const VolumeShape& s = grid.shape;
  if (s.nx < 1 || s.ny < 1 || s.nz < 1) {
    out.reason = "the volume is empty";
    return out;
  }
  const Eigen::Vector3d& size = grid.voxelSizeMm;
  const DetectorShape& det = geometry.detector();
  Eigen::Matrix4d indexToWorld = Eigen::Matrix4d::Identity();
  indexToWorld.topLeftCorner<3, 3>() = size.asDiagonal();
  indexToWorld.topRightCorner<3, 1>() = grid.originMm;

  out.views.resize(static_cast<std::size_t>(geometry.viewCount()));
  for (std::int64_t k = 0; k < geometry.viewCount(); ++k) {
    const View& view = geometry.view(k);
    const Eigen::Vector3d dir = view.rayDirection.normalized();
    if (std::abs(view.u.z()) * static_cast<double>(det.cols) / size.z() > kTolerance) {
      out.reason = describe(
          "the detector columns are not perpendicular to the z axis (a "
          "rotated or tilted tilt axis), u z component in mm",
          k, view.u.z());
      return out;
    }
    const double vNorm = view.v.norm();
    if (std::hypot(view.v.x(), view.v.y()) / vNorm * static_cast<double>(det.rows) > kTolerance) {
      out.reason = describe("the detector rows are not along the z axis, v x-y length in mm", k,
                            std::hypot(view.v.x(), view.v.y()));
      return out;
    }
    if (std::abs(vNorm - size.z()) / size.z() * static_cast<double>(s.nz) > kTolerance) {
      out.reason =
          describe("the row pitch differs from the voxel z size, row pitch in mm", k, vNorm);
      return out;
    }
    const Eigen::Matrix<double, 3, 4> m = geometry.projectionMatrix(k) * indexToWorld;
    if (std::abs(m(0, 2)) * static_cast<double>(s.nz) > kTolerance) {
      out.reason =
          describe("the column of a voxel depends on its slice, pixels per slice", k, m(0, 2));
      return out;
    }
    if ((std::abs(m(1, 0)) * static_cast<double>(s.nx) +
         std::abs(m(1, 1)) * static_cast<double>(s.ny)) > kTolerance) {
      out.reason = describe("the row of a voxel depends on its x or y, rows per voxel", k,
                            std::max(std::abs(m(1, 0)), std::abs(m(1, 1))));
      return out;
    }
    const int direction = m(1, 2) > 0 ? 1 : -1;
    const double rowOffset = m(1, 3);
    const double nearest = std::round(rowOffset);
    if (std::abs(rowOffset - nearest) > kTolerance) {
      out.reason =
          describe("the slices do not fall on detector rows, row of slice 0", k, rowOffset);
      return out;
    }
    if (k == 0) {
      out.rowDirection = direction;
      out.rowOffset = static_cast<std::int64_t>(nearest);
    } else if (direction != out.rowDirection ||
               static_cast<std::int64_t>(nearest) != out.rowOffset) {
      out.reason = "the views disagree on the detector row of slice 0: view 0 puts it on row " +
                   std::to_string(out.rowOffset) +
                   (out.rowDirection > 0 ? " (v along +z)" : " (v along -z)") + ", view " +
                   std::to_string(k) + " on row " +
                   std::to_string(static_cast<std::int64_t>(nearest)) +
                   (direction > 0 ? " (v along +z)" : " (v along -z)");
      return out;
    }

    // The Joseph projector's plane parametrisation (JosephProjector.cpp, planeRay) of the ray
    // of pixel (0, 0), and its change per column; rows do not move it (v is along z).
    SliceViewCoefficients& c = out.views[static_cast<std::size_t>(k)];
    const Eigen::Vector3d corner = view.detectorCentre -
                                   0.5 * static_cast<double>(det.cols - 1) * view.u -
                                   0.5 * static_cast<double>(det.rows - 1) * view.v;
    const Eigen::Vector3d q0 = (corner - grid.originMm).cwiseQuotient(size);
    const Eigen::Vector3d dq = dir.cwiseQuotient(size);
    const Eigen::Vector3d du = view.u.cwiseQuotient(size);
    int a = 0;
    dq.cwiseAbs().maxCoeff(&a);
    if (a == 2) {  // cannot happen with dir.z() ~ 0, but never index out of the plane
      out.reason = describe("the rays run along z", k, dir.z());
      return out;
    }
    // The ray must stay in its slice over the whole volume.
    if (std::abs(dq.z() / dq[a]) * static_cast<double>(std::max(s.nx, s.ny)) > kTolerance) {
      out.reason =
          describe("the rays are not perpendicular to the z axis, ray z component", k, dir.z());
      return out;
    }
    const int b = a == 0 ? 1 : 0;
    c.dominantAxis = a;
    c.planeStep = dq[b] / dq[a];
    c.rayOffset = q0[b] - q0[a] * c.planeStep;
    c.rayStep = du[b] - du[a] * c.planeStep;
    c.forwardWeight = 1.0 / std::abs(dq[a]);
    c.cx = m(0, 0);
    c.cy = m(0, 1);
    c.c0 = m(0, 3);
    c.backWeight = size.prod() / std::abs(view.u.cross(view.v).dot(dir));
  }

  // Slices with a row in [0, rows).
  std::int64_t lo = 0, hi = 0;  // slice range [lo, hi)
  if (out.rowDirection > 0) {
    lo = std::max<std::int64_t>(0, -out.rowOffset);
    hi = std::min<std::int64_t>(s.nz, det.rows - out.rowOffset);
  } else {
    lo = std::max<std::int64_t>(0, out.rowOffset - det.rows + 1);
    hi = std::min<std::int64_t>(s.nz, out.rowOffset + 1);
  }
  out.firstSlice = lo;
  out.sliceCount = std::max<std::int64_t>(0, hi - lo);
  if (out.sliceCount == 0) {
    out.views.clear();
    out.reason = "no slice of the volume lies on a detector row (row of slice 0: " +
                 std::to_string(out.rowOffset) + ", detector rows 0.." +
                 std::to_string(det.rows - 1) + ")";
    return out;
  }
  out.aligned = true;
  return out;
}

}  // namespace tomowb::projector
