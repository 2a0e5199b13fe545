// MRC reading and writing: round trips of every mode we read (files we cannot write are built byte
// by byte), both byte orders, IMOD's mode-0 sign flag and origin convention, SerialEM tilt angles,
// the IMOD axis order with an asymmetric volume, and hostile headers refused with a FormatError
// naming the file and field before anything is allocated.
#include <gtest/gtest.h>

#include <array>
#include <bit>
#include <cstring>
#include <random>

#include "recon/core/Error.h"
#include "recon/geometry/ScanBuilders.h"
#include "recon/io/MrcIo.h"
#include "recon/io/VolumeFiles.h"
#include "support/TestSupport.h"
#include "tests/recon/io/IoTestSupport.h"

namespace tomowb::io {
namespace {

// A 1024-byte MRC header built field by field, in either byte order.
class HeaderBuilder {
 public:
  explicit HeaderBuilder(bool bigEndian = false) : big_(bigEndian), bytes_(1024, '\0') {}

  HeaderBuilder& i32(std::size_t offset, std::int32_t v) {
    return put(offset, std::bit_cast<std::uint32_t>(v), 4);
  }
  HeaderBuilder& i16(std::size_t offset, std::int16_t v) {
    return put(offset, std::bit_cast<std::uint16_t>(v), 2);
  }
  HeaderBuilder& f32(std::size_t offset, float v) {
    return put(offset, std::bit_cast<std::uint32_t>(v), 4);
  }
  HeaderBuilder& text(std::size_t offset, const std::string& s) {
    std::memcpy(bytes_.data() + offset, s.data(), s.size());
    return *this;
  }
  // nx, ny, nz, mode, mx..mz = n, cell = 2 A per pixel, maps 1 2 3, "MAP ", machst.
  HeaderBuilder& standard(std::int32_t nx, std::int32_t ny, std::int32_t nz, std::int32_t mode) {
    const std::int32_t n[3] = {nx, ny, nz};
    for (int i = 0; i < 3; ++i) {
      i32(4 * i, n[i]);
      i32(28 + 4 * i, n[i]);
      f32(40 + 4 * i, 2.0f * static_cast<float>(n[i]));
      f32(52 + 4 * i, 90.0f);
      i32(64 + 4 * i, i + 1);
    }
    i32(12, mode);
    text(208, "MAP ");
    return text(212, big_ ? std::string("\x11\x11\0\0", 4) : std::string("\x44\x44\0\0", 4));
  }
  const std::string& bytes() const { return bytes_; }
  bool big() const { return big_; }

 private:
  HeaderBuilder& put(std::size_t offset, std::uint32_t value, int count) {
    for (int i = 0; i < count; ++i) {
      const int shift = big_ ? 8 * (count - 1 - i) : 8 * i;
      bytes_[offset + static_cast<std::size_t>(i)] = static_cast<char>(value >> shift & 0xff);
    }
    return *this;
  }
  bool big_;
  std::string bytes_;
};

template <typename T>
void appendSample(std::string& bytes, T value, bool big) {
  std::array<char, sizeof(T)> raw;
  std::memcpy(raw.data(), &value, sizeof(T));
  if (big) std::reverse(raw.begin(), raw.end());
  bytes.append(raw.data(), raw.size());
}

Volume asymmetricVolume() {
  Volume v({5, 3, 4}, Eigen::Vector3d(0.5, 0.75, 1.25), Eigen::Vector3d(-1.0, 2.0, -3.5));
  for (std::int64_t z = 0; z < 4; ++z)
    for (std::int64_t y = 0; y < 3; ++y)
      for (std::int64_t x = 0; x < 5; ++x) v.at(x, y, z) = static_cast<float>(100 * x + 10 * y + z);
  return v;
}

void expectNearVolume(const Volume& a, const Volume& b) {
  ASSERT_EQ(a.shape(), b.shape());
  for (int i = 0; i < 3; ++i) {
    EXPECT_NEAR(a.voxelSizeMm()[i], b.voxelSizeMm()[i], 1e-6 * b.voxelSizeMm()[i]);
    EXPECT_NEAR(a.originMm()[i], b.originMm()[i], 1e-6 * (1 + std::abs(b.originMm()[i])));
  }
  ASSERT_TRUE(std::equal(a.voxels().begin(), a.voxels().end(), b.voxels().begin()));
}

TEST(MrcIo, RoundTripsARandomVolumeAsFloat32WithSpacingAndOrigin) {
  test::TempDir dir;
  const Volume v = test::randomVolume({6, 5, 4}, test::randomSeed());
  writeMrcVolume(dir / "v.mrc", v);
  expectNearVolume(readMrcVolume(dir / "v.mrc"), v);
  const MrcHeader h = readMrcHeader(dir / "v.mrc");
  EXPECT_EQ(h.mode, 2);
  EXPECT_EQ(h.sampleType, MrcSampleType::Float32);
  EXPECT_TRUE(h.warnings.empty());
}

TEST(MrcIo, WritesAConformantMrc2014Header) {
  test::TempDir dir;
  const Volume v = asymmetricVolume();
  MrcWriteOptions options;
  options.label = "run 42, fdk";
  writeMrcVolume(dir / "v.mrc", v, options);
  const std::string bytes = test::readBytes(dir / "v.mrc");
  ASSERT_EQ(bytes.size(), 1024u + 60 * 4);
  auto i32 = [&](std::size_t o) {
    std::int32_t x;
    std::memcpy(&x, bytes.data() + o, 4);
    return x;
  };
  auto f32 = [&](std::size_t o) {
    float x;
    std::memcpy(&x, bytes.data() + o, 4);
    return x;
  };
  EXPECT_EQ(i32(0), 5);
  EXPECT_EQ(i32(12), 2);
  EXPECT_EQ(i32(28), 5);
  EXPECT_FLOAT_EQ(f32(40), 5 * 0.5f * 1e7f);  // cella = n x spacing in Angstrom
  EXPECT_FLOAT_EQ(f32(48), 4 * 1.25f * 1e7f);
  EXPECT_FLOAT_EQ(f32(52), 90.0f);
  EXPECT_EQ(i32(64), 1);
  EXPECT_EQ(i32(68), 2);
  EXPECT_EQ(i32(72), 3);
  EXPECT_FLOAT_EQ(f32(76), 0.0f);  // dmin
  EXPECT_FLOAT_EQ(f32(80), 423.0f);
  double sum = 0, squares = 0;
  for (float x : v.voxels()) {
    sum += x;
    squares += double(x) * x;
  }
  const double mean = sum / 60, rms = std::sqrt(squares / 60 - mean * mean);
  EXPECT_NEAR(f32(84), mean, 1e-3);
  EXPECT_NEAR(f32(216), rms, 1e-3);
  EXPECT_EQ(i32(88), 1);  // ispg: volume
  EXPECT_EQ(i32(92), 0);  // no extended header
  EXPECT_EQ(i32(108), 20140);
  EXPECT_EQ(i32(152), kImodStamp);
  EXPECT_FLOAT_EQ(f32(196), 1.0f * 1e7f);  // IMOD origin: minus the first voxel's position
  EXPECT_FLOAT_EQ(f32(204), 3.5f * 1e7f);
  EXPECT_EQ(bytes.substr(208, 4), "MAP ");
  EXPECT_EQ(bytes.substr(212, 2), "\x44\x44");
  EXPECT_EQ(i32(220), 2);
  const std::string ours = std::string("Tomo Workbench ") + TOMOWB_VERSION;
  EXPECT_EQ(bytes.substr(224, ours.size()), ours);
  EXPECT_EQ(bytes[224 + ours.size()], '\0');
  EXPECT_EQ(bytes.substr(304, 11), "run 42, fdk");
  EXPECT_EQ(
      readMrcHeader(dir / "v.mrc").labels,
      (std::vector<std::string>{std::string("Tomo Workbench ") + TOMOWB_VERSION, "run 42, fdk"}));
}

TEST(MrcIo, RefusesLabelsLongerThan80CharactersOrUnprintable) {
  test::TempDir dir;
  MrcWriteOptions options;
  options.label = std::string(81, 'a');
  EXPECT_THROW(writeMrcVolume(dir / "v.mrc", asymmetricVolume(), options), ParameterError);
  options.label = "tab\there";
  EXPECT_THROW(writeMrcVolume(dir / "v.mrc", asymmetricVolume(), options), ParameterError);
  EXPECT_FALSE(std::filesystem::exists(dir / "v.mrc"));
}

TEST(MrcIo, ReadsEveryModeInBothByteOrders) {
  test::TempDir dir;
  for (bool big : {false, true}) {
    struct Case {
      std::int32_t mode;
      std::string payload;
      std::vector<float> expected;
      std::int32_t imodFlags = -1;  // -1: no IMOD stamp
    };
    std::vector<Case> cases;
    cases.push_back({0, std::string("\x00\x7f\x80\xff", 4), {0, 127, 128, 255}});
    cases.push_back({0, std::string("\x00\x7f\x80\xff", 4), {0, 127, -128, -1}, 1});
    std::string s16, u16, f32, f16;
    for (std::int16_t x : {-32768, -1, 0, 32767}) appendSample(s16, x, big);
    for (std::uint16_t x : {0, 1, 40000, 65535}) appendSample(u16, x, big);
    for (float x : {-1.5f, 0.0f, 3.25e10f, 7.0f}) appendSample(f32, x, big);
    // float16: 1, -2, 2^-24 (smallest subnormal), +infinity.
    for (std::uint16_t x : {0x3c00, 0xc000, 0x0001, 0x7c00}) appendSample(f16, x, big);
    cases.push_back({1, s16, {-32768, -1, 0, 32767}});
    cases.push_back({6, u16, {0, 1, 40000, 65535}});
    cases.push_back({2, f32, {-1.5f, 0.0f, 3.25e10f, 7.0f}});
    cases.push_back({12, f16, {1.0f, -2.0f, std::ldexp(1.0f, -24), INFINITY}});
    for (const Case& c : cases) {
      HeaderBuilder h(big);
      h.standard(2, 2, 1, c.mode);
      if (c.imodFlags >= 0) h.i32(152, kImodStamp).i32(156, c.imodFlags);
      test::writeBytes(dir / "m.mrc", h.bytes() + c.payload);
      const Volume v = readMrcVolume(dir / "m.mrc");
      ASSERT_EQ(v.voxelCount(), 4) << c.mode;
      for (std::size_t i = 0; i < 4; ++i)
        EXPECT_EQ(v.voxels()[i], c.expected[i]) << "mode " << c.mode << " big " << big << " " << i;
      EXPECT_EQ(readMrcHeader(dir / "m.mrc").byteOrder, big ? ByteOrder::Big : ByteOrder::Little);
    }
  }
}

TEST(MrcIo, ModeZeroIsUnsignedUnlessTheImodStampCarriesTheSignedFlag) {
  test::TempDir dir;
  const std::string payload("\xff", 1);
  // The signed flag without the stamp, and the stamp with other flags, mean unsigned bytes.
  test::writeBytes(dir / "a.mrc",
                   HeaderBuilder().standard(1, 1, 1, 0).i32(156, 1).bytes() + payload);
  EXPECT_EQ(readMrcVolume(dir / "a.mrc").at(0, 0, 0), 255.0f);
  test::writeBytes(
      dir / "b.mrc",
      HeaderBuilder().standard(1, 1, 1, 0).i32(152, kImodStamp).i32(156, 4).bytes() + payload);
  EXPECT_EQ(readMrcHeader(dir / "b.mrc").sampleType, MrcSampleType::UInt8);
  test::writeBytes(
      dir / "c.mrc",
      HeaderBuilder().standard(1, 1, 1, 0).i32(152, kImodStamp).i32(156, 5).bytes() + payload);
  EXPECT_EQ(readMrcVolume(dir / "c.mrc").at(0, 0, 0), -1.0f);
}

TEST(MrcIo, RoundTripsInt16AndUInt16ModesThroughTheirMapping) {
  test::TempDir dir;
  Volume v({4, 1, 1}, Eigen::Vector3d::Ones(), Eigen::Vector3d::Zero());
  const float values[] = {-10.0f, -9.5f, 0.0f, 5.25f};
  std::copy(std::begin(values), std::end(values), v.voxels().begin());
  MrcWriteOptions options;
  options.mode = MrcWriteMode::Int16;
  options.slope = 0.25;
  options.intercept = -10.0;
  writeMrcVolume(dir / "i.mrc", v, options);
  EXPECT_EQ(readMrcHeader(dir / "i.mrc").mode, 1);
  const Volume i16 = readMrcVolume(dir / "i.mrc");
  for (int k = 0; k < 4; ++k) EXPECT_EQ(i16.voxels()[k], (values[k] + 10.0f) / 0.25f);
  options.mode = MrcWriteMode::UInt16;
  writeMrcVolume(dir / "u.mrc", v, options);
  EXPECT_EQ(readMrcHeader(dir / "u.mrc").mode, 6);
  EXPECT_EQ(readMrcHeader(dir / "u.mrc").dmax, 61.0f);
  EXPECT_EQ(readMrcVolume(dir / "u.mrc").voxels()[3], 61.0f);
}

TEST(MrcIo, RefusesIntegerValuesThatDoNotFitWithoutLeavingAFile) {
  test::TempDir dir;
  Volume v({2, 1, 1}, Eigen::Vector3d::Ones(), Eigen::Vector3d::Zero());
  v.at(1, 0, 0) = -1.0f;
  MrcWriteOptions options;
  options.mode = MrcWriteMode::UInt16;
  try {
    writeMrcVolume(dir / "u.mrc", v, options);
    FAIL();
  } catch (const ParameterError& e) {
    EXPECT_NE(std::string(e.what()).find("sample 1"), std::string::npos) << e.what();
  }
  v.at(1, 0, 0) = NAN;
  EXPECT_THROW(writeMrcVolume(dir / "u.mrc", v, options), ParameterError);
  EXPECT_TRUE(std::filesystem::is_empty(dir.path()));
}

TEST(MrcIo, RejectsUnsupportedModesNamingTheMode) {
  test::TempDir dir;
  for (std::int32_t mode : {3, 4, 16, 101, 5, 7, -1, 1000}) {
    test::writeBytes(dir / "m.mrc",
                     HeaderBuilder().standard(1, 1, 1, mode).bytes() + std::string(16, '\0'));
    TOMOWB_EXPECT_FORMAT_ERROR(readMrcVolume(dir / "m.mrc"), dir / "m.mrc",
                               "mode " + std::to_string(mode));
  }
}

TEST(MrcIo, SkipsTheExtendedHeader) {
  test::TempDir dir;
  std::string payload;
  for (float x : {1.0f, 2.0f}) appendSample(payload, x, false);
  const std::string extended(100, '\x5a');
  test::writeBytes(dir / "e.mrc",
                   HeaderBuilder().standard(2, 1, 1, 2).i32(92, 100).text(104, "FEI1").bytes() +
                       extended + payload);
  const MrcHeader h = readMrcHeader(dir / "e.mrc");
  EXPECT_EQ(h.dataOffset, 1124u);
  EXPECT_EQ(h.extendedHeaderType, "FEI1");
  EXPECT_FALSE(h.tiltAnglesDeg);
  const Volume v = readMrcVolume(dir / "e.mrc");
  EXPECT_EQ(v.at(0, 0, 0), 1.0f);
  EXPECT_EQ(v.at(1, 0, 0), 2.0f);
}

TEST(MrcIo, RejectsAnExtendedHeaderThatLeavesTheFileOrIsNegative) {
  test::TempDir dir;
  const std::string payload(8, '\0');
  test::writeBytes(dir / "e.mrc",
                   HeaderBuilder().standard(2, 1, 1, 2).i32(92, 1000000).bytes() + payload);
  TOMOWB_EXPECT_FORMAT_ERROR(readMrcVolume(dir / "e.mrc"), dir / "e.mrc", "field 'next'");
  test::writeBytes(dir / "e.mrc",
                   HeaderBuilder().standard(2, 1, 1, 2).i32(92, -4).bytes() + payload);
  TOMOWB_EXPECT_FORMAT_ERROR(readMrcVolume(dir / "e.mrc"), dir / "e.mrc", "next");
  // The extended header fits, but then the data does not.
  test::writeBytes(dir / "e.mrc",
                   HeaderBuilder().standard(2, 1, 1, 2).i32(92, 4).bytes() + payload);
  TOMOWB_EXPECT_FORMAT_ERROR(readMrcVolume(dir / "e.mrc"), dir / "e.mrc", "truncated");
}

TEST(MrcIo, RejectsHugeAndInvalidDimensionsBeforeAllocating) {
  test::TempDir dir;
  const std::int32_t big = 1 << 20;
  test::writeBytes(dir / "h.mrc", HeaderBuilder().standard(big, big, big, 2).bytes());
  TOMOWB_EXPECT_FORMAT_ERROR(readMrcVolume(dir / "h.mrc"), dir / "h.mrc", "truncated");
  TOMOWB_EXPECT_FORMAT_ERROR(readMrcHeader(dir / "h.mrc"), dir / "h.mrc", "truncated");
  for (auto [nx, ny, nz, field] : {std::tuple{big + 1, 1, 1, "nx"}, std::tuple{1, 0, 1, "ny"},
                                   std::tuple{1, 1, -5, "nz"}, std::tuple{1, 1, INT32_MIN, "nz"}}) {
    test::writeBytes(dir / "h.mrc", HeaderBuilder().standard(nx, ny, nz, 2).bytes());
    TOMOWB_EXPECT_FORMAT_ERROR(readMrcVolume(dir / "h.mrc"), dir / "h.mrc",
                               std::string("field '") + field + "'");
  }
}

TEST(MrcIo, RejectsTruncatedFilesAtSeveralBoundaries) {
  test::TempDir dir;
  writeMrcVolume(dir / "v.mrc", asymmetricVolume());
  const std::string bytes = test::readBytes(dir / "v.mrc");
  for (std::size_t cut : test::cutPoints(bytes.size(), {212, 1023, 1024, 1025, 1100})) {
    test::writeBytes(dir / "v.mrc", bytes.substr(0, cut));
    TOMOWB_EXPECT_FORMAT_ERROR(readMrcVolume(dir / "v.mrc"), dir / "v.mrc", "");
  }
}

TEST(MrcIo, CorruptedHeadersAreReadOrRefusedWithAFormatErrorNeverWorse) {
  test::TempDir dir;
  writeMrcVolume(dir / "v.mrc", asymmetricVolume());
  const std::string good = test::readBytes(dir / "v.mrc");
  std::mt19937_64 random(test::randomSeed());
  std::uniform_int_distribution<std::size_t> offset(0, 255);
  std::uniform_int_distribution<int> value(0, 255);
  for (int trial = 0; trial < 500; ++trial) {
    std::string bytes = good;
    for (int k = 0; k < 1 + trial % 4; ++k)
      bytes[offset(random)] = static_cast<char>(value(random));
    test::writeBytes(dir / "c.mrc", bytes);
    try {
      readMrcVolume(dir / "c.mrc");
    } catch (const FormatError& e) {
      EXPECT_NE(std::string(e.what()).find((dir / "c.mrc").string()), std::string::npos);
    } catch (const std::exception& e) {
      ADD_FAILURE() << "trial " << trial << ": not a FormatError: " << e.what();
    }
  }
}

TEST(MrcIo, ReadsBigEndianFilesWithoutAMachineStampByPlausibility) {
  test::TempDir dir;
  std::string payload;
  for (std::int16_t x : {300, -2}) appendSample(payload, x, true);
  HeaderBuilder h(true);
  h.standard(2, 1, 1, 1).text(212, std::string(4, '\0'));
  test::writeBytes(dir / "b.mrc", h.bytes() + payload);
  const MrcHeader header = readMrcHeader(dir / "b.mrc");
  EXPECT_EQ(header.byteOrder, ByteOrder::Big);
  ASSERT_FALSE(header.warnings.empty());
  EXPECT_NE(header.warnings.front().find("machine stamp"), std::string::npos);
  EXPECT_EQ(readMrcVolume(dir / "b.mrc").at(0, 0, 0), 300.0f);
  EXPECT_EQ(readMrcVolume(dir / "b.mrc").at(1, 0, 0), -2.0f);
}

TEST(MrcIo, ImodAxisOrderRoundTripsAnAsymmetricVolume) {
  test::TempDir dir;
  const Volume v = asymmetricVolume();  // 5 x 3 x 4, value 100 x + 10 y + z
  MrcWriteOptions options;
  options.axisOrder = MrcAxisOrder::Imod;
  writeMrcVolume(dir / "r.rec", v, options);
  const MrcHeader h = readMrcHeader(dir / "r.rec");
  EXPECT_EQ(h.nx, 5);  // file X = our -x
  EXPECT_EQ(h.ny, 4);  // file Y = our z (tilt axis)
  EXPECT_EQ(h.nz, 3);  // file Z = our y (thickness)
  EXPECT_NEAR(h.spacingMm.y(), 1.25, 1e-6);
  EXPECT_NEAR(h.spacingMm.z(), 0.75, 1e-6);
  // As stored, file voxel (X, Y, Z) holds our (x = 4 - X, y = Z, z = Y): a rotation, not a
  // mirror (the determinant of (X, Y, Z) in our axes is +1).
  const Volume stored = readMrcVolume(dir / "r.rec");
  for (std::int64_t fz = 0; fz < 3; ++fz)
    for (std::int64_t fy = 0; fy < 4; ++fy)
      for (std::int64_t fx = 0; fx < 5; ++fx)
        ASSERT_EQ(stored.at(fx, fy, fz), v.at(4 - fx, fz, fy));
  MrcReadOptions read;
  read.axisOrder = MrcAxisOrder::Imod;
  const Volume back = readMrcVolume(dir / "r.rec", read);
  expectNearVolume(back, v);
  EXPECT_LT((back.originMm() - v.originMm()).norm(), 1e-9);
}

TEST(MrcIo, OriginFollowsImodsSignAndItsInvertedFlag) {
  test::TempDir dir;
  // 2 A pixels; xorg = 10 A: the coordinate origin lies 10 A beyond the first voxel.
  HeaderBuilder h;
  h.standard(1, 1, 1, 2).f32(196, 10.0f).f32(200, -4.0f);
  test::writeBytes(dir / "o.mrc", h.bytes() + std::string(4, '\0'));
  Volume v = readMrcVolume(dir / "o.mrc");
  EXPECT_NEAR(v.voxelSizeMm().x(), 2e-7, 1e-15);
  EXPECT_NEAR(v.originMm().x(), -10e-7, 1e-15);
  EXPECT_NEAR(v.originMm().y(), 4e-7, 1e-15);
  h.i32(152, kImodStamp).i32(156, 4);
  test::writeBytes(dir / "o.mrc", h.bytes() + std::string(4, '\0'));
  v = readMrcVolume(dir / "o.mrc");
  EXPECT_NEAR(v.originMm().x(), 10e-7, 1e-15);
  EXPECT_NEAR(v.originMm().y(), -4e-7, 1e-15);
}

TEST(MrcIo, UnknownPixelSpacingFallsBackWithAWarningAndACentredVolume) {
  test::TempDir dir;
  HeaderBuilder h;
  h.standard(2, 2, 2, 2).f32(40, 0.0f).f32(196, 5.0f);
  test::writeBytes(dir / "u.mrc", h.bytes() + std::string(32, '\0'));
  std::vector<std::string> warnings;
  const Volume v = readMrcVolume(dir / "u.mrc", {}, &warnings);
  EXPECT_TRUE(v.voxelSizeMm().isApprox(Eigen::Vector3d(1.0, 2e-7, 2e-7), 1e-12));
  EXPECT_TRUE(v.originMm().isApprox(Eigen::Vector3d(-0.5, -1e-7, -1e-7), 1e-12));
  ASSERT_FALSE(warnings.empty());
  EXPECT_NE(warnings.back().find("voxel size unknown"), std::string::npos);
  EXPECT_EQ(readMrcHeader(dir / "u.mrc").spacingMm.x(), 0.0);
  MrcReadOptions options;
  options.voxelSizeMmIfUnknown = 0.0;
  EXPECT_THROW(readMrcVolume(dir / "u.mrc", options), ParameterError);
}

TEST(MrcIo, RefusesAxisMapsOtherThanColumnsRowsSections) {
  test::TempDir dir;
  test::writeBytes(
      dir / "m.mrc",
      HeaderBuilder().standard(1, 1, 1, 2).i32(64, 2).i32(68, 1).bytes() + std::string(4, '\0'));
  TOMOWB_EXPECT_FORMAT_ERROR(readMrcVolume(dir / "m.mrc"), dir / "m.mrc", "mapc/mapr/maps");
}

TEST(MrcIo, SerialEmTiltAnglesComeFromRecognisedExtendedHeadersOnly) {
  test::TempDir dir;
  const std::string payload(3 * 4, '\0');
  // Per section: tilt x 100 (flag 1) and magnification / 100 (flag 8): 4 bytes.
  auto extended = [](bool big) {
    std::string e;
    for (std::int16_t tilt : {-6000, 125, 6000}) {
      appendSample(e, tilt, big);
      appendSample(e, std::int16_t{200}, big);
    }
    return e;
  };
  for (bool big : {false, true}) {
    for (const std::string& exttyp : {std::string("SERI"), std::string(4, '\0')}) {
      HeaderBuilder h(big);
      h.standard(1, 1, 3, 2).i32(92, 12).text(104, exttyp).i16(128, 4).i16(130, 9);
      test::writeBytes(dir / "s.mrc", h.bytes() + extended(big) + payload);
      const MrcHeader header = readMrcHeader(dir / "s.mrc");
      ASSERT_TRUE(header.tiltAnglesDeg) << big;
      EXPECT_EQ(*header.tiltAnglesDeg, (std::vector<double>{-60.0, 1.25, 60.0}));
    }
  }
  // Agard format (nint ints + nreal floats), FEI, and flags that do not add up: no angles.
  for (auto [exttyp, nint, nreal] :
       {std::tuple{"AGAR", 4, 1}, std::tuple{"FEI1", 4, 9}, std::tuple{"\0\0\0\0", 1, 2}}) {
    HeaderBuilder h;
    h.standard(1, 1, 3, 2).i32(92, 12).text(104, std::string(exttyp, 4));
    h.i16(128, static_cast<std::int16_t>(nint)).i16(130, static_cast<std::int16_t>(nreal));
    test::writeBytes(dir / "s.mrc", h.bytes() + extended(false) + payload);
    EXPECT_FALSE(readMrcHeader(dir / "s.mrc").tiltAnglesDeg) << exttyp;
  }
  // SerialEM data that the extended header cannot hold for every section: a warning, no angles.
  HeaderBuilder h;
  h.standard(1, 1, 3, 2).i32(92, 8).text(104, "SERI").i16(128, 4).i16(130, 9);
  test::writeBytes(dir / "s.mrc", h.bytes() + extended(false).substr(0, 8) + payload);
  const MrcHeader header = readMrcHeader(dir / "s.mrc");
  EXPECT_FALSE(header.tiltAnglesDeg);
  ASSERT_FALSE(header.warnings.empty());
  EXPECT_NE(header.warnings.back().find("SerialEM"), std::string::npos);
}

TEST(MrcIo, StacksCarryIspg0AndTheirTiltAnglesInASerialEmHeader) {
  test::TempDir dir;
  TiltSeriesParams p;
  p.cols = 3;
  p.rows = 2;
  p.pixelSizeMm = 4e-7;
  p.tiltAnglesRad = {-1.0, 0.0, 0.5};
  ProjectionStack stack(tiltSeries(p));
  for (std::size_t i = 0; i < stack.pixels().size(); ++i) stack.pixels()[i] = float(i);
  MrcWriteOptions options;
  options.tiltAnglesDeg = {-60.0, 0.0, 12.34};
  writeMrcStack(dir / "s.st", stack, options);
  const MrcHeader h = readMrcHeader(dir / "s.st");
  EXPECT_EQ(h.spaceGroup, 0);
  EXPECT_EQ(h.extendedHeaderType, "SERI");
  EXPECT_NEAR(h.spacingMm.x(), 4e-7, 1e-13);
  ASSERT_TRUE(h.tiltAnglesDeg);
  EXPECT_EQ(*h.tiltAnglesDeg, options.tiltAnglesDeg);
  const ProjectionStack back = readMrcProjections(dir / "s.st", stack.geometry());
  EXPECT_TRUE(std::equal(back.pixels().begin(), back.pixels().end(), stack.pixels().begin()));
  // A geometry that does not match the stack is refused naming the field.
  p.cols = 4;
  TOMOWB_EXPECT_FORMAT_ERROR(readMrcProjections(dir / "s.st", tiltSeries(p)), dir / "s.st", "nx");
  options.tiltAnglesDeg = {1.0};
  EXPECT_THROW(writeMrcStack(dir / "t.st", stack, options), ParameterError);
  options.tiltAnglesDeg.clear();
  options.axisOrder = MrcAxisOrder::Imod;
  EXPECT_THROW(writeMrcStack(dir / "t.st", stack, options), ParameterError);
}

TEST(MrcIo, TheVolumeFacadeReadsWritesAndDescribesMrcByExtension) {
  test::TempDir dir;
  for (const std::string ext : {".mrc", ".st", ".ali", ".rec", ".map", ".mrcs", ".preali", ".MRC"})
    EXPECT_EQ(dataFormatForPath("a" + ext), DataFormat::Mrc) << ext;
  const Volume v = asymmetricVolume();
  writeVolume(dir / "v.rec", v);
  expectNearVolume(readVolume(dir / "v.rec"), v);
  const FileSummary s = describeFile(dir / "v.rec");
  EXPECT_EQ(s.kind, FileKind::Volume);
  EXPECT_EQ(s.format, "MRC2014");
  EXPECT_EQ(s.sizeY, 3);
  EXPECT_EQ(s.sampleType, "float32");
  ASSERT_TRUE(s.valueRange);
  EXPECT_EQ(s.valueRange->second, 423.0f);
  const std::string text = s.toText();
  EXPECT_NE(text.find("mode: 2 (float32)"), std::string::npos) << text;
  EXPECT_NE(text.find("tilt angles: none"), std::string::npos) << text;
}

}  // namespace
}  // namespace tomowb::io
