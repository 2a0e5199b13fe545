// `tomowb-cli info`: what a file holds (volumes, projections, geometry JSON), from its header.
#include <algorithm>
#include <cstdio>
#include <numbers>

#include "CliSupport.h"
#include "Commands.h"
#include "recon/io/GeometryJson.h"
#include "recon/io/InputFile.h"
#include "recon/io/VolumeFiles.h"
#ifdef TOMOWB_HAVE_DICOM
#include "recon/io/dicom/DicomImport.h"
#endif

namespace tomowb::cli {
namespace {

// True if the file looks like a geometry JSON (format "tomowb-geometry", or a builder block).
// Through InputFile: a pipe or device named X.json is refused by name, never waited on.
bool isGeometryFile(const std::string& path) {
  if (std::filesystem::path(path).extension() != ".json") return false;
  const io::InputFile file(path);
  const std::string head = file.readString(
      0, static_cast<std::size_t>(std::min<std::uint64_t>(file.size(), 4096)), "first 4 KiB");
  // Our sidecars name their own format; a geometry may instead be a bare builder block.
  if (head.find("\"tomowb-volume\"") != std::string::npos ||
      head.find("\"tomowb-projections\"") != std::string::npos)
    return false;
  return head.find("\"tomowb-geometry\"") != std::string::npos ||
         head.find("\"builder\"") != std::string::npos;
}

nlohmann::json geometrySummary(const std::string& path, const Geometry& g) {
  const auto az = g.sourceAzimuthsRad();
  double lo = az.front(), hi = az.front();
  for (double a : az) lo = std::min(lo, a), hi = std::max(hi, a);
  nlohmann::json j{{"path", path},
                   {"kind", "geometry"},
                   {"beam", toString(g.beam())},
                   {"views", g.viewCount()},
                   {"detector", {{"cols", g.detector().cols}, {"rows", g.detector().rows}}},
                   {"pitchMm", {g.view(0).u.norm(), g.view(0).v.norm()}},
                   {"azimuthRangeDeg", {lo * 180 / std::numbers::pi, hi * 180 / std::numbers::pi}}};
  if (g.beam() == BeamKind::Cone) {
    const View& v = g.view(0);
    j["sourceToIsocentreMm"] = v.source.norm();
    j["sourceToDetectorMm"] = (v.detectorCentre - v.source).norm();
    j["detectorSurface"] = toString(v.surface);
  }
  return j;
}

class InfoCommand : public Command {
 public:
  explicit InfoCommand(CLI::App& app) {
    sub_ = app.add_subcommand("info", "what a file holds: shape, type, spacing, value range");
    sub_->add_option("files", files_, "volume, projection or geometry files")->required();
  }
  CLI::App* subcommand() const override { return sub_; }

  int run(const GlobalOptions& global) override {
    nlohmann::json all = nlohmann::json::array();
    for (const std::string& path : files_) {
      if (isGeometryFile(path)) {
        const nlohmann::json j = geometrySummary(path, loadGeometry(path));
        if (!global.json)
          std::printf("%s: geometry, %s beam, %lld views, detector %lld x %lld\n", path.c_str(),
                      j["beam"].get<std::string>().c_str(), j["views"].get<long long>(),
                      j["detector"]["cols"].get<long long>(),
                      j["detector"]["rows"].get<long long>());
        all.push_back(j);
        continue;
      }
#ifdef TOMOWB_HAVE_DICOM
      if (io::dicom::looksLikeDicom(path)) {
        // A DICOM file or folder: its image series (`import dicom` reads one as a volume).
        std::vector<std::string> warnings;
        const auto list = io::dicom::listDicomSeries(path, &warnings);
        for (const std::string& w : warnings) std::fprintf(stderr, "warning: %s\n", w.c_str());
        for (const auto& series : list) {
          if (!global.json)
            std::printf("%s: DICOM %s, %lld images of %lld x %lld, series '%s' (%s)\n",
                        path.c_str(), series.sopClass.c_str(),
                        static_cast<long long>(series.frames),
                        static_cast<long long>(series.columns), static_cast<long long>(series.rows),
                        series.seriesDescription.c_str(), series.seriesInstanceUid.c_str());
          all.push_back({{"path", path},
                         {"kind", "dicom-series"},
                         {"sopClass", series.sopClass},
                         {"images", series.frames},
                         {"files", series.files},
                         {"columns", series.columns},
                         {"rows", series.rows},
                         {"seriesInstanceUid", series.seriesInstanceUid},
                         {"description", series.seriesDescription}});
        }
        continue;
      }
#endif
      const io::FileSummary s = io::describeFile(path);
      if (!global.json) {
        // Reader warnings go to stderr, like every other command's; the facts to stdout.
        io::FileSummary facts = s;
        std::erase_if(facts.details, [](const auto& d) { return d.first == "warning"; });
        for (const auto& [key, value] : s.details)
          if (key == "warning") std::fprintf(stderr, "warning: %s\n", value.c_str());
        std::printf("%s\n", facts.toText().c_str());
      }
      all.push_back(s.toJson());
    }
    printJson(global, {{"command", "info"}, {"files", all}});
    return kExitOk;
  }

 private:
  CLI::App* sub_ = nullptr;
  std::vector<std::string> files_;
};

}  // namespace

std::unique_ptr<Command> makeInfoCommand(CLI::App& app) {
  return std::make_unique<InfoCommand>(app);
}

}  // namespace tomowb::cli
