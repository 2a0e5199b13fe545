#include "recon/metrics/RoiStatistics.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "recon/core/Error.h"

namespace tomowb::metrics {

namespace {

// Rows per block of the deterministic block sums (see the file comment of the header).
constexpr std::int64_t kRowsPerBlock = 64;

// Calls visit(value) for every region voxel of rows [rowBegin, rowEnd) (row = z*ny + y).
template <typename Visit>
void visitRows(const Volume& volume, const BoundRegion& region, std::int64_t rowBegin,
               std::int64_t rowEnd, Visit&& visit) {
  const std::int64_t nx = volume.nx();
  const std::int64_t ny = volume.ny();
  for (std::int64_t row = rowBegin; row < rowEnd; ++row) {
    const RowSpan span = region.rowSpan(row % ny, row / ny);
    const std::uint8_t* mask = region.maskRow(row % ny, row / ny);
    const float* values = volume.data() + row * nx;
    for (std::int64_t x = span.xBegin; x < span.xEnd; ++x)
      if (mask == nullptr || mask[x] != 0) visit(static_cast<double>(values[x]));
  }
}

struct FirstPass {
  double sum = 0.0;
  double min = std::numeric_limits<double>::infinity();
  double max = -std::numeric_limits<double>::infinity();
  std::int64_t count = 0;
  std::int64_t nonFinite = 0;
};

}  // namespace

RoiStats roiStatistics(const Volume& volume, const BoundRegion& region) {
  if (!(region.shape() == volume.shape()))
    throw ParameterError("region", "region '" + region.description() + "' is bound to a " +
                                       shapeText(region.shape()) + " volume, not to this " +
                                       shapeText(volume.shape()) + " one");
  region.throwIfEmpty();
  const std::int64_t rows = volume.ny() * volume.nz();
  const std::int64_t blocks = (rows + kRowsPerBlock - 1) / kRowsPerBlock;
  const auto blockEnd = [rows](std::int64_t block) {
    return std::min(rows, (block + 1) * kRowsPerBlock);
  };

  std::vector<FirstPass> first(static_cast<std::size_t>(blocks));
#pragma omp parallel for schedule(dynamic)
  for (std::int64_t block = 0; block < blocks; ++block) {
    FirstPass pass;
    visitRows(volume, region, block * kRowsPerBlock, blockEnd(block), [&pass](double v) {
      if (!std::isfinite(v)) ++pass.nonFinite;
      pass.sum += v;
      pass.min = std::min(pass.min, v);
      pass.max = std::max(pass.max, v);
      ++pass.count;
    });
    first[static_cast<std::size_t>(block)] = pass;
  }
  FirstPass total;
  for (const FirstPass& pass : first) {
    total.sum += pass.sum;
    total.min = std::min(total.min, pass.min);
    total.max = std::max(total.max, pass.max);
    total.count += pass.count;
    total.nonFinite += pass.nonFinite;
  }

  RoiStats stats;
  stats.count = total.count;
  stats.nonFiniteCount = total.nonFinite;
  if (total.nonFinite > 0) {
    stats.mean = stats.std = stats.min = stats.max = std::numeric_limits<double>::quiet_NaN();
    return stats;
  }
  stats.mean = total.sum / static_cast<double>(total.count);
  stats.min = total.min;
  stats.max = total.max;

  std::vector<double> squares(static_cast<std::size_t>(blocks), 0.0);
  const double mean = stats.mean;
#pragma omp parallel for schedule(dynamic)
  for (std::int64_t block = 0; block < blocks; ++block) {
    double sum = 0.0;
    visitRows(volume, region, block * kRowsPerBlock, blockEnd(block),
              [&sum, mean](double v) { sum += (v - mean) * (v - mean); });
    squares[static_cast<std::size_t>(block)] = sum;
  }
  double sumSquares = 0.0;
  for (const double sum : squares) sumSquares += sum;
  stats.std = total.count > 1 ? std::sqrt(sumSquares / static_cast<double>(total.count - 1))
                              : std::numeric_limits<double>::quiet_NaN();
  return stats;
}

RoiStats roiStatistics(const Volume& volume, const Region& region, std::string_view parameter) {
  return roiStatistics(volume, region.bind(volume, parameter));
}

ContrastToNoise contrastToNoise(const Volume& volume, const Region& roi, const Region& background,
                                CnrNoise noise) {
  ContrastToNoise result;
  result.noiseModel = noise;
  result.roi = roiStatistics(volume, roi, "roi");
  result.background = roiStatistics(volume, background, "background");
  result.contrast = result.roi.mean - result.background.mean;
  switch (noise) {
    case CnrNoise::Background:
      result.noise = result.background.std;
      break;
    case CnrNoise::Pooled:
      result.noise = std::sqrt(
          0.5 * (result.roi.std * result.roi.std + result.background.std * result.background.std));
      break;
  }
  // |c| / 0 is +inf for c != 0 and NaN for c == 0, which is what the header promises.
  result.cnr = std::abs(result.contrast) / result.noise;
  return result;
}

std::string_view toString(CnrNoise noise) {
  switch (noise) {
    case CnrNoise::Background:
      return "background";
    case CnrNoise::Pooled:
      return "pooled";
  }
  return "unknown";
}

std::optional<CnrNoise> cnrNoiseFromString(std::string_view text) {
  if (text == "background") return CnrNoise::Background;
  if (text == "pooled") return CnrNoise::Pooled;
  return std::nullopt;
}

}  // namespace tomowb::metrics
