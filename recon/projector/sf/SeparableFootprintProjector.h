// SeparableFootprintProjector: the separable-footprint (SF) forward projector of Long, Fessler and
// Balter (IEEE TMI 29(11), 2010) for cone beams on flat and arc (cylindrical) detectors, and its
// exact transpose, in float64: the CPU reference of issue #19 (formulas:
// ../shared/reference/sf-projectors.md, sections 2 and 3; docs/sf-projectors.md).
//
// The weight of voxel (x, y, z) in detector cell (k, l) of a view is
//   a = v(k, l) * u(x, y) * F1(k; x, y) * F2(l; x, y, z),
// F1 the transaxial trapezoid (the four xy corners of the voxel projected to detector columns)
// and F2 the axial footprint (a rectangle for SF-TR, a trapezoid for SF-TT), each averaged over the
// cell; u and v the amplitudes: A2 (the default, as in Wu and Fessler's GPU port) takes the
// transaxial chord l_phi0 at the azimuth of the ray through the voxel centre and 1/cos(theta) of
// the cell's ray; A1 takes both from the cell's ray. On a flat detector columns and rows come from
// the view's 3x4 matrix; on an arc detector (ArcFrame.h) the column is the fan angle over the arc
// pitch and the in-plane source distance r takes the place of the depth in the rows and in SF-TT's
// nearest and farthest corners (digest section 2, "Arc detectors"). Pixel centres sit at integer
// coordinates either way.
//
// Separability is exact only where the detector column of a point does not depend on its z
// (P[0][2] = P[2][2] = 0): cone beams whose detector has u perpendicular to z and v parallel to z
// (circular and helical orbits, any detector offset or slant about v). sfUnsupportedReason names
// the first view that breaks it; parallel beams and volumes that reach a source's plane are
// refused too.
//
// Forward: OpenMP over (view, band of detector rows), each band gathering every voxel column.
// Transpose: OpenMP over voxel columns, each gathering every view in order. Both sum in float64
// and give the same bits whatever the thread count. Registered as sf.fp.cpu-tr + sf.bp.cpu-tr
// (model "sf-tr") and sf.fp.cpu-tt + sf.bp.cpu-tt (model "sf-tt"), amplitude A2.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>

#include "recon/core/Volume.h"
#include "recon/core/VolumeGrid.h"
#include "recon/data/ProjectionStack.h"
#include "recon/geometry/Geometry.h"
#include "recon/job/JobContext.h"
#include "recon/variant/VariantRegistry.h"

namespace tomowb::projector {

enum class SfAxialFootprint {
  Rectangle,  // SF-TR: z edges projected at the voxel centre's magnification
  Trapezoid,  // SF-TT: z edges projected at the nearest and farthest corner's magnification
};

enum class SfAmplitude {
  A1,  // l_phi and 1/cos(theta) of the ray through the cell centre
  A2,  // l_phi0 of the ray through the voxel centre, 1/cos(theta) of the cell's ray ([S2])
};

struct SfModel {
  SfAxialFootprint axial = SfAxialFootprint::Rectangle;
  SfAmplitude amplitude = SfAmplitude::A2;
};

// Why the SF projectors cannot take this geometry and grid ("view 3: the detector is tilted ..."),
// or nothing when they can.
std::optional<std::string> sfUnsupportedReason(const Geometry& geometry, const VolumeGrid& grid);

// Overwrites the listed views (all if empty) of `projections` with the SF projections of
// `volume`. ParameterError for a bad view index or a geometry sfUnsupportedReason refuses;
// Cancelled when asked.
void sfForward(const Volume& volume, ProjectionStack& projections, const SfModel& model = {},
               std::span<const std::int64_t> views = {}, const JobContext* context = nullptr);

// Adds the exact transpose of sfForward applied to the listed views into `volume`.
void sfBackproject(const ProjectionStack& projections, Volume& volume, const SfModel& model = {},
                   std::span<const std::int64_t> views = {}, const JobContext* context = nullptr);

// The same on float64 arrays ([view][row][col] and (z*ny + y)*nx + x), for the adjoint tests.
void sfForward(std::span<const double> volume, const VolumeGrid& grid, const Geometry& geometry,
               std::span<double> projections, const SfModel& model = {},
               std::span<const std::int64_t> views = {});
void sfBackproject(std::span<const double> projections, const Geometry& geometry,
                   std::span<double> volume, const VolumeGrid& grid, const SfModel& model = {},
                   std::span<const std::int64_t> views = {});

// Registers sf.fp.cpu-tr + sf.bp.cpu-tr (model "sf-tr") and sf.fp.cpu-tt + sf.bp.cpu-tt (model
// "sf-tt"), amplitude A2; each backprojector is the exact transpose of its forward projector.
void registerSeparableFootprintPairs(VariantRegistry& registry);

}  // namespace tomowb::projector
