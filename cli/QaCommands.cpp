// The QA commands (issue #9; docs/qa.md):
//   compare A B       metrics of A against B, pass / fail for A's variant class where the run
//                     records show the same reconstruction on another variant or device (else
//                     "informative"), a report
//   sweep             every registered variant of FDK or SIRT on one input: time, accuracy
//                     against the CPU float64 reference, determinism, adjoint; a report with the
//                     Pareto chart
//   rerun RECORD      repeat a recorded run and say whether it matches bit for bit or within the
//                     variant's tolerance
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <numbers>
#include <optional>

#include "CliSupport.h"
#include "Commands.h"
#include "ProjectionInput.h"
#include "RegionSpec.h"
#include "RunRecords.h"
#include "recon/catalog/AlgorithmCatalog.h"
#include "recon/catalog/AlgorithmSweep.h"
#include "recon/core/Error.h"
#include "recon/geometry/ScanBuilders.h"
#include "recon/io/InputFile.h"
#include "recon/io/JsonFields.h"
#include "recon/io/MrcIo.h"
#include "recon/io/OutputSet.h"
#include "recon/io/Sha256.h"
#include "recon/io/VolumeFiles.h"
#include "recon/phantom/AnalyticProjector.h"
#include "recon/phantom/Phantom.h"
#include "recon/qa/QaReport.h"
#include "recon/qa/RunComparability.h"
#include "recon/qa/RunComparison.h"
#include "recon/qa/RunRecord.h"
#include "recon/qa/VariantSweep.h"
#include "recon/variant/VariantRegistry.h"

namespace tomowb::cli {
namespace {

namespace fs = std::filesystem;

// A check (compare, sweep verdicts, rerun) did not pass.
constexpr int kExitCheckFailed = 4;

qa::ToleranceTable loadTolerances(const std::string& file) {
  if (file.empty()) return {};
  // InputFile refuses a pipe or device by name (a FIFO would block forever); parseJsonText caps
  // nesting and refuses duplicate keys.
  const std::string text = io::InputFile(file).readAll(std::uint64_t{1} << 20, "tolerance table");
  const nlohmann::json j = io::parseJsonText(text, file);
  try {
    return qa::ToleranceTable::fromJson(j);
  } catch (const nlohmann::json::exception& e) {
    throw FormatError(file, std::string("not a tolerance table: ") + e.what());
  }
}

// A report folder must not hold the files the command reads (with --force it is replaced as a
// whole), and without --force it must be new or empty: checked before any work.
void checkReportFolder(const std::string& report, bool force,
                       const std::vector<std::pair<std::string, std::string>>& inputs) {
  if (report.empty()) return;
  io::OutputSet files;
  for (const auto& [path, option] : inputs) files.addInput(path, option);
  if (force)
    files.addReplacedFolder(report, "--report (--force)");
  else
    files.addOutput(report + "/", "--report");
  files.check();
}

std::optional<qa::AccuracyClass> classOfVariant(const std::string& variant) {
  if (const KernelVariant* v = VariantRegistry::builtins().find(variant)) return v->accuracyClass;
  return std::nullopt;
}

// The class a recorded run promises: its variant's, for a projector pair the looser of the two.
std::optional<qa::AccuracyClass> classOfRecord(const qa::RunRecord& r) {
  std::optional<qa::AccuracyClass> c = classOfVariant(r.variant);
  if (const auto f = classOfVariant(r.forwardVariant)) c = c ? std::max(*c, *f) : f;
  return c;
}

// The run record of a volume: "NAME.run.json" beside it, else the "run.json" of its folder when
// that record lists the volume among its outputs (the demo's folder).
std::optional<qa::RunRecord> findRunRecord(const fs::path& volume) {
  std::error_code ec;
  const fs::path beside = qa::runRecordPathFor(volume);
  if (fs::exists(beside, ec)) return qa::readRunRecord(beside);
  const fs::path folder = volume.parent_path().empty() ? fs::path(".") : volume.parent_path();
  const fs::path shared = folder / "run.json";
  if (!fs::exists(shared, ec)) return std::nullopt;
  qa::RunRecord r = qa::readRunRecord(shared);
  for (const qa::RecordedFile& f : r.outputs)
    if (fs::path(f.path).filename() == volume.filename()) return r;
  return std::nullopt;
}

void printComparison(const qa::RunComparison& c) {
  const auto& m = c.metrics;
  std::printf("max-abs      %.4g (%.3g of the reference's range)\n", m.maxAbsDifference,
              c.maxAbsRelative);
  std::printf("NRMSE        %.4g   RMSE %.4g   PSNR %.2f dB   SSIM %s   mean bias %.4g\n", m.nrmse,
              m.rmse, m.psnrDb, m.ssim ? std::to_string(*m.ssim).c_str() : "-", m.meanDifference);
  for (const auto& r : c.cnr)
    std::printf("CNR %-8s %.4g (A)  %.4g (B)\n", r.name.c_str(), r.cnrTest, r.cnrReference);
  if (c.passed || !c.informative.empty()) std::printf("verdict      %s\n", c.verdict.c_str());
}

class CompareCommand : public Command {
 public:
  explicit CompareCommand(CLI::App& app) {
    sub_ = app.add_subcommand("compare",
                              "volume A against volume B: max-abs, NRMSE, PSNR, SSIM, bias, CNR, "
                              "pass/fail for A's variant class when the run records show the "
                              "same reconstruction on another variant or device (else "
                              "'informative'), and a report");
    sub_->add_option("a", a_, "the volume under test")->required()->check(CLI::ExistingPath);
    sub_->add_option("b", b_, "the reference (e.g. the CPU float64 run)")
        ->required()
        ->check(CLI::ExistingPath);
    sub_->add_option("--class", class_,
                     "A's accuracy class: exact, hardware-interpolation, half-precision (default: "
                     "from --variant, or from A's run record)");
    sub_->add_option("--variant", variant_, "A's kernel variant (its class sets the tolerance)");
    sub_->add_option("--tolerances", tolerancesFile_, "JSON with per-class limits (docs/qa.md)");
    sub_->add_flag("--comparable", comparable_,
                   "A and B are the same reconstruction on another kernel variant or device: "
                   "judge them even without run records (records that show a difference still "
                   "win)");
    sub_->add_option("--region", region_, kRegionHelp);
    sub_->add_option("--roi", rois_, "ROI for CNR (repeatable, with --background)");
    sub_->add_option("--background", backgrounds_, "background of each --roi");
    sub_->add_flag("--no-ssim", noSsim_, "skip SSIM");
    sub_->add_option("--report", report_, "write a report folder (report.md and pictures)");
    sub_->add_flag("--html", html_, "report.html instead of report.md");
    sub_->add_flag("--force", force_, "replace the report folder");
    sub_->add_option("--slice", slice_, "z slice for the report's pictures (default: middle)");
  }
  CLI::App* subcommand() const override { return sub_; }

  int run(const GlobalOptions& global) override {
    checkReportFolder(report_, force_, {{a_, "A"}, {b_, "B"}, {tolerancesFile_, "--tolerances"}});
    const Volume a = io::readVolume(a_);
    // Never clamp a slice the user named (D25): outside the volume is an error.
    if (slice_ != -1 && (slice_ < 0 || slice_ >= a.shape().nz))
      throw ParameterError("--slice", "must be a z slice of " + a_ + ", 0 to " +
                                          std::to_string(a.shape().nz - 1) + ", got " +
                                          std::to_string(slice_));
    const Volume b = io::readVolume(b_);
    qa::CompareSpec spec;
    spec.tolerances = loadTolerances(tolerancesFile_);
    spec.computeSsim = !noSsim_;
    if (!region_.empty()) spec.region = parseRegions(region_);
    if (rois_.size() != backgrounds_.size())
      throw ParameterError("--roi", "give one --background per --roi");
    for (std::size_t i = 0; i < rois_.size(); ++i)
      spec.rois.push_back(
          {"roi" + std::to_string(i + 1), parseRegion(rois_[i]), parseRegion(backgrounds_[i])});
    // The records say whether a class applies: same algorithm, parameters, input and geometry.
    const std::optional<qa::RunRecord> recordA = findRunRecord(a_), recordB = findRunRecord(b_);
    qa::ComparabilityCheck check;
    if (!recordA)
      check = qa::cannotTell("no run record for A (" + qa::runRecordPathFor(a_).string() + ")");
    else if (!recordB)
      check = qa::cannotTell("no run record for B (" + qa::runRecordPathFor(b_).string() + ")");
    else
      check = qa::checkComparability(*recordA, *recordB);
    if (comparable_ && check.kind == qa::Comparability::Unknown)
      check = {qa::Comparability::Comparable, {}};
    std::string variant = variant_;
    if (variant.empty() && recordA) variant = recordA->variant;
    if (!class_.empty()) {
      spec.accuracyClass = qa::accuracyClassFromString(class_);
      if (!spec.accuracyClass)
        throw ParameterError(
            "--class", "exact, hardware-interpolation or half-precision, got '" + class_ + "'");
    } else if (!variant_.empty()) {
      spec.accuracyClass = classOfVariant(variant_);
    } else if (recordA) {
      spec.accuracyClass = classOfRecord(*recordA);
    }
    spec.informative = qa::informativeReason(check);
    if (spec.informative.empty() && !spec.accuracyClass)
      spec.informative = "no accuracy class: give --class or --variant";
    const qa::RunComparison c = qa::compareRuns(a, b, spec);
    nlohmann::json summary{
        {"command", "compare"}, {"a", a_}, {"b", b_}, {"comparison", qa::toJson(c)}};
    if (!variant.empty()) summary["variant"] = variant;
    if (!report_.empty()) {
      qa::CompareReportInput in;
      in.labelA = variant.empty() ? fs::path(a_).filename().string() : variant;
      in.labelB = fs::path(b_).filename().string();
      in.pathA = a_;
      in.pathB = b_;
      in.a = &a;
      in.b = &b;
      in.comparison = c;
      in.slice = slice_;
      const fs::path written = qa::writeCompareReport(
          report_, in, html_ ? qa::ReportFormat::Html : qa::ReportFormat::Markdown, force_);
      summary["report"] = written.string();
      if (!global.quiet && !global.json) std::printf("report       %s\n", written.string().c_str());
    }
    if (!global.quiet && !global.json) printComparison(c);
    printJson(global, summary);
    return c.passed.value_or(true) ? kExitOk : kExitCheckFailed;
  }

 private:
  CLI::App* sub_ = nullptr;
  std::string a_, b_, class_, variant_, tolerancesFile_, report_;
  std::vector<std::string> region_, rois_, backgrounds_;
  bool noSsim_ = false, html_ = false, force_ = false, comparable_ = false;
  std::int64_t slice_ = -1;
};

class SweepCommand : public Command {
 public:
  explicit SweepCommand(CLI::App& app) {
    sub_ = app.add_subcommand(
        "sweep",
        "every registered variant of an algorithm on one input: median time (warm-up excluded), "
        "accuracy against the CPU float64 reference, determinism, adjoint; a report with the "
        "accuracy-against-speed chart");
    std::vector<std::string> sweepable;
    for (const catalog::AlgorithmDescriptor& d : catalog::AlgorithmCatalog::builtins().all())
      if (catalog::whyNotSweepable(d).empty()) sweepable.push_back(d.id);
    sub_->add_option("--algorithm", algorithm_,
                     "an algorithm of the catalogue that runs on kernel variants")
        ->check(CLI::IsMember(sweepable))
        ->capture_default_str();
    sub_->add_option("-i,--in", in_, "projections (default: the demo phantom's, see --size)");
    input_.addTo(*sub_);
    sub_->add_option("--size", size_, "demo: FDK volume edge / ET detector width (voxels)")
        ->capture_default_str();
    sub_->add_option("--views", views_, "demo: FDK views over 360 degrees")->capture_default_str();
    sub_->add_option("--thickness", thickness_, "SIRT: tomogram thickness (voxels)")
        ->capture_default_str();
    sub_->add_option("--iterations", iterations_, "SIRT iterations per run")->capture_default_str();
    sub_->add_option("--device", device_, "cpu, gpu or all")
        ->check(CLI::IsMember({"cpu", "gpu", "all"}))
        ->capture_default_str();
    sub_->add_option("--repeats", options_.repeats, "timed runs per variant")
        ->capture_default_str();
    sub_->add_option("--warmups", options_.warmups, "untimed runs first")->capture_default_str();
    sub_->add_option("--only", options_.only, "variant names or prefixes to keep");
    sub_->add_option("--tolerances", tolerancesFile_, "JSON with per-class limits");
    sub_->add_flag("--no-ssim", noSsim_, "skip SSIM");
    sub_->add_flag("--no-adjoint", noAdjoint_, "SIRT: skip the dot-product tests");
    sub_->add_option("--report", report_,
                     "write a report folder (report.md, Pareto chart, slices)");
    sub_->add_flag("--html", html_, "report.html instead of report.md");
    sub_->add_flag("--force", force_, "replace the report folder");
  }
  CLI::App* subcommand() const override { return sub_; }

  // -i in any format, with --geometry (ProjectionInput.h); warnings on stderr.
  ProjectionStack loadInput() const {
    std::vector<std::string> warnings;
    ProjectionStack p = std::move(input_.load(in_, input_.attachment(), warnings).projections);
    for (const std::string& w : warnings) std::fprintf(stderr, "warning: %s\n", w.c_str());
    return p;
  }

  int run(const GlobalOptions& global) override {
    options_.cpu = device_ != "gpu";
    options_.gpu = device_ != "cpu";
    options_.computeSsim = !noSsim_;
    options_.adjointTests = !noAdjoint_;
    checkReportFolder(report_, force_, {{in_, "-i"}, {tolerancesFile_, "--tolerances"}});
    options_.tolerances = loadTolerances(tolerancesFile_);
    ProgressBar bar(progressWanted(global.progress, global.quiet));
    JobContext context(interruptToken(), &bar);
    qa::SweepResult result;
    std::string input = in_;
    const catalog::AlgorithmDescriptor& algorithm =
        catalog::AlgorithmCatalog::builtins().require(algorithm_, "--algorithm");
    nlohmann::json parameters = algorithm.defaults();
    if (algorithm.gridPolicy != catalog::GridPolicy::Tomogram) {
      ProjectionStack projections;
      fdk::FdkParams params;
      if (in_.empty()) {
        GeometryOptions scan;
        scan.cols = size_;
        scan.rows = std::int64_t(std::ceil(double(size_) * 300.0 / 256.0));
        scan.views = views_;
        scan.pitchMm = 2.0 * 204.8 / double(size_);
        projections = phantom::projectPhantom(phantom::modifiedSheppLogan3d(100.0), scan.build(),
                                              {}, &context);
        params.volume = fdk::VolumeGrid::centred({size_, size_, size_},
                                                 Eigen::Vector3d::Constant(204.8 / size_));
        input = "demo: modified Shepp-Logan, " + std::to_string(size_) + "^3, " +
                std::to_string(views_) + " views";
      } else {
        projections = loadInput();
        params.volume = GridOptions{}.build(projections.geometry());
      }
      parameters["volume"] = catalog::gridToJson(params.volume);
      result = catalog::sweepAlgorithm(algorithm, projections, parameters, options_, context);
    } else {
      ProjectionStack projections;
      if (in_.empty()) {
        const double pixelMm = 1e-6;
        TiltSeriesParams scan;
        scan.cols = size_;
        scan.rows = std::max<std::int64_t>(8, size_ / 4);
        scan.pixelSizeMm = pixelMm;
        scan.tiltAnglesRad =
            arcAnglesRad(61, 120.0 * std::numbers::pi / 180, -60.0 * std::numbers::pi / 180);
        const auto specimen = phantom::etSpecimenPhantom(
            0.9 * size_ * pixelMm, 0.8 * thickness_ * pixelMm, scan.rows * pixelMm);
        projections = phantom::projectPhantom(specimen, tiltSeries(scan), {}, &context);
        input = "demo: ET specimen, " + std::to_string(size_) + " x " + std::to_string(scan.rows) +
                " pixels, 61 views over +-60 degrees";
      } else {
        projections = loadInput();
      }
      parameters["volume"] =
          catalog::gridToJson(iterative::tomogramGrid(projections.geometry(), thickness_));
      if (algorithm.parameter("iterations") != nullptr) parameters["iterations"] = iterations_;
      if (algorithm.parameter("lowerBound") != nullptr) parameters["lowerBound"] = 0.0;
      result = catalog::sweepAlgorithm(algorithm, projections, parameters, options_, context);
      input += ", " + algorithm.label + " " + std::to_string(iterations_) + " iterations";
    }
    bar.finish();
    result.input = input;
    nlohmann::json summary = qa::toJson(result);
    summary["command"] = "sweep";
    if (!report_.empty()) {
      const fs::path written = qa::writeSweepReport(
          report_, result, html_ ? qa::ReportFormat::Html : qa::ReportFormat::Markdown, force_);
      summary["report"] = written.string();
      if (!global.quiet && !global.json) std::printf("report       %s\n", written.string().c_str());
    }
    bool allPass = true;
    if (!global.quiet && !global.json) {
      std::printf("%s sweep on %s; reference %s, kernel time %.4g s\n", result.algorithm.c_str(),
                  input.c_str(), result.reference.c_str(), result.referenceSeconds);
      std::printf("%-36s %-22s %10s %10s %8s %10s %10s %-9s %s\n", "variant", "class", "kernel s",
                  "wall s", "GUPS", "NRMSE", "maxabs/rng", "verdict", "determinism");
    }
    for (const qa::SweepRow& r : result.rows) {
      if (r.ran && r.comparison && !r.comparison->passed.value_or(true)) allPass = false;
      if (global.quiet || global.json) continue;
      if (!r.ran) {
        std::printf("%-36s %-22s %s\n", r.label.c_str(), qa::toString(r.accuracyClass).c_str(),
                    qa::rowVerdict(r).c_str());
        continue;
      }
      std::printf(
          "%-36s %-22s %10.4g %10.4g %8.4g %10.3g %10.3g %-9s %s%s\n",
          (r.label + (r.onParetoFront ? " *" : "")).c_str(), qa::toString(r.accuracyClass).c_str(),
          r.medianSeconds, r.medianTotalSeconds, r.gups, r.comparison->metrics.nrmse,
          r.comparison->maxAbsRelative, qa::rowVerdict(r).c_str(), r.determinism.summary().c_str(),
          r.adjoint ? (", adjoint " + std::to_string(r.adjoint->relativeError)).c_str() : "");
    }
    printJson(global, summary);
    return allPass ? kExitOk : kExitCheckFailed;
  }

 private:
  CLI::App* sub_ = nullptr;
  std::string algorithm_ = "fdk", in_, device_ = "all", tolerancesFile_, report_;
  ProjectionInputOptions input_;
  std::int64_t size_ = 64, views_ = 120, thickness_ = 32;
  int iterations_ = 10;
  bool noSsim_ = false, noAdjoint_ = false, html_ = false, force_ = false;
  qa::SweepOptions options_;
};

// Runs argv (argv[0] is this program) in `workingDirectory`; returns its exit status. A
// SIGINT/SIGTERM to this process (waitpid returns EINTR: the handlers do not restart calls) is
// passed on to the child, whose own handler cancels it; then Cancelled is thrown.
int runProgram(const std::vector<std::string>& argv, const std::string& workingDirectory) {
  // Built before the fork: between fork and exec the child makes async-signal-safe calls only.
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  const pid_t pid = ::fork();
  if (pid < 0) throw Error("rerun: cannot start a process");
  if (pid == 0) {
    if (!workingDirectory.empty() && ::chdir(workingDirectory.c_str()) != 0) _exit(127);
    ::execv("/proc/self/exe", args.data());
    _exit(127);
  }
  int status = 0;
  bool forwarded = false;
  while (::waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) throw Error("rerun: lost the process");
    if (interruptToken().requested() && !forwarded) {
      ::kill(pid, SIGINT);
      forwarded = true;
    }
  }
  if (interruptToken().requested()) throw Cancelled();
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

// The options of the reconstruction commands that name files they write, and that they read.
const std::vector<std::string> kOutputOptions = {"-o", "--out", "--out-dir", "--telemetry",
                                                 "--residuals"};
const std::vector<std::string> kInputOptions = {
    "-i", "--in", "--mask", "--init", "--tilt-angles", "--xf", "--xtilt", "--geometry"};
const std::vector<std::string> kGlobalFlags = {"--json", "-q", "--quiet", "--progress",
                                               "--no-record"};

bool isOneOf(const std::string& token, const std::vector<std::string>& names) {
  return std::find(names.begin(), names.end(), token) != names.end();
}

// A temporary folder of our own (mkdtemp: new, private, never an existing folder or link),
// removed with everything in it when the rerun ends, however it ends.
class PrivateTemporaryFolder {
 public:
  PrivateTemporaryFolder() {
    std::string pattern = (fs::temp_directory_path() / "tomowb-rerun-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr)
      throw IoError(pattern,
                    std::string("cannot create a temporary folder: ") + std::strerror(errno));
    path_ = pattern;
  }
  ~PrivateTemporaryFolder() {
    std::error_code ignored;
    fs::remove_all(path_, ignored);
  }
  PrivateTemporaryFolder(const PrivateTemporaryFolder&) = delete;
  PrivateTemporaryFolder& operator=(const PrivateTemporaryFolder&) = delete;
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

// What a recorded command line does, checked for rerun: only a reconstruction (`recon fdk`,
// `recon sirt|os-sirt|sart|wbp` or `demo`), no --force, its outputs plain names to redirect
// (by option name, whatever the record's outputArguments say), and the files it reads.
struct RecordedCommand {
  std::string subcommand;                     // "recon sirt", "demo"
  std::vector<std::size_t> outputArguments;   // indices of output option values
  std::map<std::string, std::string> inputs;  // option -> value
};

RecordedCommand inspectRecordedCommand(const std::string& recordPath,
                                       const std::vector<std::string>& command) {
  const auto refuse = [&](const std::string& why) {
    throw FormatError(recordPath, "command", "rerun refuses this record: " + why);
  };
  RecordedCommand c;
  std::size_t i = 1;
  while (i < command.size() && isOneOf(command[i], kGlobalFlags)) ++i;
  if (i >= command.size()) refuse("it names no subcommand");
  if (command[i] == "demo") {
    c.subcommand = "demo";
    ++i;
  } else if (command[i] == "recon" && i + 1 < command.size() &&
             catalog::AlgorithmCatalog::builtins().find(command[i + 1]) != nullptr) {
    c.subcommand = "recon " + command[i + 1];
    i += 2;
  } else {
    refuse("'" + command[i] + "' is not a reconstruction; rerun repeats 'recon <algorithm>' (" +
           catalog::AlgorithmCatalog::builtins().idList() + ") and 'demo'");
  }
  for (; i < command.size(); ++i) {
    const std::string& token = command[i];
    if (token == "--force") refuse("it contains --force");
    const auto equals = token.find('=');
    if (token.rfind("--", 0) == 0 && equals != std::string::npos &&
        (isOneOf(token.substr(0, equals), kOutputOptions) ||
         isOneOf(token.substr(0, equals), kInputOptions)))
      refuse("'" + token + "': a file option joined to its value (records split them)");
    // "-oFILE", "-qo FILE": a short option with its value or other flags attached.
    if (token.size() > 2 && token[0] == '-' && token[1] != '-' &&
        std::isalpha(static_cast<unsigned char>(token[1])))
      refuse("'" + token + "': short options with attached values or flags are not repeated");
    if (isOneOf(token, kOutputOptions) || isOneOf(token, kInputOptions)) {
      if (i + 1 >= command.size()) refuse("'" + token + "' has no value");
      const std::string& value = command[i + 1];
      if (isOneOf(token, kOutputOptions)) {
        const fs::path p(value);
        const std::string name = fs::path(value).filename().string();
        if (value.empty() || name.empty() || name == "." || name == "..")
          refuse("the output '" + value + "' of " + token + " is not a file or folder name");
        for (const fs::path& part : p)
          if (part == "..") refuse("the output '" + value + "' of " + token + " contains '..'");
        c.outputArguments.push_back(i + 1);
      } else {
        c.inputs[token == "--in" ? "-i" : token] = value;
      }
      ++i;
    }
  }
  if (c.outputArguments.empty()) refuse("it writes no output that could be compared");
  return c;
}

class RerunCommand : public Command {
 public:
  explicit RerunCommand(CLI::App& app) {
    sub_ = app.add_subcommand("rerun",
                              "repeat a recorded reconstruction (NAME.run.json) and report whether "
                              "its output matches bit for bit, or within the variant's tolerance");
    sub_->add_option("record", record_, "the run record")->required()->check(CLI::ExistingFile);
    sub_->add_option("--keep", keep_,
                     "keep the new output in this folder (new or empty; default: a temporary "
                     "one, removed afterwards)");
    sub_->add_option("--tolerances", tolerancesFile_, "JSON with per-class limits");
  }
  CLI::App* subcommand() const override { return sub_; }

  int run(const GlobalOptions& global) override {
    const qa::RunRecord record = qa::readRunRecord(record_);
    if (record.command.size() < 2)
      throw FormatError(record_, "command", "the record has no command line to repeat");
    const RecordedCommand command = inspectRecordedCommand(record_, record.command);
    const qa::ToleranceTable tolerances = loadTolerances(tolerancesFile_);
    const bool text = !global.quiet && !global.json;
    const fs::path base =
        record.workingDirectory.empty() || !fs::is_directory(record.workingDirectory)
            ? fs::current_path()
            : fs::path(record.workingDirectory);
    const auto resolve = [&](const std::string& p) {
      return fs::path(p).is_absolute() ? fs::path(p) : base / p;
    };
    checkRecordedInputs(record, command, resolve);

    // New outputs go to a fresh folder; the command is otherwise the recorded one.
    std::optional<PrivateTemporaryFolder> temporary;
    fs::path folder;
    if (keep_.empty()) {
      temporary.emplace();
      folder = temporary->path();
    } else {
      folder = keep_;
      std::error_code ec;
      if (fs::is_symlink(folder, ec) ||
          (fs::exists(folder, ec) && (!fs::is_directory(folder, ec) || !fs::is_empty(folder, ec))))
        throw ParameterError("--keep", "'" + keep_ + "' must be a new or empty folder");
      fs::create_directories(folder);
    }
    std::vector<std::string> argv = record.command;
    std::map<std::string, fs::path> moved;  // recorded output -> new path
    for (std::size_t index : command.outputArguments) {
      const fs::path original = argv[index];
      const fs::path fresh = fs::absolute(folder) / original.filename();
      moved[original.string()] = fresh;
      argv[index] = fresh.string();
    }
    // Global flags go before the subcommand: put -q --no-record right after the program name.
    argv.insert(argv.begin() + 1, "--no-record");
    argv.insert(argv.begin() + 1, "-q");
    if (text) {
      std::string line;
      for (const auto& a : argv) line += a + " ";
      std::printf("rerun        %s\n", line.c_str());
      std::fflush(stdout);
    }
    const int status = runProgram(argv, base.string());
    if (status != 0) throw Error("rerun: the command exited with status " + std::to_string(status));

    // Compare each recorded output (the main ones, role "output") with the new one.
    bool allMatch = true;
    nlohmann::json results = nlohmann::json::array();
    const auto classOf = [&]() -> std::optional<qa::AccuracyClass> {
      std::optional<qa::AccuracyClass> a = classOfVariant(record.variant), b;
      if (!record.forwardVariant.empty()) b = classOfVariant(record.forwardVariant);
      if (a && b) return std::max(*a, *b);
      return a ? a : b;
    };
    for (const qa::RecordedFile& out : record.outputs) {
      if (out.role != "output") continue;
      interruptToken().throwIfRequested();
      fs::path fresh;
      for (const auto& [original, now] : moved) {
        const fs::path o = original;
        if (o == fs::path(out.path))
          fresh = now;
        else if (fs::path(out.path).parent_path() == o ||
                 fs::path(out.path).parent_path() == resolve(o.string()))
          fresh = now / fs::path(out.path).filename();  // an output folder (the demo's)
      }
      if (fresh.empty()) fresh = folder / fs::path(out.path).filename();
      nlohmann::json r{{"output", out.path}, {"new", fresh.string()}};
      const std::string hash = sha256Available() ? sha256HexOfFile(fresh) : "";
      // Bit-identical means the header AND the samples: MetaImage and raw + JSON keep their
      // samples in a data file, whose header is the same for any data of the same shape.
      bool identical = !out.sha256.empty() && hash == out.sha256;
      for (const qa::RecordedFile& data : record.outputs)
        if (identical && data.role == "output data" &&
            fs::path(data.path).parent_path() == fs::path(out.path).parent_path() &&
            fs::path(data.path).stem() == fs::path(out.path).stem()) {
          const fs::path freshData = fresh.parent_path() / fs::path(data.path).filename();
          std::error_code ec;
          identical = fs::exists(freshData, ec) && !data.sha256.empty() &&
                      sha256HexOfFile(freshData) == data.sha256;
        }
      if (identical) {
        r["result"] = "bit-identical";
        if (text)
          std::printf("output       %s: bit for bit identical (SHA-256 %s)\n", out.path.c_str(),
                      hash.substr(0, 16).c_str());
      } else {
        std::error_code ec;
        if (!fs::exists(resolve(out.path), ec)) {
          r["result"] = "differs (the original output is gone: no tolerance check)";
          allMatch = false;
          if (text)
            std::printf(
                "output       %s: differs from the recorded hash, and the original is gone\n",
                out.path.c_str());
        } else {
          qa::CompareSpec spec;
          spec.tolerances = tolerances;
          spec.accuracyClass = classOf().value_or(qa::AccuracyClass::Exact);
          spec.computeSsim = false;
          const qa::RunComparison c =
              qa::compareRuns(io::readVolume(fresh), io::readVolume(resolve(out.path)), spec);
          r["result"] = *c.passed ? "within tolerance" : "outside tolerance";
          r["comparison"] = qa::toJson(c);
          allMatch = allMatch && *c.passed;
          if (text)
            std::printf("output       %s: not bit-identical; %s\n", out.path.c_str(),
                        c.verdict.c_str());
        }
      }
      results.push_back(r);
    }
    printJson(
        global,
        {{"command", "rerun"}, {"record", record_}, {"outputs", results}, {"matches", allMatch}});
    return allMatch ? kExitOk : kExitCheckFailed;
  }

 private:
  // The record must list every file the command reads (a record with inputs: [], or without
  // the tilt angles, is incomplete or tampered), and each must be unchanged: a regular file
  // with the recorded SHA-256.
  template <typename Resolve>
  void checkRecordedInputs(const qa::RunRecord& record, const RecordedCommand& command,
                           const Resolve& resolve) const {
    std::vector<std::string> problems;
    if (command.subcommand != "demo") {
      if (record.inputs.empty())
        throw FormatError(record_, "inputs",
                          "the record lists no input files: it is incomplete or was edited");
      const auto option = [&](const char* name) {
        const auto it = command.inputs.find(name);
        return it == command.inputs.end() ? std::string() : resolve(it->second).string();
      };
      io::OutputSet reads;
      const std::string in = option("-i");
      if (in.empty()) throw FormatError(record_, "command", "the command has no -i");
      std::error_code ec;
      addProjectionInputs(reads, in, io::isMrcPath(in), option("--tilt-angles"), option("--xf"),
                          option("--xtilt"));
      reads.addInput(option("--mask"), "--mask");
      reads.addInput(option("--init"), "--init");
      reads.addInput(option("--geometry"), "--geometry", {}, false);
      for (const io::OutputSet::Input& needed : reads.inputs())
        for (const fs::path& file : needed.files) {
          if (!fs::exists(file, ec)) continue;  // reported below if recorded, or by the command
          const bool listed =
              std::any_of(record.inputs.begin(), record.inputs.end(),
                          [&](const auto& f) { return io::sameFile(resolve(f.path), file); });
          if (!listed)
            problems.push_back(file.string() + " (" + needed.role +
                               ") is read by the command but not listed in the record");
        }
    }
    for (const qa::RecordedFile& f : record.inputs) {
      interruptToken().throwIfRequested();
      const fs::path path = resolve(f.path);
      std::error_code ec;
      const fs::file_status status = fs::status(path, ec);
      if (!fs::exists(status)) {
        problems.push_back(f.path + " is missing");
        continue;
      }
      if (!fs::is_regular_file(status)) {
        problems.push_back(f.path + " is not a regular file");
        continue;
      }
      if (!sha256Available()) continue;
      if (f.sha256.empty())
        problems.push_back(f.path + " has no SHA-256 in the record");
      else if (sha256HexOfFile(path) != f.sha256)
        problems.push_back(f.path + " changed since the run (SHA-256 differs)");
    }
    if (!problems.empty()) {
      std::string all;
      for (const auto& p : problems) all += "\n  " + p;
      throw FormatError(record_, "inputs", "cannot repeat the run:" + all);
    }
  }

  CLI::App* sub_ = nullptr;
  std::string record_, keep_, tolerancesFile_;
};

}  // namespace

std::vector<std::unique_ptr<Command>> makeQaCommands(CLI::App& app) {
  std::vector<std::unique_ptr<Command>> commands;
  commands.push_back(std::make_unique<CompareCommand>(app));
  commands.push_back(std::make_unique<SweepCommand>(app));
  commands.push_back(std::make_unique<RerunCommand>(app));
  return commands;
}

}  // namespace tomowb::cli
