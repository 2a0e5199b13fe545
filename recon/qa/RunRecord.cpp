#include "recon/qa/RunRecord.h"

#include <omp.h>

#include <chrono>
#include <ctime>
#include <fstream>
#include <sstream>

#include "recon/core/Error.h"
#include "recon/device/GpuDevices.h"
#include "recon/io/AtomicFileWriter.h"
#include "recon/io/InputFile.h"
#include "recon/io/JsonFields.h"
#include "recon/io/ReaderLimits.h"
#include "recon/io/Sha256.h"

namespace tomowb::qa {

namespace fs = std::filesystem;

namespace {

constexpr const char* kFormat = "tomowb-run-record";
constexpr int kVersion = 1;

nlohmann::json filesToJson(const std::vector<RecordedFile>& files) {
  nlohmann::json a = nlohmann::json::array();
  for (const RecordedFile& f : files)
    a.push_back({{"path", f.path}, {"role", f.role}, {"bytes", f.bytes}, {"sha256", f.sha256}});
  return a;
}

std::string stringField(const nlohmann::json& j, const char* key, const fs::path& path,
                        bool required = false) {
  if (!j.contains(key) || j[key].is_null()) {
    if (required) throw FormatError(path, key, "missing");
    return {};
  }
  if (!j[key].is_string()) throw FormatError(path, key, "must be a string");
  return j[key].get<std::string>();
}

std::vector<RecordedFile> filesFromJson(const nlohmann::json& j, const char* key,
                                        const fs::path& path) {
  std::vector<RecordedFile> files;
  if (!j.contains(key)) return files;
  if (!j[key].is_array()) throw FormatError(path, key, "must be an array");
  for (const auto& f : j[key]) {
    if (!f.is_object()) throw FormatError(path, key, "entries must be objects");
    RecordedFile r;
    r.path = stringField(f, "path", path, true);
    r.role = stringField(f, "role", path);
    r.sha256 = stringField(f, "sha256", path);
    if (f.contains("bytes")) {
      if (!f["bytes"].is_number_unsigned())
        throw FormatError(path, "bytes", "must be a whole number");
      r.bytes = f["bytes"].get<std::uint64_t>();
    }
    files.push_back(std::move(r));
  }
  return files;
}

nlohmann::json objectField(const nlohmann::json& j, const char* key, const fs::path& path) {
  if (!j.contains(key) || j[key].is_null()) return nlohmann::json::object();
  if (!j[key].is_object()) throw FormatError(path, key, "must be an object");
  return j[key];
}

}  // namespace

RecordedFile recordFile(const fs::path& path, std::string role) {
  RecordedFile f;
  f.path = path.string();
  f.role = std::move(role);
  std::error_code ec;
  f.bytes = fs::file_size(path, ec);
  if (ec) throw IoError(path, "cannot read its size: " + ec.message());
  if (sha256Available()) f.sha256 = sha256HexOfFile(path);
  return f;
}

nlohmann::json describeDevice(bool gpuRun) {
  nlohmann::json d{{"kind", gpuRun ? "gpu" : "cpu"},
                   {"threads", omp_get_max_threads()},
                   {"gpuStatus", cuda::gpuStatus()}};
  nlohmann::json gpus = nlohmann::json::array();
  for (const cuda::GpuDevice& g : cuda::listGpuDevices())
    gpus.push_back({{"index", g.index},
                    {"name", g.name},
                    {"computeCapability",
                     std::to_string(g.computeMajor) + "." + std::to_string(g.computeMinor)},
                    {"memoryBytes", g.totalMemoryBytes}});
  d["gpus"] = gpus;
  return d;
}

std::string utcNow() {
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm t{};
  gmtime_r(&now, &t);
  char b[32];
  std::strftime(b, sizeof b, "%Y-%m-%dT%H:%M:%SZ", &t);
  return b;
}

nlohmann::json toJson(const RunRecord& r) {
  return {{"format", kFormat},
          {"version", kVersion},
          {"created", r.created},
          {"software", {{"name", "Tomo Workbench"}, {"version", r.softwareVersion}}},
          {"command", r.command},
          {"workingDirectory", r.workingDirectory},
          {"outputArguments", r.outputArguments},
          {"inputs", filesToJson(r.inputs)},
          {"outputs", filesToJson(r.outputs)},
          {"geometry", r.geometry},
          {"geometrySha256", r.geometrySha256},
          {"algorithm", r.algorithm},
          {"parameters", r.parameters},
          {"variant", r.variant},
          {"forwardVariant", r.forwardVariant},
          {"tunables", r.tunables},
          {"device", r.device},
          {"timings", r.timings},
          {"metrics", r.metrics}};
}

RunRecord runRecordFromJson(const nlohmann::json& j, const fs::path& path) {
  if (!j.is_object()) throw FormatError(path, "a run record is a JSON object");
  if (stringField(j, "format", path, true) != kFormat)
    throw FormatError(path, "format", std::string("must be \"") + kFormat + "\"");
  if (!j.contains("version") || !j["version"].is_number_integer() ||
      j["version"].get<int>() != kVersion)
    throw FormatError(path, "version", "must be 1 (this build reads version 1)");
  RunRecord r;
  r.created = stringField(j, "created", path);
  if (j.contains("software") && j["software"].is_object())
    r.softwareVersion = stringField(j["software"], "version", path);
  if (j.contains("command")) {
    if (!j["command"].is_array()) throw FormatError(path, "command", "must be an array of strings");
    for (const auto& a : j["command"]) {
      if (!a.is_string()) throw FormatError(path, "command", "must be an array of strings");
      r.command.push_back(a.get<std::string>());
    }
  }
  r.workingDirectory = stringField(j, "workingDirectory", path);
  if (j.contains("outputArguments")) {
    if (!j["outputArguments"].is_array())
      throw FormatError(path, "outputArguments", "must be an array");
    for (const auto& i : j["outputArguments"]) {
      if (!i.is_number_unsigned() || i.get<std::size_t>() >= r.command.size())
        throw FormatError(path, "outputArguments", "must index the command's arguments");
      r.outputArguments.push_back(i.get<std::size_t>());
    }
  }
  r.inputs = filesFromJson(j, "inputs", path);
  r.outputs = filesFromJson(j, "outputs", path);
  r.geometry = j.contains("geometry") ? j["geometry"] : nlohmann::json();
  r.geometrySha256 = stringField(j, "geometrySha256", path);
  r.algorithm = stringField(j, "algorithm", path);
  r.parameters = objectField(j, "parameters", path);
  r.variant = stringField(j, "variant", path);
  r.forwardVariant = stringField(j, "forwardVariant", path);
  r.tunables = objectField(j, "tunables", path);
  r.device = objectField(j, "device", path);
  r.timings = objectField(j, "timings", path);
  r.metrics = objectField(j, "metrics", path);
  return r;
}

void writeRunRecord(const fs::path& path, const RunRecord& record) {
  io::AtomicFileWriter out(path);
  out.write(toJson(record).dump(2) + "\n");
  out.commit();
}

RunRecord readRunRecord(const fs::path& path) {
  // InputFile refuses pipes and devices by name; parseJsonText caps nesting and refuses
  // duplicate keys like every other JSON reader.
  const std::string text = io::InputFile(path).readAll(std::uint64_t{16} << 20, "run record");
  return runRecordFromJson(io::parseJsonText(text, path), path);
}

fs::path runRecordPathFor(const fs::path& output) {
  // A folder given with its trailing slash ("slices/"): beside it, "slices.run.json", not a
  // hidden ".run.json" in the working folder.
  fs::path p = output.has_filename() ? output : output.parent_path();
  p.replace_extension(".run.json");
  return p;
}

}  // namespace tomowb::qa
