// Probe (issue #22): where the time of a large pinned host volume goes on the GPU machine: the
// page faults of the zero fill with T threads, and cudaHostRegister of the whole block or of
// pieces from several threads at once. Build: nvcc -O2 -std=c++17 host_alloc_probe.cu
// `host_alloc_probe contexts`: the same 4 GiB block faulted in by 16 threads (memset, or one write
// per 2 MiB page) and registered (portable, or for the current context only) while one GPU has a
// context, then again after every GPU has one: what a two-GPU run's host volume costs.
// `host_alloc_probe pieces`: registration whole or in 64 MiB pieces (below).
#include <cuda_runtime.h>
#include <sys/mman.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

static double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

namespace {
double faultIn(char* p, size_t bytes, int threads, bool touchOnly) {
  const double t0 = now();
  std::vector<std::thread> w;
  const size_t chunk = bytes / threads;
  for (int i = 0; i < threads; ++i)
    w.emplace_back([=] {
      if (!touchOnly) {
        std::memset(p + i * chunk, 0, chunk);
        return;
      }
      for (size_t o = 0; o < chunk; o += size_t(2) << 20) p[i * chunk + o] = 0;
    });
  for (auto& t : w) t.join();
  return now() - t0;
}

void contextsProbe() {
  int devices = 0;
  cudaGetDeviceCount(&devices);
  const size_t bytes = size_t(4) << 30;
  for (int contexts : {1, devices}) {
    for (int d = 0; d < contexts; ++d) {
      cudaSetDevice(d);
      cudaFree(nullptr);
    }
    cudaSetDevice(0);
    for (bool touchOnly : {false, true})
      for (unsigned flags : {unsigned(cudaHostRegisterPortable), unsigned(cudaHostRegisterDefault)})
        for (int r = 0; r < 3; ++r) {
          char* p = static_cast<char*>(
              mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
          madvise(p, bytes, MADV_HUGEPAGE);
          const double fault = faultIn(p, bytes, 16, touchOnly);
          const double t0 = now();
          const bool ok = cudaHostRegister(p, bytes, flags) == cudaSuccess;
          const double reg = now() - t0;
          cudaHostUnregister(p);
          munmap(p, bytes);
          std::printf("contexts %d | %s 16 threads %.3f s | register %s %.3f s%s\n", contexts,
                      touchOnly ? "touch/2MiB" : "memset    ", fault,
                      flags == cudaHostRegisterPortable ? "portable" : "default ", reg,
                      ok ? "" : " FAILED");
        }
  }
}
}  // namespace

// `host_alloc_probe pieces`: a 4 GiB block registered whole or in pieces of 64 MiB (portable, as
// HostMemory does), then (1) the longest a cheap CUDA call of another thread (cudaEventQuery)
// waited while the registration ran (the driver lock the device threads of a run wait on), and
// (2) whether a download spanning every piece (one cudaMemcpyAsync, then a 2D copy with a pitch)
// succeeds and at what rate.
void piecesProbe() {
  const size_t bytes = size_t(4) << 30, piece = size_t(64) << 20;
  cudaSetDevice(0);
  cudaFree(nullptr);
  void* device = nullptr;
  cudaMalloc(&device, bytes);
  cudaStream_t stream;
  cudaStreamCreate(&stream);
  cudaEvent_t event;
  cudaEventCreate(&event);
  void* small = nullptr;
  cudaMallocHost(&small, 4096);
  cudaEventRecord(event, stream);
  for (const size_t chunk : {bytes, piece})
    for (int r = 0; r < 3; ++r) {
      char* p = static_cast<char*>(
          mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
      madvise(p, bytes, MADV_HUGEPAGE);
      faultIn(p, bytes, 16, true);
      // Another thread asks the driver something cheap, again and again, while this registers.
      std::atomic<bool> done{false};
      double longest = 0, longestRecord = 0, longestMemset = 0, longestCopy = 0;
      std::thread asker([&] {
        cudaSetDevice(0);
        while (!done) {
          double t0 = now();
          cudaEventQuery(event);
          longest = std::max(longest, now() - t0);
          t0 = now();
          cudaEventRecord(event, stream);
          longestRecord = std::max(longestRecord, now() - t0);
          t0 = now();
          cudaMemsetAsync(device, 0, 4096, stream);
          longestMemset = std::max(longestMemset, now() - t0);
          t0 = now();
          cudaMemcpyAsync(device, small, 4096, cudaMemcpyHostToDevice, stream);
          longestCopy = std::max(longestCopy, now() - t0);
          cudaStreamSynchronize(stream);
        }
      });
      const double t0 = now();
      bool ok = true;
      for (size_t o = 0; o < bytes; o += chunk)
        ok = ok && cudaHostRegister(p + o, chunk, cudaHostRegisterPortable) == cudaSuccess;
      const double reg = now() - t0;
      done = true;
      asker.join();
      double t1 = now();
      const cudaError_t e1 = cudaMemcpyAsync(p, device, bytes, cudaMemcpyDeviceToHost, stream);
      cudaStreamSynchronize(stream);
      const double flat = now() - t1;
      t1 = now();
      // 2D: 1024 rows of 4 MiB... as a slab's rows: width 2 MiB, pitch 4 MiB, 1024 rows.
      const cudaError_t e2 =
          cudaMemcpy2DAsync(p, size_t(4) << 20, device, size_t(4) << 20, size_t(2) << 20, 1024,
                            cudaMemcpyDeviceToHost, stream);
      cudaStreamSynchronize(stream);
      const double pitched = now() - t1;
      std::printf(
          "register 4 GiB in %4zu MiB pieces%s: %.3f s, longest call meanwhile: EventQuery %.4f, "
          "EventRecord %.4f, MemsetAsync %.4f, MemcpyAsync %.4f s | "
          "D2H 4 GiB across them: %s %.1f GB/s | 2D D2H 2 GiB: %s %.1f GB/s\n",
          chunk >> 20, ok ? "" : " (FAILED)", reg, longest, longestRecord, longestMemset,
          longestCopy, cudaGetErrorString(e1), double(bytes) / flat / 1e9, cudaGetErrorString(e2),
          double(bytes / 2) / pitched / 1e9);
      cudaGetLastError();
      for (size_t o = 0; o < bytes; o += chunk) cudaHostUnregister(p + o);
      munmap(p, bytes);
    }
  cudaFree(device);
}

int main(int argc, char** argv) {
  if (argc > 1 && std::string(argv[1]) == "contexts") {
    contextsProbe();
    return 0;
  }
  if (argc > 1 && std::string(argv[1]) == "pieces") {
    piecesProbe();
    return 0;
  }
  cudaFree(nullptr);
  const size_t bytes = size_t(4) << 30;
  for (int threads : {1, 8, 16, 32}) {
    for (int pieces : {1, 8, 32}) {
      char* p = static_cast<char*>(
          mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
      madvise(p, bytes, MADV_HUGEPAGE);
      double t0 = now();
      {
        std::vector<std::thread> w;
        const size_t chunk = bytes / threads;
        for (int i = 0; i < threads; ++i)
          w.emplace_back([=] { std::memset(p + i * chunk, 0, chunk); });
        for (auto& t : w) t.join();
      }
      double t1 = now();
      {
        std::vector<std::thread> w;
        const size_t chunk = bytes / pieces;
        for (int i = 0; i < pieces; ++i)
          w.emplace_back([=] { cudaHostRegister(p + i * chunk, chunk, cudaHostRegisterDefault); });
        for (auto& t : w) t.join();
      }
      double t2 = now();
      const size_t chunk = bytes / pieces;
      for (int i = 0; i < pieces; ++i) cudaHostUnregister(p + i * chunk);
      double t3 = now();
      munmap(p, bytes);
      double t4 = now();
      std::printf(
          "4 GiB: zero fill %2d threads %.3f s | register in %2d pieces %.3f s | "
          "unregister %.3f s | munmap %.3f s\n",
          threads, t1 - t0, pieces, t2 - t1, t3 - t2, t4 - t3);
    }
  }
  // A download of 4 GiB into pageable memory through the driver, first touch included.
  void* d = nullptr;
  cudaMalloc(&d, bytes);
  for (int r = 0; r < 2; ++r) {
    char* p = static_cast<char*>(
        mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
    madvise(p, bytes, MADV_HUGEPAGE);
    double t0 = now();
    cudaMemcpy(p, d, bytes, cudaMemcpyDeviceToHost);
    double t1 = now();
    cudaMemcpy(p, d, bytes, cudaMemcpyDeviceToHost);
    double t2 = now();
    std::printf("pageable D2H 4 GiB: first (fresh pages) %.3f s, again %.3f s\n", t1 - t0, t2 - t1);
    munmap(p, bytes);
  }
  return 0;
}
