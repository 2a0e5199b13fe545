// Preprocessing of a tilt series (or any projection stack) before reconstruction, in this
// order: crop, bin, log transform, per-view normalisation. Every step that changes the pixel grid
// changes the geometry with it, so that each output pixel's centre lies where the input pixels it
// came from lie (Geometry.h: pixel (c, r) at detectorCentre + (c - (cols-1)/2) u +
// (r - (rows-1)/2) v):
//  - crop keeps columns [firstCol, firstCol + cols) and rows [firstRow, firstRow + rows); u and v
//    stay, the detector centre moves to the centre of the kept block;
//  - binning b averages b x b blocks; u and v grow by b, and the binned pixel's centre is the
//    mean of its b x b source centres. Columns or rows beyond the last whole block are dropped
//    (a warning says how many);
//  - the log transform turns transmitted intensity into a line integral, -ln(I / I0), for
//    absorption contrast; I0 is given, or estimated per view as a high percentile of its
//    positive pixels. Pixels with I <= 0 (or NaN) have no logarithm: they are counted, set to
//    1e-6 I0 (-ln = 13.8) and a warning gives the count;
//  - normalisation per view: none, divide by the view's mean, or zero mean and unit variance.
// Cancel is checked once per view and step (JobContext::throwIfCancelled).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "recon/data/ProjectionStack.h"
#include "recon/job/JobContext.h"

namespace tomowb::preprocess {

enum class ViewNormalisation { None, DivideByMean, ZeroMeanUnitVariance };
std::string_view toString(ViewNormalisation mode) noexcept;  // "none", "mean", "zero-mean-unit-var"

struct TiltSeriesPreprocessing {
  // Crop: the kept block; a count of 0 keeps everything from the first column / row on.
  std::int64_t firstCol = 0, cols = 0;
  std::int64_t firstRow = 0, rows = 0;
  int binning = 1;  // 1 = none
  bool logTransform = false;
  double i0 = 0;  // > 0: the unattenuated intensity of every view; 0: estimate per view
  double i0Percentile = 99.5;  // percentile of a view's positive pixels taken as its I0
  ViewNormalisation normalisation = ViewNormalisation::None;
};

// The cropped and binned geometry alone (no pixels): what preprocessTiltSeries gives the stack.
Geometry preprocessedGeometry(const Geometry& geometry, const TiltSeriesPreprocessing& params,
                              std::vector<std::string>* warnings = nullptr);

// ParameterError for a crop outside the detector, binning < 1 or larger than the cropped
// detector, a non-finite or negative i0, a percentile outside (0, 100]; Cancelled when the
// context's token is set. Warnings (dropped remainder, clamped non-positive pixels, views whose
// mean or variance is 0) are appended to `warnings` if given.
ProjectionStack preprocessTiltSeries(const ProjectionStack& input,
                                     const TiltSeriesPreprocessing& params, JobContext& context,
                                     std::vector<std::string>* warnings = nullptr);

}  // namespace tomowb::preprocess
