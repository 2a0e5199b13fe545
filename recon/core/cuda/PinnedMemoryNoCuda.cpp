// HostMemory.h's pinning for builds without CUDA: nothing to pin for, so buffers stay ordinary.
#include "recon/core/HostMemory.h"

namespace tomowb::detail {

bool pinHostRange(void* /*base*/, std::size_t /*bytes*/) noexcept {
  return false;
}

void unpinHostRange(void* /*base*/) noexcept {}

int visibleGpuCount() noexcept {
  return 0;
}

}  // namespace tomowb::detail
