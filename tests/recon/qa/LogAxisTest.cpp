// Log axes that survive degenerate ranges (issue #17, point 5): all values 0, all equal, one value,
// with labels in the data's units.
#include <gtest/gtest.h>

#include <cmath>

#include "recon/qa/LogAxis.h"

namespace tomowb::qa {
namespace {

void expectSane(const LogAxis& axis, const std::vector<double>& values) {
  ASSERT_GT(axis.lo, 0);
  ASSERT_LT(axis.lo, axis.hi);
  EXPECT_GE(std::log10(axis.hi / axis.lo), 1.0 - 1e-9);  // at least one decade
  ASSERT_GE(axis.ticks.size(), 2u);
  ASSERT_EQ(axis.ticks.size(), axis.labels.size());
  for (std::size_t i = 0; i < axis.ticks.size(); ++i) {
    EXPECT_GE(axis.ticks[i], axis.lo * (1 - 1e-12));
    EXPECT_LE(axis.ticks[i], axis.hi * (1 + 1e-12));
    if (i > 0) {
      EXPECT_GT(axis.ticks[i], axis.ticks[i - 1]);
    }
    // Labels in real units: the label reads back as the tick, never as its log10.
    EXPECT_NEAR(std::stod(axis.labels[i]) / axis.ticks[i], 1.0, 1e-2) << axis.labels[i];
  }
  for (double v : values)
    if (v > 0) {
      EXPECT_GE(v, axis.lo);
      EXPECT_LE(v, axis.hi);
    }
}

TEST(LogAxis, AllZeroGivesADefaultRange) {
  const LogAxis axis = logAxisFor({0, 0, 0});
  expectSane(axis, {});
}

TEST(LogAxis, AllEqualOnADecadeGetsADecadeEachSide) {
  const LogAxis axis = logAxisFor({1e-12, 1e-12});
  expectSane(axis, {1e-12});
  EXPECT_LT(axis.lo, 1e-12);
  EXPECT_GT(axis.hi, 1e-12);
  EXPECT_EQ(axis.labels.front(), "1e-13");
}

TEST(LogAxis, OneValueInsideADecadeIsLabelledInSeconds) {
  const LogAxis axis = logAxisFor({0.0597});
  expectSane(axis, {0.0597});
  for (const std::string& l : axis.labels) EXPECT_EQ(l.find('-'), std::string::npos) << l;
}

TEST(LogAxis, WideRangesThinTheDecades) {
  const LogAxis axis = logAxisFor({3e-13, 2e-7, 5e-2, -1, NAN});
  expectSane(axis, {3e-13, 2e-7, 5e-2});
  EXPECT_LE(axis.ticks.size(), 8u);
}

}  // namespace
}  // namespace tomowb::qa
