// ScannerModel: crystal positions of the two layouts, validation naming the field, the built-in
// presets of reference/direct-tof-pet.md section 5.1, and the versioned scanner JSON.
#include "recon/pet/ScannerModel.h"

#include <cassert>
#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <numbers>
#include <optional>
#include <set>
#include <string>

#include "recon/core/Error.h"
#include "recon/io/AtomicFileWriter.h"
#include "recon/io/InputFile.h"
#include "recon/io/JsonFields.h"
#include "recon/io/ReaderLimits.h"

namespace tomowb::pet {

namespace {

using nlohmann::json;
constexpr double kPi = std::numbers::pi;
constexpr int kMaxIndex = 65535;  // crystals and rings are uint16 in a list-mode record
constexpr const char* kFormatName = "tomowb-pet-scanner";

struct Problem {
  std::string field, text;
};

std::string number(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%.10g", v);
  return text;
}

// The first problem of the sizes (counts of crystals, rings, modules).
std::optional<Problem> sizeProblem(const ScannerModel& s) {
  if (s.name.empty()) return Problem{"name", "must not be empty"};
  if (s.crystalsPerRing < 2 || s.crystalsPerRing > kMaxIndex)
    return Problem{"crystalsPerRing",
                   "must be in 2..65535, got " + std::to_string(s.crystalsPerRing)};
  if (s.rings < 1 || s.rings > kMaxIndex)
    return Problem{"rings", "must be in 1..65535, got " + std::to_string(s.rings)};
  if (s.layout != DetectorLayout::FlatModules) return std::nullopt;
  if (s.modules < 3 || s.modules > s.crystalsPerRing)
    return Problem{"modules", "must be in 3..crystalsPerRing (" +
                                  std::to_string(s.crystalsPerRing) + "), got " +
                                  std::to_string(s.modules)};
  if (s.crystalsPerRing % s.modules != 0)
    return Problem{"modules", std::to_string(s.modules) + " modules do not divide " +
                                  std::to_string(s.crystalsPerRing) + " crystals per ring"};
  return std::nullopt;
}

// The first length that is not finite or not > 0 (>= 0 where zero makes sense).
std::optional<Problem> lengthProblem(const ScannerModel& s) {
  const struct {
    const char* field;
    double value;
    bool zeroAllowed;
  } lengths[] = {{"radiusMm", s.radiusMm, false},
                 {"crystalPitchMm", s.crystalPitchMm, false},
                 {"ringPitchMm", s.ringPitchMm, false},
                 {"crystalDepthMm", s.crystalDepthMm, false},
                 {"meanDoiMm", s.meanDoiMm, true},
                 {"axialAcceptanceDeg", s.axialAcceptanceDeg, false},
                 {"tofFwhmPs", s.tofFwhmPs, false},
                 {"tofLsbPs", s.tofLsbPs, false},
                 {"coincidenceWindowPs", s.coincidenceWindowPs, false},
                 {"positioningSigmaMm", s.positioningSigmaMm, true},
                 {"acollinearityFwhmDeg", s.acollinearityFwhmDeg, true},
                 {"intrinsicResolutionMm", s.intrinsicResolutionMm, false},
                 {"transaxialFovMm", s.transaxialFovMm, false}};
  for (const auto& l : lengths) {
    if (!std::isfinite(l.value)) return Problem{l.field, "must be finite"};
    if (l.zeroAllowed ? l.value < 0 : !(l.value > 0))
      return Problem{l.field, std::string(l.zeroAllowed ? "must be >= 0" : "must be > 0") +
                                  ", got " + number(l.value)};
  }
  return std::nullopt;
}

// Relations between fields: what fits where.
std::optional<Problem> relationProblem(const ScannerModel& s) {
  if (s.meanDoiMm > s.crystalDepthMm)
    return Problem{"meanDoiMm", "must not exceed crystalDepthMm (" + number(s.crystalDepthMm) +
                                    "), got " + number(s.meanDoiMm)};
  if (s.axialAcceptanceDeg > 60)
    return Problem{"axialAcceptanceDeg",
                   "must be in (0, 60] degrees, got " + number(s.axialAcceptanceDeg)};
  if (s.acollinearityFwhmDeg > 10)
    return Problem{"acollinearityFwhmDeg",
                   "must be in [0, 10] degrees, got " + number(s.acollinearityFwhmDeg)};
  if (s.coincidenceWindowPs / 2 / s.tofLsbPs > 32767)
    return Problem{"coincidenceWindowPs",
                   "half the window is " + number(s.coincidenceWindowPs / 2 / s.tofLsbPs) +
                       " tofLsbPs steps, more than a list-mode record holds (32767)"};
  if (s.transaxialFovMm >= 2 * s.radiusMm)
    return Problem{"transaxialFovMm", "must be smaller than the ring's diameter (" +
                                          number(2 * s.radiusMm) + " mm), got " +
                                          number(s.transaxialFovMm)};
  if (s.layout == DetectorLayout::FlatModules) {
    const double face = 2 * s.radiusMm * std::tan(kPi / s.modules);
    const double crystals = s.crystalsPerModule() * s.crystalPitchMm;
    if (crystals > face)
      return Problem{"crystalPitchMm", std::to_string(s.crystalsPerModule()) + " crystals of " +
                                           number(s.crystalPitchMm) + " mm (" + number(crystals) +
                                           " mm) do not fit a module's face of " + number(face) +
                                           " mm"};
  }
  return std::nullopt;
}

std::optional<Problem> firstProblem(const ScannerModel& s) {
  if (auto p = sizeProblem(s)) return p;
  if (auto p = lengthProblem(s)) return p;
  return relationProblem(s);
}

std::string presetList() {
  std::string list;
  for (const std::string& name : scannerPresetNames()) list += (list.empty() ? "" : ", ") + name;
  return list;
}

const char* layoutName(DetectorLayout layout) {
  return layout == DetectorLayout::FlatModules ? "flat-modules" : "cylinder";
}

// Every key scannerToJson writes; anything else in a file is refused.
const std::set<std::string>& knownKeys() {
  static const std::set<std::string> keys = {"format",
                                             "version",
                                             "name",
                                             "layout",
                                             "radiusMm",
                                             "modules",
                                             "crystalsPerRing",
                                             "rings",
                                             "crystalPitchMm",
                                             "ringPitchMm",
                                             "crystalDepthMm",
                                             "meanDoiMm",
                                             "axialAcceptanceDeg",
                                             "tofFwhmPs",
                                             "tofLsbPs",
                                             "coincidenceWindowPs",
                                             "positioningSigmaMm",
                                             "acollinearityFwhmDeg",
                                             "intrinsicResolutionMm",
                                             "transaxialFovMm"};
  return keys;
}

void readHeaderFields(const io::JsonFields& f) {
  if (f.has("format") && f.string("format") != kFormatName)
    throw FormatError(f.source(), f.fieldName("format"),
                      std::string("must be '") + kFormatName + "', got " + f.get("format").dump());
  const std::int64_t version = f.integer("version", 1, 1 << 20);
  if (version > kScannerFormatVersion)
    throw FormatError(f.source(), f.fieldName("version"),
                      "is " + std::to_string(version) + ", newer than this program reads (" +
                          std::to_string(kScannerFormatVersion) + ")");
}

DetectorLayout readLayout(const io::JsonFields& f) {
  const std::string text = f.string("layout");
  if (text == "cylinder") return DetectorLayout::Cylinder;
  if (text == "flat-modules") return DetectorLayout::FlatModules;
  throw FormatError(f.source(), f.fieldName("layout"),
                    "must be 'cylinder' or 'flat-modules', got '" + text + "'");
}

}  // namespace

Eigen::Vector3d ScannerModel::crystalPosition(int crystal, int ring) const noexcept {
  assert(crystal >= 0 && crystal < crystalsPerRing && ring >= 0 && ring < rings);
  const double radius = radiusMm + meanDoiMm;
  const double z = ringZ(ring);
  if (layout == DetectorLayout::Cylinder) {
    const double angle = 2 * kPi * (crystal + 0.5) / crystalsPerRing;
    return {radius * std::cos(angle), radius * std::sin(angle), z};
  }
  const int perModule = crystalsPerModule();
  const int module = crystal / perModule;
  const int within = crystal % perModule;
  const double angle = 2 * kPi * (module + 0.5) / modules;
  const double c = std::cos(angle), s = std::sin(angle);
  const double t = (within - 0.5 * (perModule - 1)) * crystalPitchMm;
  return {radius * c - t * s, radius * s + t * c, z};
}

std::vector<Eigen::Vector2d> ScannerModel::crystalPositionsXy() const {
  std::vector<Eigen::Vector2d> xy;
  xy.reserve(static_cast<std::size_t>(crystalsPerRing));
  for (int i = 0; i < crystalsPerRing; ++i) xy.push_back(crystalPosition(i, 0).head<2>());
  return xy;
}

double ScannerModel::ringZ(int ring) const noexcept {
  return (ring - 0.5 * (rings - 1)) * ringPitchMm;
}

void ScannerModel::validate() const {
  if (const auto problem = firstProblem(*this)) throw ParameterError(problem->field, problem->text);
}

std::vector<std::string> scannerPresetNames() {
  return {"penn-labr3", "ring-930"};
}

ScannerModel scannerPreset(std::string_view name) {
  ScannerModel s;  // the defaults are the seed's scanner (section 5.1)
  if (name == "penn-labr3") {
    s.name = "penn-labr3";
    s.layout = DetectorLayout::FlatModules;
    s.modules = 24;
    return s;
  }
  if (name == "ring-930") {
    s.name = "ring-930";
    s.layout = DetectorLayout::Cylinder;
    s.modules = 1;                                                // unused by a cylinder
    s.crystalPitchMm = 2 * kPi * s.radiusMm / s.crystalsPerRing;  // the arc between crystals
    return s;
  }
  throw ParameterError("scanner",
                       "unknown preset '" + std::string(name) + "'; presets: " + presetList());
}

json scannerToJson(const ScannerModel& s) {
  return json{{"format", kFormatName},
              {"version", kScannerFormatVersion},
              {"name", s.name},
              {"layout", layoutName(s.layout)},
              {"radiusMm", s.radiusMm},
              {"modules", s.modules},
              {"crystalsPerRing", s.crystalsPerRing},
              {"rings", s.rings},
              {"crystalPitchMm", s.crystalPitchMm},
              {"ringPitchMm", s.ringPitchMm},
              {"crystalDepthMm", s.crystalDepthMm},
              {"meanDoiMm", s.meanDoiMm},
              {"axialAcceptanceDeg", s.axialAcceptanceDeg},
              {"tofFwhmPs", s.tofFwhmPs},
              {"tofLsbPs", s.tofLsbPs},
              {"coincidenceWindowPs", s.coincidenceWindowPs},
              {"positioningSigmaMm", s.positioningSigmaMm},
              {"acollinearityFwhmDeg", s.acollinearityFwhmDeg},
              {"intrinsicResolutionMm", s.intrinsicResolutionMm},
              {"transaxialFovMm", s.transaxialFovMm}};
}

ScannerModel scannerFromJson(const json& j, const std::filesystem::path& source,
                             std::string_view fieldPrefix) {
  const io::JsonFields f(j, source, std::string(fieldPrefix));
  for (const auto& item : j.items())
    if (!knownKeys().count(item.key()))
      throw FormatError(source, f.fieldName(item.key()),
                        "is not a scanner field (docs/pet.md lists them)");
  readHeaderFields(f);
  ScannerModel s;
  s.name = f.string("name");
  s.layout = readLayout(f);
  s.radiusMm = f.finiteNumber("radiusMm");
  // Integers are range-checked again by validate(); this bound keeps them inside an int.
  constexpr std::int64_t kIntBound = 1 << 30;
  if (s.layout == DetectorLayout::FlatModules)
    s.modules = static_cast<int>(f.integer("modules", -kIntBound, kIntBound));
  else if (f.has("modules"))
    s.modules = static_cast<int>(f.integer("modules", -kIntBound, kIntBound));
  s.crystalsPerRing = static_cast<int>(f.integer("crystalsPerRing", -kIntBound, kIntBound));
  s.rings = static_cast<int>(f.integer("rings", -kIntBound, kIntBound));
  s.crystalPitchMm = s.layout == DetectorLayout::FlatModules
                         ? f.finiteNumber("crystalPitchMm")
                         : f.finiteNumber("crystalPitchMm", s.crystalPitchMm);
  s.ringPitchMm = f.finiteNumber("ringPitchMm");
  s.crystalDepthMm = f.finiteNumber("crystalDepthMm", s.crystalDepthMm);
  s.meanDoiMm = f.finiteNumber("meanDoiMm");
  s.axialAcceptanceDeg = f.finiteNumber("axialAcceptanceDeg");
  s.tofFwhmPs = f.finiteNumber("tofFwhmPs");
  s.tofLsbPs = f.finiteNumber("tofLsbPs");
  s.coincidenceWindowPs = f.finiteNumber("coincidenceWindowPs");
  s.positioningSigmaMm = f.finiteNumber("positioningSigmaMm", s.positioningSigmaMm);
  s.acollinearityFwhmDeg = f.finiteNumber("acollinearityFwhmDeg", s.acollinearityFwhmDeg);
  s.intrinsicResolutionMm = f.finiteNumber("intrinsicResolutionMm", s.intrinsicResolutionMm);
  s.transaxialFovMm = f.finiteNumber("transaxialFovMm", s.transaxialFovMm);
  if (const auto problem = firstProblem(s))
    throw FormatError(source, f.fieldName(problem->field), problem->text);
  return s;
}

ScannerModel loadScanner(const std::string& pathOrPreset) {
  const std::filesystem::path path(pathOrPreset);
  std::error_code ec;
  if (std::filesystem::exists(path, ec)) {
    const std::string text = io::InputFile(path).readAll(io::kMaxSidecarBytes, "scanner file");
    return scannerFromJson(io::parseJsonText(text, path), path);
  }
  for (const std::string& name : scannerPresetNames())
    if (name == pathOrPreset) return scannerPreset(name);
  throw ParameterError(
      "scanner",
      "'" + pathOrPreset + "' is neither a scanner file nor a preset; presets: " + presetList());
}

void writeScannerFile(const ScannerModel& scanner, const std::filesystem::path& path) {
  scanner.validate();
  io::AtomicFileWriter out(path);
  out.write(scannerToJson(scanner).dump(2) + "\n");
  out.commit();
}

}  // namespace tomowb::pet
