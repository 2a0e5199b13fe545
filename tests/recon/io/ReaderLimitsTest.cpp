#include <gtest/gtest.h>

#include "recon/io/ReaderLimits.h"
#include "tests/recon/io/IoTestSupport.h"

namespace tomowb::io {
namespace {

TEST(ReaderLimits, AxisLengthsFrom1To2To20AreAccepted) {
  EXPECT_EQ(checkedAxisLength("f", "n", 1), 1);
  EXPECT_EQ(checkedAxisLength("f", "n", kMaxAxisLength), kMaxAxisLength);
  TOMOWB_EXPECT_FORMAT_ERROR(checkedAxisLength("f.raw", "nx", 0), "f.raw", "nx");
  TOMOWB_EXPECT_FORMAT_ERROR(checkedAxisLength("f.raw", "nx", -5), "f.raw", ">= 1");
  TOMOWB_EXPECT_FORMAT_ERROR(checkedAxisLength("f.raw", "nx", 1LL << 31), "f.raw", "2^20");
}

TEST(ReaderLimits, PayloadProductsThatOverflowAreFormatErrors) {
  EXPECT_EQ(checkedPayloadBytes("f", "shape", {2, 3, 4}, 8), 192u);
  TOMOWB_EXPECT_FORMAT_ERROR(
      checkedPayloadBytes("f.npy", "shape", {1LL << 40, 1LL << 20, 1LL << 4}, 8), "f.npy",
      "overflows");
}

}  // namespace
}  // namespace tomowb::io
