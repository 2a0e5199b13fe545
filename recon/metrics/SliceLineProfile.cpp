// SliceLineProfile: see the header.
#include "recon/metrics/SliceLineProfile.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "recon/metrics/PlanarRoi.h"

namespace tomowb::metrics {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
// Voxel units: a sample on the outermost voxel centres (a line drawn edge to edge of the
// centres) counts as inside despite rounding.
constexpr double kEdgeSlack = 1e-6;

}  // namespace

double bilinearInSlice(const Volume& volume, int axis, std::int64_t sliceIndex,
                       const Eigen::Vector2d& pointMm) noexcept {
  const auto [a, b] = inPlaneAxes(axis);
  const std::int64_t n[3] = {volume.nx(), volume.ny(), volume.nz()};
  std::int64_t first[2];
  double fraction[2];
  const int axes[2] = {a, b};
  for (int k = 0; k < 2; ++k) {
    const int ax = axes[k];
    const double last = static_cast<double>(n[ax] - 1);
    double c = (pointMm[k] - volume.originMm()[ax]) / volume.voxelSizeMm()[ax];
    if (!(c >= -kEdgeSlack && c <= last + kEdgeSlack)) return kNaN;
    c = std::clamp(c, 0.0, last);
    first[k] = std::min(static_cast<std::int64_t>(std::floor(c)), n[ax] - 1);
    // On the last centre (or a one-voxel axis) there is no second neighbour.
    fraction[k] = first[k] == n[ax] - 1 ? 0.0 : c - static_cast<double>(first[k]);
  }
  double value = 0.0;
  for (int corner = 0; corner < 4; ++corner) {
    const int da = corner & 1, db = corner >> 1;
    const double w =
        (da ? fraction[0] : 1.0 - fraction[0]) * (db ? fraction[1] : 1.0 - fraction[1]);
    if (w == 0.0) continue;
    std::int64_t voxel[3];
    voxel[axis] = sliceIndex;
    voxel[a] = first[0] + da;
    voxel[b] = first[1] + db;
    value += w * static_cast<double>(volume.at(voxel[0], voxel[1], voxel[2]));
  }
  return value;
}

SliceLineProfile sliceLineProfile(const Volume& volume, int axis, double sliceMm,
                                  const Eigen::Vector2d& fromMm, const Eigen::Vector2d& toMm) {
  SliceLineProfile profile;
  profile.lengthMm = (toMm - fromMm).norm();
  const std::int64_t slice = nearestSliceIndex(volume, axis, sliceMm);
  if (slice < 0) return profile;
  const auto [a, b] = inPlaneAxes(axis);
  const double step =
      std::min(std::abs(volume.voxelSizeMm()[a]), std::abs(volume.voxelSizeMm()[b]));
  const double wanted = step > 0.0 ? std::ceil(profile.lengthMm / step) + 1.0 : 2.0;
  const int count = static_cast<int>(std::clamp(wanted, 2.0, double{kMaxProfileSamples}));
  profile.distanceMm.resize(static_cast<std::size_t>(count));
  profile.values.resize(static_cast<std::size_t>(count));
  for (int s = 0; s < count; ++s) {
    const double t = static_cast<double>(s) / (count - 1);
    const auto i = static_cast<std::size_t>(s);
    profile.distanceMm[i] = t * profile.lengthMm;
    profile.values[i] = bilinearInSlice(volume, axis, slice, fromMm + t * (toMm - fromMm));
  }
  return profile;
}

}  // namespace tomowb::metrics
