#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <iomanip>

#include "recon/core/Error.h"
#include "recon/geometry/GeometryImport.h"
#include "recon/geometry/ScanBuilders.h"
#include "support/TestSupport.h"

namespace tomowb {
namespace {

Geometry sampleCone() {
  CircularConeParams p;
  p.sourceToIsocentreMm = 700;
  p.sourceToDetectorMm = 1200;
  p.detector.cols = 40;
  p.detector.rows = 30;
  p.detector.pitchUMm = 0.8;
  p.detector.pitchVMm = 0.9;
  p.detector.offsetUMm = 3;
  p.anglesRad = fullScanAnglesRad(6);
  return circularConeBeam(p);
}

TEST(GeometryImport, AstraConeVecTextGivesTheSameViews) {
  test::TempDir dir;
  const Geometry g = sampleCone();
  {
    std::ofstream out(dir / "vectors.txt");
    out << std::setprecision(17) << "# src d u v\n";
    for (const View& v : g.views()) {
      for (const auto* vec : {&v.source, &v.detectorCentre, &v.u, &v.v})
        out << vec->x() << "," << vec->y() << "," << vec->z() << ",";
      out << "\n";
    }
  }
  // Trailing commas are tolerated as separators.
  const Geometry back = importAstraVectors(dir / "vectors.txt", BeamKind::Cone, g.detector());
  ASSERT_EQ(back.viewCount(), g.viewCount());
  for (std::int64_t i = 0; i < g.viewCount(); ++i)
    EXPECT_TRUE(back.projectionMatrix(i).isApprox(g.projectionMatrix(i), 1e-12));
}

TEST(GeometryImport, MatrixTextGivesTheSameProjections) {
  test::TempDir dir;
  const Geometry g = sampleCone();
  {
    std::ofstream out(dir / "matrices.txt");
    out << std::setprecision(17);
    for (std::int64_t i = 0; i < g.viewCount(); ++i) {
      const ProjectionMatrix p = g.projectionMatrix(i) * -2.0;  // any scale, either sign
      for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 4; ++c) out << p(r, c) << " ";
      out << "\n";
    }
  }
  const Geometry back = importMatrixText(dir / "matrices.txt", BeamKind::Cone, g.detector(), 0.8);
  for (std::int64_t i = 0; i < g.viewCount(); ++i) {
    EXPECT_TRUE(back.projectionMatrix(i).isApprox(g.projectionMatrix(i), 1e-9));
    EXPECT_TRUE(back.view(i).source.isApprox(g.view(i).source, 1e-9));
  }
}

TEST(GeometryImport, RejectsShortLinesNamingFileAndLine) {
  test::TempDir dir;
  std::ofstream(dir / "bad.txt") << "1 2 3 4 5 6 7 8 9 10 11 12\n1 2 3\n";
  try {
    importAstraVectors(dir / "bad.txt", BeamKind::Cone, {4, 4});
    FAIL();
  } catch (const FormatError& e) {
    const std::string text = e.what();
    EXPECT_NE(text.find("bad.txt"), std::string::npos) << text;
    EXPECT_NE(text.find("line 2"), std::string::npos) << text;
  }
}

TEST(GeometryImport, RejectsTextAndSingularMatrices) {
  test::TempDir dir;
  std::ofstream(dir / "words.txt") << "1 2 3 four 5 6 7 8 9 10 11 12\n";
  EXPECT_THROW(importMatrixText(dir / "words.txt", BeamKind::Cone, {4, 4}), FormatError);
  std::ofstream(dir / "zeros.txt") << "0 0 0 0 0 0 0 0 0 0 0 1\n";
  EXPECT_THROW(importMatrixText(dir / "zeros.txt", BeamKind::Cone, {4, 4}), FormatError);
  std::ofstream(dir / "empty.txt") << "# nothing\n";
  EXPECT_THROW(importMatrixText(dir / "empty.txt", BeamKind::Cone, {4, 4}), FormatError);
}

// D7 of the hostile-input review: text imports went through std::ifstream, which blocks on a FIFO.
TEST(GeometryImport, RefusesAPipeNamingIt) {
  ::alarm(30);  // before the fix this blocked forever: fail instead of hanging
  test::TempDir dir;
  ASSERT_EQ(::mkfifo((dir / "views.txt").c_str(), 0600), 0);
  EXPECT_THROW(importAstraVectors(dir / "views.txt", BeamKind::Cone, {4, 4}), FormatError);
  EXPECT_THROW(importMatrixText(dir / "views.txt", BeamKind::Cone, {4, 4}), FormatError);
  ::alarm(0);
}

}  // namespace
}  // namespace tomowb
