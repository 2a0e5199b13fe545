#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <random>

#include "recon/core/Error.h"
#include "recon/geometry/ScanBuilders.h"
#include "recon/io/GeometryJson.h"
#include "recon/io/RawVolumeIo.h"
#include "support/TestSupport.h"
#include "tests/recon/io/IoTestSupport.h"

namespace tomowb::io {
namespace {

using nlohmann::json;

json volumeSidecar(const json& shape, const std::string& dtype = "float32") {
  return json{{"format", "tomowb-volume"}, {"version", 1},          {"shape", shape},
              {"voxelSizeMm", {1, 1, 1}},  {"originMm", {0, 0, 0}}, {"dtype", dtype},
              {"byteOrder", "little"}};
}

Geometry smallCone(std::int64_t views, std::int64_t cols, std::int64_t rows) {
  CircularConeParams p;
  p.sourceToIsocentreMm = 500;
  p.sourceToDetectorMm = 900;
  p.detector.cols = cols;
  p.detector.rows = rows;
  p.anglesRad = fullScanAnglesRad(views);
  return circularConeBeam(p);
}

TEST(RawVolumeIo, VolumeRoundTripsExactlyThroughRawAndJson) {
  test::TempDir dir;
  const Volume v = test::randomVolume({7, 5, 3}, test::randomSeed());
  writeVolumeRaw(dir / "vol.raw", v);
  EXPECT_EQ(std::filesystem::file_size(dir / "vol.raw"), 7u * 5 * 3 * 4);
  test::expectSameVolume(readVolumeRaw(dir / "vol.raw"), v);
  test::expectSameVolume(readVolumeRaw(dir / "vol.json"), v);
  const RawSidecar s = readRawSidecar(dir / "vol.json");
  EXPECT_EQ(s.content, RawContent::Volume);
  EXPECT_EQ(s.dataPath, dir / "vol.raw");
}

TEST(RawVolumeIo, ProjectionsRoundTripWithTheirGeometry) {
  test::TempDir dir;
  ProjectionStack stack(smallCone(4, 6, 3));
  std::mt19937 random(static_cast<unsigned>(test::randomSeed()));
  std::uniform_real_distribution<float> value(-1, 1);
  for (float& p : stack.pixels()) p = value(random);
  writeProjectionsRaw(dir / "scan.json", stack);
  const ProjectionStack back = readProjectionsRaw(dir / "scan.raw");
  EXPECT_EQ(geometryToJson(back.geometry()), geometryToJson(stack.geometry()));
  ASSERT_EQ(back.pixelCount(), stack.pixelCount());
  EXPECT_TRUE(std::equal(back.pixels().begin(), back.pixels().end(), stack.pixels().begin()));
  TOMOWB_EXPECT_FORMAT_ERROR(readVolumeRaw(dir / "scan.raw"), dir / "scan.json", "projections");
}

TEST(RawVolumeIo, ReadsBigEndianUint16Samples) {
  test::TempDir dir;
  json s = volumeSidecar({2, 1, 1}, "uint16");
  s["byteOrder"] = "big";
  test::writeBytes(dir / "v.json", s.dump());
  test::writeBytes(dir / "v.raw", std::string("\x01\x00\x00\x02", 4));
  const Volume v = readVolumeRaw(dir / "v.json");
  EXPECT_EQ(v.at(0, 0, 0), 256.0f);
  EXPECT_EQ(v.at(1, 0, 0), 2.0f);
}

TEST(RawVolumeIo, RejectsATruncatedSampleFileNamingIt) {
  test::TempDir dir;
  writeVolumeRaw(dir / "vol.raw", test::randomVolume({4, 4, 4}, test::randomSeed()));
  const std::string bytes = test::readBytes(dir / "vol.raw");
  for (std::size_t cut : test::cutPoints(bytes.size())) {
    test::writeBytes(dir / "vol.raw", bytes.substr(0, cut));
    TOMOWB_EXPECT_FORMAT_ERROR(readVolumeRaw(dir / "vol.json"), dir / "vol.raw", "bytes");
  }
  test::writeBytes(dir / "vol.raw", bytes + "x");
  TOMOWB_EXPECT_FORMAT_ERROR(readVolumeRaw(dir / "vol.json"), dir / "vol.raw", "declares");
}

TEST(RawVolumeIo, RejectsATruncatedSidecarAtEveryBoundaryNamingIt) {
  test::TempDir dir;
  writeVolumeRaw(dir / "vol.raw", test::randomVolume({2, 2, 2}, test::randomSeed()));
  const std::string text = test::readBytes(dir / "vol.json");
  for (std::size_t cut = 0; cut + 2 < text.size(); ++cut) {
    test::writeBytes(dir / "vol.json", text.substr(0, cut));
    TOMOWB_EXPECT_FORMAT_ERROR(readVolumeRaw(dir / "vol.raw"), dir / "vol.json", "");
  }
}

TEST(RawVolumeIo, RejectsZeroNegativeAndHugeDimensions) {
  test::TempDir dir;
  test::writeBytes(dir / "v.raw", std::string(16, '\0'));
  for (const json& bad : {json{0, 2, 2}, json{-1, 2, 2}, json{2, 2147483648LL, 2},
                          json{2, 2, 1048577}, json{2, 2}, json{2, 2.5, 2}}) {
    test::writeBytes(dir / "v.json", volumeSidecar(bad).dump());
    TOMOWB_EXPECT_FORMAT_ERROR(readVolumeRaw(dir / "v.json"), dir / "v.json", "shape");
  }
}

TEST(RawVolumeIo, RejectsAPayloadLargerThanTheFileBeforeAllocating) {
  test::TempDir dir;
  // 2^60 samples: allocating first would throw OutOfMemoryError or abort, not FormatError.
  test::writeBytes(dir / "v.json", volumeSidecar({1048576, 1048576, 1048576}).dump());
  test::writeBytes(dir / "v.raw", std::string(64, '\0'));
  TOMOWB_EXPECT_FORMAT_ERROR(readVolumeRaw(dir / "v.json"), dir / "v.raw", "declares");
}

TEST(RawVolumeIo, RejectsUnknownDtypeByteOrderFormatAndVersion) {
  test::TempDir dir;
  test::writeBytes(dir / "v.raw", std::string(8, '\0'));
  test::writeBytes(dir / "v.json", volumeSidecar({2, 1, 1}, "complex64").dump());
  TOMOWB_EXPECT_FORMAT_ERROR(readVolumeRaw(dir / "v.json"), dir / "v.json", "dtype");
  json s = volumeSidecar({2, 1, 1});
  s["byteOrder"] = "middle";
  test::writeBytes(dir / "v.json", s.dump());
  TOMOWB_EXPECT_FORMAT_ERROR(readVolumeRaw(dir / "v.json"), dir / "v.json", "byteOrder");
  s = volumeSidecar({2, 1, 1});
  s["format"] = "something-else";
  test::writeBytes(dir / "v.json", s.dump());
  TOMOWB_EXPECT_FORMAT_ERROR(readVolumeRaw(dir / "v.json"), dir / "v.json", "format");
  s = volumeSidecar({2, 1, 1});
  s["version"] = 2;
  test::writeBytes(dir / "v.json", s.dump());
  TOMOWB_EXPECT_FORMAT_ERROR(readVolumeRaw(dir / "v.json"), dir / "v.json", "version");
}

TEST(RawVolumeIo, RejectsSidecarLargerThan1MiBNamingTheFile) {
  test::TempDir dir;
  json s = volumeSidecar({1, 1, 1});
  s["comment"] = std::string(1100000, 'x');
  test::writeBytes(dir / "v.json", s.dump());
  test::writeBytes(dir / "v.raw", std::string(4, '\0'));
  TOMOWB_EXPECT_FORMAT_ERROR(readVolumeRaw(dir / "v.json"), dir / "v.json", "limit");
}

TEST(RawVolumeIo, RejectsADataFileOutsideTheSidecarsFolder) {
  test::TempDir dir;
  json s = volumeSidecar({1, 1, 1});
  s["dataFile"] = "../elsewhere.raw";
  test::writeBytes(dir / "v.json", s.dump());
  TOMOWB_EXPECT_FORMAT_ERROR(readVolumeRaw(dir / "v.json"), dir / "v.json", "dataFile");
}

// D20 of the hostile-input review: a plain dataFile name that is a symbolic link out of the folder.
TEST(RawVolumeIo, RejectsADataFileThatIsASymbolicLinkNamingIt) {
  test::TempDir dir;
  std::filesystem::create_directory(dir / "in");
  test::writeBytes(dir / "elsewhere.raw", std::string(4, '\0'));
  std::filesystem::create_symlink("../elsewhere.raw", dir / "in" / "o.raw");
  json s = volumeSidecar({1, 1, 1});
  s["dataFile"] = "o.raw";
  test::writeBytes(dir / "in" / "v.json", s.dump());
  TOMOWB_EXPECT_FORMAT_ERROR(readVolumeRaw(dir / "in" / "v.json"), dir / "in" / "o.raw",
                             "symbolic link");
  // The default data file (v.raw beside v.json) is held to the same rule.
  s.erase("dataFile");
  test::writeBytes(dir / "in" / "w.json", s.dump());
  std::filesystem::create_symlink("/dev/zero", dir / "in" / "w.raw");
  TOMOWB_EXPECT_FORMAT_ERROR(readVolumeRaw(dir / "in" / "w.json"), dir / "in" / "w.raw",
                             "symbolic link");
}

TEST(RawVolumeIo, RejectsZeroOrNonFiniteVoxelSize) {
  test::TempDir dir;
  test::writeBytes(dir / "v.raw", std::string(4, '\0'));
  json s = volumeSidecar({1, 1, 1});
  s["voxelSizeMm"] = {1, 0, 1};
  test::writeBytes(dir / "v.json", s.dump());
  TOMOWB_EXPECT_FORMAT_ERROR(readVolumeRaw(dir / "v.json"), dir / "v.json", "voxelSizeMm[1]");
}

TEST(RawVolumeIo, RejectsProjectionCountsThatDisagreeWithTheGeometry) {
  test::TempDir dir;
  ProjectionStack stack(smallCone(3, 4, 2));
  writeProjectionsRaw(dir / "p.raw", stack);
  json s = json::parse(test::readBytes(dir / "p.json"));
  s["views"] = 4;
  test::writeBytes(dir / "p.json", s.dump());
  TOMOWB_EXPECT_FORMAT_ERROR(readProjectionsRaw(dir / "p.json"), dir / "p.json", "views");
  s["views"] = 3;
  s["rows"] = 3;
  test::writeBytes(dir / "p.json", s.dump());
  TOMOWB_EXPECT_FORMAT_ERROR(readProjectionsRaw(dir / "p.json"), dir / "p.json", "rows");
}

TEST(RawVolumeIo, WritingIntoAMissingFolderLeavesNoFiles) {
  test::TempDir dir;
  const Volume v = test::randomVolume({2, 2, 2}, 1);
  EXPECT_THROW(writeVolumeRaw(dir / "missing" / "v.raw", v), IoError);
  EXPECT_TRUE(std::filesystem::is_empty(dir.path()));
}

}  // namespace
}  // namespace tomowb::io
