// Stands in for the DIRECT GPU side (GpuDirect.h) in builds without CUDA.
#include "recon/core/Error.h"
#include "recon/pet/GpuDirect.h"

namespace tomowb::pet {

std::unique_ptr<DirectPair> makeGpuDirectPair(const DirectProblem& /*problem*/,
                                              std::shared_ptr<const DirectKernels> /*kernels*/,
                                              GpuDirectScheme /*forward*/, GpuDirectScheme /*back*/,
                                              std::string& why) {
  why = "this build has no CUDA";
  return nullptr;
}

void registerGpuDirectVariants(VariantRegistry& /*registry*/) {}

struct GpuEventDeposition::Impl {};

GpuEventDeposition::GpuEventDeposition(const ScannerModel& /*scanner*/, const VolumeGrid& /*grid*/,
                                       const ViewBinning& /*views*/,
                                       std::span<const ListModeEvent> /*events*/,
                                       const GpuRunOptions& /*gpu*/) {
  throw ParameterError("device", "GPU deposition needs a build with CUDA");
}
GpuEventDeposition::~GpuEventDeposition() = default;
DepositionReport GpuEventDeposition::deposit(const DepositionParams& /*params*/,
                                             HistoImages* /*histo*/) {
  return {};
}
double GpuEventDeposition::uploadSeconds() const noexcept {
  return 0;
}

DepositionReport depositEventsGpu(const ScannerModel& /*scanner*/,
                                  std::span<const ListModeEvent> /*events*/,
                                  const DepositionParams& /*params*/, HistoImages& /*histo*/,
                                  const GpuRunOptions& /*gpu*/, JobContext& /*context*/) {
  throw ParameterError("device", "GPU deposition needs a build with CUDA");
}

}  // namespace tomowb::pet
