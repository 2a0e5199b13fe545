// SIRT, OS-SIRT and SART in slabs (SlabRun.h, reconstructIterativeInSlabs): the two ways an
// iterative run is cut into z-slabs, chosen from the geometry and the projectors.
//  - Independent slabs: an aligned single-axis tilt series (every detector row sees one slice)
//    with the ET family's projectors, which keep slices apart. Each slab is a problem of its own
//    and runs all its iterations from its rows alone; out of core and over ranks like FDK, the
//    same bits as one process (the stop rule, if asked for, applies per slab).
//  - One block per rank, solved together: any other geometry (a cone beam, a tilted axis) or
//    projector. Each rank binds the projector pair to its block and band and wraps it in an
//    ExchangingPair (BandExchange.h), so the ranks sum the rows their bands share after every
//    forward projection and the solver makes the choices one process would (within float32
//    rounding of the partial sums). Checkpoints through SlabRunner (SlabRun.cpp).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>
#include <set>
#include <utility>

#include "recon/core/Error.h"
#include "recon/core/HostMemory.h"
#include "recon/core/MemoryBudget.h"
#include "recon/iterative/IterationLog.h"
#include "recon/iterative/OrderedSubsetSolver.h"
#include "recon/projector/SingleAxisGeometry.h"
#include "recon/scale/SlabRun.h"
#include "recon/scale/SlabStreamingPair.h"
#include "recon/variant/VariantRegistry.h"

namespace tomowb::scale {

namespace {

// ||b|| of the whole data from this rank's band: the rows another rank counts left out, the
// squares summed over the ranks.
double globalDataNorm(const ProjectionStack& rows, const BandOverlap& overlap, Communicator& comm,
                      const std::vector<double>& uncoveredSquares) {
  std::vector<bool> uncounted(static_cast<std::size_t>(rows.rows()), false);
  for (const BandOverlap::SharedRow& s : overlap.mine)
    if (!s.counted) uncounted[static_cast<std::size_t>(s.bandRow)] = true;
  double sum = 0;
  const float* p = rows.data();
  for (std::int64_t v = 0; v < rows.viewCount(); ++v)
    for (std::int64_t r = 0; r < rows.rows(); ++r, p += rows.cols()) {
      if (uncounted[static_cast<std::size_t>(r)]) continue;
      for (std::int64_t c = 0; c < rows.cols(); ++c) sum += static_cast<double>(p[c]) * p[c];
    }
  for (const double u : uncoveredSquares) sum += u;
  comm.sum(std::span<double>(&sum, 1));
  return std::sqrt(sum);
}

bool etFamily(const std::string& name) {
  return name.starts_with("et.");
}

// The first slice of a slab's grid in the whole grid (they share x, y and the voxel size).
std::int64_t firstSliceOf(const VolumeGrid& slab, const VolumeGrid& whole) {
  return std::llround((slab.originMm.z() - whole.originMm.z()) / whole.voxelSizeMm.z());
}

// Slices [z0, z0 + the slab's nz) of a volume on the whole grid, on the slab's grid.
Volume slicesOf(const Volume& whole, const VolumeGrid& slab, std::int64_t z0) {
  Volume out = slab.makeVolume();
  const auto slice = static_cast<std::size_t>(slab.shape.nx * slab.shape.ny);
  std::copy_n(whole.data() + static_cast<std::size_t>(z0) * slice,
              slice * static_cast<std::size_t>(slab.shape.nz), out.data());
  return out;
}

}  // namespace

bool iterativeSlabsAreIndependent(const Geometry& geometry,
                                  const iterative::IterativeParams& params) {
  return etFamily(params.forwardVariant) && etFamily(params.backVariant) &&
         projector::SingleAxisGeometry::analyse(geometry, params.volume).aligned;
}

namespace {
// The block's volumes (x, update and the column weights of each subset; SART: recomputed, one
// more) and its band's projections (the data, row weights, residual and the ones of the column
// sums), in bytes.
std::pair<double, double> blockBytes(const SlabPlan& plan, const Slab& block,
                                     const iterative::IterativeParams& params) {
  const int subsets = params.method == iterative::IterativeMethod::OsSirt ? params.subsets : 1;
  const double voxels =
      double(plan.grid.shape.nx) * double(plan.grid.shape.ny) * double(block.slices());
  const double samples = double(plan.views) * double(block.rows()) * double(plan.cols);
  return {4.0 * voxels * (2.0 + std::min(subsets, 8)), 4.0 * samples * 4.0};
}
}  // namespace

std::filesystem::path iterativeVolumeFolder(const SlabPlan& plan, int rank, int ranks,
                                            const iterative::IterativeParams& params,
                                            const std::filesystem::path& output, bool asked,
                                            std::uint64_t availableBytes) {
  const Slab block = plan.blockOf(rank, ranks);
  const auto [volumes, projections] = blockBytes(plan, block, params);
  const double available = double(availableBytes > 0 ? availableBytes : availableHostMemoryBytes());
  if (!asked && volumes + projections <= 0.8 * available) return {};
  const std::filesystem::path folder = std::filesystem::absolute(output).parent_path();
  return folder.empty() ? std::filesystem::current_path() : folder;
}

std::vector<std::string> iterativeBlockSummary(const SlabPlan& plan, int ranks,
                                               const iterative::IterativeParams& params,
                                               const std::filesystem::path& volumeFolder) {
  std::vector<std::string> lines;
  for (int k = 0; k < ranks; ++k) {
    const Slab block = plan.blockOf(k, ranks);
    if (block.slices() == 0) continue;
    const auto [volumes, projections] = blockBytes(plan, block, params);
    char text[400];
    if (volumeFolder.empty())
      std::snprintf(text, sizeof text,
                    "rank %d: slices %lld..%lld, rows %lld..%lld: %.2f GiB host memory (the "
                    "block's iterate, update and column weights; its band's data, row weights, "
                    "residual)",
                    k, static_cast<long long>(block.z0), static_cast<long long>(block.z1 - 1),
                    static_cast<long long>(block.rowFirst), static_cast<long long>(block.rowLast),
                    (volumes + projections) / (1024.0 * 1024.0 * 1024.0));
    else
      std::snprintf(text, sizeof text,
                    "rank %d: slices %lld..%lld, rows %lld..%lld: out of core, %.2f GiB host "
                    "memory (its band's data, row weights, residual) and up to %.2f GiB of files "
                    "in %s for the block's iterate, update and column weights, its slabs "
                    "streamed through the projectors one at a time",
                    k, static_cast<long long>(block.z0), static_cast<long long>(block.z1 - 1),
                    static_cast<long long>(block.rowFirst), static_cast<long long>(block.rowLast),
                    projections / (1024.0 * 1024.0 * 1024.0), volumes / (1024.0 * 1024.0 * 1024.0),
                    volumeFolder.string().c_str());
    lines.emplace_back(text);
  }
  return lines;
}

namespace {

void checkSlabParams(const iterative::IterativeParams& params) {
  using iterative::IterativeMethod;
  if (params.method == IterativeMethod::Cgls || params.method == IterativeMethod::Pwls)
    throw ParameterError("method", iterative::toString(params.method) +
                                       " does not run in slabs: SIRT, OS-SIRT and SART do");
  if (params.weights || params.reference)
    throw ParameterError("slabs",
                         "a run in slabs takes no weights or reference volume; run without "
                         "--slab-slices, or without those");
  for (const auto& [volume, name] : {std::pair{params.initialVolume.get(), "start volume"},
                                     std::pair{params.mask.get(), "mask"}})
    if (volume != nullptr && volume->shape() != params.volume.shape)
      throw ParameterError(name, "its shape differs from the reconstruction grid's");
}

// The two ways of solving a part (SlabAlgorithm's slab and block), and what they report.
class IterativeSlabs {
 public:
  IterativeSlabs(const iterative::IterativeParams& params, std::filesystem::path volumeFolder)
      : params_(params),
        volumeFolder_(std::move(volumeFolder)),
        lower_(params.lowerBound ? static_cast<float>(*params.lowerBound) : -INFINITY),
        upper_(params.upperBound ? static_cast<float>(*params.upperBound) : INFINITY) {}

  // An independent slab: the in-memory solver on its rows, with its slices of the start volume
  // and the mask.
  Volume slab(const ProjectionStack& rows, const VolumeGrid& grid, JobContext& context) {
    iterative::IterativeParams slab = params_;
    slab.volume = grid;
    const std::int64_t z0 = firstSliceOf(grid, params_.volume);
    if (params_.initialVolume)
      slab.initialVolume =
          std::make_shared<const Volume>(slicesOf(*params_.initialVolume, grid, z0));
    if (params_.mask) slab.mask = std::make_shared<const Volume>(slicesOf(*params_.mask, grid, z0));
    Volume volume = iterative::reconstructIterative(rows, slab, context, &last);
    warnings.insert(last.warnings.begin(), last.warnings.end());
    return volume;
  }

  // This rank's block, solved with the other ranks' through the exchanging pair.
  Volume block(BlockProblem& block, JobContext& context) {
    const auto started = iterative::Clock::now();
    iterative::IterativeParams p = params_;
    p.volume = block.grid;
    const op::ProjectorProblem problem{&block.rows.geometry(), block.grid, params_.gpu};
    ExchangingPair pair(bindBlockPair(block, problem), block.bands, block.comm, block.detectorCols);
    const op::ArrayOps& ops = pair.ops();
    last = {};
    last.method = iterative::toString(params_.method);
    last.forwardVariant = params_.forwardVariant;
    last.backVariant = params_.backVariant;
    last.device = pair.device();
    const std::int64_t z0 = firstSliceOf(block.grid, params_.volume);
    std::unique_ptr<op::Array> x = pair.makeVolume();
    if (block.start != nullptr)
      ops.upload(block.start->voxels(), *x);  // a checkpoint
    else if (params_.initialVolume)
      ops.upload(slicesOf(*params_.initialVolume, block.grid, z0).voxels(), *x);
    Volume maskSlices;
    std::unique_ptr<const op::Array> mask;
    if (params_.mask) {
      maskSlices = slicesOf(*params_.mask, block.grid, z0);
      mask = pair.useVolume(maskSlices);
    }
    ops.clampMasked(*x, mask.get(), lower_, upper_);
    const std::unique_ptr<const op::Array> data = pair.useProjections(block.rows);
    iterative::SubsetProblem subsets{
        pair,
        *data,
        mask.get(),
        lower_,
        upper_,
        iterative::viewSubsets(params_.method, block.rows.viewCount(), params_.subsets)};
    subsets.iterationsBefore = block.iterationsBefore;
    subsets.afterIteration = [&](int iteration, const op::Array& iterate) {
      block.afterIteration(iteration, [&](Volume& scratch) -> const float* {
        // A host iterate (the CPU pair; out of core, a file-backed array) is written as it lies.
        if (iterate.space() == op::MemorySpace::Host &&
            iterate.size() == static_cast<std::size_t>(block.grid.shape.voxelCount()))
          return iterate.data();
        std::optional<FileBackedHostBuffers> onDisk;  // out of core: so is the downloaded copy
        if (!volumeFolder_.empty())
          onDisk.emplace(volumeFolder_, 1);  // every volume, small ones too
        scratch = block.grid.makeVolume();
        ops.download(iterate, scratch.voxels());
        return scratch.data();
      });
    };
    iterative::SirtRule rule(params_.relaxation);
    pair.setUncoveredSquares(block.uncoveredSquares);
    const double dataNorm =
        globalDataNorm(block.rows, pair.overlap(), block.comm, block.uncoveredSquares);
    iterative::runOrderedSubsets(subsets, rule, *x, p, dataNorm, last, context);
    last.totalSeconds = iterative::secondsSince(started);
    sharedRows = static_cast<std::int64_t>(pair.overlap().mine.size());
    exchangedBytes = pair.exchangedBytes();
    warnings.insert(last.warnings.begin(), last.warnings.end());
    return pair.takeVolume(std::move(x));
  }

  iterative::IterativeReport last;  // of the last slab, or of this rank's block
  std::set<std::string> warnings;
  std::int64_t sharedRows = 0;
  std::uint64_t exchangedBytes = 0;

 private:
  // The registered pair bound to the whole block, or, out of core, streaming its slabs (each
  // with its rows of the rank's band) with the volumes in files.
  std::unique_ptr<op::ProjectorPair> bindBlockPair(const BlockProblem& block,
                                                   const op::ProjectorProblem& problem) const {
    if (volumeFolder_.empty())
      return op::bindProjectorPair(VariantRegistry::builtins(), params_.forwardVariant,
                                   params_.backVariant, problem);
    const RowBand& band = block.bands[static_cast<std::size_t>(block.comm.rank())];
    const std::int64_t z0 = firstSliceOf(block.grid, params_.volume);
    std::vector<StreamedSlab> slabs;
    for (const Slab& s : block.slabs)
      slabs.push_back({s.z0 - z0, s.z1 - z0, s.rowFirst - band.first, s.rowLast - band.first});
    return std::make_unique<SlabStreamingPair>(VariantRegistry::builtins(), params_.forwardVariant,
                                               params_.backVariant, problem, std::move(slabs),
                                               volumeFolder_);
  }

  const iterative::IterativeParams& params_;
  std::filesystem::path volumeFolder_;
  float lower_, upper_;
};

}  // namespace

SlabRunReport reconstructIterativeInSlabs(ProjectionRowSource& source,
                                          const iterative::IterativeParams& params,
                                          const SlabRunOptions& options, JobContext& context,
                                          iterative::IterativeReport* reportOut) {
  checkSlabParams(params);
  VariantRegistry::builtins().require(params.forwardVariant);
  VariantRegistry::builtins().require(params.backVariant);
  const bool independent = iterativeSlabsAreIndependent(source.geometry(), params);
  IterativeSlabs solver(params, options.volumeFolder);
  SlabAlgorithm algorithm;
  algorithm.name = iterative::toString(params.method);
  algorithm.grid = params.volume;
  algorithm.iterations = params.iterations;
  SlabRunOptions o = options;
  if (independent) {
    algorithm.slab = [&](const ProjectionStack& rows, const VolumeGrid& grid, JobContext& c) {
      return solver.slab(rows, grid, c);
    };
  } else {
    algorithm.block = [&](BlockProblem& block, JobContext& c) { return solver.block(block, c); };
    // The ranks' blocks are fixed for the run and its resumes: say so in what a resume checks.
    const int ranks = o.communicator != nullptr ? o.communicator->size() : o.ranks;
    o.parameters["blocksOfRanks"] = ranks;
    // One slab per rank unless asked otherwise (the slab height only sets the ranks' shares);
    // out of core, the planner's slabs stream through the projectors.
    if (o.plan.slabSlices == 0 && o.volumeFolder.empty())
      o.plan.slabSlices =
          std::max<std::int64_t>(1, (params.volume.shape.nz + ranks - 1) / std::max(ranks, 1));
  }
  SlabRunReport report = runSlabs(source, algorithm, o, context);
  report.warnings.assign(solver.warnings.begin(), solver.warnings.end());
  report.sharedRows = solver.sharedRows;
  report.exchangedBytes = solver.exchangedBytes;
  if (reportOut != nullptr) *reportOut = std::move(solver.last);
  return report;
}

}  // namespace tomowb::scale
