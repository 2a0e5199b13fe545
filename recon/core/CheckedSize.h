// Overflow-checked size arithmetic for readers and containers: every element count and byte
// size that comes from a file or a user goes through these before anything is allocated.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string_view>

namespace tomowb {

// a*b, or nullopt on 64-bit overflow.
inline std::optional<std::uint64_t> mulChecked(std::uint64_t a, std::uint64_t b) noexcept {
  std::uint64_t r = 0;
  if (__builtin_mul_overflow(a, b, &r)) return std::nullopt;
  return r;
}

inline std::optional<std::uint64_t> addChecked(std::uint64_t a, std::uint64_t b) noexcept {
  std::uint64_t r = 0;
  if (__builtin_add_overflow(a, b, &r)) return std::nullopt;
  return r;
}

// Product of all factors, or nullopt on overflow or if any factor is negative.
inline std::optional<std::uint64_t> productChecked(
    std::initializer_list<std::int64_t> factors) noexcept {
  std::uint64_t r = 1;
  for (std::int64_t f : factors) {
    if (f < 0) return std::nullopt;
    auto next = mulChecked(r, static_cast<std::uint64_t>(f));
    if (!next) return std::nullopt;
    r = *next;
  }
  return r;
}

// As productChecked, but throws ParameterError naming `what` on overflow or negative factor.
std::uint64_t productOrThrow(std::string_view what, std::initializer_list<std::int64_t> factors);

}  // namespace tomowb
