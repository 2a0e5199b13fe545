// SiddonProjector: a ray-driven projector pair that weighs each voxel by the exact length of the
// ray inside it (Siddon's model, traversed voxel by voxel as Amanatides and Woo do; TIGRE's
// "Siddon" projector), and its exact transpose. A piecewise-constant model of the volume: no
// interpolation, so a voxel contributes only to the rays that cross it, and a constant volume
// integrates to value x chord length exactly.
//
// The ray of detector pixel (c, r) of a view is the line through the pixel centre along the ray
// direction (parallel beams) or through the source (cone beams), as for the Joseph projector
// (JosephProjector.h); every geometry the Joseph projector takes, this one takes. Positions and
// sums in float64; OpenMP over detector rows (forward) or over slabs of the volume that the
// threads own (transpose), so both are deterministic whatever the thread count.
//
// Registered as the pair et.fp.cpu-siddon + et.bp.cpu-siddon (SiddonVariants.cpp); issue #18's
// proof that a new projector pair is one folder and one registration line.
#pragma once

#include <cstdint>
#include <span>

#include "recon/core/Volume.h"
#include "recon/data/ProjectionStack.h"
#include "recon/job/JobContext.h"
#include "recon/variant/VariantRegistry.h"

namespace tomowb::projector {

// Overwrites the listed views (all if empty) of `projections` with the ray integrals of `volume`.
// ParameterError for a bad view index or an invalid geometry; Cancelled when asked.
void siddonForward(const Volume& volume, ProjectionStack& projections,
                   std::span<const std::int64_t> views = {}, const JobContext* context = nullptr);

// Adds the exact transpose of siddonForward applied to the listed views into `volume`.
void siddonBackproject(const ProjectionStack& projections, Volume& volume,
                       std::span<const std::int64_t> views = {},
                       const JobContext* context = nullptr);

// Registers et.fp.cpu-siddon and et.bp.cpu-siddon (its exact transpose, model "siddon").
void registerSiddonPair(VariantRegistry& registry);

}  // namespace tomowb::projector
