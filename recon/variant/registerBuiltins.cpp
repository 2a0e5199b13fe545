// One line per kernel variant (STYLE.md); the GPU variants (issue #6) come from
// recon/cuda/GpuFdk.cpp, or none in a build without CUDA.
#include "recon/cuda/GpuFdk.h"
#include "recon/fdk/BackprojectorCpu.h"
#include "recon/variant/VariantRegistry.h"

namespace tomowb {

void registerBuiltins(VariantRegistry& r) {
  r.add({"fdk.bp.cpu",
         "CPU voxel-driven backprojection, float32, AVX2 gathers + OpenMP over volume rows",
         {},
         false,
         fdk::backprojectCpu,
         {}});
  r.add({"fdk.bp.cpu-f64",
         "CPU reference backprojection in float64 (scalar, OpenMP): the accuracy yardstick",
         {},
         false,
         fdk::backprojectCpuReference,
         {}});
  cuda::registerGpuVariants(r);
}

}  // namespace tomowb
