// Stands in for FusedSirt.cpp in builds without CUDA: no fused GPU SIRT.
#include "recon/core/Error.h"
#include "recon/iterative/cuda/FusedSirt.h"

namespace tomowb::cuda {

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
