#include "recon/io/dicom/DicomNesting.h"

#include <dcmtk/config/osconfig.h>  // must come first
#include <dcmtk/dcmdata/dctag.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "recon/core/Error.h"
#include "recon/io/InputFile.h"

namespace tomowb::io::dicom {

namespace {

constexpr std::uint64_t kUndefined = std::numeric_limits<std::uint64_t>::max();
constexpr std::uint32_t kUndefinedLength = 0xFFFFFFFFu;
constexpr std::uint16_t kItemGroup = 0xFFFE;
constexpr std::uint16_t kItem = 0xE000, kItemEnd = 0xE00D, kSequenceEnd = 0xE0DD;

// Random access to the bytes, a file (through a 64 KiB window) or a buffer.
class ByteSource {
 public:
  virtual ~ByteSource() = default;
  std::uint64_t size() const noexcept { return size_; }
  // False (and nothing read) if [offset, offset + n) is not inside the data.
  bool read(std::uint64_t offset, void* dst, std::size_t n) {
    if (offset > size_ || n > size_ - offset) return false;
    copy(offset, static_cast<std::uint8_t*>(dst), n);
    return true;
  }

 protected:
  virtual void copy(std::uint64_t offset, std::uint8_t* dst, std::size_t n) = 0;
  std::uint64_t size_ = 0;
};

class BufferSource : public ByteSource {
 public:
  explicit BufferSource(std::span<const std::uint8_t> bytes) : bytes_(bytes) {
    size_ = bytes.size();
  }

 private:
  void copy(std::uint64_t offset, std::uint8_t* dst, std::size_t n) override {
    std::memcpy(dst, bytes_.data() + offset, n);
  }
  std::span<const std::uint8_t> bytes_;
};

class FileSource : public ByteSource {
 public:
  explicit FileSource(const InputFile& file) : file_(file) { size_ = file.size(); }

 private:
  static constexpr std::size_t kWindow = std::size_t{64} << 10;
  void copy(std::uint64_t offset, std::uint8_t* dst, std::size_t n) override {
    // Element headers are at most 12 bytes: a window always holds one.
    if (n > kWindow) {
      file_.readAt(offset, std::as_writable_bytes(std::span(dst, n)), "element header");
      return;
    }
    if (offset < windowStart_ || offset + n > windowStart_ + window_.size()) {
      windowStart_ = offset;
      window_.resize(static_cast<std::size_t>(std::min<std::uint64_t>(kWindow, size_ - offset)));
      file_.readAt(offset, std::as_writable_bytes(std::span(window_)), "element header");
    }
    std::memcpy(dst, window_.data() + (offset - windowStart_), n);
  }
  const InputFile& file_;
  std::vector<std::uint8_t> window_;
  std::uint64_t windowStart_ = 0;
};

struct Encoding {
  bool explicitVr = true;
  bool littleEndian = true;
};

std::uint16_t u16(const std::uint8_t* b, bool little) {
  return little ? static_cast<std::uint16_t>(b[0] | (b[1] << 8))
                : static_cast<std::uint16_t>((b[0] << 8) | b[1]);
}

std::uint32_t u32(const std::uint8_t* b, bool little) {
  return little ? (std::uint32_t{b[0]} | (std::uint32_t{b[1]} << 8) | (std::uint32_t{b[2]} << 16) |
                   (std::uint32_t{b[3]} << 24))
                : ((std::uint32_t{b[0]} << 24) | (std::uint32_t{b[1]} << 16) |
                   (std::uint32_t{b[2]} << 8) | std::uint32_t{b[3]});
}

// Explicit VRs with a 2-byte reserved field and a 4-byte length (PS3.5, 7.1.2).
bool hasLongLength(std::string_view vr) {
  static constexpr std::string_view kLong[] = {"OB", "OD", "OF", "OL", "OV", "OW", "SQ",
                                               "SV", "UC", "UN", "UR", "UT", "UV"};
  return std::find(std::begin(kLong), std::end(kLong), vr) != std::end(kLong);
}

bool isSequenceInDictionary(std::uint16_t group, std::uint16_t element) {
  const DcmTag tag(group, element);
  return tag.getEVR() == EVR_SQ;
}

// A sequence or an item being walked.
struct Container {
  std::uint64_t end = kUndefined;  // first byte after it, or kUndefined (closed by a delimiter)
  bool item = false;
  bool fragments = false;  // encapsulated pixel data: its items hold bytes, not elements
  Encoding encoding;
};

// Walks the data set from `pos` in `encoding` until the structure stops making sense or the data
// ends; returns the deepest sequence nesting seen, stopping just past `limit`.
int deepestNesting(ByteSource& source, std::uint64_t pos, Encoding encoding, int limit) {
  std::vector<Container> open;
  int depth = 0, deepest = 0;
  while (true) {
    while (!open.empty() && open.back().end != kUndefined && pos >= open.back().end) {
      if (pos > open.back().end) return deepest;  // an element overran its container
      if (!open.back().item && !open.back().fragments) --depth;
      open.pop_back();
    }
    const Encoding e = open.empty() ? encoding : open.back().encoding;
    std::uint8_t header[12];
    if (!source.read(pos, header, 8)) return deepest;
    const std::uint16_t group = u16(header, e.littleEndian);
    const std::uint16_t element = u16(header + 2, e.littleEndian);
    if (group == kItemGroup) {
      const std::uint32_t length = u32(header + 4, e.littleEndian);
      pos += 8;
      if (element == kItem) {
        if (open.empty() || open.back().item) return deepest;
        if (open.back().fragments) {
          if (length == kUndefinedLength) return deepest;
          pos += length;
          continue;
        }
        Container item;
        item.item = true;
        item.end = length == kUndefinedLength ? kUndefined : pos + length;
        item.encoding = open.back().encoding;
        open.push_back(item);
      } else if (element == kItemEnd) {
        if (open.empty() || !open.back().item || open.back().end != kUndefined) return deepest;
        open.pop_back();
      } else if (element == kSequenceEnd) {
        if (open.empty() || open.back().item || open.back().end != kUndefined) return deepest;
        if (!open.back().fragments) --depth;
        open.pop_back();
      } else {
        return deepest;
      }
      continue;
    }
    std::string_view vr;
    std::uint32_t length = 0;
    if (e.explicitVr) {
      vr = std::string_view(reinterpret_cast<const char*>(header + 4), 2);
      if (hasLongLength(vr)) {
        if (!source.read(pos + 8, header + 8, 4)) return deepest;
        length = u32(header + 8, e.littleEndian);
        pos += 12;
      } else {
        length = u16(header + 6, e.littleEndian);
        pos += 8;
      }
    } else {
      length = u32(header + 4, e.littleEndian);
      pos += 8;
    }
    const bool undefined = length == kUndefinedLength;
    const bool pixelData = group == 0x7FE0 && element == 0x0010;
    if (undefined && pixelData) {
      Container fragments;
      fragments.fragments = true;
      fragments.encoding = e;
      open.push_back(fragments);
      continue;
    }
    const bool sequence = e.explicitVr ? (vr == "SQ" || (vr == "UN" && undefined))
                                       : (undefined || isSequenceInDictionary(group, element));
    if (sequence) {
      deepest = std::max(deepest, ++depth);
      if (deepest > limit) return deepest;
      Container s;
      s.end = undefined ? kUndefined : pos + length;
      // An explicit "UN" of undefined length holds implicit VR little endian (CP-246).
      s.encoding = e.explicitVr && vr == "UN" ? Encoding{false, true} : e;
      open.push_back(s);
      continue;
    }
    if (undefined) return deepest;  // no other element has an undefined length
    pos += length;
  }
}

// Where the data set starts and how the meta header says it is encoded (nullopt: no meta header,
// any encoding is possible).
struct DataSetStart {
  std::uint64_t offset = 0;
  bool haveTransferSyntax = false;
  std::string transferSyntax;
};

DataSetStart findDataSet(ByteSource& source) {
  DataSetStart start;
  char magic[4];
  std::uint64_t pos = 0;
  if (source.read(128, magic, 4) && std::string_view(magic, 4) == "DICM")
    pos = 132;
  else if (source.read(0, magic, 4) && std::string_view(magic, 4) == "DICM")
    pos = 4;
  else
    return start;
  // The meta header: group 0002, always explicit VR little endian.
  while (true) {
    std::uint8_t header[12];
    if (!source.read(pos, header, 8) || u16(header, true) != 0x0002) break;
    const std::uint16_t element = u16(header + 2, true);
    const std::string_view vr(reinterpret_cast<const char*>(header + 4), 2);
    std::uint32_t length = 0;
    std::uint64_t value = 0;
    if (hasLongLength(vr)) {
      if (!source.read(pos + 8, header + 8, 4)) break;
      length = u32(header + 8, true);
      value = pos + 12;
    } else {
      length = u16(header + 6, true);
      value = pos + 8;
    }
    if (length == kUndefinedLength) break;
    if (element == 0x0010 && length <= 64) {
      std::string uid(length, '\0');
      if (source.read(value, uid.data(), length)) {
        while (!uid.empty() && (uid.back() == '\0' || uid.back() == ' ')) uid.pop_back();
        start.transferSyntax = uid;
        start.haveTransferSyntax = true;
      }
    }
    pos = value + length;
  }
  start.offset = pos;
  return start;
}

int deepestOverEncodings(ByteSource& source, const std::filesystem::path* nameForErrors) {
  const DataSetStart start = findDataSet(source);
  const int limit = kMaxDicomSequenceDepth;
  if (start.haveTransferSyntax && start.transferSyntax == "1.2.840.10008.1.2.1.99") {
    if (nameForErrors)
      throw FormatError(*nameForErrors, "Transfer Syntax UID",
                        "Deflated Explicit VR Little Endian is not read (its structure cannot be "
                        "checked before parsing); store the series uncompressed or with a pixel "
                        "codec");
    return 0;
  }
  std::vector<Encoding> encodings;
  if (start.haveTransferSyntax && start.transferSyntax == "1.2.840.10008.1.2")
    encodings = {{false, true}};
  else if (start.haveTransferSyntax && start.transferSyntax == "1.2.840.10008.1.2.2")
    encodings = {{true, false}};
  else if (start.haveTransferSyntax)
    encodings = {{true, true}};
  else
    encodings = {{false, true}, {true, true}, {true, false}};
  int deepest = 0;
  for (const Encoding& e : encodings) {
    deepest = std::max(deepest, deepestNesting(source, start.offset, e, limit));
    if (deepest > limit) break;
  }
  return deepest;
}

void throwIfTooDeep(int deepest, const std::filesystem::path& path) {
  if (deepest > kMaxDicomSequenceDepth)
    throw FormatError(path, "sequence nesting",
                      "sequences are nested more than " + std::to_string(kMaxDicomSequenceDepth) +
                          " levels deep; the workbench refuses such files (real CT and PET "
                          "objects nest a few levels)");
}

}  // namespace

void checkDicomNesting(const std::filesystem::path& path) {
  const InputFile file(path);
  FileSource source(file);
  throwIfTooDeep(deepestOverEncodings(source, &path), path);
}

void checkDicomNesting(std::span<const std::uint8_t> bytes,
                       const std::filesystem::path& nameForErrors) {
  BufferSource source(bytes);
  throwIfTooDeep(deepestOverEncodings(source, &nameForErrors), nameForErrors);
}

int dicomSequenceDepth(std::span<const std::uint8_t> bytes) {
  BufferSource source(bytes);
  return deepestOverEncodings(source, nullptr);
}

}  // namespace tomowb::io::dicom
