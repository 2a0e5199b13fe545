// `tomowb-cli recon fdk`: FDK / FBP reconstruction of a projection file.
#include <cstdio>

#include "CliSupport.h"
#include "Commands.h"
#include "recon/io/VolumeFiles.h"

namespace tomowb::cli {
namespace {

class ReconCommand : public Command {
 public:
  explicit ReconCommand(CLI::App& app) {
    recon_ = app.add_subcommand("recon", "reconstruct projections");
    recon_->require_subcommand(1);
    sub_ = recon_->add_subcommand("fdk", "FDK cone-beam / FBP parallel-beam reconstruction");
    sub_->add_option("-i,--in", in_, "projections: NAME.json (raw + JSON with geometry) or .rct")
        ->required()
        ->check(CLI::ExistingPath);
    sub_->add_option("-o,--out", out_, "volume to write: .mhd, .mha, .json/.raw, .npy, .tif")
        ->required();
    grid_.addTo(*sub_);
    fdk_.addTo(*sub_);
  }
  CLI::App* subcommand() const override { return sub_; }

  int run(const GlobalOptions& global) override {
    checkOutputSparesInput(in_, out_);
    const ProjectionStack projections = io::readProjections(in_);
    const fdk::VolumeGrid grid = grid_.build(projections.geometry());
    ProgressBar bar(progressWanted(global.progress, global.quiet));
    TelemetryLog telemetry;
    JobContext context(interruptToken(), &bar, &telemetry);
    fdk::FdkJob job(projections, fdk_.build(grid));
    job.run(context);
    io::writeVolume(out_, job.result());
    bar.finish();
    const fdk::FdkReport& r = job.report();
    for (const std::string& w : r.warnings) std::fprintf(stderr, "warning: %s\n", w.c_str());
    if (!global.quiet && !global.json) {
      std::printf("wrote %s: %lld x %lld x %lld voxels of %.3g mm\n", out_.c_str(),
                  static_cast<long long>(grid.shape.nx), static_cast<long long>(grid.shape.ny),
                  static_cast<long long>(grid.shape.nz), grid.voxelSizeMm.x());
      std::printf("%s\nfilter %s, backprojection %s (%s, %.2f GUPS)\n", r.weighting.c_str(),
                  formatSeconds(r.filterSeconds).c_str(),
                  formatSeconds(r.backprojectSeconds).c_str(), r.variant.c_str(),
                  r.backprojectGups());
    }
    printJson(global, {{"command", "recon fdk"},
                       {"input", in_},
                       {"output", out_},
                       {"grid", gridToJson(grid)},
                       {"fdk", fdkReportToJson(r)},
                       {"telemetry", telemetry.toJson()}});
    return kExitOk;
  }

 private:
  CLI::App* recon_ = nullptr;
  CLI::App* sub_ = nullptr;
  std::string in_, out_;
  GridOptions grid_;
  FdkOptions fdk_;
};

}  // namespace

std::unique_ptr<Command> makeReconCommand(CLI::App& app) {
  return std::make_unique<ReconCommand>(app);
}

}  // namespace tomowb::cli
