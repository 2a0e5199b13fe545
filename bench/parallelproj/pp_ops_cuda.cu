// pp_ops_cuda.cu — pp_ops.h on the GPU: device memory, our kernels on the legacy default stream
// (parallelproj's CUDA library launches its kernels there too and synchronises the device at the
// end of every call), CUDA events as clocks.
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "pp_ops.h"

namespace ppbench::ops {

namespace {

void check(cudaError_t err, const char* what) {
  if (err != cudaSuccess) {
    std::fprintf(stderr, "pp_lm_bench: CUDA error in %s: %s (%s)\n", what, cudaGetErrorString(err),
                 cudaGetErrorName(err));
    std::exit(2);
  }
}

constexpr int kThreads = 256;

unsigned blocksFor(std::size_t n) {
  return static_cast<unsigned>((n + kThreads - 1) / kThreads);
}

std::vector<cudaEvent_t>& events() {
  static std::vector<cudaEvent_t> e;
  return e;
}
std::size_t usedMarks = 0;

__global__ void convertKernel(EventTables t, const RawEvent* events, std::size_t count,
                              float* start, float* end, short* bins, float* inverseAttenuation) {
  const std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= count) return;
  convertEvent(t, events[i], start + 3 * i, end + 3 * i, bins + i,
               inverseAttenuation ? inverseAttenuation + i : nullptr);
}

__global__ void sensitivityKernel(SensitivityTables t, const RingPairRun* runs, float* start,
                                  float* end, float* weight) {
  const RingPairRun run = runs[blockIdx.y];
  const std::int64_t j = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (j >= run.count) return;
  const std::int64_t k = run.offset + j;
  sensitivityLor(t, run, j, start + 3 * k, end + 3 * k, weight + k);
}

__global__ void ratioKernel(const float* forward, const float* inverseAttenuation,
                            float randomsPerBin, float* ratio, std::size_t count) {
  const std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= count) return;
  ratio[i] = emRatio(forward[i], randomsPerBin, inverseAttenuation ? inverseAttenuation[i] : 0.0f);
}

__global__ void updateKernel(float* image, const float* backprojection, const float* sensitivity,
                             float subsets, std::size_t voxels) {
  const std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= voxels) return;
  image[i] = emUpdate(image[i], backprojection[i], sensitivity[i], subsets);
}

__global__ void fillKernel(float* image, const float* sensitivity, float value,
                           std::size_t voxels) {
  const std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= voxels) return;
  image[i] = sensitivity[i] > 0.0f ? value : 0.0f;
}

__global__ void samplesKernel(ImageBox box, const float* start, const float* end, const short* bins,
                              std::size_t count, int tofHalfBins, float binWidthMm, float sigmaMm,
                              float numSigmas, unsigned long long* total) {
  __shared__ unsigned long long partial[kThreads];
  const std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  unsigned long long n = 0;
  if (i < count)
    n = static_cast<unsigned long long>(samplesOfEvent(
        box, start + 3 * i, end + 3 * i, bins[i], tofHalfBins, binWidthMm, sigmaMm, numSigmas));
  partial[threadIdx.x] = n;
  __syncthreads();
  for (int stride = kThreads / 2; stride > 0; stride /= 2) {
    if (int(threadIdx.x) < stride) partial[threadIdx.x] += partial[threadIdx.x + stride];
    __syncthreads();
  }
  if (threadIdx.x == 0) atomicAdd(total, partial[0]);
}

__global__ void mismatchKernel(const std::uint32_t* a, const std::uint32_t* b, std::size_t n,
                               unsigned long long* total) {
  __shared__ unsigned long long partial[kThreads];
  const std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  partial[threadIdx.x] = (i < n && a[i] != b[i]) ? 1ull : 0ull;
  __syncthreads();
  for (int stride = kThreads / 2; stride > 0; stride /= 2) {
    if (int(threadIdx.x) < stride) partial[threadIdx.x] += partial[threadIdx.x + stride];
    __syncthreads();
  }
  if (threadIdx.x == 0 && partial[0]) atomicAdd(total, partial[0]);
}

}  // namespace

const char* backendName() {
  return "cuda";
}

std::string initialise(int device) {
  check(cudaSetDevice(device), "cudaSetDevice");
  cudaDeviceProp p{};
  check(cudaGetDeviceProperties(&p, device), "cudaGetDeviceProperties");
  int smClockKhz = 0, memClockKhz = 0;
  cudaDeviceGetAttribute(&smClockKhz, cudaDevAttrClockRate, device);
  cudaDeviceGetAttribute(&memClockKhz, cudaDevAttrMemoryClockRate, device);
  int runtime = 0, driver = 0;
  cudaRuntimeGetVersion(&runtime);
  cudaDriverGetVersion(&driver);
  char text[512];
  std::snprintf(text, sizeof text,
                "%s, %.1f GiB, %d SMs, sm_%d%d, SM clock %.0f MHz, memory clock %.0f MHz, "
                "CUDA runtime %d.%d, driver %d.%d",
                p.name, double(p.totalGlobalMem) / (1u << 30), p.multiProcessorCount, p.major,
                p.minor, smClockKhz / 1e3, memClockKhz / 1e3, runtime / 1000, (runtime % 1000) / 10,
                driver / 1000, (driver % 1000) / 10);
  return text;
}

void* allocate(std::size_t bytes) {
  void* p = nullptr;
  check(cudaMalloc(&p, bytes ? bytes : 1), "cudaMalloc");
  return p;
}
void release(void* p) {
  if (p) check(cudaFree(p), "cudaFree");
}
void copyToDevice(void* device, const void* host, std::size_t bytes) {
  check(cudaMemcpy(device, host, bytes, cudaMemcpyHostToDevice), "cudaMemcpy H2D");
}
void copyToHost(void* host, const void* device, std::size_t bytes) {
  check(cudaMemcpy(host, device, bytes, cudaMemcpyDeviceToHost), "cudaMemcpy D2H");
}
void copyDeviceToDevice(void* to, const void* from, std::size_t bytes) {
  check(cudaMemcpy(to, from, bytes, cudaMemcpyDeviceToDevice), "cudaMemcpy D2D");
}
void zero(void* device, std::size_t bytes) {
  check(cudaMemsetAsync(device, 0, bytes, 0), "cudaMemsetAsync");
}
void* allocatePinned(std::size_t bytes) {
  void* p = nullptr;
  check(cudaMallocHost(&p, bytes), "cudaMallocHost");
  return p;
}
void releasePinned(void* p) {
  if (p) check(cudaFreeHost(p), "cudaFreeHost");
}
void synchronize() {
  check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
}
std::size_t freeDeviceBytes() {
  std::size_t free = 0, total = 0;
  check(cudaMemGetInfo(&free, &total), "cudaMemGetInfo");
  return free;
}

int mark() {
  auto& e = events();
  if (usedMarks == e.size()) {
    cudaEvent_t ev;
    check(cudaEventCreate(&ev), "cudaEventCreate");
    e.push_back(ev);
  }
  check(cudaEventRecord(e[usedMarks], 0), "cudaEventRecord");
  return static_cast<int>(usedMarks++);
}
double seconds(int from, int to) {
  auto& e = events();
  check(cudaEventSynchronize(e[std::size_t(to)]), "cudaEventSynchronize");
  float ms = 0;
  check(cudaEventElapsedTime(&ms, e[std::size_t(from)], e[std::size_t(to)]),
        "cudaEventElapsedTime");
  return ms * 1e-3;
}
void resetMarks() {
  synchronize();
  usedMarks = 0;
}

void convertEvents(const EventTables& tables, const RawEvent* events, std::size_t count,
                   float* start, float* end, short* bins, float* inverseAttenuation) {
  if (count == 0) return;
  convertKernel<<<blocksFor(count), kThreads>>>(tables, events, count, start, end, bins,
                                                inverseAttenuation);
  check(cudaGetLastError(), "convertKernel");
}

void makeSensitivityLors(const SensitivityTables& tables, const RingPairRun* runs, int runCount,
                         std::int64_t maxRunCount, std::int64_t /*totalLors*/, float* start,
                         float* end, float* weight) {
  if (runCount == 0 || maxRunCount == 0) return;
  const dim3 grid(blocksFor(std::size_t(maxRunCount)), unsigned(runCount));
  sensitivityKernel<<<grid, kThreads>>>(tables, runs, start, end, weight);
  check(cudaGetLastError(), "sensitivityKernel");
}

void emRatios(const float* forward, const float* inverseAttenuation, float randomsPerBin,
              float* ratio, std::size_t count) {
  if (count == 0) return;
  ratioKernel<<<blocksFor(count), kThreads>>>(forward, inverseAttenuation, randomsPerBin, ratio,
                                              count);
  check(cudaGetLastError(), "ratioKernel");
}

void emUpdates(float* image, const float* backprojection, const float* sensitivity, float subsets,
               std::size_t voxels) {
  updateKernel<<<blocksFor(voxels), kThreads>>>(image, backprojection, sensitivity, subsets,
                                                voxels);
  check(cudaGetLastError(), "updateKernel");
}

void fillInsideSensitivity(float* image, const float* sensitivity, float value,
                           std::size_t voxels) {
  fillKernel<<<blocksFor(voxels), kThreads>>>(image, sensitivity, value, voxels);
  check(cudaGetLastError(), "fillKernel");
}

std::uint64_t countMismatches(const std::uint32_t* a, const std::uint32_t* b, std::size_t n) {
  if (n == 0) return 0;
  unsigned long long* total = static_cast<unsigned long long*>(allocate(sizeof *total));
  zero(total, sizeof *total);
  mismatchKernel<<<blocksFor(n), kThreads>>>(a, b, n, total);
  check(cudaGetLastError(), "mismatchKernel");
  unsigned long long host = 0;
  copyToHost(&host, total, sizeof host);
  release(total);
  return host;
}

std::uint64_t countSamples(const ImageBox& box, const float* start, const float* end,
                           const short* bins, std::size_t count, int tofHalfBins, float binWidthMm,
                           float sigmaMm, float numSigmas) {
  if (count == 0) return 0;
  unsigned long long* total = static_cast<unsigned long long*>(allocate(sizeof *total));
  zero(total, sizeof *total);
  samplesKernel<<<blocksFor(count), kThreads>>>(box, start, end, bins, count, tofHalfBins,
                                                binWidthMm, sigmaMm, numSigmas, total);
  check(cudaGetLastError(), "samplesKernel");
  unsigned long long host = 0;
  copyToHost(&host, total, sizeof host);
  release(total);
  return host;
}

}  // namespace ppbench::ops
