// toJson of the metrics results: field names, non-finite figures as strings, SSIM null when off.
#include <gtest/gtest.h>

#include <limits>
#include <nlohmann/json.hpp>

#include "recon/metrics/MetricsJson.h"

namespace tomowb::metrics {
namespace {

TEST(MetricsJson, ComparisonWritesEveryFieldAndInfiniteAsString) {
  ComparisonMetrics metrics;
  metrics.rmse = 0.0;
  metrics.nrmse = 0.0;
  metrics.psnrDb = std::numeric_limits<double>::infinity();
  metrics.ssim = 1.0;
  metrics.maxAbsDifference = 0.5;
  metrics.meanDifference = -0.25;
  metrics.voxelCount = 1234;
  metrics.referenceMin = -1.0;
  metrics.referenceMax = 3.0;
  metrics.dataRange = 4.0;
  const nlohmann::json json = toJson(metrics, Region::centralCylinder(0.8).slices(0, 4));
  EXPECT_EQ(json["psnrDb"], "inf");
  EXPECT_EQ(json["ssim"], 1.0);
  EXPECT_EQ(json["maxAbsDifference"], 0.5);
  EXPECT_EQ(json["meanDifference"], -0.25);
  EXPECT_EQ(json["voxelCount"], 1234);
  EXPECT_EQ(json["nonFiniteCount"], 0);
  EXPECT_EQ(json["dataRange"], 4.0);
  EXPECT_EQ(json["region"], "cylinder r=0.8 slices 0..4");
  EXPECT_EQ(json.size(), 12u);
  // Dumps without throwing and parses back.
  EXPECT_EQ(nlohmann::json::parse(json.dump()), json);
}

TEST(MetricsJson, SsimNotComputedIsNullAndNaNIsAString) {
  ComparisonMetrics metrics;
  metrics.rmse = std::numeric_limits<double>::quiet_NaN();
  metrics.psnrDb = -std::numeric_limits<double>::infinity();
  const nlohmann::json json = toJson(metrics);
  EXPECT_TRUE(json["ssim"].is_null());
  EXPECT_EQ(json["rmse"], "nan");
  EXPECT_EQ(json["psnrDb"], "-inf");
  EXPECT_FALSE(json.contains("region"));
}

TEST(MetricsJson, ContrastToNoiseNestsBothRegionsStats) {
  ContrastToNoise cnr;
  cnr.cnr = 3.0;
  cnr.contrast = -6.0;
  cnr.noise = 2.0;
  cnr.noiseModel = CnrNoise::Pooled;
  cnr.roi = RoiStats{4.0, 1.0, 1.0, 7.0, 100, 0};
  cnr.background = RoiStats{10.0, 2.0, 2.0, 18.0, 5000, 0};
  const nlohmann::json json = toJson(cnr);
  EXPECT_EQ(json["cnr"], 3.0);
  EXPECT_EQ(json["contrast"], -6.0);
  EXPECT_EQ(json["noiseModel"], "pooled");
  EXPECT_EQ(json["roi"]["mean"], 4.0);
  EXPECT_EQ(json["roi"]["count"], 100);
  EXPECT_EQ(json["background"]["std"], 2.0);
  EXPECT_EQ(json["background"]["max"], 18.0);
  EXPECT_EQ(json["background"].size(), 6u);
}

}  // namespace
}  // namespace tomowb::metrics
