// SliceLineProfile: the values along a line drawn on one orthogonal slice (the line-profile tool
// of the slice views). Samples are evenly spaced in physical
// distance, one per smallest in-plane voxel edge (ImageJ's plot profile spacing), each a bilinear
// interpolation of the four voxel centres around it in the slice plane; the slice itself is the
// one nearest to the line (no interpolation across slices: the view shows that slice). The
// ruler's readout is MeasurementText.h.
#pragma once

#include <Eigen/Core>
#include <cstdint>
#include <vector>

#include "recon/core/Volume.h"

namespace tomowb::metrics {

struct SliceLineProfile {
  double lengthMm = 0.0;
  std::vector<double> distanceMm;  // from the start of the line; first 0, last lengthMm
  std::vector<double> values;      // NaN where a sample lies outside the voxel centres' box
};

// The most samples one profile takes (a line across a 2048^2 slice at one per voxel needs 2897).
inline constexpr int kMaxProfileSamples = 8192;

// The profile from `fromMm` to `toMm` (in-plane world mm, in the order of inPlaneAxes(axis)) on
// the slice normal to `axis` nearest to `sliceMm`. At least 2 samples (the two ends), at most
// kMaxProfileSamples. No samples (empty vectors) when the slice lies outside the volume.
SliceLineProfile sliceLineProfile(const Volume& volume, int axis, double sliceMm,
                                  const Eigen::Vector2d& fromMm, const Eigen::Vector2d& toMm);

// Bilinear value at the in-plane point (mm) of slice `sliceIndex` normal to `axis`; NaN outside
// the box of the slice's voxel centres.
double bilinearInSlice(const Volume& volume, int axis, std::int64_t sliceIndex,
                       const Eigen::Vector2d& pointMm) noexcept;

}  // namespace tomowb::metrics
