// MeasurementText: lengths and areas pick mm, µm or nm by their size and never print exponents.
#include <gtest/gtest.h>

#include <limits>

#include "recon/metrics/MeasurementText.h"

namespace tomowb::metrics {
namespace {

TEST(MeasurementText, LengthPicksTheUnitBySize) {
  EXPECT_EQ(lengthText(12.345), "12.35 mm");
  EXPECT_EQ(lengthText(0.5), "0.5 mm");
  EXPECT_EQ(lengthText(0.035), "35 \u00b5m");
  EXPECT_EQ(lengthText(4.25e-5), "42.5 nm");
  EXPECT_EQ(lengthText(1234.4), "1234 mm");
  EXPECT_EQ(lengthText(0.0), "0 mm");
  EXPECT_EQ(lengthText(std::numeric_limits<double>::quiet_NaN()), "-");
}

TEST(MeasurementText, AreaPicksTheUnitByItsSquareRoot) {
  EXPECT_EQ(areaText(123.44), "123.4 mm\u00b2");
  EXPECT_EQ(areaText(0.25), "0.25 mm\u00b2");
  EXPECT_EQ(areaText(3.5e-4), "350 \u00b5m\u00b2");    // sqrt = 0.0187 mm
  EXPECT_EQ(areaText(1.2e-8), "0.012 \u00b5m\u00b2");  // sqrt = 0.11 µm
  EXPECT_EQ(areaText(1.2e-9), "1200 nm\u00b2");        // sqrt = 35 nm
}

}  // namespace
}  // namespace tomowb::metrics
