// FDK must not depend on how a scan is described (issue #17, point 2): random circular scans (full
// turn, short scan, offset detector; random start, sense and size) with random data, described
// with u or v flipped (data mirrored), the views listed backwards, in a random order or from
// another origin, the world mirrored (the rotation sense reversed) or turned about the axis (the
// volume turns with it). Each must give the same volume to float rounding.
#include <gtest/gtest.h>

#include <numbers>
#include <random>

#include "recon/fdk/Fdk.h"
#include "recon/geometry/ScanBuilders.h"
#include "support/GeometryTransforms.h"
#include "support/TestSupport.h"

namespace tomowb::fdk {
namespace {

constexpr double kPi = std::numbers::pi;

struct RandomScan {
  ProjectionStack projections;
  VolumeGrid grid;
};

RandomScan randomScan(std::mt19937_64& rng, RedundancyMode kind) {
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  CircularConeParams p;
  p.sourceToIsocentreMm = 300 + 400 * unit(rng);
  p.sourceToDetectorMm = p.sourceToIsocentreMm * (1.4 + 0.8 * unit(rng));
  p.detector.cols = 48 + 2 * std::int64_t(8 * unit(rng));
  p.detector.rows = 16;
  p.detector.pitchUMm = p.detector.pitchVMm = 1.0 + unit(rng);
  const double halfWidth = 0.5 * double(p.detector.cols) * p.detector.pitchUMm;
  if (kind == RedundancyMode::OffsetDetector)
    p.detector.offsetUMm = (unit(rng) < 0.5 ? -1 : 1) * halfWidth * (0.4 + 0.3 * unit(rng));
  const double start = 2 * kPi * unit(rng);
  const double sense = unit(rng) < 0.5 ? -1.0 : 1.0;
  const std::int64_t views = 60 + std::int64_t(40 * unit(rng));
  const double range =
      kind == RedundancyMode::Parker ? kPi + fullFanAngleRad(p) + 0.2 * unit(rng) : 2 * kPi;
  for (std::int64_t i = 0; i < views; ++i)
    p.anglesRad.push_back(start + sense * range * double(i) / double(views));
  RandomScan scan{ProjectionStack(circularConeBeam(p)), {}};
  std::uniform_real_distribution<float> value(0.0f, 1.0f);
  for (float& x : scan.projections.pixels()) x = value(rng);
  const double voxel = p.detector.pitchUMm * p.sourceToIsocentreMm / p.sourceToDetectorMm;
  scan.grid = VolumeGrid::centred({32, 32, 8}, Eigen::Vector3d::Constant(1.5 * voxel));
  return scan;
}

Volume reconstruct(const ProjectionStack& projections, const VolumeGrid& grid,
                   const std::string& variant = "fdk.bp.cpu") {
  FdkParams params;
  params.volume = grid;
  params.variant = variant;
  JobContext context;
  return reconstructFdk(projections, params, context);
}

TEST(FdkInvariance, RandomScansGiveOneVolumeHoweverTheyAreDescribed) {
  std::mt19937_64 rng(test::randomSeed());
  for (RedundancyMode kind :
       {RedundancyMode::FullScan, RedundancyMode::Parker, RedundancyMode::OffsetDetector}) {
    for (int trial = 0; trial < 2; ++trial) {
      const RandomScan scan = randomScan(rng, kind);
      const Volume reference = reconstruct(scan.projections, scan.grid);
      std::vector<std::int64_t> shuffled(std::size_t(scan.projections.viewCount()));
      for (std::size_t i = 0; i < shuffled.size(); ++i) shuffled[i] = std::int64_t(i);
      std::shuffle(shuffled.begin(), shuffled.end(), rng);
      struct Case {
        const char* label;
        Volume volume;
      };
      const Case cases[] = {
          {"u flipped", reconstruct(test::flipDetectorU(scan.projections), scan.grid)},
          {"v flipped", reconstruct(test::flipDetectorV(scan.projections), scan.grid)},
          {"views backwards", reconstruct(test::reverseViews(scan.projections), scan.grid)},
          {"views shuffled",
           reconstruct(test::reorderViews(scan.projections, shuffled), scan.grid)},
          {"angle origin moved",
           reconstruct(test::startViewsAt(scan.projections, scan.projections.viewCount() / 3),
                       scan.grid)},
          {"rotation sense reversed (world mirrored)",
           test::mirrorVolumeY(reconstruct(test::mirrorWorldY(scan.projections), scan.grid))},
          {"set-up turned 90 deg",
           test::rotateVolumeQuarterTurns(
               reconstruct(test::rotateWorldQuarterTurns(scan.projections, 1), scan.grid), -1)},
          {"set-up turned 180 deg",
           test::rotateVolumeQuarterTurns(
               reconstruct(test::rotateWorldQuarterTurns(scan.projections, 2), scan.grid), -2)},
      };
      for (const Case& c : cases)
        EXPECT_LT(test::maxRelativeDifference(c.volume, reference), 1e-4)
            << c.label << ", " << toString(kind) << " trial " << trial;
    }
  }
}

}  // namespace
}  // namespace tomowb::fdk
