// Launchers of the separable-footprint GPU kernels (SfKernels.cu; formulas:
// ../shared/reference/sf-projectors.md section 3, docs/sf-projectors.md). Both directions weigh a
// voxel-cell pair with the same device functions on the same inputs, so a forward projector and
// a backprojector of one model are each other's transpose to float32 rounding. Included by CUDA
// sources only.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "recon/projector/sf/cuda/SfGpuTypes.h"

namespace tomowb::cuda::sfgpu {

// The widest footprint (detector columns per voxel column) the kernels are built for.
constexpr int kMaxFootprintCells = 32;
// The footprint widths the kernels are instantiated for: the smallest one >= `cells`.
int footprintCapacity(int cells);

// Forward, atomic-scatter variant: one block per (view, tile of `tileRows` detector rows), each
// thread a voxel column at a time, the tile's sums in shared memory (atomicAdd: the order of the
// float additions varies run to run). Overwrites rows [0, rows) of out + outView[k] * rows * cols
// for k < count with the cell amplitude applied. `volume` is x fastest.
void launchForwardAtomic(const float* volume, const SfGpuView* views, const std::int64_t* outView,
                         int count, const SfGpuShape& shape, int cells, int tileRows, float* out,
                         int* overflow, cudaStream_t stream);

// Forward, gather variant: one block per (view, detector column, tile of rows); the block lists
// the voxel columns whose footprint reaches the column (fixed order), each thread sums its row
// over them. Deterministic: the same bits every run. `volumeZFirst` is z fastest
// ((iy nx + ix) nz + iz; launchTransposeToZFirst).
void launchForwardGather(const float* volumeZFirst, const SfGpuView* views,
                         const std::int64_t* outView, int count, const SfGpuShape& shape,
                         const std::int32_t* lineAxis, float* out, int* overflow,
                         cudaStream_t stream);

void launchTransposeToZFirst(const float* volume, float* zFirst, const SfGpuShape& shape,
                             cudaStream_t stream);

// The volume with x and y swapped, slice by slice ((iz nx + ix) ny + iy): the atomic forward
// projector runs the views whose rays run nearer x on it, with x and y swapped in their tables, so
// the threads of a warp (consecutive voxel columns) reach different detector columns.
void launchTransposeXy(const float* volume, float* swapped, const SfGpuShape& shape,
                       cudaStream_t stream);

// Copies views inView[k] of `in` to slot k of `out`, times each cell's amplitude (the first step
// of the transpose).
void launchScaleCells(const float* in, const std::int64_t* inView, const SfGpuView* views,
                      int count, const SfGpuShape& shape, float* out, cudaStream_t stream);

// Transpose, gather variant: one thread per voxel column and chunk of `sliceChunk` slices, looping
// over the views of its chunk (chunkStart[c] .. chunkStart[c + 1] in chunkViews, indices into
// `views` and the scaled slots); adds into `volume` (x fastest). Deterministic.
void launchBackGather(const float* scaled, const SfGpuView* views, const std::int32_t* chunkStart,
                      const std::int32_t* chunkViews, const SfGpuShape& shape, int cells,
                      int sliceChunk, float* volume, int* overflow, cudaStream_t stream);

// ---- Wu and Fessler's forward scheme (sf.fp.wu-fessler) -----------------------------------------
// Per batch of views: kernel 1 stores every voxel column's footprint record and a key (view, first
// detector column); a stable radix sort (cub) groups the columns by it, on the GPU where the paper
// grouped them on the CPU; kernel 2 walks each group of detector columns' run of records, a thread
// per detector row, summing each column's row over z once and spreading it over the footprint in
// shared memory. Deterministic: the same bits every run.

// Device buffers of one batch of `count` views (items = count * nx * ny records).
struct WuFesslerRecords {
  std::uint32_t* keys[2];   // the sort's double buffer; sorted keys end in keys[0]
  std::int32_t* values[2];  // record indices, sorted along
  float* weights;           // items * cells: u F1 from the first column on
  double* lines;          // items * 2 (SF-TT: 6): row0 and slope of the centre (nearest, farthest)
  unsigned char* widths;  // items: detector columns reached (0: none)
  void* sortStorage;
  std::size_t sortBytes;
};

// The width of a group of detector columns and the bits of a key's column field.
int wuFesslerGroup(int cells);
int wuFesslerColumnBits(const SfGpuShape& shape, int cells);
// cub's scratch for sorting `items` keys of `endBit` bits.
std::size_t wuFesslerSortBytes(int items, int endBit);
// Kernel 1 and the sort, for views[0, count).
void launchWuFesslerFootprints(const SfGpuView* views, int count, const SfGpuShape& shape,
                               int cells, const WuFesslerRecords& records, int* overflow,
                               cudaStream_t stream);
// Kernel 2 (two launches, one per parity of the groups) and the cell amplitudes: overwrites views
// outView[k] of `out` for k < count. `volumeZFirst` as for launchForwardGather.
void launchWuFesslerForward(const float* volumeZFirst, const SfGpuView* views,
                            const std::int64_t* outView, int count, const SfGpuShape& shape,
                            int cells, const WuFesslerRecords& records, float* out,
                            cudaStream_t stream);

// ---- Wu and Fessler's transpose (sf.bp.wu-fessler)
// ----------------------------------------------- Per batch of views: kernel 1 stores every voxel
// column's footprint, kernel 2 the transaxial sums h(row; column) of the amplitude-scaled views,
// kernel 3 spreads them over the slices, a thread per voxel column and chunk of slices (no write
// conflicts). Deterministic.
struct WuFesslerBackBuffers {
  std::int32_t* firsts;   // items
  unsigned char* widths;  // items
  float* weights;         // cells * items, one array per footprint cell
  double* lines;          // 2 (SF-TT: 6) * items, one array per number
  float* h;               // count * rows * columns
};

// Adds the transpose of views[0, count) (slots of `scaled`, amplitudes applied) into `volume` over
// slices [firstSlice, lastSlice] (the batch's reach; whole chunks of `sliceChunk` around it).
void launchWuFesslerBack(const float* scaled, const SfGpuView* views, int count,
                         const SfGpuShape& shape, int cells, int sliceChunk, int firstSlice,
                         int lastSlice, const WuFesslerBackBuffers& buffers, float* volume,
                         int* overflow, cudaStream_t stream);

}  // namespace tomowb::cuda::sfgpu
