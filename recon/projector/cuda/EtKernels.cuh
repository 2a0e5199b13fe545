// Forward and back projection kernels of the iterative algorithms on the GPU (issue #7, seed 004;
// reference/sirt-et.md sections 4 and 9), behind launch functions with plain arguments: this
// header is C++17 (nvcc's dialect here) and included by the host code (GpuEt*.cpp,
// recon/iterative/cuda/FusedSirt.cpp) and the kernels' files (EtSliceKernels.cu,
// EtVolumeKernels.cu, EtPackKernels.cu) only. The models are the CPU ones
// (recon/projector/JosephProjector.h, VoxelBackprojector.h):
//  - slice kernels ("Slice"): an aligned single-axis problem (recon/projector/
//    SingleAxisGeometry.h), every slice of a slab at once, all slices sharing every coordinate;
//  - volume kernels ("Volume"): any parallel-beam geometry, the 3-D Joseph projector (bilinear on
//    the planes of its dominant axis) and 3-D voxel-driven backprojection.
// Data on the device: a slab of the volume [slices][ny][nx] (x fastest) and its sinogram
// [view slot][rows][cols] (single-axis: rows = the slab's slices, row s <-> slice s; 3-D: the
// detector rows). The per-view numbers of a launch sit in constant memory, copied there from a
// device table before each launch (set*Views); >1024 views (slices) or >128 (volume) take
// several launches.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

namespace tomowb::cuda::et {

// Views per launch: their numbers fill 24 + 20 KiB (slice) and 5.5 + 5 KiB (volume) of the
// 64 KiB constant bank.
constexpr int kSliceViewsPerLaunch = 1024;
constexpr int kVolumeViewsPerLaunch = 128;
// Voxels along z per thread of the 3-D voxel-driven backprojector: z-slabs that start at
// multiples of it evaluate every voxel exactly as the whole volume does.
constexpr int kVolumeZPerThread = 4;

// One view of an aligned single-axis problem (SliceViewCoefficients in float).
struct SliceFpView {
  float rayOffset, rayStep, planeStep, weight;  // plane p of column c: b = off + c step + p plane
  int axis;                                     // 0: planes i = const, 1: planes j = const
  int slot;                                     // the view's index in the sinogram buffers
};
struct SliceBpView {
  float cx, cy, c0, weight;  // voxel (i, j) -> column cx i + cy j + c0
  int slot;
};

// One view of a general parallel-beam problem. Joseph: pixel (c, r) samples plane p of axis
// `axis` at b = pb0 + c pbc + r pbr + p gb and c = pc0 + c pcc + r pcr + p gc along the two
// other axes (b = the lower of them, JosephProjector.cpp's order).
struct VolumeFpView {
  float pb0, pbc, pbr, gb, pc0, pcc, pcr, gc, weight;
  int axis, slot;
};
// Voxel (i, j, k) -> column m[0..3] . (i, j, k, 1), row m[4..7] . (i, j, k, 1).
struct VolumeBpView {
  float m[8];
  float weight;
  int slot;
};

// Copies `count` entries of a device table into constant memory, ordered on `stream`.
void setSliceFpViews(const SliceFpView* deviceTable, int count, cudaStream_t stream);
void setSliceBpViews(const SliceBpView* deviceTable, int count, cudaStream_t stream);
void setVolumeFpViews(const VolumeFpView* deviceTable, int count, cudaStream_t stream);
void setVolumeBpViews(const VolumeBpView* deviceTable, int count, cudaStream_t stream);

struct SlabDims {
  int nx = 0, ny = 0, slices = 0;  // the volume slab
  int cols = 0, rows = 0;          // the sinogram rows held (single-axis: rows == slices)
  int views = 0;                   // view slots in the sinogram buffers
  // Volume kernels only: the slab holds slices [zFirst, zFirst + slices) of a volume of
  // volumeSlices slices (0: the slab is the whole volume). The forward kernels add only the
  // bilinear taps whose z lies in the slab (a sample straddling a slab boundary gives each tap
  // to its own slab), so the slabs' partial ray sums add up to the whole volume's; the
  // backprojectors compute the slab's voxels exactly as in the whole volume.
  int zFirst = 0, volumeSlices = 0;
};

// What a forward kernel does with the weighted ray sum s of (slot, row, col); idx = (slot * rows
// + row) * cols + col.
//  - data == nullptr: out[idx] = s (projection).
//  - else the SIRT residual: d = data[idx] - s (in float64), out[idx] = R d, and norms[0] +=
//    d^2, norms[1] += R d^2, with R = rowWeights[idx] (rowWeightsPerRow) or rowWeights[slot *
//    cols + col] (one map shared by every row, single-axis without a mask).
// invScale (per slice, may be null): the half-precision input was scaled by 1/invScale.
// Ray segments by relaunch (launchSliceForwardFast only): a launch walks planes [planeFirst,
// planeLast] of every ray; launches before the `last` leave the unweighted partial sum in
// out[idx] (`first`: no earlier partial sum), and only the last applies the epilogue.
struct FpEpilogue {
  float* out = nullptr;
  const float* data = nullptr;
  const float* rowWeights = nullptr;
  bool rowWeightsPerRow = true;
  double* norms = nullptr;
  const float* invScale = nullptr;
  int planeFirst = 0, planeLast = 1 << 30;
  bool first = true, last = true;
};

// What a backprojection kernel does with the sum s of voxel idx of the slab (idx2 = its index
// within the slice). A backprojection of many views takes several launches: `first` and `last`
// say which this is; the ones before `last` leave their running sum in partial[idx].
//  - update == false: volume[idx] += s;
//  - update: the SIRT step x = clamp(x + C s, lower, upper), 0 where mask[idx] == 0, with C =
//    columnWeights[idx] (columnWeightsPerSlice) or columnWeights[idx2] (one map for every
//    slice).
// invScale (per sinogram row, may be null): the half-precision input was scaled by 1/invScale.
struct BpEpilogue {
  float* volume = nullptr;
  float* partial = nullptr;
  bool first = true, last = true;
  bool update = false;
  const float* columnWeights = nullptr;
  bool columnWeightsPerSlice = false;
  const unsigned char* mask = nullptr;
  float lower = 0, upper = 0;  // -inf / +inf when unbounded
  const float* invScale = nullptr;
  // Update mode, launchSliceBackFast only: atomicMax of the float bits of |x| after the update,
  // per slice (the next forward projection's half2 scales without another pass over x).
  unsigned* sliceMaxBits = nullptr;
};

// Texels of the slice kernels' textures: 1, 2 or 4 slices (rows) per texel.
enum class Texel { Float, Float2, Float4, Half2 };
int texelSlices(Texel t);
int texelBytes(Texel t);

// ---- slice kernels (aligned single axis) -----------------------------------------------------

// Seed 004's four thread-block orderings of the forward projector (Table 1), one slice per
// layer of a float layered texture (x, y), hardware bilinear, blocks of 32 rays x 16 views:
// (0) unordered: rays and views spread evenly over the detector and the view list;
// (1) strips: 32 consecutive rays, views spread; (2) strips x consecutive views;
// (3) segments: (2) with every ray walked in segments of `segmentPlanes` planes, the block
//     synchronised between segments so that its footprint stays in the texture cache.
void launchSliceForwardSeed(int ordering, cudaTextureObject_t volume, const SlabDims& d, int count,
                            int segmentPlanes, const FpEpilogue& e, cudaStream_t stream);
// Ours: several slices per texel (`texel`) and `layers` texels per thread, blocks of 32 rays x
// `angles` consecutive views, optional segment synchronisation (0: none).
void launchSliceForwardFast(Texel texel, int layers, int angles, int segmentPlanes,
                            cudaTextureObject_t volume, const SlabDims& d, int count,
                            const FpEpilogue& e, cudaStream_t stream);
// Software linear interpolation from the float slab, float32: the exact transpose of
// launchSliceBackMatched.
void launchSliceForwardMatched(const float* volume, const SlabDims& d, int count,
                               const FpEpilogue& e, cudaStream_t stream);
// Seed 004's backprojection, scheme (c): one voxel per thread in 16 x 32 tiles, every thread
// walking the launch's views in order, one slice per layer of a float layered texture
// (col, slot), hardware linear interpolation along the column.
void launchSliceBackVoxel(cudaTextureObject_t residual, const SlabDims& d, int count,
                          const BpEpilogue& e, cudaStream_t stream);
// Ours: several rows per texel and `layers` texels per thread.
void launchSliceBackFast(Texel texel, int layers, cudaTextureObject_t residual, const SlabDims& d,
                         int count, const BpEpilogue& e, cudaStream_t stream);
// The exact transpose of launchSliceForwardMatched as a gather: per voxel and view, the rays
// whose plane sample lies within one voxel, with the Joseph weights recomputed bit for bit.
void launchSliceBackMatched(const float* residual, const SlabDims& d, int count,
                            const BpEpilogue& e, cudaStream_t stream);

// Volume slab -> the slice kernels' texture through its surface: layer l holds slices
// l*G .. l*G+G-1 (zero past the slab); scale (per slice, half2 only) multiplies the values.
void launchPackSlices(Texel texel, const float* volume, const SlabDims& d, const float* scale,
                      cudaSurfaceObject_t surface, cudaStream_t stream);
// Sinogram rows of the listed slots -> the slice backprojectors' texture (col, slot), layer l
// holding rows l*G .. l*G+G-1; scale per row (half2 only).
void launchPackRows(Texel texel, const float* sinogram, const SlabDims& d, const int* slots,
                    int slotCount, const float* scale, cudaSurfaceObject_t surface,
                    cudaStream_t stream);
// Half2 scaling: maxBits[s] = bits of max |x| over slice s (volume) or over row s of the listed
// slots (sinogram), then scale[s] = 2^-e, invScale[s] = 2^e with max = m 2^e, m in [0.5, 1).
void launchSliceMaxAbs(const float* volume, const SlabDims& d, unsigned* maxBits,
                       cudaStream_t stream);
void launchRowMaxAbs(const float* sinogram, const SlabDims& d, const int* slots, int slotCount,
                     unsigned* maxBits, cudaStream_t stream);
void launchHalfScales(const unsigned* maxBits, int count, float* scale, float* invScale,
                      cudaStream_t stream);

// ---- volume kernels (any parallel beam) ------------------------------------------------------

// 3-D Joseph forward projector from a 3-D float texture (hardware bilinear on the planes). On a
// z-slab (SlabDims::zFirst) the texture holds the slab's slices (zero beyond them, border
// addressing): the z coordinate is shifted by the integer zFirst, exactly, so every tap gets the
// weight it has in the whole volume.
void launchVolumeForwardTex(cudaTextureObject_t volume, const SlabDims& d, int count,
                            const FpEpilogue& e, cudaStream_t stream);
// The same in software (float32 bilinear from the slab): the exact transpose of
// launchVolumeBackMatched.
void launchVolumeForwardMatched(const float* volume, const SlabDims& d, int count,
                                const FpEpilogue& e, cudaStream_t stream);
// Voxel-driven backprojection from a float layered texture (col, row), layer k = the launch's
// k-th view (filled by launchGatherViews after setVolumeBpViews).
void launchVolumeBackVoxel(cudaTextureObject_t residual, const SlabDims& d, int count,
                           const BpEpilogue& e, cudaStream_t stream);
void launchGatherViews(const float* sinogram, const SlabDims& d, int count,
                       cudaSurfaceObject_t surface, cudaStream_t stream);
// The gather transpose of launchVolumeForwardMatched.
void launchVolumeBackMatched(const float* residual, const SlabDims& d, int count,
                             const BpEpilogue& e, cudaStream_t stream);

// ---- element-wise ----------------------------------------------------------------------------

void launchFill(float* data, std::size_t count, float value, cudaStream_t stream);
// out[i] = mask[i] != 0 ? 1 : 0
void launchMaskToFloat(const unsigned char* mask, std::size_t count, float* out,
                       cudaStream_t stream);
// *maxBits = max(*maxBits, bits of max |data|) (float bits of a non-negative value order like
// unsigned integers).
void launchMaxAbs(const float* data, std::size_t count, unsigned* maxBits, cudaStream_t stream);
// SIRT weights: data[i] = scale / data[i] where data[i] > 1e-6 * max and > 0, else 0 (in
// float64, as IterativeReconstruction.cpp's invertSums), max from *maxBits.
void launchInvertSums(float* data, std::size_t count, const unsigned* maxBits, double scale,
                      cudaStream_t stream);

}  // namespace tomowb::cuda::et
