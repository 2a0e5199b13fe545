// AlignedSliceProjector: the CPU projectors' fast path for an aligned single-axis tilt series
// (SingleAxisGeometry.h). There every slice is the same 2-D problem, so the coordinates, taps and
// weights are computed once per ray sample (or per voxel column) and applied to all slices at
// once, from copies of the volume and the projections laid out slice-fastest, where the slices
// of one sample are contiguous and the inner loop vectorises. The results are those of
// JosephProjector.h and VoxelBackprojector.h (the same model and float64 sums) to rounding; the
// generic paths stay for every other geometry and for the float64 span overloads.
#pragma once

#include <cstdint>
#include <vector>

#include "recon/core/Volume.h"
#include "recon/data/ProjectionStack.h"
#include "recon/job/JobContext.h"

namespace tomowb::projector::aligned {

// Each returns false, doing nothing, when the problem is not aligned single-axis (or too small
// for the fast path to pay); the caller then takes the generic path. `views` is a checked list.
bool josephForward(const Volume& volume, ProjectionStack& projections,
                   const std::vector<std::int64_t>& views, const JobContext* context);
// Adds the exact transpose of josephForward.
bool josephBackproject(const ProjectionStack& projections, Volume& volume,
                       const std::vector<std::int64_t>& views, const JobContext* context);
// Adds the voxel-driven backprojection.
bool voxelBackproject(const ProjectionStack& projections, Volume& volume,
                      const std::vector<std::int64_t>& views, const JobContext* context);

}  // namespace tomowb::projector::aligned
