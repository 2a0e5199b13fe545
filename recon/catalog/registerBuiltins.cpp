// One line per kernel variant (STYLE.md); the GPU variants (issues #6 and #7) come from the
// families' cuda/ folders (recon/fdk/cuda/, recon/projector/cuda/), or none in a build without
// CUDA.
#include "recon/catalog/Builtins.h"
#include "recon/fdk/BackprojectorCpu.h"
#include "recon/fdk/cuda/GpuFdk.h"
#include "recon/pet/DirectVariants.h"
#include "recon/projector/ProjectorVariants.h"
#include "recon/projector/cuda/GpuEt.h"
#include "recon/projector/sf/SeparableFootprintProjector.h"
#include "recon/projector/sf/cuda/GpuSf.h"
#include "recon/projector/siddon/SiddonProjector.h"
#include "recon/qa/TestVariants.h"
#include "recon/variant/VariantRegistry.h"

namespace tomowb::catalog {

namespace {

KernelVariant fdkBackprojector(std::string name, std::string description, FdkBackprojectFn fn) {
  KernelVariant v;
  v.name = std::move(name);
  v.role = VariantRole::FdkBackprojector;
  v.description = std::move(description);
  v.backproject = std::move(fn);
  // Voxels go through each view's 3x4 matrix; fdk::reconstructFdk resamples arc (cylindrical)
  // detectors onto flat ones first (ArcRebinning.h), so every geometry FDK takes is supported.
  return v;
}

}  // namespace

void registerBuiltins(VariantRegistry& r) {
  r.add(fdkBackprojector(
      "fdk.bp.cpu",
      "CPU voxel-driven backprojection, float32, AVX2 gathers + OpenMP over volume rows",
      fdk::backprojectCpu));
  r.add(fdkBackprojector(
      "fdk.bp.cpu-f64",
      "CPU reference backprojection in float64 (scalar, OpenMP): the accuracy yardstick",
      fdk::backprojectCpuReference));
  cuda::registerGpuVariants(r);
  r.add(projector::josephForwardCpuVariant());      // "et.fp.cpu"
  r.add(projector::josephBackprojectCpuVariant());  // "et.bp.cpu-matched"
  r.add(projector::voxelBackprojectCpuVariant());   // "et.bp.cpu-voxel"
  projector::registerSiddonPair(r);                 // "et.fp.cpu-siddon" + "et.bp.cpu-siddon"
  projector::registerSeparableFootprintPairs(r);    // "sf.fp.cpu-tr" + "sf.bp.cpu-tr", "-tt"
  cuda::registerGpuEtVariants(r);
  cuda::registerGpuSfVariants(r);  // "sf.fp.gather", "sf.fp.atomic", "sf.bp.gather" (+ "-tt")
  pet::registerDirectVariants(r);  // "direct.fp.cpu" + "direct.bp.cpu", GPU gather-tex/-reg/fft
  qa::registerTestVariants(r);     // only with TOMOWB_TEST_VARIANTS set (recon/qa/TestVariants.h)
}

void installBuiltinVariants() noexcept {
  VariantRegistry::installBuiltins(&registerBuiltins);
}

}  // namespace tomowb::catalog
