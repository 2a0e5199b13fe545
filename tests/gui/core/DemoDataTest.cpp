// The built-in demos: the ET demo is a tilt series of 61 views over -60..+60 degrees in 2 degree
// steps (read back from the views' rays) on a 2N x N/2 detector, with the tomogram a quarter of
// the detector width thick as its grid, and it is cancellable; the helical demo is a helix with
// noisy projections and their photon counts, its grid the completely measured slab; the demo
// names round-trip.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numbers>

#include "gui/core/DemoData.h"
#include "gui/core/TiltAngles.h"
#include "recon/core/Error.h"

namespace tomowb::gui {
namespace {

TEST(DemoData, EtDemoIsATiltSeriesFromMinus60To60DegreesIn2DegreeSteps) {
  JobContext context;
  const DemoDataset demo = makeDemo(DemoKind::ElectronTomography, 32, context);
  ASSERT_TRUE(demo.projections);
  const Geometry& g = demo.projections->geometry();
  EXPECT_EQ(g.beam(), BeamKind::Parallel);
  EXPECT_EQ(g.viewCount(), 61);
  EXPECT_EQ(g.detector().cols, 64);
  EXPECT_EQ(g.detector().rows, 16);
  EXPECT_NEAR(g.view(0).u.norm(), kEtDemoPixelMm, 1e-15);
  ASSERT_TRUE(isTiltSeries(g));
  const std::vector<double> tilts = fitTiltAxis(g).tiltsRad;
  for (std::size_t i = 0; i < tilts.size(); ++i)
    EXPECT_NEAR(tilts[i] * 180.0 / std::numbers::pi, -60.0 + 2.0 * double(i), 1e-9) << i;
  // The tomogram: detector columns across, a quarter of them thick, the rows along the axis.
  EXPECT_EQ(demo.suggestedGrid.shape, (VolumeShape{64, 16, 16}));
  EXPECT_NEAR(demo.suggestedGrid.voxelSizeMm.x(), kEtDemoPixelMm, 1e-15);
  ASSERT_TRUE(demo.phantom);
  EXPECT_EQ(demo.phantom->name(), "et-specimen");
  EXPECT_FALSE(demo.cnrPhantom);
  EXPECT_TRUE(demo.name.contains("ET"));
  // The specimen is in every view, and its projection is longer at high tilt (the slab's path).
  const auto viewSum = [&](std::int64_t v) {
    double sum = 0;
    for (const float p : demo.projections->viewPixels(v)) sum += p;
    return sum;
  };
  EXPECT_GT(viewSum(30), 0.0);
  const float centreAt0 = demo.projections->at(30, 8, 32);
  const float centreAt60 = demo.projections->at(60, 8, 32);
  EXPECT_GT(centreAt60, centreAt0) << "the slab is thicker along a tilted beam";
}

TEST(DemoData, EtDemoHonoursCancel) {
  CancelToken token;
  token.request();
  JobContext context(token);
  EXPECT_THROW(makeDemo(DemoKind::ElectronTomography, 64, context), Cancelled);
}

TEST(DemoData, HelicalDemoIsANoisyHelixWithItsCountsAndTheMeasuredSlabAsGrid) {
  JobContext context;
  const DemoDataset demo = makeDemo(DemoKind::Helical, 32, context);
  ASSERT_TRUE(demo.projections);
  ASSERT_TRUE(demo.counts);
  const Geometry& g = demo.projections->geometry();
  EXPECT_EQ(g.beam(), BeamKind::Cone);
  EXPECT_EQ(g.viewCount(), 3 * 90);
  EXPECT_EQ(g.detector().cols, 32);
  EXPECT_EQ(g.detector().rows, 4);
  EXPECT_GT(g.view(g.viewCount() - 1).source.z() - g.view(0).source.z(), 70.0);
  EXPECT_EQ(demo.counts->pixelCount(), demo.projections->pixelCount());
  // Post-log values and counts of one draw: y = log(I0 / N) wherever something was counted.
  for (std::int64_t i = 0; i < demo.counts->pixelCount(); i += 97) {
    const double n = demo.counts->data()[i];
    ASSERT_EQ(n, std::round(n));
    if (n > 0) ASSERT_NEAR(demo.projections->data()[i], std::log(5e4 / n), 1e-5);
  }
  EXPECT_EQ(demo.suggestedGrid.shape.nx, 32);
  EXPECT_GT(demo.suggestedGrid.shape.nz, 1);
  EXPECT_TRUE(demo.name.contains("helical"));
}

TEST(DemoData, NamesRoundTripAndUnknownNamesAreRefused) {
  for (const DemoKind kind :
       {DemoKind::SheppLogan, DemoKind::Cnr, DemoKind::ElectronTomography, DemoKind::Helical})
    EXPECT_EQ(demoKindFromName(demoKindName(kind)), kind);
  EXPECT_EQ(demoKindFromName(QStringLiteral("ET")), DemoKind::ElectronTomography);
  EXPECT_THROW(demoKindFromName(QStringLiteral("phantom")), ParameterError);
}

}  // namespace
}  // namespace tomowb::gui
