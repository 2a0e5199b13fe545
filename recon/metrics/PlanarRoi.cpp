// PlanarRoi: see the header. Only the voxels of the shape's bounding box, clipped to the volume,
// are visited: an ROI on a 2048^2 slice costs what its own area costs.
#include "recon/metrics/PlanarRoi.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <utility>

namespace tomowb::metrics {

bool PlanarRoi::containsInPlane(const Eigen::Vector2d& pointMm) const noexcept {
  const Eigen::Vector2d d = pointMm - centreMm;
  if (shape == Shape::Rectangle)
    return std::abs(d.x()) <= halfSizeMm.x() && std::abs(d.y()) <= halfSizeMm.y();
  if (halfSizeMm.x() <= 0.0 || halfSizeMm.y() <= 0.0) return false;
  const double u = d.x() / halfSizeMm.x(), v = d.y() / halfSizeMm.y();
  return u * u + v * v <= 1.0;
}

std::array<int, 2> inPlaneAxes(int axis) noexcept {
  switch (axis) {
    case 0:
      return {1, 2};
    case 1:
      return {0, 2};
    default:
      return {0, 1};
  }
}

std::int64_t nearestSliceIndex(const Volume& volume, int axis, double sliceMm) noexcept {
  if (axis < 0 || axis > 2 || volume.empty()) return -1;
  const double position = (sliceMm - volume.originMm()[axis]) / volume.voxelSizeMm()[axis];
  if (!(std::abs(position) < 1e15)) return -1;  // NaN, infinite or far outside
  const std::int64_t n[3] = {volume.nx(), volume.ny(), volume.nz()};
  const auto index = static_cast<std::int64_t>(std::llround(position));
  return index >= 0 && index < n[axis] ? index : -1;
}

std::vector<std::int64_t> planarRoiVoxels(const Volume& volume, const PlanarRoi& roi) {
  std::vector<std::int64_t> indices;
  const std::int64_t slice = nearestSliceIndex(volume, roi.axis, roi.sliceMm);
  if (slice < 0) return indices;
  const auto [a, b] = inPlaneAxes(roi.axis);
  const std::int64_t n[3] = {volume.nx(), volume.ny(), volume.nz()};
  const Eigen::Vector3d& origin = volume.originMm();
  const Eigen::Vector3d& size = volume.voxelSizeMm();
  // The voxel range of the bounding box along one in-plane axis, clipped to the volume.
  auto range = [&](int axis, double centre, double half) {
    const double lo = (centre - half - origin[axis]) / size[axis];
    const double hi = (centre + half - origin[axis]) / size[axis];
    const double first = std::max(0.0, std::floor(std::min(lo, hi)));
    const double last = std::min(static_cast<double>(n[axis] - 1), std::ceil(std::max(lo, hi)));
    return std::pair{static_cast<std::int64_t>(first), static_cast<std::int64_t>(last)};
  };
  const auto [aFirst, aLast] = range(a, roi.centreMm.x(), roi.halfSizeMm.x());
  const auto [bFirst, bLast] = range(b, roi.centreMm.y(), roi.halfSizeMm.y());
  for (std::int64_t j = bFirst; j <= bLast; ++j) {
    for (std::int64_t i = aFirst; i <= aLast; ++i) {
      const Eigen::Vector2d point(origin[a] + static_cast<double>(i) * size[a],
                                  origin[b] + static_cast<double>(j) * size[b]);
      if (!roi.containsInPlane(point)) continue;
      std::int64_t voxel[3];
      voxel[roi.axis] = slice;
      voxel[a] = i;
      voxel[b] = j;
      indices.push_back(volume.index(voxel[0], voxel[1], voxel[2]));
    }
  }
  std::sort(indices.begin(), indices.end());
  return indices;
}

PlanarRoiStats voxelStatistics(const Volume& volume, const std::vector<std::int64_t>& voxels,
                               int axis) {
  PlanarRoiStats stats;
  const auto [a, b] = inPlaneAxes(axis);
  stats.voxelCount = static_cast<std::int64_t>(voxels.size());
  stats.areaMm2 = static_cast<double>(stats.voxelCount) * std::abs(volume.voxelSizeMm()[a]) *
                  std::abs(volume.voxelSizeMm()[b]);
  const std::span<const float> values = volume.voxels();
  double sum = 0.0, lo = std::numeric_limits<double>::infinity(), hi = -lo;
  std::int64_t finite = 0;
  for (const std::int64_t i : voxels) {
    assert(i >= 0 && i < volume.voxelCount());
    const double v = values[static_cast<std::size_t>(i)];
    if (!std::isfinite(v)) {
      ++stats.nonFiniteCount;
      continue;
    }
    sum += v;
    lo = std::min(lo, v);
    hi = std::max(hi, v);
    ++finite;
  }
  if (finite == 0) return stats;
  stats.mean = sum / static_cast<double>(finite);
  stats.min = lo;
  stats.max = hi;
  if (finite < 2) return stats;
  double squares = 0.0;
  for (const std::int64_t i : voxels) {
    const double v = values[static_cast<std::size_t>(i)];
    if (std::isfinite(v)) squares += (v - stats.mean) * (v - stats.mean);
  }
  stats.std = std::sqrt(squares / static_cast<double>(finite - 1));
  return stats;
}

PlanarRoiStats planarRoiStatistics(const Volume& volume, const PlanarRoi& roi) {
  return voxelStatistics(volume, planarRoiVoxels(volume, roi), roi.axis);
}

}  // namespace tomowb::metrics
