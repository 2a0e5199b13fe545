#include "recon/core/Volume.h"

#include <cmath>
#include <string>

#include "recon/core/CheckedSize.h"
#include "recon/core/Error.h"
#include "recon/core/MemoryBudget.h"

namespace tomowb {

namespace {
void checkAxis(const char* name, std::int64_t n) {
  if (n < 1) throw ParameterError(name, "must be >= 1, got " + std::to_string(n));
}
// "a 512x512x400 volume": what the memory errors name.
std::string describe(const VolumeShape& shape) {
  return "a " + std::to_string(shape.nx) + "x" + std::to_string(shape.ny) + "x" +
         std::to_string(shape.nz) + " volume";
}
}  // namespace

std::uint64_t Volume::checkAllocation(VolumeShape shape, const Eigen::Vector3d& voxelSizeMm,
                                      const Eigen::Vector3d& originMm) {
  checkAxis("volume.nx", shape.nx);
  checkAxis("volume.ny", shape.ny);
  checkAxis("volume.nz", shape.nz);
  for (int axis = 0; axis < 3; ++axis) {
    if (!(voxelSizeMm[axis] > 0.0) || !std::isfinite(voxelSizeMm[axis]))
      throw ParameterError("volume.voxelSizeMm",
                           "must be finite and > 0, got " + std::to_string(voxelSizeMm[axis]));
    if (!std::isfinite(originMm[axis])) throw ParameterError("volume.originMm", "must be finite");
  }
  const std::uint64_t bytes = productOrThrow("volume size", {shape.nx, shape.ny, shape.nz, 4});
  checkHostAllocation(bytes, describe(shape));
  return bytes;
}

Volume::Volume(VolumeShape shape, const Eigen::Vector3d& voxelSizeMm,
               const Eigen::Vector3d& originMm)
    : shape_(shape), voxelSizeMm_(voxelSizeMm), originMm_(originMm) {
  const std::uint64_t bytes = checkAllocation(shape, voxelSizeMm, originMm);
  allocateOrExplain(bytes, describe(shape), [&] {
    voxels_.resize(static_cast<std::size_t>(bytes / 4));  // zeros: HostBufferAllocator
  });
}

Volume Volume::centred(VolumeShape shape, const Eigen::Vector3d& voxelSizeMm) {
  const Eigen::Vector3d extent(static_cast<double>(shape.nx - 1), static_cast<double>(shape.ny - 1),
                               static_cast<double>(shape.nz - 1));
  return Volume(shape, voxelSizeMm, -0.5 * voxelSizeMm.cwiseProduct(extent));
}

}  // namespace tomowb
