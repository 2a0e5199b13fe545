// The separable-footprint pairs on arc (cylindrical) detectors (recon/geometry/ArcFrame.h; digest
// ../shared/reference/sf-projectors.md section 2 "Arc detectors"): the float64 adjoint test on an
// arc cone and an arc helix, the explicit transpose, a single voxel's mass against the exact
// integral over the cylinder, the analytic phantom against Joseph, and the results' independence of
// the view order and of the angle origin.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <numbers>
#include <random>
#include <vector>

#include "SfTestSupport.h"
#include "recon/geometry/ArcFrame.h"
#include "recon/geometry/ScanBuilders.h"
#include "recon/phantom/AnalyticProjector.h"
#include "recon/phantom/Voxelise.h"
#include "recon/projector/JosephProjector.h"
#include "recon/projector/sf/SeparableFootprintProjector.h"
#include "support/TestSupport.h"

namespace tomowb::projector {
namespace {

using namespace sftest;  // NOLINT(google-build-using-namespace): the shared SF test helpers

constexpr double kDeg = std::numbers::pi / 180.0;

// A circular cone beam on an arc detector with random offsets along and across the arc.
Geometry arcCone(std::mt19937_64& rng, std::int64_t cols, std::int64_t rows, int views) {
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  CircularConeParams p;
  p.sourceToIsocentreMm = 40;
  p.sourceToDetectorMm = 80;
  p.detector.cols = cols;
  p.detector.rows = rows;
  p.detector.pitchUMm = 1.3;
  p.detector.pitchVMm = 1.1;
  p.detector.offsetUMm = 2 * unit(rng);
  p.detector.offsetVMm = 2 * unit(rng);
  p.detector.surface = DetectorSurface::Cylinder;
  p.anglesRad = fullScanAnglesRad(views, unit(rng));
  return circularConeBeam(p);
}

Geometry arcHelix(std::int64_t cols, std::int64_t rows, int views) {
  HelicalConeParams p;
  p.circular.sourceToIsocentreMm = 50;
  p.circular.sourceToDetectorMm = 90;
  p.circular.detector.cols = cols;
  p.circular.detector.rows = rows;
  p.circular.detector.pitchUMm = 1.3;
  p.circular.detector.surface = DetectorSurface::Cylinder;
  p.circular.anglesRad = arcAnglesRad(views, 4 * std::numbers::pi, 0.2);
  p.pitch = 0.8;
  p.startZMm = -6;
  return helicalConeBeam(p);
}

TEST(SeparableFootprintArc, EveryModelPassesTheFloat64AdjointTestOnOddSizes) {
  const std::uint64_t seed = test::randomSeed();
  std::mt19937_64 rng(seed);
  const Geometry cone = arcCone(rng, 71, 29, 7);
  const Geometry helix = arcHelix(61, 9, 11);
  const VolumeGrid grid = VolumeGrid::centred({67, 61, 23}, Eigen::Vector3d(0.45, 0.5, 0.55));
  for (const SfModel& model : {kTrA2, kTtA2, kTrA1, kTtA1})
    for (const Geometry* g : {&cone, &helix}) {
      const double error = adjointMismatch(*g, grid, model, seed);
      std::cout << "[ measured ] arc " << nameOf(model) << (g == &cone ? " cone" : " helix")
                << " float64 adjoint error " << error << "\n";
      EXPECT_LE(error, 1e-14) << nameOf(model) << ", seed " << seed;
    }
}

TEST(SeparableFootprintArc, TheBackprojectorIsTheExplicitTransposeOnATinyProblem) {
  CircularConeParams p;
  p.sourceToIsocentreMm = 20;
  p.sourceToDetectorMm = 40;
  p.detector = {.cols = 9,
                .rows = 7,
                .pitchUMm = 1.0,
                .pitchVMm = 1.0,
                .offsetUMm = 0.3,
                .surface = DetectorSurface::Cylinder};
  p.anglesRad = {0.2, 1.3, 2.9};
  expectExplicitTranspose(circularConeBeam(p),
                          VolumeGrid::centred({5, 4, 3}, Eigen::Vector3d(1.0, 1.2, 0.9)), "arc");
}

// [LFB10] Fig. 2's set-up on the GE arc (SOD 541, SDD 949), a 1 mm voxel, the arc detector turned
// and shifted so that the voxel's projection sits at its centre.
struct ArcVoxel {
  Geometry geometry;
  VolumeGrid grid;
};

ArcVoxel arcVoxel(const Eigen::Vector3d& centre, double angleRad, std::int64_t cells,
                  double pitchMm) {
  const double sod = 541, sdd = 949;
  const Eigen::Vector3d towardsSource(std::cos(angleRad), std::sin(angleRad), 0);
  const Eigen::Vector3d eu(-std::sin(angleRad), std::cos(angleRad), 0);
  const double ahead = sod - centre.dot(towardsSource), lateral = centre.dot(eu);
  CircularConeParams p;
  p.sourceToIsocentreMm = sod;
  p.sourceToDetectorMm = sdd;
  p.detector = {.cols = cells,
                .rows = cells,
                .pitchUMm = pitchMm,
                .pitchVMm = pitchMm,
                .offsetUMm = sdd * std::atan2(lateral, ahead),
                .offsetVMm = sdd * centre.z() / std::hypot(lateral, ahead),
                .surface = DetectorSurface::Cylinder};
  p.anglesRad = {angleRad};
  return {circularConeBeam(p), {{1, 1, 1}, Eigen::Vector3d::Ones(), centre}};
}

// The exact total of a voxel's projection over the whole cylinder: a ray from the source S to
// x meets the cylinder (radius R, normal in-plane) at distance L = R t / r from S (t = |x - S|, r
// the in-plane distance of x), at obliquity cos = R / L, so dA = L^2 / cos dOmega and
//   int p dA = int_voxel L^2 / (t^2 cos) dV = int_voxel (R / r)^2 (t / r) dV,
// the arc's counterpart of SDD^2 t / depth^3; the midpoint rule on 24^3 points.
double exactArcMass(const ArcVoxel& s) {
  const ArcFrame f = arcFrame(s.geometry, 0);
  const int n = 24;
  double total = 0;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j)
      for (int k = 0; k < n; ++k) {
        const Eigen::Vector3d x = s.grid.originMm +
                                  (Eigen::Vector3d(i, j, k) + Eigen::Vector3d::Constant(0.5)) / n -
                                  Eigen::Vector3d::Constant(0.5);
        const double r = f.inPlaneDistance(x), t = (x - f.source).norm();
        total += (f.radius / r) * (f.radius / r) * (t / r);
      }
  return total / (n * n * n);
}

TEST(SeparableFootprintArc, ASingleVoxelsFootprintKeepsTheMassOfTheExactProjection) {
  const std::int64_t cells = 300;
  for (const Eigen::Vector3d centre : {Eigen::Vector3d(0, 0, 0), Eigen::Vector3d(40, -25, 0),
                                       Eigen::Vector3d(0, 0, 60), Eigen::Vector3d(-120, 90, 30)})
    for (const double angleDeg : {0.0, 30.0, 45.0, 70.0}) {
      const ArcVoxel s = arcVoxel(centre, angleDeg * kDeg, cells, 0.01);
      for (const SfModel& model : {kTrA2, kTtA2}) {
        std::vector<double> sf(static_cast<std::size_t>(cells * cells));
        sfForward(std::vector<double>{1.0}, s.grid, s.geometry, sf, model);
        const double exact = exactArcMass(s), mass = sum(sf) * 0.01 * 0.01;
        const double error = std::abs(mass - exact) / exact;
        std::cout << "[ measured ] arc voxel (" << centre.transpose() << ") at " << angleDeg
                  << " deg: " << nameOf(model) << " mass error " << error << "\n";
        // First order exact, as on a flat detector; second order (size / SOD)^2 = 3.4e-6.
        EXPECT_LE(error, 0.5 * std::pow(1.0 / 541, 2))
            << nameOf(model) << ", voxel at (" << centre.transpose() << "), " << angleDeg << " deg";
        // The footprint lies inside the detector: no mass is cut off.
        for (std::int64_t i = 0; i < cells; ++i)
          for (const std::int64_t edge :
               {i, (cells - 1) * cells + i, i * cells, i * cells + cells - 1})
            ASSERT_EQ(sf[static_cast<std::size_t>(edge)], 0.0) << "cell " << edge;
      }
    }
}

double nrmse(const ProjectionStack& s, const ProjectionStack& reference) {
  double d2 = 0, r2 = 0;
  for (std::int64_t i = 0; i < s.pixelCount(); ++i) {
    const double d = static_cast<double>(s.pixels()[i]) - reference.pixels()[i];
    d2 += d * d;
    r2 += static_cast<double>(reference.pixels()[i]) * reference.pixels()[i];
  }
  return std::sqrt(d2 / r2);
}

// The voxelised Shepp-Logan head against its exact projections onto an arc detector (the
// analytic projector's arc rays, 4 x 4 per cell): SF no worse than Joseph (et.fp.cpu).
TEST(SeparableFootprintArc, MatchesTheAnalyticPhantomAtLeastAsWellAsJoseph) {
  CircularConeParams p;
  p.sourceToIsocentreMm = 100;
  p.sourceToDetectorMm = 200;
  p.detector = {.cols = 100,
                .rows = 80,
                .pitchUMm = 1.6,
                .pitchVMm = 1.6,
                .surface = DetectorSurface::Cylinder};
  p.anglesRad = fullScanAnglesRad(12, 0.1);
  const Geometry g = circularConeBeam(p);
  const phantom::Phantom shepp = phantom::modifiedSheppLogan3d(34.0, 1.0);
  const Volume volume = phantom::voxelisePhantom(shepp, {64, 64, 64}, Eigen::Vector3d::Ones(),
                                                 Eigen::Vector3d::Constant(-31.5), 4);
  const ProjectionStack analytic = phantom::projectPhantom(shepp, g, {.supersample = 4});
  ProjectionStack joseph(g), tr(g), tt(g);
  josephForward(volume, joseph);
  sfForward(volume, tr, kTrA2);
  sfForward(volume, tt, kTtA2);
  const double j = nrmse(joseph, analytic), t = nrmse(tr, analytic), tTt = nrmse(tt, analytic);
  std::cout << "[ measured ] arc NRMSE against analytic: Joseph " << j << ", SF-TR " << t
            << ", SF-TT " << tTt << "\n";
  EXPECT_LE(t, j);
  EXPECT_LE(tTt, j);
  EXPECT_LT(t, 0.1);
}

// Symmetric arc cone, square voxels, centred grid, no offsets.
Geometry symmetricArc(const std::vector<double>& anglesRad) {
  CircularConeParams p;
  p.sourceToIsocentreMm = 30;
  p.sourceToDetectorMm = 60;
  p.detector = {.cols = 26,
                .rows = 22,
                .pitchUMm = 1.2,
                .pitchVMm = 1.2,
                .surface = DetectorSurface::Cylinder};
  p.anglesRad = anglesRad;
  return circularConeBeam(p);
}

// Results never depend on how the geometry is described (DESIGN.md): reversing the views
// reverses the projections (the same bits: each view is computed alone) and leaves the
// backprojection (summed in another order) unchanged to rounding; shifting the angle origin by a
// quarter turn with the volume turned with it moves the projections by one view.
TEST(SeparableFootprintArc, ViewOrderAndAngleOriginDoNotChangeTheResults) {
  const std::uint64_t seed = test::randomSeed();
  std::mt19937_64 rng(seed);
  const std::int64_t n = 12, nz = 9, cols = 26, rows = 22, pixels = cols * rows;
  const VolumeGrid grid = VolumeGrid::centred({n, n, nz}, Eigen::Vector3d::Ones());
  const std::vector<double> f =
      randomVector(rng, static_cast<std::size_t>(grid.shape.voxelCount()), 0);
  const std::vector<double> angles{0.3, 1.1, 2.0, 4.4, 5.1};
  std::vector<double> reversedAngles(angles.rbegin(), angles.rend());
  const Geometry forward = symmetricArc(angles), backward = symmetricArc(reversedAngles);
  std::vector<double> rotated(f.size());
  for (std::int64_t z = 0; z < nz; ++z)
    for (std::int64_t y = 0; y < n; ++y)
      for (std::int64_t x = 0; x < n; ++x)
        rotated[static_cast<std::size_t>((z * n + y) * n + x)] =
            f[static_cast<std::size_t>((z * n + (n - 1 - x)) * n + y)];  // turned +90 deg
  const Geometry quarter = symmetricArc(fullScanAnglesRad(4, 0.3));
  for (const SfModel& model : {kTrA2, kTtA2, kTrA1}) {
    SCOPED_TRACE(nameOf(model) + ", seed " + std::to_string(seed));
    std::vector<double> pa(pixelsOf(forward)), pb(pa.size());
    sfForward(f, grid, forward, pa, model);
    sfForward(f, grid, backward, pb, model);
    for (std::int64_t v = 0; v < 5; ++v)
      for (std::int64_t i = 0; i < pixels; ++i)
        ASSERT_EQ(pa[static_cast<std::size_t>(v * pixels + i)],
                  pb[static_cast<std::size_t>((4 - v) * pixels + i)]);
    std::vector<double> ba(f.size(), 0.0), bb(f.size(), 0.0);
    sfBackproject(pa, forward, ba, grid, model);
    sfBackproject(pb, backward, bb, grid, model);
    EXPECT_LE(maxRelativeDifference(ba, bb), 1e-13);

    std::vector<double> pf(pixelsOf(quarter)), pr(pf.size()), shifted(pf.size());
    sfForward(f, grid, quarter, pf, model);
    sfForward(rotated, grid, quarter, pr, model);
    for (std::int64_t v = 0; v < 4; ++v)
      for (std::int64_t i = 0; i < pixels; ++i)
        shifted[static_cast<std::size_t>(((v + 1) % 4) * pixels + i)] =
            pf[static_cast<std::size_t>(v * pixels + i)];
    EXPECT_LE(maxRelativeDifference(shifted, pr), 1e-9);
    EXPECT_GT(maxRelativeDifference(pf, pr), 1e-2);  // not trivially true
  }
}

TEST(SeparableFootprintArc, AcceptsArcViewsAndStillRefusesVolumesAroundTheSource) {
  std::mt19937_64 rng(3);
  const Geometry g = arcCone(rng, 31, 11, 5);
  EXPECT_FALSE(sfUnsupportedReason(g, VolumeGrid::centred({8, 8, 6}, Eigen::Vector3d::Ones())));
  const std::optional<std::string> why =
      sfUnsupportedReason(g, VolumeGrid::centred({90, 90, 4}, Eigen::Vector3d::Ones()));
  ASSERT_TRUE(why.has_value());
  EXPECT_NE(why->find("the volume reaches the source's plane"), std::string::npos) << *why;
}

}  // namespace
}  // namespace tomowb::projector
