// Analytic projector: exact line integrals of a Phantom for every pixel of any Geometry, cone or
// parallel beam, in vector form. Each ray is intersected with each shape in closed form (no
// sampling along the ray), so the only approximation is the one asked for: a pixel's value is
// the mean of supersample x supersample rays spread evenly over the pixel's area, which models
// a detector cell that integrates over its area; supersample = 1 is the ray through the centre.
// Cone-beam rays run from the source to the pixel (a shape behind the source or beyond the
// detector adds only the part on that segment); parallel rays are whole lines.
#pragma once

#include "recon/data/ProjectionStack.h"
#include "recon/geometry/Geometry.h"
#include "recon/job/JobContext.h"
#include "recon/phantom/Phantom.h"

namespace tomowb::phantom {

struct AnalyticProjectionOptions {
  // Rays per pixel along each detector axis: sub-ray k of n sits at (k + 0.5) / n - 0.5 pixel
  // from the centre, so the rays tile the pixel. 1 to kMaxSupersample.
  int supersample = 1;
  static constexpr int kMaxSupersample = 64;
};

// Line integrals (density unit x mm) of the phantom, one per pixel, [view][row][col] as the
// geometry says. Throws ParameterError for a bad supersample or geometry (Geometry::validate),
// Cancelled if the context's token is set (checked between blocks of about 512 detector rows:
// every view, or a few views of a small detector).
// OpenMP over views x rows; the result does not depend on the thread count.
ProjectionStack projectPhantom(const Phantom& phantom, const Geometry& geometry,
                               const AnalyticProjectionOptions& options = {},
                               const JobContext* context = nullptr);

}  // namespace tomowb::phantom
