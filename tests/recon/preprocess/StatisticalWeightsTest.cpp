// Post-log data and weights from counts: the simulation's counts give back addPoissonNoise's
// line integrals bit for bit, weights are the counts (0 for zero counts), I0 exp(-y) where only
// I0 is known, and bad counts are refused naming their source and pixel.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <numbers>

#include "recon/core/Error.h"
#include "recon/geometry/ScanBuilders.h"
#include "recon/phantom/PoissonNoise.h"
#include "recon/preprocess/StatisticalWeights.h"
#include "support/TestSupport.h"

namespace tomowb::preprocess {
namespace {

ProjectionStack rampStack() {
  CircularConeParams p;
  p.sourceToIsocentreMm = 300;
  p.sourceToDetectorMm = 500;
  p.detector.cols = 12;
  p.detector.rows = 5;
  p.anglesRad = fullScanAnglesRad(7);
  ProjectionStack stack(circularConeBeam(p));
  for (std::int64_t i = 0; i < stack.pixelCount(); ++i)
    stack.data()[i] = 0.05f * static_cast<float>(i % 97);  // 0 to 4.8: some counts reach zero
  return stack;
}

TEST(StatisticalWeights, CountsGiveBackAddPoissonNoiseBitForBitAndWeightsAreTheCounts) {
  const ProjectionStack clean = rampStack();
  const double incident = 50.0;
  const std::uint64_t seed = test::randomSeed();
  ProjectionStack noisy = clean;
  phantom::addPoissonNoise(noisy, incident, seed);
  const ProjectionStack counts = phantom::drawPoissonCounts(clean, incident, seed);
  const PostLogData data = postLogFromCounts(counts, incident);
  int zeros = 0;
  for (std::int64_t i = 0; i < clean.pixelCount(); ++i) {
    ASSERT_EQ(data.lineIntegrals.data()[i], noisy.data()[i]) << "pixel " << i;
    ASSERT_EQ(data.weights.data()[i], counts.data()[i]);
    ASSERT_EQ(counts.data()[i], std::round(counts.data()[i]));
    if (counts.data()[i] == 0.0f) {
      ++zeros;
      EXPECT_FLOAT_EQ(data.lineIntegrals.data()[i], static_cast<float>(std::log(2.0 * incident)));
    }
  }
  EXPECT_GT(zeros, 0) << "the ramp reaches exp(-4.8) * 50 = 0.4 photons";
  EXPECT_EQ(data.weights.viewCount(), clean.viewCount());
  EXPECT_EQ(data.lineIntegrals.geometry().view(3).source, clean.geometry().view(3).source);
}

TEST(StatisticalWeights, WeightsFromLineIntegralsAreTheExpectedCounts) {
  const ProjectionStack y = rampStack();
  const ProjectionStack w = weightsFromLineIntegrals(y, 1e4);
  for (std::int64_t i = 0; i < y.pixelCount(); ++i)
    ASSERT_FLOAT_EQ(w.data()[i], static_cast<float>(1e4 * std::exp(-double(y.data()[i]))));
}

TEST(StatisticalWeights, RefusesNegativeOrNotFiniteCountsNamingSourceAndPixel) {
  ProjectionStack counts = rampStack();
  counts.at(2, 3, 4) = -1.0f;
  try {
    postLogFromCounts(counts, 100.0, "scan-counts.npy");
    FAIL() << "a negative count was accepted";
  } catch (const ParameterError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("scan-counts.npy"), std::string::npos) << what;
    EXPECT_NE(what.find("view 2, row 3, col 4"), std::string::npos) << what;
  }
  counts.at(2, 3, 4) = std::numeric_limits<float>::quiet_NaN();
  EXPECT_THROW(postLogFromCounts(counts, 100.0), ParameterError);
  EXPECT_THROW(postLogFromCounts(rampStack(), 0.0), ParameterError);
  EXPECT_THROW(weightsFromLineIntegrals(rampStack(), -3.0), ParameterError);
}

}  // namespace
}  // namespace tomowb::preprocess
