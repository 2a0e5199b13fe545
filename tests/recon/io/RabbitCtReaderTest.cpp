#include <gtest/gtest.h>

#include <Eigen/Geometry>
#include <random>

#include "recon/core/Error.h"
#include "recon/geometry/ScanBuilders.h"
#include "recon/io/RabbitCtReader.h"
#include "support/TestSupport.h"
#include "tests/recon/io/IoTestSupport.h"

namespace tomowb::io {
namespace {

Geometry smallCone(std::int64_t views, std::int64_t cols, std::int64_t rows) {
  CircularConeParams p;
  p.sourceToIsocentreMm = 780;
  p.sourceToDetectorMm = 1200;
  p.detector.cols = cols;
  p.detector.rows = rows;
  p.detector.pitchUMm = p.detector.pitchVMm = 0.8;
  p.anglesRad = fullScanAnglesRad(views, 0.3);
  return circularConeBeam(p);
}

Eigen::Vector2d projectWith(const ProjectionMatrix& p, const Eigen::Vector3d& x) {
  const Eigen::Vector3d h = p * x.homogeneous();
  return h.head<2>() / h.z();
}

TEST(RabbitCtReader, ReadsImagesMatricesAndAGeometryThatProjectsLikeTheMatrices) {
  test::TempDir dir;
  const Geometry g = smallCone(5, 7, 4);
  test::writeBytes(dir / "scan.rct", test::rabbitFile(g));
  const RabbitCtProjections r = readRabbitCt(dir / "scan.rct");
  EXPECT_EQ(r.viewsInFile, 5);
  EXPECT_EQ(r.huScale[0], 1000.0f);
  EXPECT_EQ(r.huScale[1], -1000.0f);
  ASSERT_EQ(r.projections.viewCount(), 5);
  EXPECT_EQ(r.projections.cols(), 7);
  EXPECT_EQ(r.projections.rows(), 4);
  EXPECT_EQ(r.projections.at(3, 2, 6), 3026.0f);
  std::mt19937 random(static_cast<unsigned>(test::randomSeed()));
  std::uniform_real_distribution<double> coordinate(-50, 50);
  for (std::int64_t v = 0; v < 5; ++v) {
    EXPECT_EQ(r.matrices[static_cast<std::size_t>(v)], g.projectionMatrix(v));
    const ProjectionMatrix fromGeometry = r.projections.geometry().projectionMatrix(v);
    for (int i = 0; i < 5; ++i) {
      const Eigen::Vector3d x(coordinate(random), coordinate(random), coordinate(random));
      EXPECT_LT((projectWith(fromGeometry, x) - projectWith(g.projectionMatrix(v), x)).norm(),
                1e-6);
    }
  }
}

TEST(RabbitCtReader, MaxViewsReadsOnlyTheFirstViews) {
  test::TempDir dir;
  test::writeBytes(dir / "scan.rct", test::rabbitFile(smallCone(6, 3, 2)));
  const RabbitCtProjections r = readRabbitCt(dir / "scan.rct", {.maxViews = 2});
  EXPECT_EQ(r.viewsInFile, 6);
  EXPECT_EQ(r.projections.viewCount(), 2);
  EXPECT_EQ(r.matrices.size(), 2u);
  EXPECT_EQ(r.projections.at(1, 1, 2), 1012.0f);
}

TEST(RabbitCtReader, HounsfieldMappingFollowsRabbitCt) {
  const std::array<float, 2> scale = {1000.0f, 24.0f};
  EXPECT_EQ(rabbitCtHounsfield(0.0f, scale), 0.0f);
  EXPECT_EQ(rabbitCtHounsfield(-0.5f, scale), 0.0f);
  EXPECT_EQ(rabbitCtHounsfield(0.0104f, scale), 34.0f);  // round(10.4 + 24)
  EXPECT_EQ(rabbitCtHounsfield(0.0106f, scale), 35.0f);  // round(10.6 + 24)
  EXPECT_EQ(rabbitCtHounsfield(100.0f, scale), 4095.0f);
  RabbitCtProjections r;
  r.huScale = scale;
  EXPECT_EQ(r.toHounsfield(0.0104f), 34.0f);
}

TEST(RabbitCtReader, IgnoresTrailingBytesAndReportsThem) {
  test::TempDir dir;
  test::writeBytes(dir / "scan.rct", test::rabbitFile(smallCone(2, 3, 2)) + std::string(10, 'r'));
  EXPECT_EQ(readRabbitCtHeader(dir / "scan.rct").trailingBytes, 10u);
  EXPECT_EQ(readRabbitCt(dir / "scan.rct").projections.viewCount(), 2);
}

TEST(RabbitCtReader, RejectsTruncatedFilesAtSeveralBoundariesNamingThem) {
  test::TempDir dir;
  const std::string bytes = test::rabbitFile(smallCone(3, 4, 3));
  const std::size_t view = 96 + 4 * 12;
  for (std::size_t cut :
       test::cutPoints(bytes.size(), {20 + 50, 20 + 96, 20 + view, 20 + view + 95})) {
    test::writeBytes(dir / "scan.rct", bytes.substr(0, cut));
    TOMOWB_EXPECT_FORMAT_ERROR(readRabbitCt(dir / "scan.rct"), dir / "scan.rct", "");
  }
}

TEST(RabbitCtReader, RejectsZeroAndHugeSizesAndPayloadsBeyondTheFileBeforeAllocating) {
  test::TempDir dir;
  const std::string body(200, '\0');
  test::writeBytes(dir / "z.rct", test::rabbitHeader(0, 2, 1) + body);
  TOMOWB_EXPECT_FORMAT_ERROR(readRabbitCt(dir / "z.rct"), dir / "z.rct", "width");
  test::writeBytes(dir / "z.rct", test::rabbitHeader(2, 2, 0x80000000u) + body);
  TOMOWB_EXPECT_FORMAT_ERROR(readRabbitCt(dir / "z.rct"), dir / "z.rct", "numImages");
  test::writeBytes(dir / "z.rct", test::rabbitHeader(1048576, 1048576, 1048576) + body);
  TOMOWB_EXPECT_FORMAT_ERROR(readRabbitCt(dir / "z.rct"), dir / "z.rct", "truncated");
  test::writeBytes(dir / "z.rct", test::rabbitHeader(1248, 960, 496) + body);
  TOMOWB_EXPECT_FORMAT_ERROR(readRabbitCt(dir / "z.rct"), dir / "z.rct", "truncated");
}

TEST(RabbitCtReader, RejectsNonFiniteHuScaleAndSingularMatrices) {
  test::TempDir dir;
  test::writeBytes(dir / "h.rct",
                   test::rabbitHeader(1, 1, 1, std::numeric_limits<float>::quiet_NaN()) +
                       std::string(100, '\0'));
  TOMOWB_EXPECT_FORMAT_ERROR(readRabbitCt(dir / "h.rct"), dir / "h.rct", "HUScale");
  test::writeBytes(dir / "m.rct", test::rabbitHeader(1, 1, 1) + std::string(100, '\0'));
  TOMOWB_EXPECT_FORMAT_ERROR(readRabbitCt(dir / "m.rct"), dir / "m.rct", "matrix of view 0");
}

}  // namespace
}  // namespace tomowb::io
