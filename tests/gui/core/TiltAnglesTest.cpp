// Tilt angles read back from the views: tiltSeries() gives back its own angles whatever the
// tilt-axis angle and shift, an x-axis tilt turns the axis but not the angles, and only a
// parallel-beam single-axis scan short of 170 degrees counts as a tilt series.
#include <gtest/gtest.h>

#include <Eigen/Geometry>
#include <cmath>
#include <numbers>

#include "gui/core/TiltAngles.h"
#include "recon/geometry/ScanBuilders.h"

namespace tomowb::gui {
namespace {

constexpr double kDeg = std::numbers::pi / 180.0;

TiltSeriesParams tilts(double first, double last, double step) {
  TiltSeriesParams p;
  p.cols = 64;
  p.rows = 16;
  p.pixelSizeMm = 4e-6;  // ET pixels: nanometres
  for (double t = first; t <= last + 1e-9; t += step) p.tiltAnglesRad.push_back(t * kDeg);
  return p;
}

TEST(TiltAngles, GivesBackTheBuildersTiltsWithAxisAngleAndShift) {
  TiltSeriesParams p = tilts(-60, 60, 2);
  p.tiltAxisAngleRad = 11 * kDeg;
  p.tiltAxisShiftPixels = 3.5;
  const Geometry g = tiltSeries(p);
  const TiltAxisFit fit = fitTiltAxis(g);
  ASSERT_EQ(fit.tiltsRad.size(), p.tiltAnglesRad.size());
  for (std::size_t i = 0; i < fit.tiltsRad.size(); ++i)
    EXPECT_NEAR(fit.tiltsRad[i], p.tiltAnglesRad[i], 1e-12) << "view " << i;
  EXPECT_NEAR(fit.axis.z(), 1.0, 1e-12);
  EXPECT_LT(fit.largestOffAxis, 1e-12);
  EXPECT_TRUE(isTiltSeries(g));
}

TEST(TiltAngles, AnXAxisTiltTurnsTheAxisButKeepsTheAngles) {
  const TiltSeriesParams p = tilts(-40, 50, 5);  // not symmetric: the sign is checked
  Geometry g = tiltSeries(p);
  const Eigen::Matrix3d r =
      Eigen::AngleAxisd(7 * kDeg, Eigen::Vector3d::UnitX()).toRotationMatrix();
  for (std::int64_t i = 0; i < g.viewCount(); ++i) {
    View& v = g.view(i);
    v.rayDirection = r * v.rayDirection;
    v.u = r * v.u;
    v.v = r * v.v;
    v.detectorCentre = r * v.detectorCentre;
  }
  const TiltAxisFit fit = fitTiltAxis(g);
  for (std::size_t i = 0; i < fit.tiltsRad.size(); ++i)
    EXPECT_NEAR(fit.tiltsRad[i], p.tiltAnglesRad[i], 1e-9) << "view " << i;
  EXPECT_NEAR(fit.axis.dot(r * Eigen::Vector3d::UnitZ()), 1.0, 1e-9);
  EXPECT_TRUE(isTiltSeries(g));
}

TEST(TiltAngles, OnlyShortParallelSingleAxisScansAreTiltSeries) {
  ParallelBeamParams ct;
  ct.detector.cols = 32;
  ct.detector.rows = 4;
  ct.anglesRad = arcAnglesRad(180, std::numbers::pi);
  EXPECT_FALSE(isTiltSeries(parallelBeam(ct))) << "180 degrees is parallel CT";
  CircularConeParams cone;
  cone.sourceToIsocentreMm = 500;
  cone.sourceToDetectorMm = 1000;
  cone.detector.cols = 32;
  cone.detector.rows = 4;
  cone.anglesRad = arcAnglesRad(20, 1.0);
  EXPECT_FALSE(isTiltSeries(circularConeBeam(cone)));
  EXPECT_TRUE(fitTiltAxis(circularConeBeam(cone)).tiltsRad.empty());
  // A view tipped out of the plane of the others: no single axis.
  Geometry g = tiltSeries(tilts(-30, 30, 10));
  g.view(2).rayDirection = (g.view(2).rayDirection + Eigen::Vector3d(0, 0, 0.2)).normalized();
  EXPECT_FALSE(isTiltSeries(g));
}

}  // namespace
}  // namespace tomowb::gui
