#include "RunRecords.h"

#include "recon/io/GeometryJson.h"
#include "recon/io/RawVolumeIo.h"
#include "recon/io/Sha256.h"
#include "recon/io/TiltSeriesFiles.h"

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

void addInputs(qa::RunRecord& record, const io::OutputSet& files) {
  for (const io::OutputSet::Input& in : files.inputs()) {
    for (std::size_t i = 0; i < in.files.size(); ++i) {
      std::error_code ec;
      if (i > 0 && (in.files[i] == in.path || !fs::exists(in.files[i], ec))) continue;
      record.inputs.push_back(qa::recordFile(in.files[i], i == 0 ? in.role : in.role + " data"));
    }
  }
}

void addProjectionInputs(io::OutputSet& files, const std::string& in, bool tiltSeries,
                         const std::string& tiltFile, const std::string& xfFile,
                         const std::string& xtiltFile) {
  files.addInput(in, "-i", "projections");
  if (!tiltSeries && tiltFile.empty()) return;
  const io::TiltSeriesSources sources = io::findCompanionFiles(in);
  const auto add = [&](const std::string& given, const fs::path& found, const char* option,
                       const char* role) {
    if (!given.empty())
      files.addInput(given, option, role, false);
    else if (!found.empty())
      files.addInput(found, std::string(role) + " beside -i", role, false);
  };
  add(tiltFile, sources.tiltAngles, "--tilt-angles", "tilt angles");
  add(xfFile, sources.alignment, "--xf", "alignment");
  add(xtiltFile, sources.xAxisTilts, "--xtilt", "x-axis tilts");
}

void addGeometry(qa::RunRecord& record, const Geometry& geometry) {
  record.geometry = geometryToJson(geometry);
  if (sha256Available()) record.geometrySha256 = sha256Hex(record.geometry.dump());
}

void addFdkParameters(qa::RunRecord& record, const fdk::FdkParams& params) {
  record.parameters["filter"] = {{"window", std::string(fdk::toString(params.filter.window))},
                                 {"cutoff", params.filter.cutoff}};
  record.parameters["redundancy"] = std::string(fdk::toString(params.redundancy));
}

void finishRunRecord(qa::RunRecord& record, io::OutputSet& files, const fs::path& recordPath,
                     const std::vector<fs::path>& outputs) {
  const auto recorded = [&](const fs::path& finalPath, const char* role) {
    qa::RecordedFile f = qa::recordFile(files.staged(finalPath), role);
    f.path = finalPath.string();
    return f;
  };
  for (const fs::path& o : outputs) {
    record.outputs.push_back(recorded(o, "output"));
    // Raw + JSON and MetaImage keep their samples beside the named file.
    const std::string ext = o.extension().string();
    fs::path data;
    if (ext == ".json") data = io::rawDataPathFor(o);
    if (ext == ".mhd") data = fs::path(o).replace_extension(".raw");
    std::error_code ec;
    if (!data.empty() && fs::exists(files.staged(data), ec))
      record.outputs.push_back(recorded(data, "output data"));
  }
  qa::writeRunRecord(files.staged(recordPath), record);
}

}  // namespace tomowb::cli
