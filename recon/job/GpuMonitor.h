// GpuMonitor: the live figures the throughput panel and the CLI show next to GUPS (DESIGN.md,
// "Telemetry"): per GPU its memory in use, utilisation, clocks, power and temperature from NVML,
// and for the host this process's resident memory and the memory still available. NVML has no
// headers or stub library on the build machines (reference/dependencies.md, section 7), so it is
// loaded at run time with dlopen("libnvidia-ml.so.1"), which the NVIDIA driver installs, through
// a few hand-declared functions; without a driver available() is false and unavailableReason()
// says why. No CUDA, no Qt.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

namespace tomowb {

// One reading of one GPU. Figures the device does not report (NVML_ERROR_NOT_SUPPORTED, e.g.
// power on some boards) are empty.
struct GpuSample {
  int device = 0;
  std::string name;  // "NVIDIA H100 80GB HBM3"
  // By every process on the device, as nvmlDeviceGetMemoryInfo (v1) counts it: that includes
  // the driver's reserve (480 MiB on an idle H100 80GB, where nvidia-smi shows 0 MiB; 2026-11-23).
  std::uint64_t memoryUsedBytes = 0;
  std::uint64_t memoryTotalBytes = 0;
  std::optional<unsigned> gpuUtilisationPercent;     // kernels running, over the last sample period
  std::optional<unsigned> memoryUtilisationPercent;  // memory reads/writes, same period
  std::optional<unsigned> smClockMHz;
  std::optional<unsigned> memoryClockMHz;
  std::optional<double> powerWatts;
  std::optional<unsigned> temperatureCelsius;
};

struct HostMemorySample {
  std::uint64_t processResidentBytes = 0;  // this process (/proc/self/statm, resident pages)
  std::uint64_t availableBytes = 0;        // MemAvailable of /proc/meminfo
  std::uint64_t totalBytes = 0;            // MemTotal of /proc/meminfo
  bool valid = false;                      // false where /proc cannot be read
};

// This process's resident memory and the machine's available memory. Cheap (two small reads).
HostMemorySample hostMemory();

class GpuMonitor {
 public:
  // Loads NVML and calls nvmlInit_v2; failures leave the monitor unavailable, never throw.
  // `library` is for tests (a missing name shows the unavailable path on any machine).
  explicit GpuMonitor(const std::string& library = "libnvidia-ml.so.1");
  ~GpuMonitor();  // nvmlShutdown, dlclose
  GpuMonitor(const GpuMonitor&) = delete;
  GpuMonitor& operator=(const GpuMonitor&) = delete;

  bool available() const noexcept { return nvml_ != nullptr; }
  // Empty when available(); otherwise e.g. "libnvidia-ml.so.1: cannot open shared object file:
  // No such file or directory (no NVIDIA driver?)".
  const std::string& unavailableReason() const noexcept { return reason_; }
  int deviceCount() const noexcept { return deviceCount_; }

  // Reads device `device` (0-based NVML index). Empty when NVML is unavailable, the index is out
  // of range, or the device does not answer its name and memory. Thread-safe (NVML is).
  std::optional<GpuSample> sample(int device) const;

 private:
  struct Nvml;
  std::unique_ptr<Nvml> nvml_;
  std::string reason_;
  int deviceCount_ = 0;
};

}  // namespace tomowb
