// PetPhantom: the spheres, the analytic activity and attenuation maps, their voxelisation.
#include "recon/pet/PetPhantom.h"

#include <cmath>
#include <numbers>
#include <string>
#include <utility>

#include "recon/core/Error.h"
#include "recon/phantom/Voxelise.h"

namespace tomowb::pet {

namespace {

constexpr double kPi = std::numbers::pi;

std::string number(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%.6g", v);
  return text;
}

void checkPositive(double value, const char* field) {
  if (!(value > 0) || !std::isfinite(value))
    throw ParameterError(std::string("petPhantom.") + field,
                         "must be finite and > 0, got " + number(value));
}

void checkParams(const PetPhantomParams& p) {
  checkPositive(p.cylinderRadiusMm, "cylinderRadiusMm");
  checkPositive(p.cylinderLengthMm, "cylinderLengthMm");
  checkPositive(p.hotSphereDiameterMm, "hotSphereDiameterMm");
  checkPositive(p.coldSphereDiameterMm, "coldSphereDiameterMm");
  checkPositive(p.pointSourceDiameterMm, "pointSourceDiameterMm");
  if (!(p.backgroundBqPerMl >= 0) || !std::isfinite(p.backgroundBqPerMl))
    throw ParameterError("petPhantom.backgroundBqPerMl",
                         "must be finite and >= 0, got " + number(p.backgroundBqPerMl));
  if (!(p.hotToBackgroundRatio >= 0) || !std::isfinite(p.hotToBackgroundRatio))
    throw ParameterError("petPhantom.hotToBackgroundRatio",
                         "must be finite and >= 0, got " + number(p.hotToBackgroundRatio));
  if (!(p.pointSourceBq >= 0) || !std::isfinite(p.pointSourceBq))
    throw ParameterError("petPhantom.pointSourceBq",
                         "must be finite and >= 0, got " + number(p.pointSourceBq));
  if (!(p.waterAttenuationPerMm >= 0) || !std::isfinite(p.waterAttenuationPerMm))
    throw ParameterError("petPhantom.waterAttenuationPerMm",
                         "must be finite and >= 0, got " + number(p.waterAttenuationPerMm));
  if (p.hotSphereCount < 0 || p.hotSphereCount > 64)
    throw ParameterError("petPhantom.hotSphereCount",
                         "must be in 0..64, got " + std::to_string(p.hotSphereCount));
  if (!(p.hotSphereRingRadiusMm >= 0) || !(p.coldSphereRingRadiusMm >= 0))
    throw ParameterError("petPhantom.hotSphereRingRadiusMm", "ring radii must be >= 0");
  if (p.supersample < 1 || p.supersample > phantom::kMaxVoxeliseSupersample)
    throw ParameterError("petPhantom.supersample",
                         "must be in 1.." + std::to_string(phantom::kMaxVoxeliseSupersample) +
                             ", got " + std::to_string(p.supersample));
  if (p.pointSourceMm && !p.pointSourceMm->allFinite())
    throw ParameterError("petPhantom.pointSourceMm", "must be finite");
}

std::vector<PetSphere> makeSpheres(const PetPhantomParams& p) {
  std::vector<PetSphere> spheres;
  const double background = p.backgroundBqPerMl;
  for (int i = 0; i < p.hotSphereCount; ++i) {
    const double angle = 2 * kPi * i / p.hotSphereCount;
    spheres.push_back({Eigen::Vector3d(p.hotSphereRingRadiusMm * std::cos(angle),
                                       p.hotSphereRingRadiusMm * std::sin(angle), 0.0),
                       p.hotSphereDiameterMm, background * p.hotToBackgroundRatio,
                       p.hotToBackgroundRatio - 1, true});
  }
  if (p.coldSpheres)
    for (double angleDeg : {30.0, 210.0}) {
      const double angle = angleDeg * kPi / 180;
      spheres.push_back({Eigen::Vector3d(p.coldSphereRingRadiusMm * std::cos(angle),
                                         p.coldSphereRingRadiusMm * std::sin(angle), 0.0),
                         p.coldSphereDiameterMm, 0.0, -1.0, false});
    }
  return spheres;
}

// Spheres inside the cylinder and apart from each other.
void checkSpheres(const PetPhantomParams& p, const std::vector<PetSphere>& spheres) {
  for (std::size_t i = 0; i < spheres.size(); ++i) {
    const PetSphere& s = spheres[i];
    const char* field =
        s.hot ? "petPhantom.hotSphereRingRadiusMm" : "petPhantom.coldSphereRingRadiusMm";
    const double radius = 0.5 * s.diameterMm;
    if (s.centreMm.head<2>().norm() + radius > p.cylinderRadiusMm ||
        radius > 0.5 * p.cylinderLengthMm)
      throw ParameterError(field, "sphere " + std::to_string(i) + " (diameter " +
                                      number(s.diameterMm) + " mm at " +
                                      number(s.centreMm.head<2>().norm()) +
                                      " mm from the axis) leaves the cylinder");
    for (std::size_t j = 0; j < i; ++j)
      if ((spheres[j].centreMm - s.centreMm).norm() < radius + 0.5 * spheres[j].diameterMm)
        throw ParameterError(
            field, "sphere " + std::to_string(i) + " overlaps sphere " + std::to_string(j));
  }
}

phantom::Phantom makeActivity(const PetPhantomParams& p, const std::vector<PetSphere>& spheres) {
  std::vector<phantom::Ellipsoid> ellipsoids;
  // Spheres replace the background: their density is added to it.
  for (const PetSphere& s : spheres)
    ellipsoids.push_back(phantom::Ellipsoid::sphere(s.centreMm, 0.5 * s.diameterMm,
                                                    s.activityBqPerMl - p.backgroundBqPerMl));
  if (p.pointSourceMm && p.pointSourceBq > 0) {
    const double radius = 0.5 * p.pointSourceDiameterMm;
    const double volumeMl = 4.0 / 3.0 * kPi * radius * radius * radius * 1e-3;
    ellipsoids.push_back(
        phantom::Ellipsoid::sphere(*p.pointSourceMm, radius, p.pointSourceBq / volumeMl));
  }
  phantom::Cylinder water;
  water.radiusMm = p.cylinderRadiusMm;
  water.halfLengthMm = 0.5 * p.cylinderLengthMm;
  water.density = p.backgroundBqPerMl;
  return phantom::Phantom("pet-nema-like activity (Bq/mL)", std::move(ellipsoids), {water});
}

phantom::Phantom makeAttenuation(const PetPhantomParams& p) {
  phantom::Cylinder water;
  water.radiusMm = p.cylinderRadiusMm;
  water.halfLengthMm = 0.5 * p.cylinderLengthMm;
  water.density = p.waterAttenuationPerMm;
  return phantom::Phantom("pet-nema-like attenuation (1/mm)", {}, {water});
}

}  // namespace

PetPhantom::PetPhantom(PetPhantomParams params) : params_(std::move(params)) {
  checkParams(params_);
  spheres_ = makeSpheres(params_);
  checkSpheres(params_, spheres_);
  activity_ = makeActivity(params_, spheres_);
  attenuation_ = makeAttenuation(params_);
}

Volume PetPhantom::activity(const VolumeGrid& grid, const JobContext* context) const {
  return phantom::voxelisePhantom(activity_, grid.shape, grid.voxelSizeMm, grid.originMm,
                                  params_.supersample, context);
}

Volume PetPhantom::attenuation(const VolumeGrid& grid, const JobContext* context) const {
  return phantom::voxelisePhantom(attenuation_, grid.shape, grid.voxelSizeMm, grid.originMm,
                                  params_.supersample, context);
}

double PetPhantom::totalActivityBq() const {
  return activity_.volumeIntegral() * 1e-3;  // Bq/mL x mm^3 -> Bq
}

}  // namespace tomowb::pet
