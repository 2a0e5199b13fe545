// VariantSweep: run every registered variant of an algorithm on the same input (issue #9, point
// 3), time each (median of several runs, warm-up excluded), compare each result with the CPU
// float64 reference (RunComparison, judged against the variant's accuracy class), and check
// repeat-run determinism from the timed runs themselves; projector pairs also get the adjoint
// test. New variants join the sweep by being registered: nothing here names them.
//   FDK: every "fdk.bp." variant; reference "fdk.bp.cpu-f64".
//   SIRT (ET): every "et.fp." variant with the default backprojector of its device, and every
//   "et.bp." variant with the default forward projector of its device. A matched pair and an
//   unmatched one converge to different iterates, so each row is compared with the CPU pair of
//   its own kind: et.fp.cpu + et.bp.cpu-matched (float64 sums, the exact transpose) for matched
//   pairs, et.fp.cpu + et.bp.cpu-voxel for pairs with a voxel-driven backprojector.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "recon/core/Volume.h"
#include "recon/data/ProjectionStack.h"
#include "recon/fdk/Fdk.h"
#include "recon/iterative/IterativeReconstruction.h"
#include "recon/job/JobContext.h"
#include "recon/qa/HealthChecks.h"
#include "recon/qa/RunComparison.h"

namespace tomowb::qa {

struct SweepOptions {
  int repeats = 5;  // timed runs per variant (median reported; >= 2 also checks determinism)
  int warmups = 1;  // untimed runs first (GPU context, texture caches, JIT)
  bool cpu = true;  // include variants that run on the CPU
  bool gpu = true;  // include GPU variants (skipped with a reason when no GPU is present)
  std::vector<std::string> only;  // names or name prefixes to keep; empty: all
  metrics::Region region = metrics::Region::whole();
  bool computeSsim = true;
  ToleranceTable tolerances;
  bool adjointTests = true;  // SIRT: the dot-product test of each row's projector pair
};

struct SweepRow {
  std::string label;                    // "fdk.bp.fast" or "et.fp.fast + et.bp.fast"
  std::string forwardVariant, variant;  // variant: the swept one (FDK: the backprojector)
  AccuracyClass accuracyClass = AccuracyClass::Exact;
  bool ran = false;
  std::string skipped;  // why not ("no GPU (built without CUDA ...)", ...)
  std::string failed;   // the error message when the run failed
  // Kernel time of each timed run: FDK the backprojection, SIRT forward + back per iteration.
  std::vector<double> seconds;
  double medianSeconds = 0;       // kernel time, median of the timed runs
  double medianTotalSeconds = 0;  // wall time of the whole run (filter, transfers ...), median
  double gups = 0;                // voxel updates per second / 1e9 at the median kernel time
  std::string device;
  std::string reference;  // the label of the reference it is compared with
  // The row runs the reference's own variants: its comparison measures run-to-run agreement, not
  // accuracy, so it has no pass / fail (verdict "reference").
  bool isReference = false;
  std::optional<RunComparison> comparison;  // against that reference
  DeterminismReport determinism;
  std::optional<AdjointReport> adjoint;
  bool onParetoFront = false;  // no other row is both faster and more accurate
  Volume centralSlice;         // the result's middle z slice (nz = 1), for the report
};

struct SweepResult {
  std::string algorithm;  // "FDK", "SIRT"
  std::string input;      // for the report
  std::string reference;  // the main reference's label
  double referenceSeconds = 0;
  std::vector<SweepRow> rows;
  Volume referenceVolume;  // the main reference's result (for the report's pictures)
};

SweepResult sweepFdk(const ProjectionStack& projections, const fdk::FdkParams& base,
                     const SweepOptions& options, JobContext& context);
SweepResult sweepSirt(const ProjectionStack& projections, const iterative::IterativeParams& base,
                      const SweepOptions& options, JobContext& context);

// "reference", "pass", "FAIL", "skipped: why", "failed: why" (tables, reports, the CLI).
std::string rowVerdict(const SweepRow& row);

// "variant 3 of 9: fdk.bp.tex" (the sweep's progress stage).
std::string sweepStage(std::size_t index, std::size_t count, const std::string& label);

// The middle z slice of a volume as a one-slice volume (same x, y grid).
Volume centralSlice(const Volume& volume);

nlohmann::json toJson(const SweepResult& result);

}  // namespace tomowb::qa
