// SlabPlan: see the header. A slab's detector rows come from projecting the corners of its box
// (voxel centres +- half a voxel) in every view: a projective map sends the box to the convex
// hull of its corners' images as long as every corner lies in front of the source.
#include "recon/scale/SlabPlan.h"

#include <sys/statvfs.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <optional>

#include "recon/core/CheckedSize.h"
#include "recon/core/Error.h"
#include "recon/core/MemoryBudget.h"
#include "recon/fdk/HelicalOrbit.h"

namespace tomowb::scale {

namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

std::string bytesText(std::uint64_t bytes) {
  char text[32];
  if (bytes >= (std::uint64_t{1} << 30))
    std::snprintf(text, sizeof text, "%.1f GiB", double(bytes) / kGiB);
  else if (bytes >= (std::uint64_t{1} << 20))
    std::snprintf(text, sizeof text, "%.1f MiB", double(bytes) / (1024.0 * 1024.0));
  else
    std::snprintf(text, sizeof text, "%llu bytes", static_cast<unsigned long long>(bytes));
  return text;
}

// The rows [first, last] the voxels of slices [z0, z1) project onto in any view, or all rows.
std::pair<std::int64_t, std::int64_t> rowWindow(const Geometry& geometry,
                                                const std::vector<ProjectionMatrix>& matrices,
                                                const VolumeGrid& grid, std::int64_t z0,
                                                std::int64_t z1, bool bounded) {
  const std::int64_t rows = geometry.detector().rows;
  if (!bounded) return {0, rows - 1};
  const Eigen::Vector3d& o = grid.originMm;
  const Eigen::Vector3d& s = grid.voxelSizeMm;
  const double xs[2] = {o.x() - 0.5 * s.x(), o.x() + (double(grid.shape.nx) - 0.5) * s.x()};
  const double ys[2] = {o.y() - 0.5 * s.y(), o.y() + (double(grid.shape.ny) - 0.5) * s.y()};
  const double zs[2] = {o.z() + (double(z0) - 0.5) * s.z(), o.z() + (double(z1) - 0.5) * s.z()};
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  for (const ProjectionMatrix& p : matrices)
    for (double x : xs)
      for (double y : ys)
        for (double z : zs) {
          const Eigen::Vector3d h = p * Eigen::Vector4d(x, y, z, 1.0);
          if (!(h.z() > 0.0)) return {0, rows - 1};  // behind a source: no bound
          const double row = h.y() / h.z();
          lo = std::min(lo, row);
          hi = std::max(hi, row);
        }
  // A row either side for bilinear sampling.
  const auto first = static_cast<std::int64_t>(
      std::clamp(std::floor(lo) - 1.0, 0.0, static_cast<double>(rows - 1)));
  const auto last = static_cast<std::int64_t>(
      std::clamp(std::ceil(hi) + 1.0, 0.0, static_cast<double>(rows - 1)));
  return {first, std::max(first, last)};
}

// Mirrored pairs (SlabPlanOptions::mirrorPairs) where the slabs, laid out symmetrically
// (slabBounds), number three or more: more than two slabs' height. Two slabs would pair into the
// whole grid, which then runs as two.
bool pairsMirrors(std::int64_t nz, std::int64_t slabSlices, bool asked) {
  return asked && nz > 2 * slabSlices;
}

// The slabs' slices [z0, z1): `slabSlices` each from z = 0, the last one what is left; mirrored,
// `slabSlices` each from both ends and what is left in one middle slab (shorter than the others
// where an even count of them fits, else taller, below twice their height), so that slab k and
// slab n-1-k are mirror images for any height.
std::vector<std::pair<std::int64_t, std::int64_t>> slabBounds(std::int64_t nz,
                                                              std::int64_t slabSlices,
                                                              bool mirrored) {
  std::vector<std::pair<std::int64_t, std::int64_t>> bounds;
  const std::int64_t full = nz / slabSlices, left = nz % slabSlices;
  if (!mirrored || left == 0) {
    for (std::int64_t z0 = 0; z0 < nz; z0 += slabSlices)
      bounds.emplace_back(z0, std::min(nz, z0 + slabSlices));
    return bounds;
  }
  const std::int64_t eachEnd = full / 2;
  for (std::int64_t k = 0; k < eachEnd; ++k)
    bounds.emplace_back(k * slabSlices, (k + 1) * slabSlices);
  bounds.emplace_back(eachEnd * slabSlices, nz - eachEnd * slabSlices);
  for (std::int64_t k = eachEnd - 1; k >= 0; --k)
    bounds.emplace_back(nz - (k + 1) * slabSlices, nz - k * slabSlices);
  return bounds;
}

SlabPlan planWith(const Geometry& geometry, const std::vector<ProjectionMatrix>& matrices,
                  const VolumeGrid& grid, std::int64_t slabSlices, bool bounded, bool mirrorPairs) {
  SlabPlan plan;
  plan.mirrorPairs = pairsMirrors(grid.shape.nz, slabSlices, mirrorPairs);
  plan.mirrorPairsAsked = mirrorPairs;
  plan.grid = grid;
  plan.slabSlices = slabSlices;
  plan.views = geometry.viewCount();
  plan.cols = geometry.detector().cols;
  plan.detectorRows = geometry.detector().rows;
  plan.volumeBytes =
      productOrThrow("volume size", {grid.shape.nx, grid.shape.ny, grid.shape.nz, 4});
  int index = 0;
  for (const auto& [z0, z1] : slabBounds(grid.shape.nz, slabSlices, plan.mirrorPairs)) {
    Slab slab;
    slab.index = index++;
    slab.z0 = z0;
    slab.z1 = z1;
    std::tie(slab.rowFirst, slab.rowLast) =
        rowWindow(geometry, matrices, grid, slab.z0, slab.z1, bounded);
    plan.slabs.push_back(slab);
  }
  return plan;
}

// The tallest height in [1, top] whose plan passes `fits` (needs grow with the height).
template <typename Plan, typename Fits>
SlabPlan tallestPlan(std::int64_t top, const Plan& plan, const Fits& fits) {
  std::int64_t lo = 1, hi = top;
  SlabPlan best = plan(1);
  while (lo < hi) {
    const std::int64_t mid = lo + (hi - lo + 1) / 2;
    SlabPlan candidate = plan(mid);
    if (fits(candidate)) {
      lo = mid;
      best = std::move(candidate);
    } else {
      hi = mid - 1;
    }
  }
  return best;
}

// Mirrored pairs from a memory budget: the tallest height at most `single` (the tallest slab that
// fits half the budget: one slab of a pair) whose symmetric plan pairs and fits; where a height at
// least half as tall splits the grid evenly into three or more slabs that fit, the tallest such
// (slabs of one height, no odd middle one). None when no height pairs (one or two slices).
template <typename Plan, typename Fits>
std::optional<SlabPlan> mirrorPairsWithin(std::int64_t nz, std::int64_t single, const Plan& plan,
                                          const Fits& fits) {
  const auto pairsAndFits = [&](const SlabPlan& p) { return p.mirrorPairs && fits(p); };
  SlabPlan symmetric = tallestPlan(single, plan, pairsAndFits);
  if (!pairsAndFits(symmetric)) return std::nullopt;
  const std::int64_t tallest = symmetric.slabSlices;
  for (std::int64_t count = std::max<std::int64_t>(3, (nz + tallest - 1) / tallest);
       2 * (nz / count) >= tallest; ++count) {
    if (nz % count != 0) continue;
    SlabPlan even = plan(nz / count);
    if (pairsAndFits(even)) return even;
  }
  return symmetric;
}

// SlabPlanOptions::sharedByRanks: `chosen` (the tallest plan that fits) with slabs low enough
// that each rank gets two pieces, where the grid has the slices for it; a plan of that height
// that does not fit (`fits`) leaves `chosen`. Slabs of ceil(nz / wanted) first, for slabs of one
// height, else of floor(nz / wanted), which always gives enough; neither below the least height
// (then as many pieces as that gives), and at least two slabs of it.
template <typename Plan, typename Fits>
SlabPlan piecesForRanks(SlabPlan chosen, std::int64_t nz, const SlabPlanOptions& options,
                        const Plan& plan, const Fits& fits) {
  if (options.sharedByRanks < 1) return chosen;
  const std::size_t wanted = 2 * static_cast<std::size_t>(options.sharedByRanks);
  if (chosen.units().size() >= wanted) return chosen;
  // Mirrored pairs take two slabs a piece.
  const std::int64_t slabs = std::int64_t(wanted) * (options.mirrorPairs ? 2 : 1);
  const std::int64_t least = std::min(kMinSharedSlabSlices, chosen.slabSlices);
  for (const std::int64_t even : {(nz + slabs - 1) / slabs, nz / slabs}) {
    const std::int64_t height = std::max(even, least);
    if (height >= chosen.slabSlices || nz / height < 2) continue;
    SlabPlan lower = plan(height);
    if (fits(lower) && (lower.units().size() >= wanted || height == least)) return lower;
  }
  return chosen;
}

}  // namespace

VolumeGrid SlabPlan::slabGrid(const Slab& slab) const {
  VolumeGrid g = grid;
  g.shape.nz = slab.slices();
  g.originMm.z() = grid.originMm.z() + double(slab.z0) * grid.voxelSizeMm.z();
  return g;
}

std::uint64_t SlabPlan::slabRowBytes(const Slab& slab) const {
  return productOrThrow("slab rows", {views, slab.rows(), cols, 4});
}

std::uint64_t SlabPlan::slabHostBytes(const Slab& slab) const {
  const std::uint64_t rowBytes = slabRowBytes(slab);
  // The weighted, filtered copy is as large again, plus the filter's column extension (at most
  // a quarter more for an offset detector); then the slab's voxels.
  const std::uint64_t voxels =
      productOrThrow("slab size", {grid.shape.nx, grid.shape.ny, slab.slices(), 4});
  // Two slabs: one being written while the next is reconstructed (SlabRun.cpp).
  return rowBytes + rowBytes + rowBytes / 4 + 2 * voxels;
}

std::uint64_t SlabPlan::peakHostBytes() const {
  std::uint64_t peak = 0, rowsAhead = 0;
  const std::vector<std::vector<int>> pieces = units();
  for (const std::vector<int>& unit : pieces) {
    std::uint64_t bytes = 0, rows = 0;
    for (const int i : unit) {
      bytes += slabHostBytes(slabs[static_cast<std::size_t>(i)]);
      rows += slabRowBytes(slabs[static_cast<std::size_t>(i)]);
    }
    peak = std::max(peak, bytes);
    rowsAhead = std::max(rowsAhead, rows);
  }
  // The next piece's rows, read while this one is reconstructed (SlabRun.cpp).
  return pieces.size() > 1 ? peak + rowsAhead : peak;
}

std::vector<std::vector<int>> SlabPlan::units() const {
  const auto n = static_cast<int>(slabs.size());
  std::vector<std::vector<int>> out;
  if (!mirrorPairs) {
    for (int i = 0; i < n; ++i) out.push_back({i});
    return out;
  }
  for (int k = 0; k < n - 1 - k; ++k) out.push_back({k, n - 1 - k});
  if (n % 2 == 1) out.push_back({n / 2});
  return out;
}

std::uint64_t SlabPlan::slabDeviceBytes(const Slab& slab) const {
  // What a GPU pair bound to the slab asks for (GpuSfPair.cpp, GpuEtPair.cpp): the slab and six
  // more volumes of scratch and solver arrays, its rows and three more stacks, 64 MiB besides.
  const std::uint64_t rows = productOrThrow("slab rows", {views, slab.rows(), cols, 4});
  const std::uint64_t voxels =
      productOrThrow("slab size", {grid.shape.nx, grid.shape.ny, slab.slices(), 4});
  return 7 * voxels + 4 * rows + (std::uint64_t{64} << 20);
}

std::uint64_t SlabPlan::peakDeviceBytes() const {
  std::uint64_t peak = 0;
  for (const Slab& s : slabs) peak = std::max(peak, slabDeviceBytes(s));
  return peak;
}

std::vector<int> SlabPlan::share(const std::vector<int>& pending, int rank, int ranks) {
  if (ranks < 1 || rank < 0 || rank >= ranks) return {};
  const std::size_t n = pending.size();
  const std::size_t first = n * static_cast<std::size_t>(rank) / static_cast<std::size_t>(ranks);
  const std::size_t last = n * static_cast<std::size_t>(rank + 1) / static_cast<std::size_t>(ranks);
  return {pending.begin() + static_cast<std::ptrdiff_t>(first),
          pending.begin() + static_cast<std::ptrdiff_t>(last)};
}

Slab SlabPlan::blockOf(int rank, int ranks) const {
  std::vector<int> all(slabs.size());
  for (std::size_t i = 0; i < all.size(); ++i) all[i] = static_cast<int>(i);
  const std::vector<int> mine = share(all, rank, ranks);
  Slab block;
  if (mine.empty()) return block;
  block = slabs[static_cast<std::size_t>(mine.front())];
  for (const int i : mine) {
    const Slab& s = slabs[static_cast<std::size_t>(i)];
    block.z1 = s.z1;
    block.rowFirst = std::min(block.rowFirst, s.rowFirst);
    block.rowLast = std::max(block.rowLast, s.rowLast);
  }
  return block;
}

// Whether the slabs go in mirrored pairs, and where they were asked for but cannot, why (a slab
// off the centre then runs the kernel without the mirror, at half its speed).
std::string SlabPlan::mirrorPairsText() const {
  if (mirrorPairs) return "; each slab k with its mirror image n-1-k, for the z-mirror kernel";
  if (!mirrorPairsAsked || slabs.size() < 2) return "";
  return "; slabs not in mirrored pairs (two slabs: each runs the kernel without the mirror; a "
         "--slab-slices below " +
         std::to_string((grid.shape.nz + 1) / 2) + " gives pairs)";
}

std::string SlabPlan::summary() const {
  std::int64_t widest = 0;
  std::int64_t first = detectorRows, last = -1;
  for (const Slab& s : slabs) {
    if (s.rows() > widest) {
      widest = s.rows();
      first = s.rowFirst;
      last = s.rowLast;
    }
  }
  // A mirrored plan's middle slab holds what the others leave (slabBounds).
  const Slab& middle = slabs[slabs.size() / 2];
  const std::string odd = mirrorPairs && middle.slices() != slabSlices
                              ? ", the middle one " + std::to_string(middle.slices())
                              : "";
  return std::to_string(slabs.size()) + " slab" + (slabs.size() == 1 ? "" : "s") + " of " +
         std::to_string(slabSlices) + " slices" + odd + " (" + std::to_string(grid.shape.nx) +
         " x " + std::to_string(grid.shape.ny) + " x " + std::to_string(grid.shape.nz) +
         "); per slab at most rows " + std::to_string(first) + ".." + std::to_string(last) +
         " of " + std::to_string(detectorRows) + " of " + std::to_string(views) +
         " views: " + bytesText(peakHostBytes()) + " host memory" +
         (deviceMemoryBytes > 0 ? ", " + bytesText(peakDeviceBytes()) + " GPU memory" : "") +
         "; output " + bytesText(volumeBytes) + mirrorPairsText();
}

SlabPlan planSlabs(const Geometry& geometry, const VolumeGrid& grid,
                   const SlabPlanOptions& options) {
  if (grid.shape.nx < 1 || grid.shape.ny < 1 || grid.shape.nz < 1)
    throw ParameterError("volume", "has no voxels to reconstruct in slabs");
  if (options.slabSlices < 0)
    throw ParameterError("slab slices", "must be at least 1 (or 0: from the host memory), got " +
                                            std::to_string(options.slabSlices));
  for (std::int64_t i = 0; i < geometry.viewCount(); ++i)
    if (geometry.view(i).surface == DetectorSurface::Cylinder)
      throw ParameterError("geometry",
                           "view " + std::to_string(i) +
                               " has a cylindrical (arc) detector: FDK resamples it onto a flat "
                               "detector in memory, so it cannot run in slabs; resample it first "
                               "(tomowb-cli convert) or reconstruct in memory");
  std::vector<ProjectionMatrix> matrices;
  matrices.reserve(static_cast<std::size_t>(geometry.viewCount()));
  for (std::int64_t i = 0; i < geometry.viewCount(); ++i)
    matrices.push_back(geometry.projectionMatrix(i));
  // A helix's weights depend on where a row lies on the whole detector: its slabs read every row.
  const bool bounded = !fdk::HelicalOrbit::sourcesLeaveThePlane(geometry);
  const std::uint64_t device = options.deviceMemoryBytes;
  const auto plan = [&](std::int64_t slices) {
    SlabPlan p = planWith(geometry, matrices, grid, slices, bounded, options.mirrorPairs);
    p.deviceMemoryBytes = device;
    return p;
  };
  const auto fitsDevice = [&](const SlabPlan& p) {
    return device == 0 || p.peakDeviceBytes() <= device;
  };
  // The tallest slab that passes `fits` (whose need grows with the slab's height), at most `top`.
  const auto tallest = [&](std::int64_t top, const auto& fits) {
    return tallestPlan(top, plan, fits);
  };
  const SlabPlan thinnest = plan(1);
  if (!fitsDevice(thinnest))
    throw OutOfMemoryError("a slab of one slice and its detector rows need " +
                           bytesText(thinnest.peakDeviceBytes()) + " of GPU memory and " +
                           bytesText(device) +
                           " is free for them: give fewer views or columns, or a larger GPU");
  if (options.slabSlices > 0) {
    SlabPlan asked = plan(std::min(options.slabSlices, grid.shape.nz));
    if (!fitsDevice(asked)) {
      const SlabPlan fit = tallest(asked.slabSlices, fitsDevice);
      throw OutOfMemoryError(
          "slabs of " + std::to_string(asked.slabSlices) + " slices and their detector rows need " +
          bytesText(asked.peakDeviceBytes()) + " of GPU memory and " + bytesText(device) +
          " is free for them: give --slab-slices " + std::to_string(fit.slabSlices) + " or fewer");
    }
    return asked;
  }
  // The tallest slab that fits the budgets: the memory needs grow with the slab's height.
  std::uint64_t budget = options.hostMemoryBytes;
  if (budget == 0) budget = availableHostMemoryBytes() / 2;
  if (thinnest.peakHostBytes() > budget)
    throw OutOfMemoryError("a slab of one slice needs " + bytesText(thinnest.peakHostBytes()) +
                           " of host memory and " + bytesText(budget) +
                           " is available for it: give fewer views or columns, or more memory");
  const auto fitsBoth = [&](const SlabPlan& p) {
    return p.peakHostBytes() <= budget && fitsDevice(p);
  };
  const SlabPlan tallestFit = [&] {
    // The whole grid first: one slab reads nothing ahead, so it may fit where a slab one slice
    // shorter does not.
    if (SlabPlan whole = plan(grid.shape.nz); fitsBoth(whole)) return whole;
    if (!options.mirrorPairs) return tallest(grid.shape.nz, fitsBoth);
    // Mirrored pairs: from the tallest single slab that fits half the budget; else unpaired.
    const auto single = [&](std::int64_t slices) {
      return planWith(geometry, matrices, grid, slices, bounded, false);
    };
    const SlabPlan half = tallestPlan(grid.shape.nz, single, [&](const SlabPlan& p) {
      return p.peakHostBytes() <= budget / 2 && fitsDevice(p);
    });
    if (std::optional<SlabPlan> paired =
            mirrorPairsWithin(grid.shape.nz, half.slabSlices, plan, fitsBoth))
      return std::move(*paired);
    return tallest(grid.shape.nz, fitsBoth);
  }();
  return piecesForRanks(tallestFit, grid.shape.nz, options, plan, fitsBoth);
}

namespace {
// The folder that holds (or will hold) `path`: the nearest one of its ancestors that exists.
std::filesystem::path existingFolderOf(const std::filesystem::path& path) {
  std::error_code ec;
  std::filesystem::path folder = path;
  while (!folder.empty() && !std::filesystem::is_directory(folder, ec))
    folder = folder.parent_path();
  return folder.empty() ? std::filesystem::path(".") : folder;
}
}  // namespace

std::uint64_t freeDiskBytes(const std::filesystem::path& path) {
  const std::filesystem::path folder = existingFolderOf(path);
  struct statvfs info {};
  if (::statvfs(folder.c_str(), &info) != 0) {
    char buffer[256];
    throw IoError(folder, std::string("cannot read its free space: ") +
                              ::strerror_r(errno, buffer, sizeof buffer));
  }
  return static_cast<std::uint64_t>(info.f_bavail) * static_cast<std::uint64_t>(info.f_frsize);
}

void checkDiskRoom(const std::filesystem::path& output, std::uint64_t bytes,
                   std::optional<std::uint64_t> freeBytes, const std::string& what) {
  const std::uint64_t free = freeBytes.has_value() ? *freeBytes : freeDiskBytes(output);
  if (free >= bytes) return;
  const std::filesystem::path folder =
      existingFolderOf(output.has_filename() ? output.parent_path() : output);
  throw IoError(folder, "has " + bytesText(free) + " free, and the output " +
                            output.filename().string() + (what.empty() ? "" : " " + what) +
                            " needs " + bytesText(bytes) +
                            ": free some space or write it elsewhere");
}

}  // namespace tomowb::scale
