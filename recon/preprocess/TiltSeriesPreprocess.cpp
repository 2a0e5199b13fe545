#include "recon/preprocess/TiltSeriesPreprocess.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <span>

#include "recon/core/Error.h"

namespace tomowb::preprocess {

namespace {

// A pixel without a logarithm becomes this fraction of I0: -ln(1e-6) = 13.8, far above any
// real line integral through a specimen, so such pixels stand out instead of hiding.
constexpr double kTinyFractionOfI0 = 1e-6;

struct PixelGrid {
  std::int64_t firstCol = 0, firstRow = 0;
  std::int64_t cols = 0, rows = 0;  // after the crop
  std::int64_t binning = 1;
  std::int64_t outCols = 0, outRows = 0;
};

std::string numberText(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%.4g", v);
  return text;
}

void planAxis(const char* name, std::int64_t detector, std::int64_t first, std::int64_t count,
              std::int64_t& keptCount) {
  const std::string field = std::string("crop.") + name;
  if (first < 0 || first >= detector)
    throw ParameterError(field, "first index " + std::to_string(first) + " lies outside 0.." +
                                    std::to_string(detector - 1));
  if (count < 0) throw ParameterError(field, "count must be >= 0, got " + std::to_string(count));
  keptCount = count == 0 ? detector - first : count;
  if (first + keptCount > detector)
    throw ParameterError(field, std::to_string(keptCount) + " from " + std::to_string(first) +
                                    " runs past the detector's " + std::to_string(detector));
}

PixelGrid planGrid(const DetectorShape& detector, const TiltSeriesPreprocessing& p,
                   std::vector<std::string>* warnings) {
  PixelGrid g;
  g.firstCol = p.firstCol;
  g.firstRow = p.firstRow;
  planAxis("cols", detector.cols, p.firstCol, p.cols, g.cols);
  planAxis("rows", detector.rows, p.firstRow, p.rows, g.rows);
  if (p.binning < 1)
    throw ParameterError("binning", "must be >= 1, got " + std::to_string(p.binning));
  g.binning = p.binning;
  g.outCols = g.cols / g.binning;
  g.outRows = g.rows / g.binning;
  if (g.outCols < 1 || g.outRows < 1)
    throw ParameterError("binning", std::to_string(p.binning) + " is larger than the " +
                                        std::to_string(g.cols) + " x " + std::to_string(g.rows) +
                                        " pixels left after cropping");
  const std::int64_t extraCols = g.cols - g.outCols * g.binning;
  const std::int64_t extraRows = g.rows - g.outRows * g.binning;
  if ((extraCols || extraRows) && warnings)
    warnings->push_back("binning by " + std::to_string(p.binning) + ": dropped the last " +
                        std::to_string(extraCols) + " columns and " + std::to_string(extraRows) +
                        " rows, which do not fill a whole block");
  return g;
}

Geometry gridGeometry(const Geometry& geometry, const PixelGrid& g) {
  std::vector<View> views = geometry.views();
  const double b = static_cast<double>(g.binning);
  // The output's centre lies where the centre of the kept whole blocks does, in source pixels.
  const double centreCol =
      static_cast<double>(g.firstCol) + 0.5 * (static_cast<double>(g.outCols * g.binning) - 1.0);
  const double centreRow =
      static_cast<double>(g.firstRow) + 0.5 * (static_cast<double>(g.outRows * g.binning) - 1.0);
  for (std::int64_t k = 0; k < geometry.viewCount(); ++k) {
    View& view = views[static_cast<std::size_t>(k)];
    view.detectorCentre = geometry.pixelPosition(k, centreCol, centreRow);
    view.u *= b;
    view.v *= b;
  }
  return Geometry(geometry.beam(), {g.outCols, g.outRows}, std::move(views));
}

void checkParameters(const TiltSeriesPreprocessing& p) {
  if (p.logTransform) {
    if (!std::isfinite(p.i0) || p.i0 < 0)
      throw ParameterError("i0",
                           "must be > 0, or 0 to estimate it per view; got " + numberText(p.i0));
    if (p.i0 == 0 && !(p.i0Percentile > 0 && p.i0Percentile <= 100))
      throw ParameterError("i0Percentile",
                           "must lie in (0, 100], got " + numberText(p.i0Percentile));
  }
}

void cropAndBinView(std::span<const float> in, std::int64_t inCols, const PixelGrid& g,
                    std::span<float> out) {
  const std::int64_t b = g.binning;
  const float scale = 1.0f / static_cast<float>(b * b);
#pragma omp parallel for schedule(static)
  for (std::int64_t r = 0; r < g.outRows; ++r) {
    for (std::int64_t c = 0; c < g.outCols; ++c) {
      double sum = 0;
      for (std::int64_t j = 0; j < b; ++j) {
        const float* row = in.data() + (g.firstRow + r * b + j) * inCols + g.firstCol + c * b;
        for (std::int64_t i = 0; i < b; ++i) sum += row[i];
      }
      out[static_cast<std::size_t>(r * g.outCols + c)] = static_cast<float>(sum) * scale;
    }
  }
}

// The given I0, or the view's percentile of its positive finite pixels.
double viewI0(std::span<const float> pixels, const TiltSeriesPreprocessing& p, std::int64_t view) {
  if (p.i0 > 0) return p.i0;
  std::vector<float> positive;
  positive.reserve(pixels.size());
  for (float v : pixels)
    if (v > 0 && std::isfinite(v)) positive.push_back(v);
  if (positive.empty())
    throw ParameterError("i0", "view " + std::to_string(view) +
                                   " has no positive pixel to estimate I0 from; give i0 or "
                                   "switch the log transform off");
  const auto rank = static_cast<std::size_t>(
      std::floor(p.i0Percentile / 100.0 * static_cast<double>(positive.size() - 1)));
  std::nth_element(positive.begin(), positive.begin() + static_cast<std::ptrdiff_t>(rank),
                   positive.end());
  return positive[rank];
}

// -ln(I / I0) in place; returns the number of pixels that had no logarithm.
std::int64_t logTransformView(std::span<float> pixels, double i0) {
  const double tiny = kTinyFractionOfI0 * i0;
  std::int64_t invalid = 0;
  for (float& v : pixels) {
    double intensity = v;
    if (!(intensity > 0) || !std::isfinite(intensity)) {
      intensity = tiny;
      ++invalid;
    }
    v = static_cast<float>(-std::log(intensity / i0));
  }
  return invalid;
}

// Returns false (view untouched) when the view's mean or spread is 0 or not finite.
bool normaliseView(std::span<float> pixels, ViewNormalisation mode) {
  double sum = 0, sumSquares = 0;
  for (float v : pixels) {
    sum += v;
    sumSquares += static_cast<double>(v) * v;
  }
  const double n = static_cast<double>(pixels.size());
  const double mean = sum / n;
  if (mode == ViewNormalisation::DivideByMean) {
    if (mean == 0 || !std::isfinite(mean)) return false;
    for (float& v : pixels) v = static_cast<float>(v / mean);
    return true;
  }
  const double variance = std::max(0.0, sumSquares / n - mean * mean);
  const double sd = std::sqrt(variance);
  if (!std::isfinite(mean)) return false;
  const double scale = sd > 0 && std::isfinite(sd) ? 1.0 / sd : 1.0;
  for (float& v : pixels) v = static_cast<float>((v - mean) * scale);
  return sd > 0 && std::isfinite(sd);
}

}  // namespace

std::string_view toString(ViewNormalisation mode) noexcept {
  switch (mode) {
    case ViewNormalisation::None:
      return "none";
    case ViewNormalisation::DivideByMean:
      return "mean";
    case ViewNormalisation::ZeroMeanUnitVariance:
      return "zero-mean-unit-var";
  }
  return "unknown";
}

Geometry preprocessedGeometry(const Geometry& geometry, const TiltSeriesPreprocessing& params,
                              std::vector<std::string>* warnings) {
  return gridGeometry(geometry, planGrid(geometry.detector(), params, warnings));
}

ProjectionStack preprocessTiltSeries(const ProjectionStack& input,
                                     const TiltSeriesPreprocessing& params, JobContext& context,
                                     std::vector<std::string>* warnings) {
  checkParameters(params);
  std::vector<std::string> notes;
  const PixelGrid grid = planGrid(input.geometry().detector(), params, &notes);
  ProjectionStack output(gridGeometry(input.geometry(), grid));

  std::int64_t invalidPixels = 0, invalidViews = 0, flatViews = 0;
  const std::int64_t views = input.viewCount();
  for (std::int64_t k = 0; k < views; ++k) {
    context.throwIfCancelled();
    const std::span<float> pixels = output.viewPixels(k);
    cropAndBinView(input.viewPixels(k), input.cols(), grid, pixels);
    if (params.logTransform) {
      const std::int64_t invalid = logTransformView(pixels, viewI0(pixels, params, k));
      invalidPixels += invalid;
      if (invalid) ++invalidViews;
    }
    if (params.normalisation != ViewNormalisation::None &&
        !normaliseView(pixels, params.normalisation))
      ++flatViews;
    context.reportProgress("preprocess", static_cast<double>(k + 1) / static_cast<double>(views));
  }
  if (invalidPixels)
    notes.push_back("log transform: " + std::to_string(invalidPixels) + " pixels in " +
                    std::to_string(invalidViews) +
                    " views were <= 0 or not finite and were set to 1e-6 x I0 (a line integral "
                    "of 13.8): check the dark-field correction and the crop");
  if (flatViews)
    notes.push_back(
        "normalisation '" + std::string(toString(params.normalisation)) +
        "': " + std::to_string(flatViews) + " views have a mean (or spread) of 0 and were not " +
        (params.normalisation == ViewNormalisation::DivideByMean ? "divided" : "scaled"));
  if (warnings) warnings->insert(warnings->end(), notes.begin(), notes.end());
  return output;
}

}  // namespace tomowb::preprocess
