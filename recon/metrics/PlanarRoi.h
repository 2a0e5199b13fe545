// PlanarRoi: a circle (or ellipse) or rectangle drawn on one orthogonal slice of a volume, in
// world mm, the voxels it covers and their statistics (voxel count, area in mm^2, mean, sample
// standard deviation, min, max): the figures a CT user expects of an ROI (Slicer's Segment
// Statistics, ImageJ's Measure; reference/ux-review-2026-11.md 2a and 9.9). A voxel belongs to
// the ROI when its centre does, the rule of Region.h, so these figures agree with the metrics of
// the CLI. The slice views (render/SliceRoi) draw these shapes; this file knows nothing of them.
#pragma once

#include <Eigen/Core>
#include <array>
#include <cstdint>
#include <limits>
#include <vector>

#include "recon/core/Volume.h"

namespace tomowb::metrics {

struct PlanarRoi {
  enum class Shape { Circle, Rectangle };

  Shape shape = Shape::Circle;
  int axis = 2;          // the axis normal to the slice: 0 = x (sagittal), 1 = y (coronal), 2 = z
  double sliceMm = 0.0;  // world coordinate of the slice along `axis`
  // In-plane world mm, in the order of inPlaneAxes(axis): axial (x, y), coronal (x, z),
  // sagittal (y, z). A circle has halfSizeMm = (radius, radius); unequal half sizes make an
  // axis-aligned ellipse.
  Eigen::Vector2d centreMm = Eigen::Vector2d::Zero();
  Eigen::Vector2d halfSizeMm = Eigen::Vector2d::Zero();

  // True when the in-plane point (mm) lies inside the shape (boundary included).
  bool containsInPlane(const Eigen::Vector2d& pointMm) const noexcept;
};

// The two world axes spanning the slice normal to `axis`, in increasing order.
std::array<int, 2> inPlaneAxes(int axis) noexcept;

// The index of the slice normal to `axis` nearest to `sliceMm`, or -1 when it lies outside the
// volume (or the axis is not 0, 1 or 2).
std::int64_t nearestSliceIndex(const Volume& volume, int axis, double sliceMm) noexcept;

// Linear indices ((z*ny + y)*nx + x, ascending) of the voxels of the ROI's slice whose centres
// lie inside the ROI: the part of the ROI outside the volume is clipped away. Empty when the
// slice is outside the volume or no centre is inside.
std::vector<std::int64_t> planarRoiVoxels(const Volume& volume, const PlanarRoi& roi);

struct PlanarRoiStats {
  static constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
  std::int64_t voxelCount = 0;      // voxels whose centres lie inside (and inside the volume)
  std::int64_t nonFiniteCount = 0;  // NaN or infinite voxels among them, left out of the figures
  double areaMm2 = 0.0;             // voxelCount x the in-plane voxel area
  double mean = kNaN;               // of the finite voxels; NaN without any
  double std = kNaN;                // sample standard deviation (n - 1); NaN for fewer than 2
  double min = kNaN;
  double max = kNaN;
};

// The figures of the listed voxels (Volume::index values, each inside the volume) of a slice
// normal to `axis` (which sets the pixel area). Sums in double: mean first, then the squared
// deviations.
PlanarRoiStats voxelStatistics(const Volume& volume, const std::vector<std::int64_t>& voxels,
                               int axis);
// planarRoiVoxels, then voxelStatistics.
PlanarRoiStats planarRoiStatistics(const Volume& volume, const PlanarRoi& roi);

}  // namespace tomowb::metrics
