#include "recon/io/MetaImageIo.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "recon/core/Error.h"
#include "recon/io/AtomicFileWriter.h"
#include "recon/io/InputFile.h"
#include "recon/io/ReaderLimits.h"

namespace tomowb::io {

namespace {

std::string quotedValue(std::string_view value) {
  std::string text(value.substr(0, 64));
  for (char& c : text) {
    if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7f) c = '?';
  }
  return "'" + text + (value.size() > 64 ? "...'" : "'");
}

std::string_view trim(std::string_view s) {
  const auto first = s.find_first_not_of(" \t\r");
  if (first == std::string_view::npos) return {};
  const auto last = s.find_last_not_of(" \t\r");
  return s.substr(first, last - first + 1);
}

std::string lowerCase(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

std::vector<std::string_view> splitWords(std::string_view s) {
  std::vector<std::string_view> words;
  std::size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
    const std::size_t start = i;
    while (i < s.size() && s[i] != ' ' && s[i] != '\t') ++i;
    if (i > start) words.push_back(s.substr(start, i - start));
  }
  return words;
}

// Canonical key for the aliases MetaIO accepts.
std::string canonicalKey(std::string_view key) {
  std::string k = lowerCase(key);
  if (k == "elementsize") return "elementspacing";
  if (k == "position" || k == "origin") return "offset";
  if (k == "rotation" || k == "orientation") return "transformmatrix";
  if (k == "elementbyteordermsb") return "binarydatabyteordermsb";
  return k;
}

struct HeaderField {
  std::string name;  // as written in the file, for messages
  std::string value;
  int line = 0;
};

struct RawHeader {
  std::map<std::string, HeaderField> fields;  // by canonical key
  std::uint64_t headerEnd = 0;                // first byte after the ElementDataFile line
};

RawHeader scanHeader(const InputFile& file) {
  const std::uint64_t scanBytes = std::min<std::uint64_t>(file.size(), kMaxMetaImageHeaderBytes);
  const std::string text = file.readString(0, static_cast<std::size_t>(scanBytes), "header");
  RawHeader header;
  std::size_t position = 0;
  for (int line = 1; position < text.size(); ++line) {
    if (line > kMaxMetaImageHeaderLines)
      throw FormatError(file.path(), "header", "has more than 1000 lines before ElementDataFile");
    const std::size_t newline = text.find('\n', position);
    if (newline == std::string::npos) {
      // Only the last line of a separate header may lack its newline.
      if (file.size() > kMaxMetaImageHeaderBytes)
        throw FormatError(file.path(), "header", "is longer than 64 KiB (no ElementDataFile)");
    }
    const std::size_t lineEnd = newline == std::string::npos ? text.size() : newline;
    const std::string_view lineText(text.data() + position, lineEnd - position);
    position = newline == std::string::npos ? text.size() : newline + 1;
    if (trim(lineText).empty()) continue;
    const std::size_t equals = lineText.find('=');
    if (equals == std::string_view::npos)
      throw FormatError(file.path(), "line " + std::to_string(line),
                        "expected 'Key = Value', got " + quotedValue(trim(lineText)));
    const std::string_view key = trim(lineText.substr(0, equals));
    const std::string canonical = canonicalKey(key);
    HeaderField field{std::string(key), std::string(trim(lineText.substr(equals + 1))), line};
    if (!header.fields.emplace(canonical, field).second)
      throw FormatError(file.path(), std::string(key),
                        "appears twice (line " + std::to_string(line) + ")");
    if (canonical == "elementdatafile") {
      header.headerEnd = position;
      return header;
    }
  }
  if (text.size() >= kMaxMetaImageHeaderBytes)
    throw FormatError(file.path(), "header", "is longer than 64 KiB (no ElementDataFile)");
  throw FormatError(file.path(), "ElementDataFile", "is missing (it must end the header)");
}

class HeaderReader {
 public:
  HeaderReader(const InputFile& file, const RawHeader& header) : file_(file), header_(header) {}

  const HeaderField* find(const char* key) const {
    const auto it = header_.fields.find(key);
    return it == header_.fields.end() ? nullptr : &it->second;
  }
  const HeaderField& require(const char* key, const char* display) const {
    const HeaderField* f = find(key);
    if (!f) throw FormatError(file_.path(), display, "is missing");
    return *f;
  }

  std::int64_t integer(const HeaderField& f, std::string_view word) const {
    std::int64_t value = 0;
    const auto [end, ec] = std::from_chars(word.data(), word.data() + word.size(), value);
    if (ec == std::errc::result_out_of_range)
      throw FormatError(file_.path(), f.name, "value " + quotedValue(word) + " is out of range");
    if (ec != std::errc() || end != word.data() + word.size())
      throw FormatError(file_.path(), f.name, "expected an integer, got " + quotedValue(word));
    return value;
  }

  double number(const HeaderField& f, std::string_view word) const {
    double value = 0.0;
    const auto [end, ec] = std::from_chars(word.data(), word.data() + word.size(), value);
    if (ec != std::errc() || end != word.data() + word.size() || !std::isfinite(value))
      throw FormatError(file_.path(), f.name, "expected a finite number, got " + quotedValue(word));
    return value;
  }

  std::vector<std::string_view> words(const HeaderField& f, std::size_t count) const {
    auto w = splitWords(f.value);
    if (w.size() != count)
      throw FormatError(
          file_.path(), f.name,
          "expected " + std::to_string(count) + " values, got " + std::to_string(w.size()));
    return w;
  }

  bool boolean(const HeaderField& f) const {
    const std::string v = lowerCase(f.value);
    if (v == "true" || v == "1") return true;
    if (v == "false" || v == "0") return false;
    throw FormatError(file_.path(), f.name, "expected True or False, got " + quotedValue(f.value));
  }

  const std::filesystem::path& path() const { return file_.path(); }

 private:
  const InputFile& file_;
  const RawHeader& header_;
};

SampleType parseElementType(const HeaderReader& r, const HeaderField& f) {
  static const std::map<std::string, SampleType> kTypes = {
      {"MET_UCHAR", SampleType::UInt8},   {"MET_CHAR", SampleType::Int8},
      {"MET_USHORT", SampleType::UInt16}, {"MET_SHORT", SampleType::Int16},
      {"MET_UINT", SampleType::UInt32},   {"MET_INT", SampleType::Int32},
      {"MET_FLOAT", SampleType::Float32}, {"MET_DOUBLE", SampleType::Float64}};
  const auto it = kTypes.find(f.value);
  if (it == kTypes.end())
    throw FormatError(r.path(), f.name,
                      "unsupported element type " + quotedValue(f.value) +
                          " (expected MET_UCHAR, MET_CHAR, MET_USHORT, MET_SHORT, MET_UINT, "
                          "MET_INT, MET_FLOAT or MET_DOUBLE)");
  return it->second;
}

void checkUnsupportedFeatures(const HeaderReader& r) {
  if (const auto* f = r.find("objecttype"); f && lowerCase(f->value) != "image")
    throw FormatError(r.path(), f->name, "must be Image, got " + quotedValue(f->value));
  if (const auto* f = r.find("compresseddata"); f && r.boolean(*f))
    throw FormatError(r.path(), f->name,
                      "compressed MetaImage data is not supported: save it uncompressed");
  if (const auto* f = r.find("binarydata"); f && !r.boolean(*f))
    throw FormatError(r.path(), f->name, "ASCII MetaImage data is not supported");
  if (const auto* f = r.find("elementnumberofchannels")) {
    const auto w = r.words(*f, 1);
    if (r.integer(*f, w[0]) != 1)
      throw FormatError(r.path(), f->name, "only 1 channel (scalar images) is supported");
  }
}

void checkIdentityTransform(const HeaderReader& r, int dims) {
  const auto* f = r.find("transformmatrix");
  if (!f) return;
  const auto w = r.words(*f, static_cast<std::size_t>(dims) * static_cast<std::size_t>(dims));
  for (int row = 0; row < dims; ++row) {
    for (int col = 0; col < dims; ++col) {
      const double expected = row == col ? 1.0 : 0.0;
      if (std::abs(r.number(*f, w[static_cast<std::size_t>(row) * static_cast<std::size_t>(dims) +
                                  static_cast<std::size_t>(col)]) -
                   expected) > 1e-6)
        throw FormatError(r.path(), f->name,
                          "is not the identity: rotated or flipped images are not supported "
                          "(resample to axis-aligned first)");
    }
  }
}

std::filesystem::path dataPathFor(const HeaderReader& r, const HeaderField& f) {
  const std::string& v = f.value;
  if (lowerCase(v) == "local") return r.path();
  if (lowerCase(v).rfind("list", 0) == 0 || v.find('%') != std::string::npos)
    throw FormatError(
        r.path(), f.name,
        "multi-file data (" + quotedValue(v) + ") is not supported: use one data file");
  if (v.empty()) throw FormatError(r.path(), f.name, "is empty");
  // Like a sidecar's dataFile: a plain name in the header's folder, opened without following a
  // symbolic link, so a header cannot read /etc/passwd or a file outside its folder.
  return dataFileBesideHeader(r.path(), v, f.name);
}

struct Geometry3 {
  int dims = 3;
  VolumeShape shape;
  Eigen::Vector3d spacing = Eigen::Vector3d::Ones();
  Eigen::Vector3d offset = Eigen::Vector3d::Zero();
};

Geometry3 parseGeometry(const HeaderReader& r) {
  Geometry3 g;
  const HeaderField& ndims = r.require("ndims", "NDims");
  const std::int64_t dims = r.integer(ndims, r.words(ndims, 1)[0]);
  if (dims < 1 || dims > 3)
    throw FormatError(r.path(), ndims.name,
                      "only 1 to 3 dimensions are supported, got " + std::to_string(dims));
  g.dims = static_cast<int>(dims);
  const HeaderField& dimSize = r.require("dimsize", "DimSize");
  const auto sizes = r.words(dimSize, static_cast<std::size_t>(dims));
  std::int64_t n[3] = {1, 1, 1};
  for (int a = 0; a < g.dims; ++a)
    n[a] = checkedAxisLength(r.path(), dimSize.name + "[" + std::to_string(a) + "]",
                             r.integer(dimSize, sizes[static_cast<std::size_t>(a)]));
  g.shape = VolumeShape{n[0], n[1], n[2]};
  if (const auto* f = r.find("elementspacing")) {
    const auto w = r.words(*f, static_cast<std::size_t>(dims));
    for (int a = 0; a < g.dims; ++a) {
      g.spacing[a] = r.number(*f, w[static_cast<std::size_t>(a)]);
      if (!(g.spacing[a] > 0.0))
        throw FormatError(r.path(), f->name,
                          "must be > 0, got " + quotedValue(w[static_cast<std::size_t>(a)]));
    }
  }
  if (const auto* f = r.find("offset")) {
    const auto w = r.words(*f, static_cast<std::size_t>(dims));
    for (int a = 0; a < g.dims; ++a) g.offset[a] = r.number(*f, w[static_cast<std::size_t>(a)]);
  }
  checkIdentityTransform(r, g.dims);
  return g;
}

struct ParsedHeader {
  MetaImageHeader header;
  std::unique_ptr<InputFile> data;  // open, length checked
};

ParsedHeader parseHeader(const std::filesystem::path& path) {
  auto headerFile = std::make_unique<InputFile>(path);
  const RawHeader raw = scanHeader(*headerFile);
  const HeaderReader r(*headerFile, raw);
  checkUnsupportedFeatures(r);
  const Geometry3 g = parseGeometry(r);

  MetaImageHeader h;
  h.headerPath = path;
  h.dimensions = g.dims;
  h.shape = g.shape;
  h.spacingMm = g.spacing;
  h.offsetMm = g.offset;
  h.sampleType = parseElementType(r, r.require("elementtype", "ElementType"));
  if (const auto* f = r.find("binarydatabyteordermsb"))
    h.byteOrder = r.boolean(*f) ? ByteOrder::Big : ByteOrder::Little;
  h.payloadBytes = checkedPayloadBytes(path, "DimSize", {g.shape.nx, g.shape.ny, g.shape.nz},
                                       sampleBytes(h.sampleType));

  const HeaderField& dataFile = r.require("elementdatafile", "ElementDataFile");
  h.dataPath = dataPathFor(r, dataFile);
  const bool local = lowerCase(dataFile.value) == "local";
  std::int64_t headerSize = 0;
  if (const auto* f = r.find("headersize")) {
    headerSize = r.integer(*f, r.words(*f, 1)[0]);
    if (headerSize < -1)
      throw FormatError(path, f->name, "must be >= -1, got " + std::to_string(headerSize));
  }

  ParsedHeader parsed;
  parsed.data =
      local ? std::move(headerFile) : std::make_unique<InputFile>(h.dataPath, Symlinks::Refuse);
  const std::uint64_t start = local ? raw.headerEnd : 0;
  const std::uint64_t size = parsed.data->size();
  if (headerSize == -1) {
    // The samples end the file; whatever lies between the header and them is skipped.
    if (size < start || size - start < h.payloadBytes)
      throw FormatError(h.dataPath, "size",
                        "truncated: DimSize and ElementType need " +
                            std::to_string(h.payloadBytes) + " bytes, the file has " +
                            std::to_string(size < start ? 0 : size - start));
    h.dataOffset = size - h.payloadBytes;
  } else {
    h.dataOffset = start + static_cast<std::uint64_t>(headerSize);
    parsed.data->requireRange(h.dataOffset, h.payloadBytes, "samples");
    if (h.dataOffset + h.payloadBytes != size)
      throw FormatError(h.dataPath, "size",
                        "the file has " + std::to_string(size - h.dataOffset - h.payloadBytes) +
                            " bytes more than DimSize and ElementType need (" +
                            std::to_string(h.payloadBytes) + ")");
  }
  parsed.header = h;
  return parsed;
}

std::string numberText(double v) {
  char text[32];
  const auto result = std::to_chars(text, text + sizeof text, v);
  return std::string(text, result.ptr);
}

std::string threeNumbers(const Eigen::Vector3d& v) {
  return numberText(v.x()) + " " + numberText(v.y()) + " " + numberText(v.z());
}

}  // namespace

MetaImageHeader readMetaImageHeader(const std::filesystem::path& path) {
  return parseHeader(path).header;
}

Volume readMetaImage(const std::filesystem::path& path) {
  const ParsedHeader parsed = parseHeader(path);
  const MetaImageHeader& h = parsed.header;
  Volume volume(h.shape, h.spacingMm, h.offsetMm);
  readSamplesAsFloat(*parsed.data, h.dataOffset, h.sampleType, h.byteOrder, volume.voxels(),
                     "samples");
  return volume;
}

void writeMetaImage(const std::filesystem::path& path, const Volume& volume) {
  if (volume.empty()) throw ParameterError("volume", "is empty: nothing to write");
  const bool local = path.extension() == ".mha";
  std::filesystem::path dataPath = path;
  dataPath.replace_extension(".raw");
  if (!local && dataPath == path)
    throw ParameterError("path", "a .raw header would overwrite its data");
  const std::string header =
      "ObjectType = Image\n"
      "NDims = 3\n"
      "BinaryData = True\n"
      "BinaryDataByteOrderMSB = False\n"
      "CompressedData = False\n"
      "TransformMatrix = 1 0 0 0 1 0 0 0 1\n"
      "Offset = " +
      threeNumbers(volume.originMm()) +
      "\n"
      "CenterOfRotation = 0 0 0\n"
      "AnatomicalOrientation = RAI\n"
      "ElementSpacing = " +
      threeNumbers(volume.voxelSizeMm()) +
      "\n"
      "DimSize = " +
      std::to_string(volume.nx()) + " " + std::to_string(volume.ny()) + " " +
      std::to_string(volume.nz()) +
      "\n"
      "ElementType = MET_FLOAT\n"
      "ElementDataFile = " +
      (local ? std::string("LOCAL") : dataPath.filename().string()) + "\n";
  AtomicFileWriter headerOut(path);
  headerOut.write(header);
  if (local) {
    writeFloat32(headerOut, volume.voxels(), ByteOrder::Little);
    headerOut.commit();
    return;
  }
  AtomicFileWriter dataOut(dataPath);
  writeFloat32(dataOut, volume.voxels(), ByteOrder::Little);
  dataOut.commit();
  headerOut.commit();
}

}  // namespace tomowb::io
