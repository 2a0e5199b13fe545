// Helpers shared by the recon/io tests: random volumes, byte-level file edits, and checks that a
// reader refuses a file with a FormatError naming it.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "recon/core/Error.h"
#include "recon/core/Volume.h"
#include "recon/geometry/Geometry.h"

namespace tomowb::test {

inline Volume randomVolume(VolumeShape shape, std::uint64_t seed) {
  std::mt19937_64 random(seed);
  std::uniform_real_distribution<double> size(0.1, 2.0), origin(-100.0, 100.0);
  Volume v(shape, Eigen::Vector3d(size(random), size(random), size(random)),
           Eigen::Vector3d(origin(random), origin(random), origin(random)));
  std::normal_distribution<float> value(0.0f, 10.0f);
  for (float& x : v.voxels()) x = value(random);
  return v;
}

inline void expectSameVolume(const Volume& a, const Volume& b) {
  ASSERT_EQ(a.shape(), b.shape());
  EXPECT_EQ(a.voxelSizeMm(), b.voxelSizeMm());
  EXPECT_EQ(a.originMm(), b.originMm());
  const auto va = a.voxels(), vb = b.voxels();
  ASSERT_TRUE(std::equal(va.begin(), va.end(), vb.begin()));
}

inline std::string readBytes(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

inline void writeBytes(const std::filesystem::path& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

template <typename T>
void appendValue(std::string& bytes, T value) {
  bytes.append(reinterpret_cast<const char*>(&value), sizeof value);
}

// A RabbitCT header: width, height, view count, HU scale (little-endian hosts).
inline std::string rabbitHeader(std::uint32_t width, std::uint32_t height, std::uint32_t views,
                                float s0 = 1000.0f, float s1 = -1000.0f) {
  std::string bytes;
  appendValue(bytes, width);
  appendValue(bytes, height);
  appendValue(bytes, views);
  appendValue(bytes, s0);
  appendValue(bytes, s1);
  return bytes;
}

// A RabbitCT file of the geometry's views (its projection matrices), with the pixels `pixel(view,
// row, col)`: by default 1000 view + 10 row + col.
inline std::string rabbitFile(
    const Geometry& g,
    const std::function<float(std::int64_t, std::int64_t, std::int64_t)>& pixel = nullptr) {
  std::string bytes = rabbitHeader(static_cast<std::uint32_t>(g.detector().cols),
                                   static_cast<std::uint32_t>(g.detector().rows),
                                   static_cast<std::uint32_t>(g.viewCount()));
  for (std::int64_t v = 0; v < g.viewCount(); ++v) {
    const ProjectionMatrix p = g.projectionMatrix(v);
    for (int k = 0; k < 12; ++k) appendValue(bytes, p.data()[k]);
    for (std::int64_t r = 0; r < g.detector().rows; ++r)
      for (std::int64_t c = 0; c < g.detector().cols; ++c)
        appendValue(bytes, pixel ? pixel(v, r, c) : static_cast<float>(1000 * v + 10 * r + c));
  }
  return bytes;
}

// The FormatError message of `read()`, or a note that it threw something else or nothing.
inline std::string formatErrorOf(const std::function<void()>& read) {
  try {
    read();
  } catch (const FormatError& e) {
    return e.what();
  } catch (const std::exception& e) {
    return std::string("not a FormatError: ") + e.what();
  }
  return "no error";
}

// Expects readExpression to throw a FormatError whose message names `namedFile` and contains
// `expectedWords`.
#define TOMOWB_EXPECT_FORMAT_ERROR(readExpression, namedFile, expectedWords)                     \
  do {                                                                                           \
    const std::string message_ = ::tomowb::test::formatErrorOf([&] { (void)(readExpression); }); \
    EXPECT_NE(message_.find(std::filesystem::path(namedFile).string()), std::string::npos)       \
        << message_;                                                                             \
    EXPECT_NE(message_.find(expectedWords), std::string::npos) << message_;                      \
    EXPECT_EQ(message_.rfind("not a FormatError", 0), std::string::npos) << message_;            \
  } while (0)

// Copies of `bytes` cut at several boundaries (empty, 1 byte, inside and after the header, half,
// one byte short) written to `path`; each must be refused with a FormatError naming the file.
inline std::vector<std::size_t> cutPoints(std::size_t size, std::vector<std::size_t> extra = {}) {
  std::vector<std::size_t> cuts = {0,  1,  7,   8,        10,       16,      19,
                                   20, 64, 100, size / 2, size - 4, size - 1};
  cuts.insert(cuts.end(), extra.begin(), extra.end());
  std::vector<std::size_t> valid;
  for (std::size_t c : cuts) {
    if (c < size) valid.push_back(c);
  }
  return valid;
}

// An .npy file with the given dict text and payload, header padded to 64 bytes like numpy.
inline std::string npyFile(const std::string& dict, const std::string& payload, int major = 1) {
  const std::size_t prefix = major == 1 ? 10 : 12;
  std::string text = dict;
  text.append((64 - (prefix + text.size() + 1) % 64) % 64, ' ');
  text += '\n';
  std::string bytes = "\x93NUMPY";
  bytes += static_cast<char>(major);
  bytes += '\0';
  const std::uint32_t length = static_cast<std::uint32_t>(text.size());
  bytes += static_cast<char>(length & 0xff);
  bytes += static_cast<char>((length >> 8) & 0xff);
  if (major != 1) {
    bytes += static_cast<char>((length >> 16) & 0xff);
    bytes += static_cast<char>(length >> 24);
  }
  return bytes + text + payload;
}

inline std::string dict(const std::string& descr, const std::string& shape, bool fortran = false) {
  return "{'descr': '" + descr + "', 'fortran_order': " + (fortran ? "True" : "False") +
         ", 'shape': " + shape + ", }";
}

}  // namespace tomowb::test
