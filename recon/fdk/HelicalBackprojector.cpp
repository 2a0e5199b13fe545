#include "recon/fdk/HelicalBackprojector.h"

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <numbers>
#include <vector>

#include "recon/core/Error.h"

namespace tomowb::fdk {

namespace {

constexpr double kPi = std::numbers::pi;
// Voxel columns handed to a thread at a time.
constexpr int kColumnsPerChunk = 4;

// One conjugate of a view for the current voxel column: the row it sees a voxel at height z in,
// as (rowTimesW + rowSlope z) / (w + wSlope z).
struct Conjugate {
  double rowTimesW = 0, w = 0;
};

// Bilinear sample of one view with zero outside the detector (RabbitCT's rule, as
// BackprojectorCpu): pixel centres at integer (col, row).
double sampleBilinear(const float* view, std::int64_t cols, std::int64_t rows, double col,
                      double row) {
  if (!(col > -1.0 && col < double(cols) && row > -1.0 && row < double(rows))) return 0.0;
  const double fc = std::floor(col), fr = std::floor(row);
  const double tc = col - fc, tr = row - fr;
  const auto c0 = static_cast<std::int64_t>(fc), r0 = static_cast<std::int64_t>(fr);
  const auto at = [&](std::int64_t c, std::int64_t r) {
    return c >= 0 && c < cols && r >= 0 && r < rows ? double(view[r * cols + c]) : 0.0;
  };
  const double top = at(c0, r0) + tc * (at(c0 + 1, r0) - at(c0, r0));
  const double bottom = at(c0, r0 + 1) + tc * (at(c0 + 1, r0 + 1) - at(c0, r0 + 1));
  return top + tr * (bottom - top);
}

// The voxel slices [first, last] whose row in a view lies within (-1, rows): row(iz) =
// (r0 + iz dr) / (w0 + iz dw) is monotone in iz while w > 0.
bool sliceRange(const Eigen::Vector3d& base, const Eigen::Vector3d& step, std::int64_t nz,
                std::int64_t rows, std::int64_t& first, std::int64_t& last) {
  first = 0;
  last = nz - 1;
  for (const double edge : {-1.0, double(rows)}) {
    // row(iz) = edge  <=>  iz (dr - edge dw) = edge w0 - r0
    const double slope = step.y() - edge * step.z();
    const double offset = edge * base.z() - base.y();
    if (std::abs(slope) < 1e-300) {
      // row is constant in z: inside or outside for every slice.
      const double row = base.y() / base.z();
      if (!(row > -1.0 && row < double(rows))) return false;
      continue;
    }
    const double crossing = std::clamp(offset / slope, -1.0, double(nz));
    // Which side of the crossing is inside: where row moves towards the detector's middle.
    const bool risingRow = slope > 0;  // d(row w - edge w)/d iz > 0: row grows past the edge
    const bool insideAbove = (edge < 0) == risingRow;
    if (insideAbove)
      first = std::max(first, static_cast<std::int64_t>(std::floor(crossing)));
    else
      last = std::min(last, static_cast<std::int64_t>(std::ceil(crossing)));
  }
  return first <= last;
}

}  // namespace

double helicalRowWeight(double q, double flatFraction) {
  const double a = std::abs(q);
  if (a <= flatFraction) return 1.0;
  if (a >= 1.0) return 0.0;
  const double c = std::cos(0.5 * kPi * (a - flatFraction) / (1.0 - flatFraction));
  return c * c;
}

void backprojectHelical(const ProjectionStack& filtered, const HelicalOrbit& orbit,
                        double flatFraction, Volume& volume, JobContext& context) {
  if (filtered.empty() || volume.empty()) throw ParameterError("backprojection", "empty input");
  if (!(flatFraction >= 0.0 && flatFraction < 1.0))
    throw ParameterError("helical flat fraction", "must be in [0, 1)");
  requireFlatDetectors(filtered.geometry(), "helical FDK backprojection");
  const auto started = std::chrono::steady_clock::now();
  const Geometry& geometry = filtered.geometry();
  const std::int64_t views = filtered.viewCount(), rows = filtered.rows(), cols = filtered.cols();
  const std::int64_t nx = volume.nx(), ny = volume.ny(), nz = volume.nz();
  const double rowCentre = 0.5 * double(rows - 1), halfRows = 0.5 * double(rows);

  // Per view: voxel index -> (c w, r w, w), its angle on the orbit and its source in the plane.
  using VoxelMatrix = Eigen::Matrix<double, 3, 4>;
  std::vector<VoxelMatrix> matrices(static_cast<std::size_t>(views));
  std::vector<double> angles(static_cast<std::size_t>(views));
  std::vector<Eigen::Vector2d> sources(static_cast<std::size_t>(views));
  std::vector<Eigen::Vector2d> turns(static_cast<std::size_t>(views));  // cos, sin of a - a_ref
  for (std::int64_t j = 0; j < views; ++j) {
    const ProjectionMatrix p = geometry.projectionMatrix(j);
    VoxelMatrix& m = matrices[static_cast<std::size_t>(j)];
    for (int axis = 0; axis < 3; ++axis) m.col(axis) = p.col(axis) * volume.voxelSizeMm()[axis];
    m.col(3) = p.leftCols<3>() * volume.originMm() + p.col(3);
    angles[static_cast<std::size_t>(j)] = orbit.angleRad(j);
    sources[static_cast<std::size_t>(j)] = geometry.view(j).source.head<2>();
    const double turn = orbit.angleRad(j) - orbit.referenceAngleRad();
    turns[static_cast<std::size_t>(j)] = {std::cos(turn), std::sin(turn)};
  }
  // The conjugates' rows: the orbit's reference matrix applied to the voxel turned back about z
  // and lowered by the table's travel (HelicalOrbit::matrixAt). Its z column gives the slope in
  // z, the same for all.
  const ProjectionMatrix reference = orbit.matrixAt(orbit.referenceAngleRad());
  const double rowSlope = reference(1, 2), wSlope = reference(2, 2);
  // A voxel further than the detector reaches (seen from the far side of the volume, with a
  // margin) from a conjugate's source height is never on its detector: those are skipped.
  double radius = 0;
  for (const double x : {0.0, double(nx - 1)})
    for (const double y : {0.0, double(ny - 1)})
      radius = std::max(radius, volume.worldPosition(x, y, 0).head<2>().norm());
  const double reachMm = 0.75 * orbit.detectorHeightAtIsocentreMm() *
                         (orbit.sourceToIsocentreMm() + radius) / orbit.sourceToIsocentreMm();
  const double zLow =
      std::min(volume.worldPosition(0, 0, 0).z(), volume.worldPosition(0, 0, double(nz - 1)).z());
  const double zHigh =
      std::max(volume.worldPosition(0, 0, 0).z(), volume.worldPosition(0, 0, double(nz - 1)).z());
  const int maxK = static_cast<int>(std::ceil((orbit.endRad() - orbit.startRad()) / kPi)) + 1;

  const std::int64_t columns = nx * ny;
  const CancelToken& cancel = context.cancelToken();
  std::atomic<std::int64_t> done{0};
#pragma omp parallel
  {
    std::vector<double> sums(static_cast<std::size_t>(nz));
    std::vector<Conjugate> conjugates;
    conjugates.reserve(2 * static_cast<std::size_t>(maxK));
#pragma omp for schedule(dynamic, kColumnsPerChunk)
    for (std::int64_t column = 0; column < columns; ++column) {
      if (cancel.requested()) continue;
      const std::int64_t ix = column % nx, iy = column / nx;
      const Eigen::Vector3d point = volume.worldPosition(double(ix), double(iy), 0.0);
      std::fill(sums.begin(), sums.end(), 0.0);
      for (std::int64_t j = 0; j < views; ++j) {
        const VoxelMatrix& m = matrices[static_cast<std::size_t>(j)];
        const Eigen::Vector3d base = m.col(3) + double(ix) * m.col(0) + double(iy) * m.col(1);
        const Eigen::Vector3d step = m.col(2);
        if (!(base.z() > 0 && base.z() + double(nz - 1) * step.z() > 0)) continue;
        std::int64_t first = 0, last = 0;
        if (!sliceRange(base, step, nz, rows, first, last)) continue;
        // This view's conjugates for the column.
        const double a = angles[static_cast<std::size_t>(j)];
        const Eigen::Vector2d& s = sources[static_cast<std::size_t>(j)];
        const Eigen::Vector2d central = -s, ray = point.head<2>() - s;
        const double along = central.dot(ray);
        const double across = central.x() * ray.y() - central.y() * ray.x();
        const double gamma = std::atan2(across, along);
        // The point turned back by a - a_ref (the views a + 2 pi m), and by a + 2 gamma - a_ref
        // and half a turn (the views a + (2m + 1) pi + 2 gamma), without more trigonometry.
        const Eigen::Vector2d& t = turns[static_cast<std::size_t>(j)];
        const Eigen::Vector2d same(t.x() * point.x() + t.y() * point.y(),
                                   -t.y() * point.x() + t.x() * point.y());
        const double norm2 = along * along + across * across;
        const double cos2 = (along * along - across * across) / norm2;
        const double sin2 = 2.0 * along * across / norm2;
        const Eigen::Vector2d opposite(-(cos2 * same.x() + sin2 * same.y()),
                                       -(-sin2 * same.x() + cos2 * same.y()));
        conjugates.clear();
        for (int k = -maxK; k <= maxK; ++k) {
          if (k == 0) continue;
          const bool odd = k % 2 != 0;
          const double c = a + k * kPi + (odd ? 2.0 * gamma : 0.0);
          if (c < orbit.startRad() || c > orbit.endRad()) continue;
          const double sourceZ = orbit.sourceZAt(c);
          if (sourceZ + reachMm < zLow || sourceZ - reachMm > zHigh) continue;
          const Eigen::Vector2d& q = odd ? opposite : same;
          const double lowered = -(sourceZ - orbit.referenceSourceZMm());
          conjugates.push_back({reference(1, 0) * q.x() + reference(1, 1) * q.y() +
                                    rowSlope * lowered + reference(1, 3),
                                reference(2, 0) * q.x() + reference(2, 1) * q.y() +
                                    wSlope * lowered + reference(2, 3)});
        }
        const float* pixels = filtered.viewPixels(j).data();
        for (std::int64_t iz = first; iz <= last; ++iz) {
          const double w = base.z() + double(iz) * step.z();
          const double inv = 1.0 / w;
          const double row = (base.y() + double(iz) * step.y()) * inv;
          const double own = helicalRowWeight((row - rowCentre) / halfRows, flatFraction);
          if (own <= 0.0) continue;
          const double z = volume.originMm().z() + double(iz) * volume.voxelSizeMm().z();
          double total = own;
          for (const Conjugate& c : conjugates) {
            const double cw = c.w + wSlope * z;
            if (!(cw > 0)) continue;
            total += helicalRowWeight(((c.rowTimesW + rowSlope * z) / cw - rowCentre) / halfRows,
                                      flatFraction);
          }
          const double col = (base.x() + double(iz) * step.x()) * inv;
          sums[static_cast<std::size_t>(iz)] +=
              own / total * sampleBilinear(pixels, cols, rows, col, row) * inv * inv;
        }
      }
      for (std::int64_t iz = 0; iz < nz; ++iz)
        volume.at(ix, iy, iz) += static_cast<float>(sums[static_cast<std::size_t>(iz)]);
      const std::int64_t finished = ++done;
      if (omp_get_thread_num() == 0)
        context.reportProgress("backproject", double(finished) / double(columns));
    }
  }
  context.throwIfCancelled();
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  context.publishTelemetry({"fdk.backproject", "fdk.bp.cpu-helical", seconds,
                            double(volume.voxelCount()) * double(views), 0.0});
  if (context.wantsIntermediates())
    context.publishIntermediate(volume, "backprojected " + std::to_string(views) + " views", 1.0);
  context.reportProgress("backproject", 1.0);
}

}  // namespace tomowb::fdk
