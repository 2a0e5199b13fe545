// SlabRun: FDK reconstructed slab by slab into a file (issue #22, points 2 to 4). Each slab of the
// SlabPlan reads only its detector rows (ProjectionRowSource), is reconstructed, and is written at
// its place in the output while the next one starts; a volume larger than host memory never
// exists in memory at once.
//
// Output: our raw volume format (io/RawVolumeIo.h), or a folder of float32 TIFF slices (each
// slice written as its slab finishes into "<folder>.partial/", renamed into place at the end).
// Raw: the samples go into "<name>.raw.partial"
// (its full size reserved up front, so a full disk is found before the first slab), beside one
// manifest per rank, "<name>.raw.rank<K>.manifest.json", that lists the slabs written and flushed
// to disk. When every slab is in, one rank renames the samples to "<name>.raw", writes the
// sidecar "<name>.json" and removes the manifests: the output appears whole or not at all.
//
// Restart: a killed or cancelled run leaves the partial file and the manifests; the same command
// with `resume` redoes only the slabs no manifest lists, whatever the number of ranks of either
// run. Slab boundaries never depend on the ranks, so the result is bit-identical to an
// uninterrupted run. A manifest of another run (other grid, slabs, parameters or input) is
// refused by name.
//
// Ranks: rank K of N owns a contiguous share of the plan's slabs (SlabPlan::share) and writes
// those no manifest lists; FDK needs no communication between them, and ranks started at
// different moments agree on their shares. The processes may be started by mpirun or by hand.
// (A resume is balanced over all slabs, not over the ones left.)
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "recon/fdk/Fdk.h"
#include "recon/iterative/IterativeReconstruction.h"
#include "recon/job/JobContext.h"
#include "recon/scale/BandExchange.h"
#include "recon/scale/Communicator.h"
#include "recon/scale/ProjectionRowSource.h"
#include "recon/scale/SlabPlan.h"

namespace tomowb::scale {

struct SlabRunOptions {
  std::filesystem::path output;  // "<name>.raw" or "<name>.json"
  SlabPlanOptions plan;
  bool resume = false;
  int rank = 0, ranks = 1;
  // What else must match for a resume (the algorithm's parameters as the caller records them).
  nlohmann::json parameters = nlohmann::json::object();
  std::optional<std::uint64_t> freeDiskBytes;  // tests: instead of asking the file system
  // Ranks that talk (MPI, Communicator.h); nullptr: rank and ranks above, without talking.
  Communicator* communicator = nullptr;
  // Iterative runs whose slabs are solved together (SlabAlgorithm::block): keep the iterate
  // every N iterations and/or every M minutes (0: never), for --resume.
  int checkpointEvery = 0;
  double checkpointMinutes = 0;
  // Iterative runs whose slabs are solved together: keep the block's volumes (iterate, update,
  // weights) in files in this folder and stream its slabs through the projectors one at a time
  // (SlabStreamingPair), for a volume larger than host memory; empty: in memory.
  // reconstructIterativeInSlabs chooses the output's folder when the block would not fit.
  std::filesystem::path volumeFolder;
};

// A rank's share of an iterative run whose slabs exchange detector rows (BandExchange.h).
struct BlockProblem {
  const ProjectionStack& rows;  // this rank's band of every view (its cropped geometry)
  VolumeGrid grid;              // this rank's slices
  std::vector<Slab> slabs;      // the plan's slabs in them
  std::vector<RowBand> bands;   // every rank's band, in rank order
  Communicator& comm;
  std::int64_t detectorCols = 0;
  // ||b||^2 per view of the detector rows no band holds, on rank 0 (empty on the others).
  std::vector<double> uncoveredSquares = {};
  // Resumed from a checkpoint: its iterations and this rank's block of its iterate.
  int iterationsBefore = 0;
  const Volume* start = nullptr;
  // The solver calls it after every iteration, on every rank (collective): writes a checkpoint
  // when one is due, asking `iterate` for the block's voxels only then. `iterate` returns the
  // iterate's own host memory when it lives there (out of core: a file-backed array, written
  // without a copy), else downloads it into `scratch` and returns that.
  std::function<void(int iteration, const std::function<const float*(Volume& scratch)>& iterate)>
      afterIteration = {};
};

// What a slab run reconstructs: independent slabs (FDK; SIRT of a single-axis tilt series,
// whose slices do not see each other) each from its rows, or, for an iterative method whose
// slabs share detector rows (a cone beam), one block of slabs per rank solved together with the
// other ranks' blocks (every rank's iterate in memory at once; checkpoints for --resume).
struct SlabAlgorithm {
  std::string name;  // "FDK", "SIRT": for messages
  VolumeGrid grid;
  std::function<Volume(const ProjectionStack& rows, const VolumeGrid& slabGrid, JobContext&)> slab;
  // Or, instead of `slab`: the slab reconstructed into a volume of its grid that the runner
  // allocated while the slab's rows were read (FDK: its host volume costs no time of its own).
  std::function<void(const ProjectionStack& rows, const VolumeGrid& slabGrid, Volume& volume,
                     JobContext&)>
      slabInto;
  // With SlabPlanOptions::mirrorPairs: a mirrored pair of slabs apart, from the rows of both
  // (ProjectionRowSource::readRowBands) into a volume of both slabs' slices (lower first).
  std::function<void(const ProjectionStack& bands, const fdk::FdkMirrorPair& pair, Volume& volume,
                     JobContext&)>
      pairInto;
  std::function<Volume(BlockProblem& problem, JobContext&)> block;  // set: coupled
  int iterations = 0;  // coupled: the run's iterations (no checkpoint after the last)
};

struct SlabRunReport {
  SlabPlan plan;
  std::vector<int> computed;  // the slabs this process reconstructed and wrote
  int doneBefore = 0;         // slabs an earlier run had written (resume)
  bool finished = false;      // every slab is in and the output is in place (by this rank)
  bool complete = false;      // every slab is in (this rank or another finished the output)
  double readSeconds = 0, computeSeconds = 0, writeSeconds = 0;
  fdk::FdkReport lastSlab;  // the FDK report of the last slab reconstructed here
  // Coupled iterative runs: the iterations of an earlier run's checkpoint this run went on from.
  int resumedFromIteration = 0;
  int checkpointsWritten = 0;
  // Coupled iterative runs: the rows of this rank's band other ranks share, and the bytes it
  // summed with them over the run.
  std::int64_t sharedRows = 0;
  std::uint64_t exchangedBytes = 0;
  // When `finished`: per manifest, the rank, the ranks of its run, its slabs and its read,
  // compute and write seconds (over its runs), for the run record.
  nlohmann::json ranks = nlohmann::json::array();
  std::vector<std::string> warnings;
};

// True when `output` names a folder (no extension, or a trailing slash): the volume is written
// there as float32 TIFF slices (slice_0000.tif, ...), staged in "<folder>.partial/".
bool isSliceFolderOutput(const std::filesystem::path& output);

// The partial samples file (or staging folder) and rank K's manifest of `output`.
std::filesystem::path partialPathFor(const std::filesystem::path& output);
std::filesystem::path manifestPathFor(const std::filesystem::path& output, int rank);
// The slab height of the unfinished run of `output` that its manifests record (0: none, or none
// readable): a resume without --slab-slices goes on with it, whatever this process's memory or
// ranks would choose now.
std::int64_t earlierRunSlabSlices(const std::filesystem::path& output);

// Runs this rank's share. Throws ParameterError/FormatError/IoError with the file named (a
// manifest of another run, too little disk, a write that fails); Cancelled when the token is set
// (the manifests then list every slab written so far).
SlabRunReport reconstructFdkInSlabs(ProjectionRowSource& source, const fdk::FdkParams& params,
                                    const SlabRunOptions& options, JobContext& context);

// Whether an FDK slab run pairs each slab with its mirror image (SlabPlanOptions::mirrorPairs,
// which reconstructFdkInSlabs sets from this): a GPU variant with a z-mirror kernel on a geometry
// and grid with the mirror symmetry. A slab off the detector's centre row then still runs the
// mirror kernel (on the H100 0.215 s against 0.40 s for a 1024 x 1024 x 512 slab of 720 views).
// TOMOWB_SLAB_MIRROR_PAIRS=off turns it off (benchmarks).
bool fdkSlabsPairWithMirrors(const Geometry& geometry, const fdk::FdkParams& params);

// SIRT, OS-SIRT or SART in slabs (SirtSlabRun.cpp): independent slabs where the geometry is an
// aligned single-axis tilt series (recon/projector/SingleAxisGeometry.h) and the projectors are
// the ET family's, which keep slices apart (out of core like FDK; bit-identical to one process);
// otherwise one block per rank, the ranks exchanging the rows their bands share after every
// forward projection (within float32 rounding of one process), with checkpoints. `report`
// receives the iterative report of the last slab or of this rank's block.
SlabRunReport reconstructIterativeInSlabs(ProjectionRowSource& source,
                                          const iterative::IterativeParams& params,
                                          const SlabRunOptions& options, JobContext& context,
                                          iterative::IterativeReport* report = nullptr);

// True when reconstructIterativeInSlabs runs independent slabs for this geometry, grid and
// projector pair (else one block per rank, exchanging rows).
bool iterativeSlabsAreIndependent(const Geometry& geometry,
                                  const iterative::IterativeParams& params);

// What each rank of a coupled iterative run holds (its block of slabs and band of rows), for the
// plan printed before the run: "rank 1: slices 256..511, rows 300..1023: 3.1 GiB host memory (the
// block's iterate, update and column weights; its band's data, row weights and residual)".
// `volumeFolder`: the blocks are out of core (iterativeVolumeFolder).
std::vector<std::string> iterativeBlockSummary(const SlabPlan& plan, int ranks,
                                               const iterative::IterativeParams& params,
                                               const std::filesystem::path& volumeFolder = {});

// Where a coupled iterative run keeps rank `rank`'s block's volumes (SlabRunOptions::
// volumeFolder): the output's folder when `asked` or when the block's volumes and its band's
// projections would take more than 80 % of `availableBytes` of host memory (0: what the system
// has available); empty (in memory) otherwise.
std::filesystem::path iterativeVolumeFolder(const SlabPlan& plan, int rank, int ranks,
                                            const iterative::IterativeParams& params,
                                            const std::filesystem::path& output, bool asked,
                                            std::uint64_t availableBytes = 0);

// Runs an algorithm slab by slab (the two above are this with FDK's and SIRT's functions).
SlabRunReport runSlabs(ProjectionRowSource& source, const SlabAlgorithm& algorithm,
                       const SlabRunOptions& options, JobContext& context);

}  // namespace tomowb::scale
