#include "recon/projector/VoxelBackprojector.h"

#include <cmath>
#include <exception>
#include <vector>

#include "recon/core/Error.h"
#include "recon/projector/AlignedSliceProjector.h"
#include "recon/projector/JosephProjector.h"

namespace tomowb::projector {

namespace {

// Per view: the projection matrix in voxel-index coordinates and what the weight needs.
struct ViewSetup {
  Eigen::Matrix<double, 3, 4> indexToPixel;  // (i, j, k, 1) -> (c w, r w, w)
  bool cone = false;
  double parallelWeight = 0;  // V / |(u x v) . dir|
  Eigen::Vector3d source, normal;
  double sourceToDetectorDepth = 0;  // normal . (detectorCentre - source)
  double voxelVolume = 0;
  const float* pixels = nullptr;
};

ViewSetup setupView(const ProjectionStack& projections, std::int64_t viewIndex,
                    const Volume& volume) {
  const Geometry& g = projections.geometry();
  const View& view = g.view(viewIndex);
  Eigen::Matrix4d indexToWorld = Eigen::Matrix4d::Identity();
  indexToWorld.topLeftCorner<3, 3>() = volume.voxelSizeMm().asDiagonal();
  indexToWorld.topRightCorner<3, 1>() = volume.originMm();
  ViewSetup s;
  s.indexToPixel = g.projectionMatrix(viewIndex) * indexToWorld;
  s.cone = g.beam() == BeamKind::Cone;
  s.voxelVolume = volume.voxelSizeMm().prod();
  s.normal = view.u.cross(view.v);
  if (s.cone) {
    s.source = view.source;
    s.sourceToDetectorDepth = s.normal.dot(view.detectorCentre - view.source);
  } else {
    s.parallelWeight = s.voxelVolume / std::abs(s.normal.dot(view.rayDirection.normalized()));
  }
  s.pixels = projections.viewPixels(viewIndex).data();
  return s;
}

inline double bilinear(const float* pixels, std::int64_t cols, std::int64_t rows, double c,
                       double r) {
  const double c0f = std::floor(c), r0f = std::floor(r);
  if (c0f < -1.0 || r0f < -1.0 || c0f >= static_cast<double>(cols) ||
      r0f >= static_cast<double>(rows))
    return 0.0;
  const auto c0 = static_cast<std::int64_t>(c0f), r0 = static_cast<std::int64_t>(r0f);
  const double fc = c - c0f, fr = r - r0f;
  if (c0 >= 0 && c0 + 1 < cols && r0 >= 0 && r0 + (fr != 0.0) < rows) {
    // Inside: no per-tap checks; a row weight of exactly 0 (aligned slices) skips its row.
    const float* p = pixels + r0 * cols + c0;
    double value = (1.0 - fr) * ((1.0 - fc) * p[0] + fc * p[1]);
    if (fr != 0.0) value += fr * ((1.0 - fc) * p[cols] + fc * p[cols + 1]);
    return value;
  }
  double sum = 0.0;
  for (int dr = 0; dr < 2; ++dr) {
    const std::int64_t rr = r0 + dr;
    if (rr < 0 || rr >= rows) continue;
    const double wr = dr ? fr : 1.0 - fr;
    const float* line = pixels + rr * cols;
    if (c0 >= 0) sum += wr * (1.0 - fc) * static_cast<double>(line[c0]);
    if (c0 + 1 < cols) sum += wr * fc * static_cast<double>(line[c0 + 1]);
  }
  return sum;
}

}  // namespace

void voxelBackproject(const ProjectionStack& projections, Volume& volume,
                      std::span<const std::int64_t> views, const JobContext* context) {
  if (volume.empty()) throw ParameterError("voxel backprojection", "the volume is empty");
  projections.geometry().validate();
  requireFlatDetectors(projections.geometry(), "voxel backprojection");
  const std::vector<std::int64_t> list = checkedViewList(projections.geometry(), views);
  if (aligned::voxelBackproject(projections, volume, list, context)) return;
  std::vector<ViewSetup> setups;
  setups.reserve(list.size());
  for (const std::int64_t v : list) setups.push_back(setupView(projections, v, volume));
  const std::int64_t nx = volume.nx(), ny = volume.ny(), nz = volume.nz();
  const std::int64_t cols = projections.cols(), rows = projections.rows();
  std::exception_ptr failure;
#pragma omp parallel
  {
    std::vector<double> line(static_cast<std::size_t>(nx));
#pragma omp for collapse(2) schedule(dynamic, 4)
    for (std::int64_t k = 0; k < nz; ++k)
      for (std::int64_t j = 0; j < ny; ++j) {
        try {
          if (j == 0 && context) context->throwIfCancelled();
        } catch (...) {
#pragma omp critical(tomowbVoxelBpFailure)
          if (!failure) failure = std::current_exception();
        }
        if (failure) continue;
        std::fill(line.begin(), line.end(), 0.0);
        for (const ViewSetup& s : setups) {
          const Eigen::Vector3d rowStart = s.indexToPixel.col(1) * static_cast<double>(j) +
                                           s.indexToPixel.col(2) * static_cast<double>(k) +
                                           s.indexToPixel.col(3);
          const Eigen::Vector3d step = s.indexToPixel.col(0);
          if (!s.cone) {
            // Parallel beams: the detector position is affine along the row (w = 1).
            for (std::int64_t i = 0; i < nx; ++i) {
              const double c = rowStart.x() + static_cast<double>(i) * step.x();
              const double r = rowStart.y() + static_cast<double>(i) * step.y();
              line[static_cast<std::size_t>(i)] +=
                  s.parallelWeight * bilinear(s.pixels, cols, rows, c, r);
            }
            continue;
          }
          for (std::int64_t i = 0; i < nx; ++i) {
            const Eigen::Vector3d h = rowStart + static_cast<double>(i) * step;
            if (!(h.z() > 0)) continue;  // behind a cone source
            const double sample = bilinear(s.pixels, cols, rows, h.x() / h.z(), h.y() / h.z());
            if (sample == 0.0) continue;
            double weight = s.parallelWeight;
            if (s.cone) {
              const Eigen::Vector3d toVoxel =
                  volume.worldPosition(static_cast<double>(i), static_cast<double>(j),
                                       static_cast<double>(k)) -
                  s.source;
              const double depth = s.normal.dot(toVoxel);
              const double magnification = s.sourceToDetectorDepth / depth;
              weight =
                  s.voxelVolume * toVoxel.norm() / std::abs(depth) * magnification * magnification;
            }
            line[static_cast<std::size_t>(i)] += weight * sample;
          }
        }
        float* out = volume.data() + volume.index(0, j, k);
        for (std::int64_t i = 0; i < nx; ++i)
          out[i] =
              static_cast<float>(static_cast<double>(out[i]) + line[static_cast<std::size_t>(i)]);
      }
  }
  if (failure) std::rethrow_exception(failure);
}

}  // namespace tomowb::projector
