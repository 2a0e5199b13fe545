// `tomowb-cli pet simulate|histo|recon`: DIRECT TOF-PET headless (docs/pet.md, "Command line").
//   simulate  the PET phantom (reference/direct-tof-pet.md, 5.2) through the list-mode simulator
//             into a list-mode file, with the activity (Bq/mL) and mu (1/mm) maps as volumes;
//   histo     a list-mode file into a histo-image set (data, multiplicative and additive images:
//             recon/pet/HistoSetFile.h);
//   recon     a list-mode file or a histo-image set into an image (Bq/mL or emissions per voxel)
//             in any volume format, with a run record, and per iteration the phantom's contrast
//             recovery and noise as a table (--report-metrics).
// Every output of a command is written together or not at all (io::OutputSet); errors name the
// file and the problem.
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>
#include <numbers>
#include <optional>
#include <string>
#include <vector>

#include "CliSupport.h"
#include "Commands.h"
#include "RunRecords.h"
#include "recon/core/Error.h"
#include "recon/io/OutputSet.h"
#include "recon/io/VolumeFiles.h"
#include "recon/pet/HistoSetFile.h"
#include "recon/pet/ListModeFile.h"
#include "recon/pet/ListModeSimulator.h"
#include "recon/pet/PetImageQuality.h"
#include "recon/pet/PetPhantom.h"
#include "recon/pet/PetPipeline.h"

namespace tomowb::cli {
namespace {

constexpr double kDeg = std::numbers::pi / 180.0;

// The phantom's options (simulate, and recon --report-metrics: give the same ones).
struct PetPhantomOptions {
  double radiusMm = 175, lengthMm = 180, backgroundBqPerMl = 5300, hotRatio = 4;
  bool coldSpheres = false;
  std::vector<double> pointSource;

  void addTo(CLI::App& app) {
    app.add_option("--cylinder-radius-mm", radiusMm, "phantom: water cylinder radius")
        ->capture_default_str();
    app.add_option("--cylinder-length-mm", lengthMm, "phantom: water cylinder length")
        ->capture_default_str();
    app.add_option("--background-bq-ml", backgroundBqPerMl, "phantom: background activity")
        ->capture_default_str();
    app.add_option("--hot-ratio", hotRatio, "phantom: hot sphere to background activity")
        ->capture_default_str();
    app.add_flag("--cold-spheres", coldSpheres, "phantom: two cold 20 mm spheres at 120 mm");
    app.add_option("--point-source", pointSource, "phantom: a 1 mm point source at X Y Z (mm)")
        ->expected(3);
  }
  pet::PetPhantom build() const {
    pet::PetPhantomParams p;
    p.cylinderRadiusMm = radiusMm;
    p.cylinderLengthMm = lengthMm;
    p.backgroundBqPerMl = backgroundBqPerMl;
    p.hotToBackgroundRatio = hotRatio;
    p.coldSpheres = coldSpheres;
    if (pointSource.size() == 3)
      p.pointSourceMm = Eigen::Vector3d(pointSource[0], pointSource[1], pointSource[2]);
    return pet::PetPhantom(p);
  }
};

// The histo-image grid and views.
struct PetGridOptions {
  double voxelMm = 4;
  std::int64_t size = 0, slices = 0;
  int azimuths = 40, tilts = 3;

  void addTo(CLI::App& app) {
    app.add_option("--voxel-mm", voxelMm, "image voxel size (cubic)")->capture_default_str();
    app.add_option("--size", size, "transverse voxels (default: the scanner's field of view)")
        ->check(CLI::Range(1, 4096));
    app.add_option("--slices", slices, "axial voxels (default: the scanner's axial length)")
        ->check(CLI::Range(1, 4096));
    app.add_option("--azimuths", azimuths, "DIRECT views: azimuth bins over 180 degrees")
        ->check(CLI::Range(1, 4096))
        ->capture_default_str();
    app.add_option("--tilts", tilts, "DIRECT views: tilt bins over the axial acceptance")
        ->check(CLI::Range(1, 64))
        ->capture_default_str();
  }
  VolumeGrid grid(const pet::ScannerModel& scanner) const {
    if (!(voxelMm > 0 && voxelMm <= 100)) throw ParameterError("--voxel-mm", "must be in (0, 100]");
    VolumeGrid g = pet::defaultPetGrid(scanner, voxelMm);
    if (size > 0) g.shape.nx = g.shape.ny = size;
    if (slices > 0) g.shape.nz = slices;
    return VolumeGrid::centred(g.shape, g.voxelSizeMm);
  }
  pet::ViewBinning views(const pet::ScannerModel& scanner) const {
    pet::ViewBinning v = pet::defaultPetViews(scanner);
    v.azimuths = azimuths;
    v.tilts = tilts;
    return v;
  }
};

// Deposition and corrections (histo, and recon of list mode).
struct HistoOptions {
  PetGridOptions grid;
  std::string deposition = "nearest", mu;
  bool noRandoms = false;
  double smoothingSigma = 2.0;
  std::string device = "cpu";  // recon: its --device; histo: --deposit-on

  void addTo(CLI::App& app) {
    grid.addTo(app);
    app.add_option("--deposition", deposition, "nearest, trilinear or tof-kernel")
        ->capture_default_str();
    app.add_option("--mu", mu, "attenuation map (1/mm, any grid): attenuation correction")
        ->check(CLI::ExistingFile);
    app.add_flag("--no-randoms", noRandoms,
                 "no randoms correction (default: the delayed events, deposited and smoothed)");
    app.add_option("--randoms-smoothing", smoothingSigma,
                   "Gaussian sigma (voxels) smoothing the delayed events")
        ->check(CLI::Range(0.0, 20.0))
        ->capture_default_str();
  }
  pet::HistoImagingParams build(const pet::ScannerModel& scanner) const {
    pet::HistoImagingParams p;
    p.grid = grid.grid(scanner);
    p.views = grid.views(scanner);
    p.deposition = pet::parseDepositionMode(deposition, "--deposition");
    p.randomsCorrection = !noRandoms;
    p.background.smoothingSigmaVoxels = smoothingSigma;
    p.device = device == "gpu" ? VariantDevice::Gpu : VariantDevice::Cpu;
    return p;
  }
};

pet::ListModeData readEvents(const std::string& path) {
  pet::ListModeData data = pet::readListMode(path);
  if (data.header.promptCount == 0) throw FormatError(path, "events", "the file holds no prompt");
  return data;
}

bool isListModeFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  char magic[8] = {};
  in.read(magic, sizeof magic);
  return in.gcount() == 8 && std::memcmp(magic, pet::kListModeMagic, 8) == 0;
}

std::string depositionLine(const char* what, const pet::DepositionReport& r) {
  char line[240];
  std::snprintf(line, sizeof line,
                "%s: %llu events, %llu deposited (%llu beyond the tilt acceptance, %llu outside "
                "the grid) in %s",
                what, static_cast<unsigned long long>(r.events),
                static_cast<unsigned long long>(r.deposited),
                static_cast<unsigned long long>(r.outsideTilt),
                static_cast<unsigned long long>(r.outsideGrid), formatSeconds(r.seconds).c_str());
  return line;
}

class PetSimulateCommand : public Command {
 public:
  explicit PetSimulateCommand(CLI::App& pet) {
    sub_ = pet.add_subcommand("simulate", "simulate TOF list mode of the PET phantom");
    sub_->add_option("--scanner", scanner_, "scanner preset (penn-labr3, ring-930) or file")
        ->capture_default_str();
    phantom_.addTo(*sub_);
    grid_.addTo(*sub_);
    sub_->add_option("-o,--out", out_, "list-mode file to write")->required();
    sub_->add_option("--truth", truth_, "also write the activity map (Bq/mL) on the image grid");
    sub_->add_option("--mu-out", muOut_, "also write the attenuation map (1/mm) on the image grid");
    sub_->add_option("--counts", counts_, "simulate until this many prompts (0: from --seconds)")
        ->check(CLI::Range(std::int64_t{0}, std::int64_t{1} << 40))
        ->capture_default_str();
    sub_->add_option("--seconds", seconds_, "acquisition time (counts from the activity)")
        ->check(CLI::PositiveNumber)
        ->capture_default_str();
    sub_->add_option("--seed", seed_, "random seed")->capture_default_str();
    sub_->add_option("--randoms", randoms_, "randoms fraction of the prompts")
        ->check(CLI::Range(0.0, 0.95))
        ->capture_default_str();
    sub_->add_flag("--no-attenuation", noAttenuation_, "no attenuation in the water");
  }
  CLI::App* subcommand() const override { return sub_; }

  int run(const GlobalOptions& global) override {
    io::OutputSet files(&interruptToken());
    files.addOutput(out_, "-o");
    files.addOutput(truth_, "--truth");
    files.addOutput(muOut_, "--mu-out");
    files.check();
    const pet::ScannerModel scanner = pet::loadScanner(scanner_);
    const pet::PetPhantom phantom = phantom_.build();
    const VolumeGrid grid = grid_.grid(scanner);
    ProgressBar bar(progressWanted(global.progress, global.quiet));
    JobContext context(interruptToken(), &bar);
    const Volume activity = phantom.activity(grid, &context);
    const Volume mu = phantom.attenuation(grid, &context);
    pet::ListModeSimulationParams params;
    params.seed = seed_;
    params.acquisitionSeconds = seconds_;
    params.requestedPrompts = counts_;
    params.randomsFraction = randoms_;
    params.delayedWindow = randoms_ > 0;
    pet::ListModeHeader header;
    header.source = "tomowb-cli pet simulate (PET phantom, seed " + std::to_string(seed_) + ")";
    const pet::ListModeSimulationReport r =
        pet::simulateListModeFile(scanner, activity, noAttenuation_ ? nullptr : &mu, params,
                                  files.staged(out_), header, context);
    if (!truth_.empty()) io::writeVolume(files.staged(truth_), activity);
    if (!muOut_.empty()) io::writeVolume(files.staged(muOut_), mu);
    files.commit();
    bar.finish();
    if (!global.quiet && !global.json) {
      std::printf("wrote %s: %lld prompts (%lld trues, %lld randoms), %lld delayed; %s\n",
                  out_.c_str(), static_cast<long long>(r.prompts()),
                  static_cast<long long>(r.trues), static_cast<long long>(r.randoms),
                  static_cast<long long>(r.delayed), formatSeconds(r.seconds).c_str());
      if (!truth_.empty()) std::printf("wrote %s: activity (Bq/mL)\n", truth_.c_str());
      if (!muOut_.empty()) std::printf("wrote %s: attenuation (1/mm)\n", muOut_.c_str());
    }
    printJson(global, {{"command", "pet simulate"},
                       {"output", out_},
                       {"scanner", scanner.name},
                       {"seed", seed_},
                       {"prompts", r.prompts()},
                       {"trues", r.trues},
                       {"randoms", r.randoms},
                       {"delayed", r.delayed},
                       {"activityBq", r.activityBq},
                       {"seconds", r.seconds},
                       {"grid", gridToJson(grid)}});
    return kExitOk;
  }

 private:
  CLI::App* sub_ = nullptr;
  std::string scanner_ = "penn-labr3", out_, truth_, muOut_;
  PetPhantomOptions phantom_;
  PetGridOptions grid_;
  std::int64_t counts_ = 0;
  double seconds_ = 1.0, randoms_ = 0.1;
  std::uint64_t seed_ = 1;
  bool noAttenuation_ = false;
};

class PetHistoCommand : public Command {
 public:
  explicit PetHistoCommand(CLI::App& pet) {
    sub_ = pet.add_subcommand("histo", "deposit list mode into DIRECT histo-images");
    sub_->add_option("-i,--in", in_, "list-mode file")->required()->check(CLI::ExistingFile);
    sub_->add_option("-o,--out", out_, "histo-image set to write (NAME.json + NAME.*.f32)")
        ->required();
    histo_.addTo(*sub_);
    sub_->add_option("--device", histo_.device, "deposit on the cpu or the gpu")
        ->check(CLI::IsMember({"cpu", "gpu"}))
        ->capture_default_str();
  }
  CLI::App* subcommand() const override { return sub_; }

  int run(const GlobalOptions& global) override {
    if (std::filesystem::path(out_).extension() != ".json")
      throw ParameterError("-o", "a histo-image set is NAME.json, got '" + out_ + "'");
    io::OutputSet files(&interruptToken());
    files.addInput(in_, "-i", "list mode", false);
    files.addInput(histo_.mu, "--mu", "attenuation map");
    files.addOutput(out_, "-o");
    for (const char* role : {"data", "multiplicative", "additive"})
      files.addOutput(pet::histoImagePathFor(out_, role), std::string("-o (") + role + ")");
    files.check();
    if (histo_.device == "gpu") requireGpu("--device");
    ProgressBar bar(progressWanted(global.progress, global.quiet));
    JobContext context(interruptToken(), &bar);
    const pet::ListModeData lm = readEvents(in_);
    const pet::HistoImagingParams params = histo_.build(lm.header.scanner);
    std::optional<Volume> mu;
    if (!histo_.mu.empty()) mu = io::readVolume(histo_.mu);
    const pet::PetHistoSet set =
        pet::makeHistoSet(lm.header, lm.events, mu ? &*mu : nullptr, params, context);
    pet::writeHistoSet(files.staged(out_), set);
    files.commit();
    bar.finish();
    if (!global.quiet && !global.json) {
      const VolumeGrid& g = set.data.grid();
      std::printf("wrote %s: %d views of %lld x %lld x %lld voxels of %.3g mm (%s)\n", out_.c_str(),
                  set.data.viewCount(), static_cast<long long>(g.shape.nx),
                  static_cast<long long>(g.shape.ny), static_cast<long long>(g.shape.nz),
                  g.voxelSizeMm.x(), pet::toString(set.deposition).c_str());
      std::printf("%s\n", depositionLine("prompts", set.prompts).c_str());
      if (!set.additive.empty())
        std::printf("%s\n", depositionLine("delayed", set.delayed).c_str());
      std::printf("corrections: sensitivity%s%s; %s in all\n", mu ? ", attenuation" : "",
                  set.additive.empty() ? "" : ", randoms", formatSeconds(set.seconds).c_str());
    }
    printJson(global, {{"command", "pet histo"},
                       {"input", in_},
                       {"output", out_},
                       {"views", set.data.viewCount()},
                       {"grid", gridToJson(set.data.grid())},
                       {"promptsDeposited", set.prompts.deposited},
                       {"delayedDeposited", set.delayed.deposited},
                       {"attenuation", mu.has_value()},
                       {"randoms", !set.additive.empty()}});
    return kExitOk;
  }

 private:
  CLI::App* sub_ = nullptr;
  std::string in_, out_;
  HistoOptions histo_;
};

// One row per iteration: the objective and every figure the run reports but the relaxation.
void printMetricsTable(const std::vector<IterationRecord>& iterations) {
  if (iterations.empty()) return;
  std::vector<std::string> names;
  for (const auto& m : iterations.front().metrics)
    if (m.first != "relaxation") names.push_back(m.first);
  std::printf("%9s %14s", "iteration", "-log L");
  for (const std::string& n : names)
    std::printf(" %12s", n == "expected / measured counts" ? "exp/meas" : n.c_str());
  std::printf(" %9s\n", "seconds");
  for (const IterationRecord& r : iterations) {
    std::printf("%9d %14.7g", r.iteration, r.objective);
    for (const std::string& n : names) {
      double value = NAN;
      for (const auto& [name, v] : r.metrics)
        if (name == n) value = v;
      std::printf(" %12.5f", value);
    }
    std::printf(" %9.3f\n", r.seconds);
  }
}

class PetReconCommand : public Command {
 public:
  explicit PetReconCommand(CLI::App& pet) {
    sub_ = pet.add_subcommand("recon", "reconstruct list mode or histo-images with DIRECT");
    sub_->add_option("-i,--in", in_, "list-mode file, or a histo-image set (NAME.json)")
        ->required()
        ->check(CLI::ExistingFile);
    sub_->add_option("-o,--out", out_, "image to write (.mhd, .json, .npy, .tif, .mrc)")
        ->required();
    histo_.addTo(*sub_);
    sub_->add_option("--algorithm", algorithm_, "mlem, osem or ramla")->capture_default_str();
    sub_->add_option("--iterations", iterations_, "passes over every view")
        ->check(CLI::Range(1, 100000))
        ->capture_default_str();
    sub_->add_option("--subsets", subsets_, "view subsets (osem, ramla)")
        ->check(CLI::Range(1, 4096))
        ->capture_default_str();
    sub_->add_option("--lambda0", lambda0_, "RAMLA's first relaxation")->capture_default_str();
    sub_->add_option("--beta", beta_, "RAMLA: the relaxation halves after this many passes")
        ->capture_default_str();
    sub_->add_option("--lor-kernel", lorKernel_, "invariant, variant1, variant2 or variant3")
        ->capture_default_str();
    sub_->add_option("--lor-fwhm-mm", lorFwhm_, "radial LOR resolution (FWHM)")
        ->capture_default_str();
    sub_->add_option("--axial-fwhm-mm", axialFwhm_, "axial LOR resolution (FWHM)")
        ->capture_default_str();
    sub_->add_option("--tof-fwhm-ps", tofFwhm_, "TOF kernel (default: the scanner's)");
    sub_->add_option("--device", device_, "cpu or gpu")
        ->check(CLI::IsMember({"cpu", "gpu"}))
        ->capture_default_str();
    sub_->add_option("--forward", forward_, "DIRECT forward projector variant (default: device's)");
    sub_->add_option("--back", back_, "DIRECT backprojector variant (default: device's)");
    sub_->add_option("--units", units_, "bqml (Bq/mL) or emissions (per voxel)")
        ->check(CLI::IsMember({"bqml", "emissions"}))
        ->capture_default_str();
    sub_->add_option("--positron-fraction", positronFraction_, "for Bq/mL (0.967 for 18F)")
        ->capture_default_str();
    sub_->add_flag("--decay-correction", decayCorrection_,
                   "Bq/mL at scan start (the half-life of the list-mode header)");
    sub_->add_flag("--report-metrics", reportMetrics_,
                   "the PET phantom's CRC and noise per iteration (give its options as for "
                   "simulate)");
    phantom_.addTo(*sub_);
  }
  CLI::App* subcommand() const override { return sub_; }

  int run(const GlobalOptions& global) override {
    io::OutputSet files(&interruptToken());
    const bool listMode = isListModeFile(in_);
    addFiles(files, listMode, global.noRecord);
    files.check();
    // The options first: a bad value fails before the data is read.
    const pet::PetReconParams params = buildParams();
    std::optional<pet::PetPhantom> phantom;
    if (reportMetrics_) phantom = phantom_.build();

    ProgressBar bar(progressWanted(global.progress, global.quiet));
    JobContext context(interruptToken(), &bar);
    const pet::PetHistoSet set = loadSet(listMode, context);
    pet::DirectMetricsFn metrics;
    if (phantom)
      metrics = [&](const Volume& x) {
        const pet::PetImageQuality q = pet::measurePetImageQuality(x, *phantom);
        std::vector<std::pair<std::string, double>> out{{"CRC hot", q.meanHotCrc}};
        if (!q.cold.empty()) out.emplace_back("CRC cold", q.meanColdCrc);
        out.emplace_back("noise", q.noise);
        return out;
      };
    const pet::PetReconResult r = pet::reconstructHistoSet(set, params, context, metrics);
    context.throwIfCancelled();
    io::writeVolume(files.staged(out_), units_ == "bqml" ? r.activityBqPerMl : r.emissions);
    if (!global.noRecord) writeRecord(files, set, r.report);
    files.commit();
    bar.finish();
    for (const std::string& w : r.report.warnings) std::fprintf(stderr, "warning: %s\n", w.c_str());
    if (!global.quiet && !global.json) printSummary(set, r.report, phantom.has_value());
    printJson(global, summaryJson(set, r.report));
    return kExitOk;
  }

 private:
  void addFiles(io::OutputSet& files, bool listMode, bool noRecord) const {
    files.addInput(in_, "-i", listMode ? "list mode" : "histo-images", false);
    if (!listMode)
      for (const char* role : {"data", "multiplicative", "additive"})
        if (std::filesystem::exists(pet::histoImagePathFor(in_, role)))
          files.addInput(pet::histoImagePathFor(in_, role), "-i", std::string("histo ") + role,
                         false);
    files.addInput(histo_.mu, "--mu", "attenuation map");
    files.addOutput(out_, "-o");
    if (!noRecord) files.addOutput(qa::runRecordPathFor(out_), "run record");
  }

  pet::PetReconParams buildParams() const {
    pet::PetReconParams params;
    params.recon.algorithm = pet::parseEmAlgorithm(algorithm_, "--algorithm");
    params.recon.iterations = iterations_;
    params.recon.subsets = subsets_;
    params.recon.lambda0 = lambda0_;
    params.recon.betaPasses = beta_;
    params.recon.kernel.profile = pet::parseLorWidthProfile(lorKernel_, "--lor-kernel");
    params.recon.kernel.radialFwhmMm = lorFwhm_;
    params.recon.kernel.axialFwhmMm = axialFwhm_;
    params.recon.kernel.tofFwhmPs = tofFwhm_ ? *tofFwhm_ : 0.0;  // 0: the scanner's
    if (tofFwhm_ && !(*tofFwhm_ > 0 && *tofFwhm_ < 1e5))
      throw ParameterError("--tof-fwhm-ps", "must be in (0, 100000) ps");
    params.recon.device = device_ == "gpu" ? VariantDevice::Gpu : VariantDevice::Cpu;
    if (device_ == "gpu") requireGpu("--device");
    params.recon.forwardVariant = forward_;
    params.recon.backVariant = back_;
    params.recon.publishEvery = 0;
    params.positronFraction = positronFraction_;
    params.decayCorrection = decayCorrection_;
    return params;
  }

  pet::PetHistoSet loadSet(bool listMode, JobContext& context) const {
    if (!listMode) return pet::readHistoSet(in_);
    const pet::ListModeData lm = readEvents(in_);
    std::optional<Volume> mu;
    if (!histo_.mu.empty()) mu = io::readVolume(histo_.mu);
    pet::HistoImagingParams histo = histo_.build(lm.header.scanner);
    histo.device = device_ == "gpu" ? VariantDevice::Gpu : VariantDevice::Cpu;
    return pet::makeHistoSet(lm.header, lm.events, mu ? &*mu : nullptr, histo, context);
  }

  void writeRecord(io::OutputSet& files, const pet::PetHistoSet& set,
                   const iterative::IterativeReport& report) const {
    qa::RunRecord record = startRunRecord({"-o", "--out"}, out_, device_ == "gpu");
    addInputs(record, files);
    record.algorithm = "DIRECT " + algorithm_;
    record.variant = report.backVariant;
    record.forwardVariant = report.forwardVariant;
    record.parameters = {{"algorithm", algorithm_},
                         {"iterations", iterations_},
                         {"subsets", subsets_},
                         {"lorKernel", lorKernel_},
                         {"tofFwhmPs", tofFwhm_ ? *tofFwhm_ : set.scanner.tofFwhmPs},
                         {"deposition", pet::toString(set.deposition)},
                         {"views", set.data.viewCount()},
                         {"grid", gridToJson(set.data.grid())},
                         {"units", units_},
                         {"attenuation", set.attenuationCorrected},
                         {"randoms", !set.additive.empty()}};
    record.timings = {{"total", report.totalSeconds},
                      {"forward", report.forwardSeconds},
                      {"back", report.backprojectSeconds},
                      {"histo", set.seconds}};
    if (!report.iterations.empty()) {
      nlohmann::json m = nlohmann::json::object();
      for (const auto& [name, value] : report.iterations.back().metrics) m[name] = value;
      record.metrics = m;
    }
    record.device["report"] = report.device;
    finishRunRecord(record, files, qa::runRecordPathFor(out_), {out_});
  }

  void printSummary(const pet::PetHistoSet& set, const iterative::IterativeReport& report,
                    bool table) const {
    const VolumeGrid& g = set.data.grid();
    std::printf("wrote %s: %lld x %lld x %lld voxels of %.3g mm, %s\n", out_.c_str(),
                static_cast<long long>(g.shape.nx), static_cast<long long>(g.shape.ny),
                static_cast<long long>(g.shape.nz), g.voxelSizeMm.x(),
                units_ == "bqml" ? "Bq/mL" : "emissions per voxel");
    std::printf("DIRECT %s: %zu iterations, %d views, %s + %s on %s; %s\n", algorithm_.c_str(),
                report.iterations.size(), set.data.viewCount(), report.forwardVariant.c_str(),
                report.backVariant.c_str(), report.device.c_str(),
                formatSeconds(report.totalSeconds).c_str());
    if (table) printMetricsTable(report.iterations);
  }

  nlohmann::json summaryJson(const pet::PetHistoSet& set,
                             const iterative::IterativeReport& report) const {
    nlohmann::json iterations = nlohmann::json::array();
    for (const IterationRecord& it : report.iterations) {
      nlohmann::json j = {
          {"iteration", it.iteration}, {"objective", it.objective}, {"seconds", it.seconds}};
      for (const auto& [name, value] : it.metrics) j[name] = value;
      iterations.push_back(j);
    }
    return {{"command", "pet recon"},
            {"input", in_},
            {"output", out_},
            {"units", units_},
            {"grid", gridToJson(set.data.grid())},
            {"forward", report.forwardVariant},
            {"back", report.backVariant},
            {"device", report.device},
            {"iterations", iterations},
            {"seconds", report.totalSeconds}};
  }

  CLI::App* sub_ = nullptr;
  std::string in_, out_;
  HistoOptions histo_;
  std::string algorithm_ = "osem", lorKernel_ = "invariant", device_ = "cpu", forward_, back_;
  std::string units_ = "bqml";
  int iterations_ = 10, subsets_ = 10;
  double lambda0_ = 1.0, beta_ = 5.0, lorFwhm_ = 5.8, axialFwhm_ = 5.8, positronFraction_ = 1.0;
  std::optional<double> tofFwhm_;
  bool decayCorrection_ = false, reportMetrics_ = false;
  PetPhantomOptions phantom_;
};

}  // namespace

std::vector<std::unique_ptr<Command>> makePetCommands(CLI::App& app) {
  CLI::App& pet = *app.add_subcommand("pet", "TOF-PET with DIRECT: simulate, histo, recon");
  pet.require_subcommand(1);
  std::vector<std::unique_ptr<Command>> out;
  out.push_back(std::make_unique<PetSimulateCommand>(pet));
  out.push_back(std::make_unique<PetHistoCommand>(pet));
  out.push_back(std::make_unique<PetReconCommand>(pet));
  return out;
}

}  // namespace tomowb::cli
