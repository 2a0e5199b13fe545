// RunRecord: the JSON record every run writes (issue #9, point 6; docs/qa.md): what went in
// (input files with size and SHA-256, the geometry and its hash), what ran (algorithm, parameters,
// kernel variant and tunables, the command line that repeats it), where (device, driver and CUDA
// versions, threads), the software version, timings and metrics, and what came out (output files
// with size and SHA-256). `tomowb-cli rerun RECORD` repeats the command and reports whether the
// result matches bit for bit or within the variant's tolerance; the GUI's run list opens records.
//   {"format": "tomowb-run-record", "version": 1, "created": "2026-11-23T20:14:25Z", ...}
#pragma once

#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace tomowb::qa {

struct RecordedFile {
  std::string path;  // as given (relative to the record's working directory when relative)
  std::string role;  // "projections", "geometry", "volume", "output", ...
  std::uint64_t bytes = 0;
  std::string sha256;  // empty when the build has no OpenSSL
  bool operator==(const RecordedFile&) const = default;
};

struct RunRecord {
  std::string created;  // UTC, ISO 8601
  std::string softwareVersion;
  std::vector<std::string> command;  // argv that repeats the run (tomowb-cli ...); may be empty
  std::string workingDirectory;
  std::vector<std::size_t> outputArguments;  // indices into `command` naming output files
  std::vector<RecordedFile> inputs, outputs;
  nlohmann::json geometry;  // the scan geometry (geometryToJson) or null
  std::string geometrySha256;
  std::string algorithm;  // "FDK", "SIRT", ...
  nlohmann::json parameters = nlohmann::json::object();
  std::string variant;         // the (back)projector variant
  std::string forwardVariant;  // iterative runs
  nlohmann::json tunables = nlohmann::json::object();
  nlohmann::json device = nlohmann::json::object();  // {"kind", "name", "status", "threads"}
  nlohmann::json timings = nlohmann::json::object();
  nlohmann::json metrics = nlohmann::json::object();
};

// Size and SHA-256 of a file (IoError if it cannot be read).
RecordedFile recordFile(const std::filesystem::path& path, std::string role);
// The host and GPUs this process sees: {"kind": "cpu"|"gpu", "name", "status", "threads"}.
nlohmann::json describeDevice(bool gpuRun);
// "2026-11-23T20:14:25Z"
std::string utcNow();

nlohmann::json toJson(const RunRecord& record);
// FormatError naming the path and field for anything that is not a record.
RunRecord runRecordFromJson(const nlohmann::json& j, const std::filesystem::path& pathForErrors);
// Atomic (AtomicFileWriter).
void writeRunRecord(const std::filesystem::path& path, const RunRecord& record);
RunRecord readRunRecord(const std::filesystem::path& path);

// "<output>.run.json" beside an output file ("recon.mhd" -> "recon.run.json").
std::filesystem::path runRecordPathFor(const std::filesystem::path& output);

}  // namespace tomowb::qa
