// FileSummary: what a data file holds, read from its header (for the CLI's `info` command and
// the GUI's open dialog): kind, format, shape, stored sample type, voxel size and origin where
// the format has them, and the value range when the data is small enough to scan quickly.
#pragma once

#include <Eigen/Core>
#include <cstdint>
#include <filesystem>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace tomowb::io {

enum class FileKind { Volume, Projections };

struct FileSummary {
  std::filesystem::path path;
  FileKind kind = FileKind::Volume;
  std::string format;  // "tomowb raw + JSON", "MetaImage", "TIFF", "TIFF series", "NumPy", ...
  // Volumes: (nx, ny, nz). Projections: (cols, rows, views).
  std::int64_t sizeX = 0, sizeY = 0, sizeZ = 0;
  std::string sampleType;  // as stored: "float32", "uint16", ...
  std::uint64_t dataBytes = 0;
  std::optional<Eigen::Vector3d> voxelSizeMm;
  std::optional<Eigen::Vector3d> originMm;
  std::optional<std::pair<float, float>> valueRange;  // min, max of the finite values
  // Format-specific facts, in order: ("byte order", "big"), ("HU scale", "1000 0"), ...
  std::vector<std::pair<std::string, std::string>> details;

  // Several "key: value" lines for a terminal.
  std::string toText() const;
  nlohmann::json toJson() const;
};

std::string toString(FileKind kind);

}  // namespace tomowb::io
