// ListModeFile: the workbench's own versioned TOF-PET list-mode file (docs/pet.md, "List-mode
// file format"; reference/direct-tof-pet.md, section 5.3 step 9):
//
//   offset 0   8 bytes   magic "TWBPETLM"
//   offset 8   uint32    format version (1), little-endian
//   offset 12  uint32    H, the length of the JSON header in bytes (<= 1 MiB)
//   offset 16  H bytes   UTF-8 JSON header (ListModeHeader; trailing spaces allowed)
//   then       zero bytes up to the next multiple of 16
//   then       events x 12-byte little-endian ListModeEvent records
//
// The reader checks the header against the limits of recon/io/ReaderLimits.h and the event count
// against the file's length before it allocates anything, then streams the records in chunks and
// checks every one (crystal and ring in range, no unknown flag bits, reserved byte zero, time
// difference inside the coincidence window). The writer streams too: it writes under a temporary
// name and renames on commit (io::AtomicFileWriter), so a failed or cancelled write leaves
// nothing at the final path. Every error names the file, and for a record its index and field.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "recon/pet/ListModeEvent.h"
#include "recon/pet/ScannerModel.h"

namespace tomowb::io {
class InputFile;
class AtomicFileWriter;
}  // namespace tomowb::io

namespace tomowb::pet {

inline constexpr char kListModeMagic[8] = {'T', 'W', 'B', 'P', 'E', 'T', 'L', 'M'};
inline constexpr std::uint32_t kListModeFormatVersion = 1;
inline constexpr std::uint64_t kMaxListModeHeaderBytes = std::uint64_t{1} << 20;
inline constexpr std::uint64_t kListModeRecordBytes = 12;
inline constexpr std::uint64_t kListModeAlignment = 16;
// Known EventFlag bits; a record with any other bit set is refused.
inline constexpr std::uint8_t kKnownEventFlags = kEventDelayed | kEventRandom | kEventScattered;

// What a simulator knew about the data it wrote (absent for measured data).
struct ListModeSimulationTruth {
  std::uint64_t seed = 0;
  std::int64_t bandDecays = 0;  // annihilations simulated inside the emission band
  double bandFraction = 1.0;    // the band's share of isotropic annihilations: sin(band angle)
  double activityBq = 0.0;      // the source's activity (annihilations per second) it stood for
  std::int64_t trues = 0;       // prompts from one annihilation
  std::int64_t randoms = 0;     // prompts flagged kEventRandom
};

struct ListModeHeader {
  ScannerModel scanner;
  std::int64_t eventCount = 0;    // records in the file
  std::int64_t promptCount = 0;   // records without kEventDelayed
  std::int64_t delayedCount = 0;  // records with kEventDelayed
  double tofLsbPs = 25.0;         // the records' time unit; equals scanner.tofLsbPs
  double acquisitionSeconds = 0.0;
  std::string isotope = "F-18";
  double halfLifeS = 6586.2;  // 18F (reference/direct-tof-pet.md, section 8)
  std::string scanStart;      // ISO 8601 date-time ("2026-11-26T09:30:00"), empty if unknown
  std::string source;         // free text: who or what made the data
  std::optional<ListModeSimulationTruth> simulation;
};

nlohmann::json listModeHeaderToJson(const ListModeHeader& header);
// FormatError naming `source` and the field (scanner fields as "scanner.rings").
ListModeHeader listModeHeaderFromJson(const nlohmann::json& json,
                                      const std::filesystem::path& source);

// Streams the records of a list-mode file.
class ListModeReader {
 public:
  ListModeReader();
  // open(path).
  explicit ListModeReader(const std::filesystem::path& path);
  ~ListModeReader();
  ListModeReader(const ListModeReader&) = delete;
  ListModeReader& operator=(const ListModeReader&) = delete;
  ListModeReader(ListModeReader&&) noexcept;
  ListModeReader& operator=(ListModeReader&&) noexcept;

  // Reads and checks the magic, version and JSON header; checks the event count against the
  // file's length. IoError if the file cannot be opened, FormatError for anything wrong in it.
  void open(const std::filesystem::path& path);
  bool isOpen() const noexcept { return file_ != nullptr; }
  const std::filesystem::path& path() const noexcept { return path_; }
  const ListModeHeader& header() const noexcept { return header_; }
  // Index of the next record readChunk() returns; eventCount when all are read.
  std::int64_t nextIndex() const noexcept { return next_; }
  std::int64_t eventsLeft() const noexcept { return header_.eventCount - next_; }

  // Fills the front of `out` with the next records and returns how many (0 at the end). Checks
  // every record (FormatError "file: field 'events[12].crystal1': ..."); after the last one,
  // checks the prompt and delayed counts of the header against the records.
  std::size_t readChunk(std::span<ListModeEvent> out);

 private:
  std::filesystem::path path_;
  std::unique_ptr<io::InputFile> file_;
  ListModeHeader header_;
  std::uint64_t dataOffset_ = 0;
  std::int64_t next_ = 0;
  std::int64_t delayedSeen_ = 0;
  std::vector<std::byte> buffer_;
};

struct ListModeData {
  ListModeHeader header;
  std::vector<ListModeEvent> events;
};

// The whole file in memory.
ListModeData readListMode(const std::filesystem::path& path);

// Writes a list-mode file in chunks. The header is written first with room to spare; commit()
// writes the final counts into it and renames the file into place.
class ListModeWriter {
 public:
  // Validates the header's scanner (ParameterError), creates the temporary file (IoError).
  // The header's counts are ignored: the writer counts the records it is given.
  ListModeWriter(std::filesystem::path path, ListModeHeader header);
  ~ListModeWriter();
  ListModeWriter(const ListModeWriter&) = delete;
  ListModeWriter& operator=(const ListModeWriter&) = delete;

  // Appends records; ParameterError naming the record ("events[12].ring2") if one would not be
  // read back (the reader's checks), IoError on a short write.
  void append(std::span<const ListModeEvent> events);
  std::int64_t eventCount() const noexcept { return eventCount_; }

  // Writes the counts into the header and renames the file into place.
  void commit();
  // The same with a header known only at the end (a simulation's truth); its counts are
  // replaced by the writer's, its scanner and tofLsbPs must be those the writer started with,
  // and its text may grow by at most kListModeHeaderSpareBytes.
  void commit(const ListModeHeader& finalHeader);
  // Removes the temporary file; nothing appears at the path.
  void abandon() noexcept;

  static constexpr std::uint64_t kListModeHeaderSpareBytes = 512;

 private:
  ListModeHeader header_;
  std::unique_ptr<io::AtomicFileWriter> out_;
  std::uint64_t headerCapacity_ = 0;  // bytes reserved for the JSON text
  std::int64_t eventCount_ = 0;
  std::int64_t delayedCount_ = 0;
  std::vector<std::byte> buffer_;
};

// One call: header + records, atomically.
void writeListMode(const std::filesystem::path& path, const ListModeHeader& header,
                   std::span<const ListModeEvent> events);

}  // namespace tomowb::pet
