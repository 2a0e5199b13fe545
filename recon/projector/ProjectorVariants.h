// The CPU projectors of the iterative algorithms as registry entries (VariantRegistry.h): the
// Joseph forward projector, its exact transpose, and the voxel-driven backprojector.
#pragma once

#include "recon/variant/VariantRegistry.h"

namespace tomowb::projector {

KernelVariant josephForwardCpuVariant();      // "et.fp.cpu"
KernelVariant josephBackprojectCpuVariant();  // "et.bp.cpu-matched"
KernelVariant voxelBackprojectCpuVariant();   // "et.bp.cpu-voxel"

}  // namespace tomowb::projector
