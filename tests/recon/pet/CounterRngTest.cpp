// CounterRng: streams are reproducible and distinct; uniform, normal, exponential and Poisson
// draws have the right moments.
#include <gtest/gtest.h>

#include <cmath>

#include "recon/pet/CounterRng.h"

namespace tomowb::pet {
namespace {

struct Moments {
  double mean = 0, variance = 0;
};

template <typename Draw>
Moments momentsOf(int n, Draw draw) {
  double sum = 0, sumSquares = 0;
  for (int i = 0; i < n; ++i) {
    const double v = draw();
    sum += v;
    sumSquares += v * v;
  }
  const double mean = sum / n;
  return {mean, sumSquares / n - mean * mean};
}

TEST(CounterRng, StreamsAreReproducibleAndDistinct) {
  CounterRng a(1, 2, 3), b(1, 2, 3), c(1, 3, 3), d(2, 2, 3), e(1, 2, 4);
  bool differs = false;
  for (int i = 0; i < 100; ++i) {
    const std::uint32_t x = a.nextU32();
    ASSERT_EQ(x, b.nextU32());
    differs |= x != c.nextU32() && x != d.nextU32() && x != e.nextU32();
  }
  EXPECT_TRUE(differs);
}

TEST(CounterRng, DistributionsHaveTheirMoments) {
  CounterRng rng(99, 0, 0);
  const int n = 400000;
  const Moments uniform = momentsOf(n, [&] { return rng.uniform(); });
  EXPECT_NEAR(uniform.mean, 0.5, 0.003);
  EXPECT_NEAR(uniform.variance, 1.0 / 12, 0.001);
  const Moments normal = momentsOf(n, [&] { return rng.normal(); });
  EXPECT_NEAR(normal.mean, 0.0, 0.006);
  EXPECT_NEAR(normal.variance, 1.0, 0.01);
  const Moments exponential = momentsOf(n, [&] { return rng.exponential(); });
  EXPECT_NEAR(exponential.mean, 1.0, 0.006);
  EXPECT_NEAR(exponential.variance, 1.0, 0.02);
  for (double mean : {0.5, 3.0, 9.9, 10.0, 47.0, 1.0e6}) {
    const Moments poisson = momentsOf(100000, [&] { return double(samplePoisson(mean, rng)); });
    EXPECT_NEAR(poisson.mean, mean, 5 * std::sqrt(mean / 100000)) << mean;
    EXPECT_NEAR(poisson.variance / mean, 1.0, 0.03) << mean;
  }
  EXPECT_EQ(samplePoisson(0.0, rng), 0);
}

TEST(CounterRng, LogFactorialMatchesLgamma) {
  for (int k = 0; k < 200; ++k) EXPECT_NEAR(logFactorial(k), std::lgamma(k + 1.0), 1e-9) << k;
}

}  // namespace
}  // namespace tomowb::pet
