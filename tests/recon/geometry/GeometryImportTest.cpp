#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <iomanip>
#include <vector>

#include "recon/core/Error.h"
#include "recon/geometry/ScanBuilders.h"
#include "recon/io/GeometryImport.h"
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

void writeRows(const std::filesystem::path& path, const std::vector<std::array<double, 12>>& rows,
               int perLine = 12) {
  std::ofstream out(path);
  out << std::setprecision(17);
  for (const auto& r : rows)
    for (int i = 0; i < 12; ++i)
      out << r[static_cast<std::size_t>(i)] << ((i + 1) % perLine ? " " : "\n");
}

std::vector<std::array<double, 12>> astraRows(const Geometry& g) {
  std::vector<std::array<double, 12>> rows;
  for (const View& v : g.views()) {
    const Eigen::Vector3d first = g.beam() == BeamKind::Cone ? v.source : v.rayDirection;
    rows.push_back({first.x(), first.y(), first.z(), v.detectorCentre.x(), v.detectorCentre.y(),
                    v.detectorCentre.z(), v.u.x(), v.u.y(), v.u.z(), v.v.x(), v.v.y(), v.v.z()});
  }
  return rows;
}

std::vector<std::array<double, 12>> matrixRows(const Geometry& g) {
  std::vector<std::array<double, 12>> rows;
  for (std::int64_t i = 0; i < g.viewCount(); ++i) {
    const ProjectionMatrix p = g.projectionMatrix(i);
    std::array<double, 12> r{};
    for (int k = 0; k < 12; ++k) r[static_cast<std::size_t>(k)] = p(k / 4, k % 4);
    rows.push_back(r);
  }
  return rows;
}

TEST(GeometryImport, RecognisesEachFormatByContentNotName) {
  test::TempDir dir;
  const Geometry g = sampleCone();
  writeRows(dir / "a.json", astraRows(g));  // the name lies: content decides
  EXPECT_EQ(detectGeometryFileFormat(dir / "a.json").format, GeometryFileFormat::AstraCone);

  ParallelBeamParams par;
  par.detector.cols = 40;
  par.detector.rows = 30;
  par.detector.pitchUMm = par.detector.pitchVMm = 0.5;
  par.anglesRad = arcAnglesRad(5, 3.0);
  writeRows(dir / "par.txt", astraRows(parallelBeam(par)));
  EXPECT_EQ(detectGeometryFileFormat(dir / "par.txt").format, GeometryFileFormat::AstraParallel);

  writeRows(dir / "m12.txt", matrixRows(g));
  EXPECT_EQ(detectGeometryFileFormat(dir / "m12.txt").format, GeometryFileFormat::Matrices);
  writeRows(dir / "m4.txt", matrixRows(g), 4);
  EXPECT_EQ(detectGeometryFileFormat(dir / "m4.txt").format, GeometryFileFormat::Matrices);

  std::ofstream(dir / "angles.dat") << "-60\n-58.5\n# comment\n0\n60\n";
  EXPECT_EQ(detectGeometryFileFormat(dir / "angles.dat").format, GeometryFileFormat::ImodTilts);

  std::ofstream(dir / "geometry.vec") << "  \n {\"format\": \"tomowb-geometry\"}";
  EXPECT_EQ(detectGeometryFileFormat(dir / "geometry.vec").format, GeometryFileFormat::Json);
}

TEST(GeometryImport, UnrecognisedTextNamesTheFileAndTheFormatOption) {
  test::TempDir dir;
  std::ofstream(dir / "five.txt") << "1 2 3 4 5\n1 2 3 4 5\n";
  std::ofstream(dir / "mixed.txt") << "1 2 3 4 5 6 7 8 9 10 11 12\n1\n";
  std::ofstream(dir / "words.txt") << "source 1 2 3\n";
  for (const char* name : {"five.txt", "mixed.txt", "words.txt"}) {
    try {
      detectGeometryFileFormat(dir / name);
      ADD_FAILURE() << name;
    } catch (const FormatError& e) {
      const std::string text = e.what();
      EXPECT_NE(text.find(name), std::string::npos) << text;
      EXPECT_NE(text.find("--geometry-format"), std::string::npos) << text;
    }
  }
  EXPECT_EQ(geometryFileFormatFromName("astra-parallel", "--geometry-format"),
            GeometryFileFormat::AstraParallel);
  EXPECT_THROW(geometryFileFormatFromName("astra", "--geometry-format"), ParameterError);
}

TEST(GeometryImport, MatricesAsThreeLinesOfFourGiveTheSameProjections) {
  test::TempDir dir;
  const Geometry g = sampleCone();
  writeRows(dir / "m4.txt", matrixRows(g), 4);
  const Geometry back = importMatrixText(dir / "m4.txt", BeamKind::Cone, g.detector(), 0.8);
  for (std::int64_t i = 0; i < g.viewCount(); ++i)
    EXPECT_TRUE(back.projectionMatrix(i).isApprox(g.projectionMatrix(i), 1e-9));
  EXPECT_EQ(beamOfMatrices(matrixRows(g)), BeamKind::Cone);
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
