// The iterative paths must not depend on how a scan is described either (issue #17, point 2):
// SIRT with the matched Joseph pair and with the voxel-driven backprojector, on random full,
// short, offset-detector and helical cone-beam scans and on tilt series with random data, gives
// the same volume to float rounding when u or v is flipped (data mirrored), the views are listed
// backwards or shuffled, the world is mirrored (the rotation sense reversed) or the set-up turned
// about the axis. A tilt series keeps its tomogram whatever the tilt axis' angle in the image.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <random>

#include "recon/geometry/ScanBuilders.h"
#include "recon/iterative/IterativeReconstruction.h"
#include "recon/phantom/AnalyticProjector.h"
#include "recon/phantom/Phantom.h"
#include "recon/phantom/Voxelise.h"
#include "support/GeometryTransforms.h"
#include "support/TestSupport.h"

namespace tomowb::iterative {
namespace {

constexpr double kPi = std::numbers::pi;
constexpr double kDeg = kPi / 180.0;

enum class ScanKind { Full, Short, Offset, Helical, TiltSeries };

const char* label(ScanKind k) {
  switch (k) {
    case ScanKind::Full:
      return "full turn";
    case ScanKind::Short:
      return "short scan";
    case ScanKind::Offset:
      return "offset detector";
    case ScanKind::Helical:
      return "helical";
    case ScanKind::TiltSeries:
      return "tilt series";
  }
  return "?";
}

struct RandomScan {
  ProjectionStack projections;
  fdk::VolumeGrid grid;
};

RandomScan randomScan(std::mt19937_64& rng, ScanKind kind) {
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  Geometry g;
  if (kind == ScanKind::TiltSeries) {
    TiltSeriesParams t;
    t.cols = 24;
    t.rows = 4;
    t.tiltAnglesRad =
        arcAnglesRad(21, (100 + 40 * unit(rng)) * kDeg, -(50 + 20 * unit(rng)) * kDeg);
    g = tiltSeries(t);
  } else {
    CircularConeParams p;
    p.sourceToIsocentreMm = 150 + 100 * unit(rng);
    p.sourceToDetectorMm = p.sourceToIsocentreMm * (1.5 + 0.5 * unit(rng));
    p.detector.cols = 28;
    p.detector.rows = 10;
    p.detector.pitchUMm = p.detector.pitchVMm = 1.0 + unit(rng);
    if (kind == ScanKind::Offset)
      p.detector.offsetUMm = (unit(rng) < 0.5 ? -1 : 1) * 6.0 * p.detector.pitchUMm;
    const double start = 2 * kPi * unit(rng);
    const double sense = unit(rng) < 0.5 ? -1.0 : 1.0;
    const double range = kind == ScanKind::Short     ? kPi + fullFanAngleRad(p) + 0.2 * unit(rng)
                         : kind == ScanKind::Helical ? 4 * kPi
                                                     : 2 * kPi;
    const int views = kind == ScanKind::Helical ? 48 : 30;
    for (int i = 0; i < views; ++i) p.anglesRad.push_back(start + sense * range * i / views);
    if (kind == ScanKind::Helical) {
      HelicalConeParams h;
      h.circular = p;
      h.pitch = 0.8;
      // Two turns centred on the grid, whichever way the table moves.
      h.startZMm = -sense * helicalFeedPerTurnMm(h);
      g = helicalConeBeam(h);
    } else {
      g = circularConeBeam(p);
    }
  }
  RandomScan scan{ProjectionStack(g), {}};
  std::uniform_real_distribution<float> value(0.0f, 1.0f);
  for (float& x : scan.projections.pixels()) x = value(rng);
  scan.grid = fdk::VolumeGrid::centred({16, 16, 6}, Eigen::Vector3d::Constant(1.2));
  return scan;
}

Volume sirt(const ProjectionStack& projections, const fdk::VolumeGrid& grid,
            const std::string& backVariant) {
  IterativeParams p;
  p.volume = grid;
  p.iterations = 3;
  p.backVariant = backVariant;
  JobContext context;
  return reconstructIterative(projections, p, context);
}

TEST(IterativeInvariance, SirtGivesOneVolumeHoweverTheScanIsDescribed) {
  std::mt19937_64 rng(test::randomSeed());
  for (ScanKind kind : {ScanKind::Full, ScanKind::Short, ScanKind::Offset, ScanKind::Helical,
                        ScanKind::TiltSeries}) {
    const RandomScan scan = randomScan(rng, kind);
    for (const std::string back : {"et.bp.cpu-matched", "et.bp.cpu-voxel"}) {
      SCOPED_TRACE(std::string(label(kind)) + " with " + back);
      const Volume reference = sirt(scan.projections, scan.grid, back);
      std::vector<std::int64_t> shuffled(std::size_t(scan.projections.viewCount()));
      for (std::size_t i = 0; i < shuffled.size(); ++i) shuffled[i] = std::int64_t(i);
      std::shuffle(shuffled.begin(), shuffled.end(), rng);
      struct Case {
        const char* label;
        Volume volume;
      };
      const Case cases[] = {
          {"u flipped", sirt(test::flipDetectorU(scan.projections), scan.grid, back)},
          {"v flipped", sirt(test::flipDetectorV(scan.projections), scan.grid, back)},
          {"views backwards", sirt(test::reverseViews(scan.projections), scan.grid, back)},
          {"views shuffled", sirt(test::reorderViews(scan.projections, shuffled), scan.grid, back)},
          {"world mirrored (rotation sense reversed)",
           test::mirrorVolumeY(sirt(test::mirrorWorldY(scan.projections), scan.grid, back))},
          {"set-up turned 90 deg",
           test::rotateVolumeQuarterTurns(
               sirt(test::rotateWorldQuarterTurns(scan.projections, 1), scan.grid, back), -1)},
      };
      for (const Case& c : cases)
        EXPECT_LT(test::maxRelativeDifference(c.volume, reference), 1e-4) << c.label;
    }
  }
}

// A tilt series whose tilt axis lies at an angle in the image (IMOD's rotation angle) holds the
// same specimen: the tomogram must come out the same, up to the detector's sampling.
TEST(IterativeInvariance, TiltAxisAngleInTheImageLeavesTheTomogramUnchanged) {
  const phantom::Phantom specimen = phantom::modifiedSheppLogan3d(12.0, 1.0);
  const fdk::VolumeGrid grid = fdk::VolumeGrid::centred({32, 32, 32}, Eigen::Vector3d::Ones());
  const Volume truth =
      phantom::voxelisePhantom(specimen, grid.shape, grid.voxelSizeMm, grid.originMm, 3);
  std::vector<Volume> tomograms;
  const double axisAnglesDeg[] = {0.0, 30.0, 90.0, -72.0};
  for (double axisDeg : axisAnglesDeg) {
    TiltSeriesParams t;
    t.cols = t.rows = 48;  // the specimen stays on the detector at any axis angle
    t.tiltAnglesRad = arcAnglesRad(61, 180 * kDeg * 60 / 61, -90 * kDeg);
    t.tiltAxisAngleRad = axisDeg * kDeg;
    const ProjectionStack projections =
        phantom::projectPhantom(specimen, tiltSeries(t), {.supersample = 2});
    IterativeParams p;
    p.volume = grid;
    p.iterations = 30;
    p.backVariant = "et.bp.cpu-matched";
    JobContext context;
    tomograms.push_back(reconstructIterative(projections, p, context));
  }
  auto rmse = [](const Volume& a, const Volume& b) {
    double sum = 0;
    for (std::size_t i = 0; i < a.voxels().size(); ++i)
      sum += std::pow(double(a.voxels()[i]) - double(b.voxels()[i]), 2);
    return std::sqrt(sum / double(a.voxels().size()));
  };
  const double level = 0.2;  // the brain's value (density scale 1)
  const double base = rmse(tomograms[0], truth);
  for (std::size_t k = 1; k < tomograms.size(); ++k) {
    // The same reconstruction error as with an upright axis.
    EXPECT_LT(rmse(tomograms[k], truth), 1.15 * base + 0.01 * level)
        << "axis at " << axisAnglesDeg[k] << " deg";
    // Each description samples the specimen differently; their difference stays below the
    // reconstruction error itself (a mis-turned tomogram would differ by about the signal).
    EXPECT_LT(rmse(tomograms[k], tomograms[0]), base) << "axis at " << axisAnglesDeg[k] << " deg";
  }
}

}  // namespace
}  // namespace tomowb::iterative
