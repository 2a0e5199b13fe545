// Device discovery and a self-test kernel (see GpuDevices.h).
#include <dlfcn.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <mutex>
#include <optional>
#include <system_error>
#include <thread>
#include <vector>

#include "recon/device/CudaCheck.h"
#include "recon/device/GpuDevices.h"

namespace tomowb::cuda {

namespace {
__global__ void multiplyAdd(const float* x, float* y, float a, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

// Frees on scope exit, so an early throw leaks nothing.
struct DeviceArray {
  float* data = nullptr;
  explicit DeviceArray(std::size_t n) {
    TOMOWB_CUDA_CHECK(cudaMalloc(&data, n * sizeof(float)), "self-test allocation");
  }
  ~DeviceArray() { cudaFree(data); }
  DeviceArray(const DeviceArray&) = delete;
  DeviceArray& operator=(const DeviceArray&) = delete;
};

// Free device memory through NVML, which the driver ships beside libcuda (nvidia-smi uses it):
// unlike cudaMemGetInfo it needs no CUDA context, so listing the GPUs creates none. A context
// costs each process 0.1 to 0.3 s and about 500 MB on every GPU it touches; listing used to make
// one on every GPU of the machine, in the window at start-up and in every MPI rank, where two
// ranks then shared both GPUs instead of one each (issue #22). Loaded with dlopen, so a machine
// without the driver (CI) runs the same binary. The few declarations are NVML's stable C ABI.
class NvmlMemoryQuery {
 public:
  NvmlMemoryQuery() {
    library_ = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (library_ == nullptr) return;
    init_ = reinterpret_cast<Status (*)()>(dlsym(library_, "nvmlInit_v2"));
    shutdown_ = reinterpret_cast<Status (*)()>(dlsym(library_, "nvmlShutdown"));
    byBusId_ = reinterpret_cast<Status (*)(const char*, Handle*)>(
        dlsym(library_, "nvmlDeviceGetHandleByPciBusId_v2"));
    memory_ =
        reinterpret_cast<Status (*)(Handle, Memory*)>(dlsym(library_, "nvmlDeviceGetMemoryInfo"));
    ready_ = init_ != nullptr && shutdown_ != nullptr && byBusId_ != nullptr &&
             memory_ != nullptr && init_() == 0;
  }
  ~NvmlMemoryQuery() {
    if (ready_) shutdown_();
    if (library_ != nullptr) dlclose(library_);
  }
  NvmlMemoryQuery(const NvmlMemoryQuery&) = delete;
  NvmlMemoryQuery& operator=(const NvmlMemoryQuery&) = delete;

  // Free bytes of the GPU at this PCI address, or nothing when NVML cannot tell.
  std::optional<std::uint64_t> freeBytes(const cudaDeviceProp& prop) const {
    if (!ready_) return std::nullopt;
    char busId[32];
    std::snprintf(busId, sizeof busId, "%08x:%02x:%02x.0", static_cast<unsigned>(prop.pciDomainID),
                  static_cast<unsigned>(prop.pciBusID), static_cast<unsigned>(prop.pciDeviceID));
    Handle handle = nullptr;
    Memory memory{};
    if (byBusId_(busId, &handle) != 0 || memory_(handle, &memory) != 0) return std::nullopt;
    return memory.free;
  }

 private:
  using Status = int;  // nvmlReturn_t: 0 is NVML_SUCCESS
  using Handle = void*;
  struct Memory {
    unsigned long long total, free, used;  // NOLINT(google-runtime-int): NVML's nvmlMemory_t
  };
  void* library_ = nullptr;
  Status (*init_)() = nullptr;
  Status (*shutdown_)() = nullptr;
  Status (*byBusId_)(const char*, Handle*) = nullptr;
  Status (*memory_)(Handle, Memory*) = nullptr;
  bool ready_ = false;
};

// Without NVML: cudaMemGetInfo in each device's context (which creates it), then the calling
// thread's device as it was.
std::optional<std::uint64_t> freeBytesThroughContext(int index) {
  int current = 0;
  const bool haveCurrent = cudaGetDevice(&current) == cudaSuccess;
  std::size_t freeBytes = 0, totalBytes = 0;
  const bool ok =
      cudaSetDevice(index) == cudaSuccess && cudaMemGetInfo(&freeBytes, &totalBytes) == cudaSuccess;
  if (haveCurrent) cudaSetDevice(current);
  cudaGetLastError();
  return ok ? std::optional<std::uint64_t>(freeBytes) : std::nullopt;
}
}  // namespace

std::vector<GpuDevice> listGpuDevices() {
  std::vector<GpuDevice> devices;
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    cudaGetLastError();  // clear the sticky error of a missing driver
    return devices;
  }
  // Loaded and initialised once per process: nvmlInit costs about 50 ms, which every GPU FDK
  // paid in its set-up while each listing loaded NVML anew (0.055 s of a 0.14 s 512^3 run).
  static const NvmlMemoryQuery nvml;
  for (int i = 0; i < count; ++i) {
    cudaDeviceProp prop{};
    if (cudaGetDeviceProperties(&prop, i) != cudaSuccess) continue;
    GpuDevice d;
    d.index = i;
    d.name = prop.name;
    d.computeMajor = prop.major;
    d.computeMinor = prop.minor;
    d.multiprocessors = prop.multiProcessorCount;
    d.totalMemoryBytes = prop.totalGlobalMem;
    std::optional<std::uint64_t> freeBytes = nvml.freeBytes(prop);
    if (!freeBytes) freeBytes = freeBytesThroughContext(i);
    d.freeMemoryBytes = freeBytes.value_or(0);
    devices.push_back(d);
  }
  return devices;
}

std::string gpuStatus() {
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess) {
    cudaGetLastError();
    return cudaGetErrorString(status);
  }
  if (count == 0) return "no CUDA-capable device";
  int runtime = 0, driver = 0;
  cudaRuntimeGetVersion(&runtime);
  cudaDriverGetVersion(&driver);
  return std::to_string(count) + " device(s), CUDA runtime " + std::to_string(runtime / 1000) +
         "." + std::to_string(runtime % 1000 / 10) + ", driver " + std::to_string(driver / 1000) +
         "." + std::to_string(driver % 1000 / 10);
}

void runDeviceSelfTest(int index) {
  TOMOWB_CUDA_CHECK(cudaSetDevice(index), "self-test device selection");
  constexpr int kCount = 1 << 20;
  std::vector<float> x(kCount), y(kCount);
  for (int i = 0; i < kCount; ++i) {
    x[i] = 0.001f * static_cast<float>(i % 1000);
    y[i] = 1.0f + static_cast<float>(i % 7);
  }
  DeviceArray dx(kCount), dy(kCount);
  TOMOWB_CUDA_CHECK(cudaMemcpy(dx.data, x.data(), kCount * sizeof(float), cudaMemcpyHostToDevice),
                    "self-test upload");
  TOMOWB_CUDA_CHECK(cudaMemcpy(dy.data, y.data(), kCount * sizeof(float), cudaMemcpyHostToDevice),
                    "self-test upload");
  multiplyAdd<<<(kCount + 255) / 256, 256>>>(dx.data, dy.data, 3.0f, kCount);
  TOMOWB_CUDA_CHECK(cudaGetLastError(), "self-test launch");
  std::vector<float> out(kCount);
  TOMOWB_CUDA_CHECK(cudaMemcpy(out.data(), dy.data, kCount * sizeof(float), cudaMemcpyDeviceToHost),
                    "self-test download");
  for (int i = 0; i < kCount; ++i)
    if (std::abs(out[i] - (3.0f * x[i] + y[i])) > 1e-5f)
      throw CudaError("self-test: element " + std::to_string(i) + " is wrong on device " +
                      std::to_string(index));
}

namespace {
// The warm-up threads, joined when the process exits (static destruction runs before the CUDA
// runtime's own teardown, so no thread is inside the driver when it goes).
class WarmUpThreads {
 public:
  ~WarmUpThreads() {
    std::lock_guard lock(mutex_);
    for (std::thread& t : threads_)
      if (t.joinable()) t.join();
  }
  void add(std::thread t) {
    std::lock_guard lock(mutex_);
    threads_.push_back(std::move(t));
  }

 private:
  std::mutex mutex_;
  std::vector<std::thread> threads_;
};
}  // namespace

void warmUpGpuContexts(const std::vector<int>& devices) {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    cudaGetLastError();
    return;
  }
  std::vector<int> which = devices;
  if (which.empty())
    for (int i = 0; i < count; ++i) which.push_back(i);
  static WarmUpThreads threads;
  for (const int device : which) {
    if (device < 0 || device >= count) continue;
    try {
      threads.add(std::thread([device] {
        // cudaFree(nullptr) is the documented way to make the primary context current.
        if (cudaSetDevice(device) != cudaSuccess || cudaFree(nullptr) != cudaSuccess)
          cudaGetLastError();
      }));
    } catch (const std::system_error&) {  // no thread: the run makes the context itself
    }
  }
}

}  // namespace tomowb::cuda
