// RunComparability: whether a pass / fail verdict applies to two runs (issue #17, point 5;
// docs/qa.md). An accuracy class promises agreement with the reference only for the same
// reconstruction on another kernel variant or device: the same algorithm, the same parameters
// (filter, cutoff, iterations, bounds, grid, ...), the same input data and geometry. Two runs that
// differ in anything else get no pass / fail, only "informative" metrics, and so do runs whose
// records do not say enough to tell.
#pragma once

#include <string>

#include "recon/qa/RunRecord.h"

namespace tomowb::qa {

enum class Comparability {
  Comparable,     // differ at most in kernel variant, tunables or device: a class applies
  NotComparable,  // differ in algorithm, parameters, input or geometry
  Unknown,        // the records do not say enough
};

struct ComparabilityCheck {
  Comparability kind = Comparability::Unknown;
  // NotComparable: what differs ("different algorithms: WBP and SIRT"); Unknown: what is missing
  // ("no run record for B"); Comparable: empty.
  std::string reason;
};

// Compares what two run records say. Ignored: the kernel variants ("variant", "forwardVariant",
// "backVariant"), GPU options and tunables, the device, thread counts, timings, metrics, and the
// records' bookkeeping (run id, title, ROIs, golden-reference links, the stop reason reached).
// Compared: the algorithm, every other parameter, the input files' SHA-256, the recorded input
// ("input": views, rows, cols, path, geometry hash) and the geometry (hash, else the JSON).
ComparabilityCheck checkComparability(const RunRecord& a, const RunRecord& b);

// A check that cannot be made ("no run record for B (b.mhd)").
ComparabilityCheck cannotTell(std::string why);

// Why no class applies, for RunComparison's "informative (...)": "different algorithms: WBP and
// SIRT" or "cannot tell whether the runs are comparable: no run record for B"; empty for
// Comparable.
std::string informativeReason(const ComparabilityCheck& check);

}  // namespace tomowb::qa
