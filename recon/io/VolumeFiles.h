// VolumeFiles: one entry point for every volume and projection file format, chosen by the
// path (docs/file-formats.md):
//   ".json" / ".raw"  our raw + JSON sidecar (RawVolumeIo)
//   ".mhd" / ".mha"   MetaImage (MetaImageIo)
//   ".tif" / ".tiff"  multi-page TIFF, one page per slice (TiffIo)
//   a folder          (or a path ending in '/') a per-slice TIFF series (TiffIo)
//   ".npy"            NumPy (NpyIo)
//   ".rct"            RabbitCT projections (RabbitCtReader; the format has no signature, so
//                     this extension is our convention)
//   ".mrc" ".st" ".ali" ".rec" ".map" ".mrcs" ".preali"
//                     MRC (MrcIo); as projections an MRC stack is an electron-tomography tilt
//                     series with its IMOD companion files (TiltSeriesFiles)
// Extensions are matched case-insensitively. Anything else is a ParameterError listing these.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "recon/core/Volume.h"
#include "recon/data/ProjectionStack.h"
#include "recon/io/FileSummary.h"
#include "recon/io/MrcIo.h"
#include "recon/io/TiffIo.h"

namespace tomowb::io {

enum class DataFormat { RawJson, MetaImage, Tiff, TiffSeries, Npy, RabbitCt, Mrc, Hdf5 };

std::string toString(DataFormat format);
// The format a path names (ParameterError if none). Reads nothing.
DataFormat dataFormatForPath(const std::filesystem::path& path);
// True if this build can read and write the format (TIFF needs libtiff, HDF5 libhdf5).
bool isFormatAvailable(DataFormat format) noexcept;

struct VolumeWriteOptions {
  TiffWriteOptions tiff;  // sample type and uint16 mapping for TIFF files and series
  MrcWriteOptions mrc;    // mode, axis order (identity by default) and label for MRC files
};

Volume readVolume(const std::filesystem::path& path);
// Atomic: on failure nothing is left at `path` (see AtomicFileWriter).
void writeVolume(const std::filesystem::path& path, const Volume& volume,
                 const VolumeWriteOptions& options = {});

// Raw + JSON (with its geometry), RabbitCT (.rct, all views, default pixel pitch) or an MRC tilt
// series (loadTiltSeries with findCompanionFiles: NAME.tlt or NAME.rawtlt, else the SerialEM
// header; NAME.xf and NAME.xtilt when present; the header's pixel size). Warnings of the tilt-
// series loader (unknown pixel size, odd alignment) are appended to `warnings` if given.
ProjectionStack readProjections(const std::filesystem::path& path,
                                std::vector<std::string>* warnings = nullptr);
// Raw + JSON only: the other formats cannot carry the geometry.
void writeProjections(const std::filesystem::path& path, const ProjectionStack& projections);

// Header facts of any file above; the value range when the data is at most 256 MiB. An MRC file
// counts as projections by mrcHoldsTiltSeries (ProjectionsWithGeometry.h): .st .ali .mrcs .preali,
// and .mrc with NAME.tlt / NAME.rawtlt beside it (any ispg) or ispg 0 and a SerialEM header.
FileSummary describeFile(const std::filesystem::path& path);

}  // namespace tomowb::io
