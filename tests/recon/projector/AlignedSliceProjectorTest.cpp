// The aligned fast path (AlignedSliceProjector.h) against the generic projectors: a volume of
// several slices goes through the fast path, each of its slices alone (a one-slice volume, too
// small for the fast path) through the generic one.
#include <gtest/gtest.h>
#include <omp.h>

#include <cmath>
#include <numbers>
#include <random>

#include "recon/geometry/ScanBuilders.h"
#include "recon/projector/AlignedSliceProjector.h"
#include "recon/projector/JosephProjector.h"
#include "recon/projector/VoxelBackprojector.h"
#include "support/TestSupport.h"

namespace tomowb::projector {
namespace {

constexpr std::int64_t kSlices = 7;

struct AlignedCase {
  Geometry geometry;
  Volume volume;
};

// A tilt series with random tilts and axis shift whose rows fall on the volume's slices.
AlignedCase randomAlignedCase(std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  TiltSeriesParams p;
  p.cols = 48;
  p.rows = kSlices + 2;  // two rows see no slice
  p.pixelSizeMm = 1.0;
  for (int k = 0; k < 13; ++k) p.tiltAnglesRad.push_back(70 * std::numbers::pi / 180 * unit(rng));
  p.tiltAxisShiftPixels = 2.5 * unit(rng);
  AlignedCase c;
  c.geometry = tiltSeries(p);
  // Slices z = 0..6 on rows 1..7 (row r at z = r - (rows - 1) / 2 = r - 4).
  c.volume =
      Volume({40, 16, kSlices}, Eigen::Vector3d(1.0, 1.1, 1.0), Eigen::Vector3d(-19.3, -8.0, -3.0));
  std::uniform_real_distribution<float> value(0.0f, 1.0f);
  for (float& v : c.volume.voxels()) v = value(rng);
  return c;
}

Volume sliceOf(const Volume& volume, std::int64_t z) {
  Volume s({volume.nx(), volume.ny(), 1}, volume.voxelSizeMm(), volume.worldPosition(0, 0, z));
  std::copy_n(volume.data() + volume.index(0, 0, z), volume.nx() * volume.ny(), s.data());
  return s;
}

double relativeDifference(std::span<const float> a, std::span<const float> b) {
  double d2 = 0, r2 = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    d2 += std::pow(static_cast<double>(a[i]) - b[i], 2);
    r2 += static_cast<double>(b[i]) * b[i];
  }
  return std::sqrt(d2 / std::max(r2, 1e-300));
}

TEST(AlignedSliceProjector, ForwardEqualsTheGenericProjectorSliceBySlice) {
  const AlignedCase c = randomAlignedCase(test::randomSeed());
  ProjectionStack fast(c.geometry);
  josephForward(c.volume, fast);
  ProjectionStack generic(c.geometry);
  for (std::int64_t z = 0; z < kSlices; ++z) {
    ProjectionStack one(c.geometry);
    josephForward(sliceOf(c.volume, z), one);
    for (std::int64_t i = 0; i < one.pixelCount(); ++i) generic.pixels()[i] += one.pixels()[i];
  }
  EXPECT_LT(relativeDifference(fast.pixels(), generic.pixels()), 1e-6);
  for (std::int64_t k = 0; k < fast.viewCount(); ++k)
    for (std::int64_t col = 0; col < fast.cols(); ++col) {
      ASSERT_EQ(fast.at(k, 0, col), 0.0f);  // rows without a slice
      ASSERT_EQ(fast.at(k, kSlices + 1, col), 0.0f);
    }
}

TEST(AlignedSliceProjector, BackprojectorsEqualTheGenericOnesSliceBySlice) {
  const AlignedCase c = randomAlignedCase(test::randomSeed());
  ProjectionStack y(c.geometry);
  std::mt19937_64 rng(test::randomSeed());
  std::uniform_real_distribution<float> value(-1.0f, 1.0f);
  for (float& v : y.pixels()) v = value(rng);
  for (const bool matched : {true, false}) {
    Volume fast(c.volume.shape(), c.volume.voxelSizeMm(), c.volume.originMm());
    if (matched)
      josephBackproject(y, fast);
    else
      voxelBackproject(y, fast);
    for (std::int64_t z = 0; z < kSlices; ++z) {
      Volume one = sliceOf(fast, z);
      std::fill(one.voxels().begin(), one.voxels().end(), 0.0f);
      if (matched)
        josephBackproject(y, one);
      else
        voxelBackproject(y, one);
      EXPECT_LT(relativeDifference(sliceOf(fast, z).voxels(), one.voxels()), 1e-6)
          << (matched ? "matched" : "voxel") << " slice " << z;
    }
  }
}

TEST(AlignedSliceProjector, MatchedPairStaysTheExactTranspose) {
  const AlignedCase c = randomAlignedCase(test::randomSeed());
  ProjectionStack y(c.geometry);
  std::mt19937_64 rng(test::randomSeed());
  std::normal_distribution<float> gauss;
  for (float& v : y.pixels()) v = gauss(rng);
  ProjectionStack ax(c.geometry);
  josephForward(c.volume, ax);
  Volume aty(c.volume.shape(), c.volume.voxelSizeMm(), c.volume.originMm());
  josephBackproject(y, aty);
  double lhs = 0, rhs = 0, ax2 = 0, y2 = 0;
  for (std::int64_t i = 0; i < ax.pixelCount(); ++i) {
    lhs += static_cast<double>(ax.pixels()[i]) * y.pixels()[i];
    ax2 += static_cast<double>(ax.pixels()[i]) * ax.pixels()[i];
    y2 += static_cast<double>(y.pixels()[i]) * y.pixels()[i];
  }
  for (std::int64_t i = 0; i < c.volume.voxelCount(); ++i)
    rhs += static_cast<double>(c.volume.voxels()[i]) * aty.voxels()[i];
  // Float32 storage of A x and A^T y is the only rounding left.
  EXPECT_LT(std::abs(lhs - rhs) / std::sqrt(ax2 * y2), 1e-6);
}

TEST(AlignedSliceProjector, BackprojectionDoesNotDependOnTheThreadCount) {
  const AlignedCase c = randomAlignedCase(test::randomSeed());
  ProjectionStack y(c.geometry);
  std::mt19937_64 rng(test::randomSeed());
  std::uniform_real_distribution<float> value(-1.0f, 1.0f);
  for (float& v : y.pixels()) v = value(rng);
  const int threads = omp_get_max_threads();
  for (const bool matched : {true, false}) {
    Volume one(c.volume.shape(), c.volume.voxelSizeMm(), c.volume.originMm());
    Volume many(c.volume.shape(), c.volume.voxelSizeMm(), c.volume.originMm());
    omp_set_num_threads(1);
    matched ? josephBackproject(y, one) : voxelBackproject(y, one);
    omp_set_num_threads(std::max(threads, 3));
    matched ? josephBackproject(y, many) : voxelBackproject(y, many);
    omp_set_num_threads(threads);
    for (std::int64_t i = 0; i < one.voxelCount(); ++i)
      ASSERT_EQ(one.voxels()[i], many.voxels()[i]) << "voxel " << i;
  }
}

TEST(AlignedSliceProjector, DeclinesWhatIsNotAligned) {
  AlignedCase c = randomAlignedCase(test::randomSeed());
  c.volume.setOriginMm(c.volume.originMm() + Eigen::Vector3d(0, 0, 0.3));  // between rows
  ProjectionStack out(c.geometry);
  EXPECT_FALSE(aligned::josephForward(c.volume, out, {0, 1}, nullptr));
  const Volume thin = sliceOf(randomAlignedCase(1).volume, 0);  // one slice: generic is as fast
  EXPECT_FALSE(aligned::josephForward(thin, out, {0}, nullptr));
}

}  // namespace
}  // namespace tomowb::projector
