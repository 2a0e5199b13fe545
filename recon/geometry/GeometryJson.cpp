#include "recon/geometry/GeometryJson.h"

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <numbers>
#include <sstream>
#include <string>

#include "recon/core/Error.h"
#include "recon/geometry/ScanBuilders.h"
#include "recon/io/AtomicFileWriter.h"

namespace tomowb {

namespace {

using nlohmann::json;
constexpr double kDegToRad = std::numbers::pi / 180.0;
constexpr std::uintmax_t kMaxGeometryFileBytes = 512ull << 20;

json vectorJson(const Eigen::Vector3d& v) {
  return json::array({v.x(), v.y(), v.z()});
}

// Reads fields of one JSON object and names the file and the field path in every error.
class FieldReader {
 public:
  FieldReader(const json& object, const std::filesystem::path& file, std::string prefix)
      : object_(object), file_(file), prefix_(std::move(prefix)) {
    if (!object_.is_object()) throw FormatError(file_, fieldName(""), "must be a JSON object");
  }

  bool has(const char* key) const { return object_.contains(key); }

  const json& raw(const char* key) const {
    if (!object_.contains(key)) throw FormatError(file_, fieldName(key), "is missing");
    return object_.at(key);
  }

  double number(const char* key) const {
    const json& v = raw(key);
    if (!v.is_number())
      throw FormatError(file_, fieldName(key), "must be a number, got " + v.dump());
    const double x = v.get<double>();
    if (!std::isfinite(x)) throw FormatError(file_, fieldName(key), "must be finite");
    return x;
  }
  double number(const char* key, double fallback) const {
    return has(key) ? number(key) : fallback;
  }

  double positive(const char* key) const {
    const double x = number(key);
    if (!(x > 0.0)) throw FormatError(file_, fieldName(key), "must be > 0, got " + raw(key).dump());
    return x;
  }

  std::int64_t count(const char* key, std::int64_t minimum = 1) const {
    const json& v = raw(key);
    if (!v.is_number_integer())
      throw FormatError(file_, fieldName(key), "must be an integer, got " + v.dump());
    const auto n = v.get<std::int64_t>();
    if (n < minimum || n > (std::int64_t{1} << 20))
      throw FormatError(file_, fieldName(key),
                        "must be in [" + std::to_string(minimum) + ", 2^20], got " + v.dump());
    return n;
  }

  std::string text(const char* key) const {
    const json& v = raw(key);
    if (!v.is_string())
      throw FormatError(file_, fieldName(key), "must be a string, got " + v.dump());
    return v.get<std::string>();
  }

  Eigen::Vector3d vector3(const char* key) const {
    const json& v = raw(key);
    if (!v.is_array() || v.size() != 3)
      throw FormatError(file_, fieldName(key), "must be an array of 3 numbers, got " + v.dump());
    Eigen::Vector3d out;
    for (int i = 0; i < 3; ++i) {
      if (!v[static_cast<std::size_t>(i)].is_number())
        throw FormatError(file_, fieldName(key), "must be an array of 3 numbers, got " + v.dump());
      out[i] = v[static_cast<std::size_t>(i)].get<double>();
      if (!std::isfinite(out[i])) throw FormatError(file_, fieldName(key), "must be finite");
    }
    return out;
  }

  std::vector<double> numbers(const char* key) const {
    const json& v = raw(key);
    if (!v.is_array() || v.empty())
      throw FormatError(file_, fieldName(key), "must be a non-empty array of numbers");
    std::vector<double> out;
    out.reserve(v.size());
    for (std::size_t i = 0; i < v.size(); ++i) {
      if (!v[i].is_number() || !std::isfinite(v[i].get<double>()))
        throw FormatError(file_, fieldName(key) + "[" + std::to_string(i) + "]",
                          "must be a finite number, got " + v[i].dump());
      out.push_back(v[i].get<double>());
    }
    return out;
  }

  FieldReader child(const char* key) const { return FieldReader(raw(key), file_, fieldName(key)); }

  std::string fieldName(const char* key) const {
    if (prefix_.empty()) return key;
    if (*key == '\0') return prefix_;
    return prefix_ + "." + key;
  }
  const std::filesystem::path& file() const { return file_; }

 private:
  const json& object_;
  const std::filesystem::path& file_;
  std::string prefix_;
};

DetectorParams readDetectorParams(const FieldReader& d) {
  DetectorParams p;
  p.cols = d.count("cols");
  p.rows = d.count("rows");
  const double pitch = d.number("pitchMm", 1.0);
  p.pitchUMm = d.has("pitchUMm") ? d.positive("pitchUMm") : pitch;
  p.pitchVMm = d.has("pitchVMm") ? d.positive("pitchVMm") : pitch;
  if (!(p.pitchUMm > 0) || !(p.pitchVMm > 0))
    throw FormatError(d.file(), d.fieldName("pitchMm"), "must be > 0");
  p.offsetUMm = d.number("offsetUMm", 0.0);
  p.offsetVMm = d.number("offsetVMm", 0.0);
  p.tiltRad = d.number("tiltDeg", 0.0) * kDegToRad;
  p.slantRad = d.number("slantDeg", 0.0) * kDegToRad;
  p.inPlaneRotationRad = d.number("inPlaneRotationDeg", 0.0) * kDegToRad;
  p.skewRad = d.number("skewDeg", 0.0) * kDegToRad;
  return p;
}

std::vector<double> readAnglesRad(const FieldReader& b, const CircularConeParams* circular) {
  if (b.has("anglesDeg")) {
    auto angles = b.numbers("anglesDeg");
    for (double& a : angles) a *= kDegToRad;
    return angles;
  }
  const std::int64_t views = b.count("views");
  const double start = b.number("startDeg", 0.0) * kDegToRad;
  const std::string scan = b.has("scan") ? b.text("scan") : "full";
  if (scan == "full") return fullScanAnglesRad(views, start);
  if (scan == "short") {
    if (!circular) throw FormatError(b.file(), b.fieldName("scan"), "'short' needs a cone beam");
    if (views < 2) throw FormatError(b.file(), b.fieldName("views"), "a short scan needs >= 2");
    return shortScanAnglesRad(*circular, views, start, b.number("extraDeg", 0.0) * kDegToRad);
  }
  if (scan == "arc") {
    if (views < 2) throw FormatError(b.file(), b.fieldName("views"), "an arc needs >= 2 views");
    return arcAnglesRad(views, b.number("rangeDeg") * kDegToRad, start);
  }
  if (scan == "turns") {
    const double turns = b.positive("turns");
    std::vector<double> angles(static_cast<std::size_t>(views));
    for (std::int64_t i = 0; i < views; ++i)
      angles[static_cast<std::size_t>(i)] = start + 2 * std::numbers::pi * turns *
                                                        static_cast<double>(i) /
                                                        static_cast<double>(views);
    return angles;
  }
  throw FormatError(b.file(), b.fieldName("scan"),
                    "must be 'full', 'short', 'arc' or 'turns', got '" + scan + "'");
}

Geometry buildFromParameters(const FieldReader& b) {
  const std::string kind = b.text("kind");
  if (kind == "circular-cone" || kind == "helical-cone") {
    CircularConeParams c;
    c.sourceToIsocentreMm = b.positive("sourceToIsocentreMm");
    c.sourceToDetectorMm = b.positive("sourceToDetectorMm");
    if (c.sourceToDetectorMm <= c.sourceToIsocentreMm)
      throw FormatError(
          b.file(), b.fieldName("sourceToDetectorMm"),
          "must exceed sourceToIsocentreMm, got " + b.raw("sourceToDetectorMm").dump());
    c.detector = readDetectorParams(b.child("detector"));
    c.anglesRad = readAnglesRad(b, &c);
    if (kind == "circular-cone") return circularConeBeam(c);
    HelicalConeParams h;
    h.circular = c;
    h.pitch = b.number("pitch");
    if (h.pitch < 0) throw FormatError(b.file(), b.fieldName("pitch"), "must be >= 0");
    h.startZMm = b.number("startZMm", 0.0);
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
    t.cols = b.count("cols");
    t.rows = b.count("rows");
    t.pixelSizeMm = b.positive("pixelSizeMm");
    if (b.has("tiltAnglesDeg")) {
      t.tiltAnglesRad = b.numbers("tiltAnglesDeg");
      for (double& a : t.tiltAnglesRad) a *= kDegToRad;
    } else {
      const double first = b.number("firstTiltDeg"), last = b.number("lastTiltDeg");
      const double step = b.positive("tiltStepDeg");
      if (last < first)
        throw FormatError(b.file(), b.fieldName("lastTiltDeg"), "must be >= firstTiltDeg");
      const double count = std::floor((last - first) / step + 1e-9) + 1.0;
      if (count > double(1 << 20))
        throw FormatError(b.file(), b.fieldName("tiltStepDeg"),
                          "gives more than 2^20 tilts, got " + b.raw("tiltStepDeg").dump());
      for (std::int64_t i = 0; i < std::int64_t(count); ++i)
        t.tiltAnglesRad.push_back((first + double(i) * step) * kDegToRad);
    }
    t.tiltAxisAngleRad = b.number("tiltAxisAngleDeg", 0.0) * kDegToRad;
    t.tiltAxisShiftPixels = b.number("tiltAxisShiftPixels", 0.0);
    return tiltSeries(t);
  }
  throw FormatError(
      b.file(), b.fieldName("kind"),
      "must be 'circular-cone', 'helical-cone', 'parallel' or 'tilt-series', got '" + kind + "'");
}

}  // namespace

json geometryToJson(const Geometry& g) {
  json views = json::array();
  for (const View& v : g.views()) {
    json view;
    if (g.beam() == BeamKind::Cone)
      view["source"] = vectorJson(v.source);
    else
      view["rayDirection"] = vectorJson(v.rayDirection);
    view["detectorCentre"] = vectorJson(v.detectorCentre);
    view["u"] = vectorJson(v.u);
    view["v"] = vectorJson(v.v);
    views.push_back(std::move(view));
  }
  return json{{"format", "tomowb-geometry"},
              {"version", kGeometryFormatVersion},
              {"beam", toString(g.beam())},
              {"detector", {{"cols", g.detector().cols}, {"rows", g.detector().rows}}},
              {"views", std::move(views)}};
}

Geometry geometryFromJson(const json& j, const std::filesystem::path& source) {
  const FieldReader top(j, source, "");
  if (top.has("format") && top.text("format") != "tomowb-geometry")
    throw FormatError(source, "format",
                      "must be 'tomowb-geometry', got " + top.raw("format").dump());
  const std::int64_t version = top.count("version");
  if (version > kGeometryFormatVersion)
    throw FormatError(source, "version",
                      "is " + std::to_string(version) + ", newer than this program reads (" +
                          std::to_string(kGeometryFormatVersion) + ")");
  Geometry g;
  if (top.has("builder")) {
    g = buildFromParameters(top.child("builder"));
  } else {
    const std::string beamText = top.text("beam");
    BeamKind beam;
    if (beamText == "cone")
      beam = BeamKind::Cone;
    else if (beamText == "parallel")
      beam = BeamKind::Parallel;
    else
      throw FormatError(source, "beam", "must be 'cone' or 'parallel', got '" + beamText + "'");
    const FieldReader det = top.child("detector");
    const DetectorShape shape{det.count("cols"), det.count("rows")};
    const json& viewsJson = top.raw("views");
    if (!viewsJson.is_array() || viewsJson.empty())
      throw FormatError(source, "views", "must be a non-empty array");
    std::vector<View> views;
    views.reserve(viewsJson.size());
    for (std::size_t i = 0; i < viewsJson.size(); ++i) {
      const FieldReader vr(viewsJson[i], source, "views[" + std::to_string(i) + "]");
      View v;
      if (beam == BeamKind::Cone)
        v.source = vr.vector3("source");
      else
        v.rayDirection = vr.vector3("rayDirection");
      v.detectorCentre = vr.vector3("detectorCentre");
      v.u = vr.vector3("u");
      v.v = vr.vector3("v");
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
  io::AtomicFileWriter out(path);
  out.write(geometryToJson(geometry).dump(2) + "\n");
  out.commit();
}

Geometry loadGeometry(const std::filesystem::path& path) {
  std::error_code ec;
  const auto size = std::filesystem::file_size(path, ec);
  if (ec) throw IoError(path, "cannot open: " + ec.message());
  if (size > kMaxGeometryFileBytes) throw FormatError(path, "geometry file larger than 512 MiB");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw IoError(path, "cannot open for reading");
  json j;
  try {
    j = json::parse(in);
  } catch (const json::exception& e) {
    throw FormatError(path, std::string("not valid JSON: ") + e.what());
  }
  return geometryFromJson(j, path);
}

}  // namespace tomowb
