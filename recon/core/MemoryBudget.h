// Host memory checks before large allocations, so that a volume that cannot fit fails with a
// message saying what would fit instead of being killed by the kernel's OOM killer.
#pragma once

#include <cstdint>
#include <filesystem>
#include <new>
#include <optional>
#include <string>
#include <string_view>

namespace tomowb {

// Bytes this process can still allocate: the least of MemAvailable (/proc/meminfo), what its
// memory cgroups leave (cgroupAvailableBytes) and what its RLIMIT_AS / RLIMIT_DATA leave
// (rlimitAvailableBytes); 0 if none of them is known.
std::uint64_t availableHostMemoryBytes();

namespace detail {
// The smallest (limit - usage) of the memory cgroup named in `procSelfCgroup` (the text of
// /proc/self/cgroup) and of its ancestors under `root` (/sys/fs/cgroup): v2 memory.max and
// memory.current, v1 memory/memory.limit_in_bytes and memory.usage_in_bytes; reclaimable page
// cache (inactive_file of memory.stat) counts as free. nullopt when no limit applies (a v1
// limit of 2^60 bytes or more means none). A container that mounts its own cgroup as the root
// is found too (the root folder itself is read last).
std::optional<std::uint64_t> cgroupAvailableBytes(std::string_view procSelfCgroup,
                                                  const std::filesystem::path& root);
// RLIMIT_AS minus the address space in use (VmSize), RLIMIT_DATA minus VmData; nullopt when
// both are unlimited.
std::optional<std::uint64_t> rlimitAvailableBytes();
}  // namespace detail

// Throws OutOfMemoryError if `bytes` exceeds the available host memory (a quarter of it is kept
// back for the rest of the system). `what` names the allocation in the message, which gives
// the sizes and which limit applied (host, cgroup, rlimit).
void checkHostAllocation(std::uint64_t bytes, std::string_view what);

// Runs allocate() (a resize of a large buffer); a std::bad_alloc from it (a limit the check above
// could not see, or memory taken meanwhile) becomes an OutOfMemoryError with the size and `what`.
template <typename Allocate>
void allocateOrExplain(std::uint64_t bytes, std::string_view what, Allocate&& allocate);

// "1.50 GiB", "12.0 MiB", "512 B".
std::string formatBytes(std::uint64_t bytes);

[[noreturn]] void throwAllocationFailed(std::uint64_t bytes, std::string_view what);

template <typename Allocate>
void allocateOrExplain(std::uint64_t bytes, std::string_view what, Allocate&& allocate) {
  try {
    allocate();
  } catch (const std::bad_alloc&) {
    throwAllocationFailed(bytes, what);
  }
}

}  // namespace tomowb
