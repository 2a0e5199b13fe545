// SliceRoi: a circle or rectangle drawn on one orthogonal slice, in world mm, with a role
// (signal or background) for contrast-to-noise measurements, and the voxels it covers; SliceLine:
// a line drawn on one slice (a ruler, or the line of the line profile). The geometry is plain
// data (no VTK); the voxels and figures come from recon/metrics/PlanarRoi, so metrics code and
// tests can use them without a view.
#pragma once

#include <Eigen/Core>
#include <QString>
#include <array>
#include <cstdint>
#include <vector>

#include "recon/core/Volume.h"
#include "recon/metrics/PlanarRoi.h"

namespace tomowb::render {

struct SliceRoi {
  enum Role { Signal, Background };
  enum Shape { Circle, Rectangle };

  int id = 0;
  QString label;  // "ROI 1", "BG 2"
  Role role = Signal;
  Shape shape = Circle;
  int axis = 2;          // the axis normal to the slice: 0 = x (sagittal), 1 = y (coronal), 2 = z
  double sliceMm = 0.0;  // world coordinate of the slice along `axis`
  // In-plane world mm, in the order of inPlaneAxes(axis): axial (x, y), coronal (x, z),
  // sagittal (y, z). A circle has halfSizeMm = (radius, radius).
  Eigen::Vector2d centreMm = Eigen::Vector2d::Zero();
  Eigen::Vector2d halfSizeMm = Eigen::Vector2d::Zero();

  // True when the in-plane point (mm) lies inside the shape (boundary included).
  bool containsInPlane(const Eigen::Vector2d& pointMm) const noexcept {
    return planar().containsInPlane(pointMm);
  }
  // The shape as the metrics code takes it.
  metrics::PlanarRoi planar() const noexcept;
  bool operator==(const SliceRoi&) const = default;
};

// A straight line on one orthogonal slice: a ruler (its length is shown beside it) or the line
// of the line profile.
struct SliceLine {
  int id = 0;
  QString label;         // "Ruler 3", "Profile"
  int axis = 2;          // as SliceRoi::axis
  double sliceMm = 0.0;  // as SliceRoi::sliceMm
  // In-plane world mm, in the order of inPlaneAxes(axis).
  Eigen::Vector2d fromMm = Eigen::Vector2d::Zero();
  Eigen::Vector2d toMm = Eigen::Vector2d::Zero();

  double lengthMm() const noexcept { return (toMm - fromMm).norm(); }
  bool operator==(const SliceLine&) const = default;
};

// The two world axes spanning the slice normal to `axis`, in increasing order.
using metrics::inPlaneAxes;

// The slice index of the volume nearest to roi.sliceMm, or -1 when it lies outside the volume.
std::int64_t roiSliceIndex(const Volume& volume, const SliceRoi& roi) noexcept;

// Linear indices ((z*ny + y)*nx + x, ascending) of the voxels of the ROI's slice whose centres
// lie inside the ROI. Empty when the slice is outside the volume or no centre is inside.
std::vector<std::int64_t> roiVoxelIndices(const Volume& volume, const SliceRoi& roi);

}  // namespace tomowb::render
