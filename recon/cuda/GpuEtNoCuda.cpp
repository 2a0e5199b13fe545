// Stands in for GpuEt.cpp in builds without CUDA: no GPU projector variants, no device SIRT.
#include "recon/core/Error.h"
#include "recon/cuda/GpuEt.h"

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

void reconstructIterativeGpu(const ProjectionStack& /*projections*/,
                             const iterative::IterativeParams& params, Volume& /*volume*/,
                             JobContext& /*context*/, iterative::IterativeReport& /*report*/) {
  throw ParameterError("variant", "'" + params.forwardVariant + "' and '" + params.backVariant +
                                      "' need a GPU, and this build has no CUDA");
}

struct IterativeBenchmark::Impl {};

IterativeBenchmark::IterativeBenchmark(const ProjectionStack& /*projections*/,
                                       const iterative::IterativeParams& /*params*/,
                                       const Volume& /*start*/, int /*device*/) {
  throw ParameterError("benchmark", "the GPU iterative benchmark needs a build with CUDA");
}
IterativeBenchmark::~IterativeBenchmark() = default;
double IterativeBenchmark::forwardSeconds(int /*repeats*/) {
  return 0.0;
}
double IterativeBenchmark::backprojectSeconds(int /*repeats*/) {
  return 0.0;
}
double IterativeBenchmark::iterationSeconds(int /*iterations*/) {
  return 0.0;
}
void IterativeBenchmark::download(Volume& /*volume*/) const {}
std::string IterativeBenchmark::summary() const {
  return {};
}

}  // namespace tomowb::cuda
