// The separable-footprint projectors on the GPU (issue #19; formulas:
// ../shared/reference/sf-projectors.md section 3; kernels: SfKernels.cuh; docs/sf-projectors.md)
// through a plain C++ header (no CUDA types; DESIGN.md). Registered per model:
//   sf-tr: sf.fp.wu-fessler, sf.fp.gather, sf.fp.atomic, sf.bp.gather, sf.bp.wu-fessler
//          (SF-TR-A2; tunable "amplitude": a1)
//   sf-tt: the same names with -tt
// Flat and arc (cylindrical) detectors. sf.fp.wu-fessler is the seed's scheme (voxel columns
// grouped by their first detector column, the grouping a radix sort on the GPU), sf.bp.wu-fessler
// its three-kernel transpose. The gather
// and Wu-Fessler kernels are deterministic (the same bits every run); the atomic forward projector
// adds in shared memory in an order that varies run to run (about 1e-7 relative). Every kernel of a
// model computes the same weights, so any forward projector and backprojector of one model are each
// other's transpose to float32 rounding; the backprojectors name sf.fp.wu-fessler (the fast
// deterministic one) as the forward projector they are the transpose of, which makes it and
// sf.bp.gather the model's default pair. A build without CUDA registers nothing.
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
