// ConsistencyCheck: with the geometry the data were made with, the predicted view matches the
// measured one; a 5 mm detector offset error or a flipped rotation sense shows as a large
// difference -- from the analytic phantom and from a voxel volume.
#include <gtest/gtest.h>

#include "gui/core/ConsistencyCheck.h"
#include "gui/core/GeometryForm.h"
#include "recon/core/Error.h"
#include "recon/phantom/AnalyticProjector.h"
#include "recon/phantom/Voxelise.h"

namespace tomowb::gui {
namespace {

// A small version of the demo: modified Shepp-Logan head, circular cone beam.
GeometryForm demoForm() {
  GeometryForm f;
  f.sourceToIsocentreMm = 300;
  f.sourceToDetectorMm = 600;
  f.viewCount = 24;
  f.cols = 96;
  f.rows = 80;
  f.pitchUMm = f.pitchVMm = 2.0;
  return f;
}

struct Demo {
  phantom::Phantom head = phantom::modifiedSheppLogan3d(40.0);
  Geometry geometry = buildGeometry(demoForm());
  ProjectionStack measured = phantom::projectPhantom(head, geometry);
};

TEST(ConsistencyCheck, AnalyticPredictionShowsOffsetAndSenseErrors) {
  const Demo demo;
  const std::int64_t view = 5;  // 75 degrees: a flipped sense puts the source elsewhere
  const auto good = computeConsistency(demo.measured, demo.geometry, view, &demo.head, nullptr);
  EXPECT_LT(good.relativeRms, 1e-5);
  EXPECT_EQ(good.cols, 96);
  EXPECT_EQ(good.difference.size(), std::size_t(96 * 80));

  GeometryForm offset = demoForm();
  offset.offsetUMm = 5.0;
  const auto shifted =
      computeConsistency(demo.measured, buildGeometry(offset), view, &demo.head, nullptr);
  GeometryForm flipped = demoForm();
  flipped.clockwise = true;
  const auto mirrored =
      computeConsistency(demo.measured, buildGeometry(flipped), view, &demo.head, nullptr);
  std::printf("  relative RMS: correct %.2g, 5 mm u-offset %.3f, flipped sense %.3f\n",
              good.relativeRms, shifted.relativeRms, mirrored.relativeRms);
  EXPECT_GT(shifted.relativeRms, 0.1);
  EXPECT_GT(mirrored.relativeRms, 0.1);
}

TEST(ConsistencyCheck, VolumePredictionShowsOffsetError) {
  const Demo demo;
  const Volume volume = phantom::voxelisePhantom(demo.head, {80, 80, 80}, Eigen::Vector3d::Ones(),
                                                 Eigen::Vector3d::Constant(-39.5), 2);
  const auto good = computeConsistency(demo.measured, demo.geometry, 3, nullptr, &volume);
  GeometryForm offset = demoForm();
  offset.offsetUMm = 5.0;
  const auto shifted =
      computeConsistency(demo.measured, buildGeometry(offset), 3, nullptr, &volume);
  std::printf("  relative RMS from the voxel volume: correct %.3f, 5 mm u-offset %.3f\n",
              good.relativeRms, shifted.relativeRms);
  // 1 mm voxels against exact line integrals: partial volume at the skull's edges.
  EXPECT_LT(good.relativeRms, 0.1);
  EXPECT_GT(shifted.relativeRms, 3 * good.relativeRms);
  EXPECT_GT(shifted.relativeRms, 0.1);
}

TEST(ConsistencyCheck, RefusesAGeometryOfAnotherShape) {
  const Demo demo;
  GeometryForm other = demoForm();
  other.cols = 100;
  EXPECT_THROW(
      (void)computeConsistency(demo.measured, buildGeometry(other), 0, &demo.head, nullptr),
      ParameterError);
  EXPECT_THROW((void)computeConsistency(demo.measured, demo.geometry, 24, &demo.head, nullptr),
               ParameterError);
  EXPECT_THROW((void)computeConsistency(demo.measured, demo.geometry, 0, nullptr, nullptr),
               ParameterError);
}

}  // namespace
}  // namespace tomowb::gui
