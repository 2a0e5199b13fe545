#include <gtest/gtest.h>

#include <numbers>
#include <random>

#include "recon/core/Error.h"
#include "recon/fdk/FdkWeights.h"
#include "recon/geometry/ScanBuilders.h"
#include "support/TestSupport.h"

namespace tomowb::fdk {
namespace {

constexpr double kPi = std::numbers::pi;

CircularConeParams fanScan(std::int64_t cols, double offsetUMm = 0) {
  CircularConeParams p;
  p.sourceToIsocentreMm = 400;
  p.sourceToDetectorMm = 800;
  p.detector.cols = cols;
  p.detector.rows = 3;
  p.detector.pitchUMm = p.detector.pitchVMm = 2.0;
  p.detector.offsetUMm = offsetUMm;
  return p;
}

// For a ray of view i through column c (mid row), the view and column that measure the same
// line from the other side: the view whose source lies nearest the line, and where the first
// source projects in it.
std::pair<std::int64_t, double> conjugate(const Geometry& g, std::int64_t i, double c) {
  const Eigen::Vector3d s = g.view(i).source;
  const Eigen::Vector3d d = (g.pixelPosition(i, c, 1.0) - s).normalized();
  std::int64_t best = -1;
  double bestDistance = 1e300;
  for (std::int64_t j = 0; j < g.viewCount(); ++j) {
    const Eigen::Vector3d t = g.view(j).source - s;
    const double along = t.dot(d);
    if (along <= 0) continue;
    const double distance = (t - along * d).norm();
    if (distance < bestDistance) bestDistance = distance, best = j;
  }
  const Eigen::Vector3d h = g.projectionMatrix(best) * s.homogeneous();
  return {best, h.x() / h.z()};
}

// Weights of the two measurements of one line add up to one (up to the angular sampling).
void expectConjugatesSumToOne(const Geometry& g, const FdkWeightPlan& plan, std::mt19937_64& rng) {
  std::uniform_int_distribution<std::int64_t> view(0, g.viewCount() - 1);
  std::uniform_real_distribution<double> col(0.0, double(g.detector().cols - 1));
  int checked = 0;
  for (int k = 0; k < 400 && checked < 100; ++k) {
    const std::int64_t i = view(rng);
    const double c = col(rng);
    const auto [j, cj] = conjugate(g, i, c);
    const double wi = plan.redundancyWeight(i, c);
    if (cj < 0 || cj > double(g.detector().cols - 1)) {
      // The line is measured once: it must carry the whole weight.
      if (plan.mode() == RedundancyMode::Parker) continue;  // unless outside the scan's reach
      EXPECT_NEAR(wi, 1.0, 0.02) << "view " << i << " col " << c;
    } else {
      EXPECT_NEAR(wi + plan.redundancyWeight(j, cj), 1.0, 0.03)
          << "view " << i << " col " << c << " conjugate view " << j << " col " << cj;
    }
    ++checked;
  }
  EXPECT_GT(checked, 50);
}

TEST(FdkWeights, ParkerWeightsOfConjugateRaysSumToOneInBothRotationSenses) {
  std::mt19937_64 rng(test::randomSeed());
  for (double sense : {1.0, -1.0}) {
    CircularConeParams p = fanScan(120);
    for (double a : shortScanAnglesRad(p, 1500, 0.3, 0.1)) p.anglesRad.push_back(sense * a);
    const Geometry g = circularConeBeam(p);
    const FdkWeightPlan plan(g, RedundancyMode::Auto);
    ASSERT_EQ(plan.mode(), RedundancyMode::Parker);
    expectConjugatesSumToOne(g, plan, rng);
  }
}

TEST(FdkWeights, OffsetDetectorWeightsOfConjugateRaysSumToOne) {
  std::mt19937_64 rng(test::randomSeed());
  CircularConeParams p = fanScan(120, 80.0);  // 40 mm short side, 200 mm long side
  p.anglesRad = fullScanAnglesRad(1440);
  const Geometry g = circularConeBeam(p);
  const FdkWeightPlan plan(g, RedundancyMode::Auto);
  ASSERT_EQ(plan.mode(), RedundancyMode::OffsetDetector);
  EXPECT_EQ(plan.filterExtension().before, 80) << "(200 - 40) mm / 2 mm pixels on the short side";
  EXPECT_EQ(plan.filterExtension().after, 0);
  expectConjugatesSumToOne(g, plan, rng);
}

TEST(FdkWeights, FullScanHalvesAndStepsAddUpToTheTurn) {
  CircularConeParams p = fanScan(50);
  p.anglesRad = fullScanAnglesRad(90, 0.2);
  const FdkWeightPlan plan(circularConeBeam(p), RedundancyMode::Auto);
  EXPECT_EQ(plan.mode(), RedundancyMode::FullScan);
  double total = 0;
  for (std::int64_t i = 0; i < 90; ++i) total += plan.angularStepRad(i);
  EXPECT_NEAR(total, 2 * kPi, 1e-12);
  EXPECT_DOUBLE_EQ(plan.redundancyWeight(3, 10.0), 0.5);
}

TEST(FdkWeights, UnevenAnglesGetTheirOwnIntegrationSteps) {
  ParallelBeamParams p;
  p.detector.cols = 10;
  p.detector.rows = 1;
  p.anglesRad = {0.0, 0.1, 0.5, 1.0, 1.2, 2.5, 3.0};
  const FdkWeightPlan plan(parallelBeam(p), RedundancyMode::None);
  EXPECT_NEAR(plan.angularStepRad(2), 0.5 * (1.0 - 0.1), 1e-12);
  EXPECT_NEAR(plan.angularStepRad(0), 0.05, 1e-12) << "an end gets half its gap";
}

TEST(FdkWeights, HalfTurnParallelScanIsPeriodic) {
  ParallelBeamParams p;
  p.detector.cols = 10;
  p.detector.rows = 1;
  for (int i = 0; i < 180; ++i) p.anglesRad.push_back(kPi * i / 180.0);
  const FdkWeightPlan plan(parallelBeam(p), RedundancyMode::Auto);
  EXPECT_EQ(plan.mode(), RedundancyMode::None);
  for (std::int64_t i : {0, 90, 179}) EXPECT_NEAR(plan.angularStepRad(i), kPi / 180.0, 1e-12);
}

TEST(FdkWeights, FieldOfViewRadiusFollowsTheFan) {
  CircularConeParams p = fanScan(200);  // 200 mm half-width at 800 mm: tan = 0.25
  p.anglesRad = fullScanAnglesRad(8);
  const FdkWeightPlan plan(circularConeBeam(p), RedundancyMode::Auto);
  EXPECT_NEAR(plan.fieldOfViewRadiusMm(), 400 * std::sin(std::atan(0.25)), 1e-9);
}

TEST(FdkWeights, RejectsMoreThanOneTurn) {
  CircularConeParams p = fanScan(20);
  p.anglesRad = arcAnglesRad(100, 4 * kPi);
  EXPECT_THROW(FdkWeightPlan(circularConeBeam(p), RedundancyMode::Auto), ParameterError);
}

TEST(FdkWeights, ParsesModeNames) {
  EXPECT_EQ(redundancyModeFromString("parker"), RedundancyMode::Parker);
  EXPECT_EQ(redundancyModeFromString("offset-detector"), RedundancyMode::OffsetDetector);
  EXPECT_THROW(redundancyModeFromString("silver"), ParameterError);
}

}  // namespace
}  // namespace tomowb::fdk
