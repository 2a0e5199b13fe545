// Probe (issue #22, point 1): pinned host memory from CUDA's virtual memory management instead
// of cudaHostRegister. A 4 GiB range is reserved once and backed by 64 MiB host allocations
// (cuMemCreate with CU_MEM_LOCATION_TYPE_HOST, cuMemMap, cuMemSetAccess), one piece at a time.
// Measured: the time, the longest cudaEventRecord of another thread meanwhile (a whole
// cudaHostRegister holds it for its 0.11 s: 2026-11-27r), whether the CPU can write and read it
// (and whether it comes zeroed), and whether one download spanning every piece succeeds, at what
// rate. Build: nvcc -O2 -std=c++17 vmm_host_probe.cu -lcuda
#include <cuda.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <thread>
#include <vector>

static double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

#define CHECK(call)                                         \
  do {                                                      \
    CUresult r_ = (call);                                   \
    if (r_ != CUDA_SUCCESS) {                               \
      const char* s_ = nullptr;                             \
      cuGetErrorString(r_, &s_);                            \
      std::printf("FAILED %s: %s\n", #call, s_ ? s_ : "?"); \
      return 1;                                             \
    }                                                       \
  } while (0)

int main() {
  cudaSetDevice(0);
  cudaFree(nullptr);
  int devices = 0;
  cudaGetDeviceCount(&devices);
  const size_t bytes = size_t(4) << 30;
  CUmemAllocationProp prop{};
  prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  prop.location.type = CU_MEM_LOCATION_TYPE_HOST;
  prop.location.id = 0;
  size_t granularity = 0;
  CHECK(cuMemGetAllocationGranularity(&granularity, &prop, CU_MEM_ALLOC_GRANULARITY_RECOMMENDED));
  std::printf("host granularity %zu bytes, %d GPUs\n", granularity, devices);
  void* device = nullptr;
  cudaMalloc(&device, bytes);
  cudaMemset(device, 1, bytes);
  cudaStream_t stream;
  cudaStreamCreate(&stream);
  cudaEvent_t event;
  cudaEventCreate(&event);
  for (const size_t piece : {size_t(64) << 20, size_t(512) << 20, bytes}) {
    for (int r = 0; r < 3; ++r) {
      std::atomic<bool> done{false};
      double longest = 0;
      std::thread asker([&] {
        cudaSetDevice(0);
        while (!done) {
          const double t0 = now();
          cudaEventRecord(event, stream);
          longest = std::max(longest, now() - t0);
          cudaStreamSynchronize(stream);
        }
      });
      const double t0 = now();
      CUdeviceptr base = 0;
      CHECK(cuMemAddressReserve(&base, bytes, size_t(2) << 20, 0, 0));
      std::vector<CUmemAccessDesc> access(size_t(devices) + 1);
      for (int d = 0; d < devices; ++d) {
        access[size_t(d)].location.type = CU_MEM_LOCATION_TYPE_DEVICE;
        access[size_t(d)].location.id = d;
        access[size_t(d)].flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
      }
      access[size_t(devices)].location.type = CU_MEM_LOCATION_TYPE_HOST;
      access[size_t(devices)].location.id = 0;
      access[size_t(devices)].flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
      for (size_t o = 0; o < bytes; o += piece) {
        CUmemGenericAllocationHandle handle;
        CHECK(cuMemCreate(&handle, piece, &prop, 0));
        CHECK(cuMemMap(base + o, piece, 0, handle, 0));
        CHECK(cuMemRelease(handle));
        CHECK(cuMemSetAccess(base + o, piece, access.data(), access.size()));
      }
      const double alloc = now() - t0;
      done = true;
      asker.join();
      char* p = reinterpret_cast<char*>(base);
      // Zeroed? (sample every 2 MiB), then the CPU writes every page.
      double t1 = now();
      bool zero = true;
      for (size_t o = 0; o < bytes; o += size_t(2) << 20) zero = zero && p[o] == 0;
      for (size_t o = 0; o < bytes; o += 4096) p[o] = 7;
      const double touch = now() - t1;
      t1 = now();
      const cudaError_t e1 = cudaMemcpyAsync(p, device, bytes, cudaMemcpyDeviceToHost, stream);
      cudaStreamSynchronize(stream);
      const double flat = now() - t1;
      const bool landed = p[12345] == 1 && p[bytes - 1] == 1;
      t1 = now();
      const cudaError_t e2 =
          cudaMemcpy2DAsync(p, size_t(4) << 20, device, size_t(4) << 20, size_t(2) << 20, 1024,
                            cudaMemcpyDeviceToHost, stream);
      cudaStreamSynchronize(stream);
      const double pitched = now() - t1;
      t1 = now();
      CHECK(cuMemUnmap(base, bytes));
      CHECK(cuMemAddressFree(base, bytes));
      const double freed = now() - t1;
      std::printf(
          "%4zu MiB pieces: allocate+map %.3f s, longest cudaEventRecord meanwhile %.4f s, zeroed "
          "%s, CPU touch %.3f s | D2H 4 GiB: %s %.1f GB/s (data %s) | 2D D2H 2 GiB: %s %.1f "
          "GB/s | free %.3f s\n",
          piece >> 20, alloc, longest, zero ? "yes" : "NO", touch, cudaGetErrorString(e1),
          double(bytes) / flat / 1e9, landed ? "ok" : "WRONG", cudaGetErrorString(e2),
          double(bytes / 2) / pitched / 1e9, freed);
      cudaGetLastError();
    }
  }
  return 0;
}
