#include "recon/phantom/AnalyticProjector.h"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "recon/core/Error.h"
#include "recon/geometry/ArcFrame.h"
#include "recon/phantom/PreparedShape.h"

namespace tomowb::phantom {

namespace {

// Work between two cancel checks / progress reports: about one view of a 512-row detector, a
// few tens of milliseconds on one core for the Shepp-Logan phantom.
constexpr std::int64_t kRowsPerBlock = 512;

// The detector of one view: pixel (c, r) lies at pixel00 + c u + r v, or on the arc.
struct ViewFrame {
  bool cone = true;
  Eigen::Vector3d source;     // cone
  Eigen::Vector3d direction;  // parallel, unit
  Eigen::Vector3d pixel00, u, v, normal;
  Eigen::Matrix2d gramInverse;
  std::optional<ArcFrame> arc;  // a cylindrical detector

  // The world vector from the source to detector point (a, b) (cone views).
  Eigen::Vector3d sourceToPixel(double a, double b) const {
    if (arc) return arc->pixel(a, b) - source;
    return pixel00 - source + a * u + b * v;
  }

  // Detector coordinates (col, row) where the ray through `point` meets the detector plane;
  // false if a cone-beam point is not strictly on the detector's side of the source.
  bool toPixel(const Eigen::Vector3d& point, double& col, double& row) const {
    Eigen::Vector3d onPlane;
    if (cone) {
      const Eigen::Vector3d d = point - source;
      const double denom = normal.dot(d);
      const double num = normal.dot(pixel00 - source);
      if (!(denom * num > 0.0)) return false;
      onPlane = source + (num / denom) * d;
    } else {
      onPlane = point + (normal.dot(pixel00 - point) / normal.dot(direction)) * direction;
    }
    const Eigen::Vector3d w = onPlane - pixel00;
    const Eigen::Vector2d cr = gramInverse * Eigen::Vector2d(u.dot(w), v.dot(w));
    col = cr.x();
    row = cr.y();
    return std::isfinite(col) && std::isfinite(row);
  }
};

ViewFrame makeFrame(const Geometry& geometry, std::int64_t viewIndex) {
  ViewFrame f;
  f.cone = geometry.beam() == BeamKind::Cone;
  f.pixel00 = geometry.pixelPosition(viewIndex, 0.0, 0.0);
  f.u = geometry.pixelPosition(viewIndex, 1.0, 0.0) - f.pixel00;
  f.v = geometry.pixelPosition(viewIndex, 0.0, 1.0) - f.pixel00;
  f.normal = f.u.cross(f.v);
  Eigen::Matrix2d gram;
  gram << f.u.dot(f.u), f.u.dot(f.v), f.u.dot(f.v), f.v.dot(f.v);
  f.gramInverse = gram.inverse();
  if (geometry.view(viewIndex).surface == DetectorSurface::Cylinder)
    f.arc = arcFrame(geometry, viewIndex);
  if (f.cone)
    f.source = geometry.view(viewIndex).source;
  else
    f.direction = geometry.rayDirectionTo(viewIndex, 0.0, 0.0);
  return f;
}

// One shape as one view sees it, in the shape's canonical frame. A sub-ray at detector
// coordinates (a, b) has the canonical vector varying = base + a stepCol + b stepRow: for a cone
// view it is the direction from the source to the pixel (the ray is fixed + t varying, t in
// [0, 1]); for a parallel view it is the ray's origin on the detector (fixed is the direction).
struct ViewShape {
  Eigen::Vector3d fixed, base, stepCol, stepRow;
  double density = 0.0;
  std::int64_t col0 = 0, col1 = -1, row0 = 0, row1 = -1;  // pixels that may see it, inclusive
};

// The detector coordinates (inclusive, before the margin) that may see the box on an arc
// detector; false if a corner is not in front of the source. Columns are the fan angles of the
// corners (the extremes of a convex body's angles seen from outside it are at its vertices);
// rows use the corners' extreme heights over the smallest and largest distance from the axis,
// the smallest bounded below by the corners' smallest distance along n (the box can come closer
// to the axis than any corner).
bool arcBounds(const ArcFrame& arc, const PreparedShape& shape, double& cMin, double& cMax,
               double& rMin, double& rMax) {
  double hMin = 1e300, hMax = -1e300, nearMin = 1e300, farMax = 0.0;
  for (int corner = 0; corner < 8; ++corner) {
    const Eigen::Vector3d p((corner & 1) ? shape.boxMaxMm().x() : shape.boxMinMm().x(),
                            (corner & 2) ? shape.boxMaxMm().y() : shape.boxMinMm().y(),
                            (corner & 4) ? shape.boxMaxMm().z() : shape.boxMinMm().z());
    const Eigen::Vector3d d = p - arc.source;
    const double ahead = d.dot(arc.n);
    if (!(ahead > 0.0)) return false;
    const double c = arc.pixelCoordinates(p).x();
    cMin = std::min(cMin, c);
    cMax = std::max(cMax, c);
    hMin = std::min(hMin, d.dot(arc.v));
    hMax = std::max(hMax, d.dot(arc.v));
    nearMin = std::min(nearMin, ahead);
    farMax = std::max(farMax, arc.inPlaneDistance(p));
  }
  const auto row = [&](double h, double r) {
    return arc.centreRow + (h * arc.radius / r - arc.axialOffset) / arc.rowPitch;
  };
  rMin = row(hMin, hMin >= 0 ? farMax : nearMin);
  rMax = row(hMax, hMax >= 0 ? nearMin : farMax);
  return std::isfinite(cMin + cMax + rMin + rMax);
}

ViewShape prepareViewShape(const PreparedShape& shape, const ViewFrame& f, std::int64_t cols,
                           std::int64_t rows) {
  ViewShape vs;
  vs.density = shape.density();
  vs.stepCol = shape.localVector(f.u);
  vs.stepRow = shape.localVector(f.v);
  if (f.cone) {
    vs.fixed = shape.localPoint(f.source);
    vs.base = shape.localVector(f.pixel00 - f.source);
  } else {
    vs.fixed = shape.localVector(f.direction);
    vs.base = shape.localPoint(f.pixel00);
  }

  // The projection of the shape's bounding box is the hull of its corners' projections (all on
  // the detector side of the source); half a pixel covers the sub-rays, one more rounding.
  double colMin = 0.0, colMax = static_cast<double>(cols - 1);
  double rowMin = 0.0, rowMax = static_cast<double>(rows - 1);
  bool bounded = true;
  double cMin = 1e300, cMax = -1e300, rMin = 1e300, rMax = -1e300;
  if (f.arc) bounded = arcBounds(*f.arc, shape, cMin, cMax, rMin, rMax);
  for (int corner = 0; corner < 8 && bounded && !f.arc; ++corner) {
    const Eigen::Vector3d p((corner & 1) ? shape.boxMaxMm().x() : shape.boxMinMm().x(),
                            (corner & 2) ? shape.boxMaxMm().y() : shape.boxMinMm().y(),
                            (corner & 4) ? shape.boxMaxMm().z() : shape.boxMinMm().z());
    double c = 0.0, r = 0.0;
    bounded = f.toPixel(p, c, r);
    cMin = std::min(cMin, c);
    cMax = std::max(cMax, c);
    rMin = std::min(rMin, r);
    rMax = std::max(rMax, r);
  }
  if (bounded) {
    colMin = std::max(colMin, cMin - 1.5);
    colMax = std::min(colMax, cMax + 1.5);
    rowMin = std::max(rowMin, rMin - 1.5);
    rowMax = std::min(rowMax, rMax + 1.5);
  }
  if (colMin > colMax || rowMin > rowMax) return vs;  // off the detector: col1 < col0
  vs.col0 = static_cast<std::int64_t>(std::floor(colMin));
  vs.col1 = static_cast<std::int64_t>(std::ceil(colMax));
  vs.row0 = static_cast<std::int64_t>(std::floor(rowMin));
  vs.row1 = static_cast<std::int64_t>(std::ceil(rowMax));
  return vs;
}

struct RowJob {
  const ViewFrame* frame;
  const ViewShape* shapes;
  const PreparedShape* prepared;
  std::int64_t shapeCount, cols, row;
  const std::vector<double>* offsets;
  float* out;
};

// The line integral along the sub-ray at detector coordinates (a, b) through the shapes listed
// in `covering`.
double subRayIntegral(const RowJob& job, const std::vector<std::int64_t>& covering, double a,
                      double b) {
  const ViewFrame& f = *job.frame;
  double ray = 0.0;
  RayInterval interval;
  if (!f.cone) {
    for (std::int64_t k : covering) {
      const ViewShape& s = job.shapes[k];
      const Eigen::Vector3d origin = s.base + a * s.stepCol + b * s.stepRow;
      if (job.prepared[k].intersectLocal(origin, s.fixed, interval))
        ray += s.density * interval.length();
    }
    return ray;
  }
  // On an arc the pixel is not affine in (a, b): each shape takes the world vector.
  const Eigen::Vector3d arcRay = f.arc ? f.sourceToPixel(a, b) : Eigen::Vector3d::Zero();
  for (std::int64_t k : covering) {
    const ViewShape& s = job.shapes[k];
    const Eigen::Vector3d toPixel = f.arc ? job.prepared[k].localVector(arcRay)
                                          : Eigen::Vector3d(s.base + a * s.stepCol + b * s.stepRow);
    if (!job.prepared[k].intersectLocal(s.fixed, toPixel, interval)) continue;
    const double enter = std::max(interval.enter, 0.0);
    const double exit = std::min(interval.exit, 1.0);
    if (exit > enter) ray += s.density * (exit - enter);
  }
  // t runs over [0, 1] from source to pixel: scale by the ray's length.
  return ray * (f.arc ? arcRay.norm() : (f.pixel00 - f.source + a * f.u + b * f.v).norm());
}

void projectRow(const RowJob& job, std::vector<std::int64_t>& active,
                std::vector<std::int64_t>& covering) {
  active.clear();
  for (std::int64_t k = 0; k < job.shapeCount; ++k)
    if (job.shapes[k].row0 <= job.row && job.row <= job.shapes[k].row1) active.push_back(k);
  const std::vector<double>& offsets = *job.offsets;
  const double rayCount = static_cast<double>(offsets.size() * offsets.size());
  for (std::int64_t col = 0; col < job.cols; ++col) {
    covering.clear();
    for (std::int64_t k : active)
      if (job.shapes[k].col0 <= col && col <= job.shapes[k].col1) covering.push_back(k);
    if (covering.empty()) {
      job.out[col] = 0.0f;
      continue;
    }
    double sum = 0.0;
    for (double rowOffset : offsets) {
      const double b = static_cast<double>(job.row) + rowOffset;
      for (double colOffset : offsets)
        sum += subRayIntegral(job, covering, static_cast<double>(col) + colOffset, b);
    }
    job.out[col] = static_cast<float>(sum / rayCount);
  }
}

}  // namespace

ProjectionStack projectPhantom(const Phantom& phantom, const Geometry& geometry,
                               const AnalyticProjectionOptions& options,
                               const JobContext* context) {
  const int n = options.supersample;
  if (n < 1 || n > AnalyticProjectionOptions::kMaxSupersample)
    throw ParameterError(
        "supersample", "must be 1.." + std::to_string(AnalyticProjectionOptions::kMaxSupersample) +
                           ", got " + std::to_string(n));
  geometry.validate();
  ProjectionStack stack(geometry);
  const std::int64_t views = stack.viewCount();
  const std::int64_t rows = stack.rows();
  const std::int64_t cols = stack.cols();
  const std::vector<PreparedShape>& prepared = phantom.preparedShapes();
  const auto shapeCount = static_cast<std::int64_t>(prepared.size());

  std::vector<double> offsets(static_cast<std::size_t>(n));
  for (int k = 0; k < n; ++k) offsets[static_cast<std::size_t>(k)] = (k + 0.5) / n - 0.5;

  std::vector<ViewFrame> frames(static_cast<std::size_t>(views));
  std::vector<ViewShape> table(static_cast<std::size_t>(views * shapeCount));
#pragma omp parallel for schedule(static)
  for (std::int64_t view = 0; view < views; ++view) {
    frames[static_cast<std::size_t>(view)] = makeFrame(geometry, view);
    for (std::int64_t k = 0; k < shapeCount; ++k)
      table[static_cast<std::size_t>(view * shapeCount + k)] =
          prepareViewShape(prepared[static_cast<std::size_t>(k)],
                           frames[static_cast<std::size_t>(view)], cols, rows);
  }

  const std::int64_t viewsPerBlock = std::max<std::int64_t>(1, kRowsPerBlock / rows);
  for (std::int64_t first = 0; first < views; first += viewsPerBlock) {
    if (context) context->throwIfCancelled();
    const std::int64_t last = std::min(views, first + viewsPerBlock);
    const std::int64_t blockRows = (last - first) * rows;
#pragma omp parallel
    {
      std::vector<std::int64_t> active, covering;
      active.reserve(static_cast<std::size_t>(shapeCount));
      covering.reserve(static_cast<std::size_t>(shapeCount));
#pragma omp for schedule(dynamic, 1)
      for (std::int64_t i = 0; i < blockRows; ++i) {
        const std::int64_t view = first + i / rows;
        const std::int64_t row = i % rows;
        const RowJob job{&frames[static_cast<std::size_t>(view)],
                         table.data() + view * shapeCount,
                         prepared.data(),
                         shapeCount,
                         cols,
                         row,
                         &offsets,
                         stack.data() + stack.index(view, row, 0)};
        projectRow(job, active, covering);
      }
    }
    if (context)
      context->reportProgress("project phantom",
                              static_cast<double>(last) / static_cast<double>(views));
  }
  return stack;
}

}  // namespace tomowb::phantom
