// TiffRead.cpp: the readers of TiffIo.h (readTiffInfo, readTiffVolume, readTiffSlices,
// readTiffProjections): every page checked before a sample buffer exists (TiffReader), strips
// and tiles decoded to float, our ImageDescription's voxel size and uint16 mapping applied.
#include <tiffio.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include <algorithm>
#include <cmath>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>

#include "recon/core/Error.h"
#include "recon/core/MemoryBudget.h"
#include "recon/core/ParallelFor.h"
#include "recon/io/InputFile.h"
#include "recon/io/JsonFields.h"
#include "recon/io/ReaderLimits.h"
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

constexpr std::uint64_t kMaxTileBytes = std::uint64_t{256} << 20;
// Slack per page for codec headers when bounding decoded size by stored size.
constexpr std::uint64_t kCodecSlackBytes = 4096;

struct PageLayout {
  tdir_t directory = 0;
  std::uint64_t offset = 0;  // where its header (IFD) starts in the file
  std::int64_t width = 0, height = 0;
  SampleType sampleType = SampleType::Float32;
  std::uint16_t compression = COMPRESSION_NONE;
  bool tiled = false;
  std::uint32_t tileWidth = 0, tileHeight = 0;
  std::uint32_t rowsPerStrip = 0;
  std::uint64_t decodedBytes = 0;
};

std::string compressionName(std::uint16_t compression) {
  switch (compression) {
    case COMPRESSION_NONE:
      return "none";
    case COMPRESSION_LZW:
      return "LZW";
    case COMPRESSION_ADOBE_DEFLATE:
    case COMPRESSION_DEFLATE:
      return "Deflate";
    case COMPRESSION_PACKBITS:
      return "PackBits";
    default:
      return "scheme " + std::to_string(compression);
  }
}

// The most a codec can expand its input: deflate's is 1032:1 (ux-and-robustness.md, section 4);
// LZW's is about 1300:1 (12-bit codes of runs up to 4096 bytes, reset when the table fills);
// PackBits' is 128 bytes from 2. 0 means the codec is refused.
std::uint64_t maxExpansion(std::uint16_t compression) {
  switch (compression) {
    case COMPRESSION_NONE:
      return 1;
    case COMPRESSION_LZW:
      return 2048;
    case COMPRESSION_ADOBE_DEFLATE:
    case COMPRESSION_DEFLATE:
      return 1032;
    case COMPRESSION_PACKBITS:
      return 64;
    default:
      return 0;
  }
}

std::optional<SampleType> sampleTypeOf(std::uint16_t bits, std::uint16_t format) {
  if (format == SAMPLEFORMAT_UINT) {
    if (bits == 8) return SampleType::UInt8;
    if (bits == 16) return SampleType::UInt16;
    if (bits == 32) return SampleType::UInt32;
  } else if (format == SAMPLEFORMAT_INT) {
    if (bits == 8) return SampleType::Int8;
    if (bits == 16) return SampleType::Int16;
    if (bits == 32) return SampleType::Int32;
  } else if (format == SAMPLEFORMAT_IEEEFP) {
    if (bits == 32) return SampleType::Float32;
    if (bits == 64) return SampleType::Float64;
  }
  return std::nullopt;
}

struct OurMetadata {
  bool present = false;
  std::optional<std::vector<std::int64_t>> shape;  // nx, ny, nz (pages or files)
  Eigen::Vector3d voxelSizeMm = Eigen::Vector3d::Ones();
  std::optional<Eigen::Vector3d> originMm;
  std::optional<double> slope, intercept;
};

// A TIFF file opened for reading, with its messages captured.
class TiffReader {
 public:
  // `mode`: libtiff's ("r" maps the file into memory; "rm" reads it, for a reader that takes a
  // band at a time and should not hold every page it touched as mapped memory).
  explicit TiffReader(std::filesystem::path path, const char* mode = "r")
      : path_(std::move(path)), scope_(messages_) {
    {
      const InputFile file(path_);  // refuses folders and pipes; IoError if missing
      fileSize_ = file.size();
    }
    const auto options = openOptions(messages_);
    tif_.reset(TIFFOpenExt(path_.c_str(), mode, options.get()));
    if (!tif_)
      throw FormatError(path_,
                        "not a readable TIFF file: " + messages_.take("libtiff gave no reason"));
  }
  ~TiffReader() = default;
  // libtiff holds a pointer to messages_: the reader stays where it was made.
  TiffReader(const TiffReader&) = delete;
  TiffReader& operator=(const TiffReader&) = delete;
  TiffReader(TiffReader&&) = delete;
  TiffReader& operator=(TiffReader&&) = delete;

  const std::filesystem::path& path() const noexcept { return path_; }

  // Every full-resolution page, checked, before any sample is read.
  std::vector<PageLayout> scanPages() {
    const tdir_t directories = TIFFNumberOfDirectories(tif_.get());
    // A page chain that points past the end of the file (a truncated multi-page file) ends the
    // count early with an error: refuse it rather than return fewer pages.
    if (!messages_.firstError.empty())
      throw FormatError(path_, "pages", "the page chain is damaged: " + messages_.take(""));
    if (directories > static_cast<tdir_t>(kMaxAxisLength))
      throw FormatError(path_, "pages", "more than 2^20 pages");
    std::vector<PageLayout> pages;
    std::uint64_t totalDecoded = 0, maxRatio = 1;
    for (tdir_t d = 0;; ++d) {
      if (TIFFCurrentDirectory(tif_.get()) != d)
        throw FormatError(path_, "page " + std::to_string(d), "the page chain is inconsistent");
      if (messages_.bogusByteCounts)
        throw FormatError(
            path_, "page " + std::to_string(d) + " StripByteCounts",
            "is 0 or reaches beyond the end of the " + formatBytes(fileSize_) + " file");
      if (!isReducedImage()) {
        const PageLayout layout = currentLayout(d);
        totalDecoded += layout.decodedBytes;
        maxRatio = std::max(maxRatio, maxExpansion(layout.compression));
        pages.push_back(layout);
      }
      if (d + 1 >= directories) {
        // libtiff stops counting at a page that points back to an earlier one; that page still
        // names a next page, so the chain loops (or libtiff gave up on it): refuse it.
        if (!TIFFLastDirectory(tif_.get()))
          throw FormatError(path_, "pages",
                            "the page chain does not end after page " + std::to_string(d) +
                                ": it loops back to an earlier page or is damaged");
        break;
      }
      if (!TIFFReadDirectory(tif_.get()))
        throw FormatError(path_, "page " + std::to_string(d + 1),
                          "cannot be read: " + messages_.take("damaged page header"));
    }
    if (pages.empty()) throw FormatError(path_, "pages", "the file has no full-resolution page");
    if (!messages_.firstError.empty())
      throw FormatError(path_, "pages", "a page header is damaged: " + messages_.take(""));
    // Pages may share strips; the whole file still cannot expand beyond its codecs' limit.
    if (totalDecoded > maxRatio * fileSize_ + kCodecSlackBytes * pages.size())
      throw FormatError(path_, "pages",
                        "declare " + formatBytes(totalDecoded) + " of samples, more than a " +
                            formatBytes(fileSize_) + " file can hold");
    if (!TIFFSetDirectory(tif_.get(), 0))
      throw FormatError(path_, "page 0", "cannot be re-read: " + messages_.take("libtiff failed"));
    return pages;
  }

  // Reads the pages found by scanPages() into consecutive spans of `pixelsPerPage` floats.
  void readPages(const std::vector<PageLayout>& pages,
                 const std::function<std::span<float>(std::size_t)>& destination) {
    std::size_t next = 0;
    for (tdir_t d = 0; next < pages.size(); ++d) {
      if (d > 0 && !TIFFReadDirectory(tif_.get()))
        throw FormatError(path_, "page " + std::to_string(d),
                          "cannot be read: " + messages_.take("damaged page header"));
      if (pages[next].directory != d) continue;
      readPage(pages[next], destination(next));
      ++next;
    }
  }

  OurMetadata metadata() const {
    OurMetadata m;
    char* description = nullptr;
    if (!TIFFGetField(tif_.get(), TIFFTAG_IMAGEDESCRIPTION, &description) || !description) return m;
    const std::string_view text(description);
    // Ours: a JSON object that names "tomowb-tiff". A description that merely mentions the name
    // (free text) is someone else's. One that claims to be ours but cannot be read is refused:
    // treating it as foreign would silently drop the voxel size and the uint16 value mapping
    // (values would come back as raw codes, 1000 instead of 1.0; hostile-input review, D19).
    const std::size_t start = text.find_first_not_of(" \t\r\n");
    const bool claimsOurs =
        start != std::string_view::npos && text[start] == '{' &&
        text.find("\"" + std::string(kMetadataFormat) + "\"") != std::string_view::npos;
    if (!claimsOurs) return m;
    if (text.size() > kMaxSidecarBytes)
      throw FormatError(path_, "ImageDescription",
                        "claims to be tomowb-tiff metadata but is " + formatBytes(text.size()) +
                            ", more than the limit of " + formatBytes(kMaxSidecarBytes));
    json j;
    try {
      j = parseJsonText(text, path_);
    } catch (const FormatError& e) {
      throw FormatError(path_, "ImageDescription",
                        std::string("claims to be tomowb-tiff metadata but cannot be read (remove "
                                    "the description to read the raw values): ") +
                            e.what());
    }
    if (!j.is_object() || !j.contains("format") || !j["format"].is_string() ||
        j["format"].get<std::string>() != kMetadataFormat)
      return m;
    const JsonFields fields(j, path_, "ImageDescription");
    const std::int64_t version = fields.integer("version", 0, 1'000'000);
    if (version != kMetadataVersion)
      throw FormatError(path_, fields.fieldName("version"),
                        "is " + std::to_string(version) + "; this build reads version 1");
    m.present = true;
    if (fields.has("shape")) m.shape = fields.axisLengths("shape", 3);
    if (fields.has("voxelSizeMm")) m.voxelSizeMm = fields.positiveVector3("voxelSizeMm");
    if (fields.has("originMm")) m.originMm = fields.finiteVector3("originMm");
    if (fields.has("valueMapping")) {
      const JsonFields mapping(fields.get("valueMapping"), path_, fields.fieldName("valueMapping"));
      m.slope = mapping.finiteNumber("slope");
      m.intercept = mapping.finiteNumber("intercept");
      if (*m.slope == 0.0) throw FormatError(path_, mapping.fieldName("slope"), "must not be 0");
    }
    return m;
  }

 private:
  bool isReducedImage() const {
    std::uint32_t subfileType = 0;
    TIFFGetFieldDefaulted(tif_.get(), TIFFTAG_SUBFILETYPE, &subfileType);
    return (subfileType & FILETYPE_REDUCEDIMAGE) != 0;
  }

  std::string pageField(tdir_t d) const { return "page " + std::to_string(d); }

  PageLayout currentLayout(tdir_t d) const {
    TIFF* tif = tif_.get();
    const std::string field = pageField(d);
    PageLayout p;
    p.directory = d;
    p.offset = TIFFCurrentDirOffset(tif);
    std::uint32_t width = 0, height = 0;
    if (!TIFFGetField(tif, TIFFTAG_IMAGEWIDTH, &width) ||
        !TIFFGetField(tif, TIFFTAG_IMAGELENGTH, &height))
      throw FormatError(path_, field, "has no image width or length");
    p.width = checkedAxisLength(path_, field + " width", width);
    p.height = checkedAxisLength(path_, field + " length", height);
    std::uint16_t samplesPerPixel = 1, bits = 1, format = SAMPLEFORMAT_UINT;
    std::uint16_t photometric = PHOTOMETRIC_MINISBLACK;
    TIFFGetFieldDefaulted(tif, TIFFTAG_SAMPLESPERPIXEL, &samplesPerPixel);
    TIFFGetFieldDefaulted(tif, TIFFTAG_BITSPERSAMPLE, &bits);
    TIFFGetFieldDefaulted(tif, TIFFTAG_SAMPLEFORMAT, &format);
    TIFFGetField(tif, TIFFTAG_PHOTOMETRIC, &photometric);
    TIFFGetFieldDefaulted(tif, TIFFTAG_COMPRESSION, &p.compression);
    if (samplesPerPixel != 1)
      throw FormatError(path_, field,
                        "has " + std::to_string(samplesPerPixel) +
                            " samples per pixel; only grayscale pages are supported");
    if (photometric != PHOTOMETRIC_MINISBLACK && photometric != PHOTOMETRIC_MINISWHITE)
      throw FormatError(path_, field,
                        "has photometric interpretation " + std::to_string(photometric) +
                            "; only grayscale pages are supported");
    const auto type = sampleTypeOf(bits, format);
    if (!type)
      throw FormatError(path_, field,
                        "has " + std::to_string(bits) + "-bit samples of format " +
                            std::to_string(format) +
                            "; supported: 8/16/32-bit integers, 32/64-bit floats");
    p.sampleType = *type;
    if (maxExpansion(p.compression) == 0 || !TIFFIsCODECConfigured(p.compression))
      throw FormatError(path_, field,
                        "uses compression " + compressionName(p.compression) +
                            "; supported: none, LZW, Deflate, PackBits");
    p.decodedBytes = static_cast<std::uint64_t>(p.width) * static_cast<std::uint64_t>(p.height) *
                     sampleBytes(p.sampleType);
    checkStorage(p, field);
    return p;
  }

  void checkStorage(PageLayout& p, const std::string& field) const {
    TIFF* tif = tif_.get();
    const std::uint64_t bytesPerSample = sampleBytes(p.sampleType);
    std::uint64_t striles = 0;
    p.tiled = TIFFIsTiled(tif) != 0;
    if (p.tiled) {
      if (!TIFFGetField(tif, TIFFTAG_TILEWIDTH, &p.tileWidth) ||
          !TIFFGetField(tif, TIFFTAG_TILELENGTH, &p.tileHeight) || p.tileWidth == 0 ||
          p.tileHeight == 0)
        throw FormatError(path_, field, "has no valid tile size");
      if (std::uint64_t{p.tileWidth} * p.tileHeight * bytesPerSample > kMaxTileBytes)
        throw FormatError(path_, field, "has tiles larger than 256 MiB");
      const std::uint64_t across =
          (static_cast<std::uint64_t>(p.width) + p.tileWidth - 1) / p.tileWidth;
      const std::uint64_t down =
          (static_cast<std::uint64_t>(p.height) + p.tileHeight - 1) / p.tileHeight;
      striles = across * down;
      if (TIFFNumberOfTiles(tif) < striles)
        throw FormatError(path_, field, "has fewer tiles than its size needs");
    } else {
      std::uint32_t rows = 0;
      TIFFGetFieldDefaulted(tif, TIFFTAG_ROWSPERSTRIP, &rows);
      p.rowsPerStrip = static_cast<std::uint32_t>(
          std::min<std::int64_t>(std::max<std::uint32_t>(rows, 1), p.height));
      striles = (static_cast<std::uint64_t>(p.height) + p.rowsPerStrip - 1) / p.rowsPerStrip;
      if (TIFFNumberOfStrips(tif) < striles)
        throw FormatError(path_, field, "has fewer strips than its size needs");
      if (std::uint64_t{p.rowsPerStrip} * p.width * bytesPerSample > kMaxTileBytes)
        throw FormatError(path_, field, "has strips larger than 256 MiB");
    }
    // Every strip or tile the page uses must lie inside the file: a StripByteCounts of 4 GiB in a
    // 1 KB file is a lie, whatever the codec (libtiff reads only what it needs of a raw strip).
    std::uint64_t stored = 0;
    const char* what = p.tiled ? "tile " : "strip ";
    for (std::uint64_t s = 0; s < striles; ++s) {
      const std::uint64_t offset = TIFFGetStrileOffset(tif, static_cast<std::uint32_t>(s));
      const std::uint64_t bytes = TIFFGetStrileByteCount(tif, static_cast<std::uint32_t>(s));
      if (bytes > fileSize_ || offset > fileSize_ - bytes)
        throw FormatError(path_, field + " " + what + std::to_string(s),
                          "declares " + formatBytes(bytes) + " at offset " +
                              std::to_string(offset) + ", beyond the end of the " +
                              formatBytes(fileSize_) + " file");
      stored += bytes;
    }
    if (p.compression == COMPRESSION_NONE) return;
    stored = std::min(stored, fileSize_);
    if (p.decodedBytes > maxExpansion(p.compression) * stored + kCodecSlackBytes)
      throw FormatError(path_, field,
                        "declares " + formatBytes(p.decodedBytes) + " of samples in " +
                            formatBytes(stored) + " of " + compressionName(p.compression) +
                            " data, beyond what the codec can expand");
  }

  void readPage(const PageLayout& p, std::span<float> dst) {
    readPageRows(p, 0, p.height - 1, dst);
  }

 public:
  // Rows first..last of page `p` (the current directory) into dst, (last - first + 1) rows of
  // p.width samples: only the strips or tiles those rows lie in are decoded.
  void readPageRows(const PageLayout& p, std::int64_t first, std::int64_t last,
                    std::span<float> dst) {
    const std::string field = pageField(p.directory);
    const std::size_t bytesPerSample = sampleBytes(p.sampleType);
    const auto width = static_cast<std::size_t>(p.width);
    const auto firstRow = static_cast<std::uint32_t>(first);
    const auto endRow = static_cast<std::uint32_t>(last + 1);
    // Row y of the page goes to dst's row y - first.
    const auto out = [&](std::size_t y, std::size_t x, std::size_t n) {
      return dst.subspan((y - firstRow) * width + x, n);
    };
    if (p.tiled) {
      const std::size_t tileBytes = std::size_t{p.tileWidth} * p.tileHeight * bytesPerSample;
      std::vector<std::byte> buffer(tileBytes);
      for (std::uint32_t y = firstRow / p.tileHeight * p.tileHeight; y < endRow;
           y += p.tileHeight) {
        for (std::uint32_t x = 0; x < p.width; x += p.tileWidth) {
          const std::uint32_t tile = TIFFComputeTile(tif_.get(), x, y, 0, 0);
          if (TIFFReadEncodedTile(tif_.get(), tile, buffer.data(),
                                  static_cast<tmsize_t>(tileBytes)) !=
              static_cast<tmsize_t>(tileBytes))
            throw FormatError(path_, field + " tile " + std::to_string(tile),
                              "cannot be decoded: " + messages_.take("short or damaged data"));
          const std::uint32_t from = std::max(y, firstRow);
          const std::uint32_t to = std::min<std::uint32_t>(y + p.tileHeight, endRow);
          const std::size_t cols = std::min<std::size_t>(p.tileWidth, width - x);
          for (std::uint32_t row = from; row < to; ++row)
            convertToFloat(
                std::span(buffer).subspan(std::size_t{row - y} * p.tileWidth * bytesPerSample,
                                          cols * bytesPerSample),
                p.sampleType, kHostByteOrder, out(row, x, cols));
        }
      }
      return;
    }
    std::vector<std::byte> buffer(std::size_t{p.rowsPerStrip} * width * bytesPerSample);
    for (std::uint32_t s = firstRow / p.rowsPerStrip; s * p.rowsPerStrip < endRow; ++s) {
      const std::uint32_t stripFirst = s * p.rowsPerStrip;
      const std::size_t rows =
          std::min<std::size_t>(p.rowsPerStrip, static_cast<std::size_t>(p.height) - stripFirst);
      const std::size_t want = rows * width * bytesPerSample;
      if (TIFFReadEncodedStrip(tif_.get(), s, buffer.data(), static_cast<tmsize_t>(want)) !=
          static_cast<tmsize_t>(want))
        throw FormatError(path_, field + " strip " + std::to_string(s),
                          "cannot be decoded: " + messages_.take("short or damaged data"));
      const std::uint32_t from = std::max(stripFirst, firstRow);
      const auto to = static_cast<std::uint32_t>(std::min<std::size_t>(stripFirst + rows, endRow));
      convertToFloat(std::span(buffer).subspan((from - stripFirst) * width * bytesPerSample,
                                               (to - from) * width * bytesPerSample),
                     p.sampleType, kHostByteOrder, out(from, 0, (to - from) * width));
    }
  }

  // Makes page `p` (found by scanPages) the current one.
  // Pages read in order (a band of every view) step forward through the chain; going back
  // starts again from the first page.
  // Page `p` of a file scanned by another reader, straight from its header's offset (a reader of
  // a run of pages does not walk the page chain from the start).
  void jumpToPage(const PageLayout& p) {
    if (!TIFFSetSubDirectory(tif_.get(), p.offset))
      throw FormatError(path_, pageField(p.directory),
                        "cannot be read: " + messages_.take("damaged page header"));
  }

  void goToPage(const PageLayout& p) {
    TIFF* tif = tif_.get();
    if (TIFFCurrentDirectory(tif) > p.directory && !TIFFSetDirectory(tif, 0))
      throw FormatError(path_, pageField(0),
                        "cannot be read: " + messages_.take("damaged page header"));
    while (TIFFCurrentDirectory(tif) < p.directory)
      if (!TIFFReadDirectory(tif))
        throw FormatError(path_, pageField(p.directory),
                          "cannot be read: " + messages_.take("damaged page header"));
  }

 private:
  std::filesystem::path path_;
  TiffMessages messages_;
  ScopedMessages scope_;
  TiffHandle tif_;
  std::uint64_t fileSize_ = 0;
};

void requireSameLayout(const std::filesystem::path& path, const PageLayout& first,
                       const PageLayout& page, const std::string& what) {
  if (page.width != first.width || page.height != first.height)
    throw FormatError(path, what,
                      "is " + std::to_string(page.width) + "x" + std::to_string(page.height) +
                          " but the first page is " + std::to_string(first.width) + "x" +
                          std::to_string(first.height));
  if (page.sampleType != first.sampleType)
    throw FormatError(path, what,
                      "holds " + std::string(toString(page.sampleType)) +
                          " samples but the first page holds " +
                          std::string(toString(first.sampleType)));
}

bool isIntegerType(SampleType type) {
  return type != SampleType::Float32 && type != SampleType::Float64 && type != SampleType::Float16;
}

void applyMapping(const OurMetadata& m, SampleType stored, std::span<float> values) {
  if (!m.slope || !isIntegerType(stored)) return;
  const double slope = *m.slope, intercept = *m.intercept;
  for (float& v : values) v = static_cast<float>(v * slope + intercept);
}

// Our own files say how many pages (or slice files) they hold: a stack cut short by a lost file
// or a truncated page chain is an error, not a thinner volume.
void requireDeclaredShape(const std::filesystem::path& path, const OurMetadata& m,
                          const VolumeShape& found, const char* unit) {
  if (!m.shape) return;
  const auto& s = *m.shape;
  if (s[0] != found.nx || s[1] != found.ny || s[2] != found.nz)
    throw FormatError(path, "ImageDescription.shape",
                      "says " + std::to_string(s[0]) + "x" + std::to_string(s[1]) + "x" +
                          std::to_string(s[2]) + " but there are " + std::to_string(found.nz) +
                          " " + unit + " of " + std::to_string(found.nx) + "x" +
                          std::to_string(found.ny));
}

Volume makeVolume(const OurMetadata& m, VolumeShape shape) {
  if (m.originMm) return Volume(shape, m.voxelSizeMm, *m.originMm);
  return Volume::centred(shape, m.voxelSizeMm);
}

// Rows first..last of every one of `pages` (full-resolution pages of the multi-page file `path`)
// into dst, page after page, their values mapped by `m`. Decoding is what costs (a deflate page
// decodes at a few hundred MB/s), so runs of consecutive pages go to several threads, each with
// its own reader (libtiff's handles and their messages stay on the thread that made them), which
// goes to each page by its header's offset.
void readRowsOfPagesOnThreads(const std::filesystem::path& path, std::span<const PageLayout> pages,
                              const OurMetadata& m, std::int64_t first, std::int64_t last,
                              std::span<float> dst, const char* mode) {
  const auto count = static_cast<std::int64_t>(pages.size());
  if (count == 0) return;
  const auto perPage = static_cast<std::size_t>((last - first + 1) * pages.front().width);
#ifdef _OPENMP
  const std::int64_t threads = omp_get_max_threads();
#else
  const std::int64_t threads = 1;
#endif
  const std::int64_t runs = std::min<std::int64_t>(count, 4 * threads);
  parallelFor(runs, [&](std::int64_t k) {
    const std::int64_t p0 = count * k / runs, p1 = count * (k + 1) / runs;
    TiffReader reader(path, mode);
    for (std::int64_t page = p0; page < p1; ++page) {
      const PageLayout& layout = pages[static_cast<std::size_t>(page)];
      const std::span<float> out = dst.subspan(static_cast<std::size_t>(page) * perPage, perPage);
      reader.jumpToPage(layout);
      reader.readPageRows(layout, first, last, out);
      applyMapping(m, layout.sampleType, out);
    }
  });
}

}  // namespace

TiffInfo readTiffInfo(const std::filesystem::path& fileOrFolder) {
  std::error_code ec;
  const bool folder = std::filesystem::is_directory(fileOrFolder, ec);
  const std::vector<std::filesystem::path> files =
      folder ? listTiffSlices(fileOrFolder) : std::vector<std::filesystem::path>{fileOrFolder};
  TiffReader reader(files.front());
  const auto pages = reader.scanPages();
  const OurMetadata m = reader.metadata();
  TiffInfo info;
  info.path = fileOrFolder;
  info.width = pages.front().width;
  info.height = pages.front().height;
  info.pages =
      folder ? static_cast<std::int64_t>(files.size()) : static_cast<std::int64_t>(pages.size());
  info.sampleType = pages.front().sampleType;
  info.compression = compressionName(pages.front().compression);
  info.tiled = pages.front().tiled;
  info.hasOurMetadata = m.present;
  info.voxelSizeMm = m.voxelSizeMm;
  info.originMm = m.originMm;
  info.slope = m.slope;
  info.intercept = m.intercept;
  return info;
}

Volume readTiffVolume(const std::filesystem::path& path) {
  TiffReader reader(path);
  const auto pages = reader.scanPages();
  for (std::size_t i = 1; i < pages.size(); ++i)
    requireSameLayout(path, pages.front(), pages[i], "page " + std::to_string(pages[i].directory));
  const OurMetadata m = reader.metadata();
  const VolumeShape shape{pages.front().width, pages.front().height,
                          static_cast<std::int64_t>(pages.size())};
  requireDeclaredShape(path, m, shape, "pages");
  Volume volume = makeVolume(m, shape);
  readRowsOfPagesOnThreads(path, pages, m, 0, shape.ny - 1, volume.voxels(), "r");
  return volume;
}

Volume readTiffSlices(const std::filesystem::path& folderOrFile) {
  const auto files = listTiffSlices(folderOrFile);
  // One slice file: its one page, checked against the first file's layout.
  const auto onePage = [&](TiffReader& reader, std::size_t z) {
    auto pages = reader.scanPages();
    if (pages.size() != 1)
      throw FormatError(
          files[z], "pages",
          "a slice file must hold one page, this one has " + std::to_string(pages.size()));
    return pages;
  };
  // The first file fixes the layout, the metadata and the volume; the others are read on
  // several threads, each file by its own reader.
  TiffReader reader(files.front());
  const auto firstPages = onePage(reader, 0);
  const PageLayout first = firstPages.front();
  const OurMetadata m = reader.metadata();
  const VolumeShape shape{first.width, first.height, static_cast<std::int64_t>(files.size())};
  requireDeclaredShape(files.front(), m, shape, "slice files");
  Volume volume = makeVolume(m, shape);
  reader.readPages(firstPages, [&](std::size_t) { return volume.slice(0); });
  applyMapping(m, first.sampleType, volume.slice(0));
  parallelFor(static_cast<std::int64_t>(files.size()) - 1, [&](std::int64_t k) {
    const auto z = static_cast<std::size_t>(k + 1);
    TiffReader slice(files[z]);
    const auto pages = onePage(slice, z);
    requireSameLayout(files[z], first, pages.front(), "page 0");
    slice.readPages(pages, [&](std::size_t) { return volume.slice(k + 1); });
    applyMapping(m, first.sampleType, volume.slice(k + 1));
  });
  return volume;
}

ProjectionStack readTiffProjections(const std::filesystem::path& path, Geometry geometry) {
  TiffReader reader(path);
  const auto pages = reader.scanPages();
  const auto& detector = geometry.detector();
  for (const PageLayout& page : pages) {
    if (page.width != detector.cols || page.height != detector.rows)
      throw FormatError(path, "page " + std::to_string(page.directory),
                        "is " + std::to_string(page.width) + "x" + std::to_string(page.height) +
                            " but the geometry's detector is " + std::to_string(detector.cols) +
                            "x" + std::to_string(detector.rows) + " (cols x rows)");
    requireSameLayout(path, pages.front(), page, "page " + std::to_string(page.directory));
  }
  if (static_cast<std::int64_t>(pages.size()) != geometry.viewCount())
    throw FormatError(path, "pages",
                      "the file has " + std::to_string(pages.size()) +
                          " pages but the geometry has " + std::to_string(geometry.viewCount()) +
                          " views");
  const OurMetadata m = reader.metadata();
  ProjectionStack stack(std::move(geometry));
  readRowsOfPagesOnThreads(path, pages, m, 0, pages.front().height - 1, stack.pixels(), "r");
  return stack;
}

// One reader kept open on a multi-page file; a series opens the file of the page asked for.
struct TiffRowReader::State {
  std::vector<std::filesystem::path> files;  // one per page (a series), or the file
  bool series = false;
  std::unique_ptr<TiffReader> reader;  // the multi-page file
  std::vector<PageLayout> pages;       // its full-resolution pages
  PageLayout first;
  OurMetadata metadata;
};

TiffRowReader::TiffRowReader(const std::filesystem::path& fileOrFolder)
    : state_(std::make_unique<State>()) {
  std::error_code ec;
  State& s = *state_;
  s.series = std::filesystem::is_directory(fileOrFolder, ec);  // as readVolume takes it
  if (!s.series) {
    s.files = {fileOrFolder};
    s.reader = std::make_unique<TiffReader>(fileOrFolder, "rm");
    s.pages = s.reader->scanPages();
    for (const PageLayout& page : s.pages)
      requireSameLayout(fileOrFolder, s.pages.front(), page,
                        "page " + std::to_string(page.directory));
    s.first = s.pages.front();
    s.metadata = s.reader->metadata();
    requireDeclaredShape(fileOrFolder, s.metadata,
                         {s.first.width, s.first.height, static_cast<std::int64_t>(s.pages.size())},
                         "pages");
  } else {
    // Every file's header checked now, as readTiffSlices does, before a sample is read.
    s.files = listTiffSlices(fileOrFolder);
    for (std::size_t z = 0; z < s.files.size(); ++z) {
      TiffReader reader(s.files[z]);
      const auto pages = reader.scanPages();
      if (pages.size() != 1)
        throw FormatError(
            s.files[z], "pages",
            "a slice file must hold one page, this one has " + std::to_string(pages.size()));
      if (z == 0) {
        s.first = pages.front();
        s.metadata = reader.metadata();
        requireDeclaredShape(
            s.files[z], s.metadata,
            {s.first.width, s.first.height, static_cast<std::int64_t>(s.files.size())},
            "slice files");
      }
      requireSameLayout(s.files[z], s.first, pages.front(), "page 0");
    }
  }
  info_.path = fileOrFolder;
  info_.width = s.first.width;
  info_.height = s.first.height;
  info_.pages = static_cast<std::int64_t>(s.series ? s.files.size() : s.pages.size());
  info_.sampleType = s.first.sampleType;
  info_.compression = compressionName(s.first.compression);
  info_.tiled = s.first.tiled;
  info_.hasOurMetadata = s.metadata.present;
  info_.voxelSizeMm = s.metadata.voxelSizeMm;
  info_.originMm = s.metadata.originMm;
  info_.slope = s.metadata.slope;
  info_.intercept = s.metadata.intercept;
}

TiffRowReader::~TiffRowReader() = default;

void TiffRowReader::readRows(std::int64_t page, std::int64_t first, std::int64_t last,
                             std::span<float> dst) {
  if (page < 0 || page >= info_.pages || first < 0 || last < first || last >= info_.height ||
      dst.size() != static_cast<std::size_t>((last - first + 1) * info_.width))
    throw ParameterError("rows", "page " + std::to_string(page) + " rows " + std::to_string(first) +
                                     ".." + std::to_string(last) + " are outside the " +
                                     std::to_string(info_.pages) + " pages of " +
                                     std::to_string(info_.height) + " rows");
  State& s = *state_;
  if (s.series) {
    const std::filesystem::path& file = s.files[static_cast<std::size_t>(page)];
    TiffReader reader(file, "rm");
    const auto pages = reader.scanPages();
    if (pages.size() != 1) throw FormatError(file, "pages", "changed while the run read it");
    requireSameLayout(file, s.first, pages.front(), "page 0");
    reader.readPageRows(pages.front(), first, last, dst);
  } else {
    const PageLayout& layout = s.pages[static_cast<std::size_t>(page)];
    s.reader->goToPage(layout);
    s.reader->readPageRows(layout, first, last, dst);
  }
  applyMapping(s.metadata, s.first.sampleType, dst);
}

void TiffRowReader::readRowsOfEveryPage(std::int64_t first, std::int64_t last,
                                        std::span<float> dst) {
  readRowsOfPages(0, info_.pages - 1, first, last, dst);
}

void TiffRowReader::readPages(std::int64_t firstPage, std::int64_t lastPage, std::span<float> dst) {
  readRowsOfPages(firstPage, lastPage, 0, info_.height - 1, dst);
}

void TiffRowReader::readRowsOfPages(std::int64_t firstPage, std::int64_t lastPage,
                                    std::int64_t first, std::int64_t last, std::span<float> dst) {
  const std::int64_t band = last - first + 1, pages = lastPage - firstPage + 1;
  if (first < 0 || last < first || last >= info_.height || firstPage < 0 || lastPage < firstPage ||
      lastPage >= info_.pages || dst.size() != static_cast<std::size_t>(pages * band * info_.width))
    throw ParameterError(
        "rows", "rows " + std::to_string(first) + ".." + std::to_string(last) + " of pages " +
                    std::to_string(firstPage) + ".." + std::to_string(lastPage) + " (of " +
                    std::to_string(info_.pages) + " pages of " + std::to_string(info_.height) +
                    " rows) do not fit " + std::to_string(dst.size()) + " samples");
  const auto perPage = static_cast<std::size_t>(band * info_.width);
  const State& s = *state_;
  if (s.series) {  // readRows opens the page's own file: safe on any thread
    parallelFor(pages, [&](std::int64_t k) {
      readRows(firstPage + k, first, last,
               dst.subspan(static_cast<std::size_t>(k) * perPage, perPage));
    });
    return;
  }
  readRowsOfPagesOnThreads(
      s.files.front(),
      std::span<const PageLayout>(s.pages).subspan(static_cast<std::size_t>(firstPage),
                                                   static_cast<std::size_t>(pages)),
      s.metadata, first, last, dst, "rm");
}

}  // namespace tomowb::io
