#include "recon/io/RawVolumeIo.h"

#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "recon/core/Error.h"
#include "recon/io/AtomicFileWriter.h"
#include "recon/io/GeometryJson.h"
#include "recon/io/InputFile.h"
#include "recon/io/JsonFields.h"
#include "recon/io/ReaderLimits.h"

namespace tomowb::io {

namespace {

using nlohmann::json;

constexpr int kRawFormatVersion = 1;
constexpr const char* kVolumeFormat = "tomowb-volume";
constexpr const char* kProjectionsFormat = "tomowb-projections";

// A value from the file, quoted and cut short so a hostile file cannot flood the message.
std::string quotedValue(std::string_view value) {
  std::string text(value.substr(0, 64));
  for (char& c : text) {
    if (static_cast<unsigned char>(c) < 0x20) c = '?';
  }
  return "'" + text + (value.size() > 64 ? "...'" : "'");
}

struct OpenedRaw {
  RawSidecar sidecar;
  std::unique_ptr<InputFile> data;
};

std::filesystem::path dataPathFromSidecar(const JsonFields& fields,
                                          const std::filesystem::path& sidecarPath) {
  if (!fields.has("dataFile")) return rawDataPathFor(sidecarPath);
  const std::string name = fields.string("dataFile");
  // A plain name in the sidecar's folder: a sidecar must not point elsewhere on the disk.
  if (name.empty() || name == "." || name == ".." || name.find('/') != std::string::npos ||
      name.find('\0') != std::string::npos)
    throw FormatError(sidecarPath, "dataFile",
                      "must be a file name in the sidecar's folder, got " + quotedValue(name));
  return sidecarPath.parent_path() / name;
}

void readSampleFields(const JsonFields& fields, RawSidecar& s) {
  const std::string dtype = fields.string("dtype");
  const auto type = sampleTypeFromString(dtype);
  if (!type)
    throw FormatError(s.sidecarPath, "dtype",
                      "unknown sample type " + quotedValue(dtype) +
                          " (expected uint8, int8, uint16, int16, uint32, int32, float16, "
                          "float32 or float64)");
  s.sampleType = *type;
  if (fields.has("byteOrder")) {
    const std::string order = fields.string("byteOrder");
    if (order == "little")
      s.byteOrder = ByteOrder::Little;
    else if (order == "big")
      s.byteOrder = ByteOrder::Big;
    else
      throw FormatError(s.sidecarPath, "byteOrder",
                        "must be 'little' or 'big', got " + quotedValue(order));
  }
}

void readGeometryFields(const JsonFields& fields, RawSidecar& s) {
  s.views = fields.axisLength("views");
  s.rows = fields.axisLength("rows");
  s.cols = fields.axisLength("cols");
  try {
    s.geometry = geometryFromJson(fields.get("geometry"), s.sidecarPath);
  } catch (const ParameterError& e) {
    throw FormatError(s.sidecarPath, "geometry", e.what());
  }
  if (s.geometry.viewCount() != s.views)
    throw FormatError(s.sidecarPath, "views",
                      "is " + std::to_string(s.views) + " but the geometry has " +
                          std::to_string(s.geometry.viewCount()) + " views");
  if (s.geometry.detector().rows != s.rows || s.geometry.detector().cols != s.cols)
    throw FormatError(s.sidecarPath, "rows",
                      "rows x cols is " + std::to_string(s.rows) + "x" + std::to_string(s.cols) +
                          " but the geometry's detector is " +
                          std::to_string(s.geometry.detector().rows) + "x" +
                          std::to_string(s.geometry.detector().cols));
}

OpenedRaw openRaw(const std::filesystem::path& rawOrJsonPath) {
  OpenedRaw opened;
  RawSidecar& s = opened.sidecar;
  s.sidecarPath = rawSidecarPathFor(rawOrJsonPath);
  json document;
  {
    const InputFile sidecarFile(s.sidecarPath);
    document = parseJsonText(sidecarFile.readAll(kMaxSidecarBytes, "JSON sidecar"), s.sidecarPath);
  }
  const JsonFields fields(document, s.sidecarPath);
  const std::string format = fields.string("format");
  if (format == kVolumeFormat)
    s.content = RawContent::Volume;
  else if (format == kProjectionsFormat)
    s.content = RawContent::Projections;
  else
    throw FormatError(
        s.sidecarPath, "format",
        "must be 'tomowb-volume' or 'tomowb-projections', got " + quotedValue(format));
  const std::int64_t version = fields.integer("version", 0, 1'000'000);
  if (version != kRawFormatVersion)
    throw FormatError(s.sidecarPath, "version",
                      "is " + std::to_string(version) + "; this build reads version " +
                          std::to_string(kRawFormatVersion));
  readSampleFields(fields, s);
  if (s.content == RawContent::Volume) {
    const auto shape = fields.axisLengths("shape", 3);
    s.shape = VolumeShape{shape[0], shape[1], shape[2]};
    s.voxelSizeMm = fields.positiveVector3("voxelSizeMm");
    s.originMm = fields.finiteVector3("originMm");
    s.payloadBytes = checkedPayloadBytes(
        s.sidecarPath, "shape", {s.shape.nx, s.shape.ny, s.shape.nz}, sampleBytes(s.sampleType));
  } else {
    readGeometryFields(fields, s);
    s.payloadBytes = checkedPayloadBytes(s.sidecarPath, "views", {s.views, s.rows, s.cols},
                                         sampleBytes(s.sampleType));
  }
  s.dataPath = dataPathFromSidecar(fields, s.sidecarPath);
  opened.data = std::make_unique<InputFile>(s.dataPath, Symlinks::Refuse);
  if (opened.data->size() != s.payloadBytes)
    throw FormatError(s.dataPath, "size",
                      "the file has " + std::to_string(opened.data->size()) + " bytes but " +
                          s.sidecarPath.filename().string() + " declares " +
                          std::to_string(s.payloadBytes) + " bytes of " +
                          std::string(toString(s.sampleType)));
  return opened;
}

std::string jsonText(const json& document) {
  return document.dump(2) + "\n";
}

json vector3Json(const Eigen::Vector3d& v) {
  return json::array({v.x(), v.y(), v.z()});
}

void writePair(const std::filesystem::path& rawOrJsonPath, const json& sidecar,
               std::span<const float> samples) {
  AtomicFileWriter data(rawDataPathFor(rawOrJsonPath));
  writeFloat32(data, samples, ByteOrder::Little);
  AtomicFileWriter text(rawSidecarPathFor(rawOrJsonPath));
  text.write(jsonText(sidecar));
  // Samples first: a sidecar never points at a missing or older sample file.
  data.commit();
  text.commit();
}

}  // namespace

std::filesystem::path rawSidecarPathFor(const std::filesystem::path& path) {
  std::filesystem::path p = path;
  return p.replace_extension(".json");
}

std::filesystem::path rawDataPathFor(const std::filesystem::path& path) {
  std::filesystem::path p = path;
  return p.replace_extension(".raw");
}

RawSidecar readRawSidecar(const std::filesystem::path& rawOrJsonPath) {
  return openRaw(rawOrJsonPath).sidecar;
}

Volume readVolumeRaw(const std::filesystem::path& rawOrJsonPath) {
  const OpenedRaw opened = openRaw(rawOrJsonPath);
  const RawSidecar& s = opened.sidecar;
  if (s.content != RawContent::Volume)
    throw FormatError(s.sidecarPath, "format", "holds projections, not a volume");
  Volume volume(s.shape, s.voxelSizeMm, s.originMm);
  readSamplesAsFloat(*opened.data, 0, s.sampleType, s.byteOrder, volume.voxels(), "samples");
  return volume;
}

ProjectionStack readProjectionsRaw(const std::filesystem::path& rawOrJsonPath) {
  OpenedRaw opened = openRaw(rawOrJsonPath);
  RawSidecar& s = opened.sidecar;
  if (s.content != RawContent::Projections)
    throw FormatError(s.sidecarPath, "format", "holds a volume, not projections");
  ProjectionStack stack(std::move(s.geometry));
  readSamplesAsFloat(*opened.data, 0, s.sampleType, s.byteOrder, stack.pixels(), "samples");
  return stack;
}

namespace {
json volumeSidecar(const std::filesystem::path& rawOrJsonPath, const VolumeShape& shape,
                   const Eigen::Vector3d& voxelSizeMm, const Eigen::Vector3d& originMm) {
  json sidecar;
  sidecar["format"] = kVolumeFormat;
  sidecar["version"] = kRawFormatVersion;
  sidecar["shape"] = json::array({shape.nx, shape.ny, shape.nz});
  sidecar["voxelSizeMm"] = vector3Json(voxelSizeMm);
  sidecar["originMm"] = vector3Json(originMm);
  sidecar["dtype"] = "float32";
  sidecar["byteOrder"] = "little";
  sidecar["dataFile"] = rawDataPathFor(rawOrJsonPath).filename().string();
  return sidecar;
}
}  // namespace

std::string volumeRawSidecarText(const std::filesystem::path& rawOrJsonPath,
                                 const VolumeShape& shape, const Eigen::Vector3d& voxelSizeMm,
                                 const Eigen::Vector3d& originMm) {
  return jsonText(volumeSidecar(rawOrJsonPath, shape, voxelSizeMm, originMm));
}

void writeVolumeRaw(const std::filesystem::path& rawOrJsonPath, const Volume& volume) {
  if (volume.empty()) throw ParameterError("volume", "is empty: nothing to write");
  writePair(rawOrJsonPath,
            volumeSidecar(rawOrJsonPath, volume.shape(), volume.voxelSizeMm(), volume.originMm()),
            volume.voxels());
}

void writeProjectionsRaw(const std::filesystem::path& rawOrJsonPath,
                         const ProjectionStack& projections) {
  if (projections.empty()) throw ParameterError("projections", "are empty: nothing to write");
  json sidecar;
  sidecar["format"] = kProjectionsFormat;
  sidecar["version"] = kRawFormatVersion;
  sidecar["views"] = projections.viewCount();
  sidecar["rows"] = projections.rows();
  sidecar["cols"] = projections.cols();
  sidecar["dtype"] = "float32";
  sidecar["byteOrder"] = "little";
  sidecar["dataFile"] = rawDataPathFor(rawOrJsonPath).filename().string();
  sidecar["geometry"] = geometryToJson(projections.geometry());
  writePair(rawOrJsonPath, sidecar, projections.pixels());
}

}  // namespace tomowb::io
