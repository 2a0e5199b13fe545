// pp_ops_cpu.cpp — pp_ops.h on the host (OpenMP), for building and checking the driver against
// parallelproj's OpenMP library on a machine without a GPU. Not what the benchmark measures.
#include <omp.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "pp_ops.h"

namespace ppbench::ops {

namespace {
std::vector<std::chrono::steady_clock::time_point>& clocks() {
  static std::vector<std::chrono::steady_clock::time_point> c;
  return c;
}
}  // namespace

const char* backendName() {
  return "cpu";
}

std::string initialise(int /*device*/) {
  return "host (OpenMP, " + std::to_string(omp_get_max_threads()) + " threads)";
}

void* allocate(std::size_t bytes) {
  void* p = std::malloc(bytes ? bytes : 1);
  if (!p) {
    std::fprintf(stderr, "pp_lm_bench: out of host memory (%zu bytes)\n", bytes);
    std::exit(2);
  }
  return p;
}
void release(void* p) {
  std::free(p);
}
void copyToDevice(void* device, const void* host, std::size_t bytes) {
  std::memcpy(device, host, bytes);
}
void copyToHost(void* host, const void* device, std::size_t bytes) {
  std::memcpy(host, device, bytes);
}
void copyDeviceToDevice(void* to, const void* from, std::size_t bytes) {
  std::memcpy(to, from, bytes);
}
void zero(void* device, std::size_t bytes) {
  std::memset(device, 0, bytes);
}
void* allocatePinned(std::size_t bytes) {
  return allocate(bytes);
}
void releasePinned(void* p) {
  release(p);
}
void synchronize() {}
std::size_t freeDeviceBytes() {
  return std::size_t(1) << 40;
}

int mark() {
  clocks().push_back(std::chrono::steady_clock::now());
  return static_cast<int>(clocks().size() - 1);
}
double seconds(int from, int to) {
  return std::chrono::duration<double>(clocks()[std::size_t(to)] - clocks()[std::size_t(from)])
      .count();
}
void resetMarks() {
  clocks().clear();
}

void convertEvents(const EventTables& tables, const RawEvent* events, std::size_t count,
                   float* start, float* end, short* bins, float* inverseAttenuation) {
#pragma omp parallel for
  for (std::int64_t i = 0; i < std::int64_t(count); ++i)
    convertEvent(tables, events[i], start + 3 * i, end + 3 * i, bins + i,
                 inverseAttenuation ? inverseAttenuation + i : nullptr);
}

void makeSensitivityLors(const SensitivityTables& tables, const RingPairRun* runs, int runCount,
                         std::int64_t /*maxRunCount*/, std::int64_t /*totalLors*/, float* start,
                         float* end, float* weight) {
#pragma omp parallel for schedule(dynamic)
  for (int r = 0; r < runCount; ++r)
    for (std::int64_t j = 0; j < runs[r].count; ++j) {
      const std::int64_t k = runs[r].offset + j;
      sensitivityLor(tables, runs[r], j, start + 3 * k, end + 3 * k, weight + k);
    }
}

void emRatios(const float* forward, const float* inverseAttenuation, float randomsPerBin,
              float* ratio, std::size_t count) {
#pragma omp parallel for
  for (std::int64_t i = 0; i < std::int64_t(count); ++i)
    ratio[i] =
        emRatio(forward[i], randomsPerBin, inverseAttenuation ? inverseAttenuation[i] : 0.0f);
}

void emUpdates(float* image, const float* backprojection, const float* sensitivity, float subsets,
               std::size_t voxels) {
#pragma omp parallel for
  for (std::int64_t i = 0; i < std::int64_t(voxels); ++i)
    image[i] = emUpdate(image[i], backprojection[i], sensitivity[i], subsets);
}

void fillInsideSensitivity(float* image, const float* sensitivity, float value,
                           std::size_t voxels) {
  for (std::size_t i = 0; i < voxels; ++i) image[i] = sensitivity[i] > 0.0f ? value : 0.0f;
}

std::uint64_t countMismatches(const std::uint32_t* a, const std::uint32_t* b, std::size_t n) {
  std::uint64_t total = 0;
#pragma omp parallel for reduction(+ : total)
  for (std::int64_t i = 0; i < std::int64_t(n); ++i) total += a[i] != b[i] ? 1 : 0;
  return total;
}

std::uint64_t countSamples(const ImageBox& box, const float* start, const float* end,
                           const short* bins, std::size_t count, int tofHalfBins, float binWidthMm,
                           float sigmaMm, float numSigmas) {
  std::uint64_t total = 0;
#pragma omp parallel for reduction(+ : total)
  for (std::int64_t i = 0; i < std::int64_t(count); ++i)
    total += std::uint64_t(samplesOfEvent(box, start + 3 * i, end + 3 * i, bins[i], tofHalfBins,
                                          binWidthMm, sigmaMm, numSigmas));
  return total;
}

}  // namespace ppbench::ops
