// Whether a pass / fail verdict applies to two runs (issue #17, point 5): only the same
// reconstruction on another kernel variant or device; everything else is informative.
#include <gtest/gtest.h>

#include "recon/qa/RunComparability.h"
#include "recon/qa/RunComparison.h"

namespace tomowb::qa {
namespace {

RunRecord fdkRecord(const std::string& variant) {
  RunRecord r;
  r.algorithm = "FDK";
  r.variant = variant;
  r.parameters = {{"variant", variant},
                  {"grid", {{"shape", {32, 32, 32}}}},
                  {"filter", {{"window", "ram-lak"}, {"cutoff", 1.0}}},
                  {"redundancy", "auto"},
                  {"cpuThreads", 2},
                  {"gpu", {{"devices", nlohmann::json::array()}}}};
  r.inputs = {{"scan.json", "projections", 10, "aaaa"}, {"scan.raw", "projections data", 99, "bb"}};
  r.geometry = {{"views", 3}};
  r.geometrySha256 = "cafe";
  r.device = {{"kind", variant == "fdk.bp.fast" ? "gpu" : "cpu"}};
  return r;
}

TEST(RunComparability, AnotherVariantOrDeviceOfTheSameRunIsComparable) {
  RunRecord gpu = fdkRecord("fdk.bp.fast");
  gpu.parameters["cpuThreads"] = 16;
  gpu.parameters["gpu"] = {{"devices", {0, 1}}};
  gpu.tunables = {{"band", 4}};
  const ComparabilityCheck check = checkComparability(gpu, fdkRecord("fdk.bp.cpu-f64"));
  EXPECT_EQ(check.kind, Comparability::Comparable) << check.reason;
  EXPECT_EQ(informativeReason(check), "");
}

TEST(RunComparability, DifferentAlgorithmsAreInformative) {
  RunRecord sirt = fdkRecord("et.bp.cpu-matched");
  sirt.algorithm = "SIRT";
  RunRecord wbp = fdkRecord("fdk.bp.cpu");
  wbp.algorithm = "WBP";
  const ComparabilityCheck check = checkComparability(wbp, sirt);
  EXPECT_EQ(check.kind, Comparability::NotComparable);
  EXPECT_EQ(check.reason, "different algorithms: WBP and SIRT");
  EXPECT_EQ(informativeReason(check), "different algorithms: WBP and SIRT");
}

TEST(RunComparability, DifferentParametersAreNamed) {
  RunRecord a = fdkRecord("fdk.bp.fast"), b = fdkRecord("fdk.bp.cpu-f64");
  b.parameters["filter"]["cutoff"] = 0.5;
  ComparabilityCheck check = checkComparability(a, b);
  EXPECT_EQ(check.kind, Comparability::NotComparable);
  EXPECT_NE(check.reason.find("filter.cutoff 1.0 vs 0.5"), std::string::npos) << check.reason;
  b = fdkRecord("fdk.bp.cpu-f64");
  b.parameters["iterations"] = 50;  // only in B
  check = checkComparability(a, b);
  EXPECT_EQ(check.kind, Comparability::NotComparable);
  EXPECT_NE(check.reason.find("iterations none vs 50"), std::string::npos) << check.reason;
}

TEST(RunComparability, DifferentInputOrGeometryAreInformative) {
  const RunRecord a = fdkRecord("fdk.bp.fast");
  RunRecord b = fdkRecord("fdk.bp.cpu-f64");
  b.inputs[1].sha256 = "cc";
  EXPECT_EQ(checkComparability(a, b).kind, Comparability::NotComparable);
  b = fdkRecord("fdk.bp.cpu-f64");
  b.geometrySha256 = "beef";
  EXPECT_EQ(checkComparability(a, b).reason, "different geometry (SHA-256 differ)");
  // GUI runs: the recorded input.
  RunRecord ga = fdkRecord("fdk.bp.fast"), gb = fdkRecord("fdk.bp.cpu");
  ga.inputs.clear(), gb.inputs.clear();
  ga.parameters["input"] = {{"views", 360}, {"path", "/data/scan.json"}};
  gb.parameters["input"] = {{"views", 180}, {"path", "/data/scan.json"}};
  EXPECT_EQ(checkComparability(ga, gb).kind, Comparability::NotComparable);
  gb.parameters["input"]["views"] = 360;
  EXPECT_EQ(checkComparability(ga, gb).kind, Comparability::Comparable);
}

TEST(RunComparability, MissingInformationCannotTell) {
  RunRecord a = fdkRecord("fdk.bp.fast"), b = fdkRecord("fdk.bp.cpu-f64");
  b.algorithm.clear();
  EXPECT_EQ(checkComparability(a, b).kind, Comparability::Unknown);
  b = fdkRecord("fdk.bp.cpu-f64");
  b.geometrySha256.clear();
  b.geometry = nullptr;
  ComparabilityCheck check = checkComparability(a, b);
  EXPECT_EQ(check.kind, Comparability::Unknown);
  EXPECT_EQ(informativeReason(check),
            "cannot tell whether the runs are comparable: the record of B holds no geometry");
  // Same parameters and geometry, but nothing says the data were the same.
  a.inputs.clear();
  b = fdkRecord("fdk.bp.cpu-f64");
  b.inputs.clear();
  EXPECT_EQ(checkComparability(a, b).kind, Comparability::Unknown);
  // A synthetic input (the demo phantom) is named by its parameters.
  a.parameters["phantom"] = b.parameters["phantom"] = "modified-shepp-logan";
  EXPECT_EQ(checkComparability(a, b).kind, Comparability::Comparable);
}

TEST(RunComparison, InformativeComparisonHasMetricsButNoPassOrFail) {
  Volume a({4, 4, 2}, Eigen::Vector3d::Ones(), Eigen::Vector3d::Zero());
  Volume b({4, 4, 2}, Eigen::Vector3d::Ones(), Eigen::Vector3d::Zero());
  for (std::int64_t i = 0; i < a.voxelCount(); ++i) {
    b.data()[i] = float(i);
    a.data()[i] = float(i) + (i == 3 ? 0.5f : 0.0f);
  }
  CompareSpec spec;
  spec.accuracyClass = AccuracyClass::Exact;
  spec.informative = "different algorithms: WBP and SIRT";
  const RunComparison c = compareRuns(a, b, spec);
  EXPECT_FALSE(c.passed.has_value());
  EXPECT_FALSE(c.accuracyClass.has_value());
  EXPECT_EQ(c.verdict, "informative (different algorithms: WBP and SIRT)");
  EXPECT_GT(c.metrics.nrmse, 0);
  const nlohmann::json j = toJson(c);
  EXPECT_FALSE(j.contains("passed"));
  EXPECT_EQ(j["verdict"], c.verdict);
  EXPECT_EQ(j["informative"], "different algorithms: WBP and SIRT");
  // The same pair judged (a comparable pair) fails the exact class.
  spec.informative.clear();
  EXPECT_FALSE(*compareRuns(a, b, spec).passed);
}

}  // namespace
}  // namespace tomowb::qa
