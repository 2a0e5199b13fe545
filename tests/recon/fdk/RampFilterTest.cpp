#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <random>

#include "recon/core/Error.h"
#include "recon/fdk/RampFilter.h"
#include "support/TestSupport.h"

namespace tomowb::fdk {
namespace {

constexpr double kPi = std::numbers::pi;

TEST(RampFilter, WindowsMatchTheirClosedForms) {
  for (double fc : {1.0, 0.6}) {
    for (double f : {0.0, 0.1, 0.25, 0.5, 0.59, 0.75, 1.0}) {
      const double x = f / fc;
      const double inside = f <= fc ? 1.0 : 0.0;
      EXPECT_DOUBLE_EQ(windowGain(RampWindow::RamLak, f, fc), inside);
      EXPECT_NEAR(windowGain(RampWindow::SheppLogan, f, fc),
                  inside * (f == 0 ? 1.0 : std::sin(kPi * x / 2) / (kPi * x / 2)), 1e-15);
      EXPECT_NEAR(windowGain(RampWindow::Cosine, f, fc), inside * std::cos(kPi * x / 2), 1e-15);
      EXPECT_NEAR(windowGain(RampWindow::Hamming, f, fc),
                  inside * (0.54 + 0.46 * std::cos(kPi * x)), 1e-15);
      EXPECT_NEAR(windowGain(RampWindow::Hann, f, fc), inside * (0.5 + 0.5 * std::cos(kPi * x)),
                  1e-15);
    }
  }
  EXPECT_NEAR(windowGain(RampWindow::Hann, 1.0, 1.0), 0.0, 1e-15);
  EXPECT_NEAR(windowGain(RampWindow::Hamming, 1.0, 1.0), 0.08, 1e-15);
}

TEST(RampFilter, ResponseIsTheRampTimesTheWindow) {
  // Each window scales the Ram-Lak response bin by bin.
  const double tau = 0.8;
  RampFilter<double> ramLak(100, tau, {RampWindow::RamLak, 1.0});
  for (RampWindow w :
       {RampWindow::SheppLogan, RampWindow::Cosine, RampWindow::Hamming, RampWindow::Hann}) {
    RampFilter<double> windowed(100, tau, {w, 0.8});
    const auto& a = ramLak.response();
    const auto& b = windowed.response();
    ASSERT_EQ(a.size(), b.size());
    for (std::size_t k = 1; k < a.size(); ++k) {
      const double f = double(k) / double(a.size() - 1);
      EXPECT_NEAR(b[k], a[k] * windowGain(w, f, 0.8), 1e-12) << toString(w) << " bin " << k;
    }
  }
  // Ram-Lak: close to the ideal ramp |nu| (cycles/mm) away from DC, zero mean kernel at DC.
  const auto& r = ramLak.response();
  const double n = double(ramLak.paddedLength());
  double kernelSum = 0.25;  // the DC gain is the sum of the spatial kernel
  for (int k = 1; k < n / 2; k += 2) kernelSum -= 2.0 / (kPi * kPi * k * k);
  EXPECT_NEAR(r[0], kernelSum / tau, 1e-12);
  for (std::size_t k = 8; k < r.size(); k += 37) {
    const double nu = double(k) / (n * tau);  // cycles per mm
    EXPECT_NEAR(r[k], nu, 0.02 * nu + 1e-3) << "bin " << k;
  }
}

TEST(RampFilter, FilteringEqualsDirectConvolutionWithTheSpatialKernel) {
  std::mt19937_64 rng(test::randomSeed());
  std::normal_distribution<double> g;
  const std::int64_t n = 77;
  const double tau = 1.3;
  std::vector<double> row(n);
  for (double& x : row) x = g(rng);
  std::vector<double> expected(n, 0.0);
  for (std::int64_t c = 0; c < n; ++c)
    for (std::int64_t k = 0; k < n; ++k) {
      const std::int64_t d = std::abs(c - k);
      const double h = d == 0 ? 0.25 : (d % 2 ? -1.0 / (kPi * kPi * double(d * d)) : 0.0);
      expected[c] += row[k] * h / tau;
    }
  RampFilter<double> f64(n, tau, {});
  std::vector<double> out64 = row;
  f64.filterRow(out64);
  RampFilter<float> f32(n, tau, {});
  std::vector<float> out32(row.begin(), row.end());
  f32.filterRow(out32);
  for (std::int64_t c = 0; c < n; ++c) {
    EXPECT_NEAR(out64[c], expected[c], 1e-12);
    EXPECT_NEAR(out32[c], expected[c], 2e-5);
  }
}

TEST(RampFilter, PadsToAtLeastTwiceTheRowLength) {
  EXPECT_EQ(paddedRowLength(10), 64);
  EXPECT_EQ(paddedRowLength(100), 256);
  EXPECT_EQ(paddedRowLength(128), 256);
  EXPECT_EQ(paddedRowLength(129), 512);
}

TEST(RampFilter, ParsesWindowNamesAndRejectsUnknownOnes) {
  EXPECT_EQ(rampWindowFromString("Hann"), RampWindow::Hann);
  EXPECT_EQ(rampWindowFromString("shepp_logan"), RampWindow::SheppLogan);
  EXPECT_EQ(rampWindowFromString("ram-lak"), RampWindow::RamLak);
  EXPECT_THROW(rampWindowFromString("butterworth"), ParameterError);
  EXPECT_THROW(RampFilter<float>(10, 1.0, {RampWindow::Hann, 0.0}), ParameterError);
  EXPECT_THROW(RampFilter<float>(10, 1.0, {RampWindow::Hann, 1.5}), ParameterError);
}

}  // namespace
}  // namespace tomowb::fdk
