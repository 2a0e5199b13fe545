// PetPhantom: the NEMA-like heavy-patient phantom of reference/direct-tof-pet.md section 5.2: a
// water cylinder (radius 175 mm, length 180 mm, about +z, centred on the origin) with uniform
// background activity, six hot 10 mm spheres at 75 mm from the axis in the central slice, 60
// degrees apart, at 4 times the background (ideal contrast c = 3); optionally two cold 20 mm
// spheres (no activity) at 120 mm and a point source (a 1 mm sphere). For any VolumeGrid it gives
// the activity in Bq/mL and the attenuation in 1/mm (0.0096 inside the water) as partial-volume
// maps (each voxel the mean of supersample^3 samples, phantom::voxelisePhantom), and the spheres
// for the image-quality figures (PetImageQuality.h).
#pragma once

#include <Eigen/Core>
#include <optional>
#include <vector>

#include "recon/core/Volume.h"
#include "recon/core/VolumeGrid.h"
#include "recon/job/JobContext.h"
#include "recon/phantom/Phantom.h"

namespace tomowb::pet {

inline constexpr double kWaterAttenuation511PerMm = 0.0096;

struct PetPhantomParams {
  double cylinderRadiusMm = 175.0;
  double cylinderLengthMm = 180.0;
  double backgroundBqPerMl = 5300.0;  // about 5.3 kBq/mL, a NEMA IEC background
  int hotSphereCount = 6;             // on a ring in the central slice, the first on +x
  double hotSphereDiameterMm = 10.0;
  double hotSphereRingRadiusMm = 75.0;
  double hotToBackgroundRatio = 4.0;  // ideal contrast c = ratio - 1 = 3
  bool coldSpheres = false;           // two cold spheres at 30 and 210 degrees
  double coldSphereDiameterMm = 20.0;
  double coldSphereRingRadiusMm = 120.0;
  std::optional<Eigen::Vector3d> pointSourceMm;  // a point source (a small sphere) there
  double pointSourceDiameterMm = 1.0;
  double pointSourceBq = 1.0e6;
  double waterAttenuationPerMm = kWaterAttenuation511PerMm;
  int supersample = 4;  // partial-volume samples per voxel and axis
};

struct PetSphere {
  Eigen::Vector3d centreMm = Eigen::Vector3d::Zero();
  double diameterMm = 0.0;
  double activityBqPerMl = 0.0;  // the sphere's own activity (not added to the background)
  double idealContrast = 0.0;    // activity / background - 1: 3 for the hot spheres, -1 cold
  bool hot = true;
};

class PetPhantom {
 public:
  // Throws ParameterError naming the field for sizes or activities out of range, or spheres that
  // overlap or leave the cylinder. The point source may lie anywhere (in air too); its activity
  // is added to whatever is there.
  explicit PetPhantom(PetPhantomParams params = {});

  const PetPhantomParams& params() const noexcept { return params_; }
  // Hot spheres first (counter-clockwise from +x), then the cold ones.
  const std::vector<PetSphere>& spheres() const noexcept { return spheres_; }
  // The analytic maps: activity in Bq/mL and attenuation in 1/mm.
  const phantom::Phantom& activityPhantom() const noexcept { return activity_; }
  const phantom::Phantom& attenuationPhantom() const noexcept { return attenuation_; }

  // Partial-volume maps on `grid`. ParameterError for a bad grid; Cancelled through `context`.
  Volume activity(const VolumeGrid& grid, const JobContext* context = nullptr) const;
  Volume attenuation(const VolumeGrid& grid, const JobContext* context = nullptr) const;

  // The total activity (Bq): the analytic integral of the activity map.
  double totalActivityBq() const;

 private:
  PetPhantomParams params_;
  std::vector<PetSphere> spheres_;
  phantom::Phantom activity_;
  phantom::Phantom attenuation_;
};

}  // namespace tomowb::pet
