// CLI11 validators for numbers that must be finite. CLI11's PositiveNumber, NonNegativeNumber and
// Range only compare, and every comparison with NaN is false, so `--voxel-mm nan` or `--min nan`
// passed them (hostile-input review, D25); `inf` passed PositiveNumber. These refuse both, with
// the option's name in CLI11's message.
#pragma once

#include <CLI/CLI.hpp>
#include <charconv>
#include <cmath>
#include <string>

namespace tomowb::cli {

namespace detail {
inline bool parseFinite(const std::string& text, double& value) {
  const char* first = text.data();
  const char* last = text.data() + text.size();
  if (first != last && *first == '+') ++first;
  const auto [end, error] = std::from_chars(first, last, value);
  return first != last && error == std::errc() && end == last && std::isfinite(value);
}
}  // namespace detail

// Any finite number.
inline CLI::Validator finiteNumber() {
  return CLI::Validator(
      [](std::string& text) {
        double value = 0;
        return detail::parseFinite(text, value) ? std::string()
                                                : "must be a finite number, got '" + text + "'";
      },
      "FINITE");
}

// A finite number > 0.
inline CLI::Validator finitePositiveNumber() {
  return CLI::Validator(
      [](std::string& text) {
        double value = 0;
        return detail::parseFinite(text, value) && value > 0
                   ? std::string()
                   : "must be a finite number > 0, got '" + text + "'";
      },
      "POSITIVE");
}

}  // namespace tomowb::cli
