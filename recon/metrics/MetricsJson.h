// The metrics results as JSON objects (nlohmann-json), for `tomowb-cli ... --json` and the
// RunRecord's quality figures. Keys are the struct fields' names. JSON has no infinity or NaN,
// so a non-finite figure is written as the string "inf", "-inf" or "nan" (PSNR of identical
// volumes is "inf"), which Python's float() and most readers turn back into a number; a
// figure that was not computed (SSIM with CompareOptions::computeSsim off) is null.
#pragma once

#include <nlohmann/json_fwd.hpp>

#include "recon/metrics/ImageMetrics.h"
#include "recon/metrics/Region.h"
#include "recon/metrics/RoiStatistics.h"

namespace tomowb::metrics {

// {"rmse", "nrmse", "psnrDb", "ssim", "maxAbsDifference", "meanDifference", "voxelCount",
//  "nonFiniteCount", "referenceMin", "referenceMax", "dataRange"}; pass the region to add
//  "region": its description.
nlohmann::json toJson(const ComparisonMetrics& metrics);
nlohmann::json toJson(const ComparisonMetrics& metrics, const Region& region);
// {"mean", "std", "min", "max", "count", "nonFiniteCount"}
nlohmann::json toJson(const RoiStats& stats);
// {"cnr", "contrast", "noise", "noiseModel": "background"|"pooled", "roi": {..},
//  "background": {..}}
nlohmann::json toJson(const ContrastToNoise& cnr);

// A double as JSON: the number, or "inf", "-inf", "nan".
nlohmann::json numberToJson(double value);

}  // namespace tomowb::metrics
