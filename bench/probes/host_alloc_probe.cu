// Probe (issue #22): where the time of a large pinned host volume goes on the GPU machine: the
// page faults of the zero fill with T threads, and cudaHostRegister of the whole block or of
// pieces from several threads at once. Build: nvcc -O2 -std=c++17 host_alloc_probe.cu
#include <cuda_runtime.h>
#include <sys/mman.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <thread>
#include <vector>

static double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

int main() {
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
