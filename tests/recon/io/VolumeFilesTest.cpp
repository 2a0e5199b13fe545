#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "recon/core/Error.h"
#include "recon/geometry/ScanBuilders.h"
#include "recon/io/RabbitCtReader.h"
#include "recon/io/VolumeFiles.h"
#include "support/TestSupport.h"
#include "tests/recon/io/IoTestSupport.h"

namespace tomowb::io {
namespace {

TEST(VolumeFiles, EveryWritableVolumeFormatRoundTripsByExtension) {
  test::TempDir dir;
  const Volume v = test::randomVolume({5, 4, 3}, test::randomSeed());
  std::vector<std::string> exact = {"v.raw", "w.json", "v.mhd", "v.mha"};
  if (isFormatAvailable(DataFormat::Tiff)) {
    exact.push_back("v.tif");
    exact.push_back("V.TIFF");
    exact.push_back("series/");
  }
  for (const std::string& name : exact) {
    writeVolume(dir / name, v);
    test::expectSameVolume(readVolume(dir / name), v);
  }
  writeVolume(dir / "v.npy", v);
  const Volume npy = readVolume(dir / "v.npy");
  EXPECT_TRUE(std::equal(npy.voxels().begin(), npy.voxels().end(), v.voxels().begin()));
}

TEST(VolumeFiles, FormatIsChosenByExtensionCaseInsensitively) {
  EXPECT_EQ(dataFormatForPath("a/b.RAW"), DataFormat::RawJson);
  EXPECT_EQ(dataFormatForPath("b.Mha"), DataFormat::MetaImage);
  EXPECT_EQ(dataFormatForPath("b.tiff"), DataFormat::Tiff);
  EXPECT_EQ(dataFormatForPath("slices/"), DataFormat::TiffSeries);
  EXPECT_EQ(dataFormatForPath("b.npy"), DataFormat::Npy);
  EXPECT_EQ(dataFormatForPath("b.rct"), DataFormat::RabbitCt);
  try {
    dataFormatForPath("volume.vtk");
    FAIL();
  } catch (const ParameterError& e) {
    EXPECT_NE(std::string(e.what()).find(".mhd/.mha"), std::string::npos) << e.what();
  }
}

TEST(VolumeFiles, ProjectionsGoThroughRawJsonAndRabbitCtOnly) {
  test::TempDir dir;
  CircularConeParams p;
  p.sourceToIsocentreMm = 500;
  p.sourceToDetectorMm = 800;
  p.detector.cols = 4;
  p.detector.rows = 2;
  p.anglesRad = fullScanAnglesRad(3);
  ProjectionStack stack(circularConeBeam(p));
  stack.at(2, 1, 3) = 5.0f;
  writeProjections(dir / "p.json", stack);
  EXPECT_EQ(readProjections(dir / "p.raw").at(2, 1, 3), 5.0f);
  EXPECT_THROW(writeProjections(dir / "p.mha", stack), ParameterError);
  EXPECT_THROW(readProjections(dir / "p.npy"), ParameterError);
  EXPECT_THROW(writeVolume(dir / "v.rct", test::randomVolume({1, 1, 1}, 1)), ParameterError);

  // A RabbitCT file: one 2x1 view with the isocentre matrix of a 500 mm source distance.
  std::string bytes;
  for (std::uint32_t v : {2u, 1u, 1u}) test::appendValue(bytes, v);
  test::appendValue(bytes, 1000.0f);
  test::appendValue(bytes, 0.0f);
  const ProjectionMatrix m = stack.geometry().projectionMatrix(0);
  for (int k = 0; k < 12; ++k) test::appendValue(bytes, m.data()[k]);
  test::appendValue(bytes, 1.5f);
  test::appendValue(bytes, 2.5f);
  test::writeBytes(dir / "r.rct", bytes);
  const ProjectionStack r = readProjections(dir / "r.rct");
  EXPECT_EQ(r.at(0, 0, 1), 2.5f);
  const FileSummary s = describeFile(dir / "r.rct");
  EXPECT_EQ(s.kind, FileKind::Projections);
  EXPECT_EQ(s.valueRange, std::make_pair(1.5f, 2.5f));
}

TEST(VolumeFiles, DescribeFileReportsShapeTypeVoxelSizeAndRange) {
  test::TempDir dir;
  Volume v(VolumeShape{4, 3, 2}, Eigen::Vector3d(0.5, 0.5, 2), Eigen::Vector3d(1, 2, 3));
  v.at(1, 1, 1) = 7.0f;
  v.at(0, 0, 0) = -2.0f;
  for (const std::string name : {"v.raw", "v.mha", "v.npy"}) {
    writeVolume(dir / name, v);
    const FileSummary s = describeFile(dir / name);
    EXPECT_EQ(s.kind, FileKind::Volume);
    EXPECT_EQ(s.sizeX, 4);
    EXPECT_EQ(s.sizeY, 3);
    EXPECT_EQ(s.sizeZ, 2);
    EXPECT_EQ(s.sampleType, "float32");
    EXPECT_EQ(s.valueRange, std::make_pair(-2.0f, 7.0f)) << name;
    EXPECT_NE(s.toText().find("4 x 3 x 2 voxels"), std::string::npos) << s.toText();
  }
  const FileSummary mha = describeFile(dir / "v.mha");
  EXPECT_EQ(mha.voxelSizeMm, Eigen::Vector3d(0.5, 0.5, 2));
  EXPECT_EQ(mha.toJson()["shape"]["nx"], 4);
  if (isFormatAvailable(DataFormat::Tiff)) {
    writeVolume(dir / "u.tif", v, {{TiffSampleType::UInt16, 0.5, -10.0}});
    const FileSummary t = describeFile(dir / "u.tif");
    EXPECT_EQ(t.sampleType, "uint16");
    EXPECT_EQ(t.valueRange, std::make_pair(-2.0f, 7.0f));
    EXPECT_NE(t.toText().find("value mapping"), std::string::npos) << t.toText();
  }
}

// tests/data/io/hostile/ holds small hostile files (README.md there says where each came from,
// fuzz crashers included); every one must be refused with a FormatError naming a file there.
TEST(VolumeFiles, EveryCommittedHostileInputIsRefusedWithAFormatError) {
  const std::filesystem::path folder =
      std::filesystem::path(TOMOWB_TEST_DATA_DIR) / "io" / "hostile";
  int checked = 0;
  for (const auto& entry : std::filesystem::directory_iterator(folder)) {
    const std::filesystem::path& path = entry.path();
    const std::string ext = path.extension().string();
    if (ext == ".raw" || ext == ".md") continue;  // data files of .mhd headers, the README
    if (ext == ".tif" && !isFormatAvailable(DataFormat::Tiff)) continue;
    const std::string message = test::formatErrorOf([&] {
      if (ext == ".rct")
        readProjections(path);
      else
        readVolume(path);
    });
    EXPECT_NE(message.find(folder.string()), std::string::npos) << path << ": " << message;
    EXPECT_EQ(message.rfind("not a FormatError", 0), std::string::npos) << path << ": " << message;
    ++checked;
  }
  EXPECT_GE(checked, isFormatAvailable(DataFormat::Tiff) ? 15 : 11);
}

TEST(VolumeFiles, ReadingAMissingFileIsAnIoErrorNamingIt) {
  test::TempDir dir;
  for (const std::string name : {"m.raw", "m.mhd", "m.npy", "m.rct"}) {
    try {
      describeFile(dir / name);
      FAIL() << name;
    } catch (const IoError& e) {
      EXPECT_NE(std::string(e.what()).find("m."), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace tomowb::io
