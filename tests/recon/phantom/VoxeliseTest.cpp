#include <gtest/gtest.h>

#include <Eigen/Geometry>
#include <cmath>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "recon/core/Error.h"
#include "recon/phantom/Voxelise.h"
#include "support/TestSupport.h"

namespace tomowb::phantom {
namespace {

Volume voxeliseCentred(const Phantom& p, VolumeShape shape, double voxelMm, int supersample) {
  const Eigen::Vector3d voxel = Eigen::Vector3d::Constant(voxelMm);
  const Eigen::Vector3d extent(static_cast<double>(shape.nx - 1), static_cast<double>(shape.ny - 1),
                               static_cast<double>(shape.nz - 1));
  return voxelisePhantom(p, shape, voxel, -0.5 * voxelMm * extent, supersample);
}

double volumeIntegral(const Volume& v) {
  double sum = 0.0;
  for (float value : v.voxels()) sum += value;
  return sum * v.voxelSizeMm().prod();
}

TEST(Voxelise, EachVoxelIsTheMeanOfItsSubSamples) {
  // The definition, checked against point values at random voxels.
  const Phantom p = modifiedSheppLogan3d(20.0, 1.0);
  const int n = 3;
  const Volume v = voxeliseCentred(p, VolumeShape{30, 40, 38}, 1.0, n);
  std::mt19937_64 rng(tomowb::test::randomSeed());
  std::uniform_int_distribution<std::int64_t> x(0, 29), y(0, 39), z(0, 37);
  int partial = 0;
  for (int i = 0; i < 3000; ++i) {
    const std::int64_t ix = x(rng), iy = y(rng), iz = z(rng);
    double sum = 0.0;
    for (int a = 0; a < n; ++a)
      for (int b = 0; b < n; ++b)
        for (int c = 0; c < n; ++c) {
          const Eigen::Vector3d offset((a + 0.5) / n - 0.5, (b + 0.5) / n - 0.5,
                                       (c + 0.5) / n - 0.5);
          sum += p.valueAt(v.worldPosition(static_cast<double>(ix) + offset.x(),
                                           static_cast<double>(iy) + offset.y(),
                                           static_cast<double>(iz) + offset.z()));
        }
    const double expected = sum / (n * n * n);
    ASSERT_NEAR(v.at(ix, iy, iz), expected, 1e-6) << ix << " " << iy << " " << iz;
    partial +=
        expected != p.valueAt(v.worldPosition(static_cast<double>(ix), static_cast<double>(iy),
                                              static_cast<double>(iz)));
  }
  EXPECT_GT(partial, 10);  // some voxels straddled edges
}

TEST(Voxelise, VolumeIntegralMatchesDensityTimesVolume) {
  // Sampling error of a voxelised solid: each sample stands for (voxel / n)^3, so the volume
  // counted errs only in the boundary shell of sample cells, whose errors largely cancel; for a
  // 3 mm-to-40 mm ellipsoid at 1 mm voxels and n = 4 that is well below 0.1% of sum |rho| V.
  const Phantom p = sheppLogan3d(40.0, 1.0);
  const Volume v = voxeliseCentred(p, VolumeShape{60, 78, 76}, 1.0, 4);
  double scale = 0.0;
  for (const Ellipsoid& e : p.ellipsoids()) scale += std::abs(e.density) * e.volumeMm3();
  EXPECT_NEAR(volumeIntegral(v), p.volumeIntegral(), 1e-3 * scale);
}

TEST(Voxelise, RotatedCylinderVolumeIntegral) {
  Cylinder c;
  c.radiusMm = 9.0;
  c.halfLengthMm = 12.0;
  c.rotation =
      Eigen::AngleAxisd(0.6, Eigen::Vector3d(1.0, 1.0, 0.0).normalized()).toRotationMatrix();
  c.density = 2.0;
  const Phantom p("cylinder", {}, {c});
  const Volume v = voxeliseCentred(p, VolumeShape{40, 40, 40}, 1.0, 4);
  EXPECT_NEAR(volumeIntegral(v), 2.0 * c.volumeMm3(), 2e-3 * 2.0 * c.volumeMm3());
}

TEST(Voxelise, VoxelsCutByAFlatCapHoldTheirSampleFraction) {
  // A cap at 0.3 voxel above a voxel centre: of the sub-samples at -3/8, -1/8, 1/8, 3/8 (n = 4),
  // three lie below it, so those voxels read 3/4 of the density.
  Cylinder c;
  c.radiusMm = 50.0;
  c.halfLengthMm = 2.3;  // centred on z = 0, voxel centres at integer z: cap at z = 2.3
  c.density = 1.0;
  const Phantom p("slab", {}, {c});
  const Volume v = voxeliseCentred(p, VolumeShape{11, 11, 9}, 1.0, 4);
  EXPECT_FLOAT_EQ(v.at(5, 5, 4), 1.0f);   // z = 0
  EXPECT_FLOAT_EQ(v.at(5, 5, 6), 0.75f);  // z = 2
  EXPECT_FLOAT_EQ(v.at(5, 5, 2), 0.75f);  // z = -2
  EXPECT_FLOAT_EQ(v.at(5, 5, 7), 0.0f);   // z = 3
}

TEST(Voxelise, SupersampleOneSamplesVoxelCentres) {
  const Phantom p = sheppLogan3d(20.0, 1.0);
  const Volume v = voxeliseCentred(p, VolumeShape{21, 21, 21}, 2.0, 1);
  for (std::int64_t z = 0; z < 21; ++z)
    for (std::int64_t y = 0; y < 21; ++y)
      for (std::int64_t x = 0; x < 21; ++x)
        ASSERT_NEAR(v.at(x, y, z),
                    p.valueAt(v.worldPosition(static_cast<double>(x), static_cast<double>(y),
                                              static_cast<double>(z))),
                    1e-6);
}

TEST(Voxelise, StopsWhenCancelled) {
  CancelToken token;
  token.request();
  const JobContext context(token);
  EXPECT_THROW(voxelisePhantom(sheppLogan3d(20.0), VolumeShape{8, 8, 8}, Eigen::Vector3d::Ones(),
                               Eigen::Vector3d::Zero(), 1, &context),
               Cancelled);
}

struct RecordingSink : ProgressSink {
  std::vector<double> fractions;
  void report(std::string_view, double fraction) override { fractions.push_back(fraction); }
};

TEST(Voxelise, ReportsProgressUpToOne) {
  CancelToken token;
  RecordingSink sink;
  const JobContext context(token, &sink);
  voxelisePhantom(sheppLogan3d(20.0), VolumeShape{16, 300, 8}, Eigen::Vector3d::Ones(),
                  Eigen::Vector3d::Zero(), 1, &context);
  ASSERT_EQ(sink.fractions.size(), 8u);  // one slice of 300 rows per block
  EXPECT_DOUBLE_EQ(sink.fractions.back(), 1.0);
}

TEST(Voxelise, RejectsSupersampleOutOfRangeNamingIt) {
  try {
    voxelisePhantom(sheppLogan3d(20.0), VolumeShape{4, 4, 4}, Eigen::Vector3d::Ones(),
                    Eigen::Vector3d::Zero(), 0);
    FAIL() << "no exception";
  } catch (const ParameterError& error) {
    EXPECT_NE(std::string(error.what()).find("supersample"), std::string::npos);
  }
  EXPECT_THROW(voxelisePhantom(sheppLogan3d(20.0), VolumeShape{4, 4, 4}, Eigen::Vector3d::Ones(),
                               Eigen::Vector3d::Zero(), 17),
               ParameterError);
}

}  // namespace
}  // namespace tomowb::phantom
