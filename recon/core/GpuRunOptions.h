// How a GPU run goes: the CLI's --gpu-mem-limit and --gpus, the window's device choice, and the
// variants' tunables by name (KernelVariant::tunables lists them with their defaults). Every
// layer that binds GPU work (projector pairs, FDK, the solvers) takes it.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace tomowb {

struct GpuRunOptions {
  std::uint64_t memoryLimitBytes = 0;  // 0: the device's free memory; else at most this much
  std::vector<int> devices;            // CUDA device indices; empty: every visible GPU
  std::map<std::string, std::string> tunables;
};

}  // namespace tomowb
