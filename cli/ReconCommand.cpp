// `tomowb-cli recon fdk`: FDK / FBP reconstruction of a projection file, on the CPU or a GPU
// (--device, --variant, --gpu-mem-limit, --gpus, --tunable), with --telemetry FILE.
#include <cstdio>
#include <string>
#include <vector>

#include "CliSupport.h"
#include "Commands.h"
#include "ProjectionInput.h"
#include "RunRecords.h"
#include "recon/io/MrcIo.h"
#include "recon/io/VolumeFiles.h"
#include "recon/iterative/IterativeJson.h"

namespace tomowb::cli {
namespace {

class ReconCommand : public Command {
 public:
  explicit ReconCommand(CLI::App& app) {
    recon_ = app.add_subcommand("recon", "reconstruct projections");
    recon_->require_subcommand(1);
    sub_ = recon_->add_subcommand("fdk", "FDK cone-beam / FBP parallel-beam reconstruction");
    sub_->add_option("-i,--in", in_,
                     "projections: NAME.json (raw + JSON with geometry), .rct, an MRC tilt "
                     "series, or .npy, TIFF, MRC, MetaImage with --geometry FILE")
        ->required()
        ->check(CLI::ExistingPath);
    input_.addTo(*sub_);
    sub_->add_option("-o,--out", out_, "volume to write: .mhd, .mha, .json/.raw, .npy, .tif")
        ->required();
    grid_.addTo(*sub_);
    fdk_.addTo(*sub_);
    telemetryFile_.addTo(*sub_);
  }
  CLI::App* subcommand() const override { return sub_; }

  int run(const GlobalOptions& global) override {
    // Every file read and written, checked against each other before any work (OutputSet.h).
    io::OutputSet files(&interruptToken());
    addProjectionInputs(files, in_, io::isMrcPath(in_), {}, {}, {});
    if (!input_.geometry.empty()) files.addInput(input_.geometry, "--geometry", "geometry", false);
    files.addOutput(out_, "-o");
    files.addOutput(telemetryFile_.path, "--telemetry");
    if (!global.noRecord) files.addOutput(qa::runRecordPathFor(out_), "run record");
    files.check();
    // The FDK options first: a bad device or variant fails before the data is read.
    std::vector<std::string> optionWarnings;
    fdk::FdkParams params = fdk_.build(&optionWarnings);
    for (const std::string& w : optionWarnings) std::fprintf(stderr, "warning: %s\n", w.c_str());
    std::vector<std::string> loadWarnings;
    const io::LoadedProjections loaded = input_.load(in_, input_.attachment(), loadWarnings);
    for (const std::string& w : loadWarnings) std::fprintf(stderr, "warning: %s\n", w.c_str());
    printLoadSummary(loaded, global.quiet, global.json);
    const ProjectionStack& projections = loaded.projections;
    params.volume = grid_.build(projections.geometry());
    const fdk::VolumeGrid& grid = params.volume;
    ProgressBar bar(progressWanted(global.progress, global.quiet));
    TelemetryLog telemetry;
    JobContext context(interruptToken(), &bar, &telemetry);
    fdk::FdkJob job(projections, params);
    if (!telemetryFile_.path.empty() && runsOnGpu(params))
      telemetry.startGpuSampling(params.gpu.devices);
    job.run(context);
    telemetry.stopGpuSampling();
    io::writeVolume(files.staged(out_), job.result());
    context.throwIfCancelled();
    if (!telemetryFile_.path.empty()) telemetry.writeFile(files.staged(telemetryFile_.path));
    bar.finish();
    const fdk::FdkReport& r = job.report();
    if (!global.noRecord) {
      qa::RunRecord record = startRunRecord({"-o", "--out"}, out_, runsOnGpu(params));
      addInputs(record, files);
      addGeometry(record, projections.geometry());
      record.algorithm = "FDK";
      record.variant = r.kernel.empty() ? r.variant : r.kernel;
      record.parameters = {{"variant", params.variant},
                           {"grid", gridToJson(grid)},
                           {"weighting", r.weighting},
                           {"fieldOfViewMask", params.fieldOfViewMask}};
      addFdkParameters(record, params);
      record.tunables = fdk::toJson(params.gpu);
      record.timings = fdkReportToJson(r);
      record.device["report"] = r.device;
      finishRunRecord(record, files, qa::runRecordPathFor(out_), {out_});
    }
    files.commit();  // all outputs at once, or none (a cancel until here leaves nothing)
    for (const std::string& w : r.warnings) std::fprintf(stderr, "warning: %s\n", w.c_str());
    if (!global.quiet && !global.json) {
      std::printf("wrote %s: %lld x %lld x %lld voxels of %.3g mm\n", out_.c_str(),
                  static_cast<long long>(grid.shape.nx), static_cast<long long>(grid.shape.ny),
                  static_cast<long long>(grid.shape.nz), grid.voxelSizeMm.x());
      std::printf("%s\n", r.weighting.c_str());
      std::printf("kernel %s on %s\n", (r.kernel.empty() ? r.variant : r.kernel).c_str(),
                  r.device.empty() ? "the CPU" : r.device.c_str());
      if (!r.plan.empty()) std::printf("plan: %s\n", r.plan.c_str());
      std::printf("filter %s, backprojection %s (%.2f GUPS), total %s\n",
                  formatSeconds(r.filterSeconds).c_str(),
                  formatSeconds(r.backprojectSeconds).c_str(), r.backprojectGups(),
                  formatSeconds(r.totalSeconds).c_str());
      if (const std::string transfers = transferText(r); !transfers.empty())
        std::printf("%s\n", transfers.c_str());
      if (!telemetryFile_.path.empty()) std::printf("telemetry: %s\n", telemetryFile_.path.c_str());
    }
    printJson(global, {{"command", "recon fdk"},
                       {"input", in_},
                       {"geometryFile", input_.geometry},
                       {"layout", io::toString(loaded.layout)},
                       {"output", out_},
                       {"grid", gridToJson(grid)},
                       {"gpuOptions", fdk::toJson(params.gpu)},
                       {"fdk", fdkReportToJson(r)},
                       {"telemetry", telemetry.toJson()}});
    return kExitOk;
  }

 private:
  CLI::App* recon_ = nullptr;
  CLI::App* sub_ = nullptr;
  std::string in_, out_;
  ProjectionInputOptions input_;
  GridOptions grid_;
  FdkOptions fdk_;
  TelemetryFileOptions telemetryFile_;
};

}  // namespace

std::unique_ptr<Command> makeReconCommand(CLI::App& app) {
  return std::make_unique<ReconCommand>(app);
}

}  // namespace tomowb::cli
