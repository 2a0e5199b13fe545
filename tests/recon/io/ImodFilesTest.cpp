// IMOD text files: .tlt/.rawtlt/.xtilt (one angle a line) and .xf (6 numbers a line), their
// writers, the decomposition of an .xf matrix and the move of its shift to the geometric centre.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

#include "recon/core/Error.h"
#include "recon/io/ImodFiles.h"
#include "support/TestSupport.h"
#include "tests/recon/io/IoTestSupport.h"

namespace tomowb::io {
namespace {

constexpr double kPi = std::numbers::pi;

Eigen::Matrix2d rotation(double rad) {
  Eigen::Matrix2d r;
  r << std::cos(rad), -std::sin(rad), std::sin(rad), std::cos(rad);
  return r;
}

TEST(ImodFiles, ReadsTiltAnglesToleratingBlankLinesAndSurroundingSpaces) {
  test::TempDir dir;
  test::writeBytes(dir / "a.tlt", "  -60.00\n\n\t-58.5 \r\n+3\n   \n1e1\n0");
  EXPECT_EQ(readTiltAnglesDeg(dir / "a.tlt"), (std::vector<double>{-60, -58.5, 3, 10, 0}));
  test::writeBytes(dir / "b.xtilt", "0.5\n0.5\n");
  EXPECT_EQ(readXAxisTiltsDeg(dir / "b.xtilt"), (std::vector<double>{0.5, 0.5}));
  test::writeBytes(dir / "c.rawtlt", "");
  EXPECT_TRUE(readTiltAnglesDeg(dir / "c.rawtlt").empty());
}

TEST(ImodFiles, RejectsAnythingButOneNumberALineNamingTheLine) {
  test::TempDir dir;
  for (const std::string bad :
       {"abc", "1 2", "1.0x", "nan", "inf", "1e999", "--1", "1,5", "0x10"}) {
    test::writeBytes(dir / "a.tlt", "-60\n\n" + bad + "\n3\n");
    TOMOWB_EXPECT_FORMAT_ERROR(readTiltAnglesDeg(dir / "a.tlt"), dir / "a.tlt", "line 3");
  }
  EXPECT_THROW(readTiltAnglesDeg(dir / "missing.tlt"), IoError);
}

TEST(ImodFiles, RefusesTextFilesLargerThan16MiB) {
  test::TempDir dir;
  test::writeBytes(dir / "big.tlt", std::string((std::size_t{16} << 20) + 1, '\n'));
  TOMOWB_EXPECT_FORMAT_ERROR(readTiltAnglesDeg(dir / "big.tlt"), dir / "big.tlt", "limit");
}

TEST(ImodFiles, ReadsXfLinesInFreeAndImodsFixedWidthForm) {
  test::TempDir dir;
  // The second line is IMOD's %12.7f x 4, %12.3f x 2 with a shift that fills its field.
  test::writeBytes(dir / "a.xf",
                   "0.98 -0.19 0.19 0.98 12.5 -3\n"
                   "   0.9998477  -0.0174524   0.0174524   0.9998477-1234567.125       3.210\n");
  const std::vector<XfTransform> xf = readXf(dir / "a.xf");
  ASSERT_EQ(xf.size(), 2u);
  EXPECT_EQ(xf[0].a(0, 1), -0.19);
  EXPECT_EQ(xf[0].a(1, 0), 0.19);
  EXPECT_EQ(xf[0].shiftPixels, Eigen::Vector2d(12.5, -3));
  EXPECT_EQ(xf[1].a(1, 1), 0.9998477);
  EXPECT_EQ(xf[1].shiftPixels, Eigen::Vector2d(-1234567.125, 3.21));
}

TEST(ImodFiles, RejectsXfLinesWithMissingNumbersWordsOrASingularMatrix) {
  test::TempDir dir;
  for (const std::string bad : {"1 0 0 1 0", "1 0 0 1 0 0 0", "1 0 0 one 0 0", "1 0 0 1 nan 0",
                                "1 1 1 1 0 0", "0 0 0 0 0 0"}) {
    test::writeBytes(dir / "a.xf", "1 0 0 1 0 0\n" + bad + "\n");
    TOMOWB_EXPECT_FORMAT_ERROR(readXf(dir / "a.xf"), dir / "a.xf", "line 2");
  }
}

TEST(ImodFiles, WrittenTltAndXfReadBack) {
  test::TempDir dir;
  const std::vector<double> angles = {-60.0, -1.2345, 0.0, 59.9999};
  writeTiltAnglesDeg(dir / "a.tlt", angles);
  EXPECT_EQ(readTiltAnglesDeg(dir / "a.tlt"), angles);
  std::vector<XfTransform> xf(2);
  xf[0].a = 1.01 * rotation(0.2);
  xf[0].shiftPixels = {-12.25, 1024.5};
  xf[1].a << 12345.6789012, -2, 3, 4;
  writeXf(dir / "a.xf", xf);
  // IMOD's layout: six right-aligned fields of 12 characters, widened where a number needs it.
  const std::string bytes = test::readBytes(dir / "a.xf");
  EXPECT_EQ(bytes.find('\n'), 72u);
  EXPECT_EQ(bytes.substr(0, 12), "   0.9898672");
  const std::vector<XfTransform> back = readXf(dir / "a.xf");
  ASSERT_EQ(back.size(), 2u);
  for (std::size_t k = 0; k < 2; ++k) {
    EXPECT_TRUE(back[k].a.isApprox(xf[k].a, 1e-7)) << k;
    EXPECT_TRUE(back[k].shiftPixels.isApprox(xf[k].shiftPixels, 1e-7)) << k;
  }
  EXPECT_THROW(writeTiltAnglesDeg(dir / "b.tlt", {1.0, NAN}), ParameterError);
  EXPECT_FALSE(std::filesystem::exists(dir / "b.tlt"));
}

TEST(ImodFiles, DecomposeRecoversRotationMagnificationStretchAndSkew) {
  const XfDecomposition r = decompose(1.05 * rotation(0.3));
  EXPECT_NEAR(r.rotationRad, 0.3, 1e-12);
  EXPECT_NEAR(r.magnification, 1.05, 1e-12);
  EXPECT_NEAR(r.stretch, 1.0, 1e-12);
  EXPECT_NEAR(r.skewRad, 0.0, 1e-12);
  EXPECT_FALSE(r.mirrored);
  Eigen::Matrix2d stretch;
  stretch << 1.1, 0, 0, 1.0;
  const XfDecomposition s = decompose(rotation(-0.1) * stretch);
  EXPECT_NEAR(s.stretch, 1.1, 1e-12);
  EXPECT_NEAR(s.magnification, std::sqrt(1.1), 1e-12);
  EXPECT_NEAR(s.skewRad, 0.0, 1e-12);
  Eigen::Matrix2d shear;
  shear << 1, std::tan(0.05), 0, 1;  // the image of y leans 0.05 rad towards x
  EXPECT_NEAR(decompose(shear).skewRad, 0.05, 1e-12);
  Eigen::Matrix2d mirror;
  mirror << -1, 0, 0, 1;
  EXPECT_TRUE(decompose(mirror).mirrored);
  EXPECT_NEAR(decompose(rotation(kPi * 0.9)).rotationRad, kPi * 0.9, 1e-12);
}

TEST(ImodFiles, ShiftAboutTheGeometricCentreAddsHalfAPixelThroughIMinusA) {
  XfTransform t;
  t.a = rotation(0.5);
  t.shiftPixels = {3, -2};
  // The same map written about IMOD's centre (n/2) and about ours ((n-1)/2): for any pixel,
  // x'_imod = A x_imod + D with x_imod = x_geo - 1/2 must equal x'_geo - 1/2.
  const Eigen::Vector2d h(0.5, 0.5);
  for (const Eigen::Vector2d xGeo : {Eigen::Vector2d(0, 0), Eigen::Vector2d(7.5, -3)}) {
    const Eigen::Vector2d viaImod = t.a * (xGeo - h) + t.shiftPixels + h;
    const Eigen::Vector2d viaGeo = t.a * xGeo + t.shiftAboutGeometricCentre();
    EXPECT_TRUE(viaImod.isApprox(viaGeo, 1e-12));
  }
  EXPECT_EQ(XfTransform{}.shiftAboutGeometricCentre(), Eigen::Vector2d::Zero());
}

TEST(ImodFiles, RequireViewCountNamesBothFilesAndCounts) {
  EXPECT_NO_THROW(requireViewCount("a.xf", 61, "a.st", 61));
  try {
    requireViewCount("dir/a.xf", 60, "dir/a.st", 61);
    FAIL();
  } catch (const FormatError& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("dir/a.xf"), std::string::npos) << message;
    EXPECT_NE(message.find("dir/a.st"), std::string::npos) << message;
    EXPECT_NE(message.find("60"), std::string::npos) << message;
    EXPECT_NE(message.find("61"), std::string::npos) << message;
  }
}

// D25 of the hostile-input review: 1e300 degrees is finite but meaningless.
TEST(ImodFiles, RefusesTiltAnglesBeyondOneTurnNamingTheLine) {
  test::TempDir dir;
  test::writeBytes(dir / "a.tlt", "-60\n1e300\n");
  TOMOWB_EXPECT_FORMAT_ERROR(readTiltAnglesDeg(dir / "a.tlt"), dir / "a.tlt", "line 2");
  test::writeBytes(dir / "a.xtilt", "0\n-361\n");
  TOMOWB_EXPECT_FORMAT_ERROR(readXAxisTiltsDeg(dir / "a.xtilt"), dir / "a.xtilt", "360");
  test::writeBytes(dir / "b.tlt", "-360\n360\n");
  EXPECT_EQ(readTiltAnglesDeg(dir / "b.tlt"), (std::vector<double>{-360, 360}));
}

}  // namespace
}  // namespace tomowb::io
