#include "recon/io/FileSummary.h"

#include <cstdio>
#include <nlohmann/json.hpp>

#include "recon/core/MemoryBudget.h"

namespace tomowb::io {

namespace {

std::string number(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%.6g", v);
  return text;
}

std::string triple(const Eigen::Vector3d& v) {
  return number(v.x()) + " x " + number(v.y()) + " x " + number(v.z());
}

}  // namespace

std::string toString(FileKind kind) {
  return kind == FileKind::Volume ? "volume" : "projections";
}

std::string FileSummary::toText() const {
  std::string text;
  auto line = [&text](const std::string& key, const std::string& value) {
    text += key + ": " + value + "\n";
  };
  line("file", path.string());
  line("kind", toString(kind));
  line("format", format);
  if (kind == FileKind::Volume)
    line("shape", std::to_string(sizeX) + " x " + std::to_string(sizeY) + " x " +
                      std::to_string(sizeZ) + " voxels (x, y, z)");
  else
    line("shape", std::to_string(sizeZ) + " views of " + std::to_string(sizeX) + " x " +
                      std::to_string(sizeY) + " pixels (cols x rows)");
  line("sample type", sampleType);
  line("data", formatBytes(dataBytes));
  if (voxelSizeMm) line("voxel size", triple(*voxelSizeMm) + " mm");
  if (originMm) line("origin", triple(*originMm) + " mm");
  if (valueRange)
    line("value range", number(valueRange->first) + " .. " + number(valueRange->second));
  for (const auto& [key, value] : details) line(key, value);
  return text;
}

nlohmann::json FileSummary::toJson() const {
  nlohmann::json j;
  j["path"] = path.string();
  j["kind"] = toString(kind);
  j["format"] = format;
  j["shape"] = kind == FileKind::Volume
                   ? nlohmann::json{{"nx", sizeX}, {"ny", sizeY}, {"nz", sizeZ}}
                   : nlohmann::json{{"cols", sizeX}, {"rows", sizeY}, {"views", sizeZ}};
  j["sampleType"] = sampleType;
  j["dataBytes"] = dataBytes;
  if (voxelSizeMm) j["voxelSizeMm"] = {voxelSizeMm->x(), voxelSizeMm->y(), voxelSizeMm->z()};
  if (originMm) j["originMm"] = {originMm->x(), originMm->y(), originMm->z()};
  if (valueRange) j["valueRange"] = {valueRange->first, valueRange->second};
  nlohmann::json extra = nlohmann::json::object();
  for (const auto& [key, value] : details) extra[key] = value;
  j["details"] = extra;
  return j;
}

}  // namespace tomowb::io
