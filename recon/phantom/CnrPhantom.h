// CnrPhantom: the contrast-to-noise phantom, a water cylinder about +z holding low-contrast
// spheres of several diameters and contrasts on rings in its mid plane (z = 0), in the spirit of
// the low-contrast modules of CT QA phantoms. It knows where each insert is and gives, for any
// voxel grid, the voxels of each insert and of a background annulus around it, so that CNR =
// (mean insert - mean background) / std background can be measured on a reconstruction
// (docs/phantoms.md shows the layout).
#pragma once

#include <Eigen/Core>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "recon/core/Volume.h"
#include "recon/phantom/Phantom.h"

namespace tomowb::phantom {

struct CnrPhantomParams {
  double cylinderRadiusMm = 100.0;
  double cylinderLengthMm = 100.0;  // along z, centred on z = 0
  double waterAttenuationPerMm = kWaterAttenuationPerMm;
  // Every ring holds one insert of each diameter, placed counter-clockwise from +x (seen from +z)
  // in this order, evenly spaced; ring k is turned by k * pi / n so rings do not line up.
  std::vector<double> insertDiametersMm{3.0, 5.0, 8.0, 12.0, 16.0};
  // Contrast of each ring relative to water: 0.01 makes its inserts 1% more attenuating than
  // water (negative values make cold inserts). One ring per contrast.
  std::vector<double> contrasts{0.005, 0.01, 0.02};
  std::vector<double> ringRadiiMm{35.0, 60.0, 85.0};  // one per contrast, in the mid plane
  // The background annulus of an insert of radius r spans radii [r + gap, r + gap + width] about
  // the z axis through the insert's centre, over the insert's z extent. Inserts must also be at
  // least `gap` apart and `gap` inside the cylinder.
  double backgroundGapMm = 3.0;
  double backgroundWidthMm = 5.0;
};

struct CnrInsert {
  Eigen::Vector3d centreMm = Eigen::Vector3d::Zero();
  double diameterMm = 0.0;
  double contrast = 0.0;    // (insert - water) / water
  double valuePerMm = 0.0;  // the insert's attenuation: water x (1 + contrast)
};

class CnrPhantom {
 public:
  // Throws ParameterError naming the field for sizes <= 0, mismatched ring and contrast counts,
  // or inserts that overlap, touch (closer than the gap) or leave the cylinder.
  explicit CnrPhantom(CnrPhantomParams params = {});

  const Phantom& phantom() const noexcept { return phantom_; }
  const CnrPhantomParams& params() const noexcept { return params_; }
  // Ring by ring (in the order of `contrasts`), each ring in the order of insertDiametersMm.
  const std::vector<CnrInsert>& inserts() const noexcept { return inserts_; }
  double waterValuePerMm() const noexcept { return params_.waterAttenuationPerMm; }

  // Indices (Volume::index) of the voxels of `grid` (only its shape, voxel size and origin are
  // used) whose centres lie at least insetMm inside insert i, in increasing order. Throws
  // ParameterError if insetMm is negative or not smaller than the insert's radius.
  std::vector<std::int64_t> insertVoxels(const Volume& grid, std::size_t insertIndex,
                                         double insetMm = 0.0) const;
  // Indices of the voxels of the background annulus of insert i (see CnrPhantomParams), minus
  // any voxel within `gap` of another insert or of the cylinder's surface, so every voxel
  // returned is pure water in the phantom.
  std::vector<std::int64_t> backgroundVoxels(const Volume& grid, std::size_t insertIndex) const;

 private:
  CnrPhantomParams params_;
  std::vector<CnrInsert> inserts_;
  Phantom phantom_;
};

// The phantom alone: CnrPhantom(params).phantom().
Phantom cnrPhantom(const CnrPhantomParams& params = {});

}  // namespace tomowb::phantom
