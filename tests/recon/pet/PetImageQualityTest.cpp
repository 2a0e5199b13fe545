// PetImageQuality: CRC 1 and noise 0 on the truth of large spheres; CRC scales with the sphere's
// contrast; noise is SD / mean; ROIs that miss the image are errors.
#include <gtest/gtest.h>

#include <random>

#include "recon/core/Error.h"
#include "recon/core/VolumeGrid.h"
#include "recon/pet/PetImageQuality.h"
#include "support/TestSupport.h"

namespace tomowb::pet {
namespace {

// Large spheres (30 mm hot, 40 mm cold) so that the 4 mm truth has whole voxels inside them.
PetPhantomParams largeSpheres() {
  PetPhantomParams p;
  p.hotSphereDiameterMm = 30;
  p.hotSphereRingRadiusMm = 80;
  p.coldSpheres = true;
  p.coldSphereDiameterMm = 40;
  p.coldSphereRingRadiusMm = 130;
  return p;
}

// An odd number of slices puts a slice centre at z = 0, through the spheres' centres.
VolumeGrid grid() {
  return VolumeGrid::centred({95, 95, 15}, Eigen::Vector3d::Constant(4.0));
}

TEST(PetImageQuality, TruthOfLargeSpheresRecoversFullContrastWithoutNoise) {
  const PetPhantom phantom(largeSpheres());
  const Volume truth = phantom.activity(grid());
  ImageQualityRois rois;
  rois.sphereRoiDiameterFraction = 0.5;  // away from the partial-volume rim
  const PetImageQuality q = measurePetImageQuality(truth, phantom, rois);
  ASSERT_EQ(q.hot.size(), 6u);
  ASSERT_EQ(q.cold.size(), 2u);
  for (const SphereRecovery& r : q.hot) {
    EXPECT_NEAR(r.crc, 1.0, 1e-6);
    EXPECT_EQ(r.slice, 7);
    EXPECT_GE(r.sphereVoxels, 9);  // centres within 7.5 mm at 4 mm voxels
  }
  for (const SphereRecovery& r : q.cold) EXPECT_NEAR(r.crc, 1.0, 1e-6);
  EXPECT_NEAR(q.meanHotCrc, 1.0, 1e-6);
  EXPECT_NEAR(q.meanColdCrc, 1.0, 1e-6);
  EXPECT_NEAR(q.noiseMean, 5300.0, 1e-3);
  EXPECT_LT(q.noise, 1e-7);
  EXPECT_GT(q.noiseVoxels, 100);
}

TEST(PetImageQuality, DefaultPhantomTruthLosesContrastToPartialVolume) {
  const PetPhantom phantom;  // 10 mm spheres: at 4 mm voxels the full-size ROI holds the rim
  const PetImageQuality q = measurePetImageQuality(phantom.activity(grid()), phantom);
  EXPECT_GT(q.meanHotCrc, 0.5);
  EXPECT_LT(q.meanHotCrc, 1.0);
  EXPECT_TRUE(q.cold.empty());
  EXPECT_EQ(q.meanColdCrc, 0.0);
}

TEST(PetImageQuality, CrcFollowsTheSpheresContrastAndNoiseTheSpread) {
  const std::uint64_t seed = test::randomSeed();
  std::mt19937_64 rng(seed);
  const PetPhantom phantom(largeSpheres());
  Volume image = phantom.activity(grid());
  // Halve every hot sphere's excess over the background: CRC 0.5.
  for (float& v : image.voxels())
    if (v > 5300.0f) v = 5300.0f + 0.5f * (v - 5300.0f);
  std::normal_distribution<float> noise(0.0f, 530.0f);  // 10 % of the background
  for (float& v : image.voxels()) v += noise(rng);
  ImageQualityRois rois;
  rois.sphereRoiDiameterFraction = 0.5;
  const PetImageQuality q = measurePetImageQuality(image, phantom, rois);
  EXPECT_NEAR(q.meanHotCrc, 0.5, 0.05);
  EXPECT_NEAR(q.noise, 0.10, 0.01);
}

TEST(PetImageQuality, RoisOutsideTheImageAreErrors) {
  const PetPhantom phantom;
  const Volume offCentre =
      VolumeGrid{{32, 32, 4}, Eigen::Vector3d::Constant(4.0), Eigen::Vector3d(0, 0, 50)}
          .makeVolume();
  EXPECT_THROW(measurePetImageQuality(offCentre, phantom), ParameterError);
  const Volume empty = grid().makeVolume();  // zero background
  EXPECT_THROW(measurePetImageQuality(empty, phantom), ParameterError);
  ImageQualityRois rois;
  rois.noiseRoiDiameterMm = -1;
  EXPECT_THROW(measurePetImageQuality(phantom.activity(grid()), phantom, rois), ParameterError);
}

}  // namespace
}  // namespace tomowb::pet
