// VoxelBackprojector: the voxel-driven backprojection of the iterative algorithms (seed 004's
// backprojector; reference/sirt-et.md section 4). Each voxel centre is projected onto every
// listed view, the view is sampled there bilinearly (pixel centres on integers, zero outside the
// detector) and the samples are summed with the weight that makes this an approximation of the
// Joseph projector's transpose: the voxel's volume over the detector area one ray stands for
// across the ray, V / |(u x v) . dir|, times (|pixel - source| / |voxel - source|)^2 for cone
// beams. It is not the exact transpose (JosephProjector.h has that), but it is smoother and
// cheaper, which is why ASTRA and the seed pair it with the Joseph forward projector. It projects
// voxels through each view's 3x4 matrix, so it refuses cylindrical (arc) detectors.
#pragma once

#include <cstdint>
#include <span>

#include "recon/core/Volume.h"
#include "recon/data/ProjectionStack.h"
#include "recon/job/JobContext.h"

namespace tomowb::projector {

// Adds the voxel-driven backprojection of the listed views (all if empty) into `volume`. Throws
// ParameterError for a bad view index or geometry (a cylindrical detector too), Cancelled (checked
// per slice) if asked. OpenMP over slices and rows; deterministic.
void voxelBackproject(const ProjectionStack& projections, Volume& volume,
                      std::span<const std::int64_t> views = {},
                      const JobContext* context = nullptr);

}  // namespace tomowb::projector
