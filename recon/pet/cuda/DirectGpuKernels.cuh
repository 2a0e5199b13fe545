// Launchers of the DIRECT GPU kernels (DirectGpuKernels.cu; reference/direct-tof-pet.md, section
// 3.4 and 9): the seed's gather with a 3-D texture (gather-tex) and the register-reuse gather
// (gather-reg), forward and back, plus the nearest-voxel and weighted deposition of list-mode
// events. Plain pointers and PODs; included by CUDA sources only.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "recon/pet/EventGeometry.h"
#include "recon/pet/ListModeEvent.h"

namespace tomowb::pet::gpu {

// Outputs along z per thread (the seed's ILP: 16) and the longest run of consecutive dz of one
// (dx, dy) column a register-reuse group covers (longer runs are split).
constexpr int kTexSlices = 16;
constexpr int kRegSlices = 8;
constexpr int kRun = 4;

struct Shape {
  int nx = 0, ny = 0, nz = 0;
  int classCount = 1;
};

// One (dx, dy) column of the support and the first of up to kRun consecutive dz it covers.
struct Group {
  short dx = 0, dy = 0, dz0 = 0, count = 0;
};

// One view's tables in device memory.
struct ViewTable {
  const int4* offsets = nullptr;  // gather-tex: (dx, dy, dz, -) in the list's order
  const float* values = nullptr;  // [class][offset]: k_c(offsets[i]) (the back-projection's)
  int offsetCount = 0;
  const Group* groups = nullptr;        // gather-reg
  const float* groupForward = nullptr;  // [class][group][kRun]: k_c(-o) of the member offsets
  const float* groupBack = nullptr;     // [class][group][kRun]: k_c(o)
  int groupCount = 0;
  const unsigned short* classMap = nullptr;  // [y][x]
};

// Forward projection of `image` into the listed views' blocks of `out` ([view][z][y][x]),
// overwriting them. gather-tex reads `image` through `texture` (border addressing, point
// sampling); gather-reg reads `image` directly.
void launchForwardTex(cudaTextureObject_t texture, const ViewTable* tables, const int* views,
                      int viewCount, Shape shape, float* out, cudaStream_t stream);
void launchForwardReg(const float* image, const ViewTable* tables, const int* views, int viewCount,
                      Shape shape, float* out, cudaStream_t stream);
// Back-projection of one view held by `texture` added into `out` (gather-tex), or of the listed
// views of `histo` ([view][z][y][x]) added in list order (gather-reg).
void launchBackTex(cudaTextureObject_t texture, const ViewTable* table, Shape shape, float* out,
                   cudaStream_t stream);
void launchBackReg(const float* histo, const ViewTable* tables, const int* views, int viewCount,
                   Shape shape, float* out, cudaStream_t stream);

// Deposition. Counters: [0] events of the stream, [1] deposited, [2] outside the tilt
// acceptance, [3] outside the grid, [4] degenerate (one crystal twice).
constexpr int kDepositionCounters = 5;
void launchDepositNearest(const ListModeEvent* events, std::size_t count, EventGeometryTables t,
                          bool delayed, unsigned int* counts, unsigned long long* counters,
                          cudaStream_t stream);
// Trilinear (samples == 0) or along the LOR with the TOF Gaussian: samples 2 * half + 1, `step`
// mm apart, weights exp(-s^2 / 2 sigma^2) / norm; float atomics.
void launchDepositWeighted(const ListModeEvent* events, std::size_t count, EventGeometryTables t,
                           bool delayed, int half, float step, float sigma, float norm,
                           float* histo, unsigned long long* counters, cudaStream_t stream);
// out[i] += float(counts[i])
void launchAddCounts(const unsigned int* counts, std::size_t n, float* out, cudaStream_t stream);

}  // namespace tomowb::pet::gpu
