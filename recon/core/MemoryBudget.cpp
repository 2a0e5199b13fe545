#include "recon/core/MemoryBudget.h"

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include "recon/core/CheckedSize.h"
#include "recon/core/Error.h"

namespace tomowb {

std::uint64_t productOrThrow(std::string_view what, std::initializer_list<std::int64_t> factors) {
  for (std::int64_t f : factors) {
    if (f < 0) throw ParameterError(what, "negative size " + std::to_string(f));
  }
  auto r = productChecked(factors);
  if (!r) throw ParameterError(what, "size overflows 64 bits");
  return *r;
}

std::uint64_t availableHostMemoryBytes() {
  std::ifstream meminfo("/proc/meminfo");
  std::string line;
  while (std::getline(meminfo, line)) {
    if (line.rfind("MemAvailable:", 0) == 0) {
      std::istringstream fields(line.substr(13));
      std::uint64_t kib = 0;
      fields >> kib;
      return kib * 1024;
    }
  }
  return 0;
}

void checkHostAllocation(std::uint64_t bytes, std::string_view what) {
  const std::uint64_t available = availableHostMemoryBytes();
  if (available == 0) return;  // unknown: let the allocator decide
  const std::uint64_t usable = available - available / 4;
  if (bytes > usable) {
    throw OutOfMemoryError("cannot allocate " + formatBytes(bytes) + " for " + std::string(what) +
                           ": only " + formatBytes(usable) + " of host memory can be used (" +
                           formatBytes(available) + " available)");
  }
}

std::string formatBytes(std::uint64_t bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  double value = static_cast<double>(bytes);
  int unit = 0;
  while (value >= 1024.0 && unit < 6) {
    value /= 1024.0;
    ++unit;
  }
  char text[32];
  if (unit == 0) {
    std::snprintf(text, sizeof text, "%llu B", static_cast<unsigned long long>(bytes));
  } else {
    std::snprintf(text, sizeof text, value < 10 ? "%.2f %s" : "%.1f %s", value, units[unit]);
  }
  return text;
}

}  // namespace tomowb
