#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <random>

#include "recon/core/Error.h"
#include "recon/geometry/Geometry.h"
#include "recon/geometry/MatrixGeometry.h"
#include "recon/geometry/ScanBuilders.h"
#include "support/TestSupport.h"

namespace tomowb {
namespace {

// A cone-beam geometry with every detector imperfection the builders offer, at random.
Geometry randomConeGeometry(std::mt19937_64& rng) {
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  CircularConeParams p;
  p.sourceToIsocentreMm = 400 + 100 * u(rng);
  p.sourceToDetectorMm = 900 + 200 * u(rng);
  p.detector.cols = 120;
  p.detector.rows = 90;
  p.detector.pitchUMm = 1.2 + 0.3 * u(rng);
  p.detector.pitchVMm = 1.0 + 0.3 * u(rng);
  p.detector.offsetUMm = 20 * u(rng);
  p.detector.offsetVMm = 10 * u(rng);
  p.detector.tiltRad = 0.05 * u(rng);
  p.detector.slantRad = 0.05 * u(rng);
  p.detector.inPlaneRotationRad = 0.05 * u(rng);
  p.detector.skewRad = 0.02 * u(rng);
  for (int i = 0; i < 12; ++i) p.anglesRad.push_back(3.0 * u(rng));
  return circularConeBeam(p);
}

// Where the ray source->x (or the line through x along the ray) meets the detector plane, in
// pixel coordinates, computed from the vector form alone.
Eigen::Vector2d intersectDetector(const Geometry& g, std::int64_t i, const Eigen::Vector3d& x) {
  const View& v = g.view(i);
  const Eigen::Vector3d origin = g.pixelPosition(i, 0, 0);
  const Eigen::Vector3d dir =
      g.beam() == BeamKind::Cone ? Eigen::Vector3d(x - v.source) : v.rayDirection;
  // origin + c u + r v = x + t dir
  Eigen::Matrix3d m;
  m << v.u, v.v, -dir;
  const Eigen::Vector3d sol = m.colPivHouseholderQr().solve(x - origin);
  return sol.head<2>();
}

TEST(Geometry, ProjectionMatrixAgreesWithVectorFormOnRandomPoints) {
  std::mt19937_64 rng(test::randomSeed());
  std::uniform_real_distribution<double> u(-80.0, 80.0);
  const Geometry g = randomConeGeometry(rng);
  for (std::int64_t i = 0; i < g.viewCount(); ++i) {
    const ProjectionMatrix p = g.projectionMatrix(i);
    EXPECT_NEAR(p(2, 3), 1.0, 1e-12) << "w is 1 at the isocentre";
    for (int k = 0; k < 20; ++k) {
      const Eigen::Vector3d x(u(rng), u(rng), u(rng));
      const Eigen::Vector3d h = p * x.homogeneous();
      const Eigen::Vector2d expected = intersectDetector(g, i, x);
      EXPECT_NEAR(h.x() / h.z(), expected.x(), 1e-7);
      EXPECT_NEAR(h.y() / h.z(), expected.y(), 1e-7);
    }
  }
}

TEST(Geometry, ProjectionMatrixWIsDepthOverIsocentreDepth) {
  CircularConeParams p;
  p.sourceToIsocentreMm = 500;
  p.sourceToDetectorMm = 800;
  p.detector.cols = p.detector.rows = 10;
  p.anglesRad = {0.0};
  const Geometry g = circularConeBeam(p);
  // Source at +x: a point at x = 100 is 400 mm deep, 0.8 of the isocentre's 500.
  const Eigen::Vector3d h = g.projectionMatrix(0) * Eigen::Vector4d(100, 30, -20, 1);
  EXPECT_NEAR(h.z(), 0.8, 1e-12);
}

TEST(Geometry, MatricesDecomposeBackIntoTheSameProjection) {
  std::mt19937_64 rng(test::randomSeed());
  std::uniform_real_distribution<double> u(-80.0, 80.0);
  const Geometry g = randomConeGeometry(rng);
  std::vector<ProjectionMatrix> matrices;
  for (std::int64_t i = 0; i < g.viewCount(); ++i) matrices.push_back(g.projectionMatrix(i) * 3.7);
  const Geometry back =
      geometryFromMatrices(BeamKind::Cone, g.detector(), matrices, g.view(0).u.norm());
  for (std::int64_t i = 0; i < g.viewCount(); ++i) {
    EXPECT_TRUE(back.view(i).source.isApprox(g.view(i).source, 1e-9));
    const ProjectionMatrix a = g.projectionMatrix(i), b = back.projectionMatrix(i);
    for (int k = 0; k < 10; ++k) {
      const Eigen::Vector3d x(u(rng), u(rng), u(rng));
      const Eigen::Vector3d ha = a * x.homogeneous(), hb = b * x.homogeneous();
      EXPECT_NEAR(ha.x() / ha.z(), hb.x() / hb.z(), 1e-7);
      EXPECT_NEAR(ha.y() / ha.z(), hb.y() / hb.z(), 1e-7);
      EXPECT_NEAR(ha.z(), hb.z(), 1e-9) << "same normalisation, same FDK weight";
    }
  }
}

TEST(Geometry, ParallelMatricesDecomposeBackIntoTheSameViews) {
  ParallelBeamParams p;
  p.detector.cols = 50;
  p.detector.rows = 20;
  p.detector.pitchUMm = 0.7;
  p.detector.offsetUMm = 3;
  p.detector.inPlaneRotationRad = 0.1;
  p.anglesRad = fullScanAnglesRad(5);
  const Geometry g = parallelBeam(p);
  std::vector<ProjectionMatrix> matrices;
  for (std::int64_t i = 0; i < g.viewCount(); ++i) matrices.push_back(g.projectionMatrix(i));
  const Geometry back = geometryFromMatrices(BeamKind::Parallel, g.detector(), matrices);
  for (std::int64_t i = 0; i < g.viewCount(); ++i) {
    EXPECT_TRUE(back.view(i).u.isApprox(g.view(i).u, 1e-9));
    EXPECT_TRUE(back.view(i).v.isApprox(g.view(i).v, 1e-9));
    EXPECT_TRUE(back.view(i).rayDirection.isApprox(g.view(i).rayDirection, 1e-9));
    EXPECT_TRUE(back.projectionMatrix(i).isApprox(g.projectionMatrix(i), 1e-9));
  }
}

TEST(Geometry, ValidateNamesTheBrokenView) {
  CircularConeParams p;
  p.sourceToIsocentreMm = 500;
  p.sourceToDetectorMm = 800;
  p.detector.cols = p.detector.rows = 10;
  p.anglesRad = fullScanAnglesRad(4);
  Geometry g = circularConeBeam(p);
  g.view(2).v = g.view(2).u * 2.0;
  try {
    g.validate();
    FAIL();
  } catch (const ParameterError& e) {
    EXPECT_NE(std::string(e.what()).find("views[2].v"), std::string::npos) << e.what();
  }
  g = circularConeBeam(p);
  g.view(3).source = g.view(3).detectorCentre;
  EXPECT_THROW(g.validate(), ParameterError);
}

TEST(Geometry, SourceAzimuthsUnwrapPastPi) {
  CircularConeParams p;
  p.sourceToIsocentreMm = 500;
  p.sourceToDetectorMm = 800;
  p.detector.cols = p.detector.rows = 10;
  p.anglesRad = fullScanAnglesRad(8, 2.0);
  const auto az = circularConeBeam(p).sourceAzimuthsRad();
  for (std::size_t i = 0; i < az.size(); ++i) EXPECT_NEAR(az[i], p.anglesRad[i], 1e-12);
}

// D22 of the hostile-input review: vectors of 1e200 mm made u x v infinite, every test compared
// NaN and passed, and phantom/recon produced all-zero data with exit 0.
TEST(Geometry, ValidateRefusesCoordinatesThatOverflowTheTests) {
  CircularConeParams p;
  p.sourceToIsocentreMm = 500;
  p.sourceToDetectorMm = 800;
  p.detector.cols = p.detector.rows = 10;
  p.anglesRad = fullScanAnglesRad(4);
  for (double huge : {1e200, 1e308, 2e9}) {
    for (int which = 0; which < 3; ++which) {
      Geometry g = circularConeBeam(p);
      Eigen::Vector3d& vec = which == 0 ? g.view(1).u : which == 1 ? g.view(1).v : g.view(1).source;
      vec *= huge;
      try {
        g.validate();
        ADD_FAILURE() << huge << " " << which;
      } catch (const ParameterError& e) {
        EXPECT_NE(std::string(e.what()).find("views[1]."), std::string::npos) << e.what();
      }
    }
  }
  // Tiny pitches (electron tomography: 1e-7 mm) stay valid, and so does a 1000 km source.
  Geometry g = circularConeBeam(p);
  g.view(0).u *= 1e-6;
  g.view(0).v *= 1e-6;
  EXPECT_NO_THROW(g.validate());
  // |u| = |v| = 1e-156 mm passed (u x v = 1e-312 beat a threshold that underflowed too), but its
  // projection matrix is infinite: refused now.
  g.view(0).u *= 1e-150;
  g.view(0).v *= 1e-150;
  EXPECT_THROW(g.validate(), ParameterError);
}

}  // namespace
}  // namespace tomowb
