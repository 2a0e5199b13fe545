// GuiRunRecords: see the header.
#include "gui/core/GuiRunRecords.h"

#include <QDir>
#include <QFileInfo>
#include <QStandardPaths>
#include <algorithm>
#include <system_error>

#include "recon/core/Error.h"
#include "recon/io/GeometryJson.h"
#include "recon/io/RawVolumeIo.h"
#include "recon/io/Sha256.h"
#include "recon/io/VolumeFiles.h"
#include "recon/variant/VariantRegistry.h"

namespace tomowb::gui {

namespace fs = std::filesystem;

namespace {

bool isGpuVariant(const std::string& name) {
  const KernelVariant* v = VariantRegistry::builtins().find(name);
  return v != nullptr && v->needsGpu;
}

// "FDK", "WBP", "SIRT", "OS-SIRT", "SART" as the CLI's records name them.
std::string recordAlgorithm(const QString& algorithm) {
  return algorithm.toUpper().toStdString();
}

// Timing fields of a run report ("filterSeconds", "backprojectGups", ...).
bool isTimingKey(const std::string& key) {
  return key.find("Seconds") != std::string::npos || key.find("Gups") != std::string::npos ||
         key == "voxelUpdates" || key == "uploadBytes" || key == "downloadBytes";
}

// The header and, for MetaImage and raw + JSON, the data file it names.
std::vector<fs::path> filesOf(const fs::path& path) {
  std::vector<fs::path> files{path};
  std::string ext = path.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  fs::path data;
  if (ext == ".json") data = io::rawDataPathFor(path);
  if (ext == ".mhd") data = fs::path(path).replace_extension(".raw");
  std::error_code ec;
  if (!data.empty() && fs::exists(data, ec)) files.push_back(data);
  return files;
}

}  // namespace

QString defaultRunRecordsFolder() {
  return QDir(QStandardPaths::writableLocation(QStandardPaths::AppLocalDataLocation))
      .filePath(QStringLiteral("runs"));
}

qa::RunRecord makeGuiRunRecord(const RunInfo& run, const QString& projectionsPath,
                               const Geometry* geometry) {
  qa::RunRecord r;
  r.created = qa::utcNow();
  r.softwareVersion = TOMOWB_VERSION;
  std::error_code ec;
  r.workingDirectory = fs::current_path(ec).string();
  r.algorithm = recordAlgorithm(run.spec.algorithm);
  r.parameters = run.spec.parameters.is_object() ? run.spec.parameters : nlohmann::json::object();
  r.parameters["run"] = run.id;
  r.parameters["title"] = run.spec.title.toStdString();
  const nlohmann::json& report = run.record.value("report", nlohmann::json::object());
  bool gpu = false;
  if (r.parameters.contains("backVariant")) {  // iterative: a projector pair
    r.variant = r.parameters.value("backVariant", "");
    r.forwardVariant = r.parameters.value("forwardVariant", "");
    gpu = isGpuVariant(r.variant) || isGpuVariant(r.forwardVariant);
  } else {
    // FDK / WBP: the kernel that ran (a GPU variant may have chosen a more specific kernel).
    r.variant = report.is_object() ? report.value("kernel", "") : "";
    if (r.variant.empty()) r.variant = r.parameters.value("variant", "");
    gpu = isGpuVariant(r.parameters.value("variant", ""));
  }
  if (r.parameters.contains("gpu")) r.tunables = r.parameters["gpu"];
  r.device = qa::describeDevice(gpu);
  if (report.is_object() && report.contains("device")) r.device["report"] = report["device"];
  r.timings = {{"wallSeconds", run.seconds}};
  if (report.is_object())
    for (const auto& [key, value] : report.items()) {
      if (key == "device") continue;
      if (isTimingKey(key))
        r.timings[key] = value;
      else
        r.metrics[key] = value;  // iteration residuals, stop reason, FDK plan and warnings
    }
  if (!projectionsPath.isEmpty())
    for (const fs::path& f : filesOf(fs::path(projectionsPath.toStdString())))
      r.inputs.push_back(qa::recordFile(
          f, f == fs::path(projectionsPath.toStdString()) ? "projections" : "projections data"));
  if (geometry != nullptr) {
    r.geometry = geometryToJson(*geometry);
    if (sha256Available()) r.geometrySha256 = sha256Hex(r.geometry.dump());
  }
  return r;
}

fs::path guiRunRecordPath(const QString& folder, const qa::RunRecord& record, int runId) {
  std::string stamp = record.created;
  std::replace(stamp.begin(), stamp.end(), ':', '-');
  return fs::path(folder.toStdString()) / (stamp + "-run" + std::to_string(runId) + ".run.json");
}

fs::path writeGuiRunRecord(const QString& folder, const qa::RunRecord& record, int runId) {
  std::error_code ec;
  fs::create_directories(folder.toStdString(), ec);
  if (ec) throw IoError(folder.toStdString(), "cannot create the folder: " + ec.message());
  const fs::path path = guiRunRecordPath(folder, record, runId);
  qa::writeRunRecord(path, record);
  return path;
}

fs::path writeSavedVolumeRecord(qa::RunRecord record, const fs::path& output) {
  record.outputs.clear();
  const std::vector<fs::path> files = filesOf(output);
  for (std::size_t i = 0; i < files.size(); ++i)
    record.outputs.push_back(qa::recordFile(files[i], i == 0 ? "output" : "output data"));
  const fs::path path = qa::runRecordPathFor(output);
  qa::writeRunRecord(path, record);
  return path;
}

bool isRunRecordPath(const QString& path) {
  const QString name = QFileInfo(path).fileName().toLower();
  return name.endsWith(QStringLiteral(".run.json")) || name == QStringLiteral("run.json");
}

OpenedRunRecord openRunRecord(const fs::path& path) {
  OpenedRunRecord opened;
  opened.record = qa::readRunRecord(path);
  opened.json = qa::toJson(opened.record);
  const auto output = std::find_if(opened.record.outputs.begin(), opened.record.outputs.end(),
                                   [](const qa::RecordedFile& f) { return f.role == "output"; });
  if (output == opened.record.outputs.end()) {
    opened.warnings << QObject::tr("the record names no output volume (a run not saved)");
    return opened;
  }
  fs::path file = output->path;
  std::error_code ec;
  if (file.is_relative()) {
    const fs::path fromWorkingDirectory = fs::path(opened.record.workingDirectory) / file;
    file = !opened.record.workingDirectory.empty() && fs::exists(fromWorkingDirectory, ec)
               ? fromWorkingDirectory
               : path.parent_path() / file;
  }
  if (!fs::exists(file, ec)) {
    opened.warnings
        << QObject::tr("the output %1 no longer exists").arg(QString::fromStdString(output->path));
    return opened;
  }
  opened.volumePath = QString::fromStdString(file.string());
  if (!output->sha256.empty() && sha256Available()) {
    // The data file of a two-file format changes with the volume; check every recorded output.
    for (const qa::RecordedFile& f : opened.record.outputs) {
      fs::path p = f.path;
      if (p.is_relative()) p = file.parent_path() / p.filename();
      if (f.sha256.empty() || !fs::exists(p, ec)) continue;
      if (sha256HexOfFile(p) != f.sha256)
        opened.warnings << QObject::tr("%1 changed since the record was written (SHA-256 differs)")
                               .arg(QString::fromStdString(p.filename().string()));
    }
  }
  opened.volume = std::make_shared<Volume>(io::readVolume(file));
  return opened;
}

double recordedSeconds(const qa::RunRecord& record) {
  for (const char* key : {"wallSeconds", "totalSeconds", "seconds"})
    if (record.timings.contains(key) && record.timings[key].is_number())
      return record.timings[key].get<double>();
  return 0;
}

RunSpec runSpecForRecord(const OpenedRunRecord& opened, const QString& path) {
  const qa::RunRecord& r = opened.record;
  RunSpec spec;
  spec.algorithm = QString::fromStdString(r.algorithm).toLower();
  QString variants = QString::fromStdString(r.variant);
  if (!r.forwardVariant.empty())
    variants = QString::fromStdString(r.forwardVariant) + QStringLiteral(" + ") + variants;
  spec.title = QObject::tr("record: %1 %2 (%3)")
                   .arg(QString::fromStdString(r.algorithm), variants, QFileInfo(path).fileName());
  spec.parameters = r.parameters.is_object() ? r.parameters : nlohmann::json::object();
  // The run list's Variant column and the compare view read "variant" from the parameters.
  spec.parameters["variant"] = r.variant;
  if (!r.forwardVariant.empty()) spec.parameters["forwardVariant"] = r.forwardVariant;
  spec.parameters["openedRecord"] = path.toStdString();
  return spec;  // no execute: an opened record never runs
}

nlohmann::json runListRecordFor(const OpenedRunRecord& opened, const QString& path) {
  nlohmann::json j = opened.json;
  j["openedFrom"] = path.toStdString();
  if (!opened.volumePath.isEmpty()) j["volumeLoadedFrom"] = opened.volumePath.toStdString();
  if (!opened.warnings.isEmpty()) {
    nlohmann::json w = nlohmann::json::array();
    for (const QString& s : opened.warnings) w.push_back(s.toStdString());
    j["openWarnings"] = w;
  }
  return j;
}

}  // namespace tomowb::gui
