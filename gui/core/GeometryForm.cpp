#include "gui/core/GeometryForm.h"

#include <array>
#include <cmath>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <numbers>
#include <utility>

#include "gui/core/TiltAngles.h"
#include "recon/core/Error.h"
#include "recon/io/AtomicFileWriter.h"
#include "recon/io/GeometryJson.h"
#include "recon/io/JsonFields.h"

namespace tomowb::gui {

namespace {

constexpr double kPi = std::numbers::pi;
constexpr double kDegToRad = kPi / 180.0;
constexpr double kRecogniseToleranceMm = 1e-6;

constexpr std::array<std::pair<ScanType, const char*>, 6> kScanNames{{
    {ScanType::CircularCone, "circular-cone"},
    {ScanType::ShortScan, "short-scan"},
    {ScanType::HelicalCone, "helical-cone"},
    {ScanType::Parallel, "parallel"},
    {ScanType::TiltSeries, "tilt-series"},
    {ScanType::PerView, "per-view"},
}};

double sense(const GeometryForm& f) {
  return f.clockwise ? -1.0 : 1.0;
}

void requireViews(const GeometryForm& f, std::int64_t minimum) {
  if (f.viewCount < minimum)
    throw ParameterError("viewCount", "must be >= " + std::to_string(minimum) + ", got " +
                                          std::to_string(f.viewCount));
}

// Evenly over `rangeRad` in the form's sense, the last angle not repeated.
std::vector<double> evenAnglesRad(const GeometryForm& f, double rangeRad, bool fullTurn) {
  requireViews(f, 1);
  // The builder's own full-scan angles, so that the form reproduces them bit for bit.
  if (fullTurn && !f.clockwise) return fullScanAnglesRad(f.viewCount, f.startAngleDeg * kDegToRad);
  std::vector<double> angles(static_cast<std::size_t>(f.viewCount));
  for (std::int64_t i = 0; i < f.viewCount; ++i)
    angles[static_cast<std::size_t>(i)] =
        f.startAngleDeg * kDegToRad +
        sense(f) * rangeRad * static_cast<double>(i) / static_cast<double>(f.viewCount);
  return angles;
}

// Azimuth of each view's source (or of the source side, for parallel beams), unwrapped.
std::vector<double> viewAzimuthsRad(const Geometry& g) {
  return g.sourceAzimuthsRad();
}

}  // namespace

std::string_view toString(ScanType type) {
  for (const auto& [t, name] : kScanNames)
    if (t == type) return name;
  return "per-view";
}

std::optional<ScanType> scanTypeFromString(std::string_view name) {
  for (const auto& [t, n] : kScanNames)
    if (name == n) return t;
  return std::nullopt;
}

std::string displayName(ScanType type) {
  switch (type) {
    case ScanType::CircularCone:
      return "Circular cone beam";
    case ScanType::ShortScan:
      return "Short scan (cone beam, pi + fan)";
    case ScanType::HelicalCone:
      return "Helical cone beam";
    case ScanType::Parallel:
      return "Parallel beam";
    case ScanType::TiltSeries:
      return "ET tilt series";
    case ScanType::PerView:
      return "Per-view vectors / matrices (import only)";
  }
  return "?";
}

DetectorParams detectorParams(const GeometryForm& f) {
  DetectorParams d;
  d.cols = f.cols;
  d.rows = f.rows;
  d.pitchUMm = f.pitchUMm;
  d.pitchVMm = f.pitchVMm;
  d.offsetUMm = f.offsetUMm;
  d.offsetVMm = f.offsetVMm;
  d.tiltRad = f.tiltDeg * kDegToRad;
  d.slantRad = f.slantDeg * kDegToRad;
  d.inPlaneRotationRad = f.inPlaneRotationDeg * kDegToRad;
  d.skewRad = f.skewDeg * kDegToRad;
  d.surface = f.surface;
  return d;
}

std::vector<double> formAnglesRad(const GeometryForm& f) {
  switch (f.scanType) {
    case ScanType::CircularCone:
    case ScanType::Parallel:
      if (!(f.rangeDeg > 0) || !std::isfinite(f.rangeDeg))
        throw ParameterError("rangeDeg",
                             "must be finite and > 0, got " + std::to_string(f.rangeDeg));
      return evenAnglesRad(f, f.rangeDeg * kDegToRad, f.rangeDeg == 360.0);
    case ScanType::ShortScan: {
      requireViews(f, 2);
      CircularConeParams c;
      c.sourceToIsocentreMm = f.sourceToIsocentreMm;
      c.sourceToDetectorMm = f.sourceToDetectorMm;
      c.detector = detectorParams(f);
      const double start = f.startAngleDeg * kDegToRad;
      std::vector<double> angles =
          shortScanAnglesRad(c, f.viewCount, start, f.shortScanExtraDeg * kDegToRad);
      if (f.clockwise)
        for (double& a : angles) a = start - (a - start);
      return angles;
    }
    case ScanType::HelicalCone:
      if (!(f.turns > 0) || !std::isfinite(f.turns))
        throw ParameterError("turns", "must be finite and > 0, got " + std::to_string(f.turns));
      return evenAnglesRad(f, 2.0 * kPi * f.turns, false);
    case ScanType::TiltSeries:
    case ScanType::PerView:
      break;
  }
  throw ParameterError("scanType", "has no view angles: " + std::string(toString(f.scanType)));
}

CircularConeParams circularConeParams(const GeometryForm& f) {
  CircularConeParams c;
  c.sourceToIsocentreMm = f.sourceToIsocentreMm;
  c.sourceToDetectorMm = f.sourceToDetectorMm;
  c.detector = detectorParams(f);
  c.anglesRad = formAnglesRad(f);
  return c;
}

HelicalConeParams helicalConeParams(const GeometryForm& f) {
  HelicalConeParams h;
  h.circular = circularConeParams(f);
  h.pitch = f.helicalPitch;
  h.startZMm = f.startZMm;
  return h;
}

ParallelBeamParams parallelBeamParams(const GeometryForm& f) {
  ParallelBeamParams p;
  p.detector = detectorParams(f);
  p.anglesRad = formAnglesRad(f);
  return p;
}

TiltSeriesParams tiltSeriesParams(const GeometryForm& f) {
  TiltSeriesParams t;
  t.cols = f.cols;
  t.rows = f.rows;
  t.pixelSizeMm = f.pixelSizeMm;
  if (!(f.tiltStepDeg > 0))
    throw ParameterError("tiltStepDeg", "must be > 0, got " + std::to_string(f.tiltStepDeg));
  if (f.lastTiltDeg < f.firstTiltDeg)
    throw ParameterError("lastTiltDeg", "must be >= firstTiltDeg (" +
                                            std::to_string(f.firstTiltDeg) + "), got " +
                                            std::to_string(f.lastTiltDeg));
  // The same count as the JSON reader's firstTiltDeg/lastTiltDeg/tiltStepDeg.
  const double count = std::floor((f.lastTiltDeg - f.firstTiltDeg) / f.tiltStepDeg + 1e-9) + 1.0;
  if (count > double(1 << 20)) throw ParameterError("tiltStepDeg", "gives more than 2^20 tilts");
  for (std::int64_t i = 0; i < std::int64_t(count); ++i)
    t.tiltAnglesRad.push_back((f.firstTiltDeg + double(i) * f.tiltStepDeg) * kDegToRad);
  t.tiltAxisAngleRad = f.tiltAxisAngleDeg * kDegToRad;
  t.tiltAxisShiftPixels = f.tiltAxisShiftPixels;
  return t;
}

Geometry buildGeometry(const GeometryForm& f) {
  if (f.scanType != ScanType::TiltSeries && (f.cols < 1 || f.rows < 1))
    throw ParameterError(f.cols < 1 ? "cols" : "rows", "must be >= 1");
  if (std::abs(f.skewDeg) >= 90.0)
    throw ParameterError("skewDeg", "must be within (-90, 90), got " + std::to_string(f.skewDeg));
  switch (f.scanType) {
    case ScanType::CircularCone:
    case ScanType::ShortScan:
      return circularConeBeam(circularConeParams(f));
    case ScanType::HelicalCone:
      return helicalConeBeam(helicalConeParams(f));
    case ScanType::Parallel:
      return parallelBeam(parallelBeamParams(f));
    case ScanType::TiltSeries:
      return tiltSeries(tiltSeriesParams(f));
    case ScanType::PerView:
      break;
  }
  throw ParameterError("scanType", "a per-view geometry is imported, not built from the form");
}

double maxGeometryDifference(const Geometry& a, const Geometry& b) {
  if (a.beam() != b.beam() || !(a.detector() == b.detector()) || a.viewCount() != b.viewCount())
    return std::numeric_limits<double>::infinity();
  double worst = 0;
  for (std::int64_t i = 0; i < a.viewCount(); ++i) {
    const View &x = a.view(i), &y = b.view(i);
    if (x.surface != y.surface) return std::numeric_limits<double>::infinity();
    for (const double d : {(x.source - y.source).cwiseAbs().maxCoeff(),
                           (x.rayDirection - y.rayDirection).cwiseAbs().maxCoeff(),
                           (x.detectorCentre - y.detectorCentre).cwiseAbs().maxCoeff(),
                           (x.u - y.u).cwiseAbs().maxCoeff(), (x.v - y.v).cwiseAbs().maxCoeff()})
      worst = std::max(worst, std::isfinite(d) ? d : std::numeric_limits<double>::infinity());
  }
  return worst;
}

namespace {

// A tilt series as tiltSeries() builds it, with evenly spaced tilts: the tilts from the rays
// (TiltAngles.h), the tilt-axis angle and shift from view 0's v and detector centre. Compared at
// a thousandth of a pixel: ET pixels (nanometres) are far below kRecogniseToleranceMm.
std::optional<GeometryForm> recogniseTiltSeries(const Geometry& g) {
  if (!isTiltSeries(g) || g.viewCount() < 2) return std::nullopt;
  const std::vector<double> tilts = fitTiltAxis(g).tiltsRad;
  const View& first = g.view(0);
  const double pixel = first.u.norm();
  if (!(pixel > 0)) return std::nullopt;
  const Eigen::Vector3d eu = Eigen::Vector3d::UnitZ().cross(-first.rayDirection).normalized();
  const Eigen::Vector3d v = first.v.normalized();
  GeometryForm f;
  f.scanType = ScanType::TiltSeries;
  f.cols = g.detector().cols;
  f.rows = g.detector().rows;
  f.pixelSizeMm = pixel;
  f.firstTiltDeg = tilts.front() / kDegToRad;
  f.tiltStepDeg = (tilts[1] - tilts[0]) / kDegToRad;
  f.lastTiltDeg = f.firstTiltDeg + f.tiltStepDeg * static_cast<double>(g.viewCount() - 1);
  f.tiltAxisAngleDeg = std::atan2(v.dot(eu), v.z()) / kDegToRad;
  f.tiltAxisShiftPixels = -first.detectorCentre.dot(eu) / pixel;
  try {
    const Geometry rebuilt = buildGeometry(f);
    if (rebuilt.viewCount() == g.viewCount() &&
        maxGeometryDifference(rebuilt, g) < std::min(kRecogniseToleranceMm, 1e-3 * pixel))
      return f;
  } catch (const Error&) {
  }
  return std::nullopt;
}

// The detector's surface, and for an arc its distance and offsets as the builder takes them: the
// radius in the plane, the arc length by which the detector is turned about the source, the shift
// along the axis (a flat detector's were read already).
void readArcDetector(const View& first, const Eigen::Vector3d& towards, const Eigen::Vector3d& eu,
                     GeometryForm& f) {
  f.surface = first.surface;
  if (f.surface != DetectorSurface::Cylinder) return;
  const Eigen::Vector3d toCentre = first.detectorCentre - first.source;
  const Eigen::Vector2d inPlane(toCentre.x(), toCentre.y());
  f.sourceToDetectorMm = inPlane.norm();
  f.offsetUMm =
      f.sourceToDetectorMm * std::atan2(inPlane.dot(eu.head<2>()), -inPlane.dot(towards.head<2>()));
  f.offsetVMm = toCentre.z();
}

}  // namespace

std::optional<GeometryForm> recogniseGeometry(const Geometry& g) {
  if (g.viewCount() < 2) return std::nullopt;
  // A short single-axis parallel scan reads best as the tilt series it is.
  if (std::optional<GeometryForm> tilt = recogniseTiltSeries(g)) return tilt;
  const std::vector<double> azimuths = viewAzimuthsRad(g);
  const double step = azimuths[1] - azimuths[0];
  if (std::abs(step) < 1e-12) return std::nullopt;
  const View& first = g.view(0);
  const Eigen::Vector3d towards(std::cos(azimuths[0]), std::sin(azimuths[0]), 0.0);
  const Eigen::Vector3d eu(-towards.y(), towards.x(), 0.0);

  GeometryForm f;
  f.viewCount = g.viewCount();
  f.startAngleDeg = azimuths[0] / kDegToRad;
  f.clockwise = step < 0;
  f.cols = g.detector().cols;
  f.rows = g.detector().rows;
  f.pitchUMm = first.u.norm();
  f.pitchVMm = first.v.norm();
  const double angularSpanRad = std::abs(step) * static_cast<double>(g.viewCount());
  f.rangeDeg = angularSpanRad / kDegToRad;
  if (std::abs(f.rangeDeg - 360.0) < 1e-7) f.rangeDeg = 360.0;

  std::vector<GeometryForm> candidates;
  if (g.beam() == BeamKind::Parallel) {
    f.scanType = ScanType::Parallel;
    f.offsetUMm = first.detectorCentre.dot(eu);
    f.offsetVMm = first.detectorCentre.z();
    candidates.push_back(f);
  } else {
    const Eigen::Vector3d& s = first.source;
    f.sourceToIsocentreMm = std::hypot(s.x(), s.y());
    const Eigen::Vector3d centre = first.detectorCentre - Eigen::Vector3d(0, 0, s.z());
    f.sourceToDetectorMm = f.sourceToIsocentreMm - centre.dot(towards);
    f.offsetUMm = centre.dot(eu);
    f.offsetVMm = centre.z();
    readArcDetector(first, towards, eu, f);
    const double riseMm = g.view(1).source.z() - s.z();
    if (std::abs(riseMm) > kRecogniseToleranceMm) {
      f.scanType = ScanType::HelicalCone;
      f.turns = angularSpanRad / (2.0 * kPi);
      f.startZMm = s.z();
      const double feedPerTurnMm = riseMm * 2.0 * kPi / step;
      f.helicalPitch = feedPerTurnMm / (static_cast<double>(f.rows) * f.pitchVMm *
                                        f.sourceToIsocentreMm / f.sourceToDetectorMm);
      candidates.push_back(f);
    } else {
      GeometryForm shortScan = f;
      shortScan.scanType = ScanType::ShortScan;
      shortScan.shortScanExtraDeg = 0.0;
      try {
        const double spanRad = std::abs(step) * static_cast<double>(g.viewCount() - 1);
        const double fanRad = fullFanAngleRad(
            circularConeParams(GeometryForm{.scanType = ScanType::CircularCone,
                                            .sourceToIsocentreMm = f.sourceToIsocentreMm,
                                            .sourceToDetectorMm = f.sourceToDetectorMm,
                                            .viewCount = 1,
                                            .cols = f.cols,
                                            .pitchUMm = f.pitchUMm,
                                            .offsetUMm = f.offsetUMm,
                                            .surface = f.surface}));
        shortScan.shortScanExtraDeg = (spanRad - kPi - fanRad) / kDegToRad;
        if (std::abs(shortScan.shortScanExtraDeg) < 1e-7) shortScan.shortScanExtraDeg = 0.0;
      } catch (const Error&) {
      }
      f.scanType = ScanType::CircularCone;
      // A full turn reads best as a circular scan; an arc just over pi + fan as a short scan.
      if (f.rangeDeg == 360.0 || std::abs(shortScan.shortScanExtraDeg) > 10.0) {
        candidates.push_back(f);
        candidates.push_back(shortScan);
      } else {
        candidates.push_back(shortScan);
        candidates.push_back(f);
      }
    }
  }
  for (const GeometryForm& candidate : candidates) {
    try {
      if (maxGeometryDifference(buildGeometry(candidate), g) < kRecogniseToleranceMm)
        return candidate;
    } catch (const Error&) {
    }
  }
  return std::nullopt;
}

nlohmann::json formToJson(const GeometryForm& f) {
  return nlohmann::json{{"scanType", std::string(toString(f.scanType))},
                        {"sourceToIsocentreMm", f.sourceToIsocentreMm},
                        {"sourceToDetectorMm", f.sourceToDetectorMm},
                        {"viewCount", f.viewCount},
                        {"startAngleDeg", f.startAngleDeg},
                        {"rangeDeg", f.rangeDeg},
                        {"shortScanExtraDeg", f.shortScanExtraDeg},
                        {"clockwise", f.clockwise},
                        {"turns", f.turns},
                        {"helicalPitch", f.helicalPitch},
                        {"startZMm", f.startZMm},
                        {"cols", f.cols},
                        {"rows", f.rows},
                        {"pitchUMm", f.pitchUMm},
                        {"pitchVMm", f.pitchVMm},
                        {"offsetUMm", f.offsetUMm},
                        {"offsetVMm", f.offsetVMm},
                        {"tiltDeg", f.tiltDeg},
                        {"slantDeg", f.slantDeg},
                        {"inPlaneRotationDeg", f.inPlaneRotationDeg},
                        {"skewDeg", f.skewDeg},
                        {"detectorSurface", toString(f.surface)},
                        {"pixelSizeMm", f.pixelSizeMm},
                        {"firstTiltDeg", f.firstTiltDeg},
                        {"lastTiltDeg", f.lastTiltDeg},
                        {"tiltStepDeg", f.tiltStepDeg},
                        {"tiltAxisAngleDeg", f.tiltAxisAngleDeg},
                        {"tiltAxisShiftPixels", f.tiltAxisShiftPixels}};
}

GeometryForm formFromJson(const nlohmann::json& editor, const std::filesystem::path& source) {
  const io::JsonFields e(editor, source, "editor");
  GeometryForm f;
  const std::string type = e.string("scanType");
  const auto scanType = scanTypeFromString(type);
  if (!scanType)
    throw FormatError(source, e.fieldName("scanType"), "unknown scan type '" + type + "'");
  f.scanType = *scanType;
  auto number = [&](const char* key, double& value) { value = e.finiteNumber(key, value); };
  number("sourceToIsocentreMm", f.sourceToIsocentreMm);
  number("sourceToDetectorMm", f.sourceToDetectorMm);
  number("startAngleDeg", f.startAngleDeg);
  number("rangeDeg", f.rangeDeg);
  number("shortScanExtraDeg", f.shortScanExtraDeg);
  number("turns", f.turns);
  number("helicalPitch", f.helicalPitch);
  number("startZMm", f.startZMm);
  number("pitchUMm", f.pitchUMm);
  number("pitchVMm", f.pitchVMm);
  number("offsetUMm", f.offsetUMm);
  number("offsetVMm", f.offsetVMm);
  number("tiltDeg", f.tiltDeg);
  number("slantDeg", f.slantDeg);
  number("inPlaneRotationDeg", f.inPlaneRotationDeg);
  number("skewDeg", f.skewDeg);
  number("pixelSizeMm", f.pixelSizeMm);
  number("firstTiltDeg", f.firstTiltDeg);
  number("lastTiltDeg", f.lastTiltDeg);
  number("tiltStepDeg", f.tiltStepDeg);
  number("tiltAxisAngleDeg", f.tiltAxisAngleDeg);
  number("tiltAxisShiftPixels", f.tiltAxisShiftPixels);
  if (e.has("viewCount")) f.viewCount = e.axisLength("viewCount");
  if (e.has("cols")) f.cols = e.axisLength("cols");
  if (e.has("rows")) f.rows = e.axisLength("rows");
  if (e.has("detectorSurface")) {
    const std::string word = e.string("detectorSurface");
    const std::optional<DetectorSurface> surface = detectorSurfaceFromString(word);
    if (!surface || word == "arc")
      throw FormatError(source, e.fieldName("detectorSurface"),
                        "must be 'flat' or 'cylinder', got '" + word + "'");
    f.surface = *surface;
  }
  if (e.has("clockwise")) {
    if (!e.get("clockwise").is_boolean())
      throw FormatError(source, e.fieldName("clockwise"), "must be true or false");
    f.clockwise = e.get("clockwise").get<bool>();
  }
  return f;
}

void exportGeometryJson(const std::filesystem::path& path, const Geometry& geometry,
                        const std::optional<GeometryForm>& form) {
  nlohmann::json j = geometryToJson(geometry);
  if (form && form->scanType != ScanType::PerView) j["editor"] = formToJson(*form);
  io::AtomicFileWriter out(path);
  out.write(j.dump(2) + "\n");
  out.commit();
}

ImportedGeometry importGeometryJson(const std::filesystem::path& path) {
  ImportedGeometry imported{loadGeometry(path), std::nullopt};
  // loadGeometry read and checked the file (size included); read it again for the editor block.
  std::ifstream in(path, std::ios::binary);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const nlohmann::json j = io::parseJsonText(text, path);
  if (j.is_object() && j.contains("editor")) {
    const GeometryForm form = formFromJson(j["editor"], path);
    try {
      // The views are the authority: a block that no longer matches them (edited by hand) is
      // not trusted.
      if (maxGeometryDifference(buildGeometry(form), imported.geometry) < kRecogniseToleranceMm)
        imported.form = form;
    } catch (const Error&) {
    }
  }
  if (!imported.form) imported.form = recogniseGeometry(imported.geometry);
  return imported;
}

}  // namespace tomowb::gui
