// `tomowb-cli phantom`: analytic projections of a phantom for a geometry, optional Poisson
// noise, and the voxelised ground truth.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>
#include <random>

#include "CliSupport.h"
#include "Commands.h"
#include "recon/core/CheckedSize.h"
#include "recon/core/Error.h"
#include "recon/core/MemoryBudget.h"
#include "recon/io/OutputSet.h"
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
    io::OutputSet files(&interruptToken());
    files.addInput(geometry_.file, "--geometry", "geometry", false);
    files.addOutput(out_, "-o");
    files.addOutput(truth_, "--truth");
    files.check();
    const Geometry geometry = geometry_.build();
    const phantom::Phantom ph = phantom_.build();
    // The truth's grid is checked before anything is projected or written (review D15).
    std::optional<fdk::VolumeGrid> truthGrid;
    if (!truth_.empty()) {
      truthGrid = grid_.build(geometry);
      const fdk::VolumeGrid& g = *truthGrid;
      for (int axis = 0; axis < 3; ++axis) {
        if (!(g.voxelSizeMm[axis] > 0.0) || !std::isfinite(g.voxelSizeMm[axis]))
          throw ParameterError("--voxel-mm", "must be finite and > 0");
        if (!std::isfinite(g.originMm[axis])) throw ParameterError("--origin-mm", "must be finite");
      }
      const double extentMm =
          g.voxelSizeMm.maxCoeff() * double(std::max({g.shape.nx, g.shape.ny, g.shape.nz}));
      if (!std::isfinite(extentMm) || extentMm > 1e12)
        throw ParameterError("--voxel-mm", "the truth grid's extent is not a finite length");
      checkHostAllocation(productOrThrow("--truth", {g.shape.nx, g.shape.ny, g.shape.nz, 4}),
                          "the --truth volume");
    }
    ProgressBar bar(progressWanted(global.progress, global.quiet));
    JobContext context(interruptToken(), &bar);
    ProjectionStack projections = phantom::projectPhantom(ph, geometry, {supersample_}, &context);
    std::uint64_t seed = seed_ ? *seed_ : std::random_device{}();
    if (photons_ > 0) phantom::addPoissonNoise(projections, photons_, seed);
    context.throwIfCancelled();
    io::writeProjections(files.staged(out_), projections);
    nlohmann::json summary{{"command", "phantom"},       {"phantom", phantom_.name},
                           {"projections", out_},        {"views", projections.viewCount()},
                           {"rows", projections.rows()}, {"cols", projections.cols()},
                           {"photons", photons_}};
    if (photons_ > 0) summary["seed"] = seed;
    if (truthGrid) {
      const fdk::VolumeGrid& grid = *truthGrid;
      const Volume truth = phantom::voxelisePhantom(ph, grid.shape, grid.voxelSizeMm, grid.originMm,
                                                    truthSupersample_, &context);
      context.throwIfCancelled();
      io::writeVolume(files.staged(truth_), truth);
      summary["truth"] = truth_;
      summary["grid"] = gridToJson(grid);
    }
    files.commit();  // projections and truth together, or neither
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
