#include "recon/fdk/ArcRebinning.h"

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "recon/geometry/ArcFrame.h"

namespace tomowb::fdk {

ProjectionStack rebinArcToFlat(const ProjectionStack& projections) {
  const Geometry& arc = projections.geometry();
  ProjectionStack flat(flatEquivalentGeometry(arc));
  const std::int64_t cols = arc.detector().cols, rows = arc.detector().rows;
  const std::int64_t perView = cols * rows;
  const float* in = projections.data();
  float* out = flat.data();
#pragma omp parallel for schedule(dynamic)
  for (std::int64_t k = 0; k < arc.viewCount(); ++k) {
    const float* from = in + k * perView;
    float* to = out + k * perView;
    if (arc.view(k).surface != DetectorSurface::Cylinder) {
      std::copy(from, from + perView, to);
      continue;
    }
    const ArcFrame frame = arcFrame(arc, k);
    auto at = [&](std::int64_t r, std::int64_t c) {
      return double(from[std::clamp<std::int64_t>(r, 0, rows - 1) * cols +
                         std::clamp<std::int64_t>(c, 0, cols - 1)]);
    };
    for (std::int64_t r = 0; r < rows; ++r)
      for (std::int64_t c = 0; c < cols; ++c) {
        const Eigen::Vector2d p = frame.pixelCoordinates(
            flat.geometry().pixelPosition(k, static_cast<double>(c), static_cast<double>(r)));
        const double x = std::clamp(p.x(), 0.0, static_cast<double>(cols - 1));
        const double y = std::clamp(p.y(), 0.0, static_cast<double>(rows - 1));
        const auto c0 = static_cast<std::int64_t>(std::floor(x));
        const auto r0 = static_cast<std::int64_t>(std::floor(y));
        const double fx = x - static_cast<double>(c0), fy = y - static_cast<double>(r0);
        const double top = (1.0 - fx) * at(r0, c0) + fx * at(r0, c0 + 1);
        const double bottom = (1.0 - fx) * at(r0 + 1, c0) + fx * at(r0 + 1, c0 + 1);
        to[r * cols + c] = static_cast<float>((1.0 - fy) * top + fy * bottom);
      }
  }
  return flat;
}

}  // namespace tomowb::fdk
