#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "HandBuiltGeometry.h"
#include "recon/core/Error.h"
#include "recon/phantom/PoissonNoise.h"
#include "support/TestSupport.h"

namespace tomowb::phantom {
namespace {

ProjectionStack flatStack(float lineIntegral, std::int64_t views = 4) {
  ProjectionStack stack(
      test::parallel(test::evenAnglesRad(static_cast<int>(views)), 200, 200, 1.0));
  std::fill(stack.pixels().begin(), stack.pixels().end(), lineIntegral);
  return stack;
}

TEST(PoissonNoise, CountsHavePoissonMeanAndVariance) {
  const double incident = 1000.0, p = 1.0;
  ProjectionStack stack = flatStack(static_cast<float>(p));
  addPoissonNoise(stack, incident, tomowb::test::randomSeed());
  // Recover each count, N = I0 exp(-p'); it must be a whole number of photons.
  double sum = 0.0, sumSquares = 0.0;
  for (float noisy : stack.pixels()) {
    const double count = incident * std::exp(-static_cast<double>(noisy));
    ASSERT_NEAR(count, std::round(count), 1e-3 * count);
    sum += std::round(count);
    sumSquares += std::round(count) * std::round(count);
  }
  const auto n = static_cast<double>(stack.pixelCount());
  const double mean = sum / n, variance = sumSquares / n - mean * mean;
  const double lambda = incident * std::exp(-p);
  // Five standard errors: sqrt(lambda / n) for the mean, lambda sqrt(2 / n) for the variance
  // (Poisson: var(s^2) = (2 lambda^2 + lambda) / n).
  EXPECT_NEAR(mean, lambda, 5.0 * std::sqrt(lambda / n));
  EXPECT_NEAR(variance, lambda, 5.0 * std::sqrt((2.0 * lambda * lambda + lambda) / n));
}

TEST(PoissonNoise, LineIntegralVarianceIsOneOverTheCount) {
  // Delta method: var(-log(N / I0)) ~ 1 / lambda for a large count lambda.
  const double incident = 1e5, p = 2.0;
  ProjectionStack stack = flatStack(static_cast<float>(p));
  addPoissonNoise(stack, incident, tomowb::test::randomSeed());
  double sum = 0.0, sumSquares = 0.0;
  for (float v : stack.pixels()) {
    sum += v;
    sumSquares += static_cast<double>(v) * v;
  }
  const auto n = static_cast<double>(stack.pixelCount());
  const double mean = sum / n, variance = sumSquares / n - mean * mean;
  const double lambda = incident * std::exp(-p);
  EXPECT_NEAR(mean, p, 5.0 * std::sqrt(1.0 / (lambda * n)) + 1.0 / lambda);
  EXPECT_NEAR(variance * lambda, 1.0, 0.03);
}

TEST(PoissonNoise, SameSeedGivesTheSameNoiseAndAnotherSeedDoesNot) {
  const std::uint64_t seed = tomowb::test::randomSeed();
  ProjectionStack a = flatStack(0.5f), b = flatStack(0.5f), c = flatStack(0.5f);
  addPoissonNoise(a, 500.0, seed);
  addPoissonNoise(b, 500.0, seed);
  addPoissonNoise(c, 500.0, seed + 1);
  EXPECT_TRUE(std::equal(a.pixels().begin(), a.pixels().end(), b.pixels().begin()));
  EXPECT_FALSE(std::equal(a.pixels().begin(), a.pixels().end(), c.pixels().begin()));
  // Views draw from their own streams: view 0 and view 1 differ.
  EXPECT_FALSE(std::equal(a.viewPixels(0).begin(), a.viewPixels(0).end(), a.viewPixels(1).begin()));
}

TEST(PoissonNoise, ZeroCountsReadAsHalfAPhoton) {
  ProjectionStack stack = flatStack(60.0f, 1);  // mean count 10 exp(-60): always zero
  addPoissonNoise(stack, 10.0, tomowb::test::randomSeed());
  for (float v : stack.pixels()) ASSERT_NEAR(v, std::log(20.0), 1e-6);
}

TEST(PoissonNoise, RejectsNonPositiveOrHugeIncidentCountsNamingIt) {
  ProjectionStack stack = flatStack(1.0f, 1);
  try {
    addPoissonNoise(stack, 0.0, 1);
    FAIL() << "no exception";
  } catch (const ParameterError& error) {
    EXPECT_NE(std::string(error.what()).find("incidentPhotons"), std::string::npos);
  }
  EXPECT_THROW(addPoissonNoise(stack, std::nan(""), 1), ParameterError);
  EXPECT_THROW(addPoissonNoise(stack, 1e30, 1), ParameterError);
}

TEST(PoissonNoise, RejectsANonFiniteLineIntegral) {
  ProjectionStack stack = flatStack(1.0f, 1);
  stack.at(0, 3, 4) = std::nanf("");
  EXPECT_THROW(addPoissonNoise(stack, 1000.0, 1), ParameterError);
}

}  // namespace
}  // namespace tomowb::phantom
