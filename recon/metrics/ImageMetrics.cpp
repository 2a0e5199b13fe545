#include "recon/metrics/ImageMetrics.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "recon/core/Error.h"
#include "recon/metrics/StructuralSimilarity.h"

namespace tomowb::metrics {

namespace {

// Rows are summed in fixed blocks, and the blocks in order, so the figures do not depend on the
// number of threads.
constexpr std::int64_t kRowsPerBlock = 64;

struct DifferenceSums {
  double sumSquared = 0.0;
  double sum = 0.0;
  double maxAbs = 0.0;
  double referenceMin = std::numeric_limits<double>::infinity();
  double referenceMax = -std::numeric_limits<double>::infinity();
  std::int64_t count = 0;
  std::int64_t nonFinite = 0;

  void add(const DifferenceSums& other) {
    sumSquared += other.sumSquared;
    sum += other.sum;
    maxAbs = std::max(maxAbs, other.maxAbs);
    referenceMin = std::min(referenceMin, other.referenceMin);
    referenceMax = std::max(referenceMax, other.referenceMax);
    count += other.count;
    nonFinite += other.nonFinite;
  }
};

DifferenceSums sumDifferences(const Volume& test, const Volume& reference,
                              const BoundRegion& region) {
  const std::int64_t nx = reference.nx();
  const std::int64_t ny = reference.ny();
  const std::int64_t rows = ny * reference.nz();
  const std::int64_t blocks = (rows + kRowsPerBlock - 1) / kRowsPerBlock;
  std::vector<DifferenceSums> partial(static_cast<std::size_t>(blocks));
#pragma omp parallel for schedule(dynamic)
  for (std::int64_t block = 0; block < blocks; ++block) {
    DifferenceSums sums;
    const std::int64_t rowEnd = std::min(rows, (block + 1) * kRowsPerBlock);
    for (std::int64_t row = block * kRowsPerBlock; row < rowEnd; ++row) {
      const std::int64_t y = row % ny;
      const std::int64_t z = row / ny;
      const RowSpan span = region.rowSpan(y, z);
      const std::uint8_t* mask = region.maskRow(y, z);
      const float* t = test.data() + row * nx;
      const float* r = reference.data() + row * nx;
      for (std::int64_t x = span.xBegin; x < span.xEnd; ++x) {
        if (mask != nullptr && mask[x] == 0) continue;
        const double rv = r[x];
        const double d = static_cast<double>(t[x]) - rv;
        if (!std::isfinite(d)) ++sums.nonFinite;
        sums.sumSquared += d * d;
        sums.sum += d;
        sums.maxAbs = std::max(sums.maxAbs, std::abs(d));
        sums.referenceMin = std::min(sums.referenceMin, rv);
        sums.referenceMax = std::max(sums.referenceMax, rv);
        ++sums.count;
      }
    }
    partial[static_cast<std::size_t>(block)] = sums;
  }
  DifferenceSums total;
  for (const DifferenceSums& sums : partial) total.add(sums);
  return total;
}

}  // namespace

void requireSameShape(const Volume& test, const Volume& reference) {
  if (!(test.shape() == reference.shape()))
    throw ParameterError("test volume", "shape " + shapeText(test.shape()) +
                                            " does not match the reference's " +
                                            shapeText(reference.shape()));
  if (test.empty()) throw ParameterError("test volume", "is empty");
}

ComparisonMetrics compareVolumes(const Volume& test, const Volume& reference, const Region& region,
                                 const CompareOptions& options) {
  requireSameShape(test, reference);
  if (options.dataRange && (!std::isfinite(*options.dataRange) || !(*options.dataRange > 0.0)))
    throw ParameterError("dataRange",
                         "must be finite and > 0, got " + std::to_string(*options.dataRange));
  const BoundRegion bound = region.bind(reference);
  bound.throwIfEmpty();

  const DifferenceSums sums = sumDifferences(test, reference, bound);
  constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
  constexpr double kInfinity = std::numeric_limits<double>::infinity();
  ComparisonMetrics metrics;
  metrics.voxelCount = sums.count;
  metrics.nonFiniteCount = sums.nonFinite;
  metrics.referenceMin = sums.referenceMin;
  metrics.referenceMax = sums.referenceMax;
  const double range = sums.referenceMax - sums.referenceMin;
  metrics.dataRange = options.dataRange.value_or(range);
  if (sums.nonFinite > 0) {
    metrics.rmse = metrics.nrmse = metrics.psnrDb = kNaN;
    if (options.computeSsim) metrics.ssim = kNaN;
    metrics.maxAbsDifference = metrics.meanDifference = kNaN;
    return metrics;
  }
  const double count = static_cast<double>(sums.count);
  metrics.rmse = std::sqrt(sums.sumSquared / count);
  metrics.meanDifference = sums.sum / count;
  metrics.maxAbsDifference = sums.maxAbs;
  metrics.nrmse = range > 0.0 ? metrics.rmse / range : (metrics.rmse == 0.0 ? 0.0 : kInfinity);
  // 20 log10(peak / 0) = +inf for identical volumes; a zero peak gives -inf otherwise.
  if (metrics.rmse == 0.0)
    metrics.psnrDb = kInfinity;
  else if (metrics.dataRange > 0.0)
    metrics.psnrDb = 20.0 * std::log10(metrics.dataRange / metrics.rmse);
  else
    metrics.psnrDb = -kInfinity;
  if (options.computeSsim)
    metrics.ssim = structuralSimilarity(test, reference, bound, metrics.dataRange);
  return metrics;
}

}  // namespace tomowb::metrics
