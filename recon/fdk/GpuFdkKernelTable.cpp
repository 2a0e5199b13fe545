#include "recon/fdk/GpuFdkKernelTable.h"

#include <algorithm>
#include <cassert>
#include <cstdlib>

#if TOMOWB_HAVE_CUDA
namespace tomowb::cuda {
// The launch functions of the built-in kernels (recon/fdk/cuda/FdkBatchLaunchers.cpp).
void fdkBpNaive(const FdkBatch& batch);
void fdkBpTex(const FdkBatch& batch);
void fdkBpTexMulti(const FdkBatch& batch);
void fdkBpSlab(const FdkBatch& batch);
void fdkBpLayered16(const FdkBatch& batch);
void fdkBpMirrorTexture(const FdkBatch& batch);
void fdkBpSoft(const FdkBatch& batch);
void fdkBpSoftMirror(const FdkBatch& batch);
void fdkBpSoftMirrorHalf(const FdkBatch& batch);
void fdkBpMirrorHybrid(const FdkBatch& batch);
void fdkBpHybrid(const FdkBatch& batch);
}  // namespace tomowb::cuda
#define TOMOWB_FDK_LAUNCH(fn) &cuda::fn
#else
#define TOMOWB_FDK_LAUNCH(fn) nullptr
#endif

namespace tomowb::fdk {

namespace {

using qa::AccuracyClass;

// Accuracy classes: software bilinear kernels in float32 round like the CPU; texture units
// interpolate with 8-bit fixed-point weights; half-precision data or taps are half precision
// (bench/results/2026-11-23-h100-fdk-gpu.md: relative L2 1.2e-4 / 4.4e-3 / 2.1e-4 on random data).
std::vector<GpuFdkKernel> builtinRows() {
  const Tunable zPerThread{"z-per-thread", "4", "voxels per thread along z (4, 8 or 16)"};
  const Tunable pairsPerThread{"z-per-thread", "4", "voxel pairs per thread along z (4, 8 or 16)"};
  // name, description, tunables, accuracy, input, zMirror, runs, fallback, launch
  return {
      {"fdk.bp.naive",
       "GPU, seed 000 naive: projection and matrix in global memory, software bilinear, one view "
       "per launch, read-modify-write",
       {},
       AccuracyClass::Exact,
       GpuFdkInput::Linear,
       false,
       "",
       "",
       TOMOWB_FDK_LAUNCH(fdkBpNaive)},
      {"fdk.bp.tex",
       "GPU, seed 000 texture: 2-D texture per view (hardware bilinear, border zero), matrix in "
       "constant memory, voxel prefetch",
       {},
       AccuracyClass::HardwareInterpolation,
       GpuFdkInput::TexturePerView,
       false,
       "",
       "",
       TOMOWB_FDK_LAUNCH(fdkBpTex)},
      {"fdk.bp.tex-multi",
       "GPU, seed 000 multiple projections: K views per launch from a layered texture",
       {{"K", std::to_string(kGpuFdkDefaultViewsPerLaunch), "views per launch (1-64)"}},
       AccuracyClass::HardwareInterpolation,
       GpuFdkInput::Layered,
       false,
       "",
       "",
       TOMOWB_FDK_LAUNCH(fdkBpTexMulti)},
      {"fdk.bp.slab",
       "GPU, seed 001 final: voxel column per thread in registers over a view batch, one write, "
       "only the rows a slab needs uploaded",
       {zPerThread},
       AccuracyClass::HardwareInterpolation,
       GpuFdkInput::Layered,
       false,
       "",
       "",
       TOMOWB_FDK_LAUNCH(fdkBpSlab)},
      {"fdk.bp.layered16",
       "GPU: float32 layered texture, 16 z-voxels per thread, u and 1/w once per column and view",
       {},
       AccuracyClass::HardwareInterpolation,
       GpuFdkInput::Layered,
       false,
       "",
       "",
       TOMOWB_FDK_LAUNCH(fdkBpLayered16)},
      {"fdk.bp.mirror-half2",
       "GPU: half2 texels hold rows v and V-1-v, one fetch serves voxels z and -z (untilted "
       "detector centred on the source plane; else layered16)",
       {},
       AccuracyClass::HalfPrecision,
       GpuFdkInput::MirrorHalf2,
       true,
       "",
       "fdk.bp.layered16",
       TOMOWB_FDK_LAUNCH(fdkBpMirrorTexture)},
      {"fdk.bp.mirror-float2",
       "GPU: float2 texels hold rows v and V-1-v (float32 data), one fetch serves voxels z and -z "
       "(mirror geometries; else layered16)",
       {},
       AccuracyClass::HardwareInterpolation,
       GpuFdkInput::MirrorFloat2,
       true,
       "",
       "fdk.bp.layered16",
       TOMOWB_FDK_LAUNCH(fdkBpMirrorTexture)},
      {"fdk.bp.soft",
       "GPU: software bilinear (float32, 4 loads + 3 FMA) from a zero-bordered buffer, 16 "
       "z-voxels per thread: 20-40x less interpolation error than the texture unit",
       {},
       AccuracyClass::Exact,
       GpuFdkInput::Padded,
       false,
       "",
       "",
       TOMOWB_FDK_LAUNCH(fdkBpSoft)},
      {"fdk.bp.soft-mirror",
       "GPU: software bilinear, float32, z-mirror: two 16-byte loads give the taps of voxels z and "
       "-z (mirror geometries; else soft)",
       {pairsPerThread},
       AccuracyClass::Exact,
       GpuFdkInput::SoftMirror,
       true,
       "",
       "fdk.bp.soft",
       TOMOWB_FDK_LAUNCH(fdkBpSoftMirror)},
      {"fdk.bp.soft-mirror-half",
       "GPU: software bilinear from half-precision taps, z-mirror: one 16-byte load per voxel pair "
       "(mirror geometries; else soft)",
       {pairsPerThread},
       AccuracyClass::HalfPrecision,
       GpuFdkInput::SoftMirrorHalf,
       true,
       "",
       "fdk.bp.soft",
       TOMOWB_FDK_LAUNCH(fdkBpSoftMirrorHalf)},
      {"fdk.bp.mirror-hybrid",
       "GPU: mirror-half2's texture for 3 views in 4, the 4th sampled with 16-byte loads and "
       "half2 arithmetic beside the texture unit (mirror geometries; else hybrid)",
       {},
       AccuracyClass::HalfPrecision,
       GpuFdkInput::MirrorHybrid,
       true,
       "",
       "fdk.bp.hybrid",
       TOMOWB_FDK_LAUNCH(fdkBpMirrorHybrid)},
      {"fdk.bp.hybrid",
       "GPU: layered16's float32 texture for 2 views in 3, the 3rd sampled in float32 from "
       "16-byte tap quads beside the texture unit (any flat-detector geometry)",
       {},
       AccuracyClass::HardwareInterpolation,
       GpuFdkInput::Hybrid,
       false,
       "",
       "",
       TOMOWB_FDK_LAUNCH(fdkBpHybrid)},
      {"fdk.bp.fast",
       "GPU: the fastest kernel this geometry allows (mirror-hybrid, else hybrid)",
       {},
       AccuracyClass::HalfPrecision,
       GpuFdkInput::MirrorHybrid,
       true,
       "fdk.bp.mirror-hybrid",
       "fdk.bp.hybrid",
       nullptr},
  };
}

}  // namespace

std::int64_t inputBytesPerPixelOf(GpuFdkInput input) {
  const std::int64_t every = hybridLoadEvery(input);
  switch (input) {
    case GpuFdkInput::MirrorHybrid:
      return 8 + (16 + every - 1) / every;
    case GpuFdkInput::Hybrid:
      return 4 + (16 + every - 1) / every;
    case GpuFdkInput::Linear:
    case GpuFdkInput::TexturePerView:
    case GpuFdkInput::Layered:
    case GpuFdkInput::Padded:
      return 4;
    case GpuFdkInput::MirrorHalf2:
      return 8;
    case GpuFdkInput::MirrorFloat2:
    case GpuFdkInput::SoftMirror:
    case GpuFdkInput::SoftMirrorHalf:
      return 16;
  }
  return 4;
}

int hybridLoadEvery(GpuFdkInput input) {
  if (input != GpuFdkInput::MirrorHybrid && input != GpuFdkInput::Hybrid) return 0;
  static const int chosen = [] {
    const char* text = std::getenv("TOMOWB_FDK_HYBRID_EVERY");  // NOLINT(concurrency-mt-unsafe)
    if (text == nullptr) return 0;
    char* end = nullptr;
    const long n = std::strtol(text, &end, 10);
    return end != text && *end == '\0' && n >= 2 && n <= 64 ? int(n) : 0;
  }();
  if (chosen > 0) return chosen;
  return input == GpuFdkInput::MirrorHybrid ? kMirrorHybridLoadEvery : kHybridLoadEvery;
}

const std::vector<GpuFdkKernel>& gpuFdkKernels() {
  static const std::vector<GpuFdkKernel> rows = [] {
    std::vector<GpuFdkKernel> built = builtinRows();
    for (GpuFdkKernel& row : built) row.rowPieces = true;  // FdkKernels.cu honours yFirst/yCount
    return built;
  }();
  return rows;
}

const GpuFdkKernel* findGpuFdkKernel(std::string_view name) {
  for (const GpuFdkKernel& k : gpuFdkKernels())
    if (k.name == name) return &k;
  return nullptr;
}

GpuKernelFootprint footprintOf(const GpuFdkKernel& kernel) {
  const GpuFdkKernel* planned = kernel.runs.empty() ? &kernel : findGpuFdkKernel(kernel.runs);
  assert(planned);
  return {inputBytesPerPixelOf(planned->input),
          planned->zMirror ? GpuSplitAxis::ZMirror : GpuSplitAxis::Z,
          std::max(1, hybridLoadEvery(planned->input))};
}

std::uint64_t loadPathGridBytes(GpuFdkInput input, std::int64_t capacity, std::int64_t rows,
                                std::int64_t cols) {
  const std::int64_t every = loadPathEvery(input, capacity);
  if (every == 0) return 0;
  return std::uint64_t((capacity + every - 1) / every) * std::uint64_t(rows + 2) *
         std::uint64_t(cols + 2) * 16;
}

int loadPathEvery(GpuFdkInput input, std::int64_t capacity) {
  const int every = hybridLoadEvery(input);
  return capacity >= every ? every : 0;
}

}  // namespace tomowb::fdk
