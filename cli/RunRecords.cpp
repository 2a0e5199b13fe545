#include "RunRecords.h"

#include "recon/core/Sha256.h"
#include "recon/geometry/GeometryJson.h"
#include "recon/io/RawVolumeIo.h"

namespace tomowb::cli {

namespace fs = std::filesystem;

namespace {
std::vector<std::string>& storedCommandLine() {
  static std::vector<std::string> line;
  return line;
}
}  // namespace

void setCommandLine(int argc, char** argv) {
  auto& line = storedCommandLine();
  line.clear();
  for (int i = 0; i < argc; ++i) {
    // "--out=x" becomes "--out" "x", so output arguments are whole tokens.
    const std::string a = argv[i];
    const auto eq = a.find('=');
    if (a.rfind("--", 0) == 0 && eq != std::string::npos) {
      line.push_back(a.substr(0, eq));
      line.push_back(a.substr(eq + 1));
    } else {
      line.push_back(a);
    }
  }
}

const std::vector<std::string>& commandLine() {
  return storedCommandLine();
}

qa::RunRecord startRunRecord(const std::vector<std::string>& outputOptions,
                             const std::string& outputValue, bool gpuRun) {
  qa::RunRecord r;
  r.created = qa::utcNow();
  r.softwareVersion = TOMOWB_VERSION;
  r.command = commandLine();
  if (!r.command.empty()) r.command[0] = "tomowb-cli";
  std::error_code ec;
  r.workingDirectory = fs::current_path(ec).string();
  // Files every command may also write: a rerun must redirect them too, never overwrite them.
  static const std::vector<std::string> kSideOutputs = {"--telemetry", "--residuals"};
  bool mainGiven = false;
  for (std::size_t i = 1; i + 1 < r.command.size(); ++i) {
    for (const std::string& option : outputOptions)
      if (r.command[i] == option) {
        r.outputArguments.push_back(i + 1);
        mainGiven = true;
      }
    for (const std::string& option : kSideOutputs)
      if (r.command[i] == option) r.outputArguments.push_back(i + 1);
  }
  if (!mainGiven && !outputOptions.empty()) {
    r.command.push_back(outputOptions.front());
    r.command.push_back(outputValue);
    r.outputArguments.push_back(r.command.size() - 1);
  }
  r.device = qa::describeDevice(gpuRun);
  return r;
}

void addProjectionInputs(qa::RunRecord& record, const fs::path& input,
                         const ProjectionStack& projections) {
  record.inputs.push_back(qa::recordFile(input, "projections"));
  std::string ext = input.extension().string();
  if (ext == ".json" || ext == ".raw") {
    const fs::path other =
        ext == ".json" ? io::rawDataPathFor(input) : io::rawSidecarPathFor(input);
    std::error_code ec;
    if (fs::exists(other, ec)) record.inputs.push_back(qa::recordFile(other, "projections data"));
  }
  record.geometry = geometryToJson(projections.geometry());
  if (sha256Available()) record.geometrySha256 = sha256Hex(record.geometry.dump());
}

void addFdkParameters(qa::RunRecord& record, const fdk::FdkParams& params) {
  record.parameters["filter"] = {{"window", std::string(fdk::toString(params.filter.window))},
                                 {"cutoff", params.filter.cutoff}};
  record.parameters["redundancy"] = std::string(fdk::toString(params.redundancy));
}

void addIterativeParameters(qa::RunRecord& record, const iterative::IterativeParams& params) {
  record.parameters["lowerBound"] =
      params.lowerBound ? nlohmann::json(*params.lowerBound) : nlohmann::json();
  record.parameters["upperBound"] =
      params.upperBound ? nlohmann::json(*params.upperBound) : nlohmann::json();
  record.parameters["stopRelativeChange"] = params.stopRelativeChange;
  record.parameters["mask"] = params.mask != nullptr;
  record.parameters["warmStart"] = params.initialVolume != nullptr;
}

fs::path finishRunRecord(qa::RunRecord& record, const fs::path& recordPath,
                         const std::vector<fs::path>& outputs) {
  for (const fs::path& o : outputs) {
    record.outputs.push_back(qa::recordFile(o, "output"));
    // Raw + JSON and MetaImage keep their samples beside the named file.
    const std::string ext = o.extension().string();
    fs::path data;
    if (ext == ".json") data = io::rawDataPathFor(o);
    if (ext == ".mhd") data = fs::path(o).replace_extension(".raw");
    std::error_code ec;
    if (!data.empty() && fs::exists(data, ec))
      record.outputs.push_back(qa::recordFile(data, "output data"));
  }
  qa::writeRunRecord(recordPath, record);
  return recordPath;
}

}  // namespace tomowb::cli
