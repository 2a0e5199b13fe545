// Voxelised ground truth of a Phantom: each voxel holds the mean of supersample^3 point samples
// of the phantom spread evenly over the voxel (sub-sample k of n at (k + 0.5) / n - 0.5 voxel
// from the centre, per axis). This approximates the voxel's true average (its partial-volume
// value), which reconstructions and metrics compare against. Samples are taken exactly, line by
// line: each shape's interval along a line of samples is solved in closed form, so the cost is
// per line, not per sample and shape.
#pragma once

#include <Eigen/Core>

#include "recon/core/Volume.h"
#include "recon/job/JobContext.h"
#include "recon/phantom/Phantom.h"

namespace tomowb::phantom {

inline constexpr int kMaxVoxeliseSupersample = 16;

// Throws ParameterError for a supersample outside 1..kMaxVoxeliseSupersample or a bad volume
// (see Volume), OutOfMemoryError if the volume cannot fit, Cancelled if the context's token is
// set (checked between blocks of about 512 voxel rows). OpenMP over rows of voxels.
Volume voxelisePhantom(const Phantom& phantom, VolumeShape shape,
                       const Eigen::Vector3d& voxelSizeMm, const Eigen::Vector3d& originMm,
                       int supersample = 1, const JobContext* context = nullptr);

}  // namespace tomowb::phantom
