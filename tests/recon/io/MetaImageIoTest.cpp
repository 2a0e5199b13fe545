#include <gtest/gtest.h>

#include "recon/core/Error.h"
#include "recon/io/MetaImageIo.h"
#include "support/TestSupport.h"
#include "tests/recon/io/IoTestSupport.h"

namespace tomowb::io {
namespace {

std::string header(const std::string& extra, const std::string& dataFile = "LOCAL") {
  return "ObjectType = Image\nNDims = 3\nDimSize = 2 2 1\nElementSpacing = 0.5 0.25 2\n"
         "Offset = 1 2 3\n" +
         extra + "ElementDataFile = " + dataFile + "\n";
}

TEST(MetaImageIo, MhdAndRawRoundTripExactly) {
  test::TempDir dir;
  const Volume v = test::randomVolume({6, 5, 4}, test::randomSeed());
  writeMetaImage(dir / "v.mhd", v);
  EXPECT_TRUE(std::filesystem::exists(dir / "v.raw"));
  test::expectSameVolume(readMetaImage(dir / "v.mhd"), v);
}

TEST(MetaImageIo, MhaWithLocalDataRoundTripsExactly) {
  test::TempDir dir;
  const Volume v = test::randomVolume({3, 4, 5}, test::randomSeed());
  writeMetaImage(dir / "v.mha", v);
  EXPECT_FALSE(std::filesystem::exists(dir / "v.raw"));
  test::expectSameVolume(readMetaImage(dir / "v.mha"), v);
  const MetaImageHeader h = readMetaImageHeader(dir / "v.mha");
  EXPECT_EQ(h.dataPath, dir / "v.mha");
  EXPECT_EQ(h.payloadBytes, 3u * 4 * 5 * 4);
}

TEST(MetaImageIo, ReadsBigEndianUshortWithHeaderSizeAndSpacing) {
  test::TempDir dir;
  test::writeBytes(
      dir / "v.mhd",
      header("ElementType = MET_USHORT\nBinaryDataByteOrderMSB = True\nHeaderSize = 3\n", "v.dat"));
  test::writeBytes(dir / "v.dat", std::string("abc\x00\x01\x01\x00\x00\x02\xff\xff", 11));
  const Volume v = readMetaImage(dir / "v.mhd");
  EXPECT_EQ(v.shape(), (VolumeShape{2, 2, 1}));
  EXPECT_EQ(v.voxelSizeMm(), Eigen::Vector3d(0.5, 0.25, 2));
  EXPECT_EQ(v.originMm(), Eigen::Vector3d(1, 2, 3));
  EXPECT_EQ(v.at(0, 0, 0), 1.0f);
  EXPECT_EQ(v.at(1, 0, 0), 256.0f);
  EXPECT_EQ(v.at(0, 1, 0), 2.0f);
  EXPECT_EQ(v.at(1, 1, 0), 65535.0f);
}

TEST(MetaImageIo, HeaderSizeMinusOneTakesTheSamplesFromTheEnd) {
  test::TempDir dir;
  test::writeBytes(dir / "v.mhd", header("ElementType = MET_UCHAR\nHeaderSize = -1\n", "v.dat"));
  test::writeBytes(dir / "v.dat", std::string("junkjunk\x01\x02\x03\x04", 12));
  const Volume v = readMetaImage(dir / "v.mhd");
  EXPECT_EQ(v.at(1, 1, 0), 4.0f);
}

TEST(MetaImageIo, ReadsA2dImageAsOneSliceAndShortAliases) {
  test::TempDir dir;
  test::writeBytes(dir / "i.mha",
                   "NDims = 2\nDimSize = 3 1\nElementSize = 2 3\nPosition = 5 6\n"
                   "ElementType = MET_SHORT\nElementDataFile = LOCAL\n" +
                       std::string("\xff\xff\x02\x00\x03\x00", 6));
  const Volume v = readMetaImage(dir / "i.mha");
  EXPECT_EQ(v.shape(), (VolumeShape{3, 1, 1}));
  EXPECT_EQ(v.voxelSizeMm(), Eigen::Vector3d(2, 3, 1));
  EXPECT_EQ(v.at(0, 0, 0), -1.0f);
}

TEST(MetaImageIo, RejectsCompressedDataWithAClearMessage) {
  test::TempDir dir;
  test::writeBytes(dir / "c.mha", header("ElementType = MET_FLOAT\nCompressedData = True\n"));
  TOMOWB_EXPECT_FORMAT_ERROR(readMetaImage(dir / "c.mha"), dir / "c.mha", "compressed");
}

TEST(MetaImageIo, RejectsATransformMatrixThatIsNotTheIdentity) {
  test::TempDir dir;
  test::writeBytes(dir / "t.mha", header("ElementType = MET_FLOAT\n"
                                         "TransformMatrix = 0 1 0 1 0 0 0 0 1\n") +
                                      std::string(16, '\0'));
  TOMOWB_EXPECT_FORMAT_ERROR(readMetaImage(dir / "t.mha"), dir / "t.mha", "TransformMatrix");
  test::writeBytes(dir / "t.mha", header("ElementType = MET_FLOAT\n"
                                         "TransformMatrix = 1 0 0 0 1 0 0 0 1\n") +
                                      std::string(16, '\0'));
  EXPECT_NO_THROW(readMetaImage(dir / "t.mha"));
}

TEST(MetaImageIo, RejectsTruncatedFilesAtSeveralBoundaries) {
  test::TempDir dir;
  writeMetaImage(dir / "v.mha", test::randomVolume({4, 3, 2}, test::randomSeed()));
  const std::string bytes = test::readBytes(dir / "v.mha");
  const std::size_t headerEnd = bytes.find("LOCAL\n") + 6;
  for (std::size_t cut : test::cutPoints(bytes.size(), {headerEnd - 1, headerEnd, headerEnd + 1})) {
    test::writeBytes(dir / "v.mha", bytes.substr(0, cut));
    TOMOWB_EXPECT_FORMAT_ERROR(readMetaImage(dir / "v.mha"), dir / "v.mha", "");
  }
}

TEST(MetaImageIo, RejectsZeroNegativeAndHugeDimensions) {
  test::TempDir dir;
  for (const std::string sizes :
       {"0 2 2", "-1 2 2", "2 2147483648 2", "2 2 1048577", "2 2", "2 2 99999999999999999999"}) {
    test::writeBytes(dir / "d.mha", "NDims = 3\nDimSize = " + sizes +
                                        "\nElementType = MET_FLOAT\nElementDataFile = LOCAL\n");
    TOMOWB_EXPECT_FORMAT_ERROR(readMetaImage(dir / "d.mha"), dir / "d.mha", "DimSize");
  }
}

TEST(MetaImageIo, RejectsADeclaredPayloadLargerThanTheDataFileBeforeAllocating) {
  test::TempDir dir;
  test::writeBytes(dir / "d.mhd",
                   "NDims = 3\nDimSize = 1048576 1048576 1048576\n"
                   "ElementType = MET_DOUBLE\nElementDataFile = d.raw\n");
  test::writeBytes(dir / "d.raw", std::string(100, '\0'));
  TOMOWB_EXPECT_FORMAT_ERROR(readMetaImage(dir / "d.mhd"), dir / "d.raw", "truncated");
}

TEST(MetaImageIo, RejectsADataFileLongerThanDeclared) {
  test::TempDir dir;
  test::writeBytes(dir / "d.mhd", header("ElementType = MET_UCHAR\n", "d.raw"));
  test::writeBytes(dir / "d.raw", std::string(5, '\0'));
  TOMOWB_EXPECT_FORMAT_ERROR(readMetaImage(dir / "d.mhd"), dir / "d.raw", "more than");
}

TEST(MetaImageIo, RejectsAHeaderSizePointingOutsideTheFile) {
  test::TempDir dir;
  test::writeBytes(dir / "d.mhd",
                   header("ElementType = MET_UCHAR\nHeaderSize = 9223372036854775807\n", "d.raw"));
  test::writeBytes(dir / "d.raw", std::string(4, '\0'));
  TOMOWB_EXPECT_FORMAT_ERROR(readMetaImage(dir / "d.mhd"), dir / "d.raw", "truncated");
  test::writeBytes(dir / "d.mhd", header("ElementType = MET_UCHAR\nHeaderSize = -2\n", "d.raw"));
  TOMOWB_EXPECT_FORMAT_ERROR(readMetaImage(dir / "d.mhd"), dir / "d.mhd", "HeaderSize");
}

TEST(MetaImageIo, RejectsUnknownElementTypeChannelsAndMultiFileData) {
  test::TempDir dir;
  test::writeBytes(dir / "e.mhd", header("ElementType = MET_FLOAT_ARRAY\n", "e.raw"));
  TOMOWB_EXPECT_FORMAT_ERROR(readMetaImage(dir / "e.mhd"), dir / "e.mhd", "ElementType");
  test::writeBytes(dir / "e.mhd", header("ElementType = MET_FLOAT\nElementNumberOfChannels = 3\n"));
  TOMOWB_EXPECT_FORMAT_ERROR(readMetaImage(dir / "e.mhd"), dir / "e.mhd", "channel");
  test::writeBytes(dir / "e.mhd", header("ElementType = MET_FLOAT\n", "slice%03d.raw 0 1 1"));
  TOMOWB_EXPECT_FORMAT_ERROR(readMetaImage(dir / "e.mhd"), dir / "e.mhd", "multi-file");
  test::writeBytes(dir / "e.mhd", header("ElementType = MET_FLOAT\nElementType = MET_FLOAT\n"));
  TOMOWB_EXPECT_FORMAT_ERROR(readMetaImage(dir / "e.mhd"), dir / "e.mhd", "twice");
}

TEST(MetaImageIo, RejectsHeadersLongerThan64KiBOr1000Lines) {
  test::TempDir dir;
  std::string longHeader = "NDims = 3\n";
  for (int i = 0; i < 1001; ++i) longHeader += "Comment" + std::to_string(i) + " = x\n";
  test::writeBytes(dir / "h.mha", longHeader + "ElementDataFile = LOCAL\n");
  TOMOWB_EXPECT_FORMAT_ERROR(readMetaImage(dir / "h.mha"), dir / "h.mha", "1000 lines");
  test::writeBytes(dir / "h.mha", "Comment = " + std::string(70000, 'x') + "\n");
  TOMOWB_EXPECT_FORMAT_ERROR(readMetaImage(dir / "h.mha"), dir / "h.mha", "64 KiB");
}

TEST(MetaImageIo, RejectsAHeaderWithoutElementDataFile) {
  test::TempDir dir;
  test::writeBytes(dir / "n.mhd", "NDims = 3\nDimSize = 1 1 1\nElementType = MET_FLOAT\n");
  TOMOWB_EXPECT_FORMAT_ERROR(readMetaImage(dir / "n.mhd"), dir / "n.mhd", "ElementDataFile");
}

// D8 of the hostile-input review: ElementDataFile may not name a file outside the header's folder.
TEST(MetaImageIo, RejectsADataFileOutsideTheHeadersFolder) {
  test::TempDir dir;
  std::filesystem::create_directory(dir / "in");
  test::writeBytes(dir / "secret.raw", std::string(4, 'x'));
  for (const std::string& name :
       {std::string("/etc/passwd"), (dir / "secret.raw").string(), std::string("../secret.raw"),
        std::string("sub/../../secret.raw")}) {
    test::writeBytes(dir / "in" / "p.mhd", header("ElementType = MET_UCHAR\n", name));
    TOMOWB_EXPECT_FORMAT_ERROR(readMetaImage(dir / "in" / "p.mhd"), dir / "in" / "p.mhd",
                               "ElementDataFile");
  }
  // A plain name that is a symbolic link leading out of the folder.
  std::filesystem::create_symlink("../secret.raw", dir / "in" / "link.raw");
  test::writeBytes(dir / "in" / "p.mhd", header("ElementType = MET_UCHAR\n", "link.raw"));
  TOMOWB_EXPECT_FORMAT_ERROR(readMetaImage(dir / "in" / "p.mhd"), dir / "in" / "link.raw",
                             "symbolic link");
}

}  // namespace
}  // namespace tomowb::io
