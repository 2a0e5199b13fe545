#include "recon/io/MrcIo.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <memory>
#include <span>
#include <utility>

#include "recon/core/CheckedSize.h"
#include "recon/core/Error.h"
#include "recon/io/AtomicFileWriter.h"
#include "recon/io/InputFile.h"
#include "recon/io/ReaderLimits.h"

namespace tomowb::io {

namespace {

constexpr std::uint64_t kHeaderBytes = 1024;
constexpr int kMaxLabels = 10;
constexpr std::size_t kLabelBytes = 80;
// SerialEM data of more than this is read one section at a time instead of in one piece.
constexpr std::uint64_t kMaxExtendedHeaderRead = std::uint64_t{64} << 20;
constexpr std::int32_t kImodFlagSignedBytes = 1;
constexpr std::int32_t kImodFlagOriginInverted = 4;
constexpr std::int16_t kSerialEmTiltFlag = 1;

// The header as bytes with typed accessors in the file's byte order.
class HeaderBytes {
 public:
  explicit HeaderBytes(const std::array<std::byte, kHeaderBytes>& bytes) : bytes_(bytes) {}
  void setByteOrder(ByteOrder order) noexcept { order_ = order; }

  template <typename T>
  T get(std::size_t offset) const noexcept {
    std::array<std::byte, sizeof(T)> raw;
    std::memcpy(raw.data(), bytes_.data() + offset, sizeof(T));
    if (order_ != kHostByteOrder) std::reverse(raw.begin(), raw.end());
    T value;
    std::memcpy(&value, raw.data(), sizeof(T));
    return value;
  }
  std::int32_t i32(std::size_t offset) const noexcept { return get<std::int32_t>(offset); }
  std::int16_t i16(std::size_t offset) const noexcept { return get<std::int16_t>(offset); }
  float f32(std::size_t offset) const noexcept { return get<float>(offset); }
  unsigned char byte(std::size_t offset) const noexcept {
    return static_cast<unsigned char>(bytes_[offset]);
  }
  std::string text(std::size_t offset, std::size_t length) const {
    return std::string(reinterpret_cast<const char*>(bytes_.data()) + offset, length);
  }

 private:
  const std::array<std::byte, kHeaderBytes>& bytes_;
  ByteOrder order_ = ByteOrder::Little;
};

bool isKnownMode(std::int32_t mode) {
  return (mode >= 0 && mode <= 4) || mode == 6 || mode == 12 || mode == 16 || mode == 101;
}

// A header whose sizes and mode make sense in this byte order.
bool plausibleIn(HeaderBytes& h, ByteOrder order) {
  h.setByteOrder(order);
  for (std::size_t offset : {0u, 4u, 8u}) {
    const std::int32_t n = h.i32(offset);
    if (n < 1 || n > kMaxAxisLength) return false;
  }
  return isKnownMode(h.i32(12));
}

std::string printable(std::string text) {
  for (char& c : text) {
    if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7f) c = '?';
  }
  return text;
}

std::string trimmedLabel(std::string text) {
  const std::size_t nul = text.find('\0');
  if (nul != std::string::npos) text.resize(nul);
  while (!text.empty() && text.back() == ' ') text.pop_back();
  return printable(text);
}

std::string numberText(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%.6g", v);
  return text;
}

void detectByteOrder(const std::filesystem::path& path, HeaderBytes& h, MrcHeader& m) {
  const unsigned char stamp = h.byte(212);
  if (stamp == 0x44) {
    m.byteOrder = ByteOrder::Little;
  } else if (stamp == 0x11) {
    m.byteOrder = ByteOrder::Big;
  } else {
    // Pre-2000 writers left machst blank: take the byte order in which sizes and mode make sense.
    const bool little = plausibleIn(h, ByteOrder::Little);
    const bool big = plausibleIn(h, ByteOrder::Big);
    m.byteOrder = !little && big ? ByteOrder::Big : ByteOrder::Little;
    m.warnings.push_back(path.string() + ": no machine stamp (machst); the header reads as " +
                         std::string(toString(m.byteOrder)) + "-endian");
  }
  h.setByteOrder(m.byteOrder);
}

void parseMode(const std::filesystem::path& path, MrcHeader& m) {
  switch (m.mode) {
    case 0:
      m.sampleType = m.hasImodStamp && (m.imodFlags & kImodFlagSignedBytes) ? MrcSampleType::Int8
                                                                            : MrcSampleType::UInt8;
      return;
    case 1:
      m.sampleType = MrcSampleType::Int16;
      return;
    case 2:
      m.sampleType = MrcSampleType::Float32;
      return;
    case 6:
      m.sampleType = MrcSampleType::UInt16;
      return;
    case 12:
      m.sampleType = MrcSampleType::Float16;
      return;
    default:
      break;
  }
  std::string what = "unknown mode";
  if (m.mode == 3) what = "complex int16 (mode 3)";
  if (m.mode == 4) what = "complex float32 (mode 4)";
  if (m.mode == 16) what = "RGB bytes (mode 16)";
  if (m.mode == 101) what = "4-bit values (mode 101)";
  throw FormatError(path, "mode",
                    "mode " + std::to_string(m.mode) + " (" + what +
                        ") is not supported; we read modes 0, 1, 2, 6 and 12");
}

void parseSpacingAndOrigin(const std::filesystem::path& path, const HeaderBytes& h, MrcHeader& m) {
  const char* cellNames[] = {"xlen", "ylen", "zlen"};
  const char* samplingNames[] = {"mx", "my", "mz"};
  const char* originNames[] = {"xorg", "yorg", "zorg"};
  std::string unknown;
  for (int i = 0; i < 3; ++i) {
    m.start[i] = h.i32(16 + 4 * i);
    m.sampling[i] = h.i32(28 + 4 * i);
    m.cellA[i] = h.f32(40 + 4 * i);
    m.cellAnglesDeg[i] = h.f32(52 + 4 * i);
    m.axisMap[i] = h.i32(64 + 4 * i);
    if (!std::isfinite(m.cellA[i]) || m.cellA[i] < 0)
      throw FormatError(path, cellNames[i],
                        "cell size must be finite and >= 0, got " + numberText(m.cellA[i]));
    if (m.sampling[i] < 0)
      throw FormatError(path, samplingNames[i],
                        "sampling must be >= 0, got " + std::to_string(m.sampling[i]));
    if (m.cellA[i] > 0 && m.sampling[i] > 0)
      m.spacingMm[i] = m.cellA[i] / m.sampling[i] * kMmPerAngstrom;
    else
      unknown += std::string(unknown.empty() ? "" : ", ") + "XYZ"[i];
  }
  if (!unknown.empty())
    m.warnings.push_back(path.string() + ": the header gives no pixel spacing along " + unknown +
                         " (cell or mx/my/mz is 0)");
  const bool identityMap = m.axisMap == std::array<std::int32_t, 3>{1, 2, 3};
  const bool unsetMap = m.axisMap == std::array<std::int32_t, 3>{0, 0, 0};
  if (!identityMap && !unsetMap)
    throw FormatError(path, "mapc/mapr/maps",
                      "axis order (" + std::to_string(m.axisMap[0]) + ", " +
                          std::to_string(m.axisMap[1]) + ", " + std::to_string(m.axisMap[2]) +
                          ") is not supported: only (1, 2, 3), columns = x, rows = y");
  m.hasMapSignature = h.text(208, 4) == "MAP ";
  if (!m.hasMapSignature) {
    m.warnings.push_back(path.string() +
                         ": no 'MAP ' signature (an old-style header): its origin is ignored");
    return;
  }
  const double sign = m.hasImodStamp && (m.imodFlags & kImodFlagOriginInverted) ? 1.0 : -1.0;
  for (int i = 0; i < 3; ++i) {
    m.originA[i] = h.f32(196 + 4 * i);
    if (!std::isfinite(m.originA[i]))
      throw FormatError(path, originNames[i], "origin is not finite");
    if (m.spacingMm[i] > 0) m.firstVoxelMm[i] = sign * m.originA[i] * kMmPerAngstrom;
  }
}

// IMOD's rule (mrc_format.txt): nint and nreal describe SerialEM data when the bytes that the
// nreal flags imply add up to nint; 0 if a flag we do not know is set.
int serialEmBytesForFlags(std::int16_t flags) {
  static constexpr std::array<std::pair<int, int>, 11> kItems = {{{1, 2},
                                                                  {2, 6},
                                                                  {4, 4},
                                                                  {8, 2},
                                                                  {16, 2},
                                                                  {32, 4},
                                                                  {64, 2},
                                                                  {128, 4},
                                                                  {256, 2},
                                                                  {512, 4},
                                                                  {1024, 2}}};
  int bytes = 0, known = 0;
  for (const auto& [flag, size] : kItems) {
    known |= flag;
    if (flags & flag) bytes += size;
  }
  return (flags & ~known) ? 0 : bytes;
}

bool isSerialEmHeader(const MrcHeader& m) {
  if (m.extendedHeaderBytes == 0 || m.nint <= 0 || m.nreal < 0) return false;
  if (m.extendedHeaderType == "SERI") return true;
  if (!m.extendedHeaderType.empty() && m.extendedHeaderType != "MRCO") return false;
  return serialEmBytesForFlags(m.nreal) == m.nint;
}

void readSerialEmTiltAngles(const InputFile& file, MrcHeader& m) {
  if (!isSerialEmHeader(m) || !(m.nreal & kSerialEmTiltFlag)) return;
  const auto stride = static_cast<std::uint64_t>(m.nint);
  const std::uint64_t needed = static_cast<std::uint64_t>(m.nz) * stride;  // < 2^35
  if (stride < 2 || needed > m.extendedHeaderBytes) {
    m.warnings.push_back(m.path.string() + ": the SerialEM extended header holds " +
                         std::to_string(m.extendedHeaderBytes) + " bytes, fewer than " +
                         std::to_string(m.nz) + " sections x " + std::to_string(m.nint) +
                         " bytes: its tilt angles are ignored");
    return;
  }
  const bool swap = m.byteOrder != kHostByteOrder;
  auto angleAt = [swap](const std::byte* p) {
    std::uint16_t bits;
    std::memcpy(&bits, p, 2);
    if (swap) bits = static_cast<std::uint16_t>(bits >> 8 | bits << 8);
    return static_cast<std::int16_t>(bits) / 100.0;
  };
  std::vector<double> angles(static_cast<std::size_t>(m.nz));
  if (needed <= kMaxExtendedHeaderRead) {
    std::vector<std::byte> block(static_cast<std::size_t>(needed));
    file.readAt(kHeaderBytes, block, "extended header");
    for (std::size_t k = 0; k < angles.size(); ++k) angles[k] = angleAt(&block[k * stride]);
  } else {
    std::array<std::byte, 2> pair{};
    for (std::size_t k = 0; k < angles.size(); ++k) {
      file.readAt(kHeaderBytes + k * stride, pair, "extended header");
      angles[k] = angleAt(pair.data());
    }
  }
  m.tiltAnglesDeg = std::move(angles);
}

struct OpenedMrc {
  MrcHeader header;
  std::unique_ptr<InputFile> file;
};

OpenedMrc openMrc(const std::filesystem::path& path) {
  OpenedMrc opened;
  opened.file = std::make_unique<InputFile>(path);
  const InputFile& file = *opened.file;
  MrcHeader& m = opened.header;
  m.path = path;
  std::array<std::byte, kHeaderBytes> bytes{};
  file.readAt(0, bytes, "header");
  HeaderBytes h(bytes);
  detectByteOrder(path, h, m);

  m.nx = checkedAxisLength(path, "nx", h.i32(0));
  m.ny = checkedAxisLength(path, "ny", h.i32(4));
  m.nz = checkedAxisLength(path, "nz", h.i32(8));
  m.mode = h.i32(12);
  m.hasImodStamp = h.i32(152) == kImodStamp;
  if (m.hasImodStamp) m.imodFlags = h.i32(156);
  parseMode(path, m);
  parseSpacingAndOrigin(path, h, m);
  m.dmin = h.f32(76);
  m.dmax = h.f32(80);
  m.dmean = h.f32(84);
  m.spaceGroup = h.i32(88);
  const std::int32_t next = h.i32(92);
  if (next < 0)
    throw FormatError(path, "next",
                      "extended header size must be >= 0, got " + std::to_string(next));
  m.extendedHeaderBytes = static_cast<std::uint64_t>(next);
  const std::string exttyp = h.text(104, 4);
  if (printable(exttyp) == exttyp && exttyp.find(' ') == std::string::npos)
    m.extendedHeaderType = exttyp;
  m.version = h.i32(108);
  m.nint = h.i16(128);
  m.nreal = h.i16(130);
  m.rms = h.f32(216);
  const std::int32_t labelCount = h.i32(220);
  if (labelCount < 0 || labelCount > kMaxLabels)
    m.warnings.push_back(path.string() + ": nlabl is " + std::to_string(labelCount) +
                         "; reading at most 10 labels");
  for (int i = 0; i < std::clamp(labelCount, 0, kMaxLabels); ++i)
    m.labels.push_back(
        trimmedLabel(h.text(224 + kLabelBytes * static_cast<std::size_t>(i), kLabelBytes)));

  file.requireRange(kHeaderBytes, m.extendedHeaderBytes, "next");
  m.dataOffset = kHeaderBytes + m.extendedHeaderBytes;
  m.payloadBytes =
      checkedPayloadBytes(path, "nx*ny*nz", {m.nx, m.ny, m.nz}, sampleBytes(m.sampleType));
  file.requireRange(m.dataOffset, m.payloadBytes, "data");
  m.trailingBytes = file.size() - m.dataOffset - m.payloadBytes;
  if (m.trailingBytes > 0)
    m.warnings.push_back(path.string() + ": " + std::to_string(m.trailingBytes) +
                         " bytes after the data are ignored");
  readSerialEmTiltAngles(file, m);
  return opened;
}

// Reads dst.size() samples starting at sample index `first` of the data, as float.
void readSamples(const InputFile& file, const MrcHeader& m, std::uint64_t first,
                 std::span<float> dst) {
  const std::size_t bytesPerSample = sampleBytes(m.sampleType);
  const std::uint64_t offset = m.dataOffset + first * bytesPerSample;
  readSamplesAsFloat(file, offset, *plainSampleType(m.sampleType), m.byteOrder, dst, "data");
}

// Our axis (x, y, z) for each file axis (X, Y, Z).
std::array<int, 3> ourAxisOfFileAxis(MrcAxisOrder order) {
  return order == MrcAxisOrder::Imod ? std::array<int, 3>{0, 2, 1} : std::array<int, 3>{0, 1, 2};
}

// ----- writing -----

class HeaderWriter {
 public:
  HeaderWriter() { bytes_.fill('\0'); }
  void i32(std::size_t offset, std::int32_t value) {
    put(offset, std::bit_cast<std::uint32_t>(value), 4);
  }
  void i16(std::size_t offset, std::int16_t value) {
    put(offset, std::bit_cast<std::uint16_t>(value), 2);
  }
  void f32(std::size_t offset, double value) {
    put(offset, std::bit_cast<std::uint32_t>(static_cast<float>(value)), 4);
  }
  void text(std::size_t offset, std::string_view text) {
    std::memcpy(bytes_.data() + offset, text.data(), text.size());
  }
  const std::array<char, kHeaderBytes>& bytes() const noexcept { return bytes_; }

 private:
  // Little-endian whatever the host.
  void put(std::size_t offset, std::uint32_t value, int count) {
    for (int i = 0; i < count; ++i)
      bytes_[offset + static_cast<std::size_t>(i)] = static_cast<char>(value >> (8 * i) & 0xff);
  }
  std::array<char, kHeaderBytes> bytes_;
};

struct SampleStats {
  double min = std::numeric_limits<double>::infinity();
  double max = -std::numeric_limits<double>::infinity();
  double sum = 0, sumSquares = 0;
  std::uint64_t count = 0;
  void add(double v) {
    if (!std::isfinite(v)) return;
    min = std::min(min, v);
    max = std::max(max, v);
    sum += v;
    sumSquares += v * v;
    ++count;
  }
  double mean() const { return count ? sum / static_cast<double>(count) : 0.0; }
  double rms() const {
    if (!count) return 0.0;
    const double m = mean();
    return std::sqrt(std::max(0.0, sumSquares / static_cast<double>(count) - m * m));
  }
};

// The value stored for `value` in an integer mode, or a ParameterError naming the sample.
double storedInteger(const MrcWriteOptions& o, float value, std::uint64_t index) {
  const double lo = o.mode == MrcWriteMode::Int16 ? -32768.0 : 0.0;
  const double hi = o.mode == MrcWriteMode::Int16 ? 32767.0 : 65535.0;
  const double stored = std::round((static_cast<double>(value) - o.intercept) / o.slope);
  if (!(stored >= lo && stored <= hi))
    throw ParameterError("mrc.slope/intercept",
                         "sample " + std::to_string(index) + " (" + numberText(value) +
                             ") maps to " + numberText(stored) + ", outside " + numberText(lo) +
                             ".." + numberText(hi) + " of the MRC mode");
  return stored;
}

void checkWriteOptions(const MrcWriteOptions& o) {
  if (o.mode != MrcWriteMode::Float32 &&
      (!std::isfinite(o.slope) || o.slope == 0 || !std::isfinite(o.intercept)))
    throw ParameterError("mrc.slope", "must be finite and non-zero, with a finite intercept");
  if (o.label.size() > kLabelBytes)
    throw ParameterError("mrc.label", "is " + std::to_string(o.label.size()) +
                                          " characters; an MRC label holds at most 80");
  if (printable(o.label) != o.label) throw ParameterError("mrc.label", "must be printable ASCII");
}

int modeNumber(MrcWriteMode mode) {
  return mode == MrcWriteMode::Float32 ? 2 : (mode == MrcWriteMode::Int16 ? 1 : 6);
}

// What a writer knows about the file it writes; the samples come from `visit`, which calls its
// argument once per file section with that section's values in file order.
struct WriteLayout {
  std::int64_t nx = 0, ny = 0, nz = 0;
  Eigen::Vector3d spacingMm = Eigen::Vector3d::Ones();
  Eigen::Vector3d firstVoxelMm = Eigen::Vector3d::Zero();
  std::int32_t spaceGroup = 1;
};

template <typename VisitSections>
void writeMrc(const std::filesystem::path& path, const WriteLayout& layout,
              const MrcWriteOptions& options, VisitSections&& visit) {
  checkWriteOptions(options);
  // First pass: statistics of the stored values (and, for integer modes, the range check, so
  // that a value that does not fit fails before any file exists).
  SampleStats stats;
  std::uint64_t index = 0;
  visit([&](std::span<const float> section) {
    for (float v : section) {
      stats.add(options.mode == MrcWriteMode::Float32 ? static_cast<double>(v)
                                                      : storedInteger(options, v, index));
      ++index;
    }
  });

  const bool withTilts = !options.tiltAnglesDeg.empty();
  HeaderWriter h;
  h.i32(0, static_cast<std::int32_t>(layout.nx));
  h.i32(4, static_cast<std::int32_t>(layout.ny));
  h.i32(8, static_cast<std::int32_t>(layout.nz));
  h.i32(12, modeNumber(options.mode));
  const std::array<std::int64_t, 3> n = {layout.nx, layout.ny, layout.nz};
  for (int i = 0; i < 3; ++i) {
    h.i32(28 + 4 * i, static_cast<std::int32_t>(n[i]));
    h.f32(40 + 4 * i, static_cast<double>(n[i]) * layout.spacingMm[i] / kMmPerAngstrom);
    h.f32(52 + 4 * i, 90.0);
    h.i32(64 + 4 * i, i + 1);
    // IMOD's origin: the coordinate origin relative to the first voxel, in Angstrom.
    h.f32(196 + 4 * i, -layout.firstVoxelMm[i] / kMmPerAngstrom);
  }
  h.f32(76, stats.count ? stats.min : 0.0);
  h.f32(80, stats.count ? stats.max : 0.0);
  h.f32(84, stats.mean());
  h.i32(88, layout.spaceGroup);
  if (withTilts) {
    h.i32(92, static_cast<std::int32_t>(2 * layout.nz));
    h.text(104, "SERI");
    h.i16(128, 2);
    h.i16(130, kSerialEmTiltFlag);
  }
  h.i32(108, 20140);
  h.i32(152, kImodStamp);
  h.i32(156, 0);
  h.text(208, "MAP ");
  h.text(212, std::string("\x44\x44\x00\x00", 4));
  h.f32(216, stats.rms());
  const std::string ours = std::string("Tomo Workbench ") + TOMOWB_VERSION;
  h.text(224, ours);
  int labels = 1;
  if (!options.label.empty()) h.text(224 + kLabelBytes * labels++, options.label);
  h.i32(220, labels);

  AtomicFileWriter out(path);
  out.write(h.bytes().data(), kHeaderBytes);
  if (withTilts) {
    std::vector<char> extended(static_cast<std::size_t>(2 * layout.nz));
    for (std::size_t k = 0; k < options.tiltAnglesDeg.size(); ++k) {
      const auto value = static_cast<std::int16_t>(std::lround(options.tiltAnglesDeg[k] * 100.0));
      const auto bits = std::bit_cast<std::uint16_t>(value);
      extended[2 * k] = static_cast<char>(bits & 0xff);
      extended[2 * k + 1] = static_cast<char>(bits >> 8);
    }
    out.write(extended.data(), extended.size());
  }
  index = 0;
  std::vector<std::uint16_t> staging;
  visit([&](std::span<const float> section) {
    if (options.mode == MrcWriteMode::Float32) {
      writeFloat32(out, section, ByteOrder::Little);
      return;
    }
    staging.resize(section.size());
    for (std::size_t i = 0; i < section.size(); ++i) {
      const double stored = storedInteger(options, section[i], index++);
      const std::uint16_t bits =
          options.mode == MrcWriteMode::Int16
              ? std::bit_cast<std::uint16_t>(static_cast<std::int16_t>(stored))
              : static_cast<std::uint16_t>(stored);
      staging[i] = kHostByteOrder == ByteOrder::Little
                       ? bits
                       : static_cast<std::uint16_t>(bits >> 8 | bits << 8);
    }
    out.write(staging.data(), staging.size() * 2);
  });
  out.commit();
}

void checkSizeForMrc(std::string_view what, std::int64_t n) {
  if (n > std::numeric_limits<std::int32_t>::max())
    throw ParameterError(what, "is " + std::to_string(n) + ", more than an MRC header holds");
}

}  // namespace

std::string_view toString(MrcSampleType type) noexcept {
  switch (type) {
    case MrcSampleType::UInt8:
      return "uint8";
    case MrcSampleType::Int8:
      return "int8";
    case MrcSampleType::Int16:
      return "int16";
    case MrcSampleType::Float32:
      return "float32";
    case MrcSampleType::UInt16:
      return "uint16";
    case MrcSampleType::Float16:
      return "float16";
  }
  return "unknown";
}

std::size_t sampleBytes(MrcSampleType type) noexcept {
  switch (type) {
    case MrcSampleType::UInt8:
    case MrcSampleType::Int8:
      return 1;
    case MrcSampleType::Int16:
    case MrcSampleType::UInt16:
    case MrcSampleType::Float16:
      return 2;
    case MrcSampleType::Float32:
      return 4;
  }
  return 0;
}

bool isMrcPath(const std::filesystem::path& path) {
  std::string ext = path.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  for (const char* known : {".mrc", ".st", ".ali", ".rec", ".map", ".mrcs", ".preali"})
    if (ext == known) return true;
  return false;
}

MrcHeader readMrcHeader(const std::filesystem::path& path) {
  return openMrc(path).header;
}

Volume readMrcVolume(const std::filesystem::path& path, const MrcReadOptions& options,
                     std::vector<std::string>* warnings) {
  if (!(options.voxelSizeMmIfUnknown > 0) || !std::isfinite(options.voxelSizeMmIfUnknown))
    throw ParameterError("voxelSizeMmIfUnknown", "must be finite and > 0");
  const OpenedMrc opened = openMrc(path);
  const MrcHeader& m = opened.header;
  std::vector<std::string> notes = m.warnings;
  const std::array<int, 3> ours = ourAxisOfFileAxis(options.axisOrder);
  const std::array<std::int64_t, 3> fileSize = {m.nx, m.ny, m.nz};
  std::array<std::int64_t, 3> size{};
  Eigen::Vector3d spacing, first;
  for (int f = 0; f < 3; ++f) {
    size[ours[f]] = fileSize[f];
    spacing[ours[f]] = m.spacingMm[f] > 0 ? m.spacingMm[f] : options.voxelSizeMmIfUnknown;
    first[ours[f]] = m.firstVoxelMm[f];
  }
  const VolumeShape shape{size[0], size[1], size[2]};
  // IMOD's order runs file X along -x: the first file column is our last x.
  if (options.axisOrder == MrcAxisOrder::Imod)
    first[0] = -first[0] - static_cast<double>(size[0] - 1) * spacing[0];
  Volume volume = Volume::centred(shape, spacing);
  if (!m.hasVoxelSpacing())
    notes.push_back(path.string() + ": voxel size unknown on some axis: using " +
                    numberText(options.voxelSizeMmIfUnknown) +
                    " mm there and centring the volume on the world origin");
  else if (!m.hasMapSignature)
    notes.push_back(path.string() + ": no origin in an old-style header: the volume is centred");
  else
    volume.setOriginMm(first);
  if (options.axisOrder == MrcAxisOrder::Identity) {
    readSamples(*opened.file, m, 0, volume.voxels());
  } else {
    // File section Z = our y; file row Y = our z; file column X = our -x.
    const std::size_t sectionSamples = static_cast<std::size_t>(m.nx * m.ny);
    std::vector<float> section(sectionSamples);
    for (std::int64_t fz = 0; fz < m.nz; ++fz) {
      readSamples(*opened.file, m, static_cast<std::uint64_t>(fz) * sectionSamples, section);
      for (std::int64_t fy = 0; fy < m.ny; ++fy)
        std::reverse_copy(section.begin() + fy * m.nx, section.begin() + (fy + 1) * m.nx,
                          &volume.at(0, fz, fy));
    }
  }
  if (warnings) warnings->insert(warnings->end(), notes.begin(), notes.end());
  return volume;
}

ProjectionStack readMrcProjections(const std::filesystem::path& path, Geometry geometry) {
  const OpenedMrc opened = openMrc(path);
  const MrcHeader& m = opened.header;
  if (geometry.detector().cols != m.nx)
    throw FormatError(path, "nx",
                      "is " + std::to_string(m.nx) + " but the geometry has " +
                          std::to_string(geometry.detector().cols) + " detector columns");
  if (geometry.detector().rows != m.ny)
    throw FormatError(path, "ny",
                      "is " + std::to_string(m.ny) + " but the geometry has " +
                          std::to_string(geometry.detector().rows) + " detector rows");
  if (geometry.viewCount() != m.nz)
    throw FormatError(path, "nz",
                      "is " + std::to_string(m.nz) + " sections but the geometry has " +
                          std::to_string(geometry.viewCount()) + " views");
  ProjectionStack stack(std::move(geometry));
  readSamples(*opened.file, m, 0, stack.pixels());
  return stack;
}

void writeMrcVolume(const std::filesystem::path& path, const Volume& volume,
                    const MrcWriteOptions& options) {
  if (volume.empty()) throw ParameterError("volume", "is empty: nothing to write");
  if (!options.tiltAnglesDeg.empty())
    throw ParameterError("mrc.tiltAnglesDeg", "only image stacks carry tilt angles");
  const std::array<int, 3> ours = ourAxisOfFileAxis(options.axisOrder);
  const std::array<std::int64_t, 3> n = {volume.nx(), volume.ny(), volume.nz()};
  WriteLayout layout;
  layout.nx = n[ours[0]];
  layout.ny = n[ours[1]];
  layout.nz = n[ours[2]];
  for (int f = 0; f < 3; ++f) {
    layout.spacingMm[f] = volume.voxelSizeMm()[ours[f]];
    layout.firstVoxelMm[f] = volume.originMm()[ours[f]];
    checkSizeForMrc("volume size", n[f]);
  }
  layout.spaceGroup = 1;
  // IMOD's order runs file X along -x: the first file column is our last x.
  if (options.axisOrder == MrcAxisOrder::Imod)
    layout.firstVoxelMm[0] =
        -(volume.originMm().x() + static_cast<double>(volume.nx() - 1) * volume.voxelSizeMm().x());
  if (options.axisOrder == MrcAxisOrder::Identity) {
    writeMrc(path, layout, options, [&](const auto& take) {
      const auto plane = static_cast<std::size_t>(volume.nx() * volume.ny());
      for (std::int64_t z = 0; z < volume.nz(); ++z)
        take(volume.voxels().subspan(static_cast<std::size_t>(z) * plane, plane));
    });
    return;
  }
  // File section Z = our y: gather rows (-x along file X) for each our z (file Y).
  std::vector<float> section(static_cast<std::size_t>(volume.nx() * volume.nz()));
  writeMrc(path, layout, options, [&](const auto& take) {
    for (std::int64_t y = 0; y < volume.ny(); ++y) {
      for (std::int64_t z = 0; z < volume.nz(); ++z) {
        const float* row = volume.data() + volume.index(0, y, z);
        std::reverse_copy(row, row + volume.nx(), section.begin() + z * volume.nx());
      }
      take(std::span<const float>(section));
    }
  });
}

void writeMrcStack(const std::filesystem::path& path, const ProjectionStack& projections,
                   const MrcWriteOptions& options) {
  if (projections.empty()) throw ParameterError("projections", "are empty: nothing to write");
  if (options.axisOrder != MrcAxisOrder::Identity)
    throw ParameterError("mrc.axisOrder", "an image stack is written in its own order only");
  if (!options.tiltAnglesDeg.empty()) {
    if (static_cast<std::int64_t>(options.tiltAnglesDeg.size()) != projections.viewCount())
      throw ParameterError("mrc.tiltAnglesDeg",
                           "has " + std::to_string(options.tiltAnglesDeg.size()) + " angles for " +
                               std::to_string(projections.viewCount()) + " views");
    for (double a : options.tiltAnglesDeg)
      if (!(std::abs(a) <= 327.67))
        throw ParameterError(
            "mrc.tiltAnglesDeg",
            "a SerialEM header holds angles within +-327.67 degrees, got " + numberText(a));
    if (2 * projections.viewCount() > std::numeric_limits<std::int32_t>::max())
      throw ParameterError("mrc.tiltAnglesDeg", "too many views for an extended header");
  }
  checkSizeForMrc("projection columns", projections.cols());
  checkSizeForMrc("projection rows", projections.rows());
  checkSizeForMrc("views", projections.viewCount());
  const View& first = projections.geometry().view(0);
  WriteLayout layout;
  layout.nx = projections.cols();
  layout.ny = projections.rows();
  layout.nz = projections.viewCount();
  layout.spacingMm = Eigen::Vector3d(first.u.norm(), first.v.norm(), first.u.norm());
  layout.spaceGroup = 0;
  writeMrc(path, layout, options, [&](const auto& take) {
    for (std::int64_t k = 0; k < projections.viewCount(); ++k) take(projections.viewPixels(k));
  });
}

std::optional<SampleType> plainSampleType(MrcSampleType type) noexcept {
  switch (type) {
    case MrcSampleType::UInt8:
      return SampleType::UInt8;
    case MrcSampleType::Int8:
      return SampleType::Int8;
    case MrcSampleType::Int16:
      return SampleType::Int16;
    case MrcSampleType::UInt16:
      return SampleType::UInt16;
    case MrcSampleType::Float32:
      return SampleType::Float32;
    case MrcSampleType::Float16:
      return SampleType::Float16;
  }
  return std::nullopt;
}

}  // namespace tomowb::io
