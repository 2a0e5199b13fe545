// GpuFdkKernelTable: the GPU FDK family's one descriptor table (issue #18, point 3). One row per
// variant says everything the pipeline and the planner decide by name: the description and
// tunables the registry shows, the accuracy class, how the kernel reads a chunk's filtered views
// (its input: texel type and layout, hence its memory footprint), whether it pairs voxel z with
// nz-1-z (and what runs when the geometry lacks that symmetry), and the function that launches
// it. The pipeline (recon/fdk/cuda/GpuFdk.cpp) resolves a row once per run; nothing else compares
// variant names. A new kernel is one kernel file with its launch function plus one row here (or,
// for a test, one cuda::addGpuFdkVariant call with its own row). Plain C++ so the CPU build and
// the GUI's memory estimate read the same footprints; the launch functions exist with CUDA only.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "recon/fdk/GpuFdkPlan.h"
#include "recon/variant/AccuracyClass.h"
#include "recon/variant/VariantRegistry.h"

namespace tomowb::cuda {
struct FdkBatch;  // one launch's views, input and volume (recon/fdk/cuda/FdkBatch.h)
}  // namespace tomowb::cuda

namespace tomowb::fdk {

// How a kernel reads a chunk's filtered views on the device; the pipeline builds it from the
// filtered rows (recon/fdk/cuda/GpuFdk.cpp, KernelInput) and the planner counts its bytes.
enum class GpuFdkInput {
  Linear,          // float rows in global memory, no border (4 bytes per pixel)
  TexturePerView,  // one 2-D float texture per view (4)
  Layered,         // one layered float texture (4)
  MirrorHalf2,     // layered half2 texture of rows (v, V-1-v), staged through floats (4 + 4)
  MirrorFloat2,    // layered float2 texture of rows (v, V-1-v), staged (8 + 8)
  SoftMirror,      // zero-bordered grid of 16-byte float tap pairs (16)
  SoftMirrorHalf,  // the same with half-precision taps (16)
  Padded,          // zero-bordered float buffer [view][rows + 3][cols + 3] (4)
  // MirrorHalf2 (4 + 4) and, for every hybridLoadEvery-th view, a zero-bordered grid of 16-byte
  // pair-major half taps (16 / N)
  MirrorHybrid,
  Hybrid,  // Layered (4) and, for every hybridLoadEvery-th view, a grid of float4 quads (16 / N)
};

// The hybrid kernels sample every N-th view with loads and software bilinear beside the texture
// unit. N measured on the H100 (bench/results/2026-11-28c-hybrid-kernels-h100.md): mirror-hybrid
// 3, 4, 5 gave 2013, 2020, 1999 GUPS at 512^3; hybrid 3, 4, 5, 8 gave 1173, 1114, 1076, 1021.
constexpr int kMirrorHybridLoadEvery = 4;
constexpr int kHybridLoadEvery = 3;
// N for the input (0 for the inputs without a load path): the constants above, or
// TOMOWB_FDK_HYBRID_EVERY (2 to 64) for measuring others.
int hybridLoadEvery(GpuFdkInput input);
// Bytes per detector pixel of one view in the input (the hybrids' grid as 16 / N, rounded up).
std::int64_t inputBytesPerPixelOf(GpuFdkInput input);
// N for an input that holds `capacity` views: 0 (no load path: the texture samples every view)
// where it holds fewer than N, which only a chunk squeezed by memory does; the planner makes
// chunks of a multiple of N otherwise (GpuKernelFootprint::chunkMultiple).
int loadPathEvery(GpuFdkInput input, std::int64_t capacity);
// Device bytes of the load-path grid of such an input of `rows` x `cols` views: ceil(capacity /
// N) views of (rows + 2) x (cols + 2) 16-byte elements; 0 without a load path. For a capacity
// that is a multiple of N it stays within the footprint's 16 / N bytes a pixel.
std::uint64_t loadPathGridBytes(GpuFdkInput input, std::int64_t capacity, std::int64_t rows,
                                std::int64_t cols);

// Launches the kernel over one batch of a chunk's views (at most kMaxViewsPerLaunch).
using GpuFdkLaunchFn = void (*)(const cuda::FdkBatch& batch);

// tex-multi's default K, measured on the H100 at 512^3 x 496 views (bench/results/
// 2026-11-23-h100-fdk-gpu.md): K = 1, 2, 4, 8, 16, 32 gave 269, 409, 518, 515, 388, 230 GUPS.
constexpr int kGpuFdkDefaultViewsPerLaunch = 4;

struct GpuFdkKernel {
  std::string name;         // the registered variant: "fdk.bp.layered16"
  std::string description;  // one line
  std::vector<Tunable> tunables;
  qa::AccuracyClass accuracy = qa::AccuracyClass::HardwareInterpolation;
  GpuFdkInput input = GpuFdkInput::Layered;
  // Pairs voxel z with nz-1-z: needs the mirror symmetry of the geometry, and a task holds
  // slices and their mirrors (the volume is cut into mirrored slab pairs, GpuFdkPlan.h).
  bool zMirror = false;
  std::string runs;      // a variant that picks another row (fdk.bp.fast): that row; else empty
  std::string fallback;  // z-mirror rows: what runs when the geometry lacks the symmetry
  GpuFdkLaunchFn launch = nullptr;  // null for a variant that `runs` another, and without CUDA
  // The kernel writes only the rows [yFirst, yFirst + yCount) of cuda::kernels::TaskShape (every
  // built-in row does): the pipeline then backprojects a task's last chunk in pieces of rows and
  // downloads each piece while the next one runs. False for a kernel that ignores them.
  bool rowPieces = false;
};

// The built-in rows, in registration order.
const std::vector<GpuFdkKernel>& gpuFdkKernels();
// The built-in row of that name, or null.
const GpuFdkKernel* findGpuFdkKernel(std::string_view name);
// What the kernel keeps per detector pixel and how it splits the volume; a variant that runs
// another row is planned as that row (fdk.bp.fast as mirror-hybrid).
GpuKernelFootprint footprintOf(const GpuFdkKernel& kernel);

}  // namespace tomowb::fdk
