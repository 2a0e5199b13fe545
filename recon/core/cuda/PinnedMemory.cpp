// HostMemory.h's pinning for CUDA builds: cudaHostRegister (portable, so every device's context
// copies from the range at full speed) when the runtime sees a device. A host C++ file: it
// includes cuda_runtime.h but holds no device code.
#include <cuda_runtime.h>

#include "recon/core/HostMemory.h"

namespace tomowb::detail {

namespace {

// Asked once per process (a thread-safe static): the first call initialises the CUDA driver,
// which takes about 0.2 s, and a missing driver leaves a sticky error to clear.
int cudaDeviceCount() noexcept {
  static const int devices = [] {
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess) {
      cudaGetLastError();
      return 0;
    }
    return count;
  }();
  return devices;
}

bool cudaDevicePresent() noexcept {
  return cudaDeviceCount() > 0;
}

}  // namespace

int visibleGpuCount() noexcept {
  return cudaDeviceCount();
}

bool pinHostRange(void* base, std::size_t bytes) noexcept {
  if (!cudaDevicePresent()) return false;
  if (cudaHostRegister(base, bytes, cudaHostRegisterPortable) == cudaSuccess) return true;
  // Pinning can fail (locked-memory limits, an old driver): the memory still works, only the
  // copies are slower.
  cudaGetLastError();
  return false;
}

void unpinHostRange(void* base) noexcept {
  // At process exit the runtime may already be unloaded; the OS reclaims everything then.
  if (cudaHostUnregister(base) != cudaSuccess) cudaGetLastError();
}

}  // namespace tomowb::detail
