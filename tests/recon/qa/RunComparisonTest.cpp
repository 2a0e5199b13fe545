// compareRuns (metrics, histogram, CNR, verdicts), tolerance tables, determinism and adjoint
// checks, run records and the report writer.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <random>

#include "recon/core/Error.h"
#include "recon/geometry/ScanBuilders.h"
#include "recon/io/Sha256.h"
#include "recon/qa/HealthChecks.h"
#include "recon/qa/QaReport.h"
#include "recon/qa/RunComparison.h"
#include "recon/qa/RunRecord.h"
#include "support/TestSupport.h"

namespace tomowb::qa {
namespace {

namespace fs = std::filesystem;

Volume randomVolume(VolumeShape shape, std::uint64_t seed) {
  Volume v(shape, Eigen::Vector3d::Ones(), Eigen::Vector3d::Zero());
  std::mt19937_64 g(seed);
  std::uniform_real_distribution<float> d(0.0f, 1.0f);
  for (float& x : v.voxels()) x = d(g);
  return v;
}

Volume copyOf(const Volume& v) {
  Volume c(v.shape(), v.voxelSizeMm(), v.originMm());
  std::copy(v.voxels().begin(), v.voxels().end(), c.voxels().begin());
  return c;
}

TEST(RunComparison, KnownDifferenceGivesTheMetricsHistogramAndVerdict) {
  const Volume b = randomVolume({20, 16, 4}, test::randomSeed());
  Volume a = copyOf(b);
  a.at(5, 6, 2) += 0.25f;  // one bump
  CompareSpec spec;
  spec.accuracyClass = AccuracyClass::Exact;
  spec.histogramBins = 11;
  const RunComparison c = compareRuns(a, b, spec);
  EXPECT_NEAR(c.metrics.maxAbsDifference, 0.25, 1e-6);
  EXPECT_NEAR(c.metrics.meanDifference, 0.25 / b.voxelCount(), 1e-9);
  const double range = c.metrics.referenceMax - c.metrics.referenceMin;
  EXPECT_NEAR(c.maxAbsRelative, 0.25 / range, 1e-6);
  // All but one difference are 0: the middle bin; the bump is in the last bin.
  EXPECT_EQ(c.histogram.counts[5], b.voxelCount() - 1);
  EXPECT_EQ(c.histogram.counts[10], 1);
  ASSERT_TRUE(c.passed);
  EXPECT_FALSE(*c.passed);
  EXPECT_NE(c.verdict.find("fail (exact)"), std::string::npos) << c.verdict;
  // The same bump passes a looser, user-edited tolerance.
  spec.tolerances.set(AccuracyClass::Exact, {1.0, 1.0});
  EXPECT_TRUE(*compareRuns(a, b, spec).passed);
  // Identical volumes pass; no class, no verdict.
  EXPECT_TRUE(*compareRuns(b, b, CompareSpec{.accuracyClass = AccuracyClass::Exact}).passed);
  EXPECT_FALSE(compareRuns(a, b, CompareSpec{}).passed.has_value());
  // Shape mismatch.
  EXPECT_THROW(compareRuns(randomVolume({20, 16, 3}, 1), b, CompareSpec{}), ParameterError);
}

TEST(RunComparison, CnrOfSavedRoisInBoth) {
  Volume b(VolumeShape{32, 32, 4}, Eigen::Vector3d::Ones(), Eigen::Vector3d(-15.5, -15.5, -1.5));
  std::mt19937_64 g(test::randomSeed());
  std::normal_distribution<float> noise(0.0f, 0.1f);
  for (std::int64_t z = 0; z < 4; ++z)
    for (std::int64_t y = 0; y < 32; ++y)
      for (std::int64_t x = 0; x < 32; ++x)
        b.at(x, y, z) = (std::hypot(x - 15.5, y - 15.5) < 5 ? 1.0f : 0.0f) + noise(g);
  Volume a = copyOf(b);
  for (float& v : a.voxels()) v *= 2;  // twice the contrast and the noise: the same CNR
  CompareSpec spec;
  spec.rois.push_back(
      {"insert", metrics::Region::sphere({0, 0, 0}, 3.0), metrics::Region::centralCylinder(0.9)});
  const RunComparison c = compareRuns(a, b, spec);
  ASSERT_EQ(c.cnr.size(), 1u);
  EXPECT_GT(c.cnr[0].cnrReference, 1.0);
  EXPECT_NEAR(c.cnr[0].cnrTest, c.cnr[0].cnrReference, 1e-4 * c.cnr[0].cnrReference);
}

TEST(ToleranceTable, JsonRoundTripAndErrors) {
  ToleranceTable t;
  t.set(AccuracyClass::HalfPrecision, {0.01, 0.2});
  const ToleranceTable back = ToleranceTable::fromJson(t.toJson());
  EXPECT_EQ(back[AccuracyClass::HalfPrecision], (Tolerance{0.01, 0.2}));
  EXPECT_EQ(back[AccuracyClass::Exact], ToleranceTable{}[AccuracyClass::Exact]);
  EXPECT_THROW(ToleranceTable::fromJson({{"exact", {{"maxNrmse", -1}}}}), ParameterError);
  EXPECT_THROW(ToleranceTable::fromJson({{"approximate", {{"maxNrmse", 1}}}}), ParameterError);
  EXPECT_THROW(ToleranceTable::fromJson({{"exact", {{"maxNrmze", 1}}}}), ParameterError);
  EXPECT_EQ(accuracyClassFromString("hardware"), AccuracyClass::HardwareInterpolation);
}

TEST(HealthChecks, DeterminismCountsDifferingVoxels) {
  const Volume base = randomVolume({10, 10, 3}, 1);
  int call = 0;
  JobContext context;
  const auto steady = [&](JobContext&) { return copyOf(base); };
  EXPECT_TRUE(checkDeterminism(steady, 4, context).bitIdentical());
  const auto noisy = [&](JobContext&) {
    Volume v = copyOf(base);
    // Like float atomics adding in another order: the last bit of a few voxels flips.
    for (int i = 0; i < 7; ++i)
      v.data()[i * 11] = std::nextafter(v.data()[i * 11], 2.0f) * (call % 2 ? 1 : 1);
    if (++call % 2 == 0) return copyOf(base);
    return v;
  };
  const DeterminismReport r = checkDeterminism(noisy, 3, context);
  EXPECT_EQ(r.differingVoxels, 7);
  EXPECT_GT(r.maxAbsDifference, 0);
  EXPECT_NE(r.summary().find("7 of 300 voxels differ"), std::string::npos) << r.summary();
}

TEST(HealthChecks, AdjointTestSeparatesMatchedFromUnmatchedPairs) {
  TiltSeriesParams scan;
  scan.cols = 24;
  scan.rows = 6;
  scan.pixelSizeMm = 1.0;
  scan.tiltAnglesRad = arcAnglesRad(21, 2.0, -1.0);
  const Geometry g = tiltSeries(scan);
  const Volume grid = Volume::centred({24, 12, 6}, Eigen::Vector3d::Ones());
  JobContext context;
  const AdjointReport matched =
      adjointTest("et.fp.cpu", "et.bp.cpu-matched", g, grid, test::randomSeed(), context);
  EXPECT_LT(matched.relativeError, 1e-6) << matched.summary();
  const AdjointReport voxel =
      adjointTest("et.fp.cpu", "et.bp.cpu-voxel", g, grid, test::randomSeed(), context);
  // The voxel-driven backprojector interpolates differently: 1e-5 to 1e-4 on random data.
  EXPECT_GT(voxel.relativeError, 10 * matched.relativeError + 5e-6) << voxel.summary();
  EXPECT_THROW(adjointTest("et.bp.cpu-voxel", "et.bp.cpu-voxel", g, grid, 1, context),
               ParameterError);
}

TEST(RunRecord, JsonRoundTripAndErrors) {
  test::TempDir dir;
  std::ofstream(dir / "in.bin") << "abc";
  RunRecord r;
  r.created = utcNow();
  r.softwareVersion = TOMOWB_VERSION;
  r.command = {"tomowb-cli", "recon", "fdk", "-i", "in.json", "-o", "out.mhd"};
  r.outputArguments = {6};
  r.inputs.push_back(recordFile(dir / "in.bin", "projections"));
  r.algorithm = "FDK";
  r.variant = "fdk.bp.cpu";
  r.parameters = {{"grid", {1, 2, 3}}};
  r.device = describeDevice(false);
  writeRunRecord(dir / "r.run.json", r);
  const RunRecord back = readRunRecord(dir / "r.run.json");
  EXPECT_EQ(back.command, r.command);
  EXPECT_EQ(back.outputArguments, r.outputArguments);
  EXPECT_EQ(back.inputs, r.inputs);
  EXPECT_EQ(back.inputs[0].bytes, 3u);
  if (sha256Available())
    EXPECT_EQ(back.inputs[0].sha256,
              "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(back.parameters, r.parameters);
  EXPECT_EQ(runRecordPathFor("a/recon.mhd"), fs::path("a/recon.run.json"));
  EXPECT_EQ(runRecordPathFor("a/slices/"), fs::path("a/slices.run.json"));  // a folder of slices
  EXPECT_EQ(runRecordPathFor("a/slices"), fs::path("a/slices.run.json"));
  std::ofstream(dir / "bad.json")
      << R"({"format": "tomowb-run-record", "version": 1, "command": [1]})";
  EXPECT_THROW(readRunRecord(dir / "bad.json"), FormatError);
  std::ofstream(dir / "other.json") << R"({"format": "tomowb-volume", "version": 1})";
  EXPECT_THROW(readRunRecord(dir / "other.json"), FormatError);
  std::ofstream(dir / "index.json")
      << R"({"format": "tomowb-run-record", "version": 1, "command": ["a"], "outputArguments": [3]})";
  EXPECT_THROW(readRunRecord(dir / "index.json"), FormatError);
}

TEST(QaReport, CompareReportHasTheTableAndPictures) {
  const Volume b = randomVolume({16, 12, 3}, 2);
  Volume a = copyOf(b);
  a.at(3, 3, 1) += 0.5f;
  test::TempDir dir;
  CompareReportInput in;
  in.a = &a;
  in.b = &b;
  in.labelA = "fdk.bp.fast";
  in.labelB = "fdk.bp.cpu-f64";
  in.comparison = compareRuns(a, b, CompareSpec{.accuracyClass = AccuracyClass::HalfPrecision});
  const fs::path report = writeCompareReport(dir / "r", in, ReportFormat::Markdown);
  std::ifstream md(report);
  const std::string text((std::istreambuf_iterator<char>(md)), {});
  EXPECT_NE(text.find("| NRMSE |"), std::string::npos);
  EXPECT_NE(text.find("Verdict: fail (half-precision)"), std::string::npos) << text;
  for (const char* f : {"histogram.svg", "profile.svg"})
    EXPECT_TRUE(fs::exists(dir / "r" / f)) << f;
  bool picture = false;
  for (const auto& e : fs::directory_iterator(dir / "r"))
    picture = picture || e.path().stem() == "difference";
  EXPECT_TRUE(picture);
  // HTML too, and an existing folder is not replaced unless asked.
  EXPECT_THROW(writeCompareReport(dir / "r", in, ReportFormat::Html), IoError);
  const fs::path html = writeCompareReport(dir / "r", in, ReportFormat::Html, true);
  EXPECT_EQ(html.filename(), "report.html");
  unsigned char rgb[3];
  divergingColour(0, rgb);
  EXPECT_EQ(rgb[0] + rgb[1] + rgb[2], 3 * 255);
  divergingColour(1, rgb);
  EXPECT_GT(rgb[0], rgb[2]);
  divergingColour(-1, rgb);
  EXPECT_GT(rgb[2], rgb[0]);
}

}  // namespace
}  // namespace tomowb::qa
