// Limits every reader enforces before it trusts a number from a file (ux-and-robustness.md,
// sections 3-4): axis lengths, header sizes, JSON nesting. A value outside them is a FormatError
// that names the file and the field, raised before anything is allocated from it.
#pragma once

#include <cstdint>
#include <filesystem>
#include <initializer_list>
#include <string_view>

namespace tomowb::io {

// 1 <= n <= 2^20 per axis: 2^20 is far above any detector or volume we meet and keeps every
// product of three axes and a sample size well inside 64 bits.
inline constexpr std::int64_t kMaxAxisLength = std::int64_t{1} << 20;
inline constexpr std::uint64_t kMaxNpyHeaderBytes = std::uint64_t{64} << 10;
inline constexpr int kMaxNpyDims = 8;
inline constexpr std::uint64_t kMaxSidecarBytes = std::uint64_t{1} << 20;
inline constexpr std::uint64_t kMaxMetaImageHeaderBytes = std::uint64_t{64} << 10;
inline constexpr int kMaxMetaImageHeaderLines = 1000;
inline constexpr int kMaxJsonDepth = 64;
// Files in a per-slice folder (one per z slice or view).
inline constexpr std::int64_t kMaxSeriesFiles = kMaxAxisLength;

// Returns n if 1 <= n <= kMaxAxisLength, else throws FormatError(path, field, ...).
std::int64_t checkedAxisLength(const std::filesystem::path& path, std::string_view field,
                               std::int64_t n);

// Product of the axis lengths and the sample size in bytes, checked for 64-bit overflow
// (FormatError naming `field` on overflow). The lengths must already be checked.
std::uint64_t checkedPayloadBytes(const std::filesystem::path& path, std::string_view field,
                                  std::initializer_list<std::int64_t> lengths,
                                  std::uint64_t sampleBytes);

}  // namespace tomowb::io
