// DIRECT's correction histo-images (reference/direct-tof-pet.md, sections 5.4 and 6.6).
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <numbers>
#include <vector>

#include "recon/pet/CorrectionImages.h"
#include "recon/pet/Deposition.h"
#include "recon/pet/ListModeSimulator.h"
#include "recon/pet/ScannerModel.h"

namespace tomowb::pet {
namespace {

constexpr double kDeg = std::numbers::pi / 180.0;

// The CI scanner: the ring-930 cylinder, shortened so that the axial extent (not only the 10
// degree acceptance) limits the lines of the grid's voxels.
ScannerModel shortRing(int rings = 24) {
  ScannerModel s = scannerPreset("ring-930");
  s.rings = rings;
  return s;
}

TEST(CorrectionImages, CentreOfALongScannerSeesTheWholeAcceptanceBand) {
  // At the isocentre every direction within +-10 degrees meets the 258 mm long cylinder, so the
  // views' detection probabilities add up to the band's share of all directions, sin(10 deg).
  const ScannerModel scanner = scannerPreset("ring-930");
  const ViewBinning views{8, 3, 10 * kDeg};
  double sum = 0;
  for (int v = 0; v < views.count(); ++v)
    sum += detectionProbabilityAt(scanner, views, v, Eigen::Vector3d::Zero());
  EXPECT_NEAR(sum, std::sin(10 * kDeg), 1e-12);
  // A short scanner cuts the band at atan(H / R).
  // Photons interact at the mean depth of interaction (DetectorHits.h): radius 465 + 10 mm.
  const ScannerModel shortOne = shortRing(10);  // 43 mm: H / R = 21.5 / 475
  double shortSum = 0;
  for (int v = 0; v < views.count(); ++v)
    shortSum += detectionProbabilityAt(shortOne, views, v, Eigen::Vector3d::Zero());
  EXPECT_NEAR(shortSum, std::sin(std::atan(21.5 / 475.0)), 1e-12);
}

TEST(CorrectionImages, OffCentrePointIsSeenLessTowardsTheAxialEdge) {
  const ScannerModel scanner = shortRing();
  const ViewBinning views{4, 1, 10 * kDeg};
  const double centre = detectionProbabilityAt(scanner, views, 0, {100, 0, 0});
  const double edge = detectionProbabilityAt(scanner, views, 0, {100, 0, 45});
  EXPECT_GT(centre, 0);
  EXPECT_LT(edge, 0.8 * centre);
  EXPECT_EQ(detectionProbabilityAt(scanner, views, 0, {100, 0, 60}), 0.0);  // beyond the rings
  EXPECT_EQ(detectionProbabilityAt(scanner, views, 0, {470, 0, 0}), 0.0);   // outside the ring
}

TEST(CorrectionImages, GridImagesMatchThePointFunction) {
  const ScannerModel scanner = shortRing();
  const ViewBinning views{4, 3, 10 * kDeg};
  const VolumeGrid grid = VolumeGrid::centred({12, 10, 6}, Eigen::Vector3d(20, 24, 16));
  JobContext context;
  const HistoImages eps = detectionProbabilities(scanner, grid, views, {}, context);
  for (int v = 0; v < views.count(); ++v)
    for (std::int64_t i = 0; i < grid.shape.voxelCount(); i += 7) {
      const std::int64_t x = i % 12, y = (i / 12) % 10, z = i / 120;
      const Eigen::Vector3d p =
          grid.originMm + grid.voxelSizeMm.cwiseProduct(Eigen::Vector3d(x, y, z));
      EXPECT_NEAR(eps.view(v)[static_cast<std::size_t>(i)],
                  detectionProbabilityAt(scanner, views, v, p), 1e-7);
    }
}

TEST(CorrectionImages, FlatModulesLoseTheModuleGaps) {
  // penn-labr3: 28 crystals of 4.3 mm on 122.4 mm faces; lines ending in the 1 mm gaps are lost,
  // so its sensitivity is a little below the cylinder's of the same radius.
  const ScannerModel flat = scannerPreset("penn-labr3");
  ScannerModel ring = scannerPreset("ring-930");
  ring.rings = flat.rings;
  const ViewBinning views{40, 3, 10 * kDeg};
  double flatSum = 0, ringSum = 0;
  for (int v = 0; v < views.count(); ++v) {
    flatSum += detectionProbabilityAt(flat, views, v, {50, 20, 0});
    ringSum += detectionProbabilityAt(ring, views, v, {50, 20, 0});
  }
  EXPECT_LT(flatSum, ringSum);
  EXPECT_GT(flatSum, 0.9 * ringSum);
}

Volume waterCylinder(const VolumeGrid& grid, double radiusMm, double mu) {
  Volume v = grid.makeVolume();
  for (std::int64_t z = 0; z < v.nz(); ++z)
    for (std::int64_t y = 0; y < v.ny(); ++y)
      for (std::int64_t x = 0; x < v.nx(); ++x) {
        const Eigen::Vector3d p = v.worldPosition(double(x), double(y), double(z));
        if (p.x() * p.x() + p.y() * p.y() <= radiusMm * radiusMm) v.at(x, y, z) = float(mu);
      }
  return v;
}

TEST(CorrectionImages, AttenuationOfAWaterCylinderFollowsItsChords) {
  // mu on a 2 mm grid, the factors on a 4 mm one: through the centre exp(-0.0096 x 200 mm).
  const Volume mu =
      waterCylinder(VolumeGrid::centred({120, 120, 8}, Eigen::Vector3d(2, 2, 4)), 100.0, 0.0096);
  const VolumeGrid grid = VolumeGrid::centred({41, 41, 3}, Eigen::Vector3d::Constant(4));
  const ViewBinning views{4, 1, 10 * kDeg};
  JobContext context;
  const HistoImages a = attenuationFactors(mu, grid, views, {}, context);
  const std::size_t centre = static_cast<std::size_t>((1 * 41 + 20) * 41 + 20);
  for (int v = 0; v < views.count(); ++v)
    EXPECT_NEAR(a.view(v)[centre], std::exp(-0.0096 * 200.0), 0.01 * std::exp(-0.0096 * 200.0));
  // Every voxel against its own line integral (the plane look-up against the direct sum), and
  // off-centre voxels against the chord 2 sqrt(R^2 - rho^2).
  double worst = 0, squares = 0;
  for (int v = 0; v < views.count(); ++v) {
    const ViewFrame f = views.frame(v);
    for (std::int64_t i = 0; i < grid.shape.voxelCount(); ++i) {
      const std::int64_t x = i % 41, y = (i / 41) % 41, z = i / (41 * 41);
      const Eigen::Vector3d p = grid.originMm + 4.0 * Eigen::Vector3d(x, y, z);
      const double direct = std::exp(-attenuationLineIntegral(mu, p, f.tof));
      const double error = a.view(v)[static_cast<std::size_t>(i)] - direct;
      worst = std::max(worst, std::abs(error));
      squares += error * error;
    }
    const Eigen::Vector3d p = 60.0 * f.radial;  // rho = 60 mm
    EXPECT_NEAR(attenuationLineIntegral(mu, p, f.tof), 0.0096 * 2 * std::sqrt(100.0 * 100 - 3600),
                0.02 * 0.0096 * 160);
  }
  // The look-up interpolates line integrals between plane nodes 2 mm apart: exact inside, off by
  // up to a few per cent where a line grazes the cylinder (the chord's slope is infinite there).
  const double rms = std::sqrt(squares / double(views.count() * grid.shape.voxelCount()));
  std::printf("a_v: plane look-up against direct integrals: RMS %.2g, max %.2g\n", rms, worst);
  EXPECT_LT(rms, 0.003);
  EXPECT_LT(worst, 0.05);
}

TEST(CorrectionImages, SmoothingKeepsAUniformImageUniform) {
  const VolumeGrid grid = VolumeGrid::centred({16, 12, 5}, Eigen::Vector3d::Constant(4));
  HistoImages h(grid, {2, 1, 10 * kDeg});
  for (float& v : h.values()) v = 3.0f;
  JobContext context;
  smoothViews(h, 2.0, 3.0, context);
  for (const float v : h.values()) EXPECT_NEAR(v, 3.0f, 1e-5f);
}

// Section 6.6: Monte Carlo deposition of a uniform cylinder (the list-mode simulator, no
// attenuation, no blur, no timing noise) divided by the expected emissions agrees with epsilon_v.
// Slices are one ring pitch thick (see below). Per voxel the counts are Poisson-limited, so voxels
// are summed in 4 x 4 x 1 blocks (epsilon varies slowly across a block) and the bias is estimated
// net of the Poisson noise: bias^2 = mean((D - M)^2 / M^2 - 1 / M) over blocks, with D the
// deposited counts and M the expected ones; and chi^2 per block must be about 1.
TEST(CorrectionImages, MonteCarloDepositionOfAUniformCylinderMatchesTheSensitivity) {
  const ScannerModel scanner = shortRing();  // 103 mm long: the axial extent cuts in
  // Slices of one ring pitch (4.3 mm) whose edges fall between the half-pitch lattice of the
  // crystal-snapped lines' mid-points: with 4 mm slices that lattice beats against the slices
  // (+-3 % from slice to slice, an effect of the crystals, not of the sensitivity).
  VolumeGrid grid = VolumeGrid::centred({48, 48, 14}, Eigen::Vector3d(4, 4, 4.3));
  grid.originMm.z() += 1.075;
  const ViewBinning views{10, 1, 10 * kDeg};
  const double radius = 80.0;
  Volume activity = grid.makeVolume();
  for (std::int64_t z = 0; z < grid.shape.nz; ++z)
    for (std::int64_t y = 0; y < grid.shape.ny; ++y)
      for (std::int64_t x = 0; x < grid.shape.nx; ++x) {
        const Eigen::Vector3d p = activity.worldPosition(double(x), double(y), double(z));
        if (p.head<2>().norm() < radius) activity.at(x, y, z) = 1000.0f;
      }
  ListModeSimulationParams sim;
  sim.seed = 20;
  sim.requestedPrompts = 1500000;
  sim.randomsFraction = 0;
  sim.delayedWindow = false;
  sim.positioningBlur = false;
  sim.acollinearity = false;
  sim.timingNoise = false;
  JobContext context;
  const auto t0 = std::chrono::steady_clock::now();
  const SimulatedListMode lm = simulateListMode(scanner, activity, nullptr, sim, context);
  const auto t1 = std::chrono::steady_clock::now();
  HistoImages d(grid, views);
  depositEvents(scanner, lm.events, {}, d, context);
  const HistoImages eps = detectionProbabilities(scanner, grid, views, {}, context);
  const auto t2 = std::chrono::steady_clock::now();
  std::printf("simulation %.2f s (%lld prompts), deposition + epsilon %.2f s\n",
              std::chrono::duration<double>(t1 - t0).count(),
              static_cast<long long>(lm.report.prompts()),
              std::chrono::duration<double>(t2 - t1).count());

  // Emissions per active voxel (all directions): band decays / band share, shared evenly.
  std::int64_t active = 0;
  for (const float a : activity.voxels()) active += a > 0;
  const double perVoxel = double(lm.report.bandDecays) / lm.report.bandFraction / double(active);
  double maxEps = 0;
  for (const float e : eps.values()) maxEps = std::max(maxEps, double(e));
  constexpr int kBlock = 4;
  double bias2 = 0, chi2 = 0;
  int blocks = 0;
  for (int v = 0; v < views.count(); ++v)
    for (std::int64_t z = 1; z + 1 < grid.shape.nz; ++z)  // not the end slices: leakage
      for (std::int64_t by = 0; by < grid.shape.ny; by += kBlock)
        for (std::int64_t bx = 0; bx < grid.shape.nx; bx += kBlock) {
          double measured = 0, expected = 0;
          bool inside = true;
          for (std::int64_t y = by; y < by + kBlock; ++y)
            for (std::int64_t x = bx; x < bx + kBlock; ++x) {
              const Eigen::Vector3d p = activity.worldPosition(double(x), double(y), double(z));
              const auto i = static_cast<std::size_t>((z * grid.shape.ny + y) * grid.shape.nx + x);
              // Whole blocks 8 mm inside the cylinder, where epsilon > 10 % of its largest value.
              if (p.head<2>().norm() > radius - 8 || eps.view(v)[i] <= 0.1 * maxEps) inside = false;
              measured += d.view(v)[i];
              expected += eps.view(v)[i] * perVoxel;
            }
          if (!inside) continue;
          const double r = (measured - expected) / expected;
          bias2 += r * r - 1.0 / expected;
          chi2 += (measured - expected) * (measured - expected) / expected;
          ++blocks;
        }
  ASSERT_GT(blocks, 500);
  bias2 /= blocks;
  chi2 /= blocks;
  std::printf("%d blocks, bias RMS %.4f, chi^2 per block %.3f\n", blocks,
              std::sqrt(std::max(0.0, bias2)), chi2);
  EXPECT_LT(bias2, 0.02 * 0.02);
  EXPECT_LT(chi2, 1.5);
}

}  // namespace
}  // namespace tomowb::pet
