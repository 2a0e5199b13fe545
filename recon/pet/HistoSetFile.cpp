// Histo-image sets on disk (HistoSetFile.h).
#include "recon/pet/HistoSetFile.h"

#include <bit>
#include <cmath>
#include <memory>
#include <nlohmann/json.hpp>
#include <numbers>
#include <string>
#include <vector>

#include "recon/core/Error.h"
#include "recon/io/AtomicFileWriter.h"
#include "recon/io/InputFile.h"
#include "recon/io/JsonFields.h"
#include "recon/io/ReaderLimits.h"

namespace tomowb::pet {

namespace {

static_assert(std::endian::native == std::endian::little, "the raw files are little-endian");

constexpr const char* kFormat = "tomowb-pet-histo-images";
constexpr std::uint64_t kChunkFloats = std::uint64_t{1} << 20;

nlohmann::json depositionToJson(const DepositionReport& r) {
  return {{"events", r.events},
          {"deposited", r.deposited},
          {"outsideTilt", r.outsideTilt},
          {"outsideGrid", r.outsideGrid},
          {"degenerate", r.degenerate},
          {"seconds", r.seconds},
          {"device", r.device}};
}

void readDeposition(const io::JsonFields& fields, const char* key, DepositionReport& r) {
  if (!fields.has(key)) return;
  const io::JsonFields f = fields.child(key);
  const auto count = [&](const char* name) {
    return f.has(name) ? static_cast<std::uint64_t>(f.integer(name, 0, INT64_MAX)) : 0;
  };
  r.events = count("events");
  r.deposited = count("deposited");
  r.outsideTilt = count("outsideTilt");
  r.outsideGrid = count("outsideGrid");
  r.degenerate = count("degenerate");
  r.seconds = f.finiteNumber("seconds", 0.0);
  if (f.has("device")) r.device = f.string("device");
}

// Writes one image; the writer is committed by the caller once every file is ready.
std::unique_ptr<io::AtomicFileWriter> writeImage(const std::filesystem::path& path,
                                                 const HistoImages& h) {
  auto out = std::make_unique<io::AtomicFileWriter>(path);
  const std::span<const float> values = h.values();
  out->write(values.data(), values.size_bytes());
  return out;
}

void readImage(const std::filesystem::path& setPath, const io::JsonFields& images,
               const std::string& role, HistoImages& h) {
  const std::string name = images.string(role);
  if (name.empty() || name == "." || name == ".." || name.find('/') != std::string::npos ||
      name.find('\0') != std::string::npos)
    throw FormatError(setPath, images.fieldName(role),
                      "must be a file name in the set file's folder, got '" + name + "'");
  const std::filesystem::path path = setPath.parent_path() / name;
  const io::InputFile file(path, io::Symlinks::Refuse);
  const std::uint64_t bytes = h.values().size_bytes();
  if (file.size() != bytes)
    throw FormatError(path, role,
                      "holds " + std::to_string(file.size()) +
                          " bytes, the set's grid and views "
                          "need " +
                          std::to_string(bytes) + " (" + std::to_string(h.viewCount()) +
                          " views of " + std::to_string(h.voxelsPerView()) + " float32)");
  std::span<float> values = h.values();
  for (std::uint64_t first = 0; first < values.size(); first += kChunkFloats) {
    const std::uint64_t n = std::min<std::uint64_t>(kChunkFloats, values.size() - first);
    file.readAt(first * sizeof(float),
                std::as_writable_bytes(
                    values.subspan(static_cast<std::size_t>(first), static_cast<std::size_t>(n))),
                role);
  }
  for (std::size_t i = 0; i < values.size(); ++i)
    if (!std::isfinite(values[i]) || values[i] < 0)
      throw FormatError(path, role,
                        "value " + std::to_string(i) + " is negative or not finite (" +
                            std::to_string(values[i]) + ")");
}

}  // namespace

std::filesystem::path histoImagePathFor(const std::filesystem::path& setPath,
                                        const std::string& role) {
  std::filesystem::path p = setPath;
  p.replace_extension();
  return p.string() + "." + role + ".f32";
}

void writeHistoSet(const std::filesystem::path& path, const PetHistoSet& set) {
  if (set.data.empty()) throw ParameterError("histo-images", "the data images are empty");
  const VolumeGrid& g = set.data.grid();
  const ViewBinning& v = set.data.views();
  nlohmann::json json = {
      {"format", kFormat},
      {"version", kHistoSetFormatVersion},
      {"grid",
       {{"shape", {g.shape.nx, g.shape.ny, g.shape.nz}},
        {"voxelSizeMm", {g.voxelSizeMm.x(), g.voxelSizeMm.y(), g.voxelSizeMm.z()}},
        {"originMm", {g.originMm.x(), g.originMm.y(), g.originMm.z()}}}},
      {"views",
       {{"azimuths", v.azimuths},
        {"tilts", v.tilts},
        {"maxTiltDeg", v.maxTiltRad * 180.0 / std::numbers::pi}}},
      {"layout", "float32 little-endian [view][z][y][x], view = tilt * azimuths + azimuth"},
      {"deposition", toString(set.deposition)},
      {"scanner", scannerToJson(set.scanner)},
      {"acquisitionSeconds", set.acquisitionSeconds},
      {"halfLifeS", set.halfLifeS},
      {"attenuationCorrected", set.attenuationCorrected},
      {"prompts", depositionToJson(set.prompts)},
      {"delayed", depositionToJson(set.delayed)}};
  std::vector<std::unique_ptr<io::AtomicFileWriter>> writers;
  nlohmann::json images = nlohmann::json::object();
  const auto add = [&](const std::string& role, const HistoImages& h) {
    if (h.empty()) return;
    const std::filesystem::path p = histoImagePathFor(path, role);
    writers.push_back(writeImage(p, h));
    images[role] = p.filename().string();
  };
  add("data", set.data);
  add("multiplicative", set.multiplicative);
  add("additive", set.additive);
  json["images"] = images;
  io::AtomicFileWriter jsonOut(path);
  jsonOut.write(json.dump(2) + "\n");
  std::vector<std::filesystem::path> committed;
  try {
    for (auto& w : writers) {
      w->commit();
      committed.push_back(w->finalPath());
    }
    jsonOut.commit();
  } catch (...) {
    for (const auto& p : committed) {
      std::error_code ignored;
      std::filesystem::remove(p, ignored);
    }
    throw;
  }
}

PetHistoSet readHistoSet(const std::filesystem::path& path) {
  const io::InputFile file(path);
  const nlohmann::json json =
      io::parseJsonText(file.readAll(io::kMaxSidecarBytes, "histo-image set"), path);
  const io::JsonFields fields(json, path);
  if (fields.string("format") != kFormat)
    throw FormatError(path, "format", std::string("must be '") + kFormat + "'");
  const std::int64_t version = fields.integer("version", 1, 1000000);
  if (version != kHistoSetFormatVersion)
    throw FormatError(path, "version",
                      "this build reads version " + std::to_string(kHistoSetFormatVersion) +
                          ", got " + std::to_string(version));
  const io::JsonFields grid = fields.child("grid");
  const std::vector<std::int64_t> shape = grid.axisLengths("shape", 3);
  VolumeGrid g;
  g.shape = {shape[0], shape[1], shape[2]};
  g.voxelSizeMm = grid.positiveVector3("voxelSizeMm");
  g.originMm = grid.finiteVector3("originMm");
  const io::JsonFields views = fields.child("views");
  ViewBinning v;
  v.azimuths = static_cast<int>(views.integer("azimuths", 1, 4096));
  v.tilts = static_cast<int>(views.integer("tilts", 1, 64));
  const double maxTiltDeg = views.positiveNumber("maxTiltDeg");
  if (maxTiltDeg > 60) throw FormatError(path, "views.maxTiltDeg", "must be in (0, 60]");
  v.maxTiltRad = maxTiltDeg * std::numbers::pi / 180.0;
  io::checkedPayloadBytes(path, "grid", {g.shape.nx, g.shape.ny, g.shape.nz, v.count()}, 4);

  PetHistoSet set;
  try {
    set.deposition = parseDepositionMode(fields.string("deposition"), "deposition");
  } catch (const ParameterError& e) {
    throw FormatError(path, "deposition", e.what());
  }
  set.scanner = scannerFromJson(fields.get("scanner"), path, "scanner");
  set.acquisitionSeconds = fields.finiteNumber("acquisitionSeconds", 0.0);
  if (set.acquisitionSeconds < 0) throw FormatError(path, "acquisitionSeconds", "must be >= 0");
  set.halfLifeS = fields.finiteNumber("halfLifeS", 0.0);
  set.attenuationCorrected = fields.has("attenuationCorrected") &&
                             fields.get("attenuationCorrected").is_boolean() &&
                             fields.get("attenuationCorrected").get<bool>();
  readDeposition(fields, "prompts", set.prompts);
  readDeposition(fields, "delayed", set.delayed);
  const io::JsonFields images = fields.child("images");
  set.data = HistoImages(g, v);
  readImage(path, images, "data", set.data);
  if (images.has("multiplicative")) {
    set.multiplicative = HistoImages(g, v);
    readImage(path, images, "multiplicative", set.multiplicative);
  }
  if (images.has("additive")) {
    set.additive = HistoImages(g, v);
    readImage(path, images, "additive", set.additive);
  }
  return set;
}

}  // namespace tomowb::pet
