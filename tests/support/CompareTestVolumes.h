// Synthetic volume pairs for the compare tests (gui core and gui): a smooth ball, and the ball
// plus a known bump.
#pragma once

#include <algorithm>
#include <cmath>
#include <memory>

#include "recon/core/Volume.h"

namespace tomowb::test {

// A smooth ball of radius `radiusFraction` * nx/2 voxels on 0.5 mm voxels (value 1 inside, 0
// outside, a one-voxel ramp at its edge).
inline std::shared_ptr<Volume> ball(VolumeShape shape, double radiusFraction) {
  auto v = std::make_shared<Volume>(Volume::centred(shape, Eigen::Vector3d::Constant(0.5)));
  const double r = radiusFraction * shape.nx * 0.5;
  for (std::int64_t z = 0; z < shape.nz; ++z)
    for (std::int64_t y = 0; y < shape.ny; ++y)
      for (std::int64_t x = 0; x < shape.nx; ++x) {
        const double d = v->worldPosition(x, y, z).norm();
        v->at(x, y, z) = static_cast<float>(std::clamp((r - d) / 0.5 + 0.5, 0.0, 1.0));
      }
  return v;
}

// `a` plus a Gaussian bump (sigma 2 voxels) of height `peak` at voxel (cx, cy, cz).
inline std::shared_ptr<Volume> withBump(const Volume& a, double peak, int cx, int cy, int cz) {
  auto b = std::make_shared<Volume>(a);
  for (std::int64_t z = 0; z < a.nz(); ++z)
    for (std::int64_t y = 0; y < a.ny(); ++y)
      for (std::int64_t x = 0; x < a.nx(); ++x) {
        const double d2 = double((x - cx) * (x - cx) + (y - cy) * (y - cy) + (z - cz) * (z - cz));
        b->at(x, y, z) = static_cast<float>(a.at(x, y, z) + peak * std::exp(-d2 / 8.0));
      }
  return b;
}

}  // namespace tomowb::test
