// ForwardProjectorCpu: ray-driven forward projection of a voxel Volume for any Geometry view,
// cone or parallel beam, in vector form (Geometry.h). Each detector pixel's ray (source -> pixel
// centre, or the whole line along rayDirection) is clipped to the volume's box, the faces of the
// outer voxels, and sampled at the midpoints of equal steps of at most half the smallest voxel
// edge, with trilinear interpolation between voxel centres (the outer half voxel takes the value
// of the nearest voxel, so a constant volume integrates to exactly value x chord length). This is
// the line-integral model of the analytic projector (recon/phantom/AnalyticProjector.h) applied
// to voxels; the geometry editor's consistency overlay uses it to project one view at a time.
// Rays are only traced through the part of the box that holds non-zero voxels.
#pragma once

#include <cstdint>
#include <span>

#include "recon/core/Volume.h"
#include "recon/data/ProjectionStack.h"
#include "recon/geometry/Geometry.h"
#include "recon/job/JobContext.h"

namespace tomowb::projector {

struct ForwardProjectionOptions {
  // Sampling step along each ray, in units of the smallest voxel edge: 0 < step <= 0.5.
  double stepVoxels = 0.5;
};

// Projects the listed views (each 0 <= index < viewCount, any order, repeats allowed); the other
// views of the returned stack stay zero. Values are line integrals: voxel value x mm. Throws
// ParameterError for an empty volume, a bad view index or step (naming it), or a bad geometry
// (Geometry::validate); Cancelled if the context's token is set (checked once per view and
// between rows). OpenMP over detector rows; the result does not depend on the thread count.
ProjectionStack forwardProjectViews(const Volume& volume, const Geometry& geometry,
                                    std::span<const std::int64_t> viewIndices,
                                    const JobContext* context = nullptr,
                                    const ForwardProjectionOptions& options = {});

// Every view.
ProjectionStack forwardProject(const Volume& volume, const Geometry& geometry,
                               const JobContext* context = nullptr,
                               const ForwardProjectionOptions& options = {});

// One view into `pixels` ([row][col], rows x cols of the geometry's detector), for callers that
// do not want a whole stack (the consistency overlay). Same errors as above.
void forwardProjectView(const Volume& volume, const Geometry& geometry, std::int64_t viewIndex,
                        std::span<float> pixels, const JobContext* context = nullptr,
                        const ForwardProjectionOptions& options = {});

}  // namespace tomowb::projector
