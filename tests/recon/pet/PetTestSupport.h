// Helpers shared by the PET tests.
#pragma once

#include <algorithm>
#include <cstddef>
#include <vector>

namespace tomowb::pet {

// FWHM of a sampled profile by linear interpolation at half maximum (in `spacing` units).
inline double profileFwhm(const std::vector<double>& profile, double spacing) {
  const auto peak = std::max_element(profile.begin(), profile.end());
  const double half = *peak / 2;
  const auto ip = peak - profile.begin();
  auto crossing = [&](int dir) {
    for (std::ptrdiff_t i = ip;; i += dir) {
      const std::ptrdiff_t next = i + dir;
      if (next < 0 || next >= std::ptrdiff_t(profile.size())) return double(i);
      if (profile[next] < half)
        return double(i) + dir * (profile[i] - half) / (profile[i] - profile[next]);
    }
  };
  return (crossing(1) - crossing(-1)) * spacing;
}

}  // namespace tomowb::pet
