#include "recon/projector/sf/SeparableFootprintProjector.h"

#include <omp.h>

#include <Eigen/Core>
#include <Eigen/Geometry>
#include <algorithm>
#include <array>
#include <cmath>
#include <optional>
#include <utility>
#include <vector>

#include "recon/core/Error.h"
#include "recon/geometry/ArcFrame.h"
#include "recon/projector/JosephProjector.h"

namespace tomowb::projector {

namespace {

// How far u may lean out of the xy-plane and v off the z axis, relative to their lengths, before
// the column of a point depends on its z (digest section 2: about 1e-6 of the matrix).
constexpr double kSeparableTolerance = 1e-6;
// Detector rows per forward work item: a band gathers every voxel column once, so a band of 16
// keeps the repeated transaxial set-up small against the axial sums on the sizes of the tests.
constexpr std::int64_t kRowsPerBand = 16;
// Views whose amplitude-scaled copy (float64) the transpose holds at once.
constexpr std::int64_t kViewsPerChunk = 16;

constexpr const char* kWho = "separable-footprint projector";

// Sorted corners t0 <= t1 <= t2 <= t3 of a unit-height trapezoid (digest 3.1); a rectangle has
// t0 = t1 and t2 = t3.
using Trapezoid = std::array<double, 4>;

// The integral of the trapezoid from -infinity to s (Gamma of digest 3.1): zero-width ramps add
// nothing, so there is no division by zero.
double trapezoidIntegral(const Trapezoid& t, double s) {
  s = std::clamp(s, t[0], t[3]);
  double sum = 0.0;
  if (t[1] > t[0]) {
    const double rise = std::min(s, t[1]) - t[0];
    sum += rise * rise / (2.0 * (t[1] - t[0]));
  }
  if (s > t[1]) sum += std::min(s, t[2]) - t[1];
  if (s > t[2] && t[3] > t[2]) {
    const double left = t[3] - s;
    sum += 0.5 * (t[3] - t[2]) - left * left / (2.0 * (t[3] - t[2]));
  }
  return sum;
}

// The trapezoid averaged over detector cell `cell` (it covers [cell - 1/2, cell + 1/2] in pixel
// units, so the average is the integral).
double cellAverage(const Trapezoid& t, std::int64_t cell) {
  const auto c = static_cast<double>(cell);
  return trapezoidIntegral(t, c + 0.5) - trapezoidIntegral(t, c - 0.5);
}

// The cell whose [k - 1/2, k + 1/2] holds pixel coordinate s.
std::int64_t cellOf(double s) {
  return static_cast<std::int64_t>(std::floor(s + 0.5));
}

// The chord of a ray of xy-direction (dx, dy) through the voxel's xy-rectangle in the plateau of
// the trapezoid: min(sizeX / |cos phi|, sizeY / |sin phi|) (digest 3.3).
double transaxialChord(double dx, double dy, double sizeX, double sizeY) {
  const double ax = std::abs(dx), ay = std::abs(dy), r = std::hypot(dx, dy);
  return sizeX * ay <= sizeY * ax ? sizeX * r / ax : sizeY * r / ay;
}

// One view: where a point (x, y, z) falls on the detector, as column(x, y) and row =
// (rowNumerator(x, y) + slope z) / depth(x, y), and the pixel frame for the cell amplitudes.
//  - Flat: from the projection matrix (sign chosen so that the depth w is positive in front of
//    the source): column = (P0 . X) / w, row = (P1 . X) / w, slope = P[1][2].
//  - Arc (ArcFrame.h): the column of the fan angle, centreColumn + R atan2((X - S).e, (X - S).n)
//    / |u|, and the depth is the in-plane source distance r: row = centreRow + ((X - S).v R / r -
//    h0) / |v|, so rowNumerator = centreRow r + (R (v^x (x - Sx) + v^y (y - Sy) - v^z Sz) - h0 r)
//    / |v| and slope = R v^z / |v| (digest section 2, "Arc detectors").
struct SfView {
  ProjectionMatrix p;
  std::optional<ArcFrame> arc;
  Eigen::Vector3d source, corner, u, v;
  double slope = 0.0;

  SfView(const Geometry& geometry, std::int64_t viewIndex) {
    const View& view = geometry.view(viewIndex);
    const DetectorShape& det = geometry.detector();
    source = view.source;
    u = view.u;
    v = view.v;
    corner = view.detectorCentre - 0.5 * static_cast<double>(det.cols - 1) * u -
             0.5 * static_cast<double>(det.rows - 1) * v;
    if (view.surface == DetectorSurface::Cylinder) {
      arc = arcFrame(geometry, viewIndex);
      slope = arc->radius * arc->v.z() / arc->rowPitch;
      return;
    }
    p = geometry.projectionMatrix(viewIndex);
    const Eigen::Vector4d centre(view.detectorCentre.x(), view.detectorCentre.y(),
                                 view.detectorCentre.z(), 1.0);
    if (p.row(2).dot(centre) < 0) p = -p;
    slope = p(1, 2);
  }
  double depth(double x, double y) const {
    if (arc) return arc->inPlaneDistance(Eigen::Vector3d(x, y, source.z()));
    return p(2, 0) * x + p(2, 1) * y + p(2, 3);
  }
  double column(double x, double y) const {
    if (arc) {
      const Eigen::Vector3d d(x - source.x(), y - source.y(), 0.0);
      return arc->centreColumn +
             arc->radius * std::atan2(d.dot(arc->e), d.dot(arc->n)) / arc->columnPitch;
    }
    return (p(0, 0) * x + p(0, 1) * y + p(0, 3)) / depth(x, y);
  }
  double rowNumerator(double x, double y) const {
    if (arc) {
      const Eigen::Vector3d& a = arc->v;
      const double height =
          a.x() * (x - source.x()) + a.y() * (y - source.y()) - a.z() * source.z();
      const double r = depth(x, y);
      return arc->centreRow * r + (arc->radius * height - arc->axialOffset * r) / arc->rowPitch;
    }
    return p(1, 0) * x + p(1, 1) * y + p(1, 3);
  }
  // v(k, l): the amplitude of cell (col, row) that does not depend on the voxel.
  double cellAmplitude(std::int64_t col, std::int64_t row, const SfModel& model,
                       const Eigen::Vector3d& voxelSize) const {
    const Eigen::Vector3d d =
        arc ? Eigen::Vector3d(arc->pixel(static_cast<double>(col), static_cast<double>(row)) -
                              source)
            : Eigen::Vector3d(corner + static_cast<double>(col) * u + static_cast<double>(row) * v -
                              source);
    const double lTheta = d.norm() / std::hypot(d.x(), d.y());
    if (model.amplitude == SfAmplitude::A2) return lTheta;
    return lTheta * transaxialChord(d.x(), d.y(), voxelSize.x(), voxelSize.y());
  }
};

// A voxel column (x, y) in one view: u * F1 on the detector columns it touches, and what its
// voxels' axial footprints need.
struct ColumnFootprint {
  std::int64_t firstCol = 0;
  std::vector<double> weights;  // u * F1(k) for k = firstCol, firstCol + 1, ...
  double slope = 0, halfZ = 0;  // dz of the row numerator; half the voxel height
  // Row numerator and depth at the voxel centre (SF-TR) and at its nearest and farthest
  // transaxial corner (SF-TT).
  double numCentre = 0, depthCentre = 1, numNear = 0, depthNear = 1, numFar = 0, depthFar = 1;
  bool axialTrapezoid = false;

  // The axial footprint of the voxel centred at height z, in row pixel units.
  Trapezoid axial(double z) const {
    const double lo = z - halfZ, hi = z + halfZ;
    Trapezoid t;
    if (!axialTrapezoid) {
      const double a = (numCentre + slope * lo) / depthCentre;
      const double b = (numCentre + slope * hi) / depthCentre;
      t = {std::min(a, b), std::min(a, b), std::max(a, b), std::max(a, b)};
    } else {
      t = {(numNear + slope * lo) / depthNear, (numNear + slope * hi) / depthNear,
           (numFar + slope * lo) / depthFar, (numFar + slope * hi) / depthFar};
      std::sort(t.begin(), t.end());
    }
    return t;
  }
};

// Everything the two directions share, so that they weigh each voxel-cell pair identically.
class SfFrame {
 public:
  SfFrame(const Geometry& geometry, const VolumeGrid& grid, const SfModel& model)
      : grid_(grid), model_(model), cols_(geometry.detector().cols) {}

  // Fills `fp` for voxel column (ix, iy) of `view`; false when it touches no detector column.
  bool footprint(const SfView& view, std::int64_t ix, std::int64_t iy, ColumnFootprint& fp) const {
    const Eigen::Vector3d& size = grid_.voxelSizeMm;
    const double x = grid_.originMm.x() + static_cast<double>(ix) * size.x();
    const double y = grid_.originMm.y() + static_cast<double>(iy) * size.y();
    const double hx = 0.5 * size.x(), hy = 0.5 * size.y();
    const std::array<double, 4> cx{x - hx, x + hx, x - hx, x + hx};
    const std::array<double, 4> cy{y - hy, y - hy, y + hy, y + hy};
    Trapezoid tau;
    int near = 0, far = 0;
    std::array<double, 4> depth{};
    for (int i = 0; i < 4; ++i) {
      depth[i] = view.depth(cx[i], cy[i]);
      tau[i] = view.column(cx[i], cy[i]);
      if (depth[i] < depth[near]) near = i;
      if (depth[i] > depth[far]) far = i;
    }
    std::sort(tau.begin(), tau.end());
    const std::int64_t first = std::max<std::int64_t>(0, cellOf(tau[0]));
    const std::int64_t last = std::min(cols_ - 1, cellOf(tau[3]));
    if (first > last) return false;
    const double amplitude =
        model_.amplitude == SfAmplitude::A2
            ? transaxialChord(x - view.source.x(), y - view.source.y(), size.x(), size.y())
            : 1.0;
    fp.firstCol = first;
    fp.weights.resize(static_cast<std::size_t>(last - first + 1));
    for (std::int64_t k = first; k <= last; ++k)
      fp.weights[static_cast<std::size_t>(k - first)] = amplitude * cellAverage(tau, k);
    fp.slope = view.slope;
    fp.halfZ = 0.5 * size.z();
    fp.numCentre = view.rowNumerator(x, y);
    fp.depthCentre = view.depth(x, y);
    fp.numNear = view.rowNumerator(cx[near], cy[near]);
    fp.depthNear = depth[near];
    fp.numFar = view.rowNumerator(cx[far], cy[far]);
    fp.depthFar = depth[far];
    fp.axialTrapezoid = model_.axial == SfAxialFootprint::Trapezoid;
    return true;
  }

  double sliceZ(std::int64_t iz) const {
    return grid_.originMm.z() + static_cast<double>(iz) * grid_.voxelSizeMm.z();
  }

  // The slices [begin, end) whose axial footprints reach rows between pixel coordinates low and
  // high: the footprints' ends move monotonically with z, so two binary searches find them.
  std::pair<std::int64_t, std::int64_t> slicesReaching(const ColumnFootprint& fp, double low,
                                                       double high) const {
    const std::int64_t nz = grid_.shape.nz;
    auto firstWhere = [&](auto&& predicate) {
      std::int64_t lo = 0, hi = nz;  // predicate false before, true from the answer on
      while (lo < hi) {
        const std::int64_t mid = lo + (hi - lo) / 2;
        if (predicate(fp.axial(sliceZ(mid)))) {
          hi = mid;
        } else {
          lo = mid + 1;
        }
      }
      return lo;
    };
    const bool rising = fp.axial(sliceZ(nz - 1))[0] >= fp.axial(sliceZ(0))[0];
    if (rising)
      return {firstWhere([&](const Trapezoid& t) { return t[3] > low; }),
              firstWhere([&](const Trapezoid& t) { return t[0] >= high; })};
    return {firstWhere([&](const Trapezoid& t) { return t[0] < high; }),
            firstWhere([&](const Trapezoid& t) { return t[3] <= low; })};
  }

  const VolumeGrid& grid() const { return grid_; }
  const SfModel& model() const { return model_; }

 private:
  const VolumeGrid& grid_;
  SfModel model_;
  std::int64_t cols_;
};

void checkGrid(const VolumeGrid& grid, std::size_t voxels) {
  const VolumeShape& s = grid.shape;
  if (s.nx < 1 || s.ny < 1 || s.nz < 1) throw ParameterError(kWho, "the volume is empty");
  if (!(grid.voxelSizeMm.minCoeff() > 0)) throw ParameterError(kWho, "voxel sizes must be > 0");
  if (voxels != static_cast<std::size_t>(s.nx * s.ny * s.nz))
    throw ParameterError(kWho, "the volume array does not match its grid");
}

void checkProblem(const Geometry& geometry, const VolumeGrid& grid, std::size_t voxels,
                  std::size_t pixels) {
  checkGrid(grid, voxels);
  geometry.validate();
  if (pixels != static_cast<std::size_t>(geometry.viewCount() * geometry.detector().cols *
                                         geometry.detector().rows))
    throw ParameterError(kWho, "the projection array does not match the geometry");
  if (std::optional<std::string> why = sfUnsupportedReason(geometry, grid))
    throw ParameterError(kWho, *why);
}

// g(k, l) = v(k, l) sum_xy u F1(k) sum_z F2(l) f, one (view, band of rows) per work item, each
// band's sums in voxel order: the same bits whatever the thread count.
template <typename In, typename Out>
void forwardImpl(const In* volume, const VolumeGrid& grid, const Geometry& geometry, Out* out,
                 const std::vector<std::int64_t>& list, const SfModel& model,
                 const JobContext* context) {
  const SfFrame frame(geometry, grid, model);
  std::vector<SfView> views;
  views.reserve(list.size());
  for (const std::int64_t v : list) views.emplace_back(geometry, v);
  const std::int64_t rows = geometry.detector().rows, cols = geometry.detector().cols;
  const std::int64_t nx = grid.shape.nx, ny = grid.shape.ny, nxy = nx * ny;
  const std::int64_t bands = (rows + kRowsPerBand - 1) / kRowsPerBand;
  const auto items = static_cast<std::int64_t>(list.size()) * bands;
#pragma omp parallel
  {
    ColumnFootprint fp;
    std::vector<double> band(static_cast<std::size_t>(kRowsPerBand * cols));
    std::array<double, kRowsPerBand> h{};
#pragma omp for schedule(dynamic, 1)
    for (std::int64_t item = 0; item < items; ++item) {
      if (context && context->cancelToken().requested()) continue;
      const auto k = static_cast<std::size_t>(item / bands);
      const SfView& view = views[k];
      const std::int64_t rowLo = (item % bands) * kRowsPerBand;
      const std::int64_t rowHi = std::min(rows, rowLo + kRowsPerBand);
      std::fill(band.begin(), band.end(), 0.0);
      for (std::int64_t iy = 0; iy < ny; ++iy)
        for (std::int64_t ix = 0; ix < nx; ++ix) {
          if (!frame.footprint(view, ix, iy, fp)) continue;
          const auto [zBegin, zEnd] = frame.slicesReaching(fp, static_cast<double>(rowLo) - 0.5,
                                                           static_cast<double>(rowHi) - 0.5);
          if (zBegin >= zEnd) continue;
          h.fill(0.0);
          for (std::int64_t iz = zBegin; iz < zEnd; ++iz) {
            const auto f = static_cast<double>(volume[iz * nxy + iy * nx + ix]);
            if (f == 0.0) continue;
            const Trapezoid t = fp.axial(frame.sliceZ(iz));
            const std::int64_t l0 = std::max(rowLo, cellOf(t[0]));
            const std::int64_t l1 = std::min(rowHi - 1, cellOf(t[3]));
            for (std::int64_t l = l0; l <= l1; ++l)
              h[static_cast<std::size_t>(l - rowLo)] += cellAverage(t, l) * f;
          }
          for (std::int64_t l = rowLo; l < rowHi; ++l) {
            const double hl = h[static_cast<std::size_t>(l - rowLo)];
            if (hl == 0.0) continue;
            double* line = band.data() + (l - rowLo) * cols + fp.firstCol;
            for (std::size_t c = 0; c < fp.weights.size(); ++c) line[c] += fp.weights[c] * hl;
          }
        }
      Out* pixels = out + (list[k] * rows + rowLo) * cols;
      for (std::int64_t l = rowLo; l < rowHi; ++l)
        for (std::int64_t c = 0; c < cols; ++c) {
          const double g = band[static_cast<std::size_t>((l - rowLo) * cols + c)];
          pixels[(l - rowLo) * cols + c] = static_cast<Out>(
              g == 0.0 ? 0.0 : g * view.cellAmplitude(c, l, model, grid.voxelSizeMm));
        }
    }
  }
  if (context) context->throwIfCancelled();
}

// Adds A^T y into `sum` (float64, the grid's order): per chunk of views, y is scaled by v(k, l)
// once; then each voxel column gathers h(l) = sum_k u F1(k) y'(k, l) per view and each of its
// voxels sum_l F2(l) h(l), views in list order: the same bits whatever the thread count.
template <typename In>
void backprojectImpl(const In* projections, const Geometry& geometry, double* sum,
                     const VolumeGrid& grid, const std::vector<std::int64_t>& list,
                     const SfModel& model, const JobContext* context) {
  const SfFrame frame(geometry, grid, model);
  const std::int64_t rows = geometry.detector().rows, cols = geometry.detector().cols;
  const std::int64_t nx = grid.shape.nx, nxy = nx * grid.shape.ny;
  const auto viewPixels = static_cast<std::size_t>(rows * cols);
  const auto count = static_cast<std::int64_t>(list.size());
  for (std::int64_t chunk = 0; chunk < count; chunk += kViewsPerChunk) {
    if (context) context->throwIfCancelled();
    const std::int64_t chunkViews = std::min(kViewsPerChunk, count - chunk);
    std::vector<SfView> views;
    for (std::int64_t k = 0; k < chunkViews; ++k)
      views.emplace_back(geometry, list[static_cast<std::size_t>(chunk + k)]);
    std::vector<double> scaled(static_cast<std::size_t>(chunkViews) * viewPixels);
#pragma omp parallel for schedule(static)
    for (std::int64_t line = 0; line < chunkViews * rows; ++line) {
      const std::int64_t k = line / rows, l = line % rows;
      const In* in = projections + (list[static_cast<std::size_t>(chunk + k)] * rows + l) * cols;
      double* to = scaled.data() + line * cols;
      for (std::int64_t c = 0; c < cols; ++c) {
        const auto g = static_cast<double>(in[c]);
        to[c] = g == 0.0 ? 0.0
                         : g * views[static_cast<std::size_t>(k)].cellAmplitude(c, l, model,
                                                                                grid.voxelSizeMm);
      }
    }
#pragma omp parallel
    {
      ColumnFootprint fp;
      std::vector<double> h(static_cast<std::size_t>(rows));
#pragma omp for schedule(dynamic, 16)
      for (std::int64_t column = 0; column < nxy; ++column) {
        if (context && context->cancelToken().requested()) continue;
        const std::int64_t ix = column % nx, iy = column / nx;
        for (std::int64_t k = 0; k < chunkViews; ++k) {
          if (!frame.footprint(views[static_cast<std::size_t>(k)], ix, iy, fp)) continue;
          const auto [zBegin, zEnd] =
              frame.slicesReaching(fp, -0.5, static_cast<double>(rows) - 0.5);
          if (zBegin >= zEnd) continue;
          const std::int64_t rowLo =
              std::max<std::int64_t>(0, cellOf(std::min(fp.axial(frame.sliceZ(zBegin))[0],
                                                        fp.axial(frame.sliceZ(zEnd - 1))[0])));
          const std::int64_t rowHi =
              std::min(rows - 1, cellOf(std::max(fp.axial(frame.sliceZ(zBegin))[3],
                                                 fp.axial(frame.sliceZ(zEnd - 1))[3])));
          const double* y = scaled.data() + static_cast<std::size_t>(k) * viewPixels;
          for (std::int64_t l = rowLo; l <= rowHi; ++l) {
            const double* line = y + l * cols + fp.firstCol;
            double s = 0.0;
            for (std::size_t c = 0; c < fp.weights.size(); ++c) s += fp.weights[c] * line[c];
            h[static_cast<std::size_t>(l)] = s;
          }
          for (std::int64_t iz = zBegin; iz < zEnd; ++iz) {
            const Trapezoid t = fp.axial(frame.sliceZ(iz));
            const std::int64_t l0 = std::max(rowLo, cellOf(t[0]));
            const std::int64_t l1 = std::min(rowHi, cellOf(t[3]));
            double s = 0.0;
            for (std::int64_t l = l0; l <= l1; ++l)
              s += cellAverage(t, l) * h[static_cast<std::size_t>(l)];
            sum[iz * nxy + column] += s;
          }
        }
      }
    }
  }
  if (context) context->throwIfCancelled();
}

}  // namespace

std::optional<std::string> sfUnsupportedReason(const Geometry& geometry, const VolumeGrid& grid) {
  if (geometry.beam() != BeamKind::Cone)
    return std::string(
        "parallel beams are not supported: the separable-footprint pair projects from a source "
        "point (cone beams on flat or arc detectors only)");
  const Eigen::Vector3d low = grid.originMm - 0.5 * grid.voxelSizeMm;
  const Eigen::Vector3d high =
      low + grid.voxelSizeMm.cwiseProduct(Eigen::Vector3d(static_cast<double>(grid.shape.nx),
                                                          static_cast<double>(grid.shape.ny),
                                                          static_cast<double>(grid.shape.nz)));
  for (std::int64_t i = 0; i < geometry.viewCount(); ++i) {
    const View& view = geometry.view(i);
    const std::string name = "view " + std::to_string(i) + ": ";
    if (std::abs(view.u.z()) > kSeparableTolerance * view.u.norm() ||
        std::hypot(view.v.x(), view.v.y()) > kSeparableTolerance * view.v.norm())
      return name +
             "the detector is tilted, rotated or skewed (its column axis u must be perpendicular "
             "to z and its row axis v parallel to z), so a point's detector column depends on its "
             "z and the separable footprint is not exact there";
    // Depth along the detector normal, positive towards the detector (on an arc, u x v is its
    // centre's normal n, and d.n > 0 keeps every fan angle within +-pi/2).
    Eigen::Vector3d normal = view.u.cross(view.v).normalized();
    if (normal.dot(view.detectorCentre - view.source) < 0) normal = -normal;
    for (const double x : {low.x(), high.x()})
      for (const double y : {low.y(), high.y()})
        if (normal.dot(Eigen::Vector3d(x, y, view.source.z()) - view.source) <= 0)
          return name +
                 "the volume reaches the source's plane (parallel to the detector): every voxel "
                 "must lie in front of the source";
  }
  return std::nullopt;
}

void sfForward(const Volume& volume, ProjectionStack& projections, const SfModel& model,
               std::span<const std::int64_t> views, const JobContext* context) {
  const VolumeGrid grid = VolumeGrid::of(volume);
  const Geometry& geometry = projections.geometry();
  checkProblem(geometry, grid, volume.voxels().size(),
               static_cast<std::size_t>(projections.pixelCount()));
  const std::vector<std::int64_t> list = checkedViewList(geometry, views);
  forwardImpl(volume.data(), grid, geometry, projections.data(), list, model, context);
}

void sfBackproject(const ProjectionStack& projections, Volume& volume, const SfModel& model,
                   std::span<const std::int64_t> views, const JobContext* context) {
  const VolumeGrid grid = VolumeGrid::of(volume);
  const Geometry& geometry = projections.geometry();
  checkProblem(geometry, grid, volume.voxels().size(),
               static_cast<std::size_t>(projections.pixelCount()));
  const std::vector<std::int64_t> list = checkedViewList(geometry, views);
  // Accumulate in float64, then add once: the float volume sees one rounding per voxel.
  std::vector<double> sum(volume.voxels().size(), 0.0);
  backprojectImpl(projections.data(), geometry, sum.data(), grid, list, model, context);
  float* out = volume.data();
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < static_cast<std::int64_t>(sum.size()); ++i)
    out[i] = static_cast<float>(static_cast<double>(out[i]) + sum[static_cast<std::size_t>(i)]);
}

void sfForward(std::span<const double> volume, const VolumeGrid& grid, const Geometry& geometry,
               std::span<double> projections, const SfModel& model,
               std::span<const std::int64_t> views) {
  checkProblem(geometry, grid, volume.size(), projections.size());
  forwardImpl(volume.data(), grid, geometry, projections.data(), checkedViewList(geometry, views),
              model, nullptr);
}

void sfBackproject(std::span<const double> projections, const Geometry& geometry,
                   std::span<double> volume, const VolumeGrid& grid, const SfModel& model,
                   std::span<const std::int64_t> views) {
  checkProblem(geometry, grid, volume.size(), projections.size());
  backprojectImpl(projections.data(), geometry, volume.data(), grid,
                  checkedViewList(geometry, views), model, nullptr);
}

namespace {

void addPair(VariantRegistry& registry, const std::string& suffix, const std::string& model,
             SfAxialFootprint axial, const std::string& label) {
  const SfModel sf{.axial = axial, .amplitude = SfAmplitude::A2};
  auto supports = [](const Geometry& geometry, const VolumeGrid& grid) {
    return sfUnsupportedReason(geometry, grid);
  };
  KernelVariant forward;
  forward.name = "sf.fp.cpu-" + suffix;
  forward.role = VariantRole::ForwardProjector;
  forward.model = model;
  forward.description =
      "CPU separable-footprint forward projector " + label +
      "-A2 (cone beam, flat or arc detector), float64 sums, OpenMP over row bands";
  forward.supports = supports;
  forward.forwardProject = [sf](const Volume& volume, ProjectionStack& projections,
                                std::span<const std::int64_t> views, JobContext& context) {
    sfForward(volume, projections, sf, views, &context);
  };
  const std::string forwardName = forward.name;
  registry.add(std::move(forward));
  KernelVariant back;
  back.name = "sf.bp.cpu-" + suffix;
  back.role = VariantRole::Backprojector;
  back.model = model;
  back.description = "CPU exact transpose of " + forwardName +
                     " (gather per voxel column, float64 sums): a matched pair";
  back.adjointOf = forwardName;
  back.supports = supports;
  back.backprojectViews = [sf](const ProjectionStack& projections, Volume& volume,
                               std::span<const std::int64_t> views, JobContext& context) {
    sfBackproject(projections, volume, sf, views, &context);
  };
  registry.add(std::move(back));
}

}  // namespace

void registerSeparableFootprintPairs(VariantRegistry& registry) {
  addPair(registry, "tr", "sf-tr", SfAxialFootprint::Rectangle, "SF-TR");
  addPair(registry, "tt", "sf-tt", SfAxialFootprint::Trapezoid, "SF-TT");
}

}  // namespace tomowb::projector
