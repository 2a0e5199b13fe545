// Probe (issue #22, point 6): can a slab's host volume be the output file's own pages? Maps a
// range of a fresh file MAP_SHARED, fills its pages (MADV_POPULATE_WRITE, T threads), pins them
// with cudaHostRegister and downloads into them from the GPU. Prints what each step took and
// whether the bytes reached the file. Build: nvcc -O2 -std=c++17 -Xcompiler -fopenmp
// -o file_pin_probe file_pin_probe.cu. Usage: file_pin_probe FILE MIB THREADS
#include <cuda_runtime.h>
#include <fcntl.h>
#include <omp.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

namespace {
using Clock = std::chrono::steady_clock;
double since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}
}  // namespace

int main(int argc, char** argv) {
  if (argc < 4) return 2;
  const char* path = argv[1];
  const size_t bytes = size_t(std::atoll(argv[2])) << 20;
  const int threads = std::atoi(argv[3]);
  cudaFree(nullptr);
  void* dev = nullptr;
  if (cudaMalloc(&dev, bytes) != cudaSuccess) return 1;
  cudaMemset(dev, 0x3f, bytes);
  cudaDeviceSynchronize();
  for (int run = 0; run < 3; ++run) {
    unlink(path);
    const int fd = open(path, O_RDWR | O_CREAT, 0644);
    auto t = Clock::now();
    if (ftruncate(fd, off_t(bytes)) != 0) std::perror("ftruncate");
    char* m = static_cast<char*>(mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0));
    if (m == MAP_FAILED) {
      std::perror("mmap");
      return 1;
    }
    const size_t piece = size_t{8} << 20;
    const long pieces = long((bytes + piece - 1) / piece);
    int populateFailures = 0;
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads) reduction(+ : populateFailures)
    for (long k = 0; k < pieces; ++k) {
      const size_t at = size_t(k) * piece;
      if (madvise(m + at, std::min(piece, bytes - at), MADV_POPULATE_WRITE) != 0)
        ++populateFailures;
    }
    const double populate = since(t);
    t = Clock::now();
    const cudaError_t reg = cudaHostRegister(m, bytes, cudaHostRegisterPortable);
    const double registerS = since(t);
    double copyS = -1;
    bool right = false;
    if (reg == cudaSuccess) {
      t = Clock::now();
      cudaMemcpy(m, dev, bytes, cudaMemcpyDeviceToHost);
      copyS = since(t);
      t = Clock::now();
      cudaHostUnregister(m);
    } else {
      cudaGetLastError();
    }
    const double unregisterS = since(t);
    t = Clock::now();
    msync(m, bytes, MS_SYNC);
    munmap(m, bytes);
    fdatasync(fd);
    const double syncS = since(t);
    std::vector<char> back(4096);
    pread(fd, back.data(), back.size(), off_t(bytes - 4096));
    right = std::all_of(back.begin(), back.end(), [](char c) { return c == 0x3f; });
    close(fd);
    std::printf(
        "%s %zu MiB %d threads: populate %.3f s (%d failed) register %.3f s (%s) D2H %.3f s "
        "unregister %.3f s msync+munmap+fdatasync %.3f s; file holds the GPU's bytes: %s\n",
        path, bytes >> 20, threads, populate, populateFailures, registerS, cudaGetErrorString(reg),
        copyS, unregisterS, syncS, right ? "yes" : "no");
  }
  unlink(path);
  return 0;
}
