// GPU projectors for electron tomography (issue #7, seed 004; reference/sirt-et.md sections 4, 5
// and 9) through a plain C++ header (no CUDA types; DESIGN.md):
//  - the "et.fp." and "et.bp." GPU variants for the registry: seed 004's four forward-projection
//    orderings, our multi-slice texture kernels, a matched software pair and the voxel-driven
//    backprojector; aligned single-axis tilt series run the slice kernels
//    (recon/projector/SingleAxisGeometry.h), every other parallel-beam geometry the general 3-D
//    kernels (the report says why);
//  - the device-resident projector pair the solvers of recon/iterative/ run on.
// SIRT, OS-SIRT and SART fused on the GPU (the pair's fast path) live in
// recon/iterative/cuda/FusedSirt.h. A build without CUDA registers nothing, and the functions
// throw ParameterError.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>

#include "recon/core/Volume.h"
#include "recon/data/ProjectionStack.h"
#include "recon/job/JobContext.h"
#include "recon/operator/ProjectorPair.h"
#include "recon/variant/VariantRegistry.h"

namespace tomowb::cuda {

// Adds et.fp.unordered, et.fp.strips, et.fp.strips-angles, et.fp.segments, et.fp.fast,
// et.fp.matched, et.bp.voxel, et.bp.fast and et.bp.matched (CUDA builds only).
void registerGpuEtVariants(VariantRegistry& registry);

// The host-to-host entry points of the GPU variants with explicit tunables (the registry's
// entries use the defaults): upload, project on the first visible GPU, download; aligned
// single-axis problems slab by slab. As KernelVariant::forwardProject / backprojectViews.
void forwardProjectOnGpu(const std::string& variant,
                         const std::map<std::string, std::string>& tunables, const Volume& volume,
                         ProjectionStack& projections, std::span<const std::int64_t> views,
                         JobContext& context);
void backprojectOnGpu(const std::string& variant,
                      const std::map<std::string, std::string>& tunables,
                      const ProjectionStack& projections, Volume& volume,
                      std::span<const std::int64_t> views, JobContext& context);

// The device-resident pair of two GPU projectors (every GPU et. variant's bindDevicePair): the
// problem held on the first GPU of problem.gpu.devices, forward and adjoint on device arrays,
// device ArrayOps, so CGLS and the ordered-subset solver copy nothing to the host between
// iterations. Null, with the reason in `why`, when one of the two runs on the CPU, the problem
// exceeds the textures, or the pair and a solver's arrays (six volumes and three projection
// stacks) do not fit the GPU; the caller then runs the pair on host arrays. Throws
// ParameterError for cone beams.
std::unique_ptr<op::ProjectorPair> bindGpuEtPair(const KernelVariant& forward,
                                                 const KernelVariant& back,
                                                 const op::ProjectorProblem& problem,
                                                 std::string& why);

}  // namespace tomowb::cuda
