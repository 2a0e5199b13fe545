// Backprojection and filtering kernels of the GPU FDK (issue #6), behind launch functions with
// plain arguments: this header is C++17 (nvcc's dialect here) and included by the pipeline's
// host code (GpuFdk.cpp) and FdkKernels.cu only. Conventions follow BackprojectorCpu.cpp: a view
// matrix maps task-local voxel indices (x, y, z, 1) to (c w, r w, w) in detector pixels with
// pixel centres on integers, the sample is bilinear with zero outside the detector, and cone
// beams weight it by 1/w^2.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace tomowb::cuda::kernels {

// Views whose matrices fit in constant memory at once (12 floats each: 48 KiB).
constexpr int kMaxViewsPerLaunch = 1024;

struct ViewMatrix {
  float m[12];  // row-major 3 x 4
};

struct TaskShape {
  int nx = 0, ny = 0, nz = 0;  // the task's box (a slab or block of the volume)
  bool cone = true;            // 1/w^2 weight
  // The matrices' z column moves u or w (tilted detector or rotation axis): the kernels that
  // step v along a z-column then recompute u and 1/w per voxel.
  bool zMovesUW = false;
  // The rows of the box a launch writes: [yFirst, yFirst + yCount), every row from yFirst on when
  // yCount is 0 (a task's last chunk runs in pieces of rows so that each piece's download overlaps
  // the next piece's backprojection).
  int yFirst = 0, yCount = 0;
  // The constant-memory matrix of the launch's view k is matrixFirst + k (the pipeline copies a
  // task's matrices into constant memory once, at its start: an update of constant memory waits
  // for the kernels that read it, which held the host thread during every backprojection).
  int matrixFirst = 0;
};

__host__ __device__ inline int yEnd(const TaskShape& s) {
  return s.yCount > 0 ? s.yFirst + s.yCount : s.ny;
}

// Copies `count` matrices from device memory into constant memory (ordered on `stream`). From
// device memory, not from the host: a copy from pageable host memory may wait for the stream to
// drain, which held the pipeline's host thread during every backprojection and left the upload
// stream idle for 15 ms of a 512^3 run (issue #22, TOMOWB_FDK_TIMELINE).
void setViewMatrices(const ViewMatrix* device, int count, cudaStream_t stream);

// seed 000 "naive": one view per launch; projection and matrix in global memory, software
// bilinear interpolation, read-modify-write of every voxel.
void launchNaive(const float* projection, int rows, int cols, int pitch, const ViewMatrix* matrix,
                 float* volume, const TaskShape& shape, cudaStream_t stream);
// seed 000 "ASIC": one view per launch from a 2-D texture (hardware bilinear, border zero,
// +0.5 texel offset), matrix `view` of constant memory, voxel value prefetched.
void launchTexture(cudaTextureObject_t texture, int view, float* volume, const TaskShape& shape,
                   cudaStream_t stream);
// The layered kernels read layer layerFirst + k with constant-memory matrix k (matrixFirst + k
// for tex-multi), k in [0, count).
// seed 000 "multiple projections": K views per launch from a layered texture.
void launchTextureMulti(cudaTextureObject_t layered, int matrixFirst, int layerFirst, int count,
                        float* volume, const TaskShape& shape, cudaStream_t stream);
// seed 001 "final": a column of `zPerThread` (4, 8 or 16) voxels per thread accumulated in
// registers over the launch's views, full projective arithmetic per voxel, one write.
void launchSlab(cudaTextureObject_t layered, int layerFirst, int count, int zPerThread,
                float* volume, const TaskShape& shape, cudaStream_t stream);
// Ours: 16 z-voxels per thread, u, 1/w and the weight once per (x, y, view), v stepped along z.
void launchLayered16(cudaTextureObject_t layered, int layerFirst, int count, float* volume,
                     const TaskShape& shape, cudaStream_t stream);
// Ours: half2 texels (p[v], p[V-1-v]) serve voxel z and its mirror nz-1-z with one fetch.
// Needs the mirror symmetry (checked by the host); the task spans every slice.
void launchMirrorHalf2(cudaTextureObject_t layeredHalf2, int layerFirst, int count, float* volume,
                       const TaskShape& shape, cudaStream_t stream);
// Ours: software bilinear with the z-mirror from a zero-bordered grid of 16-byte elements
// (launchToSoftMirror): float32 (two loads per voxel pair) or half (one load per voxel pair).
// Same symmetry condition as launchMirrorHalf2. `rows` x `cols`: the filtered detector.
// zPerThread: 4, 8 or 16 voxel pairs per thread.
void launchSoftMirror(const void* grid, bool half, int rows, int cols, int layerFirst, int count,
                      int zPerThread, float* volume, const TaskShape& shape, cudaStream_t stream);
// Ours: launchLayered16's float32 texture for most views and, for the input's views v with
// (v + phase) % every == every - 1, software bilinear from a grid of float4 quads holding only
// those views (grid view (v + phase) / every; launchToQuads with viewStep = every). No mirror
// needed; 16 z-voxels per thread.
void launchLayeredHybrid(cudaTextureObject_t layered, const void* quads, int every, int phase,
                         int rows, int cols, int layerFirst, int count, float* volume,
                         const TaskShape& shape, cudaStream_t stream);
// Ours: launchMirrorHalf2's half2 texture for most views and, for the input's views v with
// (v + phase) % every == every - 1, software bilinear in half2 arithmetic from a pair-major half
// grid that holds only those views (grid view (v + phase) / every; launchToSoftMirror with
// viewStep = every and pairMajor): the load path adds samples beyond the texture unit's rate. 8
// voxel pairs per thread. Same symmetry condition as launchMirrorHalf2.
void launchMirrorHybrid(cudaTextureObject_t layeredHalf2, const void* pairMajorGrid, int every,
                        int phase, int rows, int cols, int layerFirst, int count, float* volume,
                        const TaskShape& shape, cudaStream_t stream);
// Ours: software bilinear from a zero-bordered float buffer [view][rows + 3][cols + 3] (data at
// offset (1, 1); one zero row and column before, two after) (4 __ldg
// and 3 FMA per sample): 16 z-voxels per thread, float32 weights.
void launchSoft(const float* padded, int paddedRows, int paddedCols, int count, float* volume,
                const TaskShape& shape, cudaStream_t stream);

// --- filtering -------------------------------------------------------------------------------

// Per view: cosine-weight geometry (pixel (c, r) lies at origin + c u + r v relative to the
// source; weight D / |.|) and the column weights (redundancy x angular step / pitch).
struct ViewWeights {
  float origin[3], u[3], v[3];
  float sourceToDetector;
};

// The detector rows a chunk's buffers hold per view: `rows` rows, buffer row r being detector row
// firstRow + r below splitRow and secondFirstRow + (r - splitRow) from there on (two bands: a
// z-mirror task's rows and their mirror rows). One band: splitRow = rows.
struct RowBands {
  int rows = 0;
  int firstRow = 0;
  int splitRow = 0;
  int secondFirstRow = 0;
};

// raw [views][bands.rows][cols] -> fft rows [views*bands.rows][fftStride]: weighted samples at
// columns [before, before + cols), zero elsewhere up to fftLength.
void launchWeightRows(const float* raw, int views, const RowBands& bands, int cols,
                      const ViewWeights* weights, const float* columnWeights, bool cone, int before,
                      int fftLength, int fftStride, float* fft, cudaStream_t stream);
// Multiplies each row's half spectrum (fftLength/2 + 1 complex values, stride fftStride/2) by
// `response` (already scaled by 1/fftLength).
void launchApplyResponse(float* fft, long long rowCount, int fftLength, int fftStride,
                         const float* response, cudaStream_t stream);
// Filtered rows -> the kernels' inputs. Float rows (the first `filteredCols` of each fft row) are
// copied to texture arrays with cudaMemcpy3D straight from the fft buffer; these two build the
// others: the zero-bordered padded buffer of launchSoft, and half2 mirror texels.
void launchToPadded(const float* fft, int views, int rows, int filteredCols, int fftStride,
                    float* padded, cudaStream_t stream);
// The mirror inputs: `rows` rows per view, row r paired with fft row bufferRows-1-r of its view
// (the fft buffer holds bufferRows >= rows rows per view, symmetric about the detector's centre).
// Grid bytes per view: 16 x (rows + 3) x (cols + 2) for float, 16 x (rows + 2) x (cols + 2) half.
// viewStep: grid view k from fft view k * viewStep (the hybrid kernel's every-th views).
// pairMajor (half only): the element holds (p00, q00), (p01, q01), (p10, q10), (p11, q11) as
// half2, p the row and q its mirror row, for bilinear weights in half2 arithmetic.
void launchToSoftMirror(const float* fft, int views, int rows, int bufferRows, int filteredCols,
                        int fftStride, bool half, void* out, cudaStream_t stream, int viewStep = 1,
                        bool pairMajor = false);
// Quad grid of views k * viewStep (k < views; fft views bufferRows rows apart): [view][rows + 2]
// [cols + 2] float4 elements, element (r + 1, c + 1) holding the taps (r, c), (r, c + 1),
// (r + 1, c), (r + 1, c + 1), zero outside.
void launchToQuads(const float* fft, int views, int rows, int bufferRows, int filteredCols,
                   int fftStride, int viewStep, void* out, cudaStream_t stream);
void launchToMirrorFloat2(const float* fft, int views, int rows, int bufferRows, int filteredCols,
                          int fftStride, void* out, cudaStream_t stream);
void launchToMirrorHalf2(const float* fft, int views, int rows, int bufferRows, int filteredCols,
                         int fftStride, void* half2Out, cudaStream_t stream);

}  // namespace tomowb::cuda::kernels
