// `tomowb-cli phantom`: analytic projections of a phantom for a geometry, optional Poisson
// noise, and the voxelised ground truth.
#include <cstdio>
#include <random>

#include "CliSupport.h"
#include "Commands.h"
#include "recon/core/Error.h"
#include "recon/io/VolumeFiles.h"
#include "recon/phantom/AnalyticProjector.h"
#include "recon/phantom/PoissonNoise.h"
#include "recon/phantom/Voxelise.h"

namespace tomowb::cli {
namespace {

class PhantomCommand : public Command {
 public:
  explicit PhantomCommand(CLI::App& app) {
    sub_ = app.add_subcommand("phantom", "analytic projections (and ground truth) of a phantom");
    phantom_.addTo(*sub_);
    geometry_.addTo(*sub_);
    sub_->add_option("-o,--out", out_, "projections to write: NAME.json (+ NAME.raw)")->required();
    sub_->add_option(
        "--truth", truth_,
        "also write the voxelised phantom (.mhd, .json, .npy, .tif) on the grid below");
    grid_.addTo(*sub_);
    sub_->add_option("--supersample", supersample_, "rays per pixel along each detector axis")
        ->check(CLI::Range(1, 64))
        ->capture_default_str();
    sub_->add_option("--truth-supersample", truthSupersample_, "samples per voxel along each axis")
        ->check(CLI::Range(1, 16))
        ->capture_default_str();
    sub_->add_option("--photons", photons_,
                     "incident photons per pixel for Poisson noise (0: noiseless)")
        ->check(CLI::NonNegativeNumber)
        ->capture_default_str();
    sub_->add_option("--seed", seed_, "noise seed (default: random, printed)");
  }
  CLI::App* subcommand() const override { return sub_; }

  int run(const GlobalOptions& global) override {
    if (!truth_.empty()) checkOutputSparesInput(out_, truth_);
    const Geometry geometry = geometry_.build();
    const phantom::Phantom ph = phantom_.build();
    ProgressBar bar(progressWanted(global.progress, global.quiet));
    JobContext context(interruptToken(), &bar);
    ProjectionStack projections = phantom::projectPhantom(ph, geometry, {supersample_}, &context);
    std::uint64_t seed = seed_ ? *seed_ : std::random_device{}();
    if (photons_ > 0) phantom::addPoissonNoise(projections, photons_, seed);
    context.throwIfCancelled();
    io::writeProjections(out_, projections);
    nlohmann::json summary{{"command", "phantom"},       {"phantom", phantom_.name},
                           {"projections", out_},        {"views", projections.viewCount()},
                           {"rows", projections.rows()}, {"cols", projections.cols()},
                           {"photons", photons_}};
    if (photons_ > 0) summary["seed"] = seed;
    if (!truth_.empty()) {
      const fdk::VolumeGrid grid = grid_.build(geometry);
      const Volume truth = phantom::voxelisePhantom(ph, grid.shape, grid.voxelSizeMm, grid.originMm,
                                                    truthSupersample_, &context);
      context.throwIfCancelled();
      io::writeVolume(truth_, truth);
      summary["truth"] = truth_;
      summary["grid"] = gridToJson(grid);
    }
    bar.finish();
    if (!global.quiet && !global.json) {
      std::printf("wrote %s: %lld views of %lld x %lld (%s beam)%s\n", out_.c_str(),
                  static_cast<long long>(projections.viewCount()),
                  static_cast<long long>(projections.cols()),
                  static_cast<long long>(projections.rows()), toString(geometry.beam()).c_str(),
                  photons_ > 0 ? (", Poisson noise, seed " + std::to_string(seed)).c_str() : "");
      if (!truth_.empty()) std::printf("wrote %s: ground truth\n", truth_.c_str());
    }
    printJson(global, summary);
    return kExitOk;
  }

 private:
  CLI::App* sub_ = nullptr;
  PhantomOptions phantom_;
  GeometryOptions geometry_;
  GridOptions grid_;
  std::string out_, truth_;
  int supersample_ = 1, truthSupersample_ = 2;
  double photons_ = 0;
  std::optional<std::uint64_t> seed_;
};

}  // namespace

std::unique_ptr<Command> makePhantomCommand(CLI::App& app) {
  return std::make_unique<PhantomCommand>(app);
}

void printJson(const GlobalOptions& global, const nlohmann::json& summary) {
  if (global.json) std::printf("%s\n", summary.dump(2).c_str());
}

}  // namespace tomowb::cli
