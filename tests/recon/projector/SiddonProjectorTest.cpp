// The Siddon pair (recon/projector/siddon/): exact lengths against Siddon's merged plane crossings
// on random cone and tilt geometries, chord lengths, the analytic phantom, determinism, and that
// the registered pair reaches the solvers through the registry alone.
#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <numbers>
#include <random>
#include <vector>

#include "recon/core/Error.h"
#include "recon/geometry/ScanBuilders.h"
#include "recon/iterative/IterativeReconstruction.h"
#include "recon/operator/AdjointTest.h"
#include "recon/operator/ProjectorPair.h"
#include "recon/phantom/AnalyticProjector.h"
#include "recon/phantom/Voxelise.h"
#include "recon/projector/siddon/SiddonProjector.h"
#include "recon/variant/VariantRegistry.h"
#include "support/TestSupport.h"

namespace tomowb::projector {
namespace {

constexpr double kDeg = std::numbers::pi / 180.0;

Geometry randomCone(std::mt19937_64& rng, std::int64_t cols, std::int64_t rows, int views) {
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  CircularConeParams p;
  p.sourceToIsocentreMm = 40;
  p.sourceToDetectorMm = 80;
  p.detector.cols = cols;
  p.detector.rows = rows;
  p.detector.pitchUMm = p.detector.pitchVMm = 1.3;
  p.detector.offsetUMm = 2 * unit(rng);
  p.detector.tiltRad = 0.1 * unit(rng);
  p.anglesRad = fullScanAnglesRad(views, unit(rng));
  return circularConeBeam(p);
}

Geometry randomTiltSeries(std::mt19937_64& rng, std::int64_t cols, std::int64_t rows, int views) {
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  TiltSeriesParams p;
  p.cols = cols;
  p.rows = rows;
  p.pixelSizeMm = 0.9 + 0.1 * unit(rng);
  for (int i = 0; i < views; ++i) p.tiltAnglesRad.push_back(70 * kDeg * unit(rng));
  p.tiltAxisAngleRad = 20 * kDeg * unit(rng);
  p.tiltAxisShiftPixels = 2 * unit(rng);
  return tiltSeries(p);
}

Volume randomVolume(std::mt19937_64& rng, VolumeShape shape, const Eigen::Vector3d& voxel) {
  Volume v = Volume::centred(shape, voxel);
  std::uniform_real_distribution<float> value(0.0f, 1.0f);
  for (float& x : v.voxels()) x = value(rng);
  return v;
}

// The integral of the piecewise-constant volume along the ray of pixel (col, row) the way
// Siddon's paper computes it, independently of the voxel walk under test: every crossing of a
// voxel plane on each axis, merged and sorted; each segment between two crossings lies in the
// voxel of its midpoint.
double mergedPlaneIntegral(const Volume& volume, const Geometry& g, std::int64_t view,
                           std::int64_t col, std::int64_t row) {
  const Eigen::Vector3d pixel =
      g.pixelPosition(view, static_cast<double>(col), static_cast<double>(row));
  const Eigen::Vector3d dir =
      g.rayDirectionTo(view, static_cast<double>(col), static_cast<double>(row));
  const Eigen::Vector3d low = volume.originMm() - 0.5 * volume.voxelSizeMm();
  const std::int64_t size[3] = {volume.nx(), volume.ny(), volume.nz()};
  std::vector<double> crossings;
  for (int a = 0; a < 3; ++a) {
    if (dir[a] == 0.0) continue;
    for (std::int64_t i = 0; i <= size[a]; ++i)
      crossings.push_back((low[a] + static_cast<double>(i) * volume.voxelSizeMm()[a] - pixel[a]) /
                          dir[a]);
  }
  std::sort(crossings.begin(), crossings.end());
  double sum = 0.0;
  for (std::size_t k = 0; k + 1 < crossings.size(); ++k) {
    const double length = crossings[k + 1] - crossings[k];
    if (length <= 0) continue;
    const Eigen::Vector3d mid = pixel + 0.5 * (crossings[k] + crossings[k + 1]) * dir;
    const Eigen::Vector3d q = (mid - low).cwiseQuotient(volume.voxelSizeMm());
    std::int64_t index[3];
    bool inside = true;
    for (int a = 0; a < 3; ++a) {
      index[a] = static_cast<std::int64_t>(std::floor(q[a]));
      inside = inside && index[a] >= 0 && index[a] < size[a];
    }
    if (inside) sum += length * volume.at(index[0], index[1], index[2]);
  }
  return sum;
}

void expectMatchesSampling(const Volume& volume, const Geometry& g, std::mt19937_64& rng) {
  ProjectionStack stack(g);
  siddonForward(volume, stack);
  std::uniform_int_distribution<std::int64_t> view(0, g.viewCount() - 1);
  std::uniform_int_distribution<std::int64_t> col(0, stack.cols() - 1), row(0, stack.rows() - 1);
  int hits = 0;
  for (int i = 0; i < 60; ++i) {
    const std::int64_t v = view(rng), c = col(rng), r = row(rng);
    const double expected = mergedPlaneIntegral(volume, g, v, c, r);
    const double got = stack.viewPixels(v)[r * stack.cols() + c];
    if (expected > 0) ++hits;
    // float32 output of float64 sums.
    EXPECT_NEAR(got, expected, 1e-5 * std::max(1.0, expected))
        << "view " << v << ", column " << c << ", row " << r;
  }
  EXPECT_GT(hits, 20) << "too few of the sampled rays cross the volume";
}

TEST(SiddonProjector, MatchesSiddonsMergedPlaneCrossingsOnRandomConeBeams) {
  const std::uint64_t seed = test::randomSeed();
  std::mt19937_64 rng(seed);
  const Geometry g = randomCone(rng, 24, 18, 7);
  const Volume volume = randomVolume(rng, {14, 11, 9}, Eigen::Vector3d(1.1, 0.9, 1.3));
  expectMatchesSampling(volume, g, rng);
}

TEST(SiddonProjector, MatchesSiddonsMergedPlaneCrossingsOnRandomTiltSeries) {
  const std::uint64_t seed = test::randomSeed();
  std::mt19937_64 rng(seed);
  const Geometry g = randomTiltSeries(rng, 20, 9, 5);
  const Volume volume = randomVolume(rng, {16, 7, 8}, Eigen::Vector3d(1.0, 1.0, 1.0));
  expectMatchesSampling(volume, g, rng);
}

TEST(SiddonProjector, ConstantVolumeIntegratesToValueTimesChordLength) {
  // Beam along -y at tilt 0 crosses 20 voxels of 0.5 mm; at 45 degrees a ray through the centre
  // of a 16 x 16 slice crosses its diagonal.
  TiltSeriesParams p;
  p.cols = 8;
  p.rows = 4;
  p.pixelSizeMm = 0.5;
  p.tiltAnglesRad = {0.0};
  Volume volume = Volume::centred({8, 20, 4}, Eigen::Vector3d::Constant(0.5));
  std::fill(volume.voxels().begin(), volume.voxels().end(), 3.0f);
  ProjectionStack stack(tiltSeries(p));
  siddonForward(volume, stack);
  for (const float v : stack.pixels()) EXPECT_NEAR(v, 3.0 * 20 * 0.5, 1e-4);

  p.cols = 1;
  p.rows = 1;
  p.tiltAnglesRad = {45 * kDeg};
  Volume square = Volume::centred({16, 16, 1}, Eigen::Vector3d::Ones());
  std::fill(square.voxels().begin(), square.voxels().end(), 1.0f);
  ProjectionStack diagonal(tiltSeries(p));
  siddonForward(square, diagonal);
  EXPECT_NEAR(diagonal.pixels()[0], 16 * std::sqrt(2.0), 1e-5 * 16);  // float32 output
}

TEST(SiddonProjector, MatchesTheAnalyticProjectionsOfAVoxelisedPhantom) {
  TiltSeriesParams p;
  p.cols = 96;
  p.rows = 6;
  p.tiltAnglesRad = arcAnglesRad(61, 120 * kDeg, -60 * kDeg);
  const Geometry g = tiltSeries(p);
  const phantom::Phantom shepp = phantom::modifiedSheppLogan3d(40.0, 1.0);
  const Volume volume = phantom::voxelisePhantom(shepp, {96, 96, 6}, Eigen::Vector3d::Ones(),
                                                 Eigen::Vector3d(-47.5, -47.5, -2.5), 4);
  ProjectionStack numeric(g);
  siddonForward(volume, numeric);
  const ProjectionStack analytic = phantom::projectPhantom(shepp, g, {.supersample = 4});
  double diff2 = 0, ref2 = 0;
  for (std::int64_t i = 0; i < numeric.pixelCount(); ++i) {
    const double d = numeric.pixels()[i] - analytic.pixels()[i];
    diff2 += d * d;
    ref2 += static_cast<double>(analytic.pixels()[i]) * analytic.pixels()[i];
  }
  EXPECT_LT(std::sqrt(diff2 / ref2), 3e-2);  // as the Joseph projector (JosephProjectorTest)
}

TEST(SiddonProjector, BackprojectionDoesNotDependOnTheThreadCount) {
  const std::uint64_t seed = test::randomSeed();
  std::mt19937_64 rng(seed);
  const Geometry g = randomCone(rng, 16, 12, 5);
  ProjectionStack stack(g);
  std::uniform_real_distribution<float> value(-1.0f, 1.0f);
  for (float& v : stack.pixels()) v = value(rng);
  Volume one = Volume::centred({12, 10, 11}, Eigen::Vector3d::Ones());
  Volume many = Volume::centred({12, 10, 11}, Eigen::Vector3d::Ones());
  const int threads = omp_get_max_threads();
  omp_set_num_threads(1);
  siddonBackproject(stack, one);
  omp_set_num_threads(std::max(threads, 3));
  siddonBackproject(stack, many);
  omp_set_num_threads(threads);
  for (std::int64_t i = 0; i < one.voxelCount(); ++i)
    ASSERT_EQ(one.voxels()[i], many.voxels()[i]) << "voxel " << i;
}

TEST(SiddonProjector, TheRegisteredPairIsMatchedAndPassesTheZeroMeanAdjointTest) {
  const std::uint64_t seed = test::randomSeed();
  std::mt19937_64 rng(seed);
  const Geometry g = randomCone(rng, 20, 14, 6);
  const VolumeGrid grid = VolumeGrid::centred({13, 12, 10}, Eigen::Vector3d(1.0, 1.2, 0.9));
  JobContext context;
  const auto pair = op::bindProjectorPair(VariantRegistry::builtins(), "et.fp.cpu-siddon",
                                          "et.bp.cpu-siddon", {&g, grid, {}});
  EXPECT_TRUE(pair->matched());
  const op::AdjointCheck check = op::checkAdjoint(*pair, seed, context);
  EXPECT_LT(check.relativeError, 1e-5) << "seed " << seed;
}

TEST(SiddonProjector, RunsInTheSolversThroughTheRegistryAlone) {
  // SIRT and CGLS with the Siddon pair on a tilt series: the residual falls.
  TiltSeriesParams p;
  p.cols = 48;
  p.rows = 3;
  p.tiltAnglesRad = arcAnglesRad(41, 120 * kDeg, -60 * kDeg);
  const Geometry g = tiltSeries(p);
  const phantom::Phantom shepp = phantom::modifiedSheppLogan3d(20.0, 1.0);
  const ProjectionStack data = phantom::projectPhantom(shepp, g, {.supersample = 2});
  for (const auto method : {iterative::IterativeMethod::Sirt, iterative::IterativeMethod::Cgls}) {
    iterative::IterativeParams params;
    params.method = method;
    params.iterations = 6;
    params.forwardVariant = "et.fp.cpu-siddon";
    params.backVariant = "et.bp.cpu-siddon";
    params.volume = VolumeGrid::centred({48, 48, 3}, Eigen::Vector3d::Ones());
    JobContext context;
    iterative::IterativeReport report;
    iterative::reconstructIterative(data, params, context, &report);
    ASSERT_EQ(report.iterations.size(), 6u) << iterative::toString(method);
    EXPECT_LT(report.iterations.back().residualNorm, 0.5 * report.iterations.front().residualNorm)
        << iterative::toString(method);
  }
}

TEST(SiddonProjector, RejectsAViewIndexOutsideTheStackNamingIt) {
  TiltSeriesParams p;
  p.cols = 4;
  p.rows = 2;
  p.tiltAnglesRad = {0.0, 0.1};
  ProjectionStack stack(tiltSeries(p));
  const Volume volume = Volume::centred({4, 4, 2}, Eigen::Vector3d::Ones());
  try {
    siddonForward(volume, stack, std::vector<std::int64_t>{5});
    FAIL() << "no error";
  } catch (const ParameterError& e) {
    EXPECT_NE(std::string(e.what()).find("view index 5"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace tomowb::projector
