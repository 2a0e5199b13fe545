// SlabPlan: a reconstruction cut into z-slabs (issue #22; architecture-next.md, "scale/"). Each
// slab is reconstructed on its own from the detector rows its voxels project onto and written to
// the output as it finishes, so neither the volume nor the projections need to fit in memory at
// once, and ranks can share the slabs. The slab boundaries depend only on the grid and the slab
// height, never on how many ranks or restarts a run takes: a slab is always computed the same
// way, which makes 1-, 2- and N-rank runs and a killed-and-resumed run bit-identical.
//
// The plan also says, before the run, what it will take: host memory per slab (the rows read,
// their filtered copy, the slab) and the disk the output needs (checkDiskRoom refuses a folder
// without the room).
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "recon/core/VolumeGrid.h"
#include "recon/geometry/Geometry.h"

namespace tomowb::scale {

struct Slab {
  int index = 0;
  std::int64_t z0 = 0, z1 = 0;  // voxel slices [z0, z1) of the whole grid
  // The detector rows the slab's voxels project onto (with a row either side for bilinear
  // sampling), inclusive, clamped to the detector: all rows when a slab's rays cannot be
  // bounded (a helix, a voxel behind a source).
  std::int64_t rowFirst = 0, rowLast = 0;
  std::int64_t slices() const noexcept { return z1 - z0; }
  std::int64_t rows() const noexcept { return rowLast - rowFirst + 1; }
};

struct SlabPlanOptions {
  std::int64_t slabSlices = 0;  // slices per slab; 0: the most that fit the host memory
  // The host memory a slab may use (rows, filtered rows, the slab); 0: half of what is available.
  std::uint64_t hostMemoryBytes = 0;
  // Slabs streamed through GPU projectors one at a time (an out-of-core iterative run,
  // SlabStreamingPair): what the pair bound to a slab holds on the GPU (slabDeviceBytes) must fit
  // in this many bytes; 0: no GPU holds a slab. The slabs get shorter to
  // fit; slabSlices that do not fit are refused with the height that would.
  std::uint64_t deviceMemoryBytes = 0;
  // Reconstruct slab k together with its mirror image, slab n-1-k (a GPU z-mirror FDK kernel on
  // a geometry and grid with the mirror symmetry, fdk::FdkMirrorPair): where the grid holds more
  // than two slabs, each pair is one piece of work (and its memory, so a height from the host
  // memory is half as tall). The slabs are then laid out from both ends of the grid, what is left
  // in one middle slab (shorter than the others, or taller, below twice their height).
  bool mirrorPairs = false;
  // Ranks that share the pieces of an independent slab run (0: not said). A height from the
  // memory budget is then lowered, where need be, so that each rank gets two pieces or more: a
  // rank reads the next piece's rows and writes the last one's slabs while it reconstructs one
  // (SlabRun.cpp), and one piece for a whole grid overlaps nothing. The height stays at least
  // kMinSharedSlabSlices (a thinner slab reads and filters its cone's extra rows again); as with
  // any height, the last slab (or a mirrored plan's middle one) may be shorter.
  int sharedByRanks = 0;
};
inline constexpr std::int64_t kMinSharedSlabSlices = 8;

struct SlabPlan {
  VolumeGrid grid;
  std::int64_t slabSlices = 0;
  std::vector<Slab> slabs;
  std::int64_t views = 0, cols = 0, detectorRows = 0;
  std::uint64_t volumeBytes = 0;        // the whole output (float32)
  std::uint64_t deviceMemoryBytes = 0;  // SlabPlanOptions::deviceMemoryBytes it was planned for
  bool mirrorPairs = false;             // the slabs go in mirrored pairs (units())
  bool mirrorPairsAsked = false;        // SlabPlanOptions::mirrorPairs (the summary says why not)

  // The pieces of work, in order: each slab alone, or with mirrorPairs slab k with slab n-1-k
  // (lower first; the middle slab of an odd count, which may differ in height, alone). A piece is
  // read, reconstructed and written at once, and ranks share pieces, not slabs.
  std::vector<std::vector<int>> units() const;
  // The grid of one slab: the whole grid's x and y, the slab's slices.
  VolumeGrid slabGrid(const Slab& slab) const;
  // Host memory of one slab's work: its rows of every view, their weighted and filtered copy
  // and the slab's voxels twice (the slab before it is still being written). peakHostBytes: of
  // the largest unit (a mirrored pair holds both slabs), plus the rows of the largest, which the
  // next piece reads ahead while one is reconstructed (where there is more than one piece).
  std::uint64_t slabRowBytes(const Slab& slab) const;  // its rows of every view (float32)
  std::uint64_t slabHostBytes(const Slab& slab) const;
  std::uint64_t peakHostBytes() const;
  // GPU memory of one slab streamed through GPU projectors: what a GPU pair bound to it asks for
  // (seven volumes of the slab's size, four stacks of its rows, 64 MiB).
  std::uint64_t slabDeviceBytes(const Slab& slab) const;
  std::uint64_t peakDeviceBytes() const;
  // The slabs (or units) rank `rank` of `ranks` takes among `pending` (indices into slabs or
  // units()): contiguous shares in order, so each rank writes one region of the output (two with
  // mirrored pairs).
  static std::vector<int> share(const std::vector<int>& pending, int rank, int ranks);
  // Rank `rank`'s share of every slab as one block (an iterative run whose slabs exchange rows):
  // its first slab's index, the slices of the share and the rows all of them project onto; no
  // slices (z0 == z1) when the rank has no slab.
  Slab blockOf(int rank, int ranks) const;
  // "16 slabs of 32 slices (512 x 512 x 512); per slab at most rows 120..391 of 512 of 720
  // views: 1.1 GiB host memory; output 512 MiB" (and the GPU memory of a streamed slab when a
  // GPU limit was planned for).
  std::string summary() const;
  std::string mirrorPairsText() const;  // the summary's part on mirrored pairs
};

// Throws ParameterError for a slab height below 1, a grid without voxels, or a cylindrical
// (arc) detector, which FDK resamples onto a flat one in memory first; OutOfMemoryError when a
// slab of one slice does not fit the host memory or the GPU memory, or slabSlices do not fit the
// GPU memory (naming the height that would).
SlabPlan planSlabs(const Geometry& geometry, const VolumeGrid& grid,
                   const SlabPlanOptions& options = {});

// Free bytes on the file system that holds `path` (its folder if it does not exist yet).
std::uint64_t freeDiskBytes(const std::filesystem::path& path);

// Throws IoError naming the folder, the bytes needed and the bytes free when the file system
// holding `output` has less than `bytes` free. `freeBytes`: the figure to use instead of asking
// the file system (tests).
void checkDiskRoom(const std::filesystem::path& output, std::uint64_t bytes,
                   std::optional<std::uint64_t> freeBytes = std::nullopt,
                   const std::string& what = {});  // "with its two checkpoints": in the message

}  // namespace tomowb::scale
