#include <gtest/gtest.h>

#include <random>

#include "recon/core/Error.h"
#include "recon/fdk/BackprojectorCpu.h"
#include "recon/geometry/ScanBuilders.h"
#include "support/TestSupport.h"

namespace tomowb::fdk {
namespace {

ProjectionStack randomStack(const Geometry& g, std::mt19937_64& rng) {
  ProjectionStack s(g);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  for (float& p : s.pixels()) p = u(rng);
  return s;
}

double maxAbsDifference(const Volume& a, const Volume& b) {
  double m = 0;
  for (std::int64_t i = 0; i < a.voxelCount(); ++i)
    m = std::max(m, std::abs(double(a.data()[i]) - double(b.data()[i])));
  return m;
}

// Both precisions see the same geometry, including voxels that project off the detector, and a
// volume whose width is not a multiple of 8 (the AVX2 path's tail).
TEST(BackprojectorCpu, SinglePrecisionMatchesFloat64ReferenceOnRandomInputs) {
  std::mt19937_64 rng(test::randomSeed());
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  CircularConeParams p;
  p.sourceToIsocentreMm = 300 + 50 * u(rng);
  p.sourceToDetectorMm = 600 + 50 * u(rng);
  p.detector.cols = 45;
  p.detector.rows = 37;
  p.detector.pitchUMm = p.detector.pitchVMm = 1.5;
  p.detector.offsetUMm = 5 * u(rng);
  p.detector.tiltRad = 0.03 * u(rng);
  for (int i = 0; i < 40; ++i) p.anglesRad.push_back(3.2 * u(rng));
  const ProjectionStack s = randomStack(circularConeBeam(p), rng);
  Volume single({37, 29, 23}, {1.3, 1.3, 1.4}, {-30 + u(rng), -25, -20});
  Volume reference = single;
  JobContext context;
  backprojectCpu(s, single, context);
  backprojectCpuReference(s, reference, context);
  double peak = 0;
  for (float v : reference.voxels()) peak = std::max(peak, double(std::abs(v)));
  EXPECT_GT(peak, 1.0) << "the test must backproject something";
  EXPECT_LT(maxAbsDifference(single, reference), 2e-4 * peak);
}

TEST(BackprojectorCpu, ParallelBeamMatchesReference) {
  std::mt19937_64 rng(test::randomSeed());
  ParallelBeamParams p;
  p.detector.cols = 33;
  p.detector.rows = 9;
  p.detector.pitchUMm = p.detector.pitchVMm = 1.0;
  p.anglesRad = fullScanAnglesRad(17, 0.3);
  const ProjectionStack s = randomStack(parallelBeam(p), rng);
  Volume single({30, 30, 9}, {1.1, 1.1, 1.0}, {-16, -16, -4});
  Volume reference = single;
  JobContext context;
  backprojectCpu(s, single, context);
  backprojectCpuReference(s, reference, context);
  EXPECT_LT(maxAbsDifference(single, reference), 1e-4);
}

TEST(BackprojectorCpu, ConstantProjectionGivesInverseSquareWeightedSum) {
  // Every voxel seen by every view: the sum over views of 1/w^2 at that voxel.
  CircularConeParams p;
  p.sourceToIsocentreMm = 100;
  p.sourceToDetectorMm = 200;
  p.detector.cols = p.detector.rows = 200;
  p.anglesRad = {0.0};
  ProjectionStack s(circularConeBeam(p));
  for (float& x : s.pixels()) x = 1.0f;
  Volume v({3, 1, 1}, {10, 1, 1}, {-10, 0, 0});
  JobContext context;
  backprojectCpu(s, v, context);
  // Source at +x = 100: depths 110, 100, 90 -> w = 1.1, 1.0, 0.9.
  EXPECT_NEAR(v.at(0, 0, 0), 1 / (1.1 * 1.1), 1e-5);
  EXPECT_NEAR(v.at(1, 0, 0), 1.0, 1e-5);
  EXPECT_NEAR(v.at(2, 0, 0), 1 / (0.9 * 0.9), 1e-5);
}

TEST(BackprojectorCpu, StopsWhenCancelled) {
  CircularConeParams p;
  p.sourceToIsocentreMm = 100;
  p.sourceToDetectorMm = 200;
  p.detector.cols = p.detector.rows = 16;
  p.anglesRad = fullScanAnglesRad(64);
  ProjectionStack s(circularConeBeam(p));
  Volume v({16, 16, 16}, {1, 1, 1}, {-8, -8, -8});
  CancelToken token;
  token.request();
  JobContext context(token);
  EXPECT_THROW(backprojectCpu(s, v, context), Cancelled);
}

}  // namespace
}  // namespace tomowb::fdk
