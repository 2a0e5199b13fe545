#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <vector>

#include "recon/io/AtomicFileWriter.h"
#include "recon/io/InputFile.h"
#include "recon/io/SampleType.h"
#include "support/TestSupport.h"
#include "tests/recon/io/IoTestSupport.h"

namespace tomowb::io {
namespace {

std::vector<std::byte> bytesOf(std::initializer_list<int> values) {
  std::vector<std::byte> out;
  for (int v : values) out.push_back(static_cast<std::byte>(v));
  return out;
}

float convertOne(std::initializer_list<int> bytes, SampleType type, ByteOrder order) {
  const auto src = bytesOf(bytes);
  float dst = 0;
  convertToFloat(src, type, order, std::span(&dst, 1));
  return dst;
}

TEST(SampleType, ConvertsEveryTypeInBothByteOrders) {
  EXPECT_EQ(convertOne({0xff}, SampleType::UInt8, ByteOrder::Little), 255.0f);
  EXPECT_EQ(convertOne({0xff}, SampleType::Int8, ByteOrder::Big), -1.0f);
  EXPECT_EQ(convertOne({0x01, 0x02}, SampleType::UInt16, ByteOrder::Little), 513.0f);
  EXPECT_EQ(convertOne({0x01, 0x02}, SampleType::UInt16, ByteOrder::Big), 258.0f);
  EXPECT_EQ(convertOne({0xfe, 0xff}, SampleType::Int16, ByteOrder::Little), -2.0f);
  EXPECT_EQ(convertOne({0x00, 0x00, 0x01, 0x00}, SampleType::UInt32, ByteOrder::Big), 256.0f);
  EXPECT_EQ(convertOne({0xff, 0xff, 0xff, 0xff}, SampleType::Int32, ByteOrder::Little), -1.0f);
  EXPECT_EQ(convertOne({0x3f, 0x80, 0x00, 0x00}, SampleType::Float32, ByteOrder::Big), 1.0f);
  EXPECT_EQ(convertOne({0, 0, 0, 0, 0, 0, 0xf0, 0x3f}, SampleType::Float64, ByteOrder::Little),
            1.0f);
}

TEST(SampleType, NamesRoundTrip) {
  for (SampleType t :
       {SampleType::UInt8, SampleType::Int8, SampleType::UInt16, SampleType::Int16,
        SampleType::UInt32, SampleType::Int32, SampleType::Float32, SampleType::Float64})
    EXPECT_EQ(sampleTypeFromString(toString(t)), t);
  EXPECT_FALSE(sampleTypeFromString("complex64"));
}

TEST(SampleType, WritesAndReadsFloat32BigEndianThroughFiles) {
  test::TempDir dir;
  const std::vector<float> values = {1.5f, -2.25f, 1e30f};
  {
    AtomicFileWriter out(dir / "big.raw");
    writeFloat32(out, values, ByteOrder::Big);
    out.commit();
  }
  EXPECT_EQ(test::readBytes(dir / "big.raw").substr(0, 4), std::string("\x3f\xc0\x00\x00", 4));
  const InputFile file(dir / "big.raw");
  std::vector<float> back(3);
  readSamplesAsFloat(file, 0, SampleType::Float32, ByteOrder::Big, back, "samples");
  EXPECT_EQ(back, values);
  std::vector<float> tooMany(4);
  TOMOWB_EXPECT_FORMAT_ERROR(
      readSamplesAsFloat(file, 0, SampleType::Float32, ByteOrder::Big, tooMany, "samples"),
      dir / "big.raw", "samples");
}

// A read of many pieces goes to several threads (recon/io/SampleType.cpp): every sample lands in
// its place, read as it is (float32 in our byte order) or converted (big-endian uint16), from an
// offset that is not a multiple of a piece; a file one sample short is refused before the read.
TEST(SampleType, LargeReadsOnSeveralThreadsPutEverySampleInItsPlace) {
  test::TempDir dir;
  const std::size_t count = (std::size_t{1} << 22) * 5 + 12345;  // 5 pieces and a bit
  const std::uint64_t header = 1000;
  std::vector<float> floats(count);
  std::vector<unsigned char> bigUint16(count * 2);
  for (std::size_t i = 0; i < count; ++i) {
    floats[i] = static_cast<float>(i) * 0.5f - 7.0f;
    const auto v = static_cast<std::uint16_t>(i * 2654435761u >> 16);
    bigUint16[2 * i] = static_cast<unsigned char>(v >> 8);
    bigUint16[2 * i + 1] = static_cast<unsigned char>(v & 0xff);
  }
  {
    std::ofstream out(dir / "f32.raw", std::ios::binary);
    out.write(std::string(header, 'h').data(), static_cast<std::streamsize>(header));
    out.write(reinterpret_cast<const char*>(floats.data()),
              static_cast<std::streamsize>(count * 4));
    std::ofstream out16(dir / "u16.raw", std::ios::binary);
    out16.write(reinterpret_cast<const char*>(bigUint16.data()),
                static_cast<std::streamsize>(bigUint16.size()));
  }
  std::vector<float> back(count, -1.0f);
  readSamplesAsFloat(InputFile(dir / "f32.raw"), header, SampleType::Float32, kHostByteOrder, back,
                     "samples");
  EXPECT_EQ(back, floats);
  std::fill(back.begin(), back.end(), -1.0f);
  readSamplesAsFloat(InputFile(dir / "u16.raw"), 0, SampleType::UInt16, ByteOrder::Big, back,
                     "samples");
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < count; ++i)
    wrong += back[i] != static_cast<float>(bigUint16[2 * i] * 256 + bigUint16[2 * i + 1]);
  EXPECT_EQ(wrong, 0u);
  std::vector<float> tooMany(count + 1);
  TOMOWB_EXPECT_FORMAT_ERROR(readSamplesAsFloat(InputFile(dir / "u16.raw"), 0, SampleType::UInt16,
                                                ByteOrder::Big, tooMany, "samples"),
                             dir / "u16.raw", "samples");
}

}  // namespace
}  // namespace tomowb::io
