// NVML through dlopen with hand-declared entry points (their C signatures are those of nvml.h;
// NVML keeps them stable across driver versions, and the _v2 names are the ones current drivers
// export), and host memory from /proc.
#include "recon/job/GpuMonitor.h"

#include <dlfcn.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <string_view>

namespace tomowb {
namespace {

// The subset of nvml.h we use. Return codes: 0 = NVML_SUCCESS.
using NvmlReturn = int;
using NvmlDevice = struct NvmlDeviceOpaque*;
struct NvmlUtilization {
  unsigned gpu;
  unsigned memory;
};
struct NvmlMemory {
  unsigned long long total;
  unsigned long long free;
  unsigned long long used;
};
constexpr NvmlReturn kNvmlSuccess = 0;
constexpr int kNvmlClockSm = 1;           // NVML_CLOCK_SM
constexpr int kNvmlClockMem = 2;          // NVML_CLOCK_MEM
constexpr int kNvmlTemperatureGpu = 0;    // NVML_TEMPERATURE_GPU
constexpr unsigned kNvmlNameLength = 96;  // NVML_DEVICE_NAME_V2_BUFFER_SIZE

template <typename Function>
Function symbol(void* library, const char* name) {
  return reinterpret_cast<Function>(dlsym(library, name));
}

// Reads "Key:   123 kB" from /proc/meminfo, in bytes; 0 if absent.
std::uint64_t meminfoBytes(const std::string& text, std::string_view key) {
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.size() > key.size() && line.compare(0, key.size(), key) == 0 &&
        line[key.size()] == ':') {
      std::istringstream fields(line.substr(key.size() + 1));
      std::uint64_t kib = 0;
      fields >> kib;
      return kib * 1024;
    }
  }
  return 0;
}

}  // namespace

struct GpuMonitor::Nvml {
  void* library = nullptr;
  NvmlReturn (*init)() = nullptr;
  NvmlReturn (*shutdown)() = nullptr;
  const char* (*errorString)(NvmlReturn) = nullptr;
  NvmlReturn (*getCount)(unsigned*) = nullptr;
  NvmlReturn (*getHandleByIndex)(unsigned, NvmlDevice*) = nullptr;
  NvmlReturn (*getName)(NvmlDevice, char*, unsigned) = nullptr;
  NvmlReturn (*getUtilization)(NvmlDevice, NvmlUtilization*) = nullptr;
  NvmlReturn (*getMemoryInfo)(NvmlDevice, NvmlMemory*) = nullptr;
  NvmlReturn (*getClockInfo)(NvmlDevice, int, unsigned*) = nullptr;
  NvmlReturn (*getPowerUsage)(NvmlDevice, unsigned*) = nullptr;  // milliwatts
  NvmlReturn (*getTemperature)(NvmlDevice, int, unsigned*) = nullptr;

  std::string describe(NvmlReturn code) const {
    const char* text = errorString ? errorString(code) : nullptr;
    return text ? std::string(text) : "NVML error " + std::to_string(code);
  }
};

GpuMonitor::GpuMonitor(const std::string& library) {
  auto nvml = std::make_unique<Nvml>();
  dlerror();
  nvml->library = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!nvml->library) {
    const char* error = dlerror();
    reason_ = (error ? std::string(error) : library + ": cannot be loaded") +
              " (no NVIDIA driver on this machine?)";
    return;
  }
  void* lib = nvml->library;
  using InitFn = NvmlReturn (*)();
  nvml->init = symbol<InitFn>(lib, "nvmlInit_v2");
  nvml->shutdown = symbol<InitFn>(lib, "nvmlShutdown");
  nvml->errorString = symbol<const char* (*)(NvmlReturn)>(lib, "nvmlErrorString");
  nvml->getCount = symbol<decltype(Nvml::getCount)>(lib, "nvmlDeviceGetCount_v2");
  nvml->getHandleByIndex =
      symbol<decltype(Nvml::getHandleByIndex)>(lib, "nvmlDeviceGetHandleByIndex_v2");
  nvml->getName = symbol<decltype(Nvml::getName)>(lib, "nvmlDeviceGetName");
  nvml->getUtilization =
      symbol<decltype(Nvml::getUtilization)>(lib, "nvmlDeviceGetUtilizationRates");
  nvml->getMemoryInfo = symbol<decltype(Nvml::getMemoryInfo)>(lib, "nvmlDeviceGetMemoryInfo");
  nvml->getClockInfo = symbol<decltype(Nvml::getClockInfo)>(lib, "nvmlDeviceGetClockInfo");
  nvml->getPowerUsage = symbol<decltype(Nvml::getPowerUsage)>(lib, "nvmlDeviceGetPowerUsage");
  nvml->getTemperature = symbol<decltype(Nvml::getTemperature)>(lib, "nvmlDeviceGetTemperature");
  // The optional readings may be missing in an odd library; these five may not.
  const std::pair<bool, const char*> required[] = {
      {nvml->init != nullptr, "nvmlInit_v2"},
      {nvml->shutdown != nullptr, "nvmlShutdown"},
      {nvml->getCount != nullptr, "nvmlDeviceGetCount_v2"},
      {nvml->getHandleByIndex != nullptr, "nvmlDeviceGetHandleByIndex_v2"},
      {nvml->getMemoryInfo != nullptr, "nvmlDeviceGetMemoryInfo"}};
  for (const auto& [present, name] : required) {
    if (!present) {
      reason_ = library + " has no " + name + " (NVML too old?)";
      dlclose(lib);
      return;
    }
  }
  if (const NvmlReturn code = nvml->init(); code != kNvmlSuccess) {
    reason_ = "nvmlInit_v2 failed: " + nvml->describe(code);
    dlclose(lib);
    return;
  }
  unsigned count = 0;
  if (const NvmlReturn code = nvml->getCount(&count); code != kNvmlSuccess) {
    reason_ = "nvmlDeviceGetCount_v2 failed: " + nvml->describe(code);
    nvml->shutdown();
    dlclose(lib);
    return;
  }
  if (count == 0) {
    reason_ = "NVML sees no GPU";
    nvml->shutdown();
    dlclose(lib);
    return;
  }
  deviceCount_ = static_cast<int>(count);
  nvml_ = std::move(nvml);
}

GpuMonitor::~GpuMonitor() {
  if (nvml_) {
    nvml_->shutdown();
    dlclose(nvml_->library);
  }
}

std::optional<GpuSample> GpuMonitor::sample(int device) const {
  if (!nvml_ || device < 0 || device >= deviceCount_) return std::nullopt;
  const Nvml& n = *nvml_;
  NvmlDevice handle = nullptr;
  if (n.getHandleByIndex(static_cast<unsigned>(device), &handle) != kNvmlSuccess) {
    return std::nullopt;
  }
  GpuSample s;
  s.device = device;
  NvmlMemory memory{};
  if (n.getMemoryInfo(handle, &memory) != kNvmlSuccess) return std::nullopt;
  s.memoryUsedBytes = memory.used;
  s.memoryTotalBytes = memory.total;
  char name[kNvmlNameLength] = {};
  if (n.getName && n.getName(handle, name, kNvmlNameLength) == kNvmlSuccess) {
    s.name = name;
  } else {
    s.name = "GPU " + std::to_string(device);
  }
  NvmlUtilization utilisation{};
  if (n.getUtilization && n.getUtilization(handle, &utilisation) == kNvmlSuccess) {
    s.gpuUtilisationPercent = utilisation.gpu;
    s.memoryUtilisationPercent = utilisation.memory;
  }
  unsigned value = 0;
  if (n.getClockInfo && n.getClockInfo(handle, kNvmlClockSm, &value) == kNvmlSuccess) {
    s.smClockMHz = value;
  }
  if (n.getClockInfo && n.getClockInfo(handle, kNvmlClockMem, &value) == kNvmlSuccess) {
    s.memoryClockMHz = value;
  }
  if (n.getPowerUsage && n.getPowerUsage(handle, &value) == kNvmlSuccess) {
    s.powerWatts = value / 1000.0;
  }
  if (n.getTemperature && n.getTemperature(handle, kNvmlTemperatureGpu, &value) == kNvmlSuccess) {
    s.temperatureCelsius = value;
  }
  return s;
}

HostMemorySample hostMemory() {
  HostMemorySample sample;
  std::ifstream statm("/proc/self/statm");
  std::uint64_t sizePages = 0, residentPages = 0;
  if (!(statm >> sizePages >> residentPages)) return sample;
  const long pageSize = sysconf(_SC_PAGESIZE);
  sample.processResidentBytes =
      residentPages * static_cast<std::uint64_t>(pageSize > 0 ? pageSize : 4096);
  std::ifstream meminfo("/proc/meminfo");
  std::ostringstream text;
  text << meminfo.rdbuf();
  sample.availableBytes = meminfoBytes(text.str(), "MemAvailable");
  sample.totalBytes = meminfoBytes(text.str(), "MemTotal");
  sample.valid = sample.totalBytes > 0;
  return sample;
}

}  // namespace tomowb
