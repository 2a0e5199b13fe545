#include "recon/io/TiltSeriesFiles.h"

#include <Eigen/Geometry>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numbers>
#include <optional>

#include "recon/core/Error.h"
#include "recon/geometry/ScanBuilders.h"
#include "recon/io/MrcIo.h"
#include "recon/io/TiffIo.h"

namespace tomowb::io {

namespace {

constexpr double kRadPerDeg = std::numbers::pi / 180.0;
// Departures of an .xf matrix from a rotation that deserve a warning (reference/sirt-et.md §8).
constexpr double kXfTolerance = 0.01;

std::string lowerExtension(const std::filesystem::path& path) {
  std::string ext = path.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return ext;
}

std::string numberText(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%.4g", v);
  return text;
}

// Anything at the path, a dangling link included. A companion that is not a regular file (a
// FIFO, a link to /dev/zero, a folder) is taken, so that reading it fails naming it: ignoring it
// would silently use the stack header's angles instead (hostile-input review, D21).
bool isPresent(const std::filesystem::path& path) {
  std::error_code ec;
  return std::filesystem::exists(std::filesystem::symlink_status(path, ec));
}

std::filesystem::path sibling(const std::filesystem::path& stack, const char* extension) {
  return stack.parent_path() / (stack.stem().string() + extension);
}

// What the stack file says about itself before its pixels are read.
struct StackInfo {
  std::int64_t cols = 0, rows = 0, views = 0;
  double pixelSizeMm = 0;  // 0: unknown
  std::optional<std::vector<double>> tiltAnglesDeg;
  bool isMrc = true;
};

StackInfo inspectStack(const std::filesystem::path& stack, std::vector<std::string>& warnings) {
  StackInfo info;
  if (isMrcPath(stack)) {
    const MrcHeader h = readMrcHeader(stack);
    warnings.insert(warnings.end(), h.warnings.begin(), h.warnings.end());
    info.cols = h.nx;
    info.rows = h.ny;
    info.views = h.nz;
    info.tiltAnglesDeg = h.tiltAnglesDeg;
    if (h.hasPixelSpacing()) {
      info.pixelSizeMm = h.spacingMm.x();
      if (std::abs(h.spacingMm.y() / h.spacingMm.x() - 1) > 1e-3)
        warnings.push_back(stack.string() + ": pixel spacing differs in X (" +
                           numberText(h.spacingMm.x() * 1e7) + " A) and Y (" +
                           numberText(h.spacingMm.y() * 1e7) + " A); using X for both");
    }
    return info;
  }
  const std::string ext = lowerExtension(stack);
  if (ext == ".tif" || ext == ".tiff") {
#if TOMOWB_HAVE_TIFF
    const TiffInfo t = readTiffInfo(stack);
    info.isMrc = false;
    info.cols = t.width;
    info.rows = t.height;
    info.views = t.pages;
    if (t.hasOurMetadata) info.pixelSizeMm = t.voxelSizeMm.x();
    return info;
#else
    throw ParameterError("stack", "'" + stack.string() +
                                      "': this build has no TIFF support (libtiff was not found)");
#endif
  }
  throw ParameterError("stack", "'" + stack.string() + "': unknown tilt-series stack type '" + ext +
                                    "'; use .mrc, .st, .ali, .mrcs, .preali or .tif");
}

std::vector<double> tiltAnglesDeg(const TiltSeriesSources& sources, const StackInfo& info) {
  if (!sources.tiltAngles.empty()) {
    std::vector<double> angles = readTiltAnglesDeg(sources.tiltAngles);
    requireViewCount(sources.tiltAngles, angles.size(), sources.stack, info.views);
    return angles;
  }
  if (info.tiltAnglesDeg) return *info.tiltAnglesDeg;
  throw FormatError(sources.stack, "tilt angles",
                    "none found: no tilt-angle file was given (looked for " +
                        sibling(sources.stack, ".tlt").string() + " and " +
                        sibling(sources.stack, ".rawtlt").string() +
                        ") and the stack has no SerialEM extended header with tilt angles");
}

// One warning per kind of departure, naming how many views and the worst one.
void warnAboutXf(const std::filesystem::path& path, const std::vector<XfTransform>& transforms,
                 std::vector<std::string>& warnings) {
  struct Worst {
    std::size_t count = 0, view = 0;
    double amount = 0, value = 0;
    void consider(std::size_t k, double deviation, double shown) {
      if (deviation <= kXfTolerance) return;
      ++count;
      if (deviation > amount) {
        amount = deviation;
        view = k;
        value = shown;
      }
    }
  } magnification, stretch, skew;
  std::size_t mirrored = 0;
  for (std::size_t k = 0; k < transforms.size(); ++k) {
    const XfDecomposition d = decompose(transforms[k].a);
    magnification.consider(k, std::abs(d.magnification - 1), d.magnification);
    stretch.consider(k, d.stretch - 1, d.stretch);
    skew.consider(k, std::abs(d.skewRad), d.skewRad / kRadPerDeg);
    if (d.mirrored) ++mirrored;
  }
  const std::string total = std::to_string(transforms.size());
  auto report = [&](const Worst& w, const std::string& what, const std::string& unit) {
    if (!w.count) return;
    warnings.push_back(path.string() + ": " + std::to_string(w.count) + " of " + total +
                       " views have " + what + " beyond 1% (worst: view " + std::to_string(w.view) +
                       ", " + numberText(w.value) + unit +
                       "); the geometry follows them, but check the alignment");
  };
  report(magnification, "a magnification", "");
  report(stretch, "a stretch", "");
  report(skew, "a skew", " degrees");
  if (mirrored)
    warnings.push_back(path.string() + ": " + std::to_string(mirrored) + " of " + total +
                       " transforms mirror the image (negative determinant)");
}

}  // namespace

void applyAlignment(Geometry& geometry, const std::vector<XfTransform>& transforms) {
  if (static_cast<std::int64_t>(transforms.size()) != geometry.viewCount())
    throw ParameterError("alignment", std::to_string(transforms.size()) + " transforms for " +
                                          std::to_string(geometry.viewCount()) + " views");
  for (std::int64_t k = 0; k < geometry.viewCount(); ++k) {
    const XfTransform& t = transforms[static_cast<std::size_t>(k)];
    View& view = geometry.view(k);
    const Eigen::Vector3d alignedU = view.u, alignedV = view.v;
    const Eigen::Vector2d shift = t.shiftAboutGeometricCentre();
    view.u = t.a(0, 0) * alignedU + t.a(1, 0) * alignedV;
    view.v = t.a(0, 1) * alignedU + t.a(1, 1) * alignedV;
    view.detectorCentre += shift.x() * alignedU + shift.y() * alignedV;
  }
}

void applyXAxisTilts(Geometry& geometry, const std::vector<double>& xTiltsRad) {
  if (static_cast<std::int64_t>(xTiltsRad.size()) != geometry.viewCount())
    throw ParameterError("xAxisTilts", std::to_string(xTiltsRad.size()) + " angles for " +
                                           std::to_string(geometry.viewCount()) + " views");
  for (std::int64_t k = 0; k < geometry.viewCount(); ++k) {
    const double angle = xTiltsRad[static_cast<std::size_t>(k)];
    if (angle == 0) continue;
    const Eigen::Matrix3d r = Eigen::AngleAxisd(angle, Eigen::Vector3d::UnitX()).toRotationMatrix();
    View& view = geometry.view(k);
    for (Eigen::Vector3d* vector :
         {&view.source, &view.rayDirection, &view.detectorCentre, &view.u, &view.v})
      *vector = r * *vector;
  }
}

TiltSeriesSources findCompanionFiles(const std::filesystem::path& stack) {
  TiltSeriesSources sources;
  sources.stack = stack;
  for (const char* extension : {".tlt", ".rawtlt"}) {
    if (isPresent(sibling(stack, extension))) {
      sources.tiltAngles = sibling(stack, extension);
      break;
    }
  }
  if (isPresent(sibling(stack, ".xf"))) sources.alignment = sibling(stack, ".xf");
  if (isPresent(sibling(stack, ".xtilt"))) sources.xAxisTilts = sibling(stack, ".xtilt");
  return sources;
}

TiltSeriesDescription describeTiltSeries(const TiltSeriesSources& sources,
                                         const TiltSeriesOptions& options) {
  if (sources.stack.empty()) throw ParameterError("stack", "no tilt-series stack given");
  for (double value : {options.pixelSizeMm, options.tiltAxisAngleRad, options.tiltAxisShiftPixels,
                       options.xAxisTiltRad})
    if (!std::isfinite(value)) throw ParameterError("tiltSeriesOptions", "values must be finite");
  if (options.pixelSizeMm < 0)
    throw ParameterError("pixelSizeMm", "must be > 0, or 0 for the header's pixel size");

  std::vector<std::string> warnings;
  const StackInfo info = inspectStack(sources.stack, warnings);
  TiltSeriesParams params;
  params.cols = info.cols;
  params.rows = info.rows;
  params.tiltAxisAngleRad = options.tiltAxisAngleRad;
  params.tiltAxisShiftPixels = options.tiltAxisShiftPixels;
  if (options.pixelSizeMm > 0) {
    params.pixelSizeMm = options.pixelSizeMm;
    if (info.pixelSizeMm > 0 && std::abs(info.pixelSizeMm / options.pixelSizeMm - 1) > 0.01)
      warnings.push_back("pixel size " + numberText(options.pixelSizeMm * 1e7) +
                         " A given; the header of " + sources.stack.string() + " says " +
                         numberText(info.pixelSizeMm * 1e7) + " A");
  } else if (info.pixelSizeMm > 0) {
    params.pixelSizeMm = info.pixelSizeMm;
  } else {
    params.pixelSizeMm = 1.0;
    warnings.push_back(sources.stack.string() +
                       ": pixel size unknown (not in the header): using 1 mm per pixel, so "
                       "lengths are in pixels; set the pixel size to get millimetres");
  }
  for (double deg : tiltAnglesDeg(sources, info)) params.tiltAnglesRad.push_back(deg * kRadPerDeg);
  Geometry geometry = tiltSeries(params);

  if (!sources.alignment.empty()) {
    const std::vector<XfTransform> transforms = readXf(sources.alignment);
    requireViewCount(sources.alignment, transforms.size(), sources.stack, info.views);
    warnAboutXf(sources.alignment, transforms, warnings);
    applyAlignment(geometry, transforms);
  }
  std::vector<double> xTiltsRad(static_cast<std::size_t>(info.views), options.xAxisTiltRad);
  if (!sources.xAxisTilts.empty()) {
    const std::vector<double> xTilts = readXAxisTiltsDeg(sources.xAxisTilts);
    requireViewCount(sources.xAxisTilts, xTilts.size(), sources.stack, info.views);
    for (std::size_t k = 0; k < xTilts.size(); ++k) xTiltsRad[k] += xTilts[k] * kRadPerDeg;
  }
  applyXAxisTilts(geometry, xTiltsRad);

  TiltSeriesDescription out;
  out.geometry = std::move(geometry);
  out.cols = info.cols;
  out.rows = info.rows;
  out.views = info.views;
  out.isMrc = info.isMrc;
  out.warnings = std::move(warnings);
  return out;
}

LoadedTiltSeries loadTiltSeries(const TiltSeriesSources& sources,
                                const TiltSeriesOptions& options) {
  TiltSeriesDescription d = describeTiltSeries(sources, options);
  LoadedTiltSeries loaded;
#if TOMOWB_HAVE_TIFF
  loaded.projections = d.isMrc ? readMrcProjections(sources.stack, std::move(d.geometry))
                               : readTiffProjections(sources.stack, std::move(d.geometry));
#else
  loaded.projections = readMrcProjections(sources.stack, std::move(d.geometry));
#endif
  loaded.warnings = std::move(d.warnings);
  return loaded;
}

void writeTiltSeries(const std::filesystem::path& mrcPath, const ProjectionStack& projections,
                     const std::vector<double>& tiltAnglesRad) {
  if (static_cast<std::int64_t>(tiltAnglesRad.size()) != projections.viewCount())
    throw ParameterError("tiltAnglesRad", std::to_string(tiltAnglesRad.size()) + " angles for " +
                                              std::to_string(projections.viewCount()) + " views");
  MrcWriteOptions options;
  std::vector<double> degrees;
  for (std::size_t k = 0; k < tiltAnglesRad.size(); ++k) {
    if (!std::isfinite(tiltAnglesRad[k]))
      throw ParameterError("tiltAnglesRad[" + std::to_string(k) + "]", "is not finite");
    degrees.push_back(tiltAnglesRad[k] / kRadPerDeg);
  }
  // The SerialEM header holds +-327 degrees; beyond that the .tlt alone carries the angles.
  if (std::all_of(degrees.begin(), degrees.end(), [](double d) { return std::abs(d) <= 327.0; }))
    options.tiltAnglesDeg = degrees;
  writeMrcStack(mrcPath, projections, options);
  writeTiltAnglesDeg(sibling(mrcPath, ".tlt"), degrees);
}

}  // namespace tomowb::io
