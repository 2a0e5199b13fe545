// PetImageQuality: the seed's image-quality figures on the PetPhantom (reference/direct-tof-pet.md
// section 4.2): per sphere, the mean p_s in a 2-D circular ROI over the sphere in its central
// slice and the mean p_b in a 2-D annulus around it in the same slice; the hot contrast recovery
// CRC = ((p_s - p_b) / p_b) / c with c the ideal contrast (3 for 4:1), the cold one
// CRC = 1 - p_s / p_b; their means over the hot and the cold spheres; and the noise, the voxel
// standard deviation over the mean in a 50 mm disc about the axis over the central slices (a
// region of uniform background in the default phantom: the spheres sit 75 mm and more from the
// axis). Works on any image of the phantom on any grid: the truth (CRC about 1 for spheres much
// larger than a voxel, noise 0) or a reconstruction.
#pragma once

#include <cstdint>
#include <vector>

#include "recon/core/Volume.h"
#include "recon/pet/PetPhantom.h"

namespace tomowb::pet {

struct ImageQualityRois {
  double sphereRoiDiameterFraction = 1.0;  // the sphere ROI's diameter / the sphere's diameter
  double annulusGapMm = 5.0;  // the annulus starts this far outside the sphere's radius
  double annulusWidthMm = 10.0;
  double noiseRoiDiameterMm = 50.0;
  double noiseSlabHalfMm = 20.0;  // slices whose centres lie within +-this of z = 0
};

struct SphereRecovery {
  PetSphere sphere;
  std::int64_t slice = 0;  // the image slice nearest the sphere's centre
  double sphereMean = 0.0, backgroundMean = 0.0;
  std::int64_t sphereVoxels = 0, backgroundVoxels = 0;
  double crc = 0.0;
};

struct PetImageQuality {
  std::vector<SphereRecovery> hot, cold;       // in the order of PetPhantom::spheres()
  double meanHotCrc = 0.0, meanColdCrc = 0.0;  // 0 when there is no such sphere
  double noise = 0.0;                          // noiseSd / noiseMean
  double noiseMean = 0.0, noiseSd = 0.0;       // sample standard deviation
  std::int64_t noiseVoxels = 0;
};

// ParameterError ("image" or the ROI field) when an ROI falls outside the image, holds no voxel,
// or a background mean is not > 0.
PetImageQuality measurePetImageQuality(const Volume& image, const PetPhantom& phantom,
                                       const ImageQualityRois& rois = {});

}  // namespace tomowb::pet
