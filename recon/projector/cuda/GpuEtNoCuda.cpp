// Stands in for the GPU projectors (GpuEt.h) in builds without CUDA: no GPU projector variants.
#include "recon/core/Error.h"
#include "recon/projector/cuda/GpuEt.h"

namespace tomowb::cuda {

void registerGpuEtVariants(VariantRegistry& /*registry*/) {}

void forwardProjectOnGpu(const std::string& variant,
                         const std::map<std::string, std::string>& /*tunables*/,
                         const Volume& /*volume*/, ProjectionStack& /*projections*/,
                         std::span<const std::int64_t> /*views*/, JobContext& /*context*/) {
  throw ParameterError("variant", "'" + variant + "' needs a GPU, and this build has no CUDA");
}

void backprojectOnGpu(const std::string& variant,
                      const std::map<std::string, std::string>& /*tunables*/,
                      const ProjectionStack& /*projections*/, Volume& /*volume*/,
                      std::span<const std::int64_t> /*views*/, JobContext& /*context*/) {
  throw ParameterError("variant", "'" + variant + "' needs a GPU, and this build has no CUDA");
}

}  // namespace tomowb::cuda
