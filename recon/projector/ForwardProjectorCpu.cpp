#include "recon/projector/ForwardProjectorCpu.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <optional>
#include <string>

#include "recon/core/Error.h"
#include "recon/geometry/ArcFrame.h"

namespace tomowb::projector {

namespace {

// The index range of voxels that are not zero, per axis ({0, -1} when all are zero): rays only
// need tracing where interpolation can see one of them.
struct ContentBox {
  std::array<std::int64_t, 3> first{0, 0, 0};
  std::array<std::int64_t, 3> last{-1, -1, -1};
  bool empty() const noexcept { return last[0] < first[0]; }
};

ContentBox findContent(const Volume& volume) {
  const std::int64_t nx = volume.nx(), ny = volume.ny(), nz = volume.nz();
  ContentBox box;
  box.first = {nx, ny, nz};
  box.last = {-1, -1, -1};
  for (std::int64_t z = 0; z < nz; ++z)
    for (std::int64_t y = 0; y < ny; ++y) {
      const float* row = volume.data() + volume.index(0, y, z);
      std::int64_t x0 = 0;
      while (x0 < nx && row[x0] == 0.0f) ++x0;
      if (x0 == nx) continue;
      std::int64_t x1 = nx - 1;
      while (row[x1] == 0.0f) --x1;
      box.first = {std::min(box.first[0], x0), std::min(box.first[1], y),
                   std::min(box.first[2], z)};
      box.last = {std::max(box.last[0], x1), std::max(box.last[1], y), std::max(box.last[2], z)};
    }
  if (box.last[0] < 0) return ContentBox{};
  return box;
}

// Everything a ray needs, in voxel coordinates (voxel centres at integers).
struct TraceSetup {
  const float* voxels = nullptr;
  std::array<std::int64_t, 3> size{};
  std::array<std::int64_t, 3> stride{};    // 0 along an axis of length 1
  std::array<double, 3> boxLo{}, boxHi{};  // traced box: content +- 1 voxel, within the faces
  Eigen::Vector3d originMm, voxelSizeMm;
  double stepMm = 0;
};

TraceSetup makeSetup(const Volume& volume, const ContentBox& content, double stepVoxels) {
  TraceSetup s;
  s.voxels = volume.data();
  s.size = {volume.nx(), volume.ny(), volume.nz()};
  s.stride = {volume.nx() > 1 ? 1 : 0, volume.ny() > 1 ? volume.nx() : 0,
              volume.nz() > 1 ? volume.nx() * volume.ny() : 0};
  for (int a = 0; a < 3; ++a) {
    // A sample below first - 1 (or above last + 1) interpolates only zero voxels.
    s.boxLo[a] = std::max(static_cast<double>(content.first[a]) - 1.0, -0.5);
    s.boxHi[a] =
        std::min(static_cast<double>(content.last[a]) + 1.0, static_cast<double>(s.size[a]) - 0.5);
  }
  s.originMm = volume.originMm();
  s.voxelSizeMm = volume.voxelSizeMm();
  s.stepMm = stepVoxels * volume.voxelSizeMm().minCoeff();
  return s;
}

// Clips the ray q0 + t dq (voxel coordinates) to the traced box; false if it misses.
bool clipToBox(const TraceSetup& s, const Eigen::Vector3d& q0, const Eigen::Vector3d& dq,
               double& t0, double& t1) {
  for (int a = 0; a < 3; ++a) {
    if (std::abs(dq[a]) < 1e-300) {
      if (q0[a] < s.boxLo[a] || q0[a] > s.boxHi[a]) return false;
      continue;
    }
    double ta = (s.boxLo[a] - q0[a]) / dq[a];
    double tb = (s.boxHi[a] - q0[a]) / dq[a];
    if (ta > tb) std::swap(ta, tb);
    t0 = std::max(t0, ta);
    t1 = std::min(t1, tb);
  }
  return t1 > t0;
}

inline float sampleTrilinear(const TraceSetup& s, float x, float y, float z) {
  // Clamp to the outer voxel centres: the outer half voxel takes the edge voxel's value.
  x = std::clamp(x, 0.0f, static_cast<float>(s.size[0] - 1));
  y = std::clamp(y, 0.0f, static_cast<float>(s.size[1] - 1));
  z = std::clamp(z, 0.0f, static_cast<float>(s.size[2] - 1));
  const std::int64_t ix =
      std::min(static_cast<std::int64_t>(x), std::max<std::int64_t>(s.size[0] - 2, 0));
  const std::int64_t iy =
      std::min(static_cast<std::int64_t>(y), std::max<std::int64_t>(s.size[1] - 2, 0));
  const std::int64_t iz =
      std::min(static_cast<std::int64_t>(z), std::max<std::int64_t>(s.size[2] - 2, 0));
  const float fx = x - static_cast<float>(ix), fy = y - static_cast<float>(iy),
              fz = z - static_cast<float>(iz);
  const float* p = s.voxels + (iz * s.size[1] + iy) * s.size[0] + ix;
  const std::int64_t sx = s.stride[0], sy = s.stride[1], sz = s.stride[2];
  const float c00 = p[0] + fx * (p[sx] - p[0]);
  const float c10 = p[sy] + fx * (p[sy + sx] - p[sy]);
  const float c01 = p[sz] + fx * (p[sz + sx] - p[sz]);
  const float c11 = p[sz + sy] + fx * (p[sz + sy + sx] - p[sz + sy]);
  const float c0 = c00 + fy * (c10 - c00);
  const float c1 = c01 + fy * (c11 - c01);
  return c0 + fz * (c1 - c0);
}

// Line integral along originMm + t dirMm for t in [tMin, tMax] (world mm).
float traceRay(const TraceSetup& s, const Eigen::Vector3d& originMm, const Eigen::Vector3d& dirMm,
               double tMin, double tMax) {
  const Eigen::Vector3d q0 = (originMm - s.originMm).cwiseQuotient(s.voxelSizeMm);
  const Eigen::Vector3d dq = dirMm.cwiseQuotient(s.voxelSizeMm);
  double t0 = tMin, t1 = tMax;
  if (!clipToBox(s, q0, dq, t0, t1)) return 0.0f;
  const double dirLengthMm = dirMm.norm();
  const double lengthMm = (t1 - t0) * dirLengthMm;
  const auto samples = static_cast<std::int64_t>(std::ceil(lengthMm / s.stepMm - 1e-9));
  if (samples < 1) return 0.0f;
  const double dt = (t1 - t0) / static_cast<double>(samples);
  const Eigen::Vector3d first = q0 + (t0 + 0.5 * dt) * dq;
  const Eigen::Vector3d step = dt * dq;
  const float fx = static_cast<float>(first.x()), fy = static_cast<float>(first.y()),
              fz = static_cast<float>(first.z());
  const float sx = static_cast<float>(step.x()), sy = static_cast<float>(step.y()),
              sz = static_cast<float>(step.z());
  float sum = 0.0f;
  for (std::int64_t k = 0; k < samples; ++k) {
    const auto kf = static_cast<float>(k);
    sum += sampleTrilinear(s, fx + kf * sx, fy + kf * sy, fz + kf * sz);
  }
  return sum * static_cast<float>(dt * dirLengthMm);
}

void checkInputs(const Volume& volume, const Geometry& geometry,
                 const ForwardProjectionOptions& options) {
  if (volume.empty()) throw ParameterError("volume", "is empty");
  if (!(volume.voxelSizeMm().minCoeff() > 0) || !volume.voxelSizeMm().allFinite())
    throw ParameterError("volume.voxelSizeMm", "must be finite and > 0");
  if (!(options.stepVoxels > 0 && options.stepVoxels <= 0.5))
    throw ParameterError("stepVoxels",
                         "must be in (0, 0.5], got " + std::to_string(options.stepVoxels));
  geometry.validate();
}

void checkViewIndex(const Geometry& geometry, std::int64_t viewIndex) {
  if (viewIndex < 0 || viewIndex >= geometry.viewCount())
    throw ParameterError("viewIndex", "must be in 0.." + std::to_string(geometry.viewCount() - 1) +
                                          ", got " + std::to_string(viewIndex));
}

void projectOneView(const TraceSetup& setup, const Geometry& geometry, std::int64_t viewIndex,
                    std::span<float> pixels, const JobContext* context) {
  const View& view = geometry.view(viewIndex);
  const std::int64_t cols = geometry.detector().cols, rows = geometry.detector().rows;
  const bool cone = geometry.beam() == BeamKind::Cone;
  const std::optional<ArcFrame> arc = view.surface == DetectorSurface::Cylinder
                                          ? std::optional(arcFrame(geometry, viewIndex))
                                          : std::nullopt;
  const Eigen::Vector3d corner = view.detectorCentre -
                                 0.5 * static_cast<double>(cols - 1) * view.u -
                                 0.5 * static_cast<double>(rows - 1) * view.v;
#pragma omp parallel for schedule(dynamic, 4)
  for (std::int64_t row = 0; row < rows; ++row) {
    if (context && context->cancelToken().requested()) continue;
    float* out = pixels.data() + row * cols;
    const Eigen::Vector3d rowStart = corner + static_cast<double>(row) * view.v;
    for (std::int64_t col = 0; col < cols; ++col) {
      const Eigen::Vector3d pixel =
          arc ? arc->pixel(static_cast<double>(col), static_cast<double>(row))
              : Eigen::Vector3d(rowStart + static_cast<double>(col) * view.u);
      if (cone)
        out[col] = traceRay(setup, view.source, pixel - view.source, 0.0, 1.0);
      else
        out[col] = traceRay(setup, pixel, view.rayDirection.normalized(),
                            -std::numeric_limits<double>::infinity(),
                            std::numeric_limits<double>::infinity());
    }
  }
  if (context) context->throwIfCancelled();
}

}  // namespace

void forwardProjectView(const Volume& volume, const Geometry& geometry, std::int64_t viewIndex,
                        std::span<float> pixels, const JobContext* context,
                        const ForwardProjectionOptions& options) {
  checkInputs(volume, geometry, options);
  checkViewIndex(geometry, viewIndex);
  const std::int64_t pixelCount = geometry.detector().cols * geometry.detector().rows;
  if (static_cast<std::int64_t>(pixels.size()) != pixelCount)
    throw ParameterError("pixels", "must hold " + std::to_string(pixelCount) + " values, got " +
                                       std::to_string(pixels.size()));
  if (context) context->throwIfCancelled();
  std::fill(pixels.begin(), pixels.end(), 0.0f);
  const ContentBox content = findContent(volume);
  if (content.empty()) return;
  projectOneView(makeSetup(volume, content, options.stepVoxels), geometry, viewIndex, pixels,
                 context);
}

ProjectionStack forwardProjectViews(const Volume& volume, const Geometry& geometry,
                                    std::span<const std::int64_t> viewIndices,
                                    const JobContext* context,
                                    const ForwardProjectionOptions& options) {
  checkInputs(volume, geometry, options);
  for (const std::int64_t viewIndex : viewIndices) checkViewIndex(geometry, viewIndex);
  ProjectionStack stack(geometry);
  const ContentBox content = findContent(volume);
  if (content.empty()) return stack;
  const TraceSetup setup = makeSetup(volume, content, options.stepVoxels);
  std::int64_t done = 0;
  for (const std::int64_t viewIndex : viewIndices) {
    if (context) context->throwIfCancelled();
    projectOneView(setup, geometry, viewIndex, stack.viewPixels(viewIndex), context);
    ++done;
    if (context)
      context->reportProgress("forward project",
                              static_cast<double>(done) / static_cast<double>(viewIndices.size()));
  }
  return stack;
}

ProjectionStack forwardProject(const Volume& volume, const Geometry& geometry,
                               const JobContext* context, const ForwardProjectionOptions& options) {
  std::vector<std::int64_t> all(static_cast<std::size_t>(geometry.viewCount()));
  for (std::size_t i = 0; i < all.size(); ++i) all[i] = static_cast<std::int64_t>(i);
  return forwardProjectViews(volume, geometry, all, context, options);
}

}  // namespace tomowb::projector
