// Registration of the DIRECT projectors (DirectPair.h): the CPU float64 pair here, the GPU pairs
// through GpuDirect.h.
#include "recon/pet/DirectVariants.h"

#include "recon/pet/DirectPair.h"
#include "recon/pet/GpuDirect.h"

namespace tomowb::pet {

namespace {

std::unique_ptr<op::ProjectorPair> bindCpu(const KernelVariant& forward, const KernelVariant& back,
                                           const DirectProblem& problem, std::string& why) {
  if (forward.needsGpu || back.needsGpu) {
    why = "the CPU DIRECT projectors pair only with each other";
    return nullptr;
  }
  auto kernels = std::make_shared<const DirectKernels>(problem.grid, problem.views, problem.kernel);
  return makeCpuDirectPair(problem, std::move(kernels), forward.name, back.name);
}

}  // namespace

void registerDirectVariants(VariantRegistry& registry) {
  KernelVariant fp;
  fp.name = "direct.fp.cpu";
  fp.role = VariantRole::PetForwardProjector;
  fp.description =
      "CPU DIRECT forward projector: the SR kernel gathered at the source voxel's class, float64 "
      "sums, OpenMP over output slices (the reference)";
  fp.model = "direct";
  fp.bindDirectPair = bindCpu;
  KernelVariant bp = fp;
  bp.name = "direct.bp.cpu";
  bp.role = VariantRole::PetBackprojector;
  bp.description = "CPU DIRECT backprojector: the exact transpose, float64 sums (the reference)";
  bp.adjointOf = fp.name;
  registry.add(std::move(fp));
  registry.add(std::move(bp));
  registerGpuDirectVariants(registry);
}

}  // namespace tomowb::pet
