// Voxel-driven FDK / FBP backprojection on the CPU (DESIGN.md, kernel variants "fdk.bp.cpu" and
// "fdk.bp.cpu-f64"): every voxel centre is mapped through the view's 3x4 matrix (scaled so
// that w = 1 at the isocentre), the filtered projection is sampled bilinearly with zero outside
// the detector (RabbitCT's rule), weighted by 1/w^2 for cone beams, and summed over views.
// The projections must already carry every other weight (FdkWeightPlan::weightView).
#pragma once

#include "recon/core/Volume.h"
#include "recon/data/ProjectionStack.h"
#include "recon/job/JobContext.h"

namespace tomowb::fdk {

// Single precision, AVX2 + FMA when the CPU has them (8 voxels per instruction, hardware
// gathers), otherwise scalar; threaded with OpenMP over slices. Adds into `volume`.
void backprojectCpu(const ProjectionStack& filtered, Volume& volume, JobContext& context);

// Double precision scalar reference (same sampling rule), for tests and A/B comparisons.
void backprojectCpuReference(const ProjectionStack& filtered, Volume& volume, JobContext& context);

// True if backprojectCpu runs its AVX2 path on this CPU.
bool cpuBackprojectorUsesAvx2();

}  // namespace tomowb::fdk
