// DetectorHits: crystal centres agree with ScannerModel; the three-plane exit through the module
// polygon equals the exit over every plane; hits at crystal centres snap to those crystals; the
// acceptance of crystal pairs.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <random>

#include "recon/pet/DetectorHits.h"
#include "recon/pet/ScannerModel.h"
#include "support/TestSupport.h"

namespace tomowb::pet {
namespace {

using Vec3d = Vec3<double>;

Vec3d toVec(const Eigen::Vector3d& v) {
  return {v.x(), v.y(), v.z()};
}

TEST(DetectorHits, CrystalCentresAreTheScannersCrystalPositions) {
  for (const std::string& name : scannerPresetNames()) {
    const ScannerModel s = scannerPreset(name);
    const DetectorHitModel m = detectorHitModel(s);
    for (int ring : {0, 17, 59})
      for (int c = 0; c < s.crystalsPerRing; c += 13) {
        const Vec3d a = crystalCentre<double>(m, c, ring);
        const Eigen::Vector3d b = s.crystalPosition(c, ring);
        EXPECT_NEAR(a.x, b.x(), 1e-9);
        EXPECT_NEAR(a.y, b.y(), 1e-9);
        EXPECT_NEAR(a.z, b.z(), 1e-9);
      }
  }
}

TEST(DetectorHits, ModuleExitIsTheNearestPlaneAhead) {
  const std::uint64_t seed = test::randomSeed();
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  const ScannerModel s = scannerPreset("penn-labr3");
  const DetectorHitModel m = detectorHitModel(s);
  for (int trial = 0; trial < 20000; ++trial) {
    const Vec3d x{300 * uniform(rng), 300 * uniform(rng), 100 * uniform(rng)};
    if (std::hypot(x.x, x.y) > 300) continue;
    Vec3d d{uniform(rng), uniform(rng), 0.3 * uniform(rng)};
    d = (1.0 / norm(d)) * d;
    int module = -1;
    const double s3 = exitDistance(m, x, d, &module);
    double best = -1;
    int bestModule = -1;
    for (int k = 0; k < m.modules; ++k) {  // every plane
      const double phi = 2 * std::numbers::pi * (k + 0.5) / m.modules;
      const double approach = std::cos(phi) * d.x + std::sin(phi) * d.y;
      if (approach <= 0) continue;
      const double sk =
          (m.crystalRadiusMm - (std::cos(phi) * x.x + std::sin(phi) * x.y)) / approach;
      if (sk > 0 && (best < 0 || sk < best)) best = sk, bestModule = k;
    }
    ASSERT_NEAR(s3, best, 1e-9 * best) << "trial " << trial;
    ASSERT_EQ(module, bestModule) << "trial " << trial;
  }
}

TEST(DetectorHits, CylinderExitLiesOnTheCrystalRadius) {
  const DetectorHitModel m = detectorHitModel(scannerPreset("ring-930"));
  const Vec3d x{120, -40, 10};
  Vec3d d{0.3, 0.9, 0.1};
  d = (1.0 / norm(d)) * d;
  int module = -1;
  const double s = exitDistance(m, x, d, &module);
  const Vec3d hit = x + s * d;
  EXPECT_NEAR(std::hypot(hit.x, hit.y), 475.0, 1e-9);
  EXPECT_GT(s, 0);
  EXPECT_LT(exitDistance(m, x, Vec3d{0, 0, 1}, &module), 0);  // along the axis: never
}

TEST(DetectorHits, HitsAtCrystalCentresSnapToThoseCrystals) {
  for (const std::string& name : scannerPresetNames()) {
    const ScannerModel s = scannerPreset(name);
    const DetectorHitModel m = detectorHitModel(s);
    for (int ring = 0; ring < s.rings; ring += 7)
      for (int c = 0; c < s.crystalsPerRing; c += 5) {
        const Vec3d centre = crystalCentre<double>(m, c, ring);
        const int module = c / m.crystalsPerModule;
        EXPECT_TRUE(hitOnCrystals(m, centre, module));
        int crystal = -1, r = -1;
        snapToCrystal(m, centre, module, 0.0, 0.0, &crystal, &r);
        ASSERT_EQ(crystal, c) << name;
        ASSERT_EQ(r, ring) << name;
        // Moved by 0.4 pitch along the face: still that crystal; by 0.6: the next one.
        snapToCrystal(m, centre, module, 0.4 * s.crystalPitchMm, -0.4 * s.ringPitchMm, &crystal,
                      &r);
        EXPECT_EQ(crystal, c);
        EXPECT_EQ(r, ring);
        if (c % m.crystalsPerModule != m.crystalsPerModule - 1 && ring > 0) {
          snapToCrystal(m, centre, module, 0.6 * s.crystalPitchMm, -0.6 * s.ringPitchMm, &crystal,
                        &r);
          EXPECT_EQ(crystal, (c + 1) % s.crystalsPerRing) << name;
          EXPECT_EQ(r, ring - 1);
        }
      }
  }
}

TEST(DetectorHits, BlurPastAModulesEdgeStaysOnItsEdgeCrystal) {
  const ScannerModel s = scannerPreset("penn-labr3");
  const DetectorHitModel m = detectorHitModel(s);
  const Vec3d last = crystalCentre<double>(m, 27, 0);  // module 0's last crystal
  int crystal = -1, ring = -1;
  snapToCrystal(m, last, 0, 20.0, -20.0, &crystal, &ring);
  EXPECT_EQ(crystal, 27);
  EXPECT_EQ(ring, 0);
  // In the gap between modules (beyond the crystals' extent) a photon is not recorded.
  const double phi = 2 * std::numbers::pi * 0.5 / 24;
  const double t = 0.5 * 28 * 4.3 + 0.3;
  const Vec3d gap{475 * std::cos(phi) - t * std::sin(phi), 475 * std::sin(phi) + t * std::cos(phi),
                  0};
  EXPECT_FALSE(hitOnCrystals(m, gap, 0));
  EXPECT_FALSE(hitOnCrystals(m, Vec3d{475, 0, 130}, 0));  // beyond the last ring
}

TEST(DetectorHits, AcceptanceChecksTiltAndFieldOfView) {
  const ScannerModel s = scannerPreset("ring-930");
  const DetectorHitModel m = detectorHitModel(s);
  const auto at = [&](int c, int r) { return crystalCentre<double>(m, c, r); };
  EXPECT_TRUE(acceptLor(m, at(0, 30), at(336, 30)));   // straight through the centre
  EXPECT_TRUE(acceptLor(m, at(0, 11), at(336, 49)));   // 38 rings over 950 mm: 9.8 degrees
  EXPECT_FALSE(acceptLor(m, at(0, 10), at(336, 50)));  // 40 rings: 10.3 degrees
  EXPECT_FALSE(acceptLor(m, at(0, 0), at(336, 59)));   // 254 mm over 950 mm: 15 degrees
  EXPECT_FALSE(acceptLor(m, at(0, 30), at(20, 30)));   // a short chord far outside the FOV
  EXPECT_FALSE(acceptLor(m, at(5, 30), at(5, 30)));    // no line
}

}  // namespace
}  // namespace tomowb::pet
