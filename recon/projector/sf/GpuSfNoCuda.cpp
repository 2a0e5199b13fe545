// Stands in for the GPU separable-footprint projectors (cuda/GpuSf.h) in builds without CUDA.
#include "recon/projector/sf/cuda/GpuSf.h"

namespace tomowb::cuda {

void registerGpuSfVariants(VariantRegistry& /*registry*/) {}

std::unique_ptr<op::ProjectorPair> bindGpuSfPair(const KernelVariant& /*forward*/,
                                                 const KernelVariant& /*back*/,
                                                 const op::ProjectorProblem& /*problem*/,
                                                 std::string& why) {
  why = "this build has no CUDA";
  return nullptr;
}

}  // namespace tomowb::cuda
