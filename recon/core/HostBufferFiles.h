// Between HostMemory.cpp and MemoryBudget.cpp: whether a block of `bytes` allocated on this
// thread now would go to a file (a FileBackedHostBuffers scope of core/HostMemory.h takes it), so
// that checkHostAllocation counts only the address space it takes, not memory.
#pragma once

#include <cstddef>

namespace tomowb {

bool hostBufferGoesToFile(std::size_t bytes) noexcept;

}  // namespace tomowb
