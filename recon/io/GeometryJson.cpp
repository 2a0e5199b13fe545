#include "recon/io/GeometryJson.h"

#include <cmath>
#include <nlohmann/json.hpp>
#include <numbers>
#include <sstream>
#include <string>

#include "recon/core/Error.h"
#include "recon/geometry/ScanBuilders.h"
#include "recon/io/AtomicFileWriter.h"
#include "recon/io/InputFile.h"
#include "recon/io/JsonFields.h"

namespace tomowb {

namespace {

using nlohmann::json;
constexpr double kDegToRad = std::numbers::pi / 180.0;
constexpr std::uint64_t kMaxGeometryFileBytes = 512ull << 20;

json vectorJson(const Eigen::Vector3d& v) {
  return json::array({v.x(), v.y(), v.z()});
}

using io::JsonFields;

json viewJson(BeamKind beam, const View& v) {
  json view;
  if (beam == BeamKind::Cone)
    view["source"] = vectorJson(v.source);
  else
    view["rayDirection"] = vectorJson(v.rayDirection);
  view["detectorCentre"] = vectorJson(v.detectorCentre);
  view["u"] = vectorJson(v.u);
  view["v"] = vectorJson(v.v);
  // Written only for arc views, so that files of flat geometries stay as they were.
  if (v.surface != DetectorSurface::Flat) view["detector_surface"] = toString(v.surface);
  return view;
}

// Views, detector columns and rows: 1 to 2^20, like every axis a reader accepts.
std::int64_t count(const JsonFields& f, const char* key) {
  return f.axisLength(key);
}

// "detector_surface": "flat" (the default when absent) or "cylinder" (an arc detector).
DetectorSurface readDetectorSurface(const JsonFields& fields) {
  if (!fields.has("detector_surface")) return DetectorSurface::Flat;
  const std::string word = fields.string("detector_surface");
  if (word != "flat" && word != "cylinder")
    throw FormatError(fields.source(), fields.fieldName("detector_surface"),
                      "must be 'flat' or 'cylinder', got '" + word + "'");
  return *detectorSurfaceFromString(word);
}

DetectorParams readDetectorParams(const JsonFields& d) {
  DetectorParams p;
  p.cols = count(d, "cols");
  p.rows = count(d, "rows");
  const double pitch = d.finiteNumber("pitchMm", 1.0);
  p.pitchUMm = d.has("pitchUMm") ? d.positiveNumber("pitchUMm") : pitch;
  p.pitchVMm = d.has("pitchVMm") ? d.positiveNumber("pitchVMm") : pitch;
  if (!(p.pitchUMm > 0) || !(p.pitchVMm > 0))
    throw FormatError(d.source(), d.fieldName("pitchMm"), "must be > 0");
  p.offsetUMm = d.finiteNumber("offsetUMm", 0.0);
  p.offsetVMm = d.finiteNumber("offsetVMm", 0.0);
  p.tiltRad = d.finiteNumber("tiltDeg", 0.0) * kDegToRad;
  p.slantRad = d.finiteNumber("slantDeg", 0.0) * kDegToRad;
  p.inPlaneRotationRad = d.finiteNumber("inPlaneRotationDeg", 0.0) * kDegToRad;
  p.skewRad = d.finiteNumber("skewDeg", 0.0) * kDegToRad;
  p.surface = readDetectorSurface(d);
  return p;
}

std::vector<double> readAnglesRad(const JsonFields& b, const CircularConeParams* circular) {
  if (b.has("anglesDeg")) {
    auto angles = b.finiteNumbers("anglesDeg");
    // Both given: they must agree, or which one did the writer mean?
    if (b.has("views") && count(b, "views") != static_cast<std::int64_t>(angles.size()))
      throw FormatError(b.source(), b.fieldName("views"),
                        "is " + b.get("views").dump() + " but anglesDeg holds " +
                            std::to_string(angles.size()) + " angles");
    for (double& a : angles) a *= kDegToRad;
    return angles;
  }
  const std::int64_t views = count(b, "views");
  const double start = b.finiteNumber("startDeg", 0.0) * kDegToRad;
  const std::string scan = b.has("scan") ? b.string("scan") : "full";
  if (scan == "full") return fullScanAnglesRad(views, start);
  if (scan == "short") {
    if (!circular) throw FormatError(b.source(), b.fieldName("scan"), "'short' needs a cone beam");
    if (views < 2) throw FormatError(b.source(), b.fieldName("views"), "a short scan needs >= 2");
    return shortScanAnglesRad(*circular, views, start, b.finiteNumber("extraDeg", 0.0) * kDegToRad);
  }
  if (scan == "arc") {
    if (views < 2) throw FormatError(b.source(), b.fieldName("views"), "an arc needs >= 2 views");
    return arcAnglesRad(views, b.finiteNumber("rangeDeg") * kDegToRad, start);
  }
  if (scan == "turns") {
    const double turns = b.positiveNumber("turns");
    std::vector<double> angles(static_cast<std::size_t>(views));
    for (std::int64_t i = 0; i < views; ++i)
      angles[static_cast<std::size_t>(i)] = start + 2 * std::numbers::pi * turns *
                                                        static_cast<double>(i) /
                                                        static_cast<double>(views);
    return angles;
  }
  throw FormatError(b.source(), b.fieldName("scan"),
                    "must be 'full', 'short', 'arc' or 'turns', got '" + scan + "'");
}

Geometry buildFromParameters(const JsonFields& b) {
  const std::string kind = b.string("kind");
  if (kind == "circular-cone" || kind == "helical-cone") {
    CircularConeParams c;
    c.sourceToIsocentreMm = b.positiveNumber("sourceToIsocentreMm");
    c.sourceToDetectorMm = b.positiveNumber("sourceToDetectorMm");
    if (c.sourceToDetectorMm <= c.sourceToIsocentreMm)
      throw FormatError(
          b.source(), b.fieldName("sourceToDetectorMm"),
          "must exceed sourceToIsocentreMm, got " + b.get("sourceToDetectorMm").dump());
    c.detector = readDetectorParams(b.child("detector"));
    c.anglesRad = readAnglesRad(b, &c);
    if (kind == "circular-cone") return circularConeBeam(c);
    HelicalConeParams h;
    h.circular = c;
    h.pitch = b.finiteNumber("pitch");
    if (h.pitch < 0) throw FormatError(b.source(), b.fieldName("pitch"), "must be >= 0");
    h.startZMm = b.finiteNumber("startZMm", 0.0);
    return helicalConeBeam(h);
  }
  if (kind == "parallel") {
    ParallelBeamParams p;
    p.detector = readDetectorParams(b.child("detector"));
    p.anglesRad = readAnglesRad(b, nullptr);
    return parallelBeam(p);
  }
  if (kind == "tilt-series") {
    TiltSeriesParams t;
    t.cols = count(b, "cols");
    t.rows = count(b, "rows");
    t.pixelSizeMm = b.positiveNumber("pixelSizeMm");
    if (b.has("tiltAnglesDeg")) {
      t.tiltAnglesRad = b.finiteNumbers("tiltAnglesDeg");
      for (double& a : t.tiltAnglesRad) a *= kDegToRad;
    } else {
      const double first = b.finiteNumber("firstTiltDeg"), last = b.finiteNumber("lastTiltDeg");
      const double step = b.positiveNumber("tiltStepDeg");
      if (last < first)
        throw FormatError(b.source(), b.fieldName("lastTiltDeg"), "must be >= firstTiltDeg");
      const double count = std::floor((last - first) / step + 1e-9) + 1.0;
      if (count > double(1 << 20))
        throw FormatError(b.source(), b.fieldName("tiltStepDeg"),
                          "gives more than 2^20 tilts, got " + b.get("tiltStepDeg").dump());
      for (std::int64_t i = 0; i < std::int64_t(count); ++i)
        t.tiltAnglesRad.push_back((first + double(i) * step) * kDegToRad);
    }
    t.tiltAxisAngleRad = b.finiteNumber("tiltAxisAngleDeg", 0.0) * kDegToRad;
    t.tiltAxisShiftPixels = b.finiteNumber("tiltAxisShiftPixels", 0.0);
    return tiltSeries(t);
  }
  throw FormatError(
      b.source(), b.fieldName("kind"),
      "must be 'circular-cone', 'helical-cone', 'parallel' or 'tilt-series', got '" + kind + "'");
}

}  // namespace

json geometryToJson(const Geometry& g) {
  json views = json::array();
  for (const View& v : g.views()) views.push_back(viewJson(g.beam(), v));
  return json{{"format", "tomowb-geometry"},
              {"version", kGeometryFormatVersion},
              {"beam", toString(g.beam())},
              {"detector", {{"cols", g.detector().cols}, {"rows", g.detector().rows}}},
              {"views", std::move(views)}};
}

Geometry geometryFromJson(const json& j, const std::filesystem::path& source) {
  const JsonFields top(j, source, "");
  if (top.has("format") && top.string("format") != "tomowb-geometry")
    throw FormatError(source, "format",
                      "must be 'tomowb-geometry', got " + top.get("format").dump());
  const std::int64_t version = top.integer("version", 1, 1 << 20);
  if (version > kGeometryFormatVersion)
    throw FormatError(source, "version",
                      "is " + std::to_string(version) + ", newer than this program reads (" +
                          std::to_string(kGeometryFormatVersion) + ")");
  Geometry g;
  if (top.has("builder")) {
    g = buildFromParameters(top.child("builder"));
  } else {
    const std::string beamText = top.string("beam");
    BeamKind beam;
    if (beamText == "cone")
      beam = BeamKind::Cone;
    else if (beamText == "parallel")
      beam = BeamKind::Parallel;
    else
      throw FormatError(source, "beam", "must be 'cone' or 'parallel', got '" + beamText + "'");
    const JsonFields det = top.child("detector");
    const DetectorShape shape{count(det, "cols"), count(det, "rows")};
    const json& viewsJson = top.get("views");
    if (!viewsJson.is_array() || viewsJson.empty())
      throw FormatError(source, "views", "must be a non-empty array");
    if (viewsJson.size() > std::size_t{1} << 20)
      throw FormatError(source, "views",
                        "has " + std::to_string(viewsJson.size()) + " views, more than 2^20");
    std::vector<View> views;
    views.reserve(viewsJson.size());
    for (std::size_t i = 0; i < viewsJson.size(); ++i) {
      const JsonFields vr(viewsJson[i], source, "views[" + std::to_string(i) + "]");
      View v;
      if (beam == BeamKind::Cone)
        v.source = vr.finiteVector3("source");
      else
        v.rayDirection = vr.finiteVector3("rayDirection");
      v.detectorCentre = vr.finiteVector3("detectorCentre");
      v.u = vr.finiteVector3("u");
      v.v = vr.finiteVector3("v");
      v.surface = readDetectorSurface(vr);
      views.push_back(v);
    }
    g = Geometry(beam, shape, std::move(views));
  }
  try {
    g.validate();
  } catch (const ParameterError& e) {
    throw FormatError(source, e.what());
  }
  return g;
}

void saveGeometry(const std::filesystem::path& path, const Geometry& geometry) {
  // Streamed, one view a line: a whole-document JSON tree costs about 1 KB of memory per view
  // (1.5 GB for a 300-byte builder of 2^20 views, hostile-input review D23); this costs one view.
  const std::string head =
      geometryToJson(Geometry(geometry.beam(), geometry.detector(), {})).dump(2);
  const std::size_t emptyViews = head.rfind("[]");  // "views" sorts last: `"views": []\n}`
  io::AtomicFileWriter out(path);
  out.write(std::string_view(head).substr(0, emptyViews));
  std::string chunk = "[";
  for (std::int64_t i = 0; i < geometry.viewCount(); ++i) {
    chunk += (i == 0 ? "\n    " : ",\n    ") + viewJson(geometry.beam(), geometry.view(i)).dump();
    if (chunk.size() > (std::size_t{1} << 20)) {
      out.write(chunk);
      chunk.clear();
    }
  }
  chunk += "\n  ]" + head.substr(emptyViews + 2) + "\n";
  out.write(chunk);
  out.commit();
}

Geometry loadGeometry(const std::filesystem::path& path) {
  // InputFile refuses pipes and devices by name (a FIFO would block a plain open forever).
  const std::string text = io::InputFile(path).readAll(kMaxGeometryFileBytes, "geometry file");
  return geometryFromJson(io::parseJsonText(text, path), path);
}

}  // namespace tomowb
