// FDK on arc (cylindrical) detectors (issue #19, points 1 and 4): the arc's projections resampled
// onto the flat detector tangent to it (recon/fdk/ArcRebinning.h) against the analytic projections
// on that flat detector, and FDK of arc data against FDK of the same scan measured flat.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "recon/fdk/ArcRebinning.h"
#include "recon/fdk/Fdk.h"
#include "recon/geometry/ArcFrame.h"
#include "recon/geometry/ScanBuilders.h"
#include "recon/phantom/AnalyticProjector.h"
#include "recon/phantom/Ellipsoid.h"
#include "recon/phantom/Phantom.h"

namespace tomowb::fdk {
namespace {

Geometry arcScan(int views) {
  CircularConeParams p;
  p.sourceToIsocentreMm = 400;
  p.sourceToDetectorMm = 700;
  p.detector.cols = 128;
  p.detector.rows = 48;
  p.detector.pitchUMm = 2.0;  // arc length per column
  p.detector.pitchVMm = 2.0;
  p.detector.offsetVMm = 3.0;
  p.detector.surface = DetectorSurface::Cylinder;
  p.anglesRad = fullScanAnglesRad(views, 0.3);
  return circularConeBeam(p);
}

double nrmse(const float* a, const float* b, std::size_t n) {
  double num = 0, den = 0;
  for (std::size_t i = 0; i < n; ++i) {
    num += (double(a[i]) - b[i]) * (double(a[i]) - b[i]);
    den += double(b[i]) * b[i];
  }
  return std::sqrt(num / den);
}

TEST(ArcRebinning, ResampledArcProjectionsMatchTheFlatDetectorsOwn) {
  const Geometry arc = arcScan(12);
  const phantom::Phantom head = phantom::modifiedSheppLogan3d(70.0);
  const ProjectionStack measured = phantom::projectPhantom(head, arc);
  const ProjectionStack rebinned = rebinArcToFlat(measured);
  EXPECT_FALSE(rebinned.geometry().hasCylindricalViews());
  EXPECT_EQ(rebinned.geometry(), flatEquivalentGeometry(arc));
  const ProjectionStack flat = phantom::projectPhantom(head, rebinned.geometry());
  const double error = nrmse(rebinned.data(), flat.data(), std::size_t(flat.pixelCount()));
  std::printf(
      "[ measured ] arc -> flat resampling against the flat detector's analytic "
      "projections: NRMSE %.4f\n",
      error);
  // Bilinear interpolation across the phantom's sharp edges at 2 mm cells: about 3 %.
  EXPECT_LT(error, 0.05);
}

// A phantom whose line integrals vary smoothly over the whole detector (every ray crosses the
// ellipsoid's interior), so that bilinear interpolation adds almost nothing and a misplaced ray
// shows.
TEST(ArcRebinning, ResamplingPutsEveryRayWhereTheFlatDetectorHasIt) {
  const Geometry arc = arcScan(12);
  const phantom::Phantom smooth("smooth", {phantom::Ellipsoid{Eigen::Vector3d(10.0, -5.0, 20.0),
                                                              Eigen::Vector3d(150.0, 120.0, 400.0),
                                                              Eigen::Matrix3d::Identity(), 0.02}});
  const ProjectionStack rebinned = rebinArcToFlat(phantom::projectPhantom(smooth, arc));
  const ProjectionStack flat = phantom::projectPhantom(smooth, rebinned.geometry());
  const double error = nrmse(rebinned.data(), flat.data(), std::size_t(flat.pixelCount()));
  std::printf("[ measured ] arc -> flat resampling of a smooth phantom: NRMSE %.2e\n", error);
  EXPECT_LT(error, 1e-4);
}

TEST(ArcRebinning, FdkOfArcDataFollowsFdkOfTheFlatScan) {
  const Geometry arc = arcScan(180);
  const phantom::Phantom head = phantom::modifiedSheppLogan3d(70.0);
  FdkParams params;
  params.volume = fieldOfViewGrid(arc, 2.0);
  JobContext context;
  FdkReport report;
  const Volume fromArc =
      reconstructFdk(phantom::projectPhantom(head, arc), params, context, &report);
  ASSERT_FALSE(report.warnings.empty());
  EXPECT_NE(report.warnings.front().find("arc (cylindrical)"), std::string::npos);
  const Volume fromFlat = reconstructFdk(phantom::projectPhantom(head, flatEquivalentGeometry(arc)),
                                         params, context, nullptr);
  const double error =
      nrmse(fromArc.data(), fromFlat.data(), std::size_t(fromFlat.shape().voxelCount()));
  std::printf("[ measured ] FDK of arc data against FDK of the flat scan: NRMSE %.4f\n", error);
  // The resampling blurs the phantom's sharp edges (the uniform regions agree, below).
  EXPECT_LT(error, 0.2);
  // And the arc's reconstruction has the phantom's values: the mean of a 5x5x5 block of voxels,
  // near the centre, whose every voxel centre lies in one uniform region.
  const VolumeGrid& g = params.volume;
  auto world = [&](std::int64_t x, std::int64_t y, std::int64_t z) {
    return Eigen::Vector3d(
        g.originMm + g.voxelSizeMm.cwiseProduct(Eigen::Vector3d(double(x), double(y), double(z))));
  };
  bool found = false;
  const std::int64_t cx = g.shape.nx / 2, cy = g.shape.ny / 2, cz = g.shape.nz / 2;
  for (std::int64_t dy = -12; dy <= 12 && !found; ++dy)
    for (std::int64_t dx = -12; dx <= 12 && !found; ++dx) {
      const double truth = head.valueAt(world(cx + dx, cy + dy, cz));
      double sum = 0;
      bool uniform = truth > 0;
      for (std::int64_t k = -2; k <= 2 && uniform; ++k)
        for (std::int64_t j = -2; j <= 2 && uniform; ++j)
          for (std::int64_t i = -2; i <= 2 && uniform; ++i) {
            uniform = head.valueAt(world(cx + dx + i, cy + dy + j, cz + k)) == truth;
            sum += fromArc.at(cx + dx + i, cy + dy + j, cz + k);
          }
      if (!uniform) continue;
      found = true;
      std::printf("[ measured ] FDK of arc data: %.5f /mm in a uniform block, truth %.5f /mm\n",
                  sum / 125.0, truth);
      EXPECT_NEAR(sum / 125.0, truth, 0.03 * truth);
    }
  EXPECT_TRUE(found);
}

}  // namespace
}  // namespace tomowb::fdk
