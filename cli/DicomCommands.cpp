// `tomowb-cli export dicom VOLUME OUTDIR` and `tomowb-cli import dicom IN OUT` (docs/dicom.md):
// a volume file to a DICOM series (CT, Enhanced CT or PET, optionally compressed), and a DICOM
// series back to any volume format. Without DCMTK in the build both commands say so.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <optional>

#include "CliSupport.h"
#include "Commands.h"
#include "FiniteNumbers.h"
#include "recon/core/Error.h"
#include "recon/core/MemoryBudget.h"
#include "recon/io/GeometryJson.h"
#include "recon/io/InputFile.h"
#include "recon/io/JsonFields.h"
#include "recon/io/OutputSet.h"
#include "recon/io/VolumeFiles.h"

#ifdef TOMOWB_HAVE_DICOM
#include "recon/io/dicom/DicomExport.h"
#include "recon/io/dicom/DicomGeometry.h"
#include "recon/io/dicom/DicomImport.h"
#include "recon/io/dicom/Sha256.h"
#endif

namespace tomowb::cli {
namespace {

namespace fs = std::filesystem;

#ifdef TOMOWB_HAVE_DICOM
using namespace io::dicom;

// "A:B" (half-open, either side may be empty) to an IndexRange.
IndexRange parseRange(const std::string& text, const char* option) {
  IndexRange range;
  if (text.empty()) return range;
  const auto colon = text.find(':');
  if (colon == std::string::npos)
    throw ParameterError(option, "expected FIRST:END (half-open, e.g. 10:90), got '" + text + "'");
  try {
    const std::string a = text.substr(0, colon), b = text.substr(colon + 1);
    if (!a.empty()) range.begin = std::stoll(a);
    if (!b.empty()) range.end = std::stoll(b);
  } catch (const std::exception&) {
    throw ParameterError(option, "expected FIRST:END with whole numbers, got '" + text + "'");
  }
  return range;
}

// Through InputFile: a pipe or device given as --provenance is refused by name, never waited on.
nlohmann::json readJsonFile(const fs::path& path) {
  return io::parseJsonText(io::InputFile(path).readAll(std::uint64_t{16} << 20, "JSON file"), path);
}

std::string geometryHashOf(const fs::path& path) {
  return sha256Hex(geometryToJson(loadGeometry(path)).dump());
}

// Fills what a run summary says (demo's summary.json, a recon command's --json output, or a run
// record with algorithm / variant / iterations / geometryHash at the top level).
void provenanceFromSummary(const nlohmann::json& j, DicomProvenance& p) {
  const auto str = [](const nlohmann::json& o, const char* key) {
    return o.contains(key) && o[key].is_string() ? o[key].get<std::string>() : std::string();
  };
  if (j.contains("fdk") && j["fdk"].is_object()) {
    p.algorithm = "FDK";
    p.variant =
        str(j["fdk"], "kernel").empty() ? str(j["fdk"], "variant") : str(j["fdk"], "kernel");
  }
  if (j.contains("iterative") && j["iterative"].is_object()) {
    const auto& r = j["iterative"];
    p.algorithm = str(r, "method");
    for (char& c : p.algorithm) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    p.variant = str(r, "forwardVariant");
    if (!str(r, "backVariant").empty()) p.variant += "/" + str(r, "backVariant");
    if (r.contains("iterations") && r["iterations"].is_array())
      p.iterations = static_cast<std::int64_t>(r["iterations"].size());
  }
  if (!str(j, "algorithm").empty()) p.algorithm = str(j, "algorithm");
  if (!str(j, "variant").empty()) p.variant = str(j, "variant");
  if (j.contains("iterations") && j["iterations"].is_number_integer())
    p.iterations = j["iterations"].get<std::int64_t>();
  if (!str(j, "geometryHash").empty()) p.geometryHash = str(j, "geometryHash");
  if (j.contains("gpuOptions") && j["gpuOptions"].contains("tunables") &&
      !j["gpuOptions"]["tunables"].empty())
    p.tunables = j["gpuOptions"]["tunables"].dump();
  if (!str(j, "command").empty()) p.sourceDescription = "tomowb-cli " + str(j, "command");
  if (!str(j, "input").empty()) p.sourceDescription += " of " + str(j, "input");
}

// A summary.json beside the volume that lists it among its outputs (what `tomowb-cli demo`
// writes), and the geometry.json it lists.
bool findSummaryBeside(const fs::path& volume, fs::path& summary, fs::path& geometry) {
  const fs::path candidate = volume.parent_path() / "summary.json";
  std::error_code ec;
  if (!fs::is_regular_file(candidate, ec)) return false;
  nlohmann::json j;
  try {
    j = readJsonFile(candidate);
  } catch (const Error&) {
    return false;
  }
  if (!j.contains("outputs") || !j["outputs"].is_array()) return false;
  bool listed = false;
  for (const auto& o : j["outputs"]) {
    if (!o.is_string()) continue;
    const fs::path p = o.get<std::string>();
    if (p.filename() == volume.filename()) listed = true;
    if (p.filename() == "geometry.json") geometry = volume.parent_path() / p.filename();
  }
  if (listed) summary = candidate;
  return listed;
}

class ExportDicomCommand : public Command {
 public:
  explicit ExportDicomCommand(CLI::App& exportApp) {
    sub_ = exportApp.add_subcommand(
        "dicom",
        "a volume as a DICOM series (CT Image, Enhanced CT or PET), written to a temporary "
        "folder and renamed into OUTDIR when complete");
    sub_->add_option("volume", volume_, "the volume file (any format `info` reads)")->required();
    sub_->add_option("outdir", outDir_, "the series' folder (new or empty, or --force)")
        ->required();
    sub_->add_option("--format", format_,
                     "ct (one file per slice), enhanced-ct (one multi-frame "
                     "file) or pet")
        ->capture_default_str();
    sub_->add_option("--compression", compression_,
                     "none, rle, jpeg-ls or jpeg-lossless (all "
                     "lossless)")
        ->capture_default_str();
    sub_->add_option("--units", units_,
                     "CT values: hu (from attenuation in 1/mm) or native "
                     "(the volume's own values)")
        ->capture_default_str();
    sub_->add_option("--water-mu", options_.waterAttenuationPerMm,
                     "water attenuation (1/mm) for HU; 0.0206 is water near 60 keV")
        ->check(finitePositiveNumber())
        ->capture_default_str();
    sub_->add_option("--native-units", options_.nativeUnits, "what native values are")
        ->capture_default_str();
    sub_->add_option("--patient-position", position_,
                     "HFS, HFP, FFS, FFP, HFDR, HFDL, FFDR, "
                     "FFDL (docs/dicom.md: the axis map)")
        ->capture_default_str();
    sub_->add_option("--slices", slices_, "slice range FIRST:END (half-open), default all");
    sub_->add_option("--crop-x", cropX_, "column range FIRST:END (half-open)");
    sub_->add_option("--crop-y", cropY_, "row range FIRST:END (half-open)");
    DicomIdentity& id = options_.identity;
    sub_->add_option("--patient-name", id.patientName, "Patient's Name (DICOM PN, e.g. DOE^JANE)")
        ->capture_default_str();
    sub_->add_option("--patient-id", id.patientId)->capture_default_str();
    sub_->add_option("--patient-birth-date", id.patientBirthDate, "YYYYMMDD");
    sub_->add_option("--patient-sex", id.patientSex, "M, F or O");
    sub_->add_option("--study-uid", id.studyInstanceUid,
                     "add the series to this study (default: a new study)");
    sub_->add_option("--study-id", id.studyId)->capture_default_str();
    sub_->add_option("--study-description", id.studyDescription)->capture_default_str();
    sub_->add_option("--accession-number", id.accessionNumber);
    sub_->add_option("--referring-physician", id.referringPhysicianName);
    sub_->add_option("--institution", id.institutionName);
    sub_->add_option("--series-uid", id.seriesInstanceUid, "default: new");
    sub_->add_option("--series-number", id.seriesNumber)->capture_default_str();
    sub_->add_option("--series-description", id.seriesDescription,
                     "default: algorithm, variant and iterations");
    sub_->add_option("--frame-of-reference-uid", id.frameOfReferenceUid,
                     "default: derived from the acquisition (same input, same UID)");
    sub_->add_option("--uid-root", id.uidRoot,
                     "your organisation's UID root (default: 2.25 UUID-derived UIDs)");
    DicomProvenance& p = options_.provenance;
    sub_->add_option("--provenance", provenanceFile_,
                     "a run summary (demo's summary.json, a recon --json output): algorithm, "
                     "variant, iterations (default: summary.json beside VOLUME when it lists it)");
    sub_->add_option("--geometry", geometryFile_,
                     "the scan geometry (JSON or projections): its SHA-256 is recorded and keys "
                     "the Frame of Reference");
    sub_->add_option("--algorithm", p.algorithm);
    sub_->add_option("--variant", p.variant);
    sub_->add_option("--iterations", p.iterations);
    sub_->add_flag("--force", force_,
                   "replace OUTDIR if it holds files (only once the new "
                   "series is complete)");
    sub_->add_flag("--dry-run", dryRun_, "print what would be written, write nothing");
    addPetOptions();
  }
  CLI::App* subcommand() const override { return sub_; }

  int run(const GlobalOptions& global) override {
    options_.type = parseObjectType(format_, "--format");
    fillPetOptions();
    options_.compression = parseCompression(compression_, "--compression");
    options_.values = parseValueMode(units_, "--units");
    options_.patientPosition = parsePatientPosition(position_, "--patient-position");
    options_.slices = parseRange(slices_, "--slices");
    options_.cropX = parseRange(cropX_, "--crop-x");
    options_.cropY = parseRange(cropY_, "--crop-y");
    fillProvenance();
    {
      // --force replaces OUTDIR as a whole: it must hold none of the files this run reads.
      io::OutputSet files;
      files.addInput(volume_, "VOLUME");
      files.addInput(provenanceFile_, "--provenance", {}, false);
      files.addInput(geometryFile_, "--geometry");
      if (force_) files.addReplacedFolder(outDir_, "OUTDIR (--force)");
      files.check();
    }
    const Volume volume = io::readVolume(volume_);
    const DicomExportPlan plan = planDicomExport(volume, options_);
    for (const std::string& w : plan.warnings) std::fprintf(stderr, "warning: %s\n", w.c_str());
    const bool text = !global.quiet && !global.json;
    nlohmann::json summary{{"command", "export dicom"},
                           {"input", volume_.string()},
                           {"output", outDir_.string()},
                           {"format", toString(options_.type)},
                           {"compression", toString(options_.compression)},
                           {"units", plan.units},
                           {"rescaleSlope", plan.rescaleSlope},
                           {"rescaleIntercept", plan.rescaleIntercept},
                           {"files", plan.files},
                           {"grid", {plan.columns, plan.rows, plan.slices}},
                           {"warnings", plan.warnings}};
    if (options_.type == DicomObjectType::PetImage) summary["pet"] = petSummary(plan);
    if (dryRun_) {
      summary["maxQuantisationError"] = plan.maxQuantisationError;
      summary["estimatedBytes"] = plan.estimatedBytes;
      if (text)
        std::printf(
            "would write %lld files (%s) of %lld x %lld x %lld voxels in %s, "
            "quantisation <= %.4g %s\n",
            static_cast<long long>(plan.files), formatBytes(plan.estimatedBytes).c_str(),
            static_cast<long long>(plan.columns), static_cast<long long>(plan.rows),
            static_cast<long long>(plan.slices), plan.units.c_str(), plan.maxQuantisationError,
            plan.units.c_str());
      printJson(global, summary);
      return kExitOk;
    }
    ProgressBar bar(progressWanted(global.progress, global.quiet));
    JobContext context(interruptToken(), &bar);
    DicomExportResult result;
    try {
      result = exportDicom(volume, outDir_, options_, context, force_);
    } catch (const IoError& e) {
      if (force_ || std::string_view(e.what()).find("not empty") == std::string_view::npos) throw;
      throw IoError(outDir_,
                    "exists and is not empty: choose a new or empty folder, or pass "
                    "--force to replace it once the new series is complete");
    }
    bar.finish();
    summary["maxQuantisationError"] = result.plan.maxQuantisationError;
    summary["bytes"] = result.bytesWritten;
    summary["seconds"] = result.seconds;
    summary["studyInstanceUid"] = result.studyInstanceUid;
    summary["seriesInstanceUid"] = result.seriesInstanceUid;
    summary["frameOfReferenceUid"] = result.frameOfReferenceUid;
    if (text) {
      std::printf("wrote        %s: %zu %s file%s, %s, %s\n", result.folder.string().c_str(),
                  result.files.size(), describeType().c_str(), result.files.size() == 1 ? "" : "s",
                  formatBytes(result.bytesWritten).c_str(), formatSeconds(result.seconds).c_str());
      if (plan.sliceRescaleSlopes.empty())
        std::printf("values       %s = stored x %s + %s (int16), max quantisation error %.4g %s\n",
                    plan.units.c_str(), formatDecimalString(plan.rescaleSlope).c_str(),
                    formatDecimalString(plan.rescaleIntercept).c_str(),
                    result.plan.maxQuantisationError, plan.units.c_str());
      else
        std::printf(
            "values       %s = stored x slope + 0 (int16; a slope per slice, %s to %s), max "
            "quantisation error %.4g %s\n",
            plan.units.c_str(),
            formatDecimalString(
                *std::min_element(plan.sliceRescaleSlopes.begin(), plan.sliceRescaleSlopes.end()))
                .c_str(),
            formatDecimalString(plan.rescaleSlope).c_str(), result.plan.maxQuantisationError,
            plan.units.c_str());
      if (options_.type == DicomObjectType::PetImage) printPet(plan);
      std::printf("geometry     %lld x %lld x %lld voxels, patient position %s (%s)\n",
                  static_cast<long long>(plan.columns), static_cast<long long>(plan.rows),
                  static_cast<long long>(plan.slices), toString(options_.patientPosition).c_str(),
                  describe(options_.patientPosition).c_str());
      std::printf("study        %s\nseries       %s\n", result.studyInstanceUid.c_str(),
                  result.seriesInstanceUid.c_str());
      if (!options_.provenance.algorithm.empty())
        std::printf(
            "provenance   %s %s%s\n", options_.provenance.algorithm.c_str(),
            options_.provenance.variant.c_str(),
            options_.provenance.geometryHash.empty()
                ? ""
                : (", geometry sha256 " + options_.provenance.geometryHash.substr(0, 16) + "...")
                      .c_str());
    }
    printJson(global, summary);
    return kExitOk;
  }

 private:
  std::string describeType() const {
    switch (options_.type) {
      case DicomObjectType::CtImage:
        return "CT Image";
      case DicomObjectType::EnhancedCtImage:
        return "Enhanced CT Image";
      case DicomObjectType::PetImage:
        return "PET Image";
    }
    return "";
  }

  void fillProvenance() {
    DicomProvenance given = options_.provenance;
    DicomProvenance& p = options_.provenance;
    fs::path summary = provenanceFile_, geometry = geometryFile_;
    fs::path besideGeometry;
    if (summary.empty() && findSummaryBeside(volume_, summary, besideGeometry) && geometry.empty())
      geometry = besideGeometry;
    if (!summary.empty()) provenanceFromSummary(readJsonFile(summary), p);
    if (!given.algorithm.empty()) p.algorithm = given.algorithm;
    if (!given.variant.empty()) p.variant = given.variant;
    if (given.iterations > 0) p.iterations = given.iterations;
    if (!geometry.empty()) {
      const std::string extension = geometry.extension().string();
      // A projections sidecar holds its geometry; a geometry JSON is one.
      try {
        p.geometryHash = geometryHashOf(geometry);
      } catch (const Error&) {
        p.geometryHash = sha256Hex(geometryToJson(io::readProjections(geometry).geometry()).dump());
      }
      p.acquisitionKey = "geometry:" + p.geometryHash;
    }
    if (p.sourceDescription.empty()) p.sourceDescription = volume_.filename().string();
  }

  // The PET Image attributes, one group in the help; used with --format pet only.
  void addPetOptions() {
    DicomPetAcquisition& pet = options_.pet;
    CLI::Option_group* g =
        sub_->add_option_group("PET", "PET Image attributes (with --format pet; docs/dicom.md)");
    const auto add = [&](CLI::Option* option) {
      petOptions_.push_back(option);
      return option;
    };
    add(g->add_flag("--activity-concentration", pet.activityConcentration,
                    "the values are activity concentrations in Bq/mL: Units BQML (needs "
                    "--frame-duration-s)"));
    add(g->add_option("--pet-units", options_.petUnits,
                      "PET Units (0054,1001): BQML, PROPCNTS, CNTS, ... (default: BQML with "
                      "--activity-concentration, else PROPCNTS)"));
    add(g->add_option("--radionuclide", pet.radionuclide,
                      "F-18, C-11, N-13, O-15, Ga-68 or Rb-82: its code, half-life and positron "
                      "fraction")
            ->capture_default_str());
    add(g->add_option("--half-life-s", halfLifeS_,
                      "override the radionuclide's half-life (s; F-18: 6586.2)")
            ->check(finiteNumber()));
    add(g->add_option("--positron-fraction", positronFraction_,
                      "override the radionuclide's positron fraction (F-18: 0.967)")
            ->check(finiteNumber()));
    add(g->add_option("--radiopharmaceutical", pet.radiopharmaceutical, "free text")
            ->capture_default_str());
    add(g->add_option("--dose-bq", pet.totalDoseBq,
                      "Radionuclide Total Dose: the injected activity in Bq (e.g. 3.5e8)")
            ->check(finiteNumber()));
    add(g->add_option("--injection-time", pet.injectionDateTime,
                      "Radiopharmaceutical Start DateTime: YYYY-MM-DDTHH:MM:SS or "
                      "YYYYMMDDHHMMSS (local time)"));
    add(g->add_option("--acquisition-time", pet.acquisitionDateTime,
                      "the scan's start (Series and Acquisition Date/Time; default: now)"));
    add(g->add_option("--decay-correction", decayCorrection_,
                      "none, start (to the scan's start) or admin (to the injection)")
            ->capture_default_str());
    add(g->add_option("--decay-factor", decayFactor_,
                      "the Decay Factor applied (default: computed from the half-life and times)")
            ->check(finiteNumber()));
    add(g->add_option("--frame-duration-s", frameDurationS_,
                      "Actual Frame Duration: the acquisition's length in seconds")
            ->check(finiteNumber()));
    add(g->add_option("--frame-reference-time-ms", frameReferenceTimeMs_,
                      "default: the frame's activity-weighted time (PS3.3 C.8.9.4.1.5)")
            ->check(finiteNumber()));
    add(g->add_option("--patient-weight-kg", pet.patientWeightKg, "Patient's Weight, for SUV")
            ->check(finiteNumber()));
    add(g->add_option("--corrected-image", correctedImage_,
                      "corrections applied, comma-separated: NORM,ATTN,SCAT,RAN,DTIM,... (DECY "
                      "follows --decay-correction)"));
    add(g->add_option("--reconstruction-method", pet.reconstructionMethod,
                      "free text, e.g. 'DIRECT-RAMLA 10it' (default: algorithm, variant, "
                      "iterations)"));
  }

  void fillPetOptions() {
    if (options_.type != DicomObjectType::PetImage) {
      for (const CLI::Option* option : petOptions_)
        if (option->count() > 0)
          throw ParameterError(option->get_name(), "applies to --format pet only");
      return;
    }
    DicomPetAcquisition& pet = options_.pet;
    pet.decayCorrection = parseDecayCorrection(decayCorrection_, "--decay-correction");
    if (halfLifeS_) pet.halfLifeS = *halfLifeS_;
    if (positronFraction_) pet.positronFraction = *positronFraction_;
    if (decayFactor_) pet.decayFactor = *decayFactor_;
    if (frameReferenceTimeMs_) pet.frameReferenceTimeMs = *frameReferenceTimeMs_;
    if (frameDurationS_) {
      if (!(std::abs(*frameDurationS_) < 2.1e6))
        throw ParameterError("--frame-duration-s", "must be 0 to 2147483 s");
      pet.actualFrameDurationMs = std::llround(*frameDurationS_ * 1000.0);
    }
    pet.correctedImage.clear();
    std::string term;
    for (const char c : correctedImage_ + ",") {
      if (c == ',' || c == '\\') {
        if (!term.empty()) pet.correctedImage.push_back(term);
        term.clear();
      } else if (c != ' ') {
        term += c;
      }
    }
  }

  nlohmann::json petSummary(const DicomExportPlan& plan) const {
    const DicomPetAcquisition& pet = options_.pet;
    nlohmann::json j{{"units", plan.units},
                     {"radionuclide", pet.radionuclide},
                     {"decayCorrection", toString(pet.decayCorrection)},
                     {"frameReferenceTimeMs", plan.petFrameReferenceTimeMs},
                     {"actualFrameDurationMs", pet.actualFrameDurationMs},
                     {"sliceRescaleSlopes", plan.sliceRescaleSlopes}};
    if (plan.petDecayFactor) j["decayFactor"] = *plan.petDecayFactor;
    if (pet.totalDoseBq > 0) j["totalDoseBq"] = pet.totalDoseBq;
    if (pet.patientWeightKg > 0) j["patientWeightKg"] = pet.patientWeightKg;
    if (!pet.injectionDateTime.empty())
      j["injectionDateTime"] = normaliseDateTime(pet.injectionDateTime, "--injection-time");
    return j;
  }

  void printPet(const DicomExportPlan& plan) const {
    const DicomPetAcquisition& pet = options_.pet;
    std::string line = pet.radionuclide;
    if (!pet.radiopharmaceutical.empty()) line += " " + pet.radiopharmaceutical;
    if (pet.totalDoseBq > 0) line += ", " + formatDecimalString(pet.totalDoseBq / 1e6) + " MBq";
    if (!pet.injectionDateTime.empty())
      line += " at " + normaliseDateTime(pet.injectionDateTime, "--injection-time");
    line += "; frame " +
            formatDecimalString(static_cast<double>(pet.actualFrameDurationMs) / 1000) + " s";
    line += ", decay " + toString(pet.decayCorrection);
    if (plan.petDecayFactor) line += " (factor " + formatDecimalString(*plan.petDecayFactor) + ")";
    if (pet.patientWeightKg > 0) line += "; " + formatDecimalString(pet.patientWeightKg) + " kg";
    std::printf("pet          %s\n", line.c_str());
  }

  CLI::App* sub_ = nullptr;
  std::vector<CLI::Option*> petOptions_;
  std::string decayCorrection_ = "none", correctedImage_;
  std::optional<double> halfLifeS_, positronFraction_, decayFactor_, frameReferenceTimeMs_,
      frameDurationS_;
  fs::path volume_, outDir_, provenanceFile_, geometryFile_;
  std::string format_ = "ct", compression_ = "none", units_ = "hu", position_ = "HFS";
  std::string slices_, cropX_, cropY_;
  bool force_ = false, dryRun_ = false;
  DicomExportOptions options_;
};

class ImportDicomCommand : public Command {
 public:
  explicit ImportDicomCommand(CLI::App& importApp) {
    sub_ = importApp.add_subcommand(
        "dicom",
        "a DICOM CT, Enhanced CT or PET series (a folder or one file) to a volume file; "
        "slices sorted by position");
    sub_->add_option("input", input_, "the series' folder or one DICOM file")->required();
    sub_->add_option("output", output_, "the volume file (.mhd, .json, .mrc, .tif, .npy)");
    sub_->add_option("--series", read_.seriesInstanceUid,
                     "the Series Instance UID when the folder holds several");
    sub_->add_option("--water-mu", water_,
                     "turn HU into attenuation (1/mm) with this water "
                     "value (default: the series' own, if written by us)")
        ->check(finitePositiveNumber());
    sub_->add_flag("--keep-hu", read_.keepHounsfield, "never turn HU into attenuation");
    sub_->add_flag("--list", list_, "list the series in the folder, write nothing");
  }
  CLI::App* subcommand() const override { return sub_; }

  int run(const GlobalOptions& global) override {
    const bool text = !global.quiet && !global.json;
    if (list_ || output_.empty()) {
      nlohmann::json all = nlohmann::json::array();
      for (const DicomSeriesInfo& s : listDicomSeries(input_)) {
        if (text)
          std::printf("%s  %s  %lld images of %lld x %lld  series %lld '%s'  patient '%s'\n",
                      s.seriesInstanceUid.c_str(), s.sopClass.c_str(),
                      static_cast<long long>(s.frames), static_cast<long long>(s.columns),
                      static_cast<long long>(s.rows), static_cast<long long>(s.seriesNumber),
                      s.seriesDescription.c_str(), s.patientName.c_str());
        all.push_back({{"seriesInstanceUid", s.seriesInstanceUid},
                       {"sopClass", s.sopClass},
                       {"modality", s.modality},
                       {"description", s.seriesDescription},
                       {"images", s.frames},
                       {"files", s.files},
                       {"columns", s.columns},
                       {"rows", s.rows}});
      }
      printJson(global, {{"command", "import dicom"}, {"series", all}});
      return kExitOk;
    }
    io::OutputSet files(&interruptToken());
    files.addInput(input_, "IN", "DICOM", false);
    files.addOutput(output_, "OUT");
    files.check();
    if (water_ > 0) read_.waterAttenuationPerMm = water_;
    ProgressBar bar(progressWanted(global.progress, global.quiet));
    JobContext context(interruptToken(), &bar);
    const DicomVolume v = readDicomSeries(input_, read_, context);
    io::writeVolume(files.staged(output_), v.volume);
    files.commit();
    bar.finish();
    for (const std::string& w : v.warnings) std::fprintf(stderr, "warning: %s\n", w.c_str());
    const Volume& vol = v.volume;
    if (text) {
      std::printf(
          "read         %s: %s, %lld x %lld x %lld voxels of %.4g x %.4g x %.4g mm, "
          "values in %s\n",
          input_.string().c_str(), v.series.sopClass.c_str(), static_cast<long long>(vol.nx()),
          static_cast<long long>(vol.ny()), static_cast<long long>(vol.nz()), vol.voxelSizeMm().x(),
          vol.voxelSizeMm().y(), vol.voxelSizeMm().z(), v.units.c_str());
      std::printf("origin       (%.6g, %.6g, %.6g) mm, patient position %s%s\n", vol.originMm().x(),
                  vol.originMm().y(), vol.originMm().z(), toString(v.patientPosition).c_str(),
                  v.oblique ? " (oblique: own grid)" : "");
      if (v.provenance)
        std::printf("provenance   Tomo Workbench: %s %s\n", v.provenance->algorithm.c_str(),
                    v.provenance->variant.c_str());
      if (v.pet) printPet(*v.pet);
      std::printf("wrote        %s\n", output_.string().c_str());
    }
    nlohmann::json summary{
        {"command", "import dicom"},
        {"input", input_.string()},
        {"output", output_.string()},
        {"series", v.series.seriesInstanceUid},
        {"units", v.units},
        {"shape", {vol.nx(), vol.ny(), vol.nz()}},
        {"voxelSizeMm", {vol.voxelSizeMm().x(), vol.voxelSizeMm().y(), vol.voxelSizeMm().z()}},
        {"originMm", {vol.originMm().x(), vol.originMm().y(), vol.originMm().z()}},
        {"oblique", v.oblique},
        {"warnings", v.warnings}};
    if (v.pet) summary["pet"] = petJson(*v.pet);
    printJson(global, summary);
    return kExitOk;
  }

 private:
  // What a PET series says about its acquisition, as read.
  static nlohmann::json petJson(const DicomPetAcquisition& pet) {
    nlohmann::json j{{"radionuclide", pet.radionuclide},
                     {"radiopharmaceutical", pet.radiopharmaceutical},
                     {"totalDoseBq", pet.totalDoseBq},
                     {"injectionDateTime", pet.injectionDateTime},
                     {"acquisitionDateTime", pet.acquisitionDateTime},
                     {"decayCorrection", toString(pet.decayCorrection)},
                     {"actualFrameDurationMs", pet.actualFrameDurationMs},
                     {"patientWeightKg", pet.patientWeightKg},
                     {"correctedImage", pet.correctedImage},
                     {"reconstructionMethod", pet.reconstructionMethod}};
    if (pet.halfLifeS) j["halfLifeS"] = *pet.halfLifeS;
    if (pet.decayFactor) j["decayFactor"] = *pet.decayFactor;
    if (pet.frameReferenceTimeMs) j["frameReferenceTimeMs"] = *pet.frameReferenceTimeMs;
    return j;
  }
  static void printPet(const DicomPetAcquisition& pet) {
    std::string corrections;
    for (const std::string& c : pet.correctedImage)
      corrections += (corrections.empty() ? "" : ",") + c;
    std::printf(
        "pet          %s %s, dose %s Bq, injected %s, scan %s, frame %lld ms, decay %s%s, "
        "weight %s kg, corrected %s\n",
        pet.radionuclide.empty() ? "(no radionuclide)" : pet.radionuclide.c_str(),
        pet.radiopharmaceutical.c_str(),
        pet.totalDoseBq > 0 ? formatDecimalString(pet.totalDoseBq).c_str() : "?",
        pet.injectionDateTime.empty() ? "?" : pet.injectionDateTime.c_str(),
        pet.acquisitionDateTime.empty() ? "?" : pet.acquisitionDateTime.c_str(),
        static_cast<long long>(pet.actualFrameDurationMs), toString(pet.decayCorrection).c_str(),
        pet.decayFactor ? (" x" + formatDecimalString(*pet.decayFactor)).c_str() : "",
        pet.patientWeightKg > 0 ? formatDecimalString(pet.patientWeightKg).c_str() : "?",
        corrections.empty() ? "-" : corrections.c_str());
  }

  CLI::App* sub_ = nullptr;
  fs::path input_, output_;
  DicomReadOptions read_;
  double water_ = 0;
  bool list_ = false;
};

#else

// Without DCMTK: the commands exist and say why they cannot run.
class NoDicomCommand : public Command {
 public:
  NoDicomCommand(CLI::App& parent, const char* what) {
    sub_ = parent.add_subcommand("dicom", what);
    sub_->allow_extras();
  }
  CLI::App* subcommand() const override { return sub_; }
  int run(const GlobalOptions&) override {
    throw ParameterError("dicom",
                         "this build has no DICOM support (DCMTK was not found when it "
                         "was configured; scripts/setup.sh installs libdcmtk-dev)");
  }

 private:
  CLI::App* sub_ = nullptr;
};

#endif

}  // namespace

std::vector<std::unique_ptr<Command>> makeDicomCommands(CLI::App& app) {
  CLI::App* exportApp = app.add_subcommand("export", "write a volume in another standard format");
  exportApp->require_subcommand(1);
  CLI::App* importApp = app.add_subcommand("import", "read a volume from another standard format");
  importApp->require_subcommand(1);
  std::vector<std::unique_ptr<Command>> commands;
#ifdef TOMOWB_HAVE_DICOM
  commands.push_back(std::make_unique<ExportDicomCommand>(*exportApp));
  commands.push_back(std::make_unique<ImportDicomCommand>(*importApp));
#else
  commands.push_back(std::make_unique<NoDicomCommand>(*exportApp, "a volume as a DICOM series"));
  commands.push_back(std::make_unique<NoDicomCommand>(*importApp, "a DICOM series to a volume"));
#endif
  for (auto& command : makeDicomNetworkCommands(app)) commands.push_back(std::move(command));
  return commands;
}

}  // namespace tomowb::cli
