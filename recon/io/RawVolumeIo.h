// Our own raw format: a headerless sample file "<name>.raw" beside a JSON sidecar
// "<name>.json" that says what it holds (docs/file-formats.md):
//   volume:      {"format": "tomowb-volume", "version": 1, "shape": [nx, ny, nz],
//                 "voxelSizeMm": [3], "originMm": [3], "dtype": "float32", "byteOrder": "little",
//                 "dataFile": "<name>.raw"}
//   projections: {"format": "tomowb-projections", "version": 1, "views": N, "rows": R,
//                 "cols": C, "dtype": "float32", "byteOrder": "little",
//                 "dataFile": "<name>.raw", "geometry": <geometryToJson>}
// The sample file holds x fastest then y then z (volumes) or [view][row][col] (projections).
// We write float32 little-endian; we read any dtype of SampleType in either byte order. The
// sample file must be exactly as long as the sidecar says. Functions take either file's path.
#pragma once

#include <Eigen/Core>
#include <cstdint>
#include <filesystem>
#include <string>

#include "recon/core/Volume.h"
#include "recon/data/ProjectionStack.h"
#include "recon/geometry/Geometry.h"
#include "recon/io/SampleType.h"

namespace tomowb::io {

enum class RawContent { Volume, Projections };

struct RawSidecar {
  RawContent content = RawContent::Volume;
  std::filesystem::path sidecarPath;
  std::filesystem::path dataPath;
  SampleType sampleType = SampleType::Float32;
  ByteOrder byteOrder = ByteOrder::Little;
  std::uint64_t payloadBytes = 0;
  // Volume
  VolumeShape shape;
  Eigen::Vector3d voxelSizeMm = Eigen::Vector3d::Ones();
  Eigen::Vector3d originMm = Eigen::Vector3d::Zero();
  // Projections
  std::int64_t views = 0, rows = 0, cols = 0;
  Geometry geometry;
};

// "<name>.json" for "<name>.raw" and the other way round (any other extension is replaced).
std::filesystem::path rawSidecarPathFor(const std::filesystem::path& path);
std::filesystem::path rawDataPathFor(const std::filesystem::path& path);

// Reads and checks the sidecar (and the sample file's length) without reading the samples.
RawSidecar readRawSidecar(const std::filesystem::path& rawOrJsonPath);

Volume readVolumeRaw(const std::filesystem::path& rawOrJsonPath);
void writeVolumeRaw(const std::filesystem::path& rawOrJsonPath, const Volume& volume);

// The sidecar text of a float32 little-endian volume whose samples are (or will be) in
// rawDataPathFor(rawOrJsonPath): for writers that put the samples there themselves, slab by slab
// (recon/scale).
std::string volumeRawSidecarText(const std::filesystem::path& rawOrJsonPath,
                                 const VolumeShape& shape, const Eigen::Vector3d& voxelSizeMm,
                                 const Eigen::Vector3d& originMm);

ProjectionStack readProjectionsRaw(const std::filesystem::path& rawOrJsonPath);
void writeProjectionsRaw(const std::filesystem::path& rawOrJsonPath,
                         const ProjectionStack& projections);

}  // namespace tomowb::io
