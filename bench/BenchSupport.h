// Shared by the benchmark programs (DESIGN.md, "Measuring"): run statistics (min, median, max of
// at least kMinTimedRuns timed runs after a warm-up), the float64 backprojection reference at
// sampled voxels, the hardware ceilings of reference/gpu-limits-h100.md, figures cited from
// other runs (never mixed with measured rows), and the stage breakdown of an end-to-end run whose
// columns add up to its wall time. No CUDA here: the CPU benchmark and the tests use it too.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "recon/core/Volume.h"
#include "recon/data/ProjectionStack.h"

namespace tomowb::bench {

// DESIGN.md: every timed row is the min, median and max of at least 5 runs after a warm-up.
inline constexpr int kMinTimedRuns = 5;

struct RunStats {
  double min = 0, median = 0, max = 0;
  int runs = 0;
  // max / min - 1: how far the slowest run lies above the fastest.
  double spread() const { return min > 0 ? max / min - 1.0 : 0.0; }
};

// Throws ParameterError("runs", ...) for an empty list.
RunStats summarize(std::vector<double> seconds);

// "%.*f" and "%.1e" ("n/a" for a non-finite value).
std::string fixed(double value, int digits);
// "62 %" of a ceiling; a rate above the ceiling says so instead of printing a fraction over one
// ("above: 106 %, the cited rate is no bound here"): a microbenchmark's rate for one access
// pattern is not a limit for every kernel. "n/a" without a ceiling.
std::string fractionOfCeiling(double rate, double ceiling);
std::string scientific(double value);
// "min / median / max" of `scale * seconds` with `digits` decimals.
std::string minMedianMax(const RunStats& stats, double scale, int digits);
std::string utcNow(const char* format = "%Y-%m-%d %H:%M UTC");
std::string commandLine(int argc, char** argv);

// ---- float64 reference at sampled voxels -----------------------------------------------------

struct VoxelSample {
  std::int64_t x = 0, y = 0, z = 0;
};

// The centre voxel, then `count - 1` voxels drawn uniformly from the volume (repeatable: the
// draw depends on the shape and `seed` only).
std::vector<VoxelSample> sampleVoxels(const VolumeShape& shape, int count, std::uint64_t seed = 1);

// What fdk.bp.cpu-f64 computes at each sampled voxel of `grid`, in float64: the sum over views
// of the bilinear sample (pixel centres at integer (col, row), zero outside the detector) times
// the FDK weight 1 / w^2 of the view's projection matrix (w = 1 at the isocentre).
std::vector<double> referenceAtSamples(const ProjectionStack& projections, const Volume& grid,
                                       const std::vector<VoxelSample>& samples);

// ||volume - reference|| / ||reference|| over the samples (NaN when the reference is zero).
double relativeL2AtSamples(const Volume& volume, const std::vector<VoxelSample>& samples,
                           const std::vector<double>& reference);

// Zero-mean uniform [-1, 1) pixels, one generator per view (like ramp-filtered data: exposes
// interpolation error that positive data hides), repeatable for any thread count.
void fillZeroMeanRandom(ProjectionStack& stack, std::uint32_t seed = 1000);

// Views [first, first + count) of `stack` with its geometry restricted to those views: the
// benchmark's stand-in for one chunk of views of the GPU pipeline. Throws ParameterError for a
// range outside the stack.
ProjectionStack viewRange(const ProjectionStack& stack, std::int64_t first, std::int64_t count);

// ---- hardware ceilings (reference/gpu-limits-h100.md, measured 2026-11-23 on one H100) ---------

struct SamplingCeiling {
  std::string texel;         // storage and interpolation, e.g. "half2 texels, hardware bilinear"
  double gSamplesPerSecond;  // interpolated samples per second / 1e9 on the H100 (132 SMs)
  std::string source;        // the row of gpu-limits-h100.md it comes from, or how it is derived
};

// The backprojection kernel that ran (fdk.bp.*); nullopt for CPU kernels (the reference has no
// CPU ceiling) and unknown names. One voxel update needs one interpolated sample, so GUPS over
// this ceiling is the fraction of the hardware limit.
std::optional<SamplingCeiling> fdkKernelCeiling(const std::string& kernel);
// The texel format of an FDK kernel for table headings ("half2 texels", "float32 texels",
// "float32, software bilinear", ...); "CPU, float32" or "CPU, float64" for CPU kernels.
std::string fdkTexelFormat(const std::string& kernel);
// Scales an H100 figure to a device of `multiprocessors` SMs at the same clock (the per-SM
// rates are what the reference measured); the H100 and H200 both have 132.
double scaledToDevice(double h100Figure, int multiprocessors);
inline constexpr int kH100Multiprocessors = 132;
// The sampling ceiling of an ET projector from its label (IterativeBenchmark::summary names
// "half2 texels", "float2 texels", ...; the seed orderings and et.bp.voxel read float32 texels
// with hardware linear interpolation): G samples/s on the H100 per Table 1, one sample per
// update. nullopt for software interpolation (matched pair, 3-D software paths).
std::optional<SamplingCeiling> etProjectorCeiling(const std::string& label);
// Pinned host-to-device copy bandwidth on the H100 machine, GB/s (gpu-limits-h100.md).
inline constexpr double kH100PinnedH2DGBs = 55.0;

// ---- cited figures ----------------------------------------------------------------------------

// A figure from another run or paper: printed only in tables headed "cited", with its source,
// date and device, never in a row or a ratio of figures measured by this run.
struct CitedFigure {
  std::string what;    // "2048², 180 views: forward projection, ms per slice"
  std::string value;   // as the source gives it
  std::string source;  // "reference/sirt-et.md section 9 (ASTRA 2.x built from source)"
  std::string date;    // "2026-11-23"
  std::string device;  // "NVIDIA H100 80GB HBM3" or "GTX 480"
};
std::string citedTable(const std::string& title, const std::vector<CitedFigure>& figures);

// ---- end-to-end stage breakdown
// ------------------------------------------------------------------

// One end-to-end FDK run on one GPU (issue #22's pipeline). Three streams overlap the chunks'
// stages: chunk c + 2 uploads (copy stream) while chunk c + 1 is weighted, filtered and converted
// (filter stream) and chunk c is backprojected (compute stream); the host volume is allocated on
// its own thread beside all that, and the download of a finished slab waits for it (hostWait).
// The backprojection, the wait and the download lie on the critical path one after the other:
// wall = hostWait + backproject + download + rest, where rest is the time in no such stage
// (planning, buffers, the first chunk's upload and filtering that nothing hides, launch gaps, the
// filter where it outran the backprojection); hostAlloc, filter and upload overlap and are not
// part of that sum.
struct StageBreakdown {
  double wall = 0, hostAlloc = 0, hostWait = 0, filter = 0, backproject = 0, download = 0;
  double upload = 0;  // on the copy stream, overlapped with filter + backprojection
  double serialStages() const { return hostWait + backproject + download; }
  double rest() const { return wall - serialStages(); }
  double allStages() const { return hostAlloc + filter + backproject + download + upload; }
  // What the overlap saves against running every stage one after the other (>= 0 when the
  // upload is hidden; negative would mean the stages were not overlapped at all).
  double overlapSaved() const { return allStages() - wall; }
};

}  // namespace tomowb::bench
