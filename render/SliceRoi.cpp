// SliceRoi: see the header. A voxel belongs to an ROI when its centre does, the rule of
// recon/metrics/Region.h, so ROI statistics agree with the metrics module.
#include "render/SliceRoi.h"

#include <algorithm>
#include <cmath>

namespace tomowb::render {

bool SliceRoi::containsInPlane(const Eigen::Vector2d& pointMm) const noexcept {
  const Eigen::Vector2d d = pointMm - centreMm;
  if (shape == Rectangle)
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

std::int64_t roiSliceIndex(const Volume& volume, const SliceRoi& roi) noexcept {
  if (roi.axis < 0 || roi.axis > 2) return -1;
  const double position =
      (roi.sliceMm - volume.originMm()[roi.axis]) / volume.voxelSizeMm()[roi.axis];
  const auto index = static_cast<std::int64_t>(std::lround(position));
  const std::int64_t n[3] = {volume.nx(), volume.ny(), volume.nz()};
  return index >= 0 && index < n[roi.axis] ? index : -1;
}

std::vector<std::int64_t> roiVoxelIndices(const Volume& volume, const SliceRoi& roi) {
  std::vector<std::int64_t> indices;
  const std::int64_t slice = roiSliceIndex(volume, roi);
  if (slice < 0) return indices;
  const auto [a, b] = inPlaneAxes(roi.axis);
  const std::int64_t n[3] = {volume.nx(), volume.ny(), volume.nz()};
  const Eigen::Vector3d& origin = volume.originMm();
  const Eigen::Vector3d& size = volume.voxelSizeMm();
  // Only the voxels of the bounding box can be inside.
  auto range = [&](int axis, double centre, double half) {
    const double lo = (centre - half - origin[axis]) / size[axis];
    const double hi = (centre + half - origin[axis]) / size[axis];
    const auto first = std::max<std::int64_t>(0, static_cast<std::int64_t>(std::floor(lo)));
    const auto last = std::min<std::int64_t>(n[axis] - 1, static_cast<std::int64_t>(std::ceil(hi)));
    return std::pair{first, last};
  };
  const auto [aFirst, aLast] = range(a, roi.centreMm.x(), roi.halfSizeMm.x());
  const auto [bFirst, bLast] = range(b, roi.centreMm.y(), roi.halfSizeMm.y());
  for (std::int64_t j = bFirst; j <= bLast; ++j) {
    for (std::int64_t i = aFirst; i <= aLast; ++i) {
      const Eigen::Vector2d point(origin[a] + i * size[a], origin[b] + j * size[b]);
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

}  // namespace tomowb::render
