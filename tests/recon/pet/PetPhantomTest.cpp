// PetPhantom: the sphere layout, activity that integrates to the analytic total, the attenuation
// map, parameter errors.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

#include "recon/core/Error.h"
#include "recon/pet/PetPhantom.h"

namespace tomowb::pet {
namespace {

constexpr double kPi = std::numbers::pi;

double sum(const Volume& v) {
  double s = 0;
  for (float x : v.voxels()) s += x;
  return s;
}

TEST(PetPhantom, SpheresSitOnTheirRingsInTheCentralSlice) {
  PetPhantomParams p;
  p.coldSpheres = true;
  const PetPhantom phantom(p);
  ASSERT_EQ(phantom.spheres().size(), 8u);
  for (int i = 0; i < 6; ++i) {
    const PetSphere& s = phantom.spheres()[std::size_t(i)];
    EXPECT_TRUE(s.hot);
    EXPECT_NEAR(s.centreMm.head<2>().norm(), 75.0, 1e-12);
    EXPECT_NEAR(std::atan2(s.centreMm.y(), s.centreMm.x()), std::remainder(i * kPi / 3, 2 * kPi),
                1e-12);
    EXPECT_EQ(s.centreMm.z(), 0.0);
    EXPECT_EQ(s.diameterMm, 10.0);
    EXPECT_EQ(s.activityBqPerMl, 4 * 5300.0);
    EXPECT_EQ(s.idealContrast, 3.0);
  }
  for (int i = 6; i < 8; ++i) {
    const PetSphere& s = phantom.spheres()[std::size_t(i)];
    EXPECT_FALSE(s.hot);
    EXPECT_NEAR(s.centreMm.head<2>().norm(), 120.0, 1e-12);
    EXPECT_EQ(s.activityBqPerMl, 0.0);
    EXPECT_EQ(s.idealContrast, -1.0);
  }
  // Point values: background, hot sphere, cold sphere, outside.
  const phantom::Phantom& a = phantom.activityPhantom();
  EXPECT_EQ(a.valueAt({0, 0, 0}), 5300.0);
  EXPECT_EQ(a.valueAt({75, 0, 0}), 4 * 5300.0);
  EXPECT_NEAR(a.valueAt(phantom.spheres()[6].centreMm), 0.0, 1e-9);
  EXPECT_EQ(a.valueAt({0, 0, 95}), 0.0);
  EXPECT_EQ(phantom.attenuationPhantom().valueAt({100, 100, 0}), 0.0096);
}

TEST(PetPhantom, ActivityIntegratesToTheAnalyticTotal) {
  PetPhantomParams p;
  p.coldSpheres = true;
  const PetPhantom phantom(p);
  const double cylinderMl = kPi * 175 * 175 * 180 * 1e-3;
  const double hotMl = 4.0 / 3 * kPi * 125 * 1e-3, coldMl = 4.0 / 3 * kPi * 1000 * 1e-3;
  const double analytic = 5300 * (cylinderMl + 6 * 3 * hotMl - 2 * coldMl);
  EXPECT_NEAR(phantom.totalActivityBq(), analytic, 1e-9 * analytic);
  // 4 mm voxels, 144 x 144 x 48 like the seed's image (57.6 x 57.6 x 19.2 cm).
  const VolumeGrid grid = VolumeGrid::centred({144, 144, 48}, Eigen::Vector3d::Constant(4.0));
  const Volume activity = phantom.activity(grid);
  const double voxelMl = 64e-3;
  EXPECT_NEAR(sum(activity) * voxelMl, analytic, 0.01 * analytic);
  const Volume mu = phantom.attenuation(grid);
  EXPECT_NEAR(sum(mu) * 64, 0.0096 * kPi * 175 * 175 * 180, 0.01 * 0.0096 * kPi * 175 * 175 * 180);
  EXPECT_FLOAT_EQ(mu.at(72, 72, 24), 0.0096f);
  EXPECT_FLOAT_EQ(mu.at(0, 0, 24), 0.0f);
}

TEST(PetPhantom, PointSourceAddsItsActivity) {
  PetPhantomParams p;
  p.backgroundBqPerMl = 0;
  p.hotSphereCount = 0;
  p.pointSourceMm = Eigen::Vector3d(100, 0, 0);
  p.pointSourceDiameterMm = 4;
  p.pointSourceBq = 2e5;
  p.supersample = 16;  // a 4 mm sphere in 2 mm voxels: fine sampling for its volume
  const PetPhantom phantom(p);
  EXPECT_NEAR(phantom.totalActivityBq(), 2e5, 1e-6);
  const Volume activity =
      phantom.activity(VolumeGrid::centred({121, 11, 11}, Eigen::Vector3d::Constant(2.0)));
  EXPECT_NEAR(sum(activity) * 8e-3, 2e5, 0.02 * 2e5);
}

TEST(PetPhantom, BadParametersNameTheField) {
  const auto errorOf = [](auto change) {
    PetPhantomParams p;
    change(p);
    try {
      PetPhantom phantom(p);
    } catch (const ParameterError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_NE(errorOf([](PetPhantomParams& p) {
              p.cylinderRadiusMm = 0;
            }).find("'petPhantom.cylinderRadiusMm'"),
            std::string::npos);
  EXPECT_NE(errorOf([](PetPhantomParams& p) {
              p.hotSphereRingRadiusMm = 172;
            }).find("leaves the cylinder"),
            std::string::npos);
  EXPECT_NE(errorOf([](PetPhantomParams& p) { p.hotSphereDiameterMm = 80; }).find("overlaps"),
            std::string::npos);
  EXPECT_NE(errorOf([](PetPhantomParams& p) {
              p.coldSpheres = true;  // 70 mm cold spheres between the hot ones
              p.coldSphereRingRadiusMm = 75;
              p.coldSphereDiameterMm = 70;
            }).find("overlaps"),
            std::string::npos);
  EXPECT_NE(
      errorOf([](PetPhantomParams& p) { p.supersample = 0; }).find("'petPhantom.supersample'"),
      std::string::npos);
  EXPECT_NE(errorOf([](PetPhantomParams& p) {
              p.backgroundBqPerMl = -1;
            }).find("'petPhantom.backgroundBqPerMl'"),
            std::string::npos);
}

}  // namespace
}  // namespace tomowb::pet
