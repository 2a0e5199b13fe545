// VolumeFiles: one entry point for every volume and projection file format, chosen by the
// path (docs/file-formats.md):
//   ".json" / ".raw"  our raw + JSON sidecar (RawVolumeIo)
//   ".mhd" / ".mha"   MetaImage (MetaImageIo)
//   ".tif" / ".tiff"  multi-page TIFF, one page per slice (TiffIo)
//   a folder          (or a path ending in '/') a per-slice TIFF series (TiffIo)
//   ".npy"            NumPy (NpyIo)
//   ".rct"            RabbitCT projections (RabbitCtReader; the format has no signature, so
//                     this extension is our convention)
// Extensions are matched case-insensitively. Anything else is a ParameterError listing these.
#pragma once

#include <filesystem>
#include <string>

#include "recon/core/ProjectionStack.h"
#include "recon/core/Volume.h"
#include "recon/io/FileSummary.h"
#include "recon/io/TiffIo.h"

namespace tomowb::io {

enum class DataFormat { RawJson, MetaImage, Tiff, TiffSeries, Npy, RabbitCt };

std::string toString(DataFormat format);
// The format a path names (ParameterError if none). Reads nothing.
DataFormat dataFormatForPath(const std::filesystem::path& path);
// True if this build can read and write the format (TIFF needs libtiff).
bool isFormatAvailable(DataFormat format) noexcept;

struct VolumeWriteOptions {
  TiffWriteOptions tiff;  // sample type and uint16 mapping for TIFF files and series
};

Volume readVolume(const std::filesystem::path& path);
// Atomic: on failure nothing is left at `path` (see AtomicFileWriter).
void writeVolume(const std::filesystem::path& path, const Volume& volume,
                 const VolumeWriteOptions& options = {});

// Raw + JSON (with its geometry) or RabbitCT (.rct, all views, default pixel pitch).
ProjectionStack readProjections(const std::filesystem::path& path);
// Raw + JSON only: the other formats cannot carry the geometry.
void writeProjections(const std::filesystem::path& path, const ProjectionStack& projections);

// Header facts of any file above; the value range when the data is at most 256 MiB.
FileSummary describeFile(const std::filesystem::path& path);

}  // namespace tomowb::io
