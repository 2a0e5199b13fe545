#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "recon/core/Error.h"
#include "recon/io/NpyIo.h"
#include "support/TestSupport.h"
#include "tests/recon/io/IoTestSupport.h"

namespace tomowb::io {
namespace {

using test::dict;
using test::npyFile;

TEST(NpyIo, RoundTripsARandomVolumeAsFloat32COrder) {
  test::TempDir dir;
  const Volume v = test::randomVolume({5, 4, 3}, test::randomSeed());
  writeNpy(dir / "v.npy", v);
  const NpyHeader h = readNpyHeader(dir / "v.npy");
  EXPECT_EQ(h.descr, "<f4");
  EXPECT_EQ(h.shape, (std::vector<std::int64_t>{3, 4, 5}));
  EXPECT_EQ(h.dataOffset % 64, 0u);
  const Volume back = readNpy(dir / "v.npy");
  ASSERT_EQ(back.shape(), v.shape());
  EXPECT_TRUE(std::equal(back.voxels().begin(), back.voxels().end(), v.voxels().begin()));
  // .npy has no voxel size: 1 mm voxels centred on the origin.
  EXPECT_EQ(back.voxelSizeMm(), Eigen::Vector3d::Ones());
  EXPECT_EQ(back.originMm(), Eigen::Vector3d(-2, -1.5, -1));
}

TEST(NpyIo, ReadsEveryDtypeInBothByteOrders) {
  test::TempDir dir;
  struct Case {
    std::string descr, payload;
    float expected;
  };
  const Case cases[] = {{"|u1", "\xfe", 254.0f},
                        {"|i1", "\xfe", -2.0f},
                        {"<u2", std::string("\x01\x02", 2), 513.0f},
                        {">u2", std::string("\x01\x02", 2), 258.0f},
                        {"<i2", std::string("\xfe\xff", 2), -2.0f},
                        {">i4", std::string("\xff\xff\xff\xfe", 4), -2.0f},
                        {"<f4", std::string("\x00\x00\x80\x3f", 4), 1.0f},
                        {">f4", std::string("\x3f\x80\x00\x00", 4), 1.0f},
                        {"<f8", std::string("\x00\x00\x00\x00\x00\x00\xf0\x3f", 8), 1.0f},
                        {">f8", std::string("\x3f\xf0\x00\x00\x00\x00\x00\x00", 8), 1.0f}};
  for (const Case& c : cases) {
    test::writeBytes(dir / "t.npy", npyFile(dict(c.descr, "(1,)"), c.payload));
    EXPECT_EQ(readNpy(dir / "t.npy").at(0, 0, 0), c.expected) << c.descr;
  }
}

TEST(NpyIo, FortranOrderReadsTheSameVolumeAsCOrder) {
  test::TempDir dir;
  // C order (nz=2, ny=3, nx=4): value = 100 z + 10 y + x.
  std::string c, f;
  for (int z = 0; z < 2; ++z)
    for (int y = 0; y < 3; ++y)
      for (int x = 0; x < 4; ++x) test::appendValue(c, static_cast<float>(100 * z + 10 * y + x));
  for (int x = 0; x < 4; ++x)
    for (int y = 0; y < 3; ++y)
      for (int z = 0; z < 2; ++z) test::appendValue(f, static_cast<float>(100 * z + 10 * y + x));
  test::writeBytes(dir / "c.npy", npyFile(dict("<f4", "(2, 3, 4)"), c));
  test::writeBytes(dir / "f.npy", npyFile(dict("<f4", "(2, 3, 4)", true), f));
  const Volume vc = readNpy(dir / "c.npy"), vf = readNpy(dir / "f.npy");
  EXPECT_EQ(vc.at(3, 2, 1), 123.0f);
  EXPECT_TRUE(std::equal(vc.voxels().begin(), vc.voxels().end(), vf.voxels().begin()));
}

TEST(NpyIo, Reads2dAsOneSliceAndLeadingUnitAxes) {
  test::TempDir dir;
  test::writeBytes(dir / "i.npy", npyFile(dict("<u2", "(2, 3)"), std::string(12, '\0')));
  EXPECT_EQ(readNpy(dir / "i.npy").shape(), (VolumeShape{3, 2, 1}));
  test::writeBytes(dir / "j.npy", npyFile(dict("<u2", "(1, 1, 2, 1, 3)"), std::string(12, '\0')));
  EXPECT_EQ(readNpy(dir / "j.npy").shape(), (VolumeShape{3, 1, 2}));
  test::writeBytes(dir / "k.npy", npyFile(dict("<u2", "(2, 1, 1, 3)"), std::string(12, '\0')));
  TOMOWB_EXPECT_FORMAT_ERROR(readNpy(dir / "k.npy"), dir / "k.npy", "last three");
}

TEST(NpyIo, ReadsVersion2And3HeadersAndPython2Longs) {
  test::TempDir dir;
  test::writeBytes(dir / "v2.npy", npyFile(dict("<f4", "(2L, 1L)"), std::string(8, '\0'), 2));
  EXPECT_EQ(readNpy(dir / "v2.npy").shape(), (VolumeShape{1, 2, 1}));
  test::writeBytes(dir / "v3.npy",
                   npyFile("{\"descr\": \"<f4\", \"fortran_order\": False, \"shape\": (1,)}",
                           std::string(4, '\0'), 3));
  EXPECT_EQ(readNpyHeader(dir / "v3.npy").majorVersion, 3);
}

// numpy's float16 ('<f2', '>f2'): exact, subnormals and infinities included, in both byte orders.
TEST(NpyIo, ReadsFloat16InBothByteOrders) {
  test::TempDir dir;
  const std::vector<std::uint16_t> bits = {0x3c00, 0xc000, 0x0001, 0x7c00, 0x7bff, 0x3555};
  const std::vector<float> expected = {1.0f,     -2.0f,    std::ldexp(1.0f, -24),
                                       INFINITY, 65504.0f, 0.333251953125f};
  for (const bool big : {false, true}) {
    std::string payload;
    for (std::uint16_t b : bits) {
      const char lo = static_cast<char>(b & 0xff), hi = static_cast<char>(b >> 8);
      payload += big ? std::string{hi, lo} : std::string{lo, hi};
    }
    test::writeBytes(dir / "h.npy", npyFile(dict(big ? ">f2" : "<f2", "(6,)"), payload));
    const Volume v = readNpy(dir / "h.npy");
    ASSERT_EQ(v.voxelCount(), 6);
    for (std::size_t i = 0; i < 6; ++i) EXPECT_EQ(v.voxels()[i], expected[i]) << i << " " << big;
  }
}

TEST(NpyIo, RejectsHeaderLongerThan64KiBNamingTheFile) {
  test::TempDir dir;
  const std::string big = npyFile(dict("<f4", "(1,)") + std::string(70000, ' '), "", 2);
  test::writeBytes(dir / "h.npy", big);
  TOMOWB_EXPECT_FORMAT_ERROR(readNpy(dir / "h.npy"), dir / "h.npy", "64 KiB");
}

TEST(NpyIo, RejectsObjectStructuredAndUnknownDtypes) {
  test::TempDir dir;
  test::writeBytes(dir / "o.npy", npyFile(dict("|O", "(1,)"), std::string(8, '\0')));
  TOMOWB_EXPECT_FORMAT_ERROR(readNpy(dir / "o.npy"), dir / "o.npy", "pickle");
  test::writeBytes(dir / "s.npy",
                   npyFile("{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (1,), }",
                           std::string(4, '\0')));
  TOMOWB_EXPECT_FORMAT_ERROR(readNpy(dir / "s.npy"), dir / "s.npy", "structured");
  for (const std::string d : {"<c8", "|f2", "f4", "<u8", "|f4", "<f44", "<b1"}) {
    test::writeBytes(dir / "d.npy", npyFile(dict(d, "(1,)"), std::string(4, '\0')));
    TOMOWB_EXPECT_FORMAT_ERROR(readNpy(dir / "d.npy"), dir / "d.npy", "descr");
  }
}

TEST(NpyIo, RejectsMissingRepeatedAndUnexpectedKeys) {
  test::TempDir dir;
  for (const std::string d :
       {"{'descr': '<f4', 'shape': (1,), }",
        "{'descr': '<f4', 'fortran_order': False, 'shape': (1,), 'extra': True}",
        "{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (1,)}",
        "{'descr': '<f4', 'fortran_order': 0, 'shape': (1,)}",
        "{'descr': '<f4', 'fortran_order': False, 'shape': [1]}",
        "{'descr': '<f4', 'fortran_order': False, 'shape': (1,)} junk",
        "{'descr': '<f4', 'fortran_order': False, 'shape': (1,)", "", "{"}) {
    test::writeBytes(dir / "k.npy", npyFile(d, std::string(4, '\0')));
    TOMOWB_EXPECT_FORMAT_ERROR(readNpy(dir / "k.npy"), dir / "k.npy", "");
  }
}

TEST(NpyIo, RejectsZeroHugeAndTooManyDimensions) {
  test::TempDir dir;
  for (const std::string shape :
       {"(0, 2)", "(2147483648,)", "(1048577,)", "()", "(1, 1, 1, 1, 1, 1, 1, 1, 1)", "(-1,)",
        "(99999999999999999999999,)"}) {
    test::writeBytes(dir / "s.npy", npyFile(dict("<f4", shape), std::string(4, '\0')));
    TOMOWB_EXPECT_FORMAT_ERROR(readNpy(dir / "s.npy"), dir / "s.npy", "shape");
  }
}

TEST(NpyIo, RejectsASizeProductThatOverflows64Bits) {
  test::TempDir dir;
  test::writeBytes(dir / "o.npy", npyFile(dict("<f8", "(1048576, 1048576, 1048576, 1048576)"), ""));
  TOMOWB_EXPECT_FORMAT_ERROR(readNpy(dir / "o.npy"), dir / "o.npy", "overflows");
}

TEST(NpyIo, RejectsAPayloadLargerThanTheFileBeforeAllocating) {
  test::TempDir dir;
  test::writeBytes(dir / "p.npy", npyFile(dict("<f4", "(1048576, 1048576, 1024)"), "abcd"));
  TOMOWB_EXPECT_FORMAT_ERROR(readNpy(dir / "p.npy"), dir / "p.npy", "truncated");
  test::writeBytes(dir / "p.npy", npyFile(dict("<f4", "(1,)"), "abcdx"));
  TOMOWB_EXPECT_FORMAT_ERROR(readNpy(dir / "p.npy"), dir / "p.npy", "more than");
}

TEST(NpyIo, RejectsTruncatedFilesAtSeveralBoundaries) {
  test::TempDir dir;
  writeNpy(dir / "v.npy", test::randomVolume({3, 3, 3}, test::randomSeed()));
  const std::string bytes = test::readBytes(dir / "v.npy");
  for (std::size_t cut : test::cutPoints(bytes.size(), {6, 9, 11, 127, 128, 129})) {
    test::writeBytes(dir / "v.npy", bytes.substr(0, cut));
    TOMOWB_EXPECT_FORMAT_ERROR(readNpy(dir / "v.npy"), dir / "v.npy", "");
  }
}

TEST(NpyIo, RejectsOtherFilesAndFormatVersions) {
  test::TempDir dir;
  test::writeBytes(dir / "x.npy", "PK\x03\x04 this is a zip (.npz)");
  TOMOWB_EXPECT_FORMAT_ERROR(readNpy(dir / "x.npy"), dir / "x.npy", "magic");
  std::string v4 = npyFile(dict("<f4", "(1,)"), std::string(4, '\0'));
  v4[6] = 4;
  test::writeBytes(dir / "x.npy", v4);
  TOMOWB_EXPECT_FORMAT_ERROR(readNpy(dir / "x.npy"), dir / "x.npy", "version");
}

}  // namespace
}  // namespace tomowb::io
