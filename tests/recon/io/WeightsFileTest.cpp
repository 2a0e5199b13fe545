// A counts file is read as weights in the data's geometry (.npy as a 3-D array, raw + JSON
// projections), refusing a wrong shape or a negative or non-finite value, naming the file.
#include <gtest/gtest.h>

#include <limits>

#include "recon/core/Error.h"
#include "recon/geometry/ScanBuilders.h"
#include "recon/io/NpyIo.h"
#include "recon/io/VolumeFiles.h"
#include "recon/io/WeightsFile.h"
#include "recon/phantom/PoissonNoise.h"
#include "support/TestSupport.h"

namespace tomowb::io {
namespace {

ProjectionStack rampStack() {
  CircularConeParams p;
  p.sourceToIsocentreMm = 300;
  p.sourceToDetectorMm = 500;
  p.detector.cols = 12;
  p.detector.rows = 5;
  p.anglesRad = fullScanAnglesRad(7);
  ProjectionStack stack(circularConeBeam(p));
  for (std::int64_t i = 0; i < stack.pixelCount(); ++i)
    stack.data()[i] = 0.05f * static_cast<float>(i % 97);
  return stack;
}

Volume asVolume(const ProjectionStack& s) {
  Volume v({s.cols(), s.rows(), s.viewCount()}, Eigen::Vector3d::Ones(), Eigen::Vector3d::Zero());
  std::copy(s.pixels().begin(), s.pixels().end(), v.voxels().begin());
  return v;
}

TEST(WeightsFile, ReadsCountsFromNpyAndFromRawJsonProjectionsInTheDataGeometry) {
  const ProjectionStack data = rampStack();
  const ProjectionStack counts = phantom::drawPoissonCounts(data, 1e3, test::randomSeed());
  test::TempDir dir;
  writeNpy(dir / "counts.npy", asVolume(counts));
  writeProjections(dir / "counts.json", counts);
  for (const char* name : {"counts.npy", "counts.json"}) {
    const ProjectionStack w = readCountsAsWeights(dir / name, data);
    ASSERT_EQ(w.pixelCount(), data.pixelCount()) << name;
    for (std::int64_t i = 0; i < w.pixelCount(); ++i)
      ASSERT_EQ(w.data()[i], counts.data()[i]) << name;
    EXPECT_EQ(w.geometry().view(5).detectorCentre, data.geometry().view(5).detectorCentre);
  }
}

TEST(WeightsFile, RefusesWrongShapeAndBadValuesNamingTheFile) {
  const ProjectionStack data = rampStack();
  test::TempDir dir;
  Volume wrong({data.cols(), data.rows() + 1, data.viewCount()}, Eigen::Vector3d::Ones(),
               Eigen::Vector3d::Zero());
  writeNpy(dir / "wrong.npy", wrong);
  try {
    readCountsAsWeights(dir / "wrong.npy", data);
    FAIL() << "a wrong shape was accepted";
  } catch (const FormatError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("wrong.npy"), std::string::npos) << what;
    EXPECT_NE(what.find("7 views x 6 rows x 12 cols"), std::string::npos) << what;
  }
  Volume bad = asVolume(data);
  bad.at(1, 2, 3) = -2.0f;
  writeNpy(dir / "negative.npy", bad);
  try {
    readCountsAsWeights(dir / "negative.npy", data);
    FAIL() << "a negative count was accepted";
  } catch (const FormatError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("negative.npy"), std::string::npos) << what;
    EXPECT_NE(what.find("view 3, row 2, col 1"), std::string::npos) << what;
  }
  bad.at(1, 2, 3) = std::numeric_limits<float>::infinity();
  writeNpy(dir / "inf.npy", bad);
  EXPECT_THROW(readCountsAsWeights(dir / "inf.npy", data), FormatError);
}

}  // namespace
}  // namespace tomowb::io
