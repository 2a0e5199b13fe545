// pp_ops.h — the driver's own element-wise work and memory, behind one interface with two
// implementations: pp_ops_cuda.cu (the benchmark: device memory, CUDA kernels on the legacy
// default stream that parallelproj's CUDA library also launches on, CUDA events as clocks) and
// pp_ops_cpu.cpp (a host build against parallelproj's OpenMP library, for checking the driver on a
// machine without a GPU: the same code path with host memory and wall clocks).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "pp_common.h"

namespace ppbench::ops {

// "cuda" or "cpu".
const char* backendName();
// Selects the device (CUDA) and describes it: name, memory, SMs, clocks (or the host's threads).
std::string initialise(int device);

void* allocate(std::size_t bytes);  // device (or host) memory; exits with a message on failure
void release(void* p);
void copyToDevice(void* device, const void* host, std::size_t bytes);
void copyToHost(void* host, const void* device, std::size_t bytes);
void copyDeviceToDevice(void* to, const void* from, std::size_t bytes);
void zero(void* device, std::size_t bytes);
void* allocatePinned(std::size_t bytes);  // page-locked host memory (plain host memory on CPU)
void releasePinned(void* p);
void synchronize();
std::size_t freeDeviceBytes();

// Clocks: a mark is recorded in stream order; seconds(a, b) waits for b.
int mark();
double seconds(int from, int to);
void resetMarks();

// Our kernels (one thread per item).
void convertEvents(const EventTables& tables, const RawEvent* events, std::size_t count,
                   float* start, float* end, short* bins, float* inverseAttenuation);
void makeSensitivityLors(const SensitivityTables& tables, const RingPairRun* runs, int runCount,
                         std::int64_t maxRunCount, std::int64_t totalLors, float* start, float* end,
                         float* weight);
void emRatios(const float* forward, const float* inverseAttenuation, float randomsPerBin,
              float* ratio, std::size_t count);
void emUpdates(float* image, const float* backprojection, const float* sensitivity, float subsets,
               std::size_t voxels);
// image = value where sensitivity > 0, else 0.
void fillInsideSensitivity(float* image, const float* sensitivity, float value, std::size_t voxels);
// How many of n 32-bit words differ between a and b.
std::uint64_t countMismatches(const std::uint32_t* a, const std::uint32_t* b, std::size_t n);
// Sum over events of samplesOfEvent (pp_common.h).
std::uint64_t countSamples(const ImageBox& box, const float* start, const float* end,
                           const short* bins, std::size_t count, int tofHalfBins, float binWidthMm,
                           float sigmaMm, float numSigmas);

}  // namespace ppbench::ops
