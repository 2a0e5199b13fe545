// The helical orbit recovered from the views: turns, pitch and feed as the builder made them, an
// angle per view that differs from the builder's by a constant (its sign with the rotation
// sense), the orbit's matrix at a view's angle equal to the view's own, a refusal naming a view
// that leaves the helix, the coverage limit in pitch; and the row weight's shape.
#include <gtest/gtest.h>

#include <numbers>

#include "recon/core/Error.h"
#include "recon/fdk/HelicalBackprojector.h"
#include "recon/fdk/HelicalOrbit.h"
#include "recon/geometry/ScanBuilders.h"

namespace tomowb::fdk {
namespace {

constexpr double kPi = std::numbers::pi;

HelicalConeParams scan(double pitch, double startRad, double sense) {
  HelicalConeParams h;
  h.circular.sourceToIsocentreMm = 400;
  h.circular.sourceToDetectorMm = 800;
  h.circular.detector.cols = 80;
  h.circular.detector.rows = 16;
  h.circular.detector.pitchUMm = h.circular.detector.pitchVMm = 4.0;
  for (int i = 0; i < 250; ++i)
    h.circular.anglesRad.push_back(startRad + sense * 2 * kPi * i / 100.0);
  h.pitch = pitch;
  h.startZMm = -17.0;
  return h;
}

TEST(HelicalOrbit, RecoversTheBuildersTurnsPitchAndAnglesWhicheverWayItTurns) {
  for (const double sense : {1.0, -1.0}) {
    const HelicalConeParams h = scan(0.8, 2.0, sense);
    const Geometry g = helicalConeBeam(h);
    ASSERT_TRUE(HelicalOrbit::sourcesLeaveThePlane(g));
    const HelicalOrbit orbit(g);
    EXPECT_NEAR(orbit.turns(), 2.5, 1e-9);
    EXPECT_NEAR(orbit.pitch(), 0.8, 1e-9);
    EXPECT_NEAR(orbit.feedPerTurnMm(), helicalFeedPerTurnMm(h), 1e-9);
    EXPECT_NEAR(orbit.detectorHeightAtIsocentreMm(), 32.0, 1e-9);
    EXPECT_NEAR(orbit.sourceToIsocentreMm(), 400.0, 1e-9);
    EXPECT_NEAR(orbit.sourceToDetectorMm(), 800.0, 1e-9);
    const double offset = orbit.angleRad(0) - h.circular.anglesRad[0];
    for (std::int64_t i = 0; i < g.viewCount(); ++i) {
      ASSERT_NEAR(orbit.angleRad(i) - h.circular.anglesRad[std::size_t(i)], offset, 1e-9);
      ASSERT_NEAR(orbit.stepRad(i), 2 * kPi / 100.0, 1e-9);
      ASSERT_NEAR(orbit.sourceZAt(orbit.angleRad(i)), g.view(i).source.z(), 1e-9);
      const ProjectionMatrix expected = g.projectionMatrix(i);
      ASSERT_LT((orbit.matrixAt(orbit.angleRad(i)) - expected).norm(), 1e-9 * expected.norm())
          << "view " << i;
    }
  }
}

TEST(HelicalOrbit, CircularOrbitsAreNotHelical) {
  CircularConeParams c = scan(1.0, 0.0, 1.0).circular;
  c.anglesRad = fullScanAnglesRad(90);
  EXPECT_FALSE(HelicalOrbit::sourcesLeaveThePlane(circularConeBeam(c)));
}

TEST(HelicalOrbit, RefusesAViewThatLeavesTheHelixNamingIt) {
  Geometry g = helicalConeBeam(scan(1.0, 0.0, 1.0));
  g.view(37).detectorCentre.x() += 0.5;
  try {
    HelicalOrbit orbit(g);
    FAIL() << "a displaced detector was accepted";
  } catch (const ParameterError& e) {
    EXPECT_NE(std::string(e.what()).find("views[37]"), std::string::npos) << e.what();
  }
  Geometry back = helicalConeBeam(scan(1.0, 0.0, 1.0));
  std::swap(back.view(10).source, back.view(11).source);  // the source steps backwards once
  EXPECT_THROW(HelicalOrbit{back}, ParameterError);
}

TEST(HelicalOrbit, CoverageLimitLiesBetweenPitchOneAndTwo) {
  const HelicalOrbit orbit(helicalConeBeam(scan(1.0, 0.0, 1.0)));
  const double radius = 70.0;
  EXPECT_FALSE(orbit.coverageProblem(radius).has_value());
  const double largest = orbit.largestCoveredPitch(radius);
  std::cout << "[ figures  ] largest covered pitch at 70 mm: " << largest << "\n";
  EXPECT_GT(largest, 1.2);
  EXPECT_LT(largest, 2.0);
  const HelicalOrbit steep(helicalConeBeam(scan(largest * 1.1, 0.0, 1.0)));
  EXPECT_TRUE(steep.coverageProblem(radius).has_value());
}

TEST(HelicalBackprojector, RowWeightIsFlatThenFallsSmoothlyToZeroAtTheEdge) {
  const double q = kHelicalFlatFraction;
  EXPECT_EQ(helicalRowWeight(0.0, q), 1.0);
  EXPECT_EQ(helicalRowWeight(-q, q), 1.0);
  EXPECT_NEAR(helicalRowWeight(0.5 * (1 + q), q), 0.5, 1e-12);
  EXPECT_NEAR(helicalRowWeight(-0.5 * (1 + q), q), 0.5, 1e-12);
  EXPECT_EQ(helicalRowWeight(1.0, q), 0.0);
  EXPECT_EQ(helicalRowWeight(-1.3, q), 0.0);
  double previous = 1.0;
  for (double x = q; x <= 1.0; x += 1e-3) {
    const double w = helicalRowWeight(x, q);
    EXPECT_LE(w, previous);
    EXPECT_LT(previous - w, 0.01) << "a step at q = " << x;
    previous = w;
  }
}

}  // namespace
}  // namespace tomowb::fdk
