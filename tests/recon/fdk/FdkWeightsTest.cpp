#include <gtest/gtest.h>

#include <numbers>
#include <random>

#include "recon/core/Error.h"
#include "recon/fdk/FdkWeights.h"
#include "recon/geometry/ScanBuilders.h"
#include "support/GeometryTransforms.h"
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
  EXPECT_NEAR(plan.angularStepRad(0), 0.1, 1e-12)
      << "an end view stands for as much on its open side as towards its neighbour";
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

TEST(FdkWeights, ParkerWeightsOfEveryLineSumToOneForAnySpanUpToAFullTurn) {
  std::mt19937_64 rng(test::randomSeed());
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  for (int trial = 0; trial < 2000; ++trial) {
    const double halfFan = 0.4 * unit(rng);
    const double delta = halfFan + (0.5 * kPi - halfFan) * unit(rng);  // pi + 2 gamma .. 2 pi
    const double span = kPi + 2 * delta;
    const double gamma = halfFan * (2 * unit(rng) - 1);
    const double beta = span * unit(rng);
    // The same line seen from the other side, before or after this view.
    double sum = FdkWeightPlan::parkerWeight(beta, gamma, delta);
    for (double other : {beta + kPi + 2 * gamma, beta - kPi + 2 * gamma})
      if (other >= 0 && other <= span) sum += FdkWeightPlan::parkerWeight(other, -gamma, delta);
    ASSERT_NEAR(sum, 1.0, 1e-9) << "beta " << beta << " gamma " << gamma << " delta " << delta;
  }
}

// The short scan a textbook describes: N views spread evenly over [0, pi + fan), each standing
// for one angular step.
TEST(FdkWeights, TextbookShortScanIsAcceptedAndCoversPiPlusFan) {
  CircularConeParams p = fanScan(120);
  const double range = kPi + fullFanAngleRad(p);
  for (int i = 0; i < 360; ++i) p.anglesRad.push_back(range * i / 360.0);
  const FdkWeightPlan plan(circularConeBeam(p), RedundancyMode::Auto);
  EXPECT_EQ(plan.mode(), RedundancyMode::Parker);
  EXPECT_TRUE(plan.warnings().empty());
  EXPECT_NEAR(plan.coverageRad(), range, 1e-9);
  EXPECT_NEAR(2 * plan.parkerDeltaRad(), fullFanAngleRad(p), 1e-9);
  double total = 0;
  for (std::int64_t i = 0; i < 360; ++i) total += plan.angularStepRad(i);
  EXPECT_NEAR(total, range, 1e-9) << "one angular step per view";
}

TEST(FdkWeights, RefusesAShortScanBelowPiPlusFanNamingBothSpansUnlessAllowed) {
  CircularConeParams p = fanScan(120);
  const double range = kPi + fullFanAngleRad(p) - 3 * (kPi / 180.0);  // three steps short
  for (int i = 0; i < 180; ++i) p.anglesRad.push_back(range * i / 180.0);
  const Geometry g = circularConeBeam(p);
  for (RedundancyMode mode : {RedundancyMode::Auto, RedundancyMode::Parker}) {
    try {
      FdkWeightPlan plan(g, mode);
      ADD_FAILURE() << "an incomplete short scan was accepted";
    } catch (const ParameterError& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find("covers"), std::string::npos) << what;
      EXPECT_NE(what.find("needs"), std::string::npos) << what;
      EXPECT_NE(what.find("--allow-incomplete"), std::string::npos) << what;
    }
  }
  const FdkWeightPlan allowed(g, RedundancyMode::Auto, /*allowIncomplete=*/true);
  EXPECT_EQ(allowed.mode(), RedundancyMode::Parker);
  ASSERT_EQ(allowed.warnings().size(), 1u);
  EXPECT_NE(allowed.warnings()[0].find("needs"), std::string::npos);
  EXPECT_NO_THROW(FdkWeightPlan(g, RedundancyMode::None)) << "limited-angle data, unweighted";
}

// A random circular scan: full turn, short scan (pi + fan + up to 0.3 rad) or an offset
// detector, with a random start angle, sense of rotation and size.
Geometry randomScan(std::mt19937_64& rng, RedundancyMode kind) {
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  CircularConeParams p;
  p.sourceToIsocentreMm = 300 + 500 * unit(rng);
  p.sourceToDetectorMm = p.sourceToIsocentreMm * (1.3 + unit(rng));
  p.detector.cols = 40 + std::int64_t(40 * unit(rng));
  p.detector.rows = 6;
  p.detector.pitchUMm = p.detector.pitchVMm = 0.5 + 2 * unit(rng);
  const double halfWidth = 0.5 * double(p.detector.cols) * p.detector.pitchUMm;
  if (kind == RedundancyMode::OffsetDetector)
    p.detector.offsetUMm = (unit(rng) < 0.5 ? -1 : 1) * halfWidth * (0.4 + 0.4 * unit(rng));
  const double start = 2 * kPi * unit(rng);
  const double sense = unit(rng) < 0.5 ? -1.0 : 1.0;
  const std::int64_t views = 90 + std::int64_t(90 * unit(rng));
  const double range =
      kind == RedundancyMode::Parker ? kPi + fullFanAngleRad(p) + 0.3 * unit(rng) : 2 * kPi;
  for (std::int64_t i = 0; i < views; ++i)
    p.anglesRad.push_back(start + sense * range * double(i) / double(views));
  return circularConeBeam(p);
}

// Per view and column, the weights FDK applies (redundancy x step).
std::vector<double> appliedWeights(const FdkWeightPlan& plan, const Geometry& g) {
  std::vector<double> w;
  for (std::int64_t i = 0; i < g.viewCount(); ++i)
    for (std::int64_t c = 0; c < g.detector().cols; ++c)
      w.push_back(plan.redundancyWeight(i, double(c)) * plan.angularStepRad(i));
  return w;
}

TEST(FdkWeights, WeightsDoNotDependOnHowTheScanIsDescribed) {
  std::mt19937_64 rng(test::randomSeed());
  for (RedundancyMode kind :
       {RedundancyMode::FullScan, RedundancyMode::Parker, RedundancyMode::OffsetDetector}) {
    for (int trial = 0; trial < 4; ++trial) {
      const ProjectionStack stack(randomScan(rng, kind));
      const Geometry& g = stack.geometry();
      const std::int64_t n = g.viewCount();
      const FdkWeightPlan plan(g, RedundancyMode::Auto);
      ASSERT_EQ(plan.mode(), kind) << plan.summary();
      const auto count = static_cast<std::size_t>(n);
      std::vector<std::int64_t> same(count), reversed(count), shifted(count);
      const std::int64_t first = n / 3;
      for (std::int64_t i = 0; i < n; ++i) {
        same[std::size_t(i)] = i;
        reversed[std::size_t(i)] = n - 1 - i;
        shifted[std::size_t(i)] = (first + i) % n;
      }
      const std::vector<double> reference = appliedWeights(plan, g);
      struct Case {
        const char* label;
        ProjectionStack described;
        const std::vector<std::int64_t>& viewOf;  // view i of `described` is view viewOf[i]
        bool columnsMirrored;
      };
      const Case cases[] = {
          {"u flipped", test::flipDetectorU(stack), same, true},
          {"v flipped", test::flipDetectorV(stack), same, false},
          {"views backwards", test::reverseViews(stack), reversed, false},
          {"angle origin moved", test::startViewsAt(stack, first), shifted, false},
          {"rotation sense reversed (world mirrored)", test::mirrorWorldY(stack), same, false},
          {"set-up turned 90 deg", test::rotateWorldQuarterTurns(stack, 1), same, false},
      };
      for (const Case& c : cases) {
        const FdkWeightPlan other(c.described.geometry(), RedundancyMode::Auto);
        ASSERT_EQ(other.mode(), kind) << c.label;
        EXPECT_NEAR(other.coverageRad(), plan.coverageRad(), 1e-9) << c.label;
        // Described differently, each pixel must get the weight its ray got before.
        std::vector<double> got;
        for (std::int64_t i = 0; i < n; ++i)
          for (std::int64_t col = 0; col < g.detector().cols; ++col) {
            const std::int64_t describedView =
                std::find(c.viewOf.begin(), c.viewOf.end(), i) - c.viewOf.begin();
            const std::int64_t describedCol = c.columnsMirrored ? g.detector().cols - 1 - col : col;
            got.push_back(other.redundancyWeight(describedView, double(describedCol)) *
                          other.angularStepRad(describedView));
          }
        double worst = 0;
        for (std::size_t k = 0; k < got.size(); ++k)
          worst = std::max(worst, std::abs(got[k] - reference[k]));
        EXPECT_LT(worst, 1e-9) << c.label << " changed a weight of " << toString(kind) << " ("
                               << plan.summary() << ") by " << worst;
      }
    }
  }
}

TEST(FdkWeights, ParsesModeNames) {
  EXPECT_EQ(redundancyModeFromString("parker"), RedundancyMode::Parker);
  EXPECT_EQ(redundancyModeFromString("offset-detector"), RedundancyMode::OffsetDetector);
  EXPECT_THROW(redundancyModeFromString("silver"), ParameterError);
}

}  // namespace
}  // namespace tomowb::fdk
