// Stands in for GpuFdk.cpp in builds without CUDA: no GPU variants, no GPU harness.
#include "recon/core/Error.h"
#include "recon/fdk/GpuFdkKernelTable.h"
#include "recon/fdk/cuda/GpuFdk.h"

namespace tomowb::cuda {

void registerGpuVariants(VariantRegistry& /*registry*/) {}
void addGpuFdkVariant(VariantRegistry& /*registry*/, const fdk::GpuFdkKernel& /*kernel*/) {}

KernelChoice chooseKernel(const std::string& variant, const ProjectionStack& /*projections*/,
                          const Volume& /*volume*/) {
  return {variant, "built without CUDA"};
}

ProjectionStack filterProjectionsOnGpu(const ProjectionStack& /*projections*/,
                                       const fdk::FdkWeightPlan& /*weightPlan*/,
                                       const fdk::RampFilterParams& /*filter*/, int /*device*/) {
  throw ParameterError("device", "GPU filtering needs a GPU, and this build has no CUDA");
}

struct DeviceBackprojection::Impl {};

DeviceBackprojection::DeviceBackprojection(const ProjectionStack& /*filtered*/,
                                           const Volume& /*grid*/, const std::string& variant,
                                           const std::map<std::string, std::string>& /*tunables*/,
                                           int /*device*/) {
  throw ParameterError("variant", "'" + variant + "' needs a GPU, and this build has no CUDA");
}

DeviceBackprojection::DeviceBackprojection(const ProjectionStack& /*filtered*/,
                                           const Volume& /*grid*/, const fdk::GpuFdkKernel& variant,
                                           const std::map<std::string, std::string>& /*tunables*/,
                                           int /*device*/) {
  throw ParameterError("variant", "'" + variant.name + "' needs a GPU, and this build has no CUDA");
}

DeviceBackprojection::~DeviceBackprojection() = default;
double DeviceBackprojection::run() {
  return 0.0;
}
void DeviceBackprojection::download(Volume& /*volume*/) const {}
const std::string& DeviceBackprojection::kernel() const {
  static const std::string none;
  return none;
}

}  // namespace tomowb::cuda
