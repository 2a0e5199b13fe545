// PetImageQuality: sphere and annulus ROIs in a slice, the noise disc over central slices.
#include "recon/pet/PetImageQuality.h"

#include <cmath>
#include <string>

#include "recon/core/Error.h"

namespace tomowb::pet {

namespace {

struct Sums {
  double sum = 0;
  std::int64_t count = 0;
  void add(double v) {
    sum += v;
    ++count;
  }
  double mean() const { return count ? sum / double(count) : 0.0; }
};

std::int64_t nearestSlice(const Volume& image, double zMm) {
  return std::llround((zMm - image.originMm().z()) / image.voxelSizeMm().z());
}

// Values of slice z whose voxel centres lie at a distance in [inner, outer] from (cx, cy).
Sums ringSums(const Volume& image, std::int64_t z, double cx, double cy, double inner,
              double outer) {
  Sums sums;
  for (std::int64_t y = 0; y < image.ny(); ++y)
    for (std::int64_t x = 0; x < image.nx(); ++x) {
      const Eigen::Vector3d p = image.worldPosition(double(x), double(y), double(z));
      const double r = std::hypot(p.x() - cx, p.y() - cy);
      if (r >= inner && r <= outer) sums.add(image.at(x, y, z));
    }
  return sums;
}

SphereRecovery recovery(const Volume& image, const PetSphere& sphere, std::size_t index,
                        const ImageQualityRois& rois) {
  SphereRecovery r;
  r.sphere = sphere;
  r.slice = nearestSlice(image, sphere.centreMm.z());
  const std::string name = "sphere " + std::to_string(index);
  if (r.slice < 0 || r.slice >= image.nz())
    throw ParameterError("image",
                         name + "'s central slice (z = " + std::to_string(sphere.centreMm.z()) +
                             " mm) lies outside the image");
  const double radius = 0.5 * sphere.diameterMm;
  const double cx = sphere.centreMm.x(), cy = sphere.centreMm.y();
  const Sums inside =
      ringSums(image, r.slice, cx, cy, 0.0, rois.sphereRoiDiameterFraction * radius);
  const Sums around = ringSums(image, r.slice, cx, cy, radius + rois.annulusGapMm,
                               radius + rois.annulusGapMm + rois.annulusWidthMm);
  if (inside.count == 0)
    throw ParameterError("sphereRoiDiameterFraction", name + "'s ROI holds no voxel centre");
  if (around.count == 0)
    throw ParameterError("annulusWidthMm", name + "'s background annulus holds no voxel centre");
  r.sphereMean = inside.mean();
  r.backgroundMean = around.mean();
  r.sphereVoxels = inside.count;
  r.backgroundVoxels = around.count;
  if (!(r.backgroundMean > 0))
    throw ParameterError(
        "image", name + "'s background mean is " + std::to_string(r.backgroundMean) + ", not > 0");
  const double relative = (r.sphereMean - r.backgroundMean) / r.backgroundMean;
  r.crc = sphere.hot ? relative / sphere.idealContrast : 1.0 - r.sphereMean / r.backgroundMean;
  return r;
}

void checkRois(const ImageQualityRois& rois) {
  const struct {
    const char* field;
    double value;
  } positive[] = {{"sphereRoiDiameterFraction", rois.sphereRoiDiameterFraction},
                  {"annulusWidthMm", rois.annulusWidthMm},
                  {"noiseRoiDiameterMm", rois.noiseRoiDiameterMm}};
  for (const auto& p : positive)
    if (!(p.value > 0) || !std::isfinite(p.value))
      throw ParameterError(p.field, "must be finite and > 0, got " + std::to_string(p.value));
  if (!(rois.annulusGapMm >= 0) || !std::isfinite(rois.annulusGapMm))
    throw ParameterError("annulusGapMm", "must be finite and >= 0");
  if (!(rois.noiseSlabHalfMm >= 0) || !std::isfinite(rois.noiseSlabHalfMm))
    throw ParameterError("noiseSlabHalfMm", "must be finite and >= 0");
}

}  // namespace

PetImageQuality measurePetImageQuality(const Volume& image, const PetPhantom& phantom,
                                       const ImageQualityRois& rois) {
  checkRois(rois);
  if (image.empty()) throw ParameterError("image", "is empty");
  PetImageQuality q;
  const auto& spheres = phantom.spheres();
  for (std::size_t i = 0; i < spheres.size(); ++i)
    (spheres[i].hot ? q.hot : q.cold).push_back(recovery(image, spheres[i], i, rois));
  for (const auto* list : {&q.hot, &q.cold}) {
    double sum = 0;
    for (const SphereRecovery& r : *list) sum += r.crc;
    (list == &q.hot ? q.meanHotCrc : q.meanColdCrc) =
        list->empty() ? 0.0 : sum / double(list->size());
  }

  Sums noise;
  for (std::int64_t z = 0; z < image.nz(); ++z) {
    if (std::fabs(image.worldPosition(0, 0, double(z)).z()) > rois.noiseSlabHalfMm) continue;
    const Sums slice = ringSums(image, z, 0.0, 0.0, 0.0, 0.5 * rois.noiseRoiDiameterMm);
    noise.sum += slice.sum;
    noise.count += slice.count;
  }
  if (noise.count < 2)
    throw ParameterError("noiseRoiDiameterMm", "the noise ROI holds " +
                                                   std::to_string(noise.count) +
                                                   " voxel centres; it needs at least 2");
  q.noiseVoxels = noise.count;
  q.noiseMean = noise.mean();
  // Second pass: squared deviations from the mean (exactly 0 on a uniform region).
  double deviations = 0;
  for (std::int64_t z = 0; z < image.nz(); ++z) {
    if (std::fabs(image.worldPosition(0, 0, double(z)).z()) > rois.noiseSlabHalfMm) continue;
    for (std::int64_t y = 0; y < image.ny(); ++y)
      for (std::int64_t x = 0; x < image.nx(); ++x) {
        const Eigen::Vector3d p = image.worldPosition(double(x), double(y), double(z));
        if (std::hypot(p.x(), p.y()) > 0.5 * rois.noiseRoiDiameterMm) continue;
        const double d = image.at(x, y, z) - q.noiseMean;
        deviations += d * d;
      }
  }
  q.noiseSd = std::sqrt(deviations / double(noise.count - 1));
  if (!(q.noiseMean > 0))
    throw ParameterError("image",
                         "the noise ROI's mean is " + std::to_string(q.noiseMean) + ", not > 0");
  q.noise = q.noiseSd / q.noiseMean;
  return q;
}

}  // namespace tomowb::pet
