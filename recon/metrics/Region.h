// Region: which voxels a metric counts. A region is the intersection of simple parts: a central
// cylinder about the volume's z axis (radius as a fraction of the in-plane half-size, as in
// "RMSE inside the central disc of radius 0.8*N/2" of reference/sirt-et.md, or in mm), a slab of
// slices, a sphere in world mm, and masks (nonzero = in). No part means the whole volume.
// A Region is independent of any volume; BoundRegion checks it against one volume's shape and
// geometry and answers, per row of voxels, which ones it selects. Every error names the region,
// e.g. "region 'cylinder r=0.8 slices 100..156' selects no voxel of the 64x64x64 volume".
#pragma once

#include <Eigen/Core>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "recon/core/Volume.h"

namespace tomowb::metrics {

class BoundRegion;

class Region {
 public:
  // Every voxel of the volume.
  static Region whole();
  // Voxels whose centre lies within `radiusFraction` times the in-plane half-size of the volume
  // (0.5 * min(nx*dx, ny*dy) mm) of the volume's central z axis (the line through the centre of
  // the x-y grid). Any z; combine with slices() for a z range. The fraction must be > 0.
  static Region centralCylinder(double radiusFraction);
  // As centralCylinder(), with the radius in mm.
  static Region centralCylinderMm(double radiusMm);
  // Slices zBegin <= z < zEnd (described as "slices zBegin..zEnd"). Both must lie in the volume.
  static Region slab(std::int64_t zBegin, std::int64_t zEnd);
  // Voxels whose centre lies within radiusMm of centreMm (world coordinates).
  static Region sphere(const Eigen::Vector3d& centreMm, double radiusMm);
  // A mask of shape `shape` (index = (z*ny + y)*nx + x), nonzero = in. `label` names it in
  // messages ("mask" by default, e.g. "mask 'lesions.raw'").
  static Region mask(std::vector<std::uint8_t> voxels, VolumeShape shape,
                     std::string label = "mask");
  // A mask volume: voxels that are nonzero and not NaN are in.
  static Region mask(const Volume& maskVolume, std::string label = "mask volume");

  // Intersection: the voxels both regions select.
  Region operator&(const Region& other) const;
  // This region restricted to slices zBegin <= z < zEnd: *this & slab(zBegin, zEnd).
  Region slices(std::int64_t zBegin, std::int64_t zEnd) const;
  // The same region under another name in messages and JSON (e.g. "background").
  Region named(std::string name) const;

  // "whole volume", "cylinder r=0.8 slices 100..156", "sphere (0,0,10)mm r=5mm mask", or the
  // name given with named().
  std::string description() const;
  bool isWhole() const noexcept { return parts_.empty(); }

  // Checks the region against the volume's shape (slab inside it, masks of its shape) and binds
  // it to the volume's geometry. `parameter` names the region in the ParameterError thrown.
  BoundRegion bind(const Volume& volume, std::string_view parameter = "region") const;
  BoundRegion bind(const VolumeShape& shape, const Eigen::Vector3d& voxelSizeMm,
                   const Eigen::Vector3d& originMm, std::string_view parameter = "region") const;
  // Shortcuts through bind().
  std::vector<std::uint8_t> toMask(const Volume& volume) const;
  std::int64_t voxelCount(const Volume& volume) const;

 private:
  friend class BoundRegion;
  struct Cylinder {
    double radius = 0.0;
    bool radiusIsFraction = true;
  };
  struct Slab {
    std::int64_t zBegin = 0, zEnd = 0;
  };
  struct Sphere {
    Eigen::Vector3d centreMm = Eigen::Vector3d::Zero();
    double radiusMm = 0.0;
  };
  struct Mask {
    std::shared_ptr<const std::vector<std::uint8_t>> voxels;
    VolumeShape shape;
    std::string label;
  };
  using Part = std::variant<Cylinder, Slab, Sphere, Mask>;

  std::vector<Part> parts_;
  std::string name_;
};

// A half-open run of voxels [xBegin, xEnd) in one row; empty when xBegin >= xEnd.
struct RowSpan {
  std::int64_t xBegin = 0, xEnd = 0;
  bool empty() const noexcept { return xBegin >= xEnd; }
};

// A Region checked against one volume's shape and geometry. The geometric parts (cylinder,
// slab, sphere) give one span of x per row; masks (all of them ANDed into one) then filter it.
// A voxel is in the region when rowSpan(y, z) holds x and, if there is a mask, maskRow(y, z)[x]
// is nonzero; contains() says exactly that.
class BoundRegion {
 public:
  BoundRegion(const Region& region, const VolumeShape& shape, const Eigen::Vector3d& voxelSizeMm,
              const Eigen::Vector3d& originMm, std::string_view parameter = "region");

  const VolumeShape& shape() const noexcept { return shape_; }
  const std::string& description() const noexcept { return description_; }

  RowSpan rowSpan(std::int64_t y, std::int64_t z) const noexcept;
  // The combined mask's row (nx entries), or nullptr when the region has no mask.
  const std::uint8_t* maskRow(std::int64_t y, std::int64_t z) const noexcept {
    return mask_ ? mask_->data() + (z * shape_.ny + y) * shape_.nx : nullptr;
  }
  bool contains(std::int64_t x, std::int64_t y, std::int64_t z) const noexcept;

  // Number of voxels selected (counted once, at binding).
  std::int64_t voxelCount() const noexcept { return voxelCount_; }
  std::int64_t voxelCountInSlice(std::int64_t z) const noexcept {
    return sliceCounts_[static_cast<std::size_t>(z)];
  }
  // Throws ParameterError "region '<description>' selects no voxel of the NxNxN volume".
  void throwIfEmpty() const;
  // One byte per voxel, 1 = in, index = (z*ny + y)*nx + x.
  std::vector<std::uint8_t> toMask() const;

 private:
  using SharedMask = std::shared_ptr<const std::vector<std::uint8_t>>;
  void addPart(const Region::Part& part, const Eigen::Vector3d& originMm, double halfSizeMm,
               std::vector<SharedMask>& masks);
  void combineMasks(const std::vector<SharedMask>& masks);
  void countVoxels();

  VolumeShape shape_;
  std::string description_;
  std::string parameter_;
  // In-plane cylinders: centre (voxel index units) and radius in mm, all intersected.
  struct CylinderMm {
    double radiusMm;
  };
  std::vector<CylinderMm> cylinders_;
  // Spheres: centre in voxel index coordinates, radius in mm.
  struct SphereIndex {
    Eigen::Vector3d centreIndex;
    double radiusMm;
  };
  std::vector<SphereIndex> spheres_;
  std::int64_t zBegin_ = 0, zEnd_ = 0;
  Eigen::Vector3d voxelSizeMm_;
  SharedMask mask_;
  std::vector<std::int64_t> sliceCounts_;
  std::int64_t voxelCount_ = 0;
};

// "64x64x32", for messages.
std::string shapeText(const VolumeShape& shape);

}  // namespace tomowb::metrics
