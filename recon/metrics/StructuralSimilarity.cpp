#include "recon/metrics/StructuralSimilarity.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <limits>
#include <numeric>
#include <vector>

#include "recon/core/Error.h"
#include "recon/metrics/ImageMetrics.h"

namespace tomowb::metrics {

namespace {

constexpr int kTaps = 2 * kSsimWindowRadius + 1;
// The five windowed moments: mean of t, of r, of t^2, of r^2, of t*r.
constexpr int kMoments = 5;

// The window's taps, normalised to sum 1.
std::array<double, kTaps> gaussianWindow() {
  std::array<double, kTaps> weights{};
  double sum = 0.0;
  for (std::size_t tap = 0; tap < weights.size(); ++tap) {
    const double offset = static_cast<double>(tap) - kSsimWindowRadius;
    const double weight =
        std::exp(-0.5 * offset * offset / (kSsimWindowSigmaVoxels * kSsimWindowSigmaVoxels));
    weights[tap] = weight;
    sum += weight;
  }
  for (double& weight : weights) weight /= sum;
  return weights;
}

// Per-slice work space: the horizontally filtered moments of one slice, one plane per moment.
struct SliceMoments {
  std::int64_t nx = 0, ny = 0;
  std::vector<double> planes;  // [moment][y][x]
  double* plane(int moment) { return planes.data() + moment * nx * ny; }
  const double* plane(int moment) const { return planes.data() + moment * nx * ny; }
};

// Horizontal pass over rows [yBegin, yEnd): for every voxel, the window-weighted means along x
// of the five moments, the window cut at the slice edge and renormalised. The moments of a row
// are formed first, so the tap loop runs over contiguous doubles and vectorises.
void filterRows(const float* test, const float* reference, std::int64_t yBegin, std::int64_t yEnd,
                const std::array<double, kTaps>& w, SliceMoments& out) {
  const std::int64_t nx = out.nx;
  constexpr std::int64_t kRadius = kSsimWindowRadius;
#pragma omp parallel
  {
    std::vector<double> products(static_cast<std::size_t>(kMoments * nx));
#pragma omp for schedule(static)
    for (std::int64_t y = yBegin; y < yEnd; ++y) {
      const float* t = test + y * nx;
      const float* r = reference + y * nx;
      double* moment[kMoments];
      for (int m = 0; m < kMoments; ++m) moment[m] = products.data() + m * nx;
      for (std::int64_t x = 0; x < nx; ++x) {
        const double tv = t[x];
        const double rv = r[x];
        moment[0][x] = tv;
        moment[1][x] = rv;
        moment[2][x] = tv * tv;
        moment[3][x] = rv * rv;
        moment[4][x] = tv * rv;
      }
      for (int m = 0; m < kMoments; ++m) {
        const double* in = moment[m];
        double* filtered = out.plane(m) + y * nx;
        // Interior: the whole window fits, its weights sum to 1.
        for (std::int64_t x = kRadius; x < nx - kRadius; ++x) {
          double sum = 0.0;
          for (std::int64_t k = -kRadius; k <= kRadius; ++k)
            sum += w[static_cast<std::size_t>(k + kRadius)] * in[x + k];
          filtered[x] = sum;
        }
        // Edges (and rows narrower than the window): cut and renormalise.
        const auto edge = [&](std::int64_t x) {
          const std::int64_t kLow = std::max(-kRadius, -x);
          const std::int64_t kHigh = std::min(kRadius, nx - 1 - x);
          double sum = 0.0;
          double weightSum = 0.0;
          for (std::int64_t k = kLow; k <= kHigh; ++k) {
            sum += w[static_cast<std::size_t>(k + kRadius)] * in[x + k];
            weightSum += w[static_cast<std::size_t>(k + kRadius)];
          }
          filtered[x] = sum / weightSum;
        };
        const std::int64_t leftEnd = std::min(kRadius, nx);
        for (std::int64_t x = 0; x < leftEnd; ++x) edge(x);
        for (std::int64_t x = std::max(leftEnd, nx - kRadius); x < nx; ++x) edge(x);
      }
    }
  }
}

// Vertical pass and SSIM for the region voxels of one slice; returns their sum (rows summed in
// order, so the result does not depend on the thread count).
double sumSliceSsim(const SliceMoments& moments, const BoundRegion& region, std::int64_t z,
                    const std::array<double, kTaps>& w, double c1, double c2) {
  const std::int64_t nx = moments.nx;
  const std::int64_t ny = moments.ny;
  std::vector<double> rowSums(static_cast<std::size_t>(ny), 0.0);
#pragma omp parallel
  {
    std::vector<double> column;  // [moment][x - xBegin]
#pragma omp for schedule(dynamic, 8)
    for (std::int64_t y = 0; y < ny; ++y) {
      const RowSpan span = region.rowSpan(y, z);
      if (span.empty()) continue;
      const std::int64_t width = span.xEnd - span.xBegin;
      column.assign(static_cast<std::size_t>(kMoments * width), 0.0);
      const std::int64_t kLow = std::max<std::int64_t>(-kSsimWindowRadius, -y);
      const std::int64_t kHigh = std::min<std::int64_t>(kSsimWindowRadius, ny - 1 - y);
      double weightSum = 0.0;
      for (std::int64_t k = kLow; k <= kHigh; ++k) {
        const double weight = w[static_cast<std::size_t>(k + kSsimWindowRadius)];
        weightSum += weight;
        for (int m = 0; m < kMoments; ++m) {
          const double* source = moments.plane(m) + (y + k) * nx + span.xBegin;
          double* target = column.data() + m * width;
          for (std::int64_t i = 0; i < width; ++i) target[i] += weight * source[i];
        }
      }
      const std::uint8_t* mask = region.maskRow(y, z);
      double rowSum = 0.0;
      for (std::int64_t i = 0; i < width; ++i) {
        if (mask != nullptr && mask[span.xBegin + i] == 0) continue;
        const double meanT = column[static_cast<std::size_t>(i)] / weightSum;
        const double meanR = column[static_cast<std::size_t>(width + i)] / weightSum;
        const double varianceT =
            column[static_cast<std::size_t>(2 * width + i)] / weightSum - meanT * meanT;
        const double varianceR =
            column[static_cast<std::size_t>(3 * width + i)] / weightSum - meanR * meanR;
        const double covariance =
            column[static_cast<std::size_t>(4 * width + i)] / weightSum - meanT * meanR;
        rowSum += ((2.0 * meanT * meanR + c1) * (2.0 * covariance + c2)) /
                  ((meanT * meanT + meanR * meanR + c1) * (varianceT + varianceR + c2));
      }
      rowSums[static_cast<std::size_t>(y)] = rowSum;
    }
  }
  return std::accumulate(rowSums.begin(), rowSums.end(), 0.0);
}

}  // namespace

double structuralSimilarity(const Volume& test, const Volume& reference, const BoundRegion& region,
                            double dataRange) {
  requireSameShape(test, reference);
  if (!(region.shape() == reference.shape()))
    throw ParameterError("region", "region '" + region.description() + "' is bound to a " +
                                       shapeText(region.shape()) + " volume, not to the " +
                                       shapeText(reference.shape()) + " volumes compared");
  region.throwIfEmpty();
  if (!std::isfinite(dataRange) || !(dataRange > 0.0))
    return std::numeric_limits<double>::quiet_NaN();

  const double c1 = (kSsimK1 * dataRange) * (kSsimK1 * dataRange);
  const double c2 = (kSsimK2 * dataRange) * (kSsimK2 * dataRange);
  const std::array<double, kTaps> window = gaussianWindow();
  SliceMoments moments;
  moments.nx = reference.nx();
  moments.ny = reference.ny();
  moments.planes.resize(static_cast<std::size_t>(kMoments * moments.nx * moments.ny));

  const std::int64_t sliceSize = moments.nx * moments.ny;
  double total = 0.0;
  for (std::int64_t z = 0; z < reference.nz(); ++z) {
    if (region.voxelCountInSlice(z) == 0) continue;
    // Only the rows the region's windows reach need filtering.
    std::int64_t yFirst = moments.ny, yLast = -1;
    for (std::int64_t y = 0; y < moments.ny; ++y) {
      if (region.rowSpan(y, z).empty()) continue;
      yFirst = std::min(yFirst, y);
      yLast = y;
    }
    filterRows(test.data() + z * sliceSize, reference.data() + z * sliceSize,
               std::max<std::int64_t>(0, yFirst - kSsimWindowRadius),
               std::min<std::int64_t>(moments.ny, yLast + 1 + kSsimWindowRadius), window, moments);
    total += sumSliceSsim(moments, region, z, window, c1, c2);
  }
  return total / static_cast<double>(region.voxelCount());
}

double structuralSimilarity(const Volume& test, const Volume& reference, const Region& region,
                            double dataRange) {
  requireSameShape(test, reference);
  return structuralSimilarity(test, reference, region.bind(reference), dataRange);
}

}  // namespace tomowb::metrics
