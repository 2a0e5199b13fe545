// `tomowb-cli recon sirt|os-sirt|sart|cgls|wbp`: the electron-tomography reconstructions of issue
// #7 on a tilt series (or any parallel-beam projection file): SIRT, OS-SIRT and SART with their
// parameters and projector variants (--fp, --bp, --variant, --matched, --device), and weighted
// backprojection (the parallel-beam FBP) as the baseline. The residual of every iteration is
// printed and can be written as CSV; the volume is written only when the run succeeds.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <memory>
#include <numbers>
#include <string>
#include <vector>

#include "CliSupport.h"
#include "Commands.h"
#include "FiniteNumbers.h"
#include "ProjectionInput.h"
#include "RunRecords.h"
#include "recon/core/Error.h"
#include "recon/cuda/GpuDevices.h"
#include "recon/io/AtomicFileWriter.h"
#include "recon/io/MrcIo.h"
#include "recon/io/TiltSeriesFiles.h"
#include "recon/io/VolumeFiles.h"
#include "recon/iterative/IterativeJson.h"
#include "recon/iterative/IterativeReconstruction.h"
#include "recon/preprocess/TiltSeriesPreprocess.h"
#include "recon/variant/VariantRegistry.h"

namespace tomowb::cli {
namespace {

// Input and output, the tilt series' companion files and preprocessing, and the tomogram grid:
// --thickness for tilt series, or the grid options.
struct TomogramIo {
  std::string in, out;
  ProjectionInputOptions input;
  std::int64_t thickness = 0;
  GridOptions grid;
  std::string tiltFile, xfFile, xtiltFile;
  double pixelNm = 0, tiltAxisDeg = 0, tiltAxisShift = 0, xAxisTiltDeg = 0;
  std::vector<std::int64_t> crop;
  int binning = 1;
  bool logTransform = false;
  double i0 = 0;
  std::string normalise = "none";
  std::string mrcAxes = "identity";

  void addInputOptionsTo(CLI::App& app) {
    auto* t = app.add_option_group("Tilt series", "companion files, geometry and preprocessing");
    t->add_option("--tilt-angles", tiltFile,
                  "tilt angles, degrees, one per line (.tlt/.rawtlt; default NAME.tlt beside "
                  "an MRC stack, else its SerialEM header)")
        ->check(CLI::ExistingFile);
    t->add_option("--xf", xfFile, "IMOD .xf alignment (default NAME.xf beside the stack)")
        ->check(CLI::ExistingFile);
    t->add_option("--xtilt", xtiltFile, "IMOD .xtilt x-axis tilts (default NAME.xtilt)")
        ->check(CLI::ExistingFile);
    t->add_option("--pixel-nm", pixelNm, "pixel size, nm (default: the MRC header)")
        ->check(CLI::PositiveNumber);
    t->add_option("--tilt-axis-deg", tiltAxisDeg,
                  "tilt-axis angle in the image, counter-clockwise from the row axis, degrees");
    t->add_option("--tilt-axis-shift", tiltAxisShift,
                  "where the tilt axis crosses the image, pixels from the centre");
    t->add_option("--x-axis-tilt-deg", xAxisTiltDeg, "tilt of the whole series about x, degrees");
    t->add_option("--crop", crop, "FIRST_COL COLS FIRST_ROW ROWS: keep this block of the detector")
        ->expected(4);
    t->add_option("--bin", binning, "average BIN x BIN pixels")->check(CLI::Range(1, 64));
    t->add_flag("--log", logTransform,
                "absorption contrast: -ln(I / I0) of each pixel (I0 per view, or --i0)");
    t->add_option("--i0", i0,
                  "unattenuated intensity for --log (default: per view, 99.5th "
                  "percentile)")
        ->check(CLI::PositiveNumber);
    t->add_option("--normalise", normalise,
                  "per view: none, mean (divide by it) or "
                  "zero-mean-unit-var")
        ->check(CLI::IsMember({"none", "mean", "zero-mean-unit-var"}))
        ->capture_default_str();
  }

  // The projections as the options say: with --geometry FILE any format through the core's
  // loader (tilt-series settings apply to a .tlt); else an MRC stack (or any file with
  // --tilt-angles) through the tilt-series loader, anything else as a file with its own geometry.
  // Then the preprocessing.
  ProjectionStack load(JobContext& context, std::vector<std::string>& warnings) const {
    io::TiltSeriesOptions options;
    options.pixelSizeMm = pixelNm * 1e-6;
    options.tiltAxisAngleRad = tiltAxisDeg * std::numbers::pi / 180;
    options.tiltAxisShiftPixels = tiltAxisShift;
    options.xAxisTiltRad = xAxisTiltDeg * std::numbers::pi / 180;
    ProjectionStack stack;
    if (!input.geometry.empty()) {
      if (!tiltFile.empty())
        throw ParameterError("--tilt-angles", "give the tilt angles either here or as --geometry");
      io::GeometryAttachment a = input.attachment();
      a.tilt = options;
      a.alignment = xfFile;
      a.xAxisTilts = xtiltFile;
      stack = std::move(input.load(in, a, warnings).projections);
    } else if (io::isMrcPath(in) || !tiltFile.empty()) {
      io::TiltSeriesSources sources = io::findCompanionFiles(in);
      sources.stack = in;
      if (!tiltFile.empty()) sources.tiltAngles = tiltFile;
      if (!xfFile.empty()) sources.alignment = xfFile;
      if (!xtiltFile.empty()) sources.xAxisTilts = xtiltFile;
      io::LoadedTiltSeries loaded = io::loadTiltSeries(sources, options);
      warnings.insert(warnings.end(), loaded.warnings.begin(), loaded.warnings.end());
      stack = std::move(loaded.projections);
    } else {
      stack = std::move(input.load(in, input.attachment(), warnings).projections);
    }
    preprocess::TiltSeriesPreprocessing pre;
    if (!crop.empty()) {
      pre.firstCol = crop[0];
      pre.cols = crop[1];
      pre.firstRow = crop[2];
      pre.rows = crop[3];
    }
    pre.binning = binning;
    pre.logTransform = logTransform;
    pre.i0 = i0;
    pre.normalisation = normalise == "mean" ? preprocess::ViewNormalisation::DivideByMean
                        : normalise == "zero-mean-unit-var"
                            ? preprocess::ViewNormalisation::ZeroMeanUnitVariance
                            : preprocess::ViewNormalisation::None;
    const bool any = !crop.empty() || binning > 1 || logTransform ||
                     pre.normalisation != preprocess::ViewNormalisation::None;
    if (!any) return stack;
    return preprocess::preprocessTiltSeries(stack, pre, context, &warnings);
  }

  void addTo(CLI::App& app) {
    app.add_option("-i,--in", in,
                   "projections: a tilt series (.mrc, .st, .ali with NAME.tlt beside it), "
                   "NAME.json (raw + JSON with geometry), or .npy, TIFF, MRC, MetaImage with "
                   "--geometry FILE")
        ->required()
        ->check(CLI::ExistingPath);
    input.addTo(app);
    app.add_option("-o,--out", out, "volume to write: .mhd, .mha, .json/.raw, .npy, .tif, .mrc")
        ->required();
    app.add_option("--mrc-axes", mrcAxes,
                   "axis order of an .mrc/.rec output: identity (x, y, z) or imod (file X, Y, Z "
                   "= -x, tilt axis z, thickness y, as IMOD shows tomograms)")
        ->check(CLI::IsMember({"identity", "imod"}))
        ->capture_default_str();
    app.add_option("--thickness", thickness,
                   "tomogram thickness in voxels (tilt series; default: a quarter of the "
                   "detector width)")
        ->check(CLI::Range(1, 1 << 20));
    grid.addTo(app);
    addInputOptionsTo(app);
  }

  // Every file load() reads: the stack, and for a tilt series its companion files.
  void addInputsTo(io::OutputSet& files) const {
    addProjectionInputs(files, in, io::isMrcPath(in), tiltFile, xfFile, xtiltFile);
    if (!input.geometry.empty()) files.addInput(input.geometry, "--geometry", "geometry", false);
  }

  io::VolumeWriteOptions writeOptions() const {
    io::VolumeWriteOptions options;
    options.mrc.axisOrder = mrcAxes == "imod" ? io::MrcAxisOrder::Imod : io::MrcAxisOrder::Identity;
    return options;
  }

  // The ET tomogram (detector width x thickness x detector height) unless --shape or --size
  // asks for another grid.
  fdk::VolumeGrid build(const Geometry& geometry) const {
    if (!grid.shape.empty() || grid.size > 0) return grid.build(geometry);
    const std::int64_t t =
        thickness > 0 ? thickness : std::max<std::int64_t>(1, geometry.detector().cols / 4);
    fdk::VolumeGrid g = iterative::tomogramGrid(geometry, t);
    if (grid.voxelMm > 0) {
      const Eigen::Vector3d extent = g.voxelSizeMm.cwiseProduct(
          Eigen::Vector3d(static_cast<double>(g.shape.nx), static_cast<double>(g.shape.ny),
                          static_cast<double>(g.shape.nz)));
      const auto cells = [&](double mm) {
        return std::max<std::int64_t>(1, std::llround(mm / grid.voxelMm));
      };
      g = fdk::VolumeGrid::centred({cells(extent.x()), cells(extent.y()), cells(extent.z())},
                                   Eigen::Vector3d::Constant(grid.voxelMm));
    }
    if (!grid.originMm.empty())
      g.originMm = Eigen::Vector3d(grid.originMm[0], grid.originMm[1], grid.originMm[2]);
    return g;
  }
};

std::string joinNames(const std::vector<const KernelVariant*>& variants) {
  std::string names;
  for (const KernelVariant* v : variants) names += (names.empty() ? "" : ", ") + v->name;
  return names.empty() ? "none" : names;
}

// Picks the projector pair: --fp/--bp or --variant (either family) win; else --matched and
// --device choose the defaults.
void chooseProjectors(const std::string& device, bool matched,
                      const std::vector<std::string>& variants, std::string fp, std::string bp,
                      iterative::IterativeParams& p) {
  const VariantRegistry& registry = VariantRegistry::builtins();
  for (const std::string& name : variants) {
    const KernelVariant* v = registry.find(name);
    if (v && v->role == VariantRole::ForwardProjector)
      fp = name;
    else if (v && v->role == VariantRole::Backprojector)
      bp = name;
    else
      throw ParameterError(
          "--variant", "'" + name +
                           "' is not a projector of the iterative algorithms; "
                           "forward: " +
                           joinNames(registry.withRole(VariantRole::ForwardProjector)) +
                           "; back: " + joinNames(registry.withRole(VariantRole::Backprojector)) +
                           " ('tomowb-cli variants' describes them)");
  }
  const bool gpu = device == "gpu";
  if (gpu) requireGpu("--device");
  const VariantDevice on = gpu ? VariantDevice::Gpu : VariantDevice::Cpu;
  if (fp.empty()) fp = registry.defaultFor(VariantRole::ForwardProjector, on, matched).name;
  if (bp.empty()) bp = registry.defaultFor(VariantRole::Backprojector, on, matched).name;
  for (const auto& [name, forward] : {std::pair{fp, true}, std::pair{bp, false}}) {
    const KernelVariant* v = registry.find(name);
    const char* option = forward ? "--fp" : "--bp";
    if (!v || v->role != (forward ? VariantRole::ForwardProjector : VariantRole::Backprojector)) {
      std::string problem = "unknown " +
                            std::string(forward ? "forward projector" : "backprojector") + " '" +
                            name + "'; this build has " +
                            joinNames(registry.withRole(forward ? VariantRole::ForwardProjector
                                                                : VariantRole::Backprojector));
      if (gpu) problem += "; GPU variants need a CUDA build and a GPU: " + cuda::gpuStatus();
      throw ParameterError(option, problem);
    }
    if (device == "cpu" && v->needsGpu)
      throw ParameterError("--device", "cpu: '" + name + "' is a GPU variant");
    if (gpu && !v->needsGpu)
      throw ParameterError("--device", "gpu: '" + name + "' runs on the CPU");
    if (device.empty() && v->needsGpu) requireGpu(std::string(option) + " " + name);
  }
  p.forwardVariant = fp;
  p.backVariant = bp;
}

void writeResidualCsv(const std::string& path, const iterative::IterativeReport& report) {
  std::string text = "iteration,relative_residual,residual_norm,weighted_residual_norm,seconds\n";
  char line[200];
  for (const IterationRecord& r : report.iterations) {
    std::snprintf(line, sizeof line, "%d,%.9g,%.9g,%.9g,%.6f\n", r.iteration, r.relativeResidual,
                  r.residualNorm, r.weightedResidualNorm, r.seconds);
    text += line;
  }
  io::AtomicFileWriter out(path);
  out.write(text);
  out.commit();
}

class IterativeReconCommand : public Command {
 public:
  IterativeReconCommand(CLI::App& recon, iterative::IterativeMethod method) : method_(method) {
    const std::string name = iterative::toString(method);
    const bool cgls = method == iterative::IterativeMethod::Cgls;
    const char* what = method == iterative::IterativeMethod::Sirt
                           ? "SIRT: simultaneous iterative reconstruction (tilt series)"
                       : method == iterative::IterativeMethod::OsSirt
                           ? "OS-SIRT: SIRT over ordered subsets of the views"
                       : cgls ? "CGLS: conjugate gradients for least squares (unconstrained; "
                                "use --matched)"
                              : "SART: one view at a time";
    sub_ = recon.add_subcommand(name, what);
    io_.addTo(*sub_);
    auto* a = sub_->add_option_group("Algorithm", "iterations, relaxation, constraints, stop");
    a->add_option("--iterations", params_.iterations, "iterations (sweeps over all views)")
        ->check(CLI::Range(1, 1000000))
        ->capture_default_str();
    params_.relaxation = method == iterative::IterativeMethod::Sart ? 0.5 : 1.0;
    if (!cgls)
      a->add_option("--relaxation", params_.relaxation, "relaxation lambda, 0 < lambda < 2")
          ->capture_default_str();
    if (method == iterative::IterativeMethod::OsSirt)
      a->add_option("--subsets", params_.subsets, "number of interleaved view subsets")
          ->check(CLI::Range(1, 1 << 20))
          ->capture_default_str();
    if (!cgls) {
      a->add_flag("--nonneg", nonNegative, "non-negativity: clamp voxels below 0 (= --min 0)");
      a->add_option("--min", lower, "lower bound of the voxel values")->check(finiteNumber());
      a->add_option("--max", upper, "upper bound of the voxel values")->check(finiteNumber());
    }
    a->add_option("--stop-change", params_.stopRelativeChange,
                  "stop when the weighted residual falls by less than this fraction in one "
                  "iteration (0: run every iteration)")
        ->check(CLI::Range(0.0, 0.999))
        ->capture_default_str();
    a->add_option("--mask", maskFile, "volume file: reconstruct only its non-zero voxels")
        ->check(CLI::ExistingFile);
    a->add_option("--init", initFile, "volume file to start from (warm start; the grid must match)")
        ->check(CLI::ExistingFile);
    a->add_option("--residuals", residualCsv, "write the residual of every iteration as CSV");
    auto* d = sub_->add_option_group("Projectors", "projector variants and device");
    d->add_option("--device", device, "cpu or gpu (default: the variants' device, else the CPU)")
        ->check(CLI::IsMember({"cpu", "gpu"}));
    d->add_option("--variant", variants,
                  "a projector variant of either family (repeatable; 'tomowb-cli variants')");
    d->add_option("--fp", fp, "forward projector (default et.fp.cpu; GPU et.fp.fast)");
    d->add_option("--bp", bp,
                  "backprojector (default et.bp.cpu-voxel; GPU et.bp.fast; with --matched the "
                  "exact transpose)");
    d->add_flag("--matched", matched,
                "use the matched pair (a forward projector and its exact transpose): SIRT "
                "converges to the least-squares solution");
    d->add_option("--gpu-mem-limit", gpuMemoryLimit, "use at most SIZE of each GPU's memory");
    d->add_option("--gpus", gpus, "CUDA device indices, e.g. 0,1 (default: every GPU)")
        ->delimiter(',')
        ->check(CLI::NonNegativeNumber);
    d->add_option("--tunable", tunables,
                  "NAME=VALUE: a tunable of the GPU variants ('tomowb-cli variants'); repeatable")
        ->allow_extra_args(false);
    telemetryFile_.addTo(*sub_);
  }
  CLI::App* subcommand() const override { return sub_; }

  int run(const GlobalOptions& global) override {
    io::OutputSet files(&interruptToken());
    io_.addInputsTo(files);
    files.addInput(maskFile, "--mask", "mask");
    files.addInput(initFile, "--init", "initial volume");
    files.addOutput(io_.out, "-o");
    files.addOutput(residualCsv, "--residuals");
    files.addOutput(telemetryFile_.path, "--telemetry");
    if (!global.noRecord) files.addOutput(qa::runRecordPathFor(io_.out), "run record");
    files.check();
    iterative::IterativeParams p = params_;
    p.method = method_;
    if (nonNegative) p.lowerBound = 0.0;
    if (lower) p.lowerBound = *lower;
    if (upper) p.upperBound = *upper;
    chooseProjectors(device, matched, variants, fp, bp, p);
    if (!gpuMemoryLimit.empty())
      p.gpu.memoryLimitBytes = parseByteSize(gpuMemoryLimit, "--gpu-mem-limit");
    p.gpu.devices = gpus;
    for (const std::string& t : tunables) {
      const std::size_t eq = t.find('=');
      if (eq == std::string::npos || eq == 0)
        throw ParameterError("--tunable", "'" + t + "' is not NAME=VALUE");
      const std::string name = t.substr(0, eq);
      const KernelVariant& f = VariantRegistry::builtins().require(p.forwardVariant);
      const KernelVariant& b = VariantRegistry::builtins().require(p.backVariant);
      const auto has = [&](const KernelVariant& v) {
        return std::any_of(v.tunables.begin(), v.tunables.end(),
                           [&](const Tunable& x) { return x.name == name; });
      };
      if (!has(f) && !has(b))
        throw ParameterError(
            "--tunable", "neither " + f.name + " nor " + b.name + " has a tunable '" + name + "'");
      p.gpu.tunables[name] = t.substr(eq + 1);
    }
    ProgressBar bar(progressWanted(global.progress, global.quiet));
    TelemetryLog telemetry;
    JobContext context(interruptToken(), &bar, &telemetry);
    std::vector<std::string> inputWarnings;
    const ProjectionStack projections = io_.load(context, inputWarnings);
    for (const std::string& w : inputWarnings) std::fprintf(stderr, "warning: %s\n", w.c_str());
    p.volume = io_.build(projections.geometry());
    if (!maskFile.empty()) p.mask = std::make_shared<Volume>(io::readVolume(maskFile));
    if (!initFile.empty()) p.initialVolume = std::make_shared<Volume>(io::readVolume(initFile));
    iterative::IterativeJob job(projections, p);
    job.run(context);
    io::writeVolume(files.staged(io_.out), job.result(), io_.writeOptions());
    context.throwIfCancelled();
    if (!residualCsv.empty()) writeResidualCsv(files.staged(residualCsv), job.report());
    if (!telemetryFile_.path.empty()) telemetry.writeFile(files.staged(telemetryFile_.path));
    bar.finish();
    const iterative::IterativeReport& r = job.report();
    if (!global.noRecord) {
      const bool gpu = VariantRegistry::builtins().require(p.forwardVariant).needsGpu ||
                       VariantRegistry::builtins().require(p.backVariant).needsGpu;
      qa::RunRecord record = startRunRecord({"-o", "--out"}, io_.out, gpu);
      addInputs(record, files);
      addGeometry(record, projections.geometry());
      record.algorithm = iterative::toString(method_);
      for (char& c : record.algorithm)
        c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
      record.forwardVariant = r.forwardVariant;
      record.variant = r.backVariant;
      record.parameters = {{"iterations", p.iterations},
                           {"relaxation", p.relaxation},
                           {"subsets", p.subsets},
                           {"grid", gridToJson(p.volume)},
                           {"stopReason", r.stopReason}};
      addIterativeParameters(record, p);
      record.tunables = fdk::toJson(p.gpu);
      record.timings = {{"totalSeconds", r.totalSeconds},
                        {"forwardSeconds", r.forwardSeconds},
                        {"backprojectSeconds", r.backprojectSeconds}};
      if (!r.iterations.empty())
        record.metrics = {{"finalRelativeResidual", r.iterations.back().relativeResidual}};
      record.device["report"] = r.device;
      finishRunRecord(record, files, qa::runRecordPathFor(io_.out), {io_.out});
    }
    files.commit();
    for (const std::string& w : r.warnings) std::fprintf(stderr, "warning: %s\n", w.c_str());
    if (!global.quiet && !global.json) printSummary(r, p.volume);
    printJson(global, {{"command", "recon " + iterative::toString(method_)},
                       {"input", io_.in},
                       {"output", io_.out},
                       {"grid", gridToJson(p.volume)},
                       {"iterative", iterative::toJson(r)},
                       {"telemetry", telemetry.toJson()}});
    return kExitOk;
  }

 private:
  void printSummary(const iterative::IterativeReport& r, const fdk::VolumeGrid& grid) const {
    std::printf("wrote %s: %lld x %lld x %lld voxels of %.3g mm\n", io_.out.c_str(),
                static_cast<long long>(grid.shape.nx), static_cast<long long>(grid.shape.ny),
                static_cast<long long>(grid.shape.nz), grid.voxelSizeMm.x());
    std::printf("%s with %s + %s on %s: %s\n", r.method.c_str(), r.forwardVariant.c_str(),
                r.backVariant.c_str(), r.device.c_str(), r.stopReason.c_str());
    const std::size_t n = r.iterations.size();
    for (std::size_t i = 0; i < n; ++i) {
      const IterationRecord& it = r.iterations[i];
      if (n > 12 && i != 0 && i + 1 != n && (i + 1) % std::max<std::size_t>(1, n / 10) != 0)
        continue;
      if (it.metrics.empty()) {
        std::printf("  iteration %4d: relative residual %.4g, weighted %.4g\n", it.iteration,
                    it.relativeResidual, it.weightedResidualNorm);
        continue;
      }
      // Algorithms that report named metrics (CGLS: gradient norm, step) show those instead.
      std::string metrics;
      for (const auto& [name, value] : it.metrics) {
        char text[96];
        std::snprintf(text, sizeof text, ", %s %.4g", name.c_str(), value);
        metrics += text;
      }
      std::printf("  iteration %4d: relative residual %.4g%s\n", it.iteration, it.relativeResidual,
                  metrics.c_str());
    }
    const double gups = (r.forwardSeconds + r.backprojectSeconds) > 0
                            ? r.voxelUpdates / (r.forwardSeconds + r.backprojectSeconds) / 1e9
                            : 0.0;
    std::printf("%s %s, forward %s, back %s (%.2f G updates/s), total %s\n",
                r.method == "cgls" ? "setup" : "weights", formatSeconds(r.setupSeconds).c_str(),
                formatSeconds(r.forwardSeconds).c_str(),
                formatSeconds(r.backprojectSeconds).c_str(), gups,
                formatSeconds(r.totalSeconds).c_str());
    if (!residualCsv.empty()) std::printf("residuals: %s\n", residualCsv.c_str());
  }

  iterative::IterativeMethod method_;
  CLI::App* sub_ = nullptr;
  TomogramIo io_;
  iterative::IterativeParams params_;
  bool nonNegative = false;
  std::optional<double> lower, upper;
  std::string maskFile, initFile, residualCsv;
  std::string device, fp, bp;
  std::vector<std::string> variants;
  bool matched = false;
  std::string gpuMemoryLimit;
  std::vector<int> gpus;
  std::vector<std::string> tunables;
  TelemetryFileOptions telemetryFile_;
};

// Weighted backprojection: the parallel-beam FBP of `recon fdk` on the tomogram grid.
class WbpCommand : public Command {
 public:
  explicit WbpCommand(CLI::App& recon) {
    sub_ = recon.add_subcommand(
        "wbp", "weighted backprojection (parallel-beam FBP) of a tilt series: the baseline");
    io_.addTo(*sub_);
    fdk_.addTo(*sub_);
  }
  CLI::App* subcommand() const override { return sub_; }

  int run(const GlobalOptions& global) override {
    io::OutputSet files(&interruptToken());
    io_.addInputsTo(files);
    files.addOutput(io_.out, "-o");
    if (!global.noRecord) files.addOutput(qa::runRecordPathFor(io_.out), "run record");
    files.check();
    std::vector<std::string> optionWarnings;
    fdk::FdkParams params = fdk_.build(&optionWarnings);
    for (const std::string& w : optionWarnings) std::fprintf(stderr, "warning: %s\n", w.c_str());
    ProgressBar bar(progressWanted(global.progress, global.quiet));
    JobContext context(interruptToken(), &bar);
    std::vector<std::string> inputWarnings;
    const ProjectionStack projections = io_.load(context, inputWarnings);
    for (const std::string& w : inputWarnings) std::fprintf(stderr, "warning: %s\n", w.c_str());
    if (projections.geometry().beam() != BeamKind::Parallel)
      throw ParameterError(io_.in,
                           "weighted backprojection needs a parallel-beam tilt series; "
                           "cone-beam data: use 'recon fdk'");
    params.volume = io_.build(projections.geometry());
    fdk::FdkJob job(projections, params);
    job.run(context);
    io::writeVolume(files.staged(io_.out), job.result(), io_.writeOptions());
    context.throwIfCancelled();
    bar.finish();
    const fdk::FdkReport& r = job.report();
    if (!global.noRecord) {
      qa::RunRecord record = startRunRecord({"-o", "--out"}, io_.out, runsOnGpu(params));
      addInputs(record, files);
      addGeometry(record, projections.geometry());
      record.algorithm = "WBP";
      record.variant = r.kernel.empty() ? r.variant : r.kernel;
      record.parameters = {{"variant", params.variant}, {"grid", gridToJson(params.volume)}};
      addFdkParameters(record, params);
      record.tunables = fdk::toJson(params.gpu);
      record.timings = fdkReportToJson(r);
      finishRunRecord(record, files, qa::runRecordPathFor(io_.out), {io_.out});
    }
    files.commit();
    for (const std::string& w : r.warnings) std::fprintf(stderr, "warning: %s\n", w.c_str());
    if (!global.quiet && !global.json) {
      const fdk::VolumeGrid& g = params.volume;
      std::printf("wrote %s: %lld x %lld x %lld voxels of %.3g mm\n", io_.out.c_str(),
                  static_cast<long long>(g.shape.nx), static_cast<long long>(g.shape.ny),
                  static_cast<long long>(g.shape.nz), g.voxelSizeMm.x());
      std::printf(
          "weighted backprojection with %s, filter %s, backprojection %s, total %s\n",
          (r.kernel.empty() ? r.variant : r.kernel).c_str(), formatSeconds(r.filterSeconds).c_str(),
          formatSeconds(r.backprojectSeconds).c_str(), formatSeconds(r.totalSeconds).c_str());
    }
    printJson(global, {{"command", "recon wbp"},
                       {"input", io_.in},
                       {"output", io_.out},
                       {"grid", gridToJson(params.volume)},
                       {"fdk", fdkReportToJson(r)}});
    return kExitOk;
  }

 private:
  CLI::App* sub_ = nullptr;
  TomogramIo io_;
  FdkOptions fdk_;
};

}  // namespace

std::vector<std::unique_ptr<Command>> makeIterativeReconCommands(CLI::App& recon) {
  std::vector<std::unique_ptr<Command>> out;
  for (const iterative::IterativeMethod m :
       {iterative::IterativeMethod::Sirt, iterative::IterativeMethod::OsSirt,
        iterative::IterativeMethod::Sart, iterative::IterativeMethod::Cgls})
    out.push_back(std::make_unique<IterativeReconCommand>(recon, m));
  out.push_back(std::make_unique<WbpCommand>(recon));
  return out;
}

}  // namespace tomowb::cli
