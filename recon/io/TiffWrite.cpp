// TiffWrite.cpp: the writers of TiffIo.h (writeTiffVolume, writeTiffSlices,
// writeTiffProjections): float32 or uint16 pages in uncompressed strips, BigTIFF when classic
// offsets would overflow, our JSON ImageDescription on page 0, through an atomic file or folder.
#include <tiffio.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>

#include "recon/core/Error.h"
#include "recon/core/ParallelFor.h"
#include "recon/io/AtomicDirectoryWriter.h"
#include "recon/io/AtomicFileWriter.h"
#include "recon/io/TiffInternal.h"
#include "recon/io/TiffIo.h"

namespace tomowb::io {

namespace {

using detail::kMetadataFormat;
using detail::kMetadataVersion;
using detail::openOptions;
using detail::ScopedMessages;
using detail::TiffHandle;
using detail::TiffMessages;
using nlohmann::json;

// Strips of about 256 KiB when we write: small enough to stream, large enough to be cheap.
constexpr std::int64_t kWriteStripBytes = std::int64_t{256} * 1024;

void checkWriteOptions(const TiffWriteOptions& options) {
  if (options.sampleType != TiffSampleType::UInt16) return;
  if (!std::isfinite(options.slope) || options.slope == 0.0)
    throw ParameterError("tiff.slope", "must be finite and not 0");
  if (!std::isfinite(options.intercept)) throw ParameterError("tiff.intercept", "must be finite");
}

json mappingJson(const TiffWriteOptions& options) {
  return json{{"slope", options.slope}, {"intercept", options.intercept}};
}

std::uint16_t toStored(float value, const TiffWriteOptions& o, std::int64_t page, std::size_t i,
                       std::int64_t width) {
  const double stored = std::round((static_cast<double>(value) - o.intercept) / o.slope);
  if (!(stored >= 0.0 && stored <= 65535.0)) {
    throw ParameterError(
        "tiff.slope",
        "value " + std::to_string(value) + " at (" +
            std::to_string(static_cast<std::int64_t>(i) % width) + ", " +
            std::to_string(static_cast<std::int64_t>(i) / width) + ", " + std::to_string(page) +
            ") maps outside 0..65535; choose slope = (max - min) / 65535 and intercept = min");
  }
  return static_cast<std::uint16_t>(stored);
}

struct PageSet {
  std::int64_t width = 0, height = 0, pages = 0;
  std::function<std::span<const float>(std::int64_t)> page;
};

void setPageTags(TIFF* tif, const PageSet& set, std::int64_t page, const TiffWriteOptions& o,
                 std::uint32_t rowsPerStrip, const std::string& description, bool multiPage) {
  const bool uint16 = o.sampleType == TiffSampleType::UInt16;
  TIFFSetField(tif, TIFFTAG_IMAGEWIDTH, static_cast<std::uint32_t>(set.width));
  TIFFSetField(tif, TIFFTAG_IMAGELENGTH, static_cast<std::uint32_t>(set.height));
  TIFFSetField(tif, TIFFTAG_SAMPLESPERPIXEL, 1);
  TIFFSetField(tif, TIFFTAG_BITSPERSAMPLE, uint16 ? 16 : 32);
  TIFFSetField(tif, TIFFTAG_SAMPLEFORMAT, uint16 ? SAMPLEFORMAT_UINT : SAMPLEFORMAT_IEEEFP);
  TIFFSetField(tif, TIFFTAG_PHOTOMETRIC, PHOTOMETRIC_MINISBLACK);
  TIFFSetField(tif, TIFFTAG_PLANARCONFIG, PLANARCONFIG_CONTIG);
  TIFFSetField(tif, TIFFTAG_COMPRESSION, COMPRESSION_NONE);
  TIFFSetField(tif, TIFFTAG_ROWSPERSTRIP, rowsPerStrip);
  if (multiPage) {
    TIFFSetField(tif, TIFFTAG_SUBFILETYPE, FILETYPE_PAGE);
    if (set.pages <= 65535)
      TIFFSetField(tif, TIFFTAG_PAGENUMBER, static_cast<std::uint16_t>(page),
                   static_cast<std::uint16_t>(set.pages));
  }
  if (page == 0) {
    TIFFSetField(tif, TIFFTAG_IMAGEDESCRIPTION, description.c_str());
    TIFFSetField(tif, TIFFTAG_SOFTWARE, "Tomo Workbench " TOMOWB_VERSION);
  }
}

void writePageSet(const std::filesystem::path& path, const PageSet& set, const TiffWriteOptions& o,
                  const std::string& description) {
  checkWriteOptions(o);
  TiffMessages messages;
  const ScopedMessages scope(messages);
  const bool uint16 = o.sampleType == TiffSampleType::UInt16;
  const std::int64_t bytesPerSample = uint16 ? 2 : 4;
  const std::int64_t rowBytes = set.width * bytesPerSample;
  const auto rowsPerStrip = static_cast<std::uint32_t>(
      std::clamp<std::int64_t>(kWriteStripBytes / rowBytes, 1, set.height));
  // Classic TIFF offsets are 32-bit: go BigTIFF with a margin for the page headers.
  const bool big = static_cast<std::uint64_t>(rowBytes) * set.height * set.pages >
                   (std::uint64_t{1} << 32) - (std::uint64_t{64} << 20);

  AtomicFileWriter out(path);
  const int fd = out.duplicateHandle();
  const auto options = openOptions(messages);
  TiffHandle tif(TIFFFdOpenExt(fd, path.c_str(), big ? "w8" : "w", options.get()));
  if (!tif) {
    ::close(fd);
    throw IoError(path, "cannot start the TIFF file: " + messages.take("libtiff failed"));
  }
  std::vector<std::byte> strip(static_cast<std::size_t>(rowsPerStrip * rowBytes));
  for (std::int64_t page = 0; page < set.pages; ++page) {
    setPageTags(tif.get(), set, page, o, rowsPerStrip, description, set.pages > 1);
    const std::span<const float> values = set.page(page);
    for (std::int64_t row = 0, s = 0; row < set.height; row += rowsPerStrip, ++s) {
      const std::int64_t rows = std::min<std::int64_t>(rowsPerStrip, set.height - row);
      const auto count = static_cast<std::size_t>(rows * set.width);
      const std::size_t first = static_cast<std::size_t>(row * set.width);
      if (uint16) {
        auto* dst = reinterpret_cast<std::uint16_t*>(strip.data());
        for (std::size_t i = 0; i < count; ++i)
          dst[i] = toStored(values[first + i], o, page, first + i, set.width);
      } else {
        std::memcpy(strip.data(), values.data() + first, count * 4);
      }
      if (TIFFWriteEncodedStrip(tif.get(), static_cast<std::uint32_t>(s), strip.data(),
                                static_cast<tmsize_t>(count) * bytesPerSample) < 0)
        throw IoError(path, "write failed: " + messages.take("libtiff failed (disk full?)"));
    }
    if (!TIFFWriteDirectory(tif.get()))
      throw IoError(path, "write failed: " + messages.take("libtiff failed (disk full?)"));
  }
  tif.reset();  // closes our duplicate descriptor
  if (!messages.firstError.empty()) throw IoError(path, "write failed: " + messages.take(""));
  out.commit();
}

json metadataJson(const char* content, const TiffWriteOptions& o) {
  json j;
  j["format"] = kMetadataFormat;
  j["version"] = kMetadataVersion;
  j["content"] = content;
  if (o.sampleType == TiffSampleType::UInt16) j["valueMapping"] = mappingJson(o);
  return j;
}

json volumeMetadata(const Volume& volume, const TiffWriteOptions& o) {
  json j = metadataJson("volume", o);
  j["shape"] = json::array({volume.nx(), volume.ny(), volume.nz()});
  const auto& s = volume.voxelSizeMm();
  const auto& origin = volume.originMm();
  j["voxelSizeMm"] = json::array({s.x(), s.y(), s.z()});
  j["originMm"] = json::array({origin.x(), origin.y(), origin.z()});
  return j;
}

PageSet volumePages(const Volume& volume) {
  return PageSet{volume.nx(), volume.ny(), volume.nz(), [&volume](std::int64_t z) {
                   const auto n = static_cast<std::size_t>(volume.nx() * volume.ny());
                   return volume.voxels().subspan(static_cast<std::size_t>(z) * n, n);
                 }};
}

}  // namespace

void writeTiffVolume(const std::filesystem::path& path, const Volume& volume,
                     const TiffWriteOptions& options) {
  if (volume.empty()) throw ParameterError("volume", "is empty: nothing to write");
  writePageSet(path, volumePages(volume), options, volumeMetadata(volume, options).dump());
}

std::string tiffSliceFileName(std::int64_t slice, std::int64_t slices) {
  const int digits = std::max<int>(4, static_cast<int>(std::to_string(slices - 1).size()));
  std::string index = std::to_string(slice);
  index.insert(0, static_cast<std::size_t>(digits) - std::min<std::size_t>(index.size(), digits),
               '0');
  return "slice_" + index + ".tif";
}

void writeTiffSeriesSlice(const std::filesystem::path& folder, std::span<const float> samples,
                          const VolumeShape& shape, const Eigen::Vector3d& voxelSizeMm,
                          const Eigen::Vector3d& originMm, std::int64_t slice) {
  if (slice < 0 || slice >= shape.nz ||
      samples.size() != static_cast<std::size_t>(shape.nx * shape.ny))
    throw ParameterError("slice", "slice " + std::to_string(slice) + " of " +
                                      std::to_string(shape.nz) + " does not fit the series");
  const TiffWriteOptions options;  // float32
  json metadata = metadataJson("volume", options);
  metadata["shape"] = json::array({shape.nx, shape.ny, shape.nz});
  metadata["voxelSizeMm"] = json::array({voxelSizeMm.x(), voxelSizeMm.y(), voxelSizeMm.z()});
  metadata["originMm"] = json::array({originMm.x(), originMm.y(), originMm.z()});
  metadata["sliceIndex"] = slice;
  const PageSet one{shape.nx, shape.ny, 1, [samples](std::int64_t) { return samples; }};
  writePageSet(folder / tiffSliceFileName(slice, shape.nz), one, options, metadata.dump());
}

void writeTiffSlices(const std::filesystem::path& folder, const Volume& volume,
                     const TiffWriteOptions& options) {
  if (volume.empty()) throw ParameterError("volume", "is empty: nothing to write");
  checkWriteOptions(options);
  AtomicDirectoryWriter out(folder);
  const json metadata = volumeMetadata(volume, options);
  // A file per slice, several at once: files fill in parallel where one file takes one write()
  // at a time (bench/results/2026-11-27y).
  parallelFor(volume.nz(), [&](std::int64_t z) {
    json slice = metadata;
    slice["sliceIndex"] = z;
    const PageSet one{volume.nx(), volume.ny(), 1, [&volume, z](std::int64_t) {
                        const auto n = static_cast<std::size_t>(volume.nx() * volume.ny());
                        return volume.voxels().subspan(static_cast<std::size_t>(z) * n, n);
                      }};
    writePageSet(out.temporaryFolder() / tiffSliceFileName(z, volume.nz()), one, options,
                 slice.dump());
  });
  out.commit();
}

void writeTiffProjections(const std::filesystem::path& path, const ProjectionStack& projections,
                          const TiffWriteOptions& options) {
  if (projections.empty()) throw ParameterError("projections", "are empty: nothing to write");
  json metadata = metadataJson("projections", options);
  metadata["views"] = projections.viewCount();
  const PageSet set{projections.cols(), projections.rows(), projections.viewCount(),
                    [&projections](std::int64_t v) { return projections.viewPixels(v); }};
  writePageSet(path, set, options, metadata.dump());
}

}  // namespace tomowb::io
