#include "recon/projector/JosephProjector.h"

#include <omp.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "recon/core/Error.h"
#include "recon/geometry/ArcFrame.h"
#include "recon/projector/AlignedSliceProjector.h"

namespace tomowb::projector {

namespace {

// A ray in voxel-index coordinates, parametrised by the plane index i along its dominant axis:
// the sample on plane i sits at (pb + i gb, pc + i gc) in the two other axes.
struct PlaneRay {
  int a = 0, b = 1, c = 2;  // dominant axis and the two others
  double pb = 0, gb = 0, pc = 0, gc = 0;
  double weight = 0;  // mm of ray between two planes
};

// The index range [first, last] of planes i whose interpolation footprint can touch the open
// interval lo < p0 + i g < hi; empty (first > last) if none.
void clipPlanes(double p0, double g, double lo, double hi, std::int64_t& first,
                std::int64_t& last) {
  if (std::abs(g) < 1e-12) {
    if (!(p0 > lo && p0 < hi)) last = first - 1;
    return;
  }
  double t0 = (lo - p0) / g, t1 = (hi - p0) / g;
  if (t0 > t1) std::swap(t0, t1);
  // One plane of slack either way: the taps check their own bounds.
  const double f = std::max(static_cast<double>(first), std::floor(t0));
  const double l = std::min(static_cast<double>(last), std::ceil(t1));
  if (l < f) {
    last = first - 1;
    return;
  }
  first = static_cast<std::int64_t>(f);
  last = static_cast<std::int64_t>(l);
}

// Per view: the detector frame and, for cone beams, the source, in world mm.
struct RayFrame {
  bool cone = false;
  Eigen::Vector3d source, direction, corner, u, v;  // corner: centre of pixel (0, 0)
  std::optional<ArcFrame> arc;                      // a cylindrical detector's frame
};

RayFrame rayFrame(const Geometry& geometry, std::int64_t viewIndex) {
  const View& view = geometry.view(viewIndex);
  const DetectorShape& det = geometry.detector();
  RayFrame f;
  f.cone = geometry.beam() == BeamKind::Cone;
  f.source = view.source;
  f.direction = view.rayDirection.normalized();
  f.u = view.u;
  f.v = view.v;
  f.corner = view.detectorCentre - 0.5 * static_cast<double>(det.cols - 1) * view.u -
             0.5 * static_cast<double>(det.rows - 1) * view.v;
  if (view.surface == DetectorSurface::Cylinder) f.arc = arcFrame(geometry, viewIndex);
  return f;
}

// The plane parametrisation of the ray of pixel (col, row) in `grid`'s index space.
PlaneRay planeRay(const RayFrame& f, const VoxelGrid& grid, std::int64_t col, std::int64_t row) {
  const Eigen::Vector3d pixel =
      f.arc ? f.arc->pixel(static_cast<double>(col), static_cast<double>(row))
            : Eigen::Vector3d(f.corner + static_cast<double>(col) * f.u +
                              static_cast<double>(row) * f.v);
  const Eigen::Vector3d start = f.cone ? f.source : pixel;
  const Eigen::Vector3d dir = f.cone ? (pixel - f.source).normalized() : f.direction;
  const Eigen::Vector3d q0 = (start - grid.originMm).cwiseQuotient(grid.voxelSizeMm);
  const Eigen::Vector3d dq = dir.cwiseQuotient(grid.voxelSizeMm);
  PlaneRay ray;
  dq.cwiseAbs().maxCoeff(&ray.a);
  ray.b = ray.a == 0 ? 1 : 0;
  ray.c = ray.a == 2 ? 1 : 2;
  ray.gb = dq[ray.b] / dq[ray.a];
  ray.gc = dq[ray.c] / dq[ray.a];
  ray.pb = q0[ray.b] - q0[ray.a] * ray.gb;
  ray.pc = q0[ray.c] - q0[ray.a] * ray.gc;
  ray.weight = 1.0 / std::abs(dq[ray.a]);
  return ray;
}

struct GridIndex {
  std::array<std::int64_t, 3> size{}, stride{};
  explicit GridIndex(const VoxelGrid& g)
      : size{g.shape.nx, g.shape.ny, g.shape.nz}, stride{1, g.shape.nx, g.shape.nx * g.shape.ny} {}
};

// Calls tap(linearIndex, weight) for the bilinear taps of plane i that lie inside the volume and,
// along `limitAxis` (-1: none), inside [limitLo, limitHi).
template <typename Tap>
inline void forEachTap(const PlaneRay& ray, const GridIndex& gi, std::int64_t i, int limitAxis,
                       std::int64_t limitLo, std::int64_t limitHi, Tap&& tap) {
  const double qb = ray.pb + static_cast<double>(i) * ray.gb;
  const double qc = ray.pc + static_cast<double>(i) * ray.gc;
  const double fb0 = std::floor(qb), fc0 = std::floor(qc);
  const double fb = qb - fb0, fc = qc - fc0;
  const auto b0 = static_cast<std::int64_t>(fb0), c0 = static_cast<std::int64_t>(fc0);
  const double wb[2] = {1.0 - fb, fb}, wc[2] = {1.0 - fc, fc};
  std::array<std::int64_t, 3> idx{};
  idx[ray.a] = i;
  for (int dc = 0; dc < 2; ++dc) {
    idx[ray.c] = c0 + dc;
    if (idx[ray.c] < 0 || idx[ray.c] >= gi.size[ray.c] || wc[dc] == 0.0) continue;
    for (int db = 0; db < 2; ++db) {
      idx[ray.b] = b0 + db;
      if (idx[ray.b] < 0 || idx[ray.b] >= gi.size[ray.b] || wb[db] == 0.0) continue;
      if (limitAxis >= 0 && (idx[limitAxis] < limitLo || idx[limitAxis] >= limitHi)) continue;
      tap(idx[0] * gi.stride[0] + idx[1] * gi.stride[1] + idx[2] * gi.stride[2], wb[db] * wc[dc]);
    }
  }
}

// Adds the bilinear sample of plane i to `sum` when all its taps with a non-zero weight lie
// inside the volume (the common case, without per-tap checks); false otherwise, and then the
// caller takes the checked path (forEachTap). A weight of exactly 0 (a sample on a voxel plane,
// as in an aligned tilt series) skips its taps, so the last slice stays on the fast path.
template <typename VolT>
inline bool interiorSample(const PlaneRay& ray, const GridIndex& gi, std::int64_t i,
                           const VolT* volume, double& sum) {
  const double qb = ray.pb + static_cast<double>(i) * ray.gb;
  const double qc = ray.pc + static_cast<double>(i) * ray.gc;
  const double fb0 = std::floor(qb), fc0 = std::floor(qc);
  const double fb = qb - fb0, fc = qc - fc0;
  const auto b0 = static_cast<std::int64_t>(fb0), c0 = static_cast<std::int64_t>(fc0);
  const std::int64_t nb = gi.size[ray.b], nc = gi.size[ray.c];
  if (b0 < 0 || c0 < 0 || b0 + (fb != 0.0) >= nb || c0 + (fc != 0.0) >= nc) return false;
  const std::int64_t sb = gi.stride[ray.b], sc = gi.stride[ray.c];
  const VolT* p = volume + i * gi.stride[ray.a] + b0 * sb + c0 * sc;
  double near = (1.0 - fb) * static_cast<double>(p[0]);
  if (fb != 0.0) near += fb * static_cast<double>(p[sb]);
  double value = (1.0 - fc) * near;
  if (fc != 0.0) {
    double far = (1.0 - fb) * static_cast<double>(p[sc]);
    if (fb != 0.0) far += fb * static_cast<double>(p[sb + sc]);
    value += fc * far;
  }
  sum += value;
  return true;
}

// The planes of `ray` that can touch the volume (and the slab [limitLo, limitHi) of limitAxis).
void rayPlanes(const PlaneRay& ray, const GridIndex& gi, int limitAxis, std::int64_t limitLo,
               std::int64_t limitHi, std::int64_t& first, std::int64_t& last) {
  first = 0;
  last = gi.size[ray.a] - 1;
  clipPlanes(ray.pb, ray.gb, -1.0, static_cast<double>(gi.size[ray.b]), first, last);
  clipPlanes(ray.pc, ray.gc, -1.0, static_cast<double>(gi.size[ray.c]), first, last);
  if (limitAxis < 0 || first > last) return;
  if (limitAxis == ray.a) {
    first = std::max(first, limitLo);
    last = std::min(last, limitHi - 1);
  } else if (limitAxis == ray.b) {
    clipPlanes(ray.pb, ray.gb, static_cast<double>(limitLo) - 1.0, static_cast<double>(limitHi),
               first, last);
  } else {
    clipPlanes(ray.pc, ray.gc, static_cast<double>(limitLo) - 1.0, static_cast<double>(limitHi),
               first, last);
  }
}

void checkGrid(const VoxelGrid& grid, std::size_t voxelCount) {
  if (grid.shape.nx < 1 || grid.shape.ny < 1 || grid.shape.nz < 1)
    throw ParameterError("joseph projector", "the volume is empty");
  if (static_cast<std::size_t>(grid.shape.voxelCount()) != voxelCount)
    throw ParameterError("joseph projector", "the voxel array does not match the grid's shape");
  if (!(grid.voxelSizeMm.minCoeff() > 0))
    throw ParameterError("joseph projector", "voxel sizes must be > 0");
}

// One parallel loop over every (view, row) of the listed views: a parallel region per view would
// make OpenMP's barriers dominate when the machine is busy.
template <typename VolT, typename OutT>
void forwardImpl(const VolT* volume, const VoxelGrid& grid, const Geometry& geometry,
                 OutT* projections, const std::vector<std::int64_t>& views,
                 const JobContext* context) {
  if (context) context->throwIfCancelled();
  const GridIndex gi(grid);
  const std::int64_t cols = geometry.detector().cols, rows = geometry.detector().rows;
  std::vector<RayFrame> frames;
  frames.reserve(views.size());
  for (const std::int64_t v : views) frames.push_back(rayFrame(geometry, v));
  const auto lines = static_cast<std::int64_t>(views.size()) * rows;
#pragma omp parallel for schedule(dynamic, 4)
  for (std::int64_t line = 0; line < lines; ++line) {
    if (context && context->cancelToken().requested()) continue;
    const auto k = static_cast<std::size_t>(line / rows);
    const std::int64_t row = line % rows;
    OutT* out = projections + (views[k] * rows + row) * cols;
    for (std::int64_t col = 0; col < cols; ++col) {
      const PlaneRay ray = planeRay(frames[k], grid, col, row);
      std::int64_t first = 0, last = -1;
      rayPlanes(ray, gi, -1, 0, 0, first, last);
      double sum = 0.0;
      for (std::int64_t i = first; i <= last; ++i) {
        if (!interiorSample(ray, gi, i, volume, sum))
          forEachTap(ray, gi, i, -1, 0, 0, [&](std::int64_t at, double w) {
            sum += w * static_cast<double>(volume[at]);
          });
      }
      out[col] = static_cast<OutT>(sum * ray.weight);
    }
  }
  if (context) context->throwIfCancelled();
}

// Scatter, with the volume split into slabs along z (or y when there are few slices) that the
// threads own: no two threads write a voxel, and each voxel adds its rays in view, row, column
// order whatever the split.
template <typename InT, typename VolT>
void backprojectImpl(const InT* projections, const Geometry& geometry, VolT* volume,
                     const VoxelGrid& grid, const std::vector<std::int64_t>& views,
                     const JobContext* context) {
  const GridIndex gi(grid);
  const std::int64_t cols = geometry.detector().cols, rows = geometry.detector().rows;
  const int threads = std::max(1, omp_get_max_threads());
  const int axis = grid.shape.nz >= std::min<std::int64_t>(grid.shape.ny, 2 * threads) ? 2 : 1;
  const std::int64_t extent = gi.size[axis];
  const std::int64_t slabs = std::min<std::int64_t>(extent, 4LL * threads);
  std::vector<RayFrame> frames;
  frames.reserve(views.size());
  for (const std::int64_t v : views) frames.push_back(rayFrame(geometry, v));
  std::exception_ptr failure;
#pragma omp parallel for schedule(dynamic, 1)
  for (std::int64_t s = 0; s < slabs; ++s) {
    const std::int64_t lo = extent * s / slabs, hi = extent * (s + 1) / slabs;
    try {
      for (std::size_t k = 0; k < views.size(); ++k) {
        if (context) context->throwIfCancelled();
        const InT* in = projections + views[k] * rows * cols;
        for (std::int64_t row = 0; row < rows; ++row)
          for (std::int64_t col = 0; col < cols; ++col) {
            const double value = static_cast<double>(in[row * cols + col]);
            if (value == 0.0) continue;
            const PlaneRay ray = planeRay(frames[k], grid, col, row);
            std::int64_t first = 0, last = -1;
            rayPlanes(ray, gi, axis, lo, hi, first, last);
            const double scaled = value * ray.weight;
            for (std::int64_t i = first; i <= last; ++i)
              forEachTap(ray, gi, i, axis, lo, hi, [&](std::int64_t at, double w) {
                volume[at] = static_cast<VolT>(static_cast<double>(volume[at]) + w * scaled);
              });
          }
      }
    } catch (...) {
#pragma omp critical(tomowbJosephFailure)
      if (!failure) failure = std::current_exception();
    }
  }
  if (failure) std::rethrow_exception(failure);
}

}  // namespace

std::vector<std::int64_t> checkedViewList(const Geometry& geometry,
                                          std::span<const std::int64_t> views) {
  std::vector<std::int64_t> list;
  if (views.empty()) {
    list.resize(static_cast<std::size_t>(geometry.viewCount()));
    for (std::size_t i = 0; i < list.size(); ++i) list[i] = static_cast<std::int64_t>(i);
    return list;
  }
  for (const std::int64_t v : views) {
    if (v < 0 || v >= geometry.viewCount())
      throw ParameterError("view list", "view index " + std::to_string(v) + " is outside 0.." +
                                            std::to_string(geometry.viewCount() - 1));
    list.push_back(v);
  }
  return list;
}

void josephForward(const Volume& volume, ProjectionStack& projections,
                   std::span<const std::int64_t> views, const JobContext* context) {
  const VoxelGrid grid = VoxelGrid::of(volume);
  checkGrid(grid, volume.voxels().size());
  projections.geometry().validate();
  const std::vector<std::int64_t> list = checkedViewList(projections.geometry(), views);
  if (aligned::josephForward(volume, projections, list, context)) return;
  forwardImpl(volume.data(), grid, projections.geometry(), projections.data(), list, context);
}

void josephBackproject(const ProjectionStack& projections, Volume& volume,
                       std::span<const std::int64_t> views, const JobContext* context) {
  const VoxelGrid grid = VoxelGrid::of(volume);
  checkGrid(grid, volume.voxels().size());
  projections.geometry().validate();
  const std::vector<std::int64_t> list = checkedViewList(projections.geometry(), views);
  if (aligned::josephBackproject(projections, volume, list, context)) return;
  // Accumulate in float64, then add once: the float volume sees one rounding per voxel.
  std::vector<double> sum(volume.voxels().size(), 0.0);
  backprojectImpl(projections.data(), projections.geometry(), sum.data(), grid, list, context);
  float* out = volume.data();
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < static_cast<std::int64_t>(sum.size()); ++i)
    out[i] = static_cast<float>(static_cast<double>(out[i]) + sum[static_cast<std::size_t>(i)]);
}

void josephForward(std::span<const double> volume, const VoxelGrid& grid, const Geometry& geometry,
                   std::span<double> projections, std::span<const std::int64_t> views) {
  checkGrid(grid, volume.size());
  geometry.validate();
  if (projections.size() !=
      static_cast<std::size_t>(geometry.viewCount() * geometry.detector().cols *
                               geometry.detector().rows))
    throw ParameterError("joseph projector", "the projection array does not match the geometry");
  forwardImpl(volume.data(), grid, geometry, projections.data(), checkedViewList(geometry, views),
              nullptr);
}

void josephBackproject(std::span<const double> projections, const Geometry& geometry,
                       std::span<double> volume, const VoxelGrid& grid,
                       std::span<const std::int64_t> views) {
  checkGrid(grid, volume.size());
  geometry.validate();
  if (projections.size() !=
      static_cast<std::size_t>(geometry.viewCount() * geometry.detector().cols *
                               geometry.detector().rows))
    throw ParameterError("joseph projector", "the projection array does not match the geometry");
  backprojectImpl(projections.data(), geometry, volume.data(), grid,
                  checkedViewList(geometry, views), nullptr);
}

}  // namespace tomowb::projector
