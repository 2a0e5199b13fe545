#include "recon/projector/AlignedSliceProjector.h"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <exception>

#include "recon/projector/SingleAxisGeometry.h"

namespace tomowb::projector::aligned {

namespace {

// Below this many slices the generic path is as fast (nothing to share per sample).
constexpr std::int64_t kMinSlices = 4;

struct Problem {
  SingleAxisGeometry axis;
  std::int64_t nx = 0, ny = 0, slices = 0, first = 0;
  std::int64_t cols = 0, rows = 0;
};

bool analyse(const Geometry& geometry, const Volume& volume, Problem& p) {
  p.axis = SingleAxisGeometry::analyse(geometry, VoxelGrid::of(volume));
  if (!p.axis.aligned || p.axis.sliceCount < kMinSlices) return false;
  p.nx = volume.nx();
  p.ny = volume.ny();
  p.slices = p.axis.sliceCount;
  p.first = p.axis.firstSlice;
  p.cols = geometry.detector().cols;
  p.rows = geometry.detector().rows;
  return true;
}

// The ray of column c of a view: plane p of the dominant axis samples the other axis at
// b = offset + p * step; `planes` planes, the other axis `across` voxels long.
struct SliceRay {
  double offset = 0, step = 0;
  std::int64_t planes = 0, across = 0;
  std::int64_t planeStride = 0, acrossStride = 0;  // in (x, y) cells of the slice-fastest copy
  std::int64_t firstPlane = 0, lastPlane = -1;
};

SliceRay sliceRay(const SliceViewCoefficients& v, const Problem& p, std::int64_t col) {
  SliceRay r;
  r.offset = v.rayOffset + static_cast<double>(col) * v.rayStep;
  r.step = v.planeStep;
  const bool alongX = v.dominantAxis == 0;
  r.planes = alongX ? p.nx : p.ny;
  r.across = alongX ? p.ny : p.nx;
  r.planeStride = alongX ? 1 : p.nx;
  r.acrossStride = alongX ? p.nx : 1;
  // The planes whose two taps can touch the slice: -1 < b < across (one plane of slack).
  r.firstPlane = 0;
  r.lastPlane = r.planes - 1;
  if (std::abs(r.step) < 1e-12) {
    if (!(r.offset > -1.0 && r.offset < static_cast<double>(r.across))) r.lastPlane = -1;
    return r;
  }
  double t0 = (-1.0 - r.offset) / r.step, t1 = (static_cast<double>(r.across) - r.offset) / r.step;
  if (t0 > t1) std::swap(t0, t1);
  r.firstPlane = std::max<std::int64_t>(0, static_cast<std::int64_t>(std::floor(t0)));
  r.lastPlane = std::min<std::int64_t>(r.planes - 1, static_cast<std::int64_t>(std::ceil(t1)));
  return r;
}

// Calls tap(cell, weight) for the (at most two) taps of plane p with a non-zero weight inside the
// slice, where cell = (y * nx + x).
template <typename Tap>
inline void forEachSliceTap(const SliceRay& r, std::int64_t p, Tap&& tap) {
  const double b = r.offset + static_cast<double>(p) * r.step;
  const double b0f = std::floor(b);
  const double f = b - b0f;
  const auto b0 = static_cast<std::int64_t>(b0f);
  const std::int64_t base = p * r.planeStride;
  if (b0 >= 0 && b0 < r.across) tap(base + b0 * r.acrossStride, 1.0 - f);
  if (f != 0.0 && b0 + 1 >= 0 && b0 + 1 < r.across) tap(base + (b0 + 1) * r.acrossStride, f);
}

// Copies of a volume and of projections with the slices (detector rows) fastest.
std::vector<double> slicesFastest(const Volume& volume, const Problem& p) {
  std::vector<double> out(static_cast<std::size_t>(p.nx * p.ny * p.slices));
#pragma omp parallel for schedule(static)
  for (std::int64_t cell = 0; cell < p.nx * p.ny; ++cell)
    for (std::int64_t s = 0; s < p.slices; ++s)
      out[static_cast<std::size_t>(cell * p.slices + s)] =
          volume.data()[(p.first + s) * p.nx * p.ny + cell];
  return out;
}

// [k][col][slice] of the listed views (k indexes `views`).
std::vector<double> rowsFastest(const ProjectionStack& projections, const Problem& p,
                                const std::vector<std::int64_t>& views) {
  std::vector<double> out(static_cast<std::size_t>(views.size()) *
                          static_cast<std::size_t>(p.cols * p.slices));
  const auto n = static_cast<std::int64_t>(views.size()) * p.cols;
#pragma omp parallel for schedule(static)
  for (std::int64_t kc = 0; kc < n; ++kc) {
    const std::int64_t k = kc / p.cols, col = kc % p.cols;
    const float* view = projections.viewPixels(views[static_cast<std::size_t>(k)]).data();
    for (std::int64_t s = 0; s < p.slices; ++s)
      out[static_cast<std::size_t>(kc * p.slices + s)] =
          view[p.axis.rowOf(p.first + s) * p.cols + col];
  }
  return out;
}

void addSlicesFastest(const std::vector<double>& sums, Volume& volume, const Problem& p) {
#pragma omp parallel for schedule(static)
  for (std::int64_t cell = 0; cell < p.nx * p.ny; ++cell)
    for (std::int64_t s = 0; s < p.slices; ++s) {
      float& v = volume.data()[(p.first + s) * p.nx * p.ny + cell];
      v = static_cast<float>(static_cast<double>(v) +
                             sums[static_cast<std::size_t>(cell * p.slices + s)]);
    }
}

bool cancelled(const JobContext* context) {
  return context && context->cancelToken().requested();
}

}  // namespace

bool josephForward(const Volume& volume, ProjectionStack& projections,
                   const std::vector<std::int64_t>& views, const JobContext* context) {
  Problem p;
  if (!analyse(projections.geometry(), volume, p)) return false;
  if (context) context->throwIfCancelled();
  const std::vector<double> x = slicesFastest(volume, p);
  const auto rays = static_cast<std::int64_t>(views.size()) * p.cols;
#pragma omp parallel
  {
    std::vector<double> sum(static_cast<std::size_t>(p.slices));
#pragma omp for schedule(dynamic, 16)
    for (std::int64_t kc = 0; kc < rays; ++kc) {
      if (cancelled(context)) continue;
      const std::int64_t view = views[static_cast<std::size_t>(kc / p.cols)], col = kc % p.cols;
      const SliceViewCoefficients& v = p.axis.views[static_cast<std::size_t>(view)];
      const SliceRay r = sliceRay(v, p, col);
      std::fill(sum.begin(), sum.end(), 0.0);
      for (std::int64_t plane = r.firstPlane; plane <= r.lastPlane; ++plane)
        forEachSliceTap(r, plane, [&](std::int64_t cell, double w) {
          const double* column = x.data() + cell * p.slices;
#pragma omp simd
          for (std::int64_t s = 0; s < p.slices; ++s)
            sum[static_cast<std::size_t>(s)] += w * column[s];
        });
      float* out = projections.viewPixels(view).data();
      for (std::int64_t row = 0; row < p.rows; ++row) out[row * p.cols + col] = 0.0f;
      for (std::int64_t s = 0; s < p.slices; ++s)
        out[p.axis.rowOf(p.first + s) * p.cols + col] =
            static_cast<float>(sum[static_cast<std::size_t>(s)] * v.forwardWeight);
    }
  }
  if (context) context->throwIfCancelled();
  return true;
}

bool josephBackproject(const ProjectionStack& projections, Volume& volume,
                       const std::vector<std::int64_t>& views, const JobContext* context) {
  Problem p;
  if (!analyse(projections.geometry(), volume, p)) return false;
  if (context) context->throwIfCancelled();
  const std::vector<double> y = rowsFastest(projections, p, views);
  std::vector<double> sums(static_cast<std::size_t>(p.nx * p.ny * p.slices), 0.0);
  // Threads own ranges of slices: no two write a value, and every value adds its rays in view,
  // column order whatever the split.
  // One chunk per thread: every chunk walks every ray, so more chunks only repeat that walk.
  const std::int64_t chunks = std::min<std::int64_t>(p.slices, std::max(1, omp_get_max_threads()));
#pragma omp parallel for schedule(dynamic, 1)
  for (std::int64_t chunk = 0; chunk < chunks; ++chunk) {
    const std::int64_t s0 = p.slices * chunk / chunks, s1 = p.slices * (chunk + 1) / chunks;
    for (std::size_t k = 0; k < views.size(); ++k) {
      if (cancelled(context)) break;
      const SliceViewCoefficients& v = p.axis.views[static_cast<std::size_t>(views[k])];
      for (std::int64_t col = 0; col < p.cols; ++col) {
        const double* value = y.data() + (static_cast<std::int64_t>(k) * p.cols + col) * p.slices;
        const SliceRay r = sliceRay(v, p, col);
        for (std::int64_t plane = r.firstPlane; plane <= r.lastPlane; ++plane)
          forEachSliceTap(r, plane, [&](std::int64_t cell, double w) {
            const double scaled = w * v.forwardWeight;
            double* out = sums.data() + cell * p.slices;
#pragma omp simd
            for (std::int64_t s = s0; s < s1; ++s) out[s] += scaled * value[s];
          });
      }
    }
  }
  if (context) context->throwIfCancelled();
  addSlicesFastest(sums, volume, p);
  return true;
}

bool voxelBackproject(const ProjectionStack& projections, Volume& volume,
                      const std::vector<std::int64_t>& views, const JobContext* context) {
  Problem p;
  if (!analyse(projections.geometry(), volume, p)) return false;
  if (context) context->throwIfCancelled();
  const std::vector<double> y = rowsFastest(projections, p, views);
  std::vector<double> sums(static_cast<std::size_t>(p.nx * p.ny * p.slices), 0.0);
#pragma omp parallel for schedule(dynamic, 1)
  for (std::int64_t j = 0; j < p.ny; ++j) {
    if (cancelled(context)) continue;
    for (std::size_t k = 0; k < views.size(); ++k) {
      const SliceViewCoefficients& v = p.axis.views[static_cast<std::size_t>(views[k])];
      const double* view = y.data() + static_cast<std::int64_t>(k) * p.cols * p.slices;
      for (std::int64_t i = 0; i < p.nx; ++i) {
        const double c = v.cx * static_cast<double>(i) + v.cy * static_cast<double>(j) + v.c0;
        const double c0f = std::floor(c);
        if (c0f < -1.0 || c0f >= static_cast<double>(p.cols)) continue;
        const auto c0 = static_cast<std::int64_t>(c0f);
        const double f = c - c0f;
        const double w0 = c0 >= 0 ? (1.0 - f) * v.backWeight : 0.0;
        const double w1 = c0 + 1 < p.cols && f != 0.0 ? f * v.backWeight : 0.0;
        const double* t0 = view + std::max<std::int64_t>(c0, 0) * p.slices;
        const double* t1 = view + std::min<std::int64_t>(c0 + 1, p.cols - 1) * p.slices;
        double* out = sums.data() + (j * p.nx + i) * p.slices;
#pragma omp simd
        for (std::int64_t s = 0; s < p.slices; ++s) out[s] += w0 * t0[s] + w1 * t1[s];
      }
    }
  }
  if (context) context->throwIfCancelled();
  addSlicesFastest(sums, volume, p);
  return true;
}

}  // namespace tomowb::projector::aligned
