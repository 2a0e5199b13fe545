// ForwardProjectorCpu: exact path lengths through a constant box, agreement with the analytic
// projector on a voxelised Shepp-Logan phantom (cone and parallel beam, both rotation senses,
// detector offsets), only the listed views projected, errors naming the parameter, and the time
// one 512 x 512 view of a 256^3 volume takes (the geometry editor's budget is 0.5 s).
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>
#include <numbers>
#include <vector>

#include "recon/core/Error.h"
#include "recon/geometry/ScanBuilders.h"
#include "recon/phantom/AnalyticProjector.h"
#include "recon/phantom/Phantom.h"
#include "recon/phantom/Voxelise.h"
#include "recon/projector/ForwardProjectorCpu.h"

namespace tomowb::projector {
namespace {

constexpr double kPi = std::numbers::pi;

// Length of the part of the segment a + t (b - a), t in [tMin, tMax], inside the box [lo, hi].
double chordInBox(const Eigen::Vector3d& a, const Eigen::Vector3d& d, double tMin, double tMax,
                  const Eigen::Vector3d& lo, const Eigen::Vector3d& hi) {
  double t0 = tMin, t1 = tMax;
  for (int k = 0; k < 3; ++k) {
    if (d[k] == 0) {
      if (a[k] < lo[k] || a[k] > hi[k]) return 0;
      continue;
    }
    const double ta = (lo[k] - a[k]) / d[k], tb = (hi[k] - a[k]) / d[k];
    t0 = std::max(t0, std::min(ta, tb));
    t1 = std::min(t1, std::max(ta, tb));
  }
  return t1 > t0 ? (t1 - t0) * d.norm() : 0.0;
}

DetectorParams detector(std::int64_t cols, std::int64_t rows, double pitchMm, double offsetUMm,
                        double offsetVMm) {
  DetectorParams d;
  d.cols = cols;
  d.rows = rows;
  d.pitchUMm = d.pitchVMm = pitchMm;
  d.offsetUMm = offsetUMm;
  d.offsetVMm = offsetVMm;
  return d;
}

Volume constantBox(std::int64_t n, double voxelMm, float value) {
  Volume v = Volume::centred({n, n, n}, Eigen::Vector3d::Constant(voxelMm));
  std::fill(v.voxels().begin(), v.voxels().end(), value);
  return v;
}

void expectExactChords(const Volume& volume, const Geometry& g, float value) {
  const Eigen::Vector3d half = 0.5 * volume.voxelSizeMm().cwiseProduct(
                                         Eigen::Vector3d(volume.nx(), volume.ny(), volume.nz()));
  std::vector<std::int64_t> all;
  for (std::int64_t i = 0; i < g.viewCount(); ++i) all.push_back(i);
  const ProjectionStack p = forwardProjectViews(volume, g, all);
  int inside = 0;
  for (std::int64_t i = 0; i < g.viewCount(); ++i)
    for (std::int64_t r = 0; r < p.rows(); ++r)
      for (std::int64_t c = 0; c < p.cols(); ++c) {
        const Eigen::Vector3d pixel = g.pixelPosition(i, double(c), double(r));
        double chord;
        if (g.beam() == BeamKind::Cone)
          chord = chordInBox(g.view(i).source, pixel - g.view(i).source, 0, 1, -half, half);
        else
          chord = chordInBox(pixel, g.view(i).rayDirection, -1e9, 1e9, -half, half);
        if (chord > 0) ++inside;
        ASSERT_NEAR(p.at(i, r, c), value * chord, 2e-5 * value * (chord + 1.0))
            << "view " << i << " pixel (" << c << ", " << r << ")";
      }
  EXPECT_GT(inside, 100) << "too few rays cross the box to test anything";
}

TEST(ForwardProjectorCpu, ConstantBoxGivesExactPathLengthsParallel) {
  const Volume box = constantBox(20, 1.0, 1.0f);
  ParallelBeamParams p;
  p.detector = detector(41, 9, 0.7, 0.3, -0.2);
  p.anglesRad = {0.0, kPi / 4, kPi / 6, -1.1};
  expectExactChords(box, parallelBeam(p), 1.0f);
}

TEST(ForwardProjectorCpu, ConstantBoxGivesExactPathLengthsCone) {
  const Volume box = constantBox(16, 1.25, 2.5f);
  CircularConeParams c;
  c.sourceToIsocentreMm = 60;
  c.sourceToDetectorMm = 130;
  c.detector = detector(48, 44, 1.5, 4.0, -3.0);
  c.detector.tiltRad = 0.1;
  c.anglesRad = {0.0, 0.4, 2.0, -2.5};
  expectExactChords(box, circularConeBeam(c), 2.5f);
}

// The voxelised head against its exact line integrals: relative RMS difference over the pixels
// whose rays cross the object (analytic value above 10% of the maximum). The analytic side
// averages 3 x 3 rays per pixel, as the voxel grid (1 mm, about one detector pixel at the object)
// blurs; what remains (2-3%) is the partial-volume blur of the 1.2 mm thin skull.
// Pixels whose analytic value exceeds this fraction of the view's maximum count as inside.
constexpr float kThreshold = 0.1f;
double relativeRmsInsideObject(const ProjectionStack& voxel, const ProjectionStack& exact,
                               std::int64_t view) {
  const auto a = exact.viewPixels(view), f = voxel.viewPixels(view);
  float peak = 0;
  for (const float x : a) peak = std::max(peak, x);
  double num = 0, den = 0;
  for (std::size_t k = 0; k < a.size(); ++k)
    if (a[k] > kThreshold * peak) {
      num += double(f[k] - a[k]) * double(f[k] - a[k]);
      den += double(a[k]) * double(a[k]);
    }
  return std::sqrt(num / den);
}

class VoxelisedHead : public testing::Test {
 protected:
  static void SetUpTestSuite() {
    phantom_ = new phantom::Phantom(phantom::modifiedSheppLogan3d(40.0, 1.0));
    volume_ = new Volume(phantom::voxelisePhantom(*phantom_, {96, 96, 96}, Eigen::Vector3d::Ones(),
                                                  Eigen::Vector3d::Constant(-47.5), 2));
  }
  static void TearDownTestSuite() {
    delete volume_;
    delete phantom_;
  }

  void expectMatchesAnalytic(const Geometry& g, const std::vector<std::int64_t>& views) {
    const ProjectionStack exact = phantom::projectPhantom(*phantom_, g, {.supersample = 3});
    const ProjectionStack voxel = forwardProjectViews(*volume_, g, views);
    for (const std::int64_t i : views) {
      const double rel = relativeRmsInsideObject(voxel, exact, i);
      std::printf("  view %lld: relative RMS difference inside the object %.4f\n",
                  static_cast<long long>(i), rel);
      EXPECT_LT(rel, 0.035) << "view " << i;
    }
    // Views not asked for stay zero.
    for (std::int64_t i = 0; i < g.viewCount(); ++i)
      if (std::find(views.begin(), views.end(), i) == views.end())
        for (const float x : voxel.viewPixels(i)) ASSERT_EQ(x, 0.0f) << "view " << i;
  }

  static phantom::Phantom* phantom_;
  static Volume* volume_;
};
phantom::Phantom* VoxelisedHead::phantom_ = nullptr;
Volume* VoxelisedHead::volume_ = nullptr;

CircularConeParams headCone(double sense) {
  CircularConeParams c;
  c.sourceToIsocentreMm = 150;
  c.sourceToDetectorMm = 300;
  c.detector = detector(64, 56, 2.0, 7.0, -5.0);
  for (const double a : {0.3, 2.1, -1.0, 4.0}) c.anglesRad.push_back(sense * a);
  return c;
}

TEST_F(VoxelisedHead, ConeBeamMatchesAnalyticProjectionCounterClockwise) {
  expectMatchesAnalytic(circularConeBeam(headCone(+1)), {0, 1, 3});
}

TEST_F(VoxelisedHead, ConeBeamMatchesAnalyticProjectionClockwise) {
  expectMatchesAnalytic(circularConeBeam(headCone(-1)), {3, 1, 2});
}

TEST_F(VoxelisedHead, ParallelBeamMatchesAnalyticProjectionBothSenses) {
  for (const double sense : {+1.0, -1.0}) {
    ParallelBeamParams p;
    p.detector = detector(70, 60, 1.5, 4.0, -3.0);
    p.anglesRad = {sense * 0.2, sense * 1.3, sense * 2.9};
    expectMatchesAnalytic(parallelBeam(p), {0, 2});
  }
}

TEST_F(VoxelisedHead, TiltSeriesMatchesAnalyticProjection) {
  TiltSeriesParams t;
  t.cols = 72;
  t.rows = 64;
  t.pixelSizeMm = 1.4;
  t.tiltAnglesRad = {-0.9, 0.0, 0.5};
  t.tiltAxisAngleRad = 0.2;
  t.tiltAxisShiftPixels = 3.0;
  expectMatchesAnalytic(tiltSeries(t), {0, 1, 2});
}

TEST(ForwardProjectorCpu, RefusesBadViewIndexNamingIt) {
  const Volume box = constantBox(4, 1.0, 1.0f);
  ParallelBeamParams p;
  p.detector = detector(8, 8, 1.0, 0, 0);
  p.anglesRad = {0.0, 1.0};
  const std::vector<std::int64_t> bad{2};
  try {
    (void)forwardProjectViews(box, parallelBeam(p), bad);
    FAIL() << "no error";
  } catch (const ParameterError& e) {
    EXPECT_NE(std::string(e.what()).find("viewIndex"), std::string::npos) << e.what();
  }
  EXPECT_THROW((void)forwardProjectViews(Volume(), parallelBeam(p), {}), ParameterError);
  std::vector<float> wrongSize(10);
  EXPECT_THROW(forwardProjectView(box, parallelBeam(p), 0, wrongSize), ParameterError);
}

TEST(ForwardProjectorCpu, StopsWhenCancelled) {
  const Volume box = constantBox(8, 1.0, 1.0f);
  ParallelBeamParams p;
  p.detector = detector(16, 16, 1.0, 0, 0);
  p.anglesRad = {0.0, 1.0};
  CancelToken token;
  token.request();
  const JobContext context(token);
  const std::vector<std::int64_t> views{0, 1};
  EXPECT_THROW((void)forwardProjectViews(box, parallelBeam(p), views, &context), Cancelled);
}

// One view of a 256^3 head onto a 512 x 512 detector: the consistency overlay's case. Timings are
// not tests (STYLE.md), so the bound is loose; the printed figure is what we report.
TEST(ForwardProjectorCpu, OneViewOf256CubedOn512DetectorIsInteractive) {
  const phantom::Phantom head = phantom::modifiedSheppLogan3d(120.0, 1.0);
  const Volume volume = phantom::voxelisePhantom(head, {256, 256, 256}, Eigen::Vector3d::Ones(),
                                                 Eigen::Vector3d::Constant(-127.5), 1);
  CircularConeParams c;
  c.sourceToIsocentreMm = 500;
  c.sourceToDetectorMm = 1000;
  c.detector = detector(512, 512, 1.0, 0, 0);  // 0.5 mm at the isocentre: the volume's width
  c.anglesRad = fullScanAnglesRad(360);
  const Geometry g = circularConeBeam(c);
  std::vector<float> pixels(512 * 512);
  double best = std::numeric_limits<double>::infinity();
  for (const std::int64_t view : {0, 45, 90}) {
    const auto start = std::chrono::steady_clock::now();
    forwardProjectView(volume, g, view, pixels);
    best = std::min(
        best, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  // Timing is reported, not asserted: performance targets live in benchmarks (an ASan build on
  // a loaded 2-core CI machine took 2.4 s here). The view itself must be sane.
  std::printf("  one 512 x 512 view of a 256^3 volume: %.3f s (best of 3)\n", best);
  EXPECT_GT(*std::max_element(pixels.begin(), pixels.end()), 0.0f);
}

}  // namespace
}  // namespace tomowb::projector
