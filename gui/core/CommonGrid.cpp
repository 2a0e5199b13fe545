// CommonGrid: see the header.
#include "gui/core/CommonGrid.h"

#include <algorithm>
#include <cmath>

namespace tomowb::gui {

namespace {

// The part of `v` from voxel `first` with `shape` voxels; `v` itself when that is all of it.
std::shared_ptr<const Volume> cut(const std::shared_ptr<const Volume>& v,
                                  const Eigen::Vector3i& first, const VolumeShape& shape) {
  if (first.isZero() && shape == v->shape()) return v;
  const Eigen::Vector3d origin =
      v->originMm() + v->voxelSizeMm().cwiseProduct(first.cast<double>());
  auto out = std::make_shared<Volume>(shape, v->voxelSizeMm(), origin);
  for (std::int64_t z = 0; z < shape.nz; ++z)
    for (std::int64_t y = 0; y < shape.ny; ++y)
      for (std::int64_t x = 0; x < shape.nx; ++x)
        out->at(x, y, z) = v->at(x + first.x(), y + first.y(), z + first.z());
  return out;
}

}  // namespace

std::optional<CommonGridPair> onCommonGrid(const std::shared_ptr<const Volume>& a,
                                           const std::shared_ptr<const Volume>& b) {
  if (!a || !b) return std::nullopt;
  const Eigen::Vector3d voxel = a->voxelSizeMm();
  if ((voxel - b->voxelSizeMm()).cwiseAbs().maxCoeff() > 1e-6 * voxel.cwiseAbs().maxCoeff())
    return std::nullopt;
  // b's voxel 0 in a's voxels.
  const Eigen::Vector3d offset = (b->originMm() - a->originMm()).cwiseQuotient(voxel);
  const Eigen::Vector3d whole = offset.array().round().matrix();
  if ((offset - whole).cwiseAbs().maxCoeff() > 1e-3) return std::nullopt;
  const Eigen::Vector3i shift = whole.cast<int>();
  const std::int64_t aSize[3] = {a->nx(), a->ny(), a->nz()};
  const std::int64_t bSize[3] = {b->nx(), b->ny(), b->nz()};
  Eigen::Vector3i firstA, firstB;
  std::int64_t size[3];
  for (int axis = 0; axis < 3; ++axis) {
    const std::int64_t lo = std::max<std::int64_t>(0, shift[axis]);
    const std::int64_t hi = std::min<std::int64_t>(aSize[axis], shift[axis] + bSize[axis]);
    if (hi <= lo) return std::nullopt;
    size[axis] = hi - lo;
    firstA[axis] = static_cast<int>(lo);
    firstB[axis] = static_cast<int>(lo - shift[axis]);
  }
  const VolumeShape shape{size[0], size[1], size[2]};
  CommonGridPair pair;
  pair.a = cut(a, firstA, shape);
  pair.b = cut(b, firstB, shape);
  pair.cut = pair.a != a || pair.b != b;
  return pair;
}

}  // namespace tomowb::gui
