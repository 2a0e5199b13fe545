// ListModeFile: the list-mode reader and writer (layout in ListModeFile.h and docs/pet.md).
#include "recon/pet/ListModeFile.h"

#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <system_error>
#include <utility>

#include "recon/core/Error.h"
#include "recon/io/AtomicFileWriter.h"
#include "recon/io/InputFile.h"
#include "recon/io/JsonFields.h"

namespace tomowb::pet {

namespace {

using nlohmann::json;
constexpr const char* kFormatName = "tomowb-pet-listmode";
constexpr std::uint64_t kPreambleBytes = 16;  // magic, version, header length
constexpr std::int64_t kMaxEventCount = std::int64_t{1} << 56;
constexpr std::size_t kRecordsPerWrite = std::size_t{1} << 16;
static_assert(std::endian::native == std::endian::little || std::endian::native == std::endian::big,
              "mixed-endian hosts are not supported");

std::uint64_t alignUp(std::uint64_t n) {
  return (n + kListModeAlignment - 1) / kListModeAlignment * kListModeAlignment;
}

// --- Records: the checks shared by reader and writer, and the byte order.

struct RecordLimits {
  int crystals = 0, rings = 0, maxAbsTofLsb = 0;
};

RecordLimits recordLimits(const ScannerModel& s, double tofLsbPs) {
  // One LSB of margin: a time difference on the window's edge may round up by one.
  return {s.crystalsPerRing, s.rings,
          static_cast<int>(std::floor(0.5 * s.coincidenceWindowPs / tofLsbPs)) + 1};
}

struct RecordProblem {
  const char* field;
  std::string text;
};

std::optional<RecordProblem> recordProblem(const RecordLimits& l, const ListModeEvent& e) {
  const auto below = [](int value, int limit, const char* what) {
    return std::to_string(value) + " is not below " + what + " (" + std::to_string(limit) + ")";
  };
  if (e.crystal1 >= l.crystals)
    return RecordProblem{"crystal1", below(e.crystal1, l.crystals, "crystalsPerRing")};
  if (e.ring1 >= l.rings) return RecordProblem{"ring1", below(e.ring1, l.rings, "rings")};
  if (e.crystal2 >= l.crystals)
    return RecordProblem{"crystal2", below(e.crystal2, l.crystals, "crystalsPerRing")};
  if (e.ring2 >= l.rings) return RecordProblem{"ring2", below(e.ring2, l.rings, "rings")};
  if (std::abs(int(e.tofLsb)) > l.maxAbsTofLsb)
    return RecordProblem{"tofLsb", std::to_string(e.tofLsb) +
                                       " lies outside the coincidence window (|tofLsb| <= " +
                                       std::to_string(l.maxAbsTofLsb) + ")"};
  if (e.flags & ~kKnownEventFlags)
    return RecordProblem{"flags", "has unknown bits set (" + std::to_string(e.flags) +
                                      "; known: 1 delayed, 2 random, 4 scattered)"};
  if (e.reserved != 0)
    return RecordProblem{"reserved", "must be 0, got " + std::to_string(e.reserved)};
  return std::nullopt;
}

std::string recordField(std::int64_t index, const char* field) {
  return "events[" + std::to_string(index) + "]." + field;
}

std::uint16_t loadU16(const std::byte* p) {
  return static_cast<std::uint16_t>(std::to_integer<unsigned>(p[0]) |
                                    (std::to_integer<unsigned>(p[1]) << 8));
}

void storeU16(std::byte* p, std::uint16_t v) {
  p[0] = std::byte(v & 0xff);
  p[1] = std::byte(v >> 8);
}

std::uint32_t loadU32(const std::byte* p) {
  return std::uint32_t{loadU16(p)} | (std::uint32_t{loadU16(p + 2)} << 16);
}

void storeU32(std::byte* p, std::uint32_t v) {
  storeU16(p, static_cast<std::uint16_t>(v & 0xffff));
  storeU16(p + 2, static_cast<std::uint16_t>(v >> 16));
}

ListModeEvent decodeRecord(const std::byte* p) {
  ListModeEvent e;
  e.crystal1 = loadU16(p);
  e.ring1 = loadU16(p + 2);
  e.crystal2 = loadU16(p + 4);
  e.ring2 = loadU16(p + 6);
  e.tofLsb = static_cast<std::int16_t>(loadU16(p + 8));
  e.flags = std::to_integer<std::uint8_t>(p[10]);
  e.reserved = std::to_integer<std::uint8_t>(p[11]);
  return e;
}

void encodeRecord(const ListModeEvent& e, std::byte* p) {
  storeU16(p, e.crystal1);
  storeU16(p + 2, e.ring1);
  storeU16(p + 4, e.crystal2);
  storeU16(p + 6, e.ring2);
  storeU16(p + 8, static_cast<std::uint16_t>(e.tofLsb));
  p[10] = std::byte(e.flags);
  p[11] = std::byte(e.reserved);
}

// --- The JSON header.

const std::set<std::string>& knownHeaderKeys() {
  static const std::set<std::string> keys = {
      "format",  "version",   "scanner",  "events",
      "prompts", "delayed",   "tofLsbPs", "acquisitionSeconds",
      "isotope", "scanStart", "source",   "simulation"};
  return keys;
}

void refuseUnknownKeys(const json& object, const io::JsonFields& fields,
                       const std::set<std::string>& known) {
  for (const auto& item : object.items())
    if (!known.count(item.key()))
      throw FormatError(fields.source(), fields.fieldName(item.key()),
                        "is not a list-mode header field (docs/pet.md lists them)");
}

// "2026-11-26T09:30:00", optionally followed by a fraction and a zone.
bool looksLikeDateTime(const std::string& text) {
  static constexpr const char* kPattern = "dddd-dd-ddTdd:dd:dd";
  if (text.size() < 19 || text.size() > 40) return false;
  for (std::size_t i = 0; i < 19; ++i) {
    const char want = kPattern[i];
    const bool ok = want == 'd' ? (text[i] >= '0' && text[i] <= '9') : text[i] == want;
    if (!ok) return false;
  }
  return true;
}

std::uint64_t unsignedField(const io::JsonFields& f, const char* key) {
  const json& v = f.get(key);
  if (v.is_number_unsigned()) return v.get<std::uint64_t>();
  if (v.is_number_integer() && v.get<std::int64_t>() >= 0)
    return static_cast<std::uint64_t>(v.get<std::int64_t>());
  throw FormatError(f.source(), f.fieldName(key), "must be an integer >= 0");
}

ListModeSimulationTruth readSimulation(const json& object, const io::JsonFields& f) {
  static const std::set<std::string> keys = {"seed",       "bandDecays", "bandFraction",
                                             "activityBq", "trues",      "randoms"};
  refuseUnknownKeys(object, f, keys);
  ListModeSimulationTruth t;
  t.seed = unsignedField(f, "seed");
  t.bandDecays = f.integer("bandDecays", 0, kMaxEventCount);
  t.bandFraction = f.positiveNumber("bandFraction");
  if (t.bandFraction > 1)
    throw FormatError(f.source(), f.fieldName("bandFraction"), "must be in (0, 1]");
  t.activityBq = f.finiteNumber("activityBq");
  if (t.activityBq < 0) throw FormatError(f.source(), f.fieldName("activityBq"), "must be >= 0");
  t.trues = f.integer("trues", 0, kMaxEventCount);
  t.randoms = f.integer("randoms", 0, kMaxEventCount);
  return t;
}

void readIsotope(const json& object, const io::JsonFields& f, ListModeHeader& h) {
  static const std::set<std::string> keys = {"name", "halfLifeS"};
  refuseUnknownKeys(object, f, keys);
  h.isotope = f.string("name");
  if (h.isotope.empty() || h.isotope.size() > 64)
    throw FormatError(f.source(), f.fieldName("name"), "must hold 1 to 64 characters");
  h.halfLifeS = f.positiveNumber("halfLifeS");
}

void readCounts(const io::JsonFields& f, ListModeHeader& h) {
  h.eventCount = f.integer("events", 0, kMaxEventCount);
  h.promptCount = f.integer("prompts", 0, kMaxEventCount);
  h.delayedCount = f.integer("delayed", 0, kMaxEventCount);
  if (h.promptCount + h.delayedCount != h.eventCount)
    throw FormatError(f.source(), "events",
                      "is " + std::to_string(h.eventCount) + " but prompts + delayed = " +
                          std::to_string(h.promptCount + h.delayedCount));
}

}  // namespace

json listModeHeaderToJson(const ListModeHeader& h) {
  json j{{"format", kFormatName},
         {"version", kListModeFormatVersion},
         {"scanner", scannerToJson(h.scanner)},
         {"events", h.eventCount},
         {"prompts", h.promptCount},
         {"delayed", h.delayedCount},
         {"tofLsbPs", h.tofLsbPs},
         {"acquisitionSeconds", h.acquisitionSeconds},
         {"isotope", {{"name", h.isotope}, {"halfLifeS", h.halfLifeS}}},
         {"scanStart", h.scanStart},
         {"source", h.source}};
  if (h.simulation)
    j["simulation"] = {{"seed", h.simulation->seed},
                       {"bandDecays", h.simulation->bandDecays},
                       {"bandFraction", h.simulation->bandFraction},
                       {"activityBq", h.simulation->activityBq},
                       {"trues", h.simulation->trues},
                       {"randoms", h.simulation->randoms}};
  return j;
}

ListModeHeader listModeHeaderFromJson(const json& j, const std::filesystem::path& source) {
  const io::JsonFields f(j, source);
  refuseUnknownKeys(j, f, knownHeaderKeys());
  if (f.string("format") != kFormatName)
    throw FormatError(source, "format",
                      std::string("must be '") + kFormatName + "', got " + f.get("format").dump());
  const std::int64_t version = f.integer("version", 1, 1 << 20);
  if (version > kListModeFormatVersion)
    throw FormatError(source, "version",
                      "is " + std::to_string(version) + ", newer than this program reads (" +
                          std::to_string(kListModeFormatVersion) + ")");
  ListModeHeader h;
  h.scanner = scannerFromJson(f.get("scanner"), source, "scanner");
  readCounts(f, h);
  h.tofLsbPs = f.positiveNumber("tofLsbPs");
  if (h.tofLsbPs != h.scanner.tofLsbPs)
    throw FormatError(source, "tofLsbPs",
                      "is " + f.get("tofLsbPs").dump() + " but scanner.tofLsbPs is " +
                          f.get("scanner").at("tofLsbPs").dump());
  h.acquisitionSeconds = f.finiteNumber("acquisitionSeconds");
  if (h.acquisitionSeconds < 0) throw FormatError(source, "acquisitionSeconds", "must be >= 0");
  readIsotope(f.get("isotope"), f.child("isotope"), h);
  h.scanStart = f.has("scanStart") ? f.string("scanStart") : "";
  if (!h.scanStart.empty() && !looksLikeDateTime(h.scanStart))
    throw FormatError(source, "scanStart",
                      "must be an ISO 8601 date-time (2026-11-26T09:30:00) or empty, got '" +
                          h.scanStart.substr(0, 60) + "'");
  h.source = f.has("source") ? f.string("source") : "";
  if (f.has("simulation"))
    h.simulation = readSimulation(f.get("simulation"), f.child("simulation"));
  return h;
}

// --- Reader.

ListModeReader::ListModeReader() = default;
ListModeReader::ListModeReader(const std::filesystem::path& path) {
  open(path);
}
ListModeReader::~ListModeReader() = default;
ListModeReader::ListModeReader(ListModeReader&&) noexcept = default;
ListModeReader& ListModeReader::operator=(ListModeReader&&) noexcept = default;

void ListModeReader::open(const std::filesystem::path& path) {
  auto file = std::make_unique<io::InputFile>(path);
  std::byte preamble[kPreambleBytes];
  file->readAt(0, preamble, "preamble (magic, version, header length)");
  if (std::memcmp(preamble, kListModeMagic, sizeof kListModeMagic) != 0)
    throw FormatError(path, "is not a tomowb list-mode file (its first 8 bytes are not \"" +
                                std::string(kListModeMagic, sizeof kListModeMagic) + "\")");
  const std::uint32_t version = loadU32(preamble + 8);
  if (version != kListModeFormatVersion)
    throw FormatError(path, "version",
                      "is " + std::to_string(version) + "; this program reads version " +
                          std::to_string(kListModeFormatVersion));
  const std::uint64_t headerBytes = loadU32(preamble + 12);
  if (headerBytes == 0 || headerBytes > kMaxListModeHeaderBytes)
    throw FormatError(path, "header length",
                      "must be 1.." + std::to_string(kMaxListModeHeaderBytes) + " bytes, got " +
                          std::to_string(headerBytes));
  const std::string text = file->readString(kPreambleBytes, headerBytes, "JSON header");
  ListModeHeader header = listModeHeaderFromJson(io::parseJsonText(text, path), path);

  const std::uint64_t headerEnd = kPreambleBytes + headerBytes;
  const std::uint64_t dataOffset = alignUp(headerEnd);
  std::byte padding[kListModeAlignment] = {};
  file->readAt(headerEnd, std::span(padding, dataOffset - headerEnd), "padding");
  for (std::uint64_t i = 0; i < dataOffset - headerEnd; ++i)
    if (padding[i] != std::byte{0})
      throw FormatError(path, "padding", "the bytes after the JSON header must be zero");

  // Compared by division, so no product of a hostile count can overflow.
  const std::uint64_t recordBytes = file->size() - dataOffset;
  const auto count = static_cast<std::uint64_t>(header.eventCount);
  if (recordBytes / kListModeRecordBytes != count || recordBytes % kListModeRecordBytes != 0)
    throw FormatError(path, "events",
                      "the header says " + std::to_string(count) + " records (" +
                          (count <= recordBytes ? std::to_string(count * kListModeRecordBytes)
                                                : std::string("more than the file's")) +
                          " bytes), but the file holds " + std::to_string(recordBytes) +
                          " bytes after the header" +
                          (recordBytes < count * kListModeRecordBytes ? " (truncated)" : ""));
  path_ = path;
  file_ = std::move(file);
  header_ = std::move(header);
  dataOffset_ = dataOffset;
  next_ = 0;
  delayedSeen_ = 0;
}

std::size_t ListModeReader::readChunk(std::span<ListModeEvent> out) {
  if (!file_ || out.empty() || next_ >= header_.eventCount) return 0;
  const auto count = static_cast<std::size_t>(
      std::min<std::int64_t>(static_cast<std::int64_t>(out.size()), eventsLeft()));
  buffer_.resize(count * kListModeRecordBytes);
  file_->readAt(dataOffset_ + static_cast<std::uint64_t>(next_) * kListModeRecordBytes, buffer_,
                "events");
  const RecordLimits limits = recordLimits(header_.scanner, header_.tofLsbPs);
  for (std::size_t i = 0; i < count; ++i) {
    const ListModeEvent e = decodeRecord(buffer_.data() + i * kListModeRecordBytes);
    if (const auto problem = recordProblem(limits, e))
      throw FormatError(path_, recordField(next_ + std::int64_t(i), problem->field), problem->text);
    delayedSeen_ += (e.flags & kEventDelayed) ? 1 : 0;
    out[i] = e;
  }
  next_ += static_cast<std::int64_t>(count);
  if (next_ == header_.eventCount && delayedSeen_ != header_.delayedCount)
    throw FormatError(path_, "delayed",
                      "the header says " + std::to_string(header_.delayedCount) +
                          " delayed events, the records hold " + std::to_string(delayedSeen_));
  return count;
}

ListModeData readListMode(const std::filesystem::path& path) {
  ListModeReader reader(path);
  ListModeData data;
  data.header = reader.header();
  // The count was checked against the file's length, so this allocation is backed by data.
  data.events.resize(static_cast<std::size_t>(data.header.eventCount));
  std::span<ListModeEvent> rest(data.events);
  constexpr std::size_t kChunk = std::size_t{1} << 20;
  while (!rest.empty()) {
    const std::size_t n = reader.readChunk(rest.first(std::min(kChunk, rest.size())));
    rest = rest.subspan(n);
  }
  return data;
}

// --- Writer.

ListModeWriter::ListModeWriter(std::filesystem::path path, ListModeHeader header)
    : header_(std::move(header)) {
  header_.scanner.validate();
  if (header_.tofLsbPs != header_.scanner.tofLsbPs)
    throw ParameterError("tofLsbPs", "must equal the scanner's tofLsbPs (" +
                                         std::to_string(header_.scanner.tofLsbPs) + ")");
  header_.eventCount = header_.promptCount = header_.delayedCount = 0;
  const std::string text = listModeHeaderToJson(header_).dump(2);
  headerCapacity_ = text.size() + kListModeHeaderSpareBytes;
  out_ = std::make_unique<io::AtomicFileWriter>(std::move(path));
  std::string head(kListModeMagic, sizeof kListModeMagic);
  head.resize(kPreambleBytes);
  storeU32(reinterpret_cast<std::byte*>(head.data() + 8), kListModeFormatVersion);
  storeU32(reinterpret_cast<std::byte*>(head.data() + 12),
           static_cast<std::uint32_t>(headerCapacity_));
  head += text;
  head.resize(kPreambleBytes + headerCapacity_, ' ');
  head.resize(alignUp(head.size()), '\0');
  out_->write(head);
}

ListModeWriter::~ListModeWriter() = default;

void ListModeWriter::append(std::span<const ListModeEvent> events) {
  const RecordLimits limits = recordLimits(header_.scanner, header_.tofLsbPs);
  while (!events.empty()) {
    const std::size_t n = std::min(events.size(), kRecordsPerWrite);
    buffer_.resize(n * kListModeRecordBytes);
    for (std::size_t i = 0; i < n; ++i) {
      if (const auto problem = recordProblem(limits, events[i]))
        throw ParameterError(recordField(eventCount_ + std::int64_t(i), problem->field),
                             problem->text);
      encodeRecord(events[i], buffer_.data() + i * kListModeRecordBytes);
      delayedCount_ += (events[i].flags & kEventDelayed) ? 1 : 0;
    }
    out_->write(buffer_.data(), buffer_.size());
    eventCount_ += static_cast<std::int64_t>(n);
    events = events.subspan(n);
  }
}

void ListModeWriter::commit() {
  commit(header_);
}

void ListModeWriter::commit(const ListModeHeader& finalHeader) {
  if (scannerToJson(finalHeader.scanner) != scannerToJson(header_.scanner) ||
      finalHeader.tofLsbPs != header_.tofLsbPs)
    throw ParameterError("header", "the final header must keep the scanner and tofLsbPs");
  ListModeHeader h = finalHeader;
  h.eventCount = eventCount_;
  h.delayedCount = delayedCount_;
  h.promptCount = eventCount_ - delayedCount_;
  std::string text = listModeHeaderToJson(h).dump(2);
  if (text.size() > headerCapacity_)
    throw ParameterError("header", "the final header (" + std::to_string(text.size()) +
                                       " bytes) outgrew the room reserved for it (" +
                                       std::to_string(headerCapacity_) + " bytes)");
  text.resize(headerCapacity_, ' ');
  // The header sits before the records: written in place through a second descriptor.
  const int fd = out_->duplicateHandle();
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::pwrite(fd, text.data() + done, text.size() - done,
                               static_cast<off_t>(kPreambleBytes + done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int error = errno;
      ::close(fd);
      throw IoError(out_->temporaryPath(),
                    "cannot write the list-mode header: " + std::system_category().message(error));
    }
    done += static_cast<std::size_t>(n);
  }
  ::close(fd);
  out_->commit();
  header_ = std::move(h);
}

void ListModeWriter::abandon() noexcept {
  out_->abandon();
}

void writeListMode(const std::filesystem::path& path, const ListModeHeader& header,
                   std::span<const ListModeEvent> events) {
  ListModeWriter writer(path, header);
  writer.append(events);
  writer.commit();
}

}  // namespace tomowb::pet
