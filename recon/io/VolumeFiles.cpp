#include "recon/io/VolumeFiles.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <span>
#include <string>

#include "recon/core/Error.h"
#include "recon/io/Hdf5Volume.h"
#include "recon/io/MetaImageIo.h"
#include "recon/io/NpyIo.h"
#include "recon/io/ProjectionsWithGeometry.h"
#include "recon/io/RabbitCtReader.h"
#include "recon/io/RawVolumeIo.h"
#include "recon/io/TiltSeriesFiles.h"

namespace tomowb::io {

namespace {

// Scanning this much takes well under a second from a warm cache; more is left to the user.
constexpr std::uint64_t kValueRangeMaxBytes = std::uint64_t{256} << 20;

std::string lowerExtension(const std::filesystem::path& path) {
  std::string ext = path.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return ext;
}

#if !TOMOWB_HAVE_TIFF
[[noreturn]] void throwNoTiff() {
  throw ParameterError("path", "this build has no TIFF support (libtiff was not found)");
}
#endif

std::optional<std::pair<float, float>> finiteRange(std::span<const float> values) {
  float lo = std::numeric_limits<float>::infinity(), hi = -lo;
  for (float v : values) {
    if (!std::isfinite(v)) continue;
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  if (lo > hi) return std::nullopt;
  return std::make_pair(lo, hi);
}

std::string numberText(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%.9g", v);
  return text;
}

FileSummary describeRaw(const std::filesystem::path& path) {
  const RawSidecar s = readRawSidecar(path);
  FileSummary f;
  f.path = path;
  f.format = "tomowb raw + JSON";
  f.sampleType = std::string(toString(s.sampleType));
  f.dataBytes = s.payloadBytes;
  f.details.emplace_back("sidecar", s.sidecarPath.string());
  f.details.emplace_back("data file", s.dataPath.string());
  f.details.emplace_back("byte order", std::string(toString(s.byteOrder)));
  if (s.content == RawContent::Volume) {
    f.kind = FileKind::Volume;
    f.sizeX = s.shape.nx;
    f.sizeY = s.shape.ny;
    f.sizeZ = s.shape.nz;
    f.voxelSizeMm = s.voxelSizeMm;
    f.originMm = s.originMm;
  } else {
    f.kind = FileKind::Projections;
    f.sizeX = s.cols;
    f.sizeY = s.rows;
    f.sizeZ = s.views;
    f.details.emplace_back("beam", toString(s.geometry.beam()));
  }
  return f;
}

FileSummary describeMetaImage(const std::filesystem::path& path) {
  const MetaImageHeader h = readMetaImageHeader(path);
  FileSummary f;
  f.path = path;
  f.format = h.dataPath == h.headerPath ? "MetaImage (data in the header file)"
                                        : "MetaImage (header + data file)";
  f.sizeX = h.shape.nx;
  f.sizeY = h.shape.ny;
  f.sizeZ = h.shape.nz;
  f.sampleType = std::string(toString(h.sampleType));
  f.dataBytes = h.payloadBytes;
  f.voxelSizeMm = h.spacingMm;
  f.originMm = h.offsetMm;
  f.details.emplace_back("dimensions", std::to_string(h.dimensions));
  f.details.emplace_back("data file", h.dataPath.string());
  f.details.emplace_back("data offset", std::to_string(h.dataOffset));
  f.details.emplace_back("byte order", std::string(toString(h.byteOrder)));
  return f;
}

FileSummary describeNpy(const std::filesystem::path& path) {
  const NpyHeader h = readNpyHeader(path);
  FileSummary f;
  f.path = path;
  f.format = "NumPy .npy " + std::to_string(h.majorVersion) + "." + std::to_string(h.minorVersion);
  const std::size_t n = h.shape.size();
  f.sizeX = h.shape[n - 1];
  f.sizeY = n >= 2 ? h.shape[n - 2] : 1;
  f.sizeZ = n >= 3 ? h.shape[n - 3] : 1;
  f.sampleType = std::string(toString(h.sampleType));
  f.dataBytes = h.payloadBytes;
  std::string shape = "(";
  for (std::size_t i = 0; i < n; ++i) shape += (i ? ", " : "") + std::to_string(h.shape[i]);
  f.details.emplace_back("numpy shape", shape + (n == 1 ? ",)" : ")"));
  f.details.emplace_back("descr", h.descr);
  f.details.emplace_back("fortran order", h.fortranOrder ? "yes" : "no");
  return f;
}

FileSummary describeRabbitCt(const std::filesystem::path& path) {
  const RabbitCtHeader h = readRabbitCtHeader(path);
  FileSummary f;
  f.path = path;
  f.kind = FileKind::Projections;
  f.format = "RabbitCT projections";
  f.sizeX = h.width;
  f.sizeY = h.height;
  f.sizeZ = h.viewCount;
  f.sampleType = "float32";
  f.dataBytes = static_cast<std::uint64_t>(h.width * h.height * h.viewCount) * 4;
  f.details.emplace_back("HU scale", numberText(h.huScale[0]) + " " + numberText(h.huScale[1]));
  f.details.emplace_back("bytes after the projections", std::to_string(h.trailingBytes));
  return f;
}

FileSummary describeMrc(const std::filesystem::path& path) {
  const MrcHeader h = readMrcHeader(path);
  FileSummary f;
  f.path = path;
  f.kind = mrcHoldsTiltSeries(path, h) ? FileKind::Projections : FileKind::Volume;
  f.format = h.version == 20140 ? "MRC2014" : "MRC";
  f.sizeX = h.nx;
  f.sizeY = h.ny;
  f.sizeZ = h.nz;
  f.sampleType = std::string(toString(h.sampleType));
  f.dataBytes = h.payloadBytes;
  if (h.hasVoxelSpacing()) f.voxelSizeMm = h.spacingMm;
  if (f.kind == FileKind::Volume && h.hasVoxelSpacing() && h.hasMapSignature)
    f.originMm = h.firstVoxelMm;
  f.details.emplace_back("mode",
                         std::to_string(h.mode) + " (" + std::string(toString(h.sampleType)) + ")");
  f.details.emplace_back("byte order", std::string(toString(h.byteOrder)));
  f.details.emplace_back("pixel spacing",
                         h.hasVoxelSpacing()
                             ? numberText(h.spacingMm.x() / kMmPerAngstrom) + " x " +
                                   numberText(h.spacingMm.y() / kMmPerAngstrom) + " x " +
                                   numberText(h.spacingMm.z() / kMmPerAngstrom) + " A"
                             : std::string("not fully given (cell or mx/my/mz is 0)"));
  f.details.emplace_back("ispg", std::to_string(h.spaceGroup));
  f.details.emplace_back("extended header",
                         std::to_string(h.extendedHeaderBytes) + " bytes" +
                             (h.extendedHeaderType.empty() ? "" : ", " + h.extendedHeaderType));
  std::string tilts = "none";
  if (h.tiltAnglesDeg && !h.tiltAnglesDeg->empty()) {
    const auto [lo, hi] = std::minmax_element(h.tiltAnglesDeg->begin(), h.tiltAnglesDeg->end());
    tilts = std::to_string(h.tiltAnglesDeg->size()) + " in the SerialEM header, " +
            numberText(*lo) + " .. " + numberText(*hi) + " degrees";
  }
  const TiltSeriesSources companions = findCompanionFiles(path);
  if (!companions.tiltAngles.empty()) tilts += "; file " + companions.tiltAngles.string();
  f.details.emplace_back("tilt angles", tilts);
  if (!companions.alignment.empty())
    f.details.emplace_back("alignment", companions.alignment.string());
  if (!h.labels.empty()) f.details.emplace_back("label", h.labels.front());
  for (const std::string& warning : h.warnings) f.details.emplace_back("warning", warning);
  return f;
}

#if TOMOWB_HAVE_TIFF
FileSummary describeTiff(const std::filesystem::path& path, bool series) {
  const TiffInfo info = readTiffInfo(path);
  FileSummary f;
  f.path = path;
  f.format = series ? "TIFF series (one file per slice)" : "TIFF (one page per slice)";
  f.sizeX = info.width;
  f.sizeY = info.height;
  f.sizeZ = info.pages;
  f.sampleType = std::string(toString(info.sampleType));
  f.dataBytes = static_cast<std::uint64_t>(info.width * info.height * info.pages) *
                sampleBytes(info.sampleType);
  if (info.hasOurMetadata) f.voxelSizeMm = info.voxelSizeMm;
  f.originMm = info.originMm;
  f.details.emplace_back("compression", info.compression);
  f.details.emplace_back("layout", info.tiled ? "tiles" : "strips");
  if (info.slope)
    f.details.emplace_back("value mapping", "value = stored * " + numberText(*info.slope) + " + " +
                                                numberText(*info.intercept));
  return f;
}
#endif

}  // namespace

std::string toString(DataFormat format) {
  switch (format) {
    case DataFormat::RawJson:
      return "raw + JSON";
    case DataFormat::MetaImage:
      return "MetaImage";
    case DataFormat::Tiff:
      return "TIFF";
    case DataFormat::TiffSeries:
      return "TIFF series";
    case DataFormat::Npy:
      return "NumPy";
    case DataFormat::RabbitCt:
      return "RabbitCT";
    case DataFormat::Mrc:
      return "MRC";
    case DataFormat::Hdf5:
      return "HDF5";
  }
  return "unknown";
}

DataFormat dataFormatForPath(const std::filesystem::path& path) {
  std::error_code ec;
  if (path.filename().empty() || std::filesystem::is_directory(path, ec))
    return DataFormat::TiffSeries;
  const std::string ext = lowerExtension(path);
  if (ext == ".json" || ext == ".raw") return DataFormat::RawJson;
  if (ext == ".mhd" || ext == ".mha") return DataFormat::MetaImage;
  if (ext == ".tif" || ext == ".tiff") return DataFormat::Tiff;
  if (ext == ".npy") return DataFormat::Npy;
  if (ext == ".rct") return DataFormat::RabbitCt;
  if (isMrcPath(path)) return DataFormat::Mrc;
  if (isHdf5Path(path)) return DataFormat::Hdf5;
  throw ParameterError("path", "'" + path.string() + "': unknown file type '" + ext +
                                   "'; use .json/.raw, .mhd/.mha, .tif/.tiff, a folder of TIFF "
                                   "slices, .npy, .rct, MRC (.mrc .st .ali .rec .map .mrcs "
                                   ".preali) or HDF5 (.h5 .hdf5, volumes)");
}

bool isFormatAvailable(DataFormat format) noexcept {
  if (format == DataFormat::Hdf5) return hdf5VolumesSupported();
  return TOMOWB_HAVE_TIFF || (format != DataFormat::Tiff && format != DataFormat::TiffSeries);
}

Volume readVolume(const std::filesystem::path& path) {
  switch (dataFormatForPath(path)) {
    case DataFormat::RawJson:
      return readVolumeRaw(path);
    case DataFormat::MetaImage:
      return readMetaImage(path);
    case DataFormat::Npy:
      return readNpy(path);
    case DataFormat::Mrc:
      return readMrcVolume(path);
    case DataFormat::Hdf5:
      return readHdf5Volume(path);
#if TOMOWB_HAVE_TIFF
    case DataFormat::Tiff:
      return readTiffVolume(path);
    case DataFormat::TiffSeries:
      return readTiffSlices(path);
#else
    case DataFormat::Tiff:
    case DataFormat::TiffSeries:
      throwNoTiff();
#endif
    case DataFormat::RabbitCt:
      break;
  }
  throw ParameterError("path", "'" + path.string() + "' holds RabbitCT projections, not a volume");
}

void writeVolume(const std::filesystem::path& path, const Volume& volume,
                 const VolumeWriteOptions& options) {
  switch (dataFormatForPath(path)) {
    case DataFormat::RawJson:
      return writeVolumeRaw(path, volume);
    case DataFormat::MetaImage:
      return writeMetaImage(path, volume);
    case DataFormat::Npy:
      return writeNpy(path, volume);
    case DataFormat::Mrc:
      return writeMrcVolume(path, volume, options.mrc);
    case DataFormat::Hdf5:
      return writeHdf5Volume(path, volume);
#if TOMOWB_HAVE_TIFF
    case DataFormat::Tiff:
      return writeTiffVolume(path, volume, options.tiff);
    case DataFormat::TiffSeries:
      return writeTiffSlices(path, volume, options.tiff);
#else
    case DataFormat::Tiff:
    case DataFormat::TiffSeries:
      (void)options;
      throwNoTiff();
#endif
    case DataFormat::RabbitCt:
      break;
  }
  throw ParameterError("path", "we do not write RabbitCT files ('" + path.string() + "')");
}

ProjectionStack readProjections(const std::filesystem::path& path,
                                std::vector<std::string>* warnings) {
  const DataFormat format = dataFormatForPath(path);
  if (format == DataFormat::RawJson) return readProjectionsRaw(path);
  if (format == DataFormat::RabbitCt) return std::move(readRabbitCt(path).projections);
  if (format == DataFormat::Mrc) {
    LoadedTiltSeries loaded = loadTiltSeries(findCompanionFiles(path), {});
    if (warnings) warnings->insert(warnings->end(), loaded.warnings.begin(), loaded.warnings.end());
    return std::move(loaded.projections);
  }
  throw ParameterError("path", "'" + path.string() + "' is " + toString(format) +
                                   ", which carries no geometry: read projections from .json/.raw, "
                                   ".rct or an MRC tilt series, or a TIFF stack with a geometry "
                                   "file");
}

void writeProjections(const std::filesystem::path& path, const ProjectionStack& projections) {
  if (dataFormatForPath(path) != DataFormat::RawJson)
    throw ParameterError("path", "'" + path.string() +
                                     "': projections are written as .raw + .json (with their "
                                     "geometry)");
  writeProjectionsRaw(path, projections);
}

FileSummary describeFile(const std::filesystem::path& path) {
  const DataFormat format = dataFormatForPath(path);
  FileSummary f;
  switch (format) {
    case DataFormat::RawJson:
      f = describeRaw(path);
      break;
    case DataFormat::MetaImage:
      f = describeMetaImage(path);
      break;
    case DataFormat::Npy:
      f = describeNpy(path);
      break;
    case DataFormat::RabbitCt:
      f = describeRabbitCt(path);
      break;
    case DataFormat::Mrc:
      f = describeMrc(path);
      break;
    case DataFormat::Hdf5: {
      const VolumeGrid grid = readHdf5VolumeGrid(path);
      f.path = path;
      f.kind = FileKind::Volume;
      f.format = "HDF5 (dataset /volume)";
      f.sizeX = grid.shape.nx;
      f.sizeY = grid.shape.ny;
      f.sizeZ = grid.shape.nz;
      f.sampleType = "float32";
      f.dataBytes = static_cast<std::uint64_t>(grid.shape.voxelCount()) * 4;
      f.voxelSizeMm = grid.voxelSizeMm;
      f.originMm = grid.originMm;
      break;
    }
#if TOMOWB_HAVE_TIFF
    case DataFormat::Tiff:
    case DataFormat::TiffSeries:
      f = describeTiff(path, format == DataFormat::TiffSeries);
      break;
#else
    case DataFormat::Tiff:
    case DataFormat::TiffSeries:
      throwNoTiff();
#endif
  }
  const std::uint64_t floatBytes = static_cast<std::uint64_t>(f.sizeX * f.sizeY * f.sizeZ) * 4;
  if (std::max(f.dataBytes, floatBytes) <= kValueRangeMaxBytes) {
    // An MRC stack is read as plain images: its tilt angles may be missing.
    if (f.kind == FileKind::Volume || format == DataFormat::Mrc)
      f.valueRange = finiteRange(readVolume(path).voxels());
    else
      f.valueRange = finiteRange(readProjections(path).pixels());
  }
  return f;
}

}  // namespace tomowb::io
