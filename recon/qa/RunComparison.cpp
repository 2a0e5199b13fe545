#include "recon/qa/RunComparison.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "recon/core/Error.h"
#include "recon/metrics/MetricsJson.h"
#include "recon/metrics/RoiStatistics.h"

namespace tomowb::qa {

namespace {

std::string scientific(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.2g", v);
  return b;
}

// Calls fn(index) for every voxel of the region.
template <typename Fn>
void forEachVoxel(const metrics::BoundRegion& region, Fn fn) {
  const VolumeShape& shape = region.shape();
  for (std::int64_t z = 0; z < shape.nz; ++z)
    for (std::int64_t y = 0; y < shape.ny; ++y) {
      const metrics::RowSpan span = region.rowSpan(y, z);
      const std::uint8_t* mask = region.maskRow(y, z);
      const std::int64_t row = (z * shape.ny + y) * shape.nx;
      for (std::int64_t x = span.xBegin; x < span.xEnd; ++x)
        if (!mask || mask[x]) fn(row + x);
    }
}

DifferenceHistogram histogramOf(const Volume& test, const Volume& reference,
                                const metrics::BoundRegion& region, int bins) {
  DifferenceHistogram h;
  h.counts.assign(static_cast<std::size_t>(std::max(bins, 1)), 0);
  double largest = 0;
  forEachVoxel(region, [&](std::int64_t i) {
    const double d = static_cast<double>(test.data()[i]) - reference.data()[i];
    if (std::isfinite(d)) largest = std::max(largest, std::abs(d));
  });
  h.halfRange = largest > 0 ? largest : 1e-30;
  const double width = h.binWidth();
  forEachVoxel(region, [&](std::int64_t i) {
    const double d = static_cast<double>(test.data()[i]) - reference.data()[i];
    if (!std::isfinite(d)) return;
    auto bin = static_cast<std::int64_t>(std::floor((d + h.halfRange) / width));
    bin = std::clamp<std::int64_t>(bin, 0, static_cast<std::int64_t>(h.counts.size()) - 1);
    ++h.counts[static_cast<std::size_t>(bin)];
  });
  return h;
}

}  // namespace

RunComparison compareRuns(const Volume& test, const Volume& reference, const CompareSpec& spec) {
  RunComparison c;
  metrics::CompareOptions options;
  options.computeSsim = spec.computeSsim;
  c.metrics = metrics::compareVolumes(test, reference, spec.region, options);
  const double range = c.metrics.referenceMax - c.metrics.referenceMin;
  c.maxAbsRelative = range > 0 ? c.metrics.maxAbsDifference / range
                               : (c.metrics.maxAbsDifference > 0 ? INFINITY : 0.0);
  const metrics::BoundRegion bound = spec.region.bind(reference);
  c.histogram = histogramOf(test, reference, bound, spec.histogramBins);
  for (const CnrRoi& roi : spec.rois) {
    const auto a = metrics::contrastToNoise(test, roi.roi, roi.background);
    const auto b = metrics::contrastToNoise(reference, roi.roi, roi.background);
    c.cnr.push_back({roi.name, a.cnr, b.cnr});
  }
  if (!spec.informative.empty())
    markInformative(c, spec.informative);
  else if (spec.accuracyClass)
    judge(c, *spec.accuracyClass, spec.tolerances[*spec.accuracyClass]);
  return c;
}

void markInformative(RunComparison& c, const std::string& why) {
  c.accuracyClass.reset();
  c.tolerance.reset();
  c.passed.reset();
  c.informative = why;
  c.verdict = "informative (" + why + ")";
}

void judge(RunComparison& c, AccuracyClass accuracyClass, const Tolerance& t) {
  c.informative.clear();
  c.accuracyClass = accuracyClass;
  c.tolerance = t;
  const bool nrmseOk = c.metrics.nrmse <= t.maxNrmse;
  const bool absOk = c.maxAbsRelative <= t.maxAbsRelative;
  const bool finite = c.metrics.nonFiniteCount == 0;
  c.passed = nrmseOk && absOk && finite;
  c.verdict = std::string(*c.passed ? "pass" : "fail") + " (" + toString(accuracyClass) +
              "): NRMSE " + scientific(c.metrics.nrmse) + (nrmseOk ? " <= " : " > ") +
              scientific(t.maxNrmse) + ", max-abs/range " + scientific(c.maxAbsRelative) +
              (absOk ? " <= " : " > ") + scientific(t.maxAbsRelative);
  if (!finite)
    c.verdict += ", " + std::to_string(c.metrics.nonFiniteCount) + " non-finite differences";
}

nlohmann::json toJson(const RunComparison& c) {
  nlohmann::json j{{"rmse", c.metrics.rmse},
                   {"nrmse", c.metrics.nrmse},
                   {"psnrDb", c.metrics.psnrDb},
                   {"maxAbsDifference", c.metrics.maxAbsDifference},
                   {"maxAbsRelative", c.maxAbsRelative},
                   {"meanBias", c.metrics.meanDifference},
                   {"voxels", c.metrics.voxelCount},
                   {"nonFinite", c.metrics.nonFiniteCount},
                   {"referenceRange", {c.metrics.referenceMin, c.metrics.referenceMax}}};
  j["ssim"] = c.metrics.ssim ? nlohmann::json(*c.metrics.ssim) : nlohmann::json(nullptr);
  j["histogram"] = {{"halfRange", c.histogram.halfRange}, {"counts", c.histogram.counts}};
  nlohmann::json cnr = nlohmann::json::array();
  for (const auto& r : c.cnr)
    cnr.push_back({{"roi", r.name}, {"test", r.cnrTest}, {"reference", r.cnrReference}});
  j["cnr"] = cnr;
  if (c.accuracyClass) {
    j["accuracyClass"] = toString(*c.accuracyClass);
    j["tolerance"] = {{"maxNrmse", c.tolerance->maxNrmse},
                      {"maxAbsRelative", c.tolerance->maxAbsRelative}};
    j["passed"] = *c.passed;
    j["verdict"] = c.verdict;
  } else if (!c.informative.empty()) {
    j["verdict"] = c.verdict;
    j["informative"] = c.informative;
  }
  return j;
}

}  // namespace tomowb::qa
