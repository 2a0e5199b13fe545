#include "recon/io/TiffIo.h"

#include <tiffio.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <functional>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>

#include "recon/core/Error.h"
#include "recon/core/MemoryBudget.h"
#include "recon/io/AtomicDirectoryWriter.h"
#include "recon/io/AtomicFileWriter.h"
#include "recon/io/InputFile.h"
#include "recon/io/JsonFields.h"
#include "recon/io/ReaderLimits.h"

namespace tomowb::io {

namespace {

using nlohmann::json;

constexpr const char* kMetadataFormat = "tomowb-tiff";
constexpr int kMetadataVersion = 1;
// libtiff's own allocations (directory arrays, strip buffers when not memory-mapped) stay
// below this; sample buffers are ours and checked separately.
constexpr tmsize_t kMaxLibtiffAllocation = tmsize_t{512} << 20;
// Strips of about 256 KiB when we write: small enough to stream, large enough to be cheap.
constexpr std::int64_t kWriteStripBytes = std::int64_t{256} * 1024;
constexpr std::uint64_t kMaxTileBytes = std::uint64_t{256} << 20;
// Slack per page for codec headers when bounding decoded size by stored size.
constexpr std::uint64_t kCodecSlackBytes = 4096;

// ---- libtiff messages: captured per handle (and, for calls without a handle, per thread) ----

struct TiffMessages {
  std::string firstError;
  std::string firstWarning;
  // libtiff replaced a StripByteCounts of 0 or one reaching beyond the end of the file with its
  // own guess (only a warning): the header lies, and the reader refuses the page.
  bool bogusByteCounts = false;
  void error(std::string text) {
    if (firstError.empty()) firstError = std::move(text);
  }
  void warning(std::string text) {
    if (text.find("Bogus \"StripByteCounts\"") != std::string::npos) bogusByteCounts = true;
    if (firstWarning.empty()) firstWarning = std::move(text);
  }
  // The first error (or warning) seen since the last call, for an exception message.
  std::string take(std::string_view fallback) {
    std::string text = !firstError.empty() ? firstError : std::string(fallback);
    if (firstError.empty() && !firstWarning.empty()) text += " (libtiff: " + firstWarning + ")";
    firstError.clear();
    firstWarning.clear();
    return text;
  }
};

thread_local TiffMessages* tCurrentMessages = nullptr;

std::string formatMessage(const char* module, const char* format, va_list args) {
  char text[512];
  std::vsnprintf(text, sizeof text, format, args);
  return module && *module ? std::string(module) + ": " + text : std::string(text);
}

void globalErrorHandler(const char* module, const char* format, va_list args) {
  if (tCurrentMessages) tCurrentMessages->error(formatMessage(module, format, args));
}

void globalWarningHandler(const char* module, const char* format, va_list args) {
  if (tCurrentMessages) tCurrentMessages->warning(formatMessage(module, format, args));
}

int handleError(TIFF*, void* userData, const char* module, const char* format, va_list args) {
  static_cast<TiffMessages*>(userData)->error(formatMessage(module, format, args));
  return 1;  // handled: libtiff does not print it
}

int handleWarning(TIFF*, void* userData, const char* module, const char* format, va_list args) {
  static_cast<TiffMessages*>(userData)->warning(formatMessage(module, format, args));
  return 1;
}

// libtiff prints to stderr by default; we never print, so the process-wide handlers only route
// messages to the calling thread's capture (and drop them when there is none).
void installGlobalHandlers() {
  static std::once_flag once;
  std::call_once(once, [] {
    TIFFSetErrorHandler(globalErrorHandler);
    TIFFSetWarningHandler(globalWarningHandler);
  });
}

class ScopedMessages {
 public:
  explicit ScopedMessages(TiffMessages& messages) : previous_(tCurrentMessages) {
    installGlobalHandlers();
    tCurrentMessages = &messages;
  }
  ~ScopedMessages() { tCurrentMessages = previous_; }
  ScopedMessages(const ScopedMessages&) = delete;
  ScopedMessages& operator=(const ScopedMessages&) = delete;
  ScopedMessages(ScopedMessages&&) = delete;
  ScopedMessages& operator=(ScopedMessages&&) = delete;

 private:
  TiffMessages* previous_;
};

struct TiffCloser {
  void operator()(TIFF* tif) const noexcept { TIFFClose(tif); }
};
using TiffHandle = std::unique_ptr<TIFF, TiffCloser>;

struct OptionsDeleter {
  void operator()(TIFFOpenOptions* options) const noexcept { TIFFOpenOptionsFree(options); }
};

std::unique_ptr<TIFFOpenOptions, OptionsDeleter> openOptions(TiffMessages& messages) {
  std::unique_ptr<TIFFOpenOptions, OptionsDeleter> options(TIFFOpenOptionsAlloc());
  if (!options) throw OutOfMemoryError("cannot allocate libtiff open options");
  TIFFOpenOptionsSetMaxSingleMemAlloc(options.get(), kMaxLibtiffAllocation);
  TIFFOpenOptionsSetErrorHandlerExtR(options.get(), handleError, &messages);
  TIFFOpenOptionsSetWarningHandlerExtR(options.get(), handleWarning, &messages);
  return options;
}

// ---- reading ----

struct PageLayout {
  tdir_t directory = 0;
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
  explicit TiffReader(std::filesystem::path path) : path_(std::move(path)), scope_(messages_) {
    {
      const InputFile file(path_);  // refuses folders and pipes; IoError if missing
      fileSize_ = file.size();
    }
    const auto options = openOptions(messages_);
    tif_.reset(TIFFOpenExt(path_.c_str(), "r", options.get()));
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
    const std::string field = pageField(p.directory);
    const std::size_t bytesPerSample = sampleBytes(p.sampleType);
    const auto width = static_cast<std::size_t>(p.width);
    if (p.tiled) {
      const std::size_t tileBytes = std::size_t{p.tileWidth} * p.tileHeight * bytesPerSample;
      std::vector<std::byte> buffer(tileBytes);
      for (std::uint32_t y = 0; y < p.height; y += p.tileHeight) {
        for (std::uint32_t x = 0; x < p.width; x += p.tileWidth) {
          const std::uint32_t tile = TIFFComputeTile(tif_.get(), x, y, 0, 0);
          if (TIFFReadEncodedTile(tif_.get(), tile, buffer.data(),
                                  static_cast<tmsize_t>(tileBytes)) !=
              static_cast<tmsize_t>(tileBytes))
            throw FormatError(path_, field + " tile " + std::to_string(tile),
                              "cannot be decoded: " + messages_.take("short or damaged data"));
          const std::size_t rows =
              std::min<std::size_t>(p.tileHeight, static_cast<std::size_t>(p.height) - y);
          const std::size_t cols = std::min<std::size_t>(p.tileWidth, width - x);
          for (std::size_t r = 0; r < rows; ++r)
            convertToFloat(
                std::span(buffer).subspan(r * p.tileWidth * bytesPerSample, cols * bytesPerSample),
                p.sampleType, kHostByteOrder, dst.subspan((y + r) * width + x, cols));
        }
      }
      return;
    }
    std::vector<std::byte> buffer(std::size_t{p.rowsPerStrip} * width * bytesPerSample);
    const auto strips =
        static_cast<std::uint32_t>((p.height + p.rowsPerStrip - 1) / p.rowsPerStrip);
    for (std::uint32_t s = 0; s < strips; ++s) {
      const std::size_t firstRow = std::size_t{s} * p.rowsPerStrip;
      const std::size_t rows =
          std::min<std::size_t>(p.rowsPerStrip, static_cast<std::size_t>(p.height) - firstRow);
      const std::size_t want = rows * width * bytesPerSample;
      if (TIFFReadEncodedStrip(tif_.get(), s, buffer.data(), static_cast<tmsize_t>(want)) !=
          static_cast<tmsize_t>(want))
        throw FormatError(path_, field + " strip " + std::to_string(s),
                          "cannot be decoded: " + messages_.take("short or damaged data"));
      convertToFloat(std::span(buffer).first(want), p.sampleType, kHostByteOrder,
                     dst.subspan(firstRow * width, rows * width));
    }
  }

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
  return type != SampleType::Float32 && type != SampleType::Float64;
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

// ---- writing ----

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

bool isDigit(char c) {
  return std::isdigit(static_cast<unsigned char>(c)) != 0;
}

// The run of digits starting at `from`, without leading zeros ("0" stays "0").
std::string_view digitRun(const std::string& s, std::size_t from, std::size_t& end) {
  end = from;
  while (end < s.size() && isDigit(s[end])) ++end;
  std::string_view run(s.data() + from, end - from);
  while (run.size() > 1 && run[0] == '0') run.remove_prefix(1);
  return run;
}

// "slice_2.tif" before "slice_10.tif": runs of digits compare by value, the rest by character.
bool naturalLess(const std::string& a, const std::string& b) {
  std::size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    if (isDigit(a[i]) && isDigit(b[j])) {
      std::size_t endA = i, endB = j;
      const std::string_view na = digitRun(a, i, endA), nb = digitRun(b, j, endB);
      if (na.size() != nb.size()) return na.size() < nb.size();
      if (na != nb) return na < nb;
      i = endA;
      j = endB;
      continue;
    }
    if (a[i] != b[j]) return a[i] < b[j];
    ++i;
    ++j;
  }
  return a.size() - i < b.size() - j;
}

std::string digitPattern(const std::string& name) {
  std::string pattern;
  for (char c : name) {
    const bool digit = isDigit(c);
    if (!digit || pattern.empty() || pattern.back() != '#') pattern.push_back(digit ? '#' : c);
  }
  return pattern;
}

bool hasTiffExtension(const std::filesystem::path& p) {
  std::string ext = p.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return ext == ".tif" || ext == ".tiff";
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
  reader.readPages(pages,
                   [&volume](std::size_t z) { return volume.slice(static_cast<std::int64_t>(z)); });
  applyMapping(m, pages.front().sampleType, volume.voxels());
  return volume;
}

void writeTiffVolume(const std::filesystem::path& path, const Volume& volume,
                     const TiffWriteOptions& options) {
  if (volume.empty()) throw ParameterError("volume", "is empty: nothing to write");
  writePageSet(path, volumePages(volume), options, volumeMetadata(volume, options).dump());
}

std::vector<std::filesystem::path> listTiffSlices(const std::filesystem::path& folderOrFile) {
  std::error_code ec;
  const bool isFolder = std::filesystem::is_directory(folderOrFile, ec);
  const std::filesystem::path folder =
      isFolder ? folderOrFile : (folderOrFile.has_parent_path() ? folderOrFile.parent_path() : ".");
  const std::string pattern = isFolder ? "" : digitPattern(folderOrFile.filename().string());
  std::vector<std::filesystem::path> files;
  std::filesystem::directory_iterator it(folder, ec);
  if (ec) throw IoError(folder, "cannot list the folder: " + ec.message());
  for (const auto& entry : it) {
    const std::string name = entry.path().filename().string();
    if (name.empty() || name[0] == '.' || !hasTiffExtension(entry.path())) continue;
    if (!isFolder && digitPattern(name) != pattern) continue;
    if (static_cast<std::int64_t>(files.size()) >= kMaxSeriesFiles)
      throw FormatError(folder, "holds more than 2^20 TIFF files");
    files.push_back(entry.path());
  }
  if (files.empty()) throw FormatError(folderOrFile, "no .tif or .tiff slice files found");
  std::sort(files.begin(), files.end(), [](const auto& a, const auto& b) {
    return naturalLess(a.filename().string(), b.filename().string());
  });
  return files;
}

Volume readTiffSlices(const std::filesystem::path& folderOrFile) {
  const auto files = listTiffSlices(folderOrFile);
  std::optional<Volume> volume;
  PageLayout first;
  OurMetadata m;
  for (std::size_t z = 0; z < files.size(); ++z) {
    TiffReader reader(files[z]);
    const auto pages = reader.scanPages();
    if (pages.size() != 1)
      throw FormatError(
          files[z], "pages",
          "a slice file must hold one page, this one has " + std::to_string(pages.size()));
    if (z == 0) {
      first = pages.front();
      m = reader.metadata();
      const VolumeShape shape{first.width, first.height, static_cast<std::int64_t>(files.size())};
      requireDeclaredShape(files[z], m, shape, "slice files");
      volume = makeVolume(m, shape);
    }
    requireSameLayout(files[z], first, pages.front(), "page 0");
    reader.readPages(pages,
                     [&](std::size_t) { return volume->slice(static_cast<std::int64_t>(z)); });
  }
  applyMapping(m, first.sampleType, volume->voxels());
  return std::move(*volume);
}

void writeTiffSlices(const std::filesystem::path& folder, const Volume& volume,
                     const TiffWriteOptions& options) {
  if (volume.empty()) throw ParameterError("volume", "is empty: nothing to write");
  checkWriteOptions(options);
  AtomicDirectoryWriter out(folder);
  const int digits = std::max<int>(4, static_cast<int>(std::to_string(volume.nz() - 1).size()));
  const json metadata = volumeMetadata(volume, options);
  for (std::int64_t z = 0; z < volume.nz(); ++z) {
    std::string index = std::to_string(z);
    index.insert(0, static_cast<std::size_t>(digits) - std::min<std::size_t>(index.size(), digits),
                 '0');
    json slice = metadata;
    slice["sliceIndex"] = z;
    const PageSet one{volume.nx(), volume.ny(), 1, [&volume, z](std::int64_t) {
                        const auto n = static_cast<std::size_t>(volume.nx() * volume.ny());
                        return volume.voxels().subspan(static_cast<std::size_t>(z) * n, n);
                      }};
    writePageSet(out.temporaryFolder() / ("slice_" + index + ".tif"), one, options, slice.dump());
  }
  out.commit();
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
  reader.readPages(
      pages, [&stack](std::size_t v) { return stack.viewPixels(static_cast<std::int64_t>(v)); });
  applyMapping(m, pages.front().sampleType, stack.pixels());
  return stack;
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
