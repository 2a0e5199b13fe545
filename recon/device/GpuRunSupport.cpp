#include "recon/device/GpuRunSupport.h"

#include <algorithm>
#include <stdexcept>

#include "recon/core/Error.h"
#include "recon/device/GpuDevices.h"

namespace tomowb::cuda {

std::vector<int> devicesToUse(const std::vector<int>& requested) {
  const std::vector<GpuDevice> all = listGpuDevices();
  if (all.empty()) throw ParameterError("GPU", "no usable GPU: " + gpuStatus());
  std::vector<int> out;
  if (requested.empty()) {
    for (const GpuDevice& d : all) out.push_back(d.index);
    return out;
  }
  for (int d : requested) {
    if (d < 0 || d >= int(all.size()))
      throw ParameterError("GPU", "device " + std::to_string(d) + " does not exist (" +
                                      std::to_string(all.size()) + " visible)");
    if (std::find(out.begin(), out.end(), d) == out.end()) out.push_back(d);
  }
  return out;
}

int tunableInt(const std::map<std::string, std::string>& tunables, const std::string& name,
               int fallback, int lo, int hi) {
  const auto it = tunables.find(name);
  if (it == tunables.end()) return fallback;
  try {
    std::size_t used = 0;
    const int value = std::stoi(it->second, &used);
    if (used != it->second.size() || value < lo || value > hi) throw std::invalid_argument("");
    return value;
  } catch (const std::exception&) {
    throw ParameterError("tunable " + name, "must be an integer in [" + std::to_string(lo) + ", " +
                                                std::to_string(hi) + "], got '" + it->second + "'");
  }
}

bool isOutOfMemory(const std::exception& e) {
  return std::string(e.what()).find("out of memory") != std::string::npos;
}

}  // namespace tomowb::cuda
