// The CUDA devices this process can use, through a plain C++ header (no CUDA types), so the
// CLI, the GUI and the tests can ask without including cuda_runtime.h. In a build without CUDA
// (TOMOWB_HAVE_CUDA == 0) the list is always empty.
#pragma once

#include <cstddef>
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

// The one GPU that local rank `localRank` of `localRanks` processes sharing a machine should see,
// as a CUDA_VISIBLE_DEVICES value: entry (localRank mod n) of `visibleList` (CUDA_VISIBLE_DEVICES
// as the launcher left it: "0,1", or "GPU-uuid,..."; nullptr when unset, which stands for the
// `driverGpus` GPUs of the machine). Empty when there is nothing to choose: one local rank, or at
// most one GPU visible. The CLI applies it before its first CUDA call (cli/CliSupport.h).
inline std::string gpuForLocalRank(int localRank, int localRanks, const char* visibleList,
                                   std::size_t driverGpus) {
  if (localRanks <= 1 || localRank < 0) return {};
  std::vector<std::string> visible;
  if (visibleList != nullptr) {
    std::string entry;
    for (const char* c = visibleList;; ++c) {
      if (*c == ',' || *c == '\0') {
        if (!entry.empty()) visible.push_back(entry);
        entry.clear();
        if (*c == '\0') break;
      } else if (*c != ' ') {
        entry += *c;
      }
    }
  } else {
    for (std::size_t i = 0; i < driverGpus; ++i) visible.push_back(std::to_string(i));
  }
  if (visible.size() <= 1) return {};
  return visible[static_cast<std::size_t>(localRank) % visible.size()];
}

// Why the list is empty ("no CUDA-capable device", "CUDA driver version is insufficient", "built
// without CUDA"), or the runtime and driver versions when it is not.
std::string gpuStatus();

// Runs a small kernel on device `index` (a float multiply-add over 1M elements) and checks the
// result against the CPU: proves the build's device code runs on this GPU. Throws Error with the
// CUDA message on failure.
void runDeviceSelfTest(int index);

// Creates the CUDA context of each of `devices` (every visible GPU when empty; indices outside
// the list are skipped) now, one thread per GPU, and returns at once: a GPU run's first use of a
// device then finds its context made, which costs 0.1 to 0.3 s a GPU (0.24 to 0.28 s of a
// two-GPU FDK's set-up on the H100 machine, bench/results/2026-11-27w). The CLI calls it as soon
// as it knows a run goes to the GPUs, before it reads the input. Never throws; a failure leaves
// the context to the run, which reports it. The threads are joined before the process exits.
void warmUpGpuContexts(const std::vector<int>& devices);

}  // namespace tomowb::cuda
