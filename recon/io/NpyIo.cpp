#include "recon/io/NpyIo.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <map>
#include <memory>
#include <optional>
#include <string_view>

#include "recon/core/CheckedSize.h"
#include "recon/core/Error.h"
#include "recon/io/AtomicFileWriter.h"
#include "recon/io/InputFile.h"
#include "recon/io/ReaderLimits.h"

namespace tomowb::io {

namespace {

constexpr std::array<unsigned char, 6> kMagic = {0x93, 'N', 'U', 'M', 'P', 'Y'};

std::string quotedValue(std::string_view value) {
  std::string text(value.substr(0, 64));
  for (char& c : text) {
    if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7f) c = '?';
  }
  return "'" + text + (value.size() > 64 ? "...'" : "'");
}

// A parsed value of the header dict: a string, a bool or a tuple of integers.
struct DictValue {
  enum class Kind { String, Bool, Tuple } kind = Kind::String;
  std::string text;
  bool flag = false;
  std::vector<std::int64_t> numbers;
};

// Parser for the one Python literal numpy writes: {'descr': '<f4', 'fortran_order': False,
// 'shape': (3, 4), }. Anything else is an error naming the offset in the header.
class DictParser {
 public:
  DictParser(std::string_view text, const std::filesystem::path& path) : s_(text), path_(path) {}

  std::map<std::string, DictValue> parse() {
    std::map<std::string, DictValue> entries;
    skipSpace();
    expect('{');
    skipSpace();
    while (peek() != '}') {
      const std::string key = parseString();
      skipSpace();
      expect(':');
      skipSpace();
      DictValue value = parseValue(key);
      if (!entries.emplace(key, std::move(value)).second)
        fail("key " + quotedValue(key) + " repeats");
      skipSpace();
      if (peek() == ',') {
        ++pos_;
        skipSpace();
      } else if (peek() != '}') {
        fail("expected ',' or '}'");
      }
    }
    ++pos_;
    skipSpace();
    if (pos_ != s_.size()) fail("unexpected text after the dict");
    return entries;
  }

 private:
  [[noreturn]] void fail(const std::string& problem) const {
    throw FormatError(path_, "header", problem + " at offset " + std::to_string(pos_));
  }
  char peek() const {
    if (pos_ >= s_.size()) fail("the header ends early");
    return s_[pos_];
  }
  void expect(char c) {
    if (peek() != c) fail(std::string("expected '") + c + "'");
    ++pos_;
  }
  void skipSpace() {
    while (pos_ < s_.size() &&
           (s_[pos_] == ' ' || s_[pos_] == '\n' || s_[pos_] == '\t' || s_[pos_] == '\r'))
      ++pos_;
  }
  bool consumeWord(std::string_view word) {
    if (s_.substr(pos_, word.size()) != word) return false;
    pos_ += word.size();
    return true;
  }

  std::string parseString() {
    const char quote = peek();
    if (quote != '\'' && quote != '"') fail("expected a quoted string");
    ++pos_;
    const std::size_t end = s_.find(quote, pos_);
    if (end == std::string_view::npos) fail("unterminated string");
    std::string text(s_.substr(pos_, end - pos_));
    if (text.find('\\') != std::string::npos) fail("escapes in strings are not supported");
    pos_ = end + 1;
    return text;
  }

  std::int64_t parseInteger() {
    const std::size_t start = pos_;
    std::uint64_t value = 0;
    while (pos_ < s_.size() && s_[pos_] >= '0' && s_[pos_] <= '9') {
      const auto next = mulChecked(value, 10);
      const auto sum =
          next ? addChecked(*next, static_cast<std::uint64_t>(s_[pos_] - '0')) : std::nullopt;
      if (!sum || *sum > static_cast<std::uint64_t>(INT64_MAX)) fail("shape value overflows");
      value = *sum;
      ++pos_;
    }
    if (pos_ == start) fail("expected a non-negative integer in shape");
    if (pos_ < s_.size() && s_[pos_] == 'L') ++pos_;  // Python 2 longs: (3L, 4L)
    return static_cast<std::int64_t>(value);
  }

  DictValue parseTuple() {
    DictValue v;
    v.kind = DictValue::Kind::Tuple;
    expect('(');
    skipSpace();
    while (peek() != ')') {
      if (v.numbers.size() >= static_cast<std::size_t>(kMaxNpyDims))
        fail("shape has more than " + std::to_string(kMaxNpyDims) + " dimensions");
      v.numbers.push_back(parseInteger());
      skipSpace();
      if (peek() == ',') {
        ++pos_;
        skipSpace();
      } else if (peek() != ')') {
        fail("expected ',' or ')' in shape");
      }
    }
    ++pos_;
    return v;
  }

  DictValue parseValue(const std::string& key) {
    DictValue v;
    const char c = peek();
    if (c == '\'' || c == '"') {
      v.text = parseString();
    } else if (c == '(') {
      v = parseTuple();
    } else if (consumeWord("True")) {
      v.kind = DictValue::Kind::Bool;
      v.flag = true;
    } else if (consumeWord("False")) {
      v.kind = DictValue::Kind::Bool;
    } else if (c == '[' && key == "descr") {
      throw FormatError(path_, "descr", "structured (record) dtypes are not supported");
    } else {
      fail("unsupported value for " + quotedValue(key));
    }
    return v;
  }

  std::string_view s_;
  const std::filesystem::path& path_;
  std::size_t pos_ = 0;
};

void parseDescr(const std::filesystem::path& path, NpyHeader& h) {
  const std::string& d = h.descr;
  if (d.find('O') != std::string::npos)
    throw FormatError(path, "descr", "object arrays (pickled data) are not supported");
  static const std::map<std::string, SampleType> kTypes = {
      {"u1", SampleType::UInt8},   {"i1", SampleType::Int8},    {"u2", SampleType::UInt16},
      {"i2", SampleType::Int16},   {"u4", SampleType::UInt32},  {"i4", SampleType::Int32},
      {"f4", SampleType::Float32}, {"f8", SampleType::Float64}, {"f2", SampleType::Float16}};
  const auto it = d.size() == 3 ? kTypes.find(d.substr(1)) : kTypes.end();
  if (it == kTypes.end())
    throw FormatError(path, "descr",
                      "unsupported dtype " + quotedValue(d) +
                          " (expected float16/32/64, uint8/16/32 or int8/16/32)");
  h.sampleType = it->second;
  switch (d[0]) {
    case '<':
      h.byteOrder = ByteOrder::Little;
      break;
    case '>':
      h.byteOrder = ByteOrder::Big;
      break;
    case '=':
      h.byteOrder = kHostByteOrder;
      break;
    case '|':
      if (sampleBytes(h.sampleType) != 1)
        throw FormatError(path, "descr", "byte order '|' is only valid for 1-byte types");
      h.byteOrder = kHostByteOrder;
      break;
    default:
      throw FormatError(path, "descr", "unknown byte order in " + quotedValue(d));
  }
}

void parseDict(std::string_view text, const std::filesystem::path& path, NpyHeader& h) {
  const auto entries = DictParser(text, path).parse();
  for (const auto& [key, value] : entries) {
    if (key != "descr" && key != "fortran_order" && key != "shape")
      throw FormatError(path, "header", "unexpected key " + quotedValue(key));
  }
  for (const char* key : {"descr", "fortran_order", "shape"}) {
    if (!entries.count(key)) throw FormatError(path, key, "is missing from the header");
  }
  const DictValue& descr = entries.at("descr");
  const DictValue& fortran = entries.at("fortran_order");
  const DictValue& shape = entries.at("shape");
  if (descr.kind != DictValue::Kind::String) throw FormatError(path, "descr", "must be a string");
  if (fortran.kind != DictValue::Kind::Bool)
    throw FormatError(path, "fortran_order", "must be True or False");
  if (shape.kind != DictValue::Kind::Tuple)
    throw FormatError(path, "shape", "must be a tuple of integers");
  h.descr = descr.text;
  h.fortranOrder = fortran.flag;
  parseDescr(path, h);
  if (shape.numbers.empty())
    throw FormatError(path, "shape", "is () (a scalar): an image needs 1 to 3 dimensions");
  h.shape = shape.numbers;
  for (std::size_t i = 0; i < h.shape.size(); ++i)
    checkedAxisLength(path, "shape[" + std::to_string(i) + "]", h.shape[i]);
}

struct OpenedNpy {
  NpyHeader header;
  std::unique_ptr<InputFile> file;
};

OpenedNpy openNpy(const std::filesystem::path& path) {
  OpenedNpy opened;
  opened.file = std::make_unique<InputFile>(path);
  const InputFile& file = *opened.file;
  NpyHeader& h = opened.header;
  std::array<std::byte, 12> prefix{};
  file.readAt(0, std::span(prefix).first(10), "magic");
  if (std::memcmp(prefix.data(), kMagic.data(), kMagic.size()) != 0)
    throw FormatError(path, "magic", "not a NumPy .npy file (no \\x93NUMPY signature)");
  h.majorVersion = static_cast<int>(prefix[6]);
  h.minorVersion = static_cast<int>(prefix[7]);
  std::uint64_t headerLength = 0;
  if (h.majorVersion == 1) {
    headerLength = static_cast<std::uint64_t>(prefix[8]) | static_cast<std::uint64_t>(prefix[9])
                                                               << 8;
    h.dataOffset = 10;
  } else if (h.majorVersion == 2 || h.majorVersion == 3) {
    file.readAt(10, std::span(prefix).subspan(10, 2), "header_len");
    for (int i = 3; i >= 0; --i)
      headerLength = headerLength << 8 | static_cast<std::uint64_t>(prefix[8 + i]);
    h.dataOffset = 12;
  } else {
    throw FormatError(path, "version",
                      "format version " + std::to_string(h.majorVersion) + "." +
                          std::to_string(h.minorVersion) + " is not 1.0, 2.0 or 3.0");
  }
  if (headerLength > kMaxNpyHeaderBytes)
    throw FormatError(path, "header_len",
                      "header of " + std::to_string(headerLength) + " bytes exceeds 64 KiB");
  const std::string text =
      file.readString(h.dataOffset, static_cast<std::size_t>(headerLength), "header");
  h.dataOffset += headerLength;
  parseDict(text, path, h);
  std::optional<std::uint64_t> bytes = sampleBytes(h.sampleType);
  for (std::int64_t n : h.shape) {
    if (bytes) bytes = mulChecked(*bytes, static_cast<std::uint64_t>(n));
  }
  if (!bytes) throw FormatError(path, "shape", "data size overflows 64 bits");
  h.payloadBytes = *bytes;
  file.requireRange(h.dataOffset, h.payloadBytes, "data");
  if (file.size() != h.dataOffset + h.payloadBytes)
    throw FormatError(
        path, "data",
        "the file has " + std::to_string(file.size() - h.dataOffset - h.payloadBytes) +
            " bytes more than shape and dtype need (" + std::to_string(h.payloadBytes) + ")");
  return opened;
}

VolumeShape volumeShapeOf(const NpyHeader& h, const std::filesystem::path& path) {
  const std::size_t ndim = h.shape.size();
  for (std::size_t i = 0; i + 3 < ndim; ++i) {
    if (h.shape[i] != 1)
      throw FormatError(
          path, "shape",
          "has " + std::to_string(ndim) + " dimensions; only the last three may be longer than 1");
  }
  auto axis = [&](std::size_t fromEnd) {
    return fromEnd < ndim ? h.shape[ndim - 1 - fromEnd] : std::int64_t{1};
  };
  return VolumeShape{axis(0), axis(1), axis(2)};
}

// Fortran order stores z fastest and x slowest: read one x plane (ny * nz samples) at a time and
// scatter it, so only one plane is held twice.
void readFortranOrder(const InputFile& file, const NpyHeader& h, Volume& volume) {
  const std::int64_t nx = volume.nx(), ny = volume.ny(), nz = volume.nz();
  const std::size_t plane = static_cast<std::size_t>(ny * nz);
  const std::uint64_t planeBytes = std::uint64_t{plane} * sampleBytes(h.sampleType);
  std::vector<float> buffer(plane);
  for (std::int64_t x = 0; x < nx; ++x) {
    readSamplesAsFloat(file, h.dataOffset + static_cast<std::uint64_t>(x) * planeBytes,
                       h.sampleType, h.byteOrder, buffer, "data");
    for (std::int64_t y = 0; y < ny; ++y)
      for (std::int64_t z = 0; z < nz; ++z)
        volume.at(x, y, z) = buffer[static_cast<std::size_t>(z + nz * y)];
  }
}

}  // namespace

NpyHeader readNpyHeader(const std::filesystem::path& path) {
  return openNpy(path).header;
}

Volume readNpy(const std::filesystem::path& path) {
  const OpenedNpy opened = openNpy(path);
  const NpyHeader& h = opened.header;
  Volume volume = Volume::centred(volumeShapeOf(h, path), Eigen::Vector3d::Ones());
  if (h.fortranOrder)
    readFortranOrder(*opened.file, h, volume);
  else
    readSamplesAsFloat(*opened.file, h.dataOffset, h.sampleType, h.byteOrder, volume.voxels(),
                       "data");
  return volume;
}

void writeNpy(const std::filesystem::path& path, const Volume& volume) {
  if (volume.empty()) throw ParameterError("volume", "is empty: nothing to write");
  std::string dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (" +
                     std::to_string(volume.nz()) + ", " + std::to_string(volume.ny()) + ", " +
                     std::to_string(volume.nx()) + "), }";
  // Pad with spaces so that the data starts on a 64-byte boundary, newline last (format.py).
  const std::size_t unpadded = 10 + dict.size() + 1;
  dict.append((64 - unpadded % 64) % 64, ' ');
  dict.push_back('\n');
  std::string header(reinterpret_cast<const char*>(kMagic.data()), kMagic.size());
  header.push_back('\x01');
  header.push_back('\x00');
  header.push_back(static_cast<char>(dict.size() & 0xff));
  header.push_back(static_cast<char>(dict.size() >> 8));
  header += dict;
  AtomicFileWriter out(path);
  out.write(header);
  writeFloat32(out, volume.voxels(), ByteOrder::Little);
  out.commit();
}

}  // namespace tomowb::io
