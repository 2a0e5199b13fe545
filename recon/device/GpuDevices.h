// The CUDA devices this process can use, through a plain C++ header (no CUDA types), so the
// CLI, the GUI and the tests can ask without including cuda_runtime.h. In a build without CUDA
// (TOMOWB_HAVE_CUDA == 0) the list is always empty.
#pragma once

#include <cstdint>
#include <string>
#include <tuple>
#include <vector>

namespace tomowb::cuda {

struct GpuDevice {
  int index = 0;
  std::string name;
  int computeMajor = 0, computeMinor = 0;
  int multiprocessors = 0;
  std::uint64_t totalMemoryBytes = 0;
  std::uint64_t freeMemoryBytes = 0;
};

// Never throws: no driver, no device or a broken runtime give an empty list.
std::vector<GpuDevice> listGpuDevices();

// The listGpuDevices() index of the GPU expected to run the kernels fastest: the most
// multiprocessors, then the newer architecture, then the most memory (the first listed on a
// tie); -1 for an empty list. The window's default device (issue #21, point 9).
inline int fastestGpu(const std::vector<GpuDevice>& gpus) {
  const GpuDevice* best = nullptr;
  for (const GpuDevice& g : gpus) {
    const auto key = [](const GpuDevice& d) {
      return std::make_tuple(d.multiprocessors, d.computeMajor, d.computeMinor, d.totalMemoryBytes);
    };
    if (best == nullptr || key(g) > key(*best)) best = &g;
  }
  return best != nullptr ? best->index : -1;
}

// Why the list is empty ("no CUDA-capable device", "CUDA driver version is insufficient", "built
// without CUDA"), or the runtime and driver versions when it is not.
std::string gpuStatus();

// Runs a small kernel on device `index` (a float multiply-add over 1M elements) and checks the
// result against the CPU: proves the build's device code runs on this GPU. Throws Error with the
// CUDA message on failure.
void runDeviceSelfTest(int index);

}  // namespace tomowb::cuda
