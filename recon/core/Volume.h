// Volume: a float32 voxel grid, x fastest then y then z (index = (z*ny + y)*nx + x), with its
// voxel size (mm per axis) and origin (world position of the centre of voxel (0,0,0)), as in
// DESIGN.md. Sizes are 64-bit and checked for overflow and against host memory on allocation;
// the voxels live in a host buffer that is pinned when a GPU is present (HostMemory.h).
#pragma once

#include <Eigen/Core>
#include <cstdint>
#include <span>
#include <vector>

#include "recon/core/HostMemory.h"

namespace tomowb {

struct VolumeShape {
  std::int64_t nx = 0, ny = 0, nz = 0;
  std::int64_t voxelCount() const noexcept { return nx * ny * nz; }
  bool operator==(const VolumeShape&) const = default;
};

class Volume {
 public:
  Volume() = default;
  // Zero-filled. Throws ParameterError for a size < 1 or overflow, OutOfMemoryError if it cannot
  // fit.
  Volume(VolumeShape shape, const Eigen::Vector3d& voxelSizeMm, const Eigen::Vector3d& originMm);
  // A volume centred on the world origin (the isocentre of a circular scan).
  static Volume centred(VolumeShape shape, const Eigen::Vector3d& voxelSizeMm);
  // The constructor's checks without the allocation: the volume's bytes, or the exception the
  // constructor would throw for a bad shape, voxel size or origin, or a size host memory cannot
  // hold.
  static std::uint64_t checkAllocation(VolumeShape shape, const Eigen::Vector3d& voxelSizeMm,
                                       const Eigen::Vector3d& originMm);

  const VolumeShape& shape() const noexcept { return shape_; }
  std::int64_t nx() const noexcept { return shape_.nx; }
  std::int64_t ny() const noexcept { return shape_.ny; }
  std::int64_t nz() const noexcept { return shape_.nz; }
  std::int64_t voxelCount() const noexcept { return shape_.voxelCount(); }
  bool empty() const noexcept { return voxels_.empty(); }

  const Eigen::Vector3d& voxelSizeMm() const noexcept { return voxelSizeMm_; }
  const Eigen::Vector3d& originMm() const noexcept { return originMm_; }
  void setVoxelSizeMm(const Eigen::Vector3d& size) { voxelSizeMm_ = size; }
  void setOriginMm(const Eigen::Vector3d& origin) { originMm_ = origin; }

  std::int64_t index(std::int64_t x, std::int64_t y, std::int64_t z) const noexcept {
    return (z * shape_.ny + y) * shape_.nx + x;
  }
  float& at(std::int64_t x, std::int64_t y, std::int64_t z) noexcept {
    return voxels_[static_cast<std::size_t>(index(x, y, z))];
  }
  float at(std::int64_t x, std::int64_t y, std::int64_t z) const noexcept {
    return voxels_[static_cast<std::size_t>(index(x, y, z))];
  }
  // World position (mm) of the centre of voxel (x, y, z).
  Eigen::Vector3d worldPosition(double x, double y, double z) const noexcept {
    return originMm_ + voxelSizeMm_.cwiseProduct(Eigen::Vector3d(x, y, z));
  }

  float* data() noexcept { return voxels_.data(); }
  const float* data() const noexcept { return voxels_.data(); }
  std::span<float> voxels() noexcept { return voxels_; }
  std::span<const float> voxels() const noexcept { return voxels_; }
  // Hands the voxel buffer over (x fastest, then y, then z) without a copy; the volume is left
  // empty. Used to reinterpret a stack read as a volume as projections (ProjectionStack).
  std::vector<float, HostBufferAllocator<float>> takeVoxels() && {
    shape_ = {};
    return std::move(voxels_);
  }
  std::span<float> slice(std::int64_t z) noexcept {
    return std::span<float>(voxels_).subspan(static_cast<std::size_t>(z * shape_.nx * shape_.ny),
                                             static_cast<std::size_t>(shape_.nx * shape_.ny));
  }

 private:
  VolumeShape shape_;
  Eigen::Vector3d voxelSizeMm_ = Eigen::Vector3d::Ones();
  Eigen::Vector3d originMm_ = Eigen::Vector3d::Zero();
  std::vector<float, HostBufferAllocator<float>> voxels_;  // pinned when a GPU is present
};

}  // namespace tomowb
