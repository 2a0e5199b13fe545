// Reader for the RabbitCT projection file (fdk-and-large-data.md, part A; RabbitCT runner
// sources): a 20-byte header (uint32 width, uint32 height, uint32 numImages, float32 HUScale[2],
// little-endian), then per projection a 3x4 matrix as 12 float64 in column-major order
// (u*w = A[0]x + A[3]y + A[6]z + A[9], v*w = A[1]x + ..., w = A[2]x + A[5]y + A[8]z + A[11];
// world in mm, pixel centres at integer (u, v) = (col, row)) and width*height float32 pixels,
// row by row. Bytes after the last projection (version-2 files append reference volumes) are
// ignored. The file has no signature, so nothing is recognised by content: VolumeFiles takes
// ".rct" as RabbitCT; otherwise call readRabbitCt.
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <vector>

#include "recon/data/ProjectionStack.h"
#include "recon/geometry/Geometry.h"

namespace tomowb::io {

inline constexpr std::uint64_t kRabbitCtHeaderBytes = 20;
inline constexpr std::uint64_t kRabbitCtMatrixBytes = 96;

struct RabbitCtHeader {
  std::int64_t width = 0, height = 0, viewCount = 0;
  std::array<float, 2> huScale{};   // HU = round(huScale[0] * mu + huScale[1]) for mu > 0
  std::uint64_t trailingBytes = 0;  // after the last projection
};

struct RabbitCtOptions {
  std::int64_t maxViews = 0;  // read only the first maxViews views; 0 = all
  // RabbitCT's matrices fix the rays but not the detector's distance; this pitch places it
  // (see MatrixGeometry.h). The reconstruction does not depend on it.
  double pixelPitchMm = 1.0;
};

struct RabbitCtProjections {
  ProjectionStack projections;  // geometry built from the matrices (cone beam)
  std::vector<ProjectionMatrix> matrices;
  std::array<float, 2> huScale{};
  std::int64_t viewsInFile = 0;

  // RabbitCT's mapping of a reconstructed attenuation value to Hounsfield units.
  float toHounsfield(float mu) const noexcept;
};

// RabbitCT's mapping: round(s0 * mu + s1) if mu > 0, else 0; at most 4095.
float rabbitCtHounsfield(float mu, const std::array<float, 2>& huScale) noexcept;

// Reads and checks the header, and that the file holds all the projections it declares.
RabbitCtHeader readRabbitCtHeader(const std::filesystem::path& path);

// The header, matrices and geometry without a pixel: where view k's width*height float32 pixels
// start is pixelsOffset + k * viewStrideBytes (out-of-core runs read a band of rows of each).
struct RabbitCtLayout {
  RabbitCtHeader header;
  std::vector<ProjectionMatrix> matrices;  // the first `views` of the file
  Geometry geometry;
  std::uint64_t pixelsOffset = 0;
  std::uint64_t viewStrideBytes = 0;
};
RabbitCtLayout readRabbitCtLayout(const std::filesystem::path& path,
                                  const RabbitCtOptions& options = {});
RabbitCtProjections readRabbitCt(const std::filesystem::path& path,
                                 const RabbitCtOptions& options = {});

}  // namespace tomowb::io
