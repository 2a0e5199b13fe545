// Host memory checks before large allocations, so that a volume that cannot fit fails with a
// message saying what would fit instead of being killed by the kernel's OOM killer.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace tomowb {

// Bytes the OS reports as available (MemAvailable of /proc/meminfo; 0 if unknown).
std::uint64_t availableHostMemoryBytes();

// Throws OutOfMemoryError if `bytes` exceeds the available host memory (a quarter of it is kept
// back for the rest of the system). `what` names the allocation in the message.
void checkHostAllocation(std::uint64_t bytes, std::string_view what);

// "1.50 GiB", "12.0 MiB", "512 B".
std::string formatBytes(std::uint64_t bytes);

}  // namespace tomowb
