// Device discovery and a self-test kernel (see GpuDevices.h).
#include <cmath>
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
}  // namespace

std::vector<GpuDevice> listGpuDevices() {
  std::vector<GpuDevice> devices;
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    cudaGetLastError();  // clear the sticky error of a missing driver
    return devices;
  }
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
    std::size_t freeBytes = 0, totalBytes = 0;
    if (cudaSetDevice(i) == cudaSuccess && cudaMemGetInfo(&freeBytes, &totalBytes) == cudaSuccess)
      d.freeMemoryBytes = freeBytes;
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

}  // namespace tomowb::cuda
