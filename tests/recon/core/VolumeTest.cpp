#include <gtest/gtest.h>

#include <limits>

#include "recon/core/CheckedSize.h"
#include "recon/core/Error.h"
#include "recon/core/MemoryBudget.h"
#include "recon/core/Volume.h"
#include "recon/data/ProjectionStack.h"
#include "recon/geometry/ScanBuilders.h"

namespace tomowb {
namespace {

TEST(Volume, IndexesXFastestThenYThenZ) {
  Volume v({4, 3, 2}, {1, 1, 1}, {0, 0, 0});
  EXPECT_EQ(v.index(1, 2, 1), (1 * 3 + 2) * 4 + 1);
  v.at(3, 2, 1) = 7.0f;
  EXPECT_EQ(v.data()[v.voxelCount() - 1], 7.0f);
  EXPECT_EQ(v.slice(1).size(), 12u);
}

TEST(Volume, CentredVolumeHasItsMiddleAtTheOrigin) {
  const Volume v = Volume::centred({4, 5, 6}, {0.5, 1.0, 2.0});
  const Eigen::Vector3d mid = v.worldPosition(1.5, 2.0, 2.5);
  EXPECT_TRUE(mid.isZero(1e-12));
  EXPECT_DOUBLE_EQ(v.originMm().x(), -0.75);
}

TEST(Volume, RejectsEmptyAxesAndBadSpacingNamingThem) {
  try {
    Volume({4, 0, 2}, {1, 1, 1}, {0, 0, 0});
    FAIL();
  } catch (const ParameterError& e) {
    EXPECT_NE(std::string(e.what()).find("volume.ny"), std::string::npos) << e.what();
  }
  EXPECT_THROW(Volume({2, 2, 2}, {1, 0, 1}, {0, 0, 0}), ParameterError);
  EXPECT_THROW(Volume({2, 2, 2}, {1, 1, 1}, {0, std::nan(""), 0}), ParameterError);
}

TEST(Volume, RefusesSizesThatOverflowOrCannotFitWithAClearMessage) {
  const std::int64_t huge = std::int64_t{1} << 40;
  EXPECT_THROW(Volume({huge, huge, huge}, {1, 1, 1}, {0, 0, 0}), ParameterError);
  try {
    Volume({1 << 20, 1 << 20, 64}, {1, 1, 1}, {0, 0, 0});  // 256 TiB
    FAIL();
  } catch (const OutOfMemoryError& e) {
    EXPECT_NE(std::string(e.what()).find("TiB"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("available"), std::string::npos) << e.what();
  }
}

TEST(CheckedSize, DetectsOverflowAndNegativeFactors) {
  EXPECT_EQ(productChecked({2, 3, 4}), 24u);
  EXPECT_FALSE(productChecked({std::int64_t{1} << 32, std::int64_t{1} << 32}));
  EXPECT_FALSE(productChecked({5, -1}));
  EXPECT_FALSE(mulChecked(std::numeric_limits<std::uint64_t>::max(), 2));
  EXPECT_FALSE(addChecked(std::numeric_limits<std::uint64_t>::max(), 1));
  EXPECT_THROW(productOrThrow("x", {std::int64_t{1} << 62, 8}), ParameterError);
}

TEST(MemoryBudget, FormatsBytesForPeople) {
  EXPECT_EQ(formatBytes(512), "512 B");
  EXPECT_EQ(formatBytes(1536), "1.50 KiB");
  EXPECT_EQ(formatBytes(std::uint64_t{3} << 30), "3.00 GiB");
  EXPECT_GT(availableHostMemoryBytes(), 0u);
}

TEST(ProjectionStack, IsShapedByItsGeometry) {
  CircularConeParams p;
  p.sourceToIsocentreMm = 100;
  p.sourceToDetectorMm = 200;
  p.detector.cols = 7;
  p.detector.rows = 5;
  p.anglesRad = fullScanAnglesRad(3);
  ProjectionStack s(circularConeBeam(p));
  EXPECT_EQ(s.pixelCount(), 3 * 5 * 7);
  s.at(2, 4, 6) = 1.0f;
  EXPECT_EQ(s.viewPixels(2).back(), 1.0f);
  EXPECT_EQ(s.index(1, 2, 3), (1 * 5 + 2) * 7 + 3);
  EXPECT_THROW(ProjectionStack(Geometry(BeamKind::Cone, {7, 5}, {})), ParameterError);
}

}  // namespace
}  // namespace tomowb
