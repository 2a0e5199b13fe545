// structuralSimilarity: 1 for identical volumes, symmetric, falls with noise, the flat-image value
// by hand, and a direct (non-separable) 11x11 evaluation of the same definition.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "recon/core/Error.h"
#include "recon/metrics/StructuralSimilarity.h"
#include "support/TestSupport.h"

namespace tomowb::metrics {
namespace {

Volume unitVolume(std::int64_t nx, std::int64_t ny, std::int64_t nz) {
  return Volume::centred(VolumeShape{nx, ny, nz}, Eigen::Vector3d::Ones());
}

Volume randomVolume(std::int64_t nx, std::int64_t ny, std::int64_t nz, std::mt19937_64& random) {
  Volume volume = unitVolume(nx, ny, nz);
  std::uniform_real_distribution<float> value(0.0f, 1.0f);
  for (float& v : volume.voxels()) v = value(random);
  return volume;
}

Volume withNoise(const Volume& volume, float sigma, std::mt19937_64& random) {
  Volume noisy = volume;
  std::normal_distribution<float> noise(0.0f, sigma);
  for (float& v : noisy.voxels()) v += noise(random);
  return noisy;
}

// The definition of the header, evaluated directly: 11x11 Gaussian window cut at the slice edge
// and renormalised, local SSIM averaged over the region voxels.
double directSsim(const Volume& t, const Volume& r, const BoundRegion& region, double range) {
  const double c1 = (0.01 * range) * (0.01 * range);
  const double c2 = (0.03 * range) * (0.03 * range);
  double sum = 0.0;
  for (std::int64_t z = 0; z < t.nz(); ++z)
    for (std::int64_t y = 0; y < t.ny(); ++y)
      for (std::int64_t x = 0; x < t.nx(); ++x) {
        if (!region.contains(x, y, z)) continue;
        double w = 0, mt = 0, mr = 0, tt = 0, rr = 0, tr = 0;
        for (std::int64_t j = y - 5; j <= y + 5; ++j)
          for (std::int64_t i = x - 5; i <= x + 5; ++i) {
            if (i < 0 || j < 0 || i >= t.nx() || j >= t.ny()) continue;
            const double weight =
                std::exp(-static_cast<double>((i - x) * (i - x) + (j - y) * (j - y)) / 4.5);
            const double a = t.at(i, j, z);
            const double b = r.at(i, j, z);
            w += weight;
            mt += weight * a;
            mr += weight * b;
            tt += weight * a * a;
            rr += weight * b * b;
            tr += weight * a * b;
          }
        mt /= w;
        mr /= w;
        const double vt = tt / w - mt * mt;
        const double vr = rr / w - mr * mr;
        const double cov = tr / w - mt * mr;
        sum += (2 * mt * mr + c1) * (2 * cov + c2) / ((mt * mt + mr * mr + c1) * (vt + vr + c2));
      }
  return sum / static_cast<double>(region.voxelCount());
}

TEST(StructuralSimilarity, IdenticalVolumesGiveOne) {
  std::mt19937_64 random(test::randomSeed());
  const Volume volume = randomVolume(30, 20, 3, random);
  EXPECT_NEAR(structuralSimilarity(volume, volume, Region::whole(), 1.0), 1.0, 1e-12);
}

TEST(StructuralSimilarity, MatchesDirectWindowedEvaluation) {
  std::mt19937_64 random(test::randomSeed());
  const Volume reference = randomVolume(23, 17, 3, random);
  const Volume test = withNoise(reference, 0.2f, random);
  for (const Region& region : {Region::whole(), Region::centralCylinder(0.6).slices(1, 3),
                               Region::sphere(Eigen::Vector3d(-8, 6, 0), 5.0)}) {
    const BoundRegion bound = region.bind(reference);
    EXPECT_NEAR(structuralSimilarity(test, reference, bound, 1.0),
                directSsim(test, reference, bound, 1.0), 1e-10)
        << region.description();
  }
}

TEST(StructuralSimilarity, FlatImagesGiveTheLuminanceTermByHand) {
  // No variance anywhere: SSIM = (2ab + C1) / (a^2 + b^2 + C1), C1 = (0.01 L)^2.
  Volume a = unitVolume(16, 16, 2);
  Volume b = unitVolume(16, 16, 2);
  for (float& v : a.voxels()) v = 1.0f;
  for (float& v : b.voxels()) v = 0.5f;
  const double c1 = 1e-4;
  EXPECT_NEAR(structuralSimilarity(a, b, Region::whole(), 1.0), (1.0 + c1) / (1.25 + c1), 1e-12);
}

TEST(StructuralSimilarity, IsSymmetric) {
  std::mt19937_64 random(test::randomSeed());
  const Volume reference = randomVolume(40, 40, 4, random);
  const Volume test = withNoise(reference, 0.3f, random);
  const Region region = Region::centralCylinder(0.8);
  EXPECT_NEAR(structuralSimilarity(test, reference, region, 1.0),
              structuralSimilarity(reference, test, region, 1.0), 1e-14);
}

TEST(StructuralSimilarity, FallsAsNoiseGrows) {
  std::mt19937_64 random(test::randomSeed());
  // A smooth image, so that the noise dominates the local variance.
  Volume reference = unitVolume(64, 64, 2);
  for (std::int64_t z = 0; z < 2; ++z)
    for (std::int64_t y = 0; y < 64; ++y)
      for (std::int64_t x = 0; x < 64; ++x)
        reference.at(x, y, z) =
            static_cast<float>(0.5 + 0.5 * std::sin(0.2 * x) * std::cos(0.15 * y));
  double previous = 1.0;
  for (const float sigma : {0.01f, 0.05f, 0.2f}) {
    const double ssim = structuralSimilarity(withNoise(reference, sigma, random), reference,
                                             Region::centralCylinder(0.9), 1.0);
    EXPECT_LT(ssim, previous) << "sigma " << sigma;
    EXPECT_GT(ssim, 0.0);
    previous = ssim;
  }
  EXPECT_LT(previous, 0.8);
}

TEST(StructuralSimilarity, DifferencesFarOutsideTheRegionDoNotCount) {
  std::mt19937_64 random(test::randomSeed());
  const Volume reference = randomVolume(40, 40, 1, random);
  Volume test = reference;
  // Invert the rows y < 5; the window (radius 5) of rows y >= 10 never reaches them.
  for (std::int64_t y = 0; y < 5; ++y)
    for (std::int64_t x = 0; x < 40; ++x) test.at(x, y, 0) = 1.0f - test.at(x, y, 0);
  std::vector<std::uint8_t> lower(40 * 40, 0);
  std::fill(lower.begin() + 10 * 40, lower.end(), 1);
  const Region far = Region::mask(lower, reference.shape());
  EXPECT_NEAR(structuralSimilarity(test, reference, far, 1.0), 1.0, 1e-12);
  EXPECT_LT(structuralSimilarity(test, reference, Region::whole(), 1.0), 0.9);
}

TEST(StructuralSimilarity, NonPositiveDataRangeGivesNaN) {
  const Volume volume = unitVolume(8, 8, 1);
  EXPECT_TRUE(std::isnan(structuralSimilarity(volume, volume, Region::whole(), 0.0)));
}

TEST(StructuralSimilarity, ShapeMismatchAndEmptyRegionThrow) {
  const Volume a = unitVolume(8, 8, 2);
  const Volume b = unitVolume(8, 9, 2);
  EXPECT_THROW(structuralSimilarity(a, b, Region::whole(), 1.0), ParameterError);
  EXPECT_THROW(structuralSimilarity(a, a, Region::sphere(Eigen::Vector3d(40, 0, 0), 1.0), 1.0),
               ParameterError);
  // A region bound to another shape.
  EXPECT_THROW(structuralSimilarity(a, a, Region::whole().bind(b), 1.0), ParameterError);
}

}  // namespace
}  // namespace tomowb::metrics
