#include "recon/core/MemoryBudget.h"

#include <sys/resource.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>

#include "recon/core/CheckedSize.h"
#include "recon/core/Error.h"
#include "recon/core/HostBufferFiles.h"
#include "recon/core/HostMemory.h"

namespace tomowb {

std::uint64_t productOrThrow(std::string_view what, std::initializer_list<std::int64_t> factors) {
  for (std::int64_t f : factors) {
    if (f < 0) throw ParameterError(what, "negative size " + std::to_string(f));
  }
  auto r = productChecked(factors);
  if (!r) throw ParameterError(what, "size overflows 64 bits");
  return *r;
}

namespace {

std::optional<std::uint64_t> numberIn(const std::filesystem::path& file) {
  std::ifstream in(file);
  std::string text;
  if (!(in >> text) || text.empty() || text == "max") return std::nullopt;
  std::uint64_t value = 0;
  for (const char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    if (value > (UINT64_MAX - 9) / 10) return std::nullopt;
    value = value * 10 + static_cast<std::uint64_t>(c - '0');
  }
  return value;
}

// `key` of a "key value" file (memory.stat), 0 if absent.
std::uint64_t statValue(const std::filesystem::path& file, std::string_view key) {
  std::ifstream in(file);
  std::string name;
  std::uint64_t value = 0;
  while (in >> name >> value)
    if (name == key) return value;
  return 0;
}

// Limit minus usage in one cgroup folder, if it sets a limit.
std::optional<std::uint64_t> leftIn(const std::filesystem::path& folder, bool v2) {
  const std::optional<std::uint64_t> limit =
      numberIn(folder / (v2 ? "memory.max" : "memory.limit_in_bytes"));
  if (!limit || *limit >= (std::uint64_t{1} << 60)) return std::nullopt;
  const std::uint64_t usage =
      numberIn(folder / (v2 ? "memory.current" : "memory.usage_in_bytes")).value_or(0);
  const std::uint64_t cache =
      statValue(folder / "memory.stat", v2 ? "inactive_file" : "total_inactive_file");
  const std::uint64_t used = usage > cache ? usage - cache : 0;
  return *limit > used ? *limit - used : 0;
}

// kB value of a "Name:   123 kB" line of /proc/self/status, 0 if absent.
std::uint64_t statusKib(std::string_view name) {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind(name, 0) == 0 && line.size() > name.size() && line[name.size()] == ':') {
      std::istringstream fields(line.substr(name.size() + 1));
      std::uint64_t kib = 0;
      fields >> kib;
      return kib;
    }
  return 0;
}

std::uint64_t memAvailableBytes() {
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

std::string readAll(const char* path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

namespace detail {

std::optional<std::uint64_t> cgroupAvailableBytes(std::string_view procSelfCgroup,
                                                  const std::filesystem::path& root) {
  std::optional<std::uint64_t> least;
  const auto consider = [&](std::optional<std::uint64_t> left) {
    if (left && (!least || *left < *least)) least = left;
  };
  // Each line is "id:controllers:path": "0::/a/b" for v2, "4:memory:/a/b" for v1.
  std::istringstream lines{std::string(procSelfCgroup)};
  std::string line;
  while (std::getline(lines, line)) {
    const auto first = line.find(':'), second = line.find(':', first + 1);
    if (first == std::string::npos || second == std::string::npos) continue;
    const std::string controllers = line.substr(first + 1, second - first - 1);
    const bool v2 = line.substr(0, first) == "0" && controllers.empty();
    bool memory = false;
    for (std::size_t at = 0; at <= controllers.size();) {
      const auto comma = std::min(controllers.find(',', at), controllers.size());
      if (controllers.substr(at, comma - at) == "memory") memory = true;
      at = comma + 1;
    }
    if (!v2 && !memory) continue;
    const std::filesystem::path mount = v2 ? root : root / "memory";
    std::filesystem::path relative = std::filesystem::path(line.substr(second + 1)).relative_path();
    // The cgroup and each ancestor up to the mount's root (a limit on a parent binds too).
    for (;;) {
      consider(leftIn(mount / relative, v2));
      if (relative.empty()) break;
      relative = relative.parent_path();
    }
  }
  return least;
}

std::optional<std::uint64_t> rlimitAvailableBytes() {
  std::optional<std::uint64_t> least;
  const auto consider = [&](int resource, std::string_view usedField) {
    struct rlimit limit {};
    if (::getrlimit(resource, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY) return;
    const std::uint64_t used = statusKib(usedField) * 1024;
    const std::uint64_t left = limit.rlim_cur > used ? limit.rlim_cur - used : 0;
    if (!least || left < *least) least = left;
  };
  consider(RLIMIT_AS, "VmSize");
  consider(RLIMIT_DATA, "VmData");
  return least;
}

}  // namespace detail

std::uint64_t availableHostMemoryBytes() {
  // Pinned blocks kept for reuse (PinnedBlockPool.h) go back to the system when memory is short.
  std::uint64_t available = memAvailableBytes() + pinnedBytesKeptForReuse();
  for (const std::optional<std::uint64_t> limit :
       {detail::cgroupAvailableBytes(readAll("/proc/self/cgroup"), "/sys/fs/cgroup"),
        detail::rlimitAvailableBytes()})
    if (limit && (available == 0 || *limit < available))
      available = std::max<std::uint64_t>(*limit, 1);
  return available;
}

namespace {

// Why `bytes` of memory cannot be allocated for `what` (none: they can, or nothing is known).
std::optional<std::string> hostAllocationProblem(std::uint64_t bytes, std::string_view what,
                                                 const std::optional<std::uint64_t>& rlimit) {
  const std::uint64_t host = memAvailableBytes();
  const std::optional<std::uint64_t> cgroup =
      detail::cgroupAvailableBytes(readAll("/proc/self/cgroup"), "/sys/fs/cgroup");
  std::uint64_t available = host;
  std::string source = "of host memory";
  if (cgroup && (available == 0 || *cgroup < available)) {
    available = *cgroup;
    source = "under this process's memory cgroup limit";
  }
  if (rlimit && (available == 0 || *rlimit < available)) {
    available = *rlimit;
    source = "under this process's address-space limit (ulimit -v / -d)";
  }
  if (available == 0 && !cgroup && !rlimit) return std::nullopt;  // unknown: the allocator decides
  const std::uint64_t usable = available - available / 4;
  if (bytes <= usable) return std::nullopt;
  return "cannot allocate " + formatBytes(bytes) + " for " + std::string(what) + ": only " +
         formatBytes(usable) + " " + source + " can be used (" + formatBytes(available) +
         " available)";
}

}  // namespace

void checkHostAllocation(std::uint64_t bytes, std::string_view what) {
  const std::optional<std::uint64_t> rlimit = detail::rlimitAvailableBytes();
  // A block that goes to a file (out of core) takes address space, not memory.
  if (bytes <= std::numeric_limits<std::size_t>::max() &&
      hostBufferGoesToFile(static_cast<std::size_t>(bytes))) {
    if (rlimit && bytes > *rlimit)
      throw OutOfMemoryError("cannot map " + formatBytes(bytes) + " for " + std::string(what) +
                             ": only " + formatBytes(*rlimit) +
                             " of address space are left under this process's limit (ulimit -v)");
    return;
  }
  std::optional<std::string> problem = hostAllocationProblem(bytes, what, rlimit);
  if (problem && pinnedBytesKeptForReuse() > 0) {
    releaseKeptPinnedBlocks();  // what the pool keeps goes first; then the check again, once
    problem = hostAllocationProblem(bytes, what, rlimit);
  }
  if (problem) throw OutOfMemoryError(*problem);
}

void throwAllocationFailed(std::uint64_t bytes, std::string_view what) {
  const std::uint64_t available = availableHostMemoryBytes();
  throw OutOfMemoryError("cannot allocate " + formatBytes(bytes) + " for " + std::string(what) +
                         ": the allocator refused (" +
                         (available > 0 ? formatBytes(available) + " reported available"
                                        : std::string("available memory unknown")) +
                         "; a memory or address-space limit, or other processes, took the rest)");
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
