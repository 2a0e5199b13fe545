// Arc (cylindrical) detector data for FDK: FDK's weights and backprojectors work on flat detectors
// (a 3x4 matrix per view), so an arc view's projection is resampled onto the flat detector tangent
// to the arc at its centre that spans the same fan (flatEquivalentGeometry, ArcFrame.h). A flat
// pixel takes the value of the arc at the point where the ray from the source through the flat
// pixel's centre meets the cylinder (ArcFrame::pixelCoordinates), interpolated bilinearly; rays,
// and so post-log line integrals, are the same on either detector. Rays beyond the arc's outer
// cell centres take the edge cells' values.
#pragma once

#include "recon/data/ProjectionStack.h"

namespace tomowb::fdk {

// The stack on flatEquivalentGeometry(projections.geometry()): arc views resampled, flat views
// copied. OpenMP over views.
ProjectionStack rebinArcToFlat(const ProjectionStack& projections);

}  // namespace tomowb::fdk
