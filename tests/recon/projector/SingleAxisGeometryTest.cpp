// SingleAxisGeometry: which geometries are aligned single-axis problems, and whether its 2-D
// coefficients reproduce the CPU projectors (JosephProjector, VoxelBackprojector) slice by slice
// on random tilt series.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <random>
#include <vector>

#include "recon/geometry/ScanBuilders.h"
#include "recon/projector/JosephProjector.h"
#include "recon/projector/SingleAxisGeometry.h"
#include "recon/projector/VoxelBackprojector.h"
#include "support/TestSupport.h"

namespace tomowb::projector {
namespace {

constexpr double kDeg = std::numbers::pi / 180.0;

// A tilt series with random angles over +-80 degrees (both dominant axes) and a random shift.
Geometry randomSeries(std::mt19937_64& rng, std::int64_t cols, std::int64_t rows, int views,
                      double pixelMm, double axisAngleRad = 0.0) {
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  TiltSeriesParams p;
  p.cols = cols;
  p.rows = rows;
  p.pixelSizeMm = pixelMm;
  for (int k = 0; k < views; ++k) p.tiltAnglesRad.push_back(80 * kDeg * unit(rng));
  p.tiltAxisShiftPixels = 4 * unit(rng);
  p.tiltAxisAngleRad = axisAngleRad;
  return tiltSeries(p);
}

// The 2-D Joseph projection of slice z from the coefficients, in float64.
double sliceRay(const std::vector<double>& x, const VolumeShape& s, std::int64_t z,
                const SliceViewCoefficients& c, std::int64_t col) {
  const std::int64_t na = c.dominantAxis == 0 ? s.nx : s.ny, nb = c.dominantAxis == 0 ? s.ny : s.nx;
  double sum = 0;
  for (std::int64_t p = 0; p < na; ++p) {
    const double q = c.rayOffset + double(col) * c.rayStep + double(p) * c.planeStep;
    const double f0 = std::floor(q), f = q - f0;
    for (int d = 0; d < 2; ++d) {
      const auto t = static_cast<std::int64_t>(f0) + d;
      if (t < 0 || t >= nb) continue;
      const std::int64_t i = c.dominantAxis == 0 ? p : t, j = c.dominantAxis == 0 ? t : p;
      sum += (d ? f : 1 - f) * x[std::size_t((z * s.ny + j) * s.nx + i)];
    }
  }
  return sum * c.forwardWeight;
}

void expectForwardMatchesJoseph(const Geometry& g, const VoxelGrid& grid, std::uint64_t seed) {
  const SingleAxisGeometry a = SingleAxisGeometry::analyse(g, grid);
  ASSERT_TRUE(a.aligned) << a.reason;
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> value(0.0, 1.0);
  std::vector<double> x(std::size_t(grid.shape.voxelCount()));
  for (double& v : x) v = value(rng);
  const std::int64_t cols = g.detector().cols, rows = g.detector().rows;
  std::vector<double> reference(std::size_t(g.viewCount() * rows * cols));
  josephForward(x, grid, g, reference);
  double worst = 0;
  for (std::int64_t k = 0; k < g.viewCount(); ++k)
    for (std::int64_t z = 0; z < grid.shape.nz; ++z) {
      const std::int64_t row = a.rowOf(z);
      const bool seen = z >= a.firstSlice && z < a.firstSlice + a.sliceCount;
      ASSERT_EQ(seen, row >= 0 && row < rows) << "slice " << z;
      if (!seen) continue;
      for (std::int64_t c = 0; c < cols; ++c) {
        const double ours = sliceRay(x, grid.shape, z, a.views[std::size_t(k)], c);
        const double ref = reference[std::size_t((k * rows + row) * cols + c)];
        worst = std::max(worst, std::abs(ours - ref) / std::max(1.0, std::abs(ref)));
      }
    }
  EXPECT_LT(worst, 1e-9);
}

TEST(SingleAxisGeometry, CentredTomogramOfATiltSeriesIsAligned) {
  std::mt19937_64 rng(test::randomSeed());
  const Geometry g = randomSeries(rng, 40, 6, 13, 0.8);
  const VoxelGrid grid{{36, 14, 6}, Eigen::Vector3d::Constant(0.8), {-14.0, -5.2, -2.0}};
  const SingleAxisGeometry a = SingleAxisGeometry::analyse(g, grid);
  ASSERT_TRUE(a.aligned) << a.reason;
  EXPECT_EQ(a.rowDirection, 1);
  EXPECT_EQ(a.rowOffset, 0);
  EXPECT_EQ(a.firstSlice, 0);
  EXPECT_EQ(a.sliceCount, 6);
  EXPECT_EQ(a.views.size(), 13u);
}

TEST(SingleAxisGeometry, ForwardCoefficientsReproduceTheJosephProjector) {
  const std::uint64_t seed = test::randomSeed();
  std::mt19937_64 rng(seed);
  // Voxels larger than pixels in x and y (several rays per voxel), slices on rows.
  const Geometry g = randomSeries(rng, 44, 5, 11, 0.7);
  const VoxelGrid grid{{30, 17, 5}, {0.9, 1.1, 0.7}, {-13.05, -8.8, -1.4}};
  expectForwardMatchesJoseph(g, grid, seed + 1);
}

TEST(SingleAxisGeometry, BackCoefficientsReproduceTheVoxelBackprojector) {
  const std::uint64_t seed = test::randomSeed();
  std::mt19937_64 rng(seed);
  const Geometry g = randomSeries(rng, 36, 4, 9, 1.0);
  Volume volume({28, 12, 4}, {1.0, 1.2, 1.0}, {-13.5, -6.6, -1.5});
  const SingleAxisGeometry a = SingleAxisGeometry::analyse(g, VoxelGrid::of(volume));
  ASSERT_TRUE(a.aligned) << a.reason;
  ProjectionStack y(g);
  std::uniform_real_distribution<float> value(-1.0f, 1.0f);
  for (float& v : y.pixels()) v = value(rng);
  voxelBackproject(y, volume);
  double worst = 0;
  for (std::int64_t z = 0; z < volume.nz(); ++z)
    for (std::int64_t j = 0; j < volume.ny(); ++j)
      for (std::int64_t i = 0; i < volume.nx(); ++i) {
        double sum = 0;
        for (std::int64_t k = 0; k < g.viewCount(); ++k) {
          const SliceViewCoefficients& c = a.views[std::size_t(k)];
          const double col = c.cx * double(i) + c.cy * double(j) + c.c0;
          const double f0 = std::floor(col), f = col - f0;
          for (int d = 0; d < 2; ++d) {
            const auto cc = static_cast<std::int64_t>(f0) + d;
            if (cc < 0 || cc >= y.cols()) continue;
            sum += c.backWeight * (d ? f : 1 - f) * y.at(k, a.rowOf(z), cc);
          }
        }
        worst = std::max(worst, std::abs(sum - volume.at(i, j, z)) / std::max(1.0, std::abs(sum)));
      }
  EXPECT_LT(worst, 1e-5);
}

TEST(SingleAxisGeometry, RowAxisAlongMinusZCountsSlicesDownwards) {
  // A tilt axis at 180 degrees in the image: v runs along -z, so slice z sits on row rows-1-z.
  const std::uint64_t seed = test::randomSeed();
  std::mt19937_64 rng(seed);
  const Geometry g = randomSeries(rng, 32, 7, 8, 1.0, std::numbers::pi);
  const VoxelGrid grid{{26, 10, 7}, Eigen::Vector3d::Ones(), {-12.5, -4.5, -3.0}};
  const SingleAxisGeometry a = SingleAxisGeometry::analyse(g, grid);
  ASSERT_TRUE(a.aligned) << a.reason;
  EXPECT_EQ(a.rowDirection, -1);
  EXPECT_EQ(a.rowOf(0), 6);
  expectForwardMatchesJoseph(g, grid, seed + 1);
}

TEST(SingleAxisGeometry, SlicesBeyondTheDetectorGetNoRow) {
  // 10 slices, 4 rows: only the middle four slices are seen.
  std::mt19937_64 rng(test::randomSeed());
  const Geometry g = randomSeries(rng, 24, 4, 5, 1.0);
  const VoxelGrid grid{{20, 8, 10}, Eigen::Vector3d::Ones(), {-9.5, -3.5, -4.5}};
  const SingleAxisGeometry a = SingleAxisGeometry::analyse(g, grid);
  ASSERT_TRUE(a.aligned) << a.reason;
  EXPECT_EQ(a.firstSlice, 3);
  EXPECT_EQ(a.sliceCount, 4);
  EXPECT_EQ(a.rowOf(3), 0);
}

TEST(SingleAxisGeometry, RotatedTiltAxisIsNotAlignedAndSaysWhy) {
  std::mt19937_64 rng(test::randomSeed());
  const Geometry g = randomSeries(rng, 24, 6, 5, 1.0, 3 * kDeg);
  const SingleAxisGeometry a = SingleAxisGeometry::analyse(
      g, VoxelGrid{{20, 8, 6}, Eigen::Vector3d::Ones(), {-9.5, -3.5, -2.5}});
  EXPECT_FALSE(a.aligned);
  EXPECT_NE(a.reason.find("view 0"), std::string::npos) << a.reason;
}

TEST(SingleAxisGeometry, SlicesBetweenRowsAreNotAligned) {
  std::mt19937_64 rng(test::randomSeed());
  const Geometry g = randomSeries(rng, 24, 6, 5, 1.0);
  // 5 slices centred on 6 rows: slice centres fall half-way between rows.
  const SingleAxisGeometry a = SingleAxisGeometry::analyse(
      g, VoxelGrid{{20, 8, 5}, Eigen::Vector3d::Ones(), {-9.5, -3.5, -2.0}});
  EXPECT_FALSE(a.aligned);
  EXPECT_NE(a.reason.find("do not fall on detector rows"), std::string::npos) << a.reason;
}

TEST(SingleAxisGeometry, RowPitchOtherThanTheSliceThicknessIsNotAligned) {
  std::mt19937_64 rng(test::randomSeed());
  const Geometry g = randomSeries(rng, 24, 6, 5, 1.0);
  const SingleAxisGeometry a =
      SingleAxisGeometry::analyse(g, VoxelGrid{{20, 8, 3}, {1.0, 1.0, 2.0}, {-9.5, -3.5, -2.0}});
  EXPECT_FALSE(a.aligned);
  EXPECT_NE(a.reason.find("row pitch"), std::string::npos) << a.reason;
}

TEST(SingleAxisGeometry, DualAxisSeriesIsNotAligned) {
  std::mt19937_64 rng(test::randomSeed());
  const Geometry first = randomSeries(rng, 24, 24, 4, 1.0);
  const Geometry second = randomSeries(rng, 24, 24, 4, 1.0, 90 * kDeg);
  std::vector<View> views = first.views();
  views.insert(views.end(), second.views().begin(), second.views().end());
  const Geometry dual(BeamKind::Parallel, first.detector(), views);
  const SingleAxisGeometry a = SingleAxisGeometry::analyse(
      dual, VoxelGrid{{20, 20, 24}, Eigen::Vector3d::Ones(), {-9.5, -9.5, -11.5}});
  EXPECT_FALSE(a.aligned);
  EXPECT_NE(a.reason.find("view 4"), std::string::npos) << a.reason;
}

TEST(SingleAxisGeometry, ConeBeamIsNotAligned) {
  CircularConeParams p;
  p.sourceToIsocentreMm = 100;
  p.sourceToDetectorMm = 200;
  p.detector.cols = 16;
  p.detector.rows = 4;
  p.anglesRad = fullScanAnglesRad(8);
  const SingleAxisGeometry a = SingleAxisGeometry::analyse(
      circularConeBeam(p), VoxelGrid{{8, 8, 4}, Eigen::Vector3d::Ones(), {-3.5, -3.5, -1.5}});
  EXPECT_FALSE(a.aligned);
  EXPECT_NE(a.reason.find("cone"), std::string::npos) << a.reason;
}

}  // namespace
}  // namespace tomowb::projector
