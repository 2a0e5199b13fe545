// Wall-clock seconds since a steady_clock time point: the timing helper of the pipelines and
// runners that report their stages' seconds.
#pragma once

#include <chrono>

namespace tomowb {

inline double secondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace tomowb
