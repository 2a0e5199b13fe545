// RunComparison: one run's volume against another's (two variants, a GPU run against the CPU
// float64 reference, or two algorithms): the metrics table of the compare view and of
// `tomowb-cli compare` (max-abs, NRMSE, PSNR, SSIM, mean bias), the difference histogram, the
// CNR of saved ROIs in both, and pass / fail against the test variant's accuracy class where one
// applies (RunComparability: the same reconstruction on another variant or device), else an
// "informative" verdict that says why there is none.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "recon/core/Volume.h"
#include "recon/metrics/ImageMetrics.h"
#include "recon/metrics/Region.h"
#include "recon/variant/AccuracyClass.h"

namespace tomowb::qa {

// Counts of (test - reference) over the region, in `bins` equal bins over a range symmetric
// about 0 (+-the largest |difference|, or +-1e-30 when the volumes are equal).
struct DifferenceHistogram {
  double halfRange = 0;
  std::vector<std::int64_t> counts;
  double binWidth() const { return counts.empty() ? 0 : 2 * halfRange / counts.size(); }
  double binCentre(std::size_t i) const { return -halfRange + (i + 0.5) * binWidth(); }
};

// A named ROI with its background, for CNR = |mean roi - mean bg| / std bg.
struct CnrRoi {
  std::string name;
  metrics::Region roi;
  metrics::Region background;
};

struct RoiCnr {
  std::string name;
  double cnrTest = 0, cnrReference = 0;
};

struct CompareSpec {
  metrics::Region region = metrics::Region::whole();
  bool computeSsim = true;
  int histogramBins = 101;
  std::vector<CnrRoi> rois;
  // The class the test run's variant belongs to; unset: no pass / fail verdict.
  std::optional<AccuracyClass> accuracyClass;
  ToleranceTable tolerances;
  // Why no class applies ("different algorithms: WBP and SIRT", from RunComparability): when set,
  // the comparison is informative whatever accuracyClass says.
  std::string informative;
};

struct RunComparison {
  metrics::ComparisonMetrics metrics;
  double maxAbsRelative = 0;  // max |d| / reference range
  DifferenceHistogram histogram;
  std::vector<RoiCnr> cnr;
  std::optional<AccuracyClass> accuracyClass;
  std::optional<Tolerance> tolerance;
  std::optional<bool> passed;  // set when a class was given and applies
  // "pass (exact): NRMSE 3.1e-05 <= 1e-03, ...", "fail (...)", "informative (why)" or empty.
  std::string verdict;
  std::string informative;  // why there is no pass / fail (empty when judged or no class given)
};

// ParameterError when the shapes differ or the region selects nothing (as compareVolumes).
RunComparison compareRuns(const Volume& test, const Volume& reference, const CompareSpec& spec);

// The pass / fail rule, also for re-judging a comparison with edited limits (the GUI's table):
// every limit holds and no difference is NaN or infinite. Sets accuracyClass, tolerance, passed
// and verdict ("pass (exact): NRMSE 3.1e-05 <= 0.0001, max-abs/range 0.0002 <= 0.001").
void judge(RunComparison& comparison, AccuracyClass accuracyClass, const Tolerance& tolerance);

// No pass / fail: clears the class, tolerance and passed, sets informative and the verdict
// "informative (why)".
void markInformative(RunComparison& comparison, const std::string& why);

nlohmann::json toJson(const RunComparison& c);

}  // namespace tomowb::qa
