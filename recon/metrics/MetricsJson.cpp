#include "recon/metrics/MetricsJson.h"

#include <cmath>
#include <nlohmann/json.hpp>
#include <string>

namespace tomowb::metrics {

nlohmann::json numberToJson(double value) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value > 0.0 ? "inf" : "-inf";
  return value;
}

nlohmann::json toJson(const ComparisonMetrics& metrics) {
  nlohmann::json json;
  json["rmse"] = numberToJson(metrics.rmse);
  json["nrmse"] = numberToJson(metrics.nrmse);
  json["psnrDb"] = numberToJson(metrics.psnrDb);
  json["ssim"] = metrics.ssim ? numberToJson(*metrics.ssim) : nlohmann::json(nullptr);
  json["maxAbsDifference"] = numberToJson(metrics.maxAbsDifference);
  json["meanDifference"] = numberToJson(metrics.meanDifference);
  json["voxelCount"] = metrics.voxelCount;
  json["nonFiniteCount"] = metrics.nonFiniteCount;
  json["referenceMin"] = numberToJson(metrics.referenceMin);
  json["referenceMax"] = numberToJson(metrics.referenceMax);
  json["dataRange"] = numberToJson(metrics.dataRange);
  return json;
}

nlohmann::json toJson(const ComparisonMetrics& metrics, const Region& region) {
  nlohmann::json json = toJson(metrics);
  json["region"] = region.description();
  return json;
}

nlohmann::json toJson(const RoiStats& stats) {
  nlohmann::json json;
  json["mean"] = numberToJson(stats.mean);
  json["std"] = numberToJson(stats.std);
  json["min"] = numberToJson(stats.min);
  json["max"] = numberToJson(stats.max);
  json["count"] = stats.count;
  json["nonFiniteCount"] = stats.nonFiniteCount;
  return json;
}

nlohmann::json toJson(const ContrastToNoise& cnr) {
  nlohmann::json json;
  json["cnr"] = numberToJson(cnr.cnr);
  json["contrast"] = numberToJson(cnr.contrast);
  json["noise"] = numberToJson(cnr.noise);
  json["noiseModel"] = std::string(toString(cnr.noiseModel));
  json["roi"] = toJson(cnr.roi);
  json["background"] = toJson(cnr.background);
  return json;
}

}  // namespace tomowb::metrics
