#include "recon/projector/siddon/SiddonProjector.h"

#include <omp.h>

#include <Eigen/Core>
#include <algorithm>
#include <array>
#include <cmath>
#include <exception>
#include <limits>
#include <optional>
#include <vector>

#include "recon/core/Error.h"
#include "recon/core/VolumeGrid.h"
#include "recon/geometry/ArcFrame.h"
#include "recon/geometry/Geometry.h"
#include "recon/projector/JosephProjector.h"

namespace tomowb::projector {

namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

// Per view: where pixel (0, 0) is, the detector steps and the source or ray direction (world mm).
struct ViewRays {
  bool cone = false;
  Eigen::Vector3d source, direction, corner, u, v;
  std::optional<ArcFrame> arc;  // a cylindrical detector's frame

  ViewRays(const Geometry& geometry, std::int64_t viewIndex) {
    const View& view = geometry.view(viewIndex);
    const DetectorShape& det = geometry.detector();
    cone = geometry.beam() == BeamKind::Cone;
    source = view.source;
    direction = view.rayDirection.normalized();
    u = view.u;
    v = view.v;
    corner = view.detectorCentre - 0.5 * static_cast<double>(det.cols - 1) * u -
             0.5 * static_cast<double>(det.rows - 1) * v;
    if (view.surface == DetectorSurface::Cylinder) arc = arcFrame(geometry, viewIndex);
  }
  // A point on the ray of pixel (col, row) and its unit direction.
  void ray(std::int64_t col, std::int64_t row, Eigen::Vector3d& start, Eigen::Vector3d& dir) const {
    const Eigen::Vector3d pixel =
        arc ? arc->pixel(static_cast<double>(col), static_cast<double>(row))
            : Eigen::Vector3d(corner + static_cast<double>(col) * u + static_cast<double>(row) * v);
    start = cone ? source : pixel;
    dir = cone ? (pixel - source).normalized() : direction;
  }
};

// The voxels a line crosses, in order, with the length (mm) of the line inside each: the line
// start + t dir is clipped to the volume's box, then stepped from voxel face to voxel face.
class VoxelWalk {
 public:
  explicit VoxelWalk(const VolumeGrid& grid) : grid_(grid) {
    for (int a = 0; a < 3; ++a) {
      size_[a] = a == 0 ? grid.shape.nx : a == 1 ? grid.shape.ny : grid.shape.nz;
      low_[a] = grid.originMm[a] - 0.5 * grid.voxelSizeMm[a];
    }
  }

  // Calls visit(index, linearIndex, lengthMm) for each voxel crossed (index: x, y, z).
  template <typename Visit>
  void walk(const Eigen::Vector3d& start, const Eigen::Vector3d& dir, Visit&& visit) const {
    double enter = -kInfinity, exit = kInfinity;
    for (int a = 0; a < 3; ++a) {
      const double lo = low_[a],
                   hi = low_[a] + static_cast<double>(size_[a]) * grid_.voxelSizeMm[a];
      if (dir[a] == 0.0) {
        if (start[a] <= lo || start[a] >= hi) return;
        continue;
      }
      double t0 = (lo - start[a]) / dir[a], t1 = (hi - start[a]) / dir[a];
      if (t0 > t1) std::swap(t0, t1);
      enter = std::max(enter, t0);
      exit = std::min(exit, t1);
    }
    if (!(enter < exit)) return;
    std::array<std::int64_t, 3> index{}, step{};
    std::array<double, 3> next{}, delta{};
    for (int a = 0; a < 3; ++a) {
      const double s = grid_.voxelSizeMm[a];
      // The voxel at the middle of the first step's reach is robust to rounding at the face.
      const double at = start[a] + enter * dir[a];
      index[a] = std::clamp<std::int64_t>(static_cast<std::int64_t>(std::floor((at - low_[a]) / s)),
                                          0, size_[a] - 1);
      if (dir[a] > 0.0) {
        step[a] = 1;
        next[a] = (low_[a] + static_cast<double>(index[a] + 1) * s - start[a]) / dir[a];
        delta[a] = s / dir[a];
      } else if (dir[a] < 0.0) {
        step[a] = -1;
        next[a] = (low_[a] + static_cast<double>(index[a]) * s - start[a]) / dir[a];
        delta[a] = -s / dir[a];
      } else {
        next[a] = kInfinity;
        delta[a] = kInfinity;
      }
    }
    const std::int64_t nx = size_[0], nxy = size_[0] * size_[1];
    double t = enter;
    for (;;) {
      const int a =
          next[0] <= next[1] ? (next[0] <= next[2] ? 0 : 2) : (next[1] <= next[2] ? 1 : 2);
      const double until = std::min(next[a], exit);
      if (until > t) visit(index, index[2] * nxy + index[1] * nx + index[0], until - t);
      if (next[a] >= exit) return;
      t = next[a];
      index[a] += step[a];
      if (index[a] < 0 || index[a] >= size_[a]) return;
      next[a] += delta[a];
    }
  }

 private:
  const VolumeGrid& grid_;
  std::array<std::int64_t, 3> size_{};
  std::array<double, 3> low_{};
};

void checkProblem(const Volume& volume, const Geometry& geometry) {
  if (volume.nx() < 1 || volume.ny() < 1 || volume.nz() < 1)
    throw ParameterError("siddon projector", "the volume is empty");
  if (!(volume.voxelSizeMm().minCoeff() > 0))
    throw ParameterError("siddon projector", "voxel sizes must be > 0");
  geometry.validate();
}

}  // namespace

void siddonForward(const Volume& volume, ProjectionStack& projections,
                   std::span<const std::int64_t> views, const JobContext* context) {
  const Geometry& geometry = projections.geometry();
  checkProblem(volume, geometry);
  const std::vector<std::int64_t> list = checkedViewList(geometry, views);
  if (context) context->throwIfCancelled();
  const VolumeGrid grid = VolumeGrid::of(volume);
  const VoxelWalk walker(grid);
  std::vector<ViewRays> frames;
  frames.reserve(list.size());
  for (const std::int64_t v : list) frames.emplace_back(geometry, v);
  const std::int64_t rows = projections.rows(), cols = projections.cols();
  const float* x = volume.data();
  float* out = projections.data();
  const auto lines = static_cast<std::int64_t>(list.size()) * rows;
#pragma omp parallel for schedule(dynamic, 4)
  for (std::int64_t line = 0; line < lines; ++line) {
    if (context && context->cancelToken().requested()) continue;
    const auto k = static_cast<std::size_t>(line / rows);
    const std::int64_t row = line % rows;
    float* pixels = out + (list[k] * rows + row) * cols;
    Eigen::Vector3d start, dir;
    for (std::int64_t col = 0; col < cols; ++col) {
      frames[k].ray(col, row, start, dir);
      double sum = 0.0;
      walker.walk(start, dir,
                  [&](const std::array<std::int64_t, 3>&, std::int64_t at, double length) {
                    sum += length * static_cast<double>(x[at]);
                  });
      pixels[col] = static_cast<float>(sum);
    }
  }
  if (context) context->throwIfCancelled();
}

// The transpose, with the volume split into slabs along z that the threads own: each thread walks
// every ray that reaches its slab in full (so a voxel's lengths do not depend on the split) and
// adds only into its own voxels, in view, row, column order: deterministic whatever the threads.
void siddonBackproject(const ProjectionStack& projections, Volume& volume,
                       std::span<const std::int64_t> views, const JobContext* context) {
  const Geometry& geometry = projections.geometry();
  checkProblem(volume, geometry);
  const std::vector<std::int64_t> list = checkedViewList(geometry, views);
  const VolumeGrid grid = VolumeGrid::of(volume);
  const VoxelWalk walker(grid);
  std::vector<ViewRays> frames;
  frames.reserve(list.size());
  for (const std::int64_t v : list) frames.emplace_back(geometry, v);
  const std::int64_t rows = projections.rows(), cols = projections.cols();
  const std::int64_t slabs =
      std::min<std::int64_t>(volume.nz(), 4LL * std::max(1, omp_get_max_threads()));
  std::vector<double> sum(static_cast<std::size_t>(volume.voxelCount()), 0.0);
  const double zLow = grid.originMm.z() - 0.5 * grid.voxelSizeMm.z();
  const double dz = grid.voxelSizeMm.z();
  std::exception_ptr failure;
#pragma omp parallel for schedule(dynamic, 1)
  for (std::int64_t s = 0; s < slabs; ++s) {
    const std::int64_t lo = volume.nz() * s / slabs, hi = volume.nz() * (s + 1) / slabs;
    // The slab's z range in mm, a voxel wider on each side: a ray outside it cannot reach it.
    const double zMin = zLow + static_cast<double>(lo - 1) * dz;
    const double zMax = zLow + static_cast<double>(hi + 1) * dz;
    try {
      for (std::size_t k = 0; k < list.size(); ++k) {
        if (context) context->throwIfCancelled();
        const float* in = projections.data() + list[k] * rows * cols;
        Eigen::Vector3d start, dir;
        for (std::int64_t row = 0; row < rows; ++row)
          for (std::int64_t col = 0; col < cols; ++col) {
            const double value = static_cast<double>(in[row * cols + col]);
            if (value == 0.0) continue;
            frames[k].ray(col, row, start, dir);
            // A ray parallel to the slices that lies outside the slab's z range misses it.
            if (dir.z() == 0.0 && (start.z() < zMin || start.z() > zMax)) continue;
            walker.walk(
                start, dir,
                [&](const std::array<std::int64_t, 3>& index, std::int64_t at, double length) {
                  if (index[2] >= lo && index[2] < hi)
                    sum[static_cast<std::size_t>(at)] += length * value;
                });
          }
      }
    } catch (...) {
#pragma omp critical(tomowbSiddonFailure)
      if (!failure) failure = std::current_exception();
    }
  }
  if (failure) std::rethrow_exception(failure);
  float* x = volume.data();
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < static_cast<std::int64_t>(sum.size()); ++i)
    x[i] = static_cast<float>(static_cast<double>(x[i]) + sum[static_cast<std::size_t>(i)]);
}

void registerSiddonPair(VariantRegistry& registry) {
  KernelVariant forward;
  forward.name = "et.fp.cpu-siddon";
  forward.role = VariantRole::ForwardProjector;
  forward.model = "siddon";
  forward.description =
      "CPU Siddon forward projector (exact ray length in each voxel, no interpolation), float64 "
      "sums, OpenMP over detector rows";
  forward.forwardProject = [](const Volume& volume, ProjectionStack& projections,
                              std::span<const std::int64_t> views, JobContext& context) {
    siddonForward(volume, projections, views, &context);
  };
  registry.add(std::move(forward));
  KernelVariant back;
  back.name = "et.bp.cpu-siddon";
  back.role = VariantRole::Backprojector;
  back.model = "siddon";
  back.description =
      "CPU exact transpose of et.fp.cpu-siddon (scatter with the ray lengths, float64 sums): a "
      "matched pair";
  back.adjointOf = "et.fp.cpu-siddon";
  back.backprojectViews = [](const ProjectionStack& projections, Volume& volume,
                             std::span<const std::int64_t> views, JobContext& context) {
    siddonBackproject(projections, volume, views, &context);
  };
  registry.add(std::move(back));
}

}  // namespace tomowb::projector
