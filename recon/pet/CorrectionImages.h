// CorrectionImages: DIRECT's correction histo-images on the image grid (reference/
// direct-tof-pet.md, sections 3.7 and 5.4), so that the expected data of view v are
// q_v = m_v (K_v x) + b_v.
//
// Multiplicative m_v = epsilon_v a_v:
//  - epsilon_v(j), the probability that an annihilation at voxel centre j is recorded as a line of
//    response of view v: 2 / (4 pi) times the integral, over the view's cell of directions (both
//    senses of a direction make the same line), of cos(theta) times the indicator that both ends
//    of the line meet the detector's crystals within the axial extent, pass the axial acceptance
//    and the transaxial field of view. The detector is the scanner's own surface: the cylinder of
//    its face radius, or the flat module planes (DetectorHits.h, the simulator's exits: a hit in
//    the gap at a module's edge is lost). The faces are parallel to z, so a line's transverse
//    exits depend on its azimuth only: per azimuth sample (a midpoint rule of azimuthSamples over
//    the cell) the accepted tilts form one interval in tan(theta), found in closed form, and the
//    cos(theta) integral over it is exact (sin theta_hi - sin theta_lo). Photons interact on the
//    surface through the crystal centres (the mean depth of interaction), as in the simulator;
//    its positioning blur and crystal snap (a few mm at the detector) are not modelled.
//  - a_v(j) = exp(-integral of mu along the line through j in the view's central direction t):
//    per view the mu map is integrated along t for the nodes of a plane grid perpendicular to t
//    (trilinear samples, half a mu voxel apart), and each voxel reads its line bilinearly on that
//    plane: every voxel of one line shares the integral.
//  - m_v with attenuation splits the view's tilts into AttenuationParams::tiltSamples equal parts
//    and sums epsilon of each part times a along that part's central direction: with one wide
//    tilt bin (the CI's 20 x 1 views span +-10 degrees) and an object short along z, a single
//    central direction over-corrects the slices near the object's axial ends, where the tilted
//    lines leave it early (measured: 4x too much activity in the end slices of a 48 mm water slab
//    with one part, within the noise with four).
// Additive b_v: the delayed-window events deposited like the prompts (Deposition.h,
// EventStream::Delayed), each view smoothed by a separable Gaussian (sigma smoothingSigmaVoxels,
// cut at 3 sigma, normalised over the voxels inside the grid, so a uniform image stays uniform),
// plus an optional scatter estimate (zero by default).
#pragma once

#include <Eigen/Core>
#include <span>

#include "recon/core/Volume.h"
#include "recon/core/VolumeGrid.h"
#include "recon/job/JobContext.h"
#include "recon/pet/Deposition.h"
#include "recon/pet/HistoImages.h"
#include "recon/pet/ListModeEvent.h"
#include "recon/pet/ScannerModel.h"
#include "recon/pet/ViewBinning.h"

namespace tomowb::pet {

struct SensitivityParams {
  int azimuthSamples = 4;  // midpoint rule over the view cell's azimuths (tilt: exact)
  // Throws ParameterError naming the field (azimuthSamples 1..64).
  void validate() const;
};

struct AttenuationParams {
  double planeSpacingVoxels = 0.5;  // the plane grid's spacing, in image voxels
  double stepMuVoxels = 0.5;        // the integration step along t, in mu voxels
  // m_v: the view's tilt range in this many equal parts, each with its own epsilon and its own
  // attenuation along its central direction (1: a_v along the view's centre only).
  int tiltSamples = 4;
  // Throws ParameterError naming the field (spacing and step in [0.05, 4], tiltSamples 1..32).
  void validate() const;
};

// epsilon_v(point) for one view: the detection probability per annihilation at `pointMm`.
double detectionProbabilityAt(const ScannerModel& scanner, const ViewBinning& views, int view,
                              const Eigen::Vector3d& pointMm, const SensitivityParams& params = {});

// epsilon_v at every voxel centre of `grid`, every view. OpenMP; Cancelled per view.
HistoImages detectionProbabilities(const ScannerModel& scanner, const VolumeGrid& grid,
                                   const ViewBinning& views, const SensitivityParams& params,
                                   JobContext& context);

// The integral of mu (1/mm, trilinear between voxel centres, 0 outside the map) along the whole
// line through `pointMm` with unit direction `direction`, by the midpoint rule with steps of
// stepMuVoxels mu voxels (the reference a_v is built with).
double attenuationLineIntegral(const Volume& muPerMm, const Eigen::Vector3d& pointMm,
                               const Eigen::Vector3d& direction, double stepMuVoxels = 0.5);

// a_v at every voxel centre of `grid` (mu on any grid), every view. Throws ParameterError for a
// mu map with negative or non-finite values ("attenuation").
HistoImages attenuationFactors(const Volume& muPerMm, const VolumeGrid& grid,
                               const ViewBinning& views, const AttenuationParams& params,
                               JobContext& context);

// m_v = sum over the tilt parts of epsilon_v,k a_v,k (epsilon_v when `muPerMm` is null).
HistoImages multiplicativeFactors(const ScannerModel& scanner, const VolumeGrid& grid,
                                  const ViewBinning& views, const Volume* muPerMm,
                                  const SensitivityParams& sensitivity,
                                  const AttenuationParams& attenuation, JobContext& context);

struct BackgroundParams {
  DepositionMode deposition = DepositionMode::Nearest;  // as the prompts were deposited
  double smoothingSigmaVoxels = 2.0;                    // 0: no smoothing
  double truncationSigmas = 3.0;
  // Throws ParameterError naming the field (sigma in [0, 20] voxels, truncation in [1, 6]).
  void validate() const;
};

// A separable Gaussian over each view's volume (x, y and z; sigma in voxels, weights normalised
// over the voxels inside the grid).
void smoothViews(HistoImages& histo, double sigmaVoxels, double truncationSigmas,
                 JobContext& context);

// b_v: the delayed events of `events` deposited and smoothed, plus `scatter` when given (same
// grid and views: ParameterError otherwise). `report` receives the delayed stream's deposition.
HistoImages additiveFactors(const ScannerModel& scanner, std::span<const ListModeEvent> events,
                            const VolumeGrid& grid, const ViewBinning& views,
                            const BackgroundParams& params, const HistoImages* scatter,
                            JobContext& context, DepositionReport* report = nullptr);

}  // namespace tomowb::pet
