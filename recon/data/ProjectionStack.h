// ProjectionStack: float32 projections [view][row][col], col fastest, with the Geometry that
// says where each pixel lies. 64-bit sizes, checked against overflow and host memory. The pixels
// live in a host buffer that is pinned when a GPU is present (HostMemory.h), so uploads to the
// GPU run at full speed.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "recon/core/HostMemory.h"
#include "recon/geometry/Geometry.h"

namespace tomowb {

class ProjectionStack {
 public:
  ProjectionStack() = default;
  // Zero-filled stack shaped by the geometry (views x rows x cols).
  explicit ProjectionStack(Geometry geometry);
  // Takes `pixels` ([view][row][col], col fastest) without a copy; ParameterError unless they
  // are exactly views x rows x cols of the geometry.
  ProjectionStack(Geometry geometry, std::vector<float, HostBufferAllocator<float>>&& pixels);

  const Geometry& geometry() const noexcept { return geometry_; }
  Geometry& geometry() noexcept { return geometry_; }
  std::int64_t viewCount() const noexcept { return geometry_.viewCount(); }
  std::int64_t rows() const noexcept { return geometry_.detector().rows; }
  std::int64_t cols() const noexcept { return geometry_.detector().cols; }
  std::int64_t pixelsPerView() const noexcept { return rows() * cols(); }
  std::int64_t pixelCount() const noexcept { return viewCount() * pixelsPerView(); }
  bool empty() const noexcept { return pixels_.empty(); }

  std::int64_t index(std::int64_t view, std::int64_t row, std::int64_t col) const noexcept {
    return (view * rows() + row) * cols() + col;
  }
  float& at(std::int64_t view, std::int64_t row, std::int64_t col) noexcept {
    return pixels_[static_cast<std::size_t>(index(view, row, col))];
  }
  float at(std::int64_t view, std::int64_t row, std::int64_t col) const noexcept {
    return pixels_[static_cast<std::size_t>(index(view, row, col))];
  }
  std::span<float> viewPixels(std::int64_t view) noexcept {
    return std::span<float>(pixels_).subspan(static_cast<std::size_t>(view * pixelsPerView()),
                                             static_cast<std::size_t>(pixelsPerView()));
  }
  std::span<const float> viewPixels(std::int64_t view) const noexcept {
    return std::span<const float>(pixels_).subspan(static_cast<std::size_t>(view * pixelsPerView()),
                                                   static_cast<std::size_t>(pixelsPerView()));
  }
  float* data() noexcept { return pixels_.data(); }
  const float* data() const noexcept { return pixels_.data(); }
  std::span<float> pixels() noexcept { return pixels_; }
  std::span<const float> pixels() const noexcept { return pixels_; }

 private:
  Geometry geometry_;
  std::vector<float, HostBufferAllocator<float>> pixels_;  // pinned when a GPU is present
};

}  // namespace tomowb
