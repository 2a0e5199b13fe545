// JosephProjector: the ray-driven, slice-interpolated forward projector of the iterative
// algorithms (SIRT, OS-SIRT, SART; reference/sirt-et.md section 4) and its exact transpose.
//
// The model (docs/et-projectors.md): the ray of detector pixel (c, r) of a view (the line along
// rayDirection through the pixel centre for parallel beams, the line from the source through it
// for cone beams) is cut by the planes of voxel centres across its dominant axis, the axis a
// along which it crosses the most voxels per mm (|dir_a| / voxelSize_a largest). On each plane
// the volume is interpolated bilinearly in the two other axes, with zero outside the volume, and
// the samples are summed with the weight voxelSize_a / |dir_a|, the ray length between planes.
// A constant volume thus integrates to value x chord length (up to the half voxels at the ends).
// In a single-axis tilt series whose detector rows fall on the volume's slices this is the 2-D
// Joseph projector of each slice, as in seed 004 and ASTRA's par_fp.
//
// josephBackproject is the exact adjoint of josephForward (<A x, y> = <x, A^T y>): it scatters each
// ray's value with the same weights. Both compute positions and sums in float64; the span
// overloads on double data exist for the float64 adjoint test.
#pragma once

#include <Eigen/Core>
#include <cstdint>
#include <span>

#include "recon/core/Volume.h"
#include "recon/core/VolumeGrid.h"
#include "recon/data/ProjectionStack.h"
#include "recon/geometry/Geometry.h"
#include "recon/job/JobContext.h"

namespace tomowb::projector {

// Where a voxel array lies (recon/core/VolumeGrid.h), by its old name here.
using VoxelGrid = tomowb::VolumeGrid;

// Overwrites the listed views of `projections` (its geometry says where the rays are) with the
// projections of `volume`; the other views are left as they are. An empty `views` means every
// view. Throws ParameterError for a bad view index or an invalid geometry, Cancelled (checked per
// view) if the context's token is set. OpenMP over detector rows; deterministic.
void josephForward(const Volume& volume, ProjectionStack& projections,
                   std::span<const std::int64_t> views = {}, const JobContext* context = nullptr);

// Adds A^T y (the listed views of `projections` only) into `volume`. Deterministic: each voxel
// sums its rays in the same order whatever the thread count.
void josephBackproject(const ProjectionStack& projections, Volume& volume,
                       std::span<const std::int64_t> views = {},
                       const JobContext* context = nullptr);

// The same on float64 arrays ([view][row][col] and (z*ny + y)*nx + x), for the adjoint test.
void josephForward(std::span<const double> volume, const VoxelGrid& grid, const Geometry& geometry,
                   std::span<double> projections, std::span<const std::int64_t> views = {});
void josephBackproject(std::span<const double> projections, const Geometry& geometry,
                       std::span<double> volume, const VoxelGrid& grid,
                       std::span<const std::int64_t> views = {});

// Every view index of a geometry, or `views` checked against it (ParameterError naming the bad
// index): the view lists the projectors accept.
std::vector<std::int64_t> checkedViewList(const Geometry& geometry,
                                          std::span<const std::int64_t> views);

}  // namespace tomowb::projector
