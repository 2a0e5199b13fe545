// The separable-footprint projectors on the GPU (issue #19; formulas:
// ../shared/reference/sf-projectors.md section 3; kernels: SfKernels.cuh; docs/sf-projectors.md)
// through a plain C++ header (no CUDA types; DESIGN.md). Registered per model:
//   sf-tr: sf.fp.gather, sf.fp.atomic, sf.bp.gather       (SF-TR-A2; tunable "amplitude": a1)
//   sf-tt: sf.fp.gather-tt, sf.fp.atomic-tt, sf.bp.gather-tt
// The gather kernels are deterministic (the same bits every run); the atomic forward projector
// adds in shared memory in an order that varies run to run (about 1e-7 relative). Each model's
// backprojector is the exact transpose (to float32 rounding) of its gather forward projector, and
// of its atomic one, which computes the same weights. A build without CUDA registers nothing.
#pragma once

#include <memory>
#include <string>

#include "recon/operator/ProjectorPair.h"
#include "recon/variant/VariantRegistry.h"

namespace tomowb::cuda {

void registerGpuSfVariants(VariantRegistry& registry);

// The device-resident pair of two GPU SF projectors of one model (their bindDevicePair): the
// volume and projections held on the first GPU of problem.gpu.devices. Null, with the reason in
// `why`, when a partner is not a GPU SF projector of the same model or the arrays do not fit.
std::unique_ptr<op::ProjectorPair> bindGpuSfPair(const KernelVariant& forward,
                                                 const KernelVariant& back,
                                                 const op::ProjectorProblem& problem,
                                                 std::string& why);

}  // namespace tomowb::cuda
