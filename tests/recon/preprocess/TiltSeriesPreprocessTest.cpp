// Tilt-series preprocessing: crop and binning keep every output pixel where its source pixels
// lie (checked pixel by pixel in world coordinates, on skewed per-view geometry and on a cone
// beam), the log transform with a given or estimated I0 and its count of pixels without a
// logarithm, per-view normalisation, parameter errors and cancellation.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <random>

#include "recon/core/Error.h"
#include "recon/geometry/ScanBuilders.h"
#include "recon/io/TiltSeriesFiles.h"
#include "recon/preprocess/TiltSeriesPreprocess.h"
#include "support/TestSupport.h"

namespace tomowb::preprocess {
namespace {

constexpr double kDeg = std::numbers::pi / 180.0;

// A tilt series whose views carry an IMOD alignment (rotated, sheared, shifted u and v), so
// that a convention error in any direction shows.
Geometry skewedSeries(std::int64_t cols, std::int64_t rows) {
  TiltSeriesParams p;
  p.cols = cols;
  p.rows = rows;
  p.pixelSizeMm = 0.7;
  p.tiltAnglesRad = {-50 * kDeg, 0.0, 35 * kDeg};
  p.tiltAxisAngleRad = 4 * kDeg;
  Geometry g = tiltSeries(p);
  std::vector<io::XfTransform> xf(3);
  for (std::size_t k = 0; k < 3; ++k) {
    xf[k].a << 1.01, 0.02 * double(k), -0.1, 0.99;
    xf[k].shiftPixels = {3.0 - double(k), 1.5 * double(k)};
  }
  io::applyAlignment(g, xf);
  return g;
}

ProjectionStack randomStack(const Geometry& g, std::uint64_t seed, float lo = 1.0f,
                            float hi = 100.0f) {
  ProjectionStack s(g);
  std::mt19937_64 random(seed);
  std::uniform_real_distribution<float> value(lo, hi);
  for (float& x : s.pixels()) x = value(random);
  return s;
}

void expectSamePoint(const Eigen::Vector3d& a, const Eigen::Vector3d& b) {
  EXPECT_LT((a - b).norm(), 1e-9) << a.transpose() << " vs " << b.transpose();
}

TEST(TiltSeriesPreprocess, CropKeepsEveryPixelAndItsWorldPosition) {
  const ProjectionStack in = randomStack(skewedSeries(11, 9), test::randomSeed());
  TiltSeriesPreprocessing params;
  params.firstCol = 2;
  params.cols = 6;
  params.firstRow = 3;  // rows 3..8
  JobContext context;
  std::vector<std::string> warnings;
  const ProjectionStack out = preprocessTiltSeries(in, params, context, &warnings);
  EXPECT_TRUE(warnings.empty());
  ASSERT_EQ(out.cols(), 6);
  ASSERT_EQ(out.rows(), 6);
  for (std::int64_t k = 0; k < in.viewCount(); ++k) {
    EXPECT_EQ(out.geometry().view(k).u, in.geometry().view(k).u);
    EXPECT_EQ(out.geometry().view(k).rayDirection, in.geometry().view(k).rayDirection);
    for (std::int64_t r = 0; r < out.rows(); ++r)
      for (std::int64_t c = 0; c < out.cols(); ++c) {
        EXPECT_EQ(out.at(k, r, c), in.at(k, r + 3, c + 2));
        expectSamePoint(out.geometry().pixelPosition(k, double(c), double(r)),
                        in.geometry().pixelPosition(k, double(c + 2), double(r + 3)));
      }
  }
}

TEST(TiltSeriesPreprocess, BinnedPixelsAverageTheirBlockAndSitAtItsMeanCentre) {
  const ProjectionStack in = randomStack(skewedSeries(11, 8), test::randomSeed());
  TiltSeriesPreprocessing params;
  params.firstCol = 1;  // 10 columns left: 3 blocks of 3 and one dropped column
  params.binning = 3;   // 8 rows: 2 blocks and 2 dropped rows
  JobContext context;
  std::vector<std::string> warnings;
  const ProjectionStack out = preprocessTiltSeries(in, params, context, &warnings);
  ASSERT_EQ(out.cols(), 3);
  ASSERT_EQ(out.rows(), 2);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("dropped the last 1 columns and 2 rows"), std::string::npos)
      << warnings[0];
  for (std::int64_t k = 0; k < in.viewCount(); ++k) {
    EXPECT_LT((out.geometry().view(k).v - 3.0 * in.geometry().view(k).v).norm(), 1e-12);
    for (std::int64_t r = 0; r < 2; ++r)
      for (std::int64_t c = 0; c < 3; ++c) {
        double sum = 0;
        Eigen::Vector3d centre = Eigen::Vector3d::Zero();
        for (std::int64_t j = 0; j < 3; ++j)
          for (std::int64_t i = 0; i < 3; ++i) {
            const std::int64_t col = 1 + 3 * c + i, row = 3 * r + j;
            sum += in.at(k, row, col);
            centre += in.geometry().pixelPosition(k, double(col), double(row)) / 9.0;
          }
        EXPECT_NEAR(out.at(k, r, c), sum / 9.0, 1e-4);
        expectSamePoint(out.geometry().pixelPosition(k, double(c), double(r)), centre);
      }
  }
}

TEST(TiltSeriesPreprocess, CropAndBinningWorkOnConeBeamGeometryToo) {
  CircularConeParams p;
  p.sourceToIsocentreMm = 400;
  p.sourceToDetectorMm = 900;
  p.detector.cols = 9;
  p.detector.rows = 7;
  p.detector.offsetUMm = 3;
  p.detector.inPlaneRotationRad = 0.1;
  p.anglesRad = fullScanAnglesRad(4);
  const ProjectionStack in = randomStack(circularConeBeam(p), test::randomSeed());
  TiltSeriesPreprocessing params;
  params.firstRow = 1;
  params.binning = 2;
  JobContext context;
  const ProjectionStack out = preprocessTiltSeries(in, params, context);
  ASSERT_EQ(out.cols(), 4);
  ASSERT_EQ(out.rows(), 3);
  for (std::int64_t k = 0; k < 4; ++k) {
    EXPECT_EQ(out.geometry().view(k).source, in.geometry().view(k).source);
    expectSamePoint(out.geometry().pixelPosition(k, 0, 0),
                    in.geometry().pixelPosition(k, 0.5, 1.5));
    expectSamePoint(out.geometry().pixelPosition(k, 3, 2),
                    in.geometry().pixelPosition(k, 6.5, 5.5));
  }
}

TEST(TiltSeriesPreprocess, LogTransformWithAGivenI0IsMinusLogOfTheTransmission) {
  ProjectionStack in = randomStack(skewedSeries(4, 3), 1, 1.0f, 1000.0f);
  TiltSeriesPreprocessing params;
  params.logTransform = true;
  params.i0 = 1000.0;
  JobContext context;
  std::vector<std::string> warnings;
  const ProjectionStack out = preprocessTiltSeries(in, params, context, &warnings);
  EXPECT_TRUE(warnings.empty());
  for (std::size_t i = 0; i < in.pixels().size(); ++i)
    EXPECT_NEAR(out.pixels()[i], -std::log(in.pixels()[i] / 1000.0), 1e-5);
}

TEST(TiltSeriesPreprocess, EstimatesI0PerViewAsAHighPercentile) {
  ProjectionStack in(skewedSeries(10, 10));
  // View k holds 1..100 times (k + 1): the 99th percentile of 100 values is the 99th value.
  for (std::int64_t k = 0; k < 3; ++k)
    for (std::int64_t i = 0; i < 100; ++i)
      in.viewPixels(k)[static_cast<std::size_t>(i)] = float((i + 1) * (k + 1));
  TiltSeriesPreprocessing params;
  params.logTransform = true;
  params.i0Percentile = 99.0;
  JobContext context;
  const ProjectionStack out = preprocessTiltSeries(in, params, context);
  for (std::int64_t k = 0; k < 3; ++k) {
    EXPECT_NEAR(out.at(k, 9, 8), 0.0, 1e-6);  // value 99 (k + 1) = I0
    EXPECT_NEAR(out.at(k, 0, 0), std::log(99.0), 1e-5);
    EXPECT_LT(out.at(k, 9, 9), 0.0f);  // above I0
  }
}

TEST(TiltSeriesPreprocess, PixelsWithoutALogarithmAreCountedSetToATinyValueAndReported) {
  ProjectionStack in = randomStack(skewedSeries(4, 3), 2, 10.0f, 20.0f);
  in.at(0, 0, 0) = 0.0f;
  in.at(0, 1, 1) = -5.0f;
  in.at(2, 2, 3) = NAN;
  TiltSeriesPreprocessing params;
  params.logTransform = true;
  params.i0 = 20.0;
  JobContext context;
  std::vector<std::string> warnings;
  const ProjectionStack out = preprocessTiltSeries(in, params, context, &warnings);
  EXPECT_NEAR(out.at(0, 0, 0), -std::log(1e-6), 1e-4);
  EXPECT_NEAR(out.at(2, 2, 3), -std::log(1e-6), 1e-4);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("3 pixels in 2 views"), std::string::npos) << warnings[0];
  // A view without any positive pixel leaves nothing to estimate I0 from.
  for (float& x : in.viewPixels(1)) x = 0.0f;
  params.i0 = 0.0;
  EXPECT_THROW(preprocessTiltSeries(in, params, context), ParameterError);
}

TEST(TiltSeriesPreprocess, NormalisesEachViewByItsMeanOrToZeroMeanUnitVariance) {
  const ProjectionStack in = randomStack(skewedSeries(6, 5), test::randomSeed(), -3.0f, 9.0f);
  JobContext context;
  for (ViewNormalisation mode :
       {ViewNormalisation::DivideByMean, ViewNormalisation::ZeroMeanUnitVariance}) {
    TiltSeriesPreprocessing params;
    params.normalisation = mode;
    const ProjectionStack out = preprocessTiltSeries(in, params, context);
    for (std::int64_t k = 0; k < 3; ++k) {
      double sum = 0, squares = 0;
      for (float x : out.viewPixels(k)) {
        sum += x;
        squares += double(x) * x;
      }
      const double mean = sum / 30, variance = squares / 30 - mean * mean;
      if (mode == ViewNormalisation::DivideByMean) {
        EXPECT_NEAR(mean, 1.0, 1e-5) << toString(mode);
      } else {
        EXPECT_NEAR(mean, 0.0, 1e-5) << toString(mode);
        EXPECT_NEAR(variance, 1.0, 1e-4) << toString(mode);
      }
    }
  }
  ProjectionStack flat(skewedSeries(2, 2));
  TiltSeriesPreprocessing params;
  params.normalisation = ViewNormalisation::DivideByMean;
  std::vector<std::string> warnings;
  const ProjectionStack out = preprocessTiltSeries(flat, params, context, &warnings);
  EXPECT_EQ(out.at(0, 0, 0), 0.0f);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("3 views"), std::string::npos) << warnings[0];
}

TEST(TiltSeriesPreprocess, RefusesBadParametersNamingThem) {
  const ProjectionStack in = randomStack(skewedSeries(6, 5), 3);
  JobContext context;
  auto refused = [&](TiltSeriesPreprocessing params, const std::string& name) {
    try {
      preprocessTiltSeries(in, params, context);
      ADD_FAILURE() << name << " accepted";
    } catch (const ParameterError& e) {
      EXPECT_NE(std::string(e.what()).find(name), std::string::npos) << e.what();
    }
  };
  TiltSeriesPreprocessing p;
  p.binning = 0;
  refused(p, "binning");
  p.binning = 7;
  refused(p, "binning");
  p = {};
  p.firstCol = 6;
  refused(p, "crop.cols");
  p = {};
  p.firstRow = 2;
  p.rows = 4;
  refused(p, "crop.rows");
  p = {};
  p.cols = -1;
  refused(p, "crop.cols");
  p = {};
  p.logTransform = true;
  p.i0 = -1;
  refused(p, "i0");
  p.i0 = 0;
  p.i0Percentile = 0;
  refused(p, "i0Percentile");
}

TEST(TiltSeriesPreprocess, StopsWhenCancelled) {
  const ProjectionStack in = randomStack(skewedSeries(6, 5), 4);
  CancelToken token;
  token.request();
  JobContext context(token);
  EXPECT_THROW(preprocessTiltSeries(in, {}, context), Cancelled);
}

TEST(TiltSeriesPreprocess, GeometryAloneMatchesTheProcessedStack) {
  const ProjectionStack in = randomStack(skewedSeries(9, 9), 5);
  TiltSeriesPreprocessing params;
  params.firstCol = 1;
  params.binning = 2;
  JobContext context;
  EXPECT_EQ(preprocessedGeometry(in.geometry(), params),
            preprocessTiltSeries(in, params, context).geometry());
}

}  // namespace
}  // namespace tomowb::preprocess
