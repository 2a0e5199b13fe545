#include <gtest/gtest.h>

#include <fstream>
#include <functional>
#include <iomanip>
#include <string>
#include <vector>

#include "recon/core/Error.h"
#include "recon/geometry/ScanBuilders.h"
#include "recon/io/GeometryJson.h"
#include "recon/io/ImodFiles.h"
#include "recon/io/MrcIo.h"
#include "recon/io/NpyIo.h"
#include "recon/io/ProjectionsWithGeometry.h"
#include "recon/io/RawVolumeIo.h"
#include "recon/io/VolumeFiles.h"
#include "support/TestSupport.h"

namespace tomowb::io {
namespace {

constexpr std::int64_t kCols = 8, kRows = 5, kViews = 6;

Geometry cone(std::int64_t cols = kCols, std::int64_t rows = kRows, std::int64_t views = kViews) {
  CircularConeParams p;
  p.sourceToIsocentreMm = 500;
  p.sourceToDetectorMm = 900;
  p.detector.cols = cols;
  p.detector.rows = rows;
  p.detector.pitchUMm = p.detector.pitchVMm = 1.5;
  p.anglesRad = fullScanAnglesRad(views);
  return circularConeBeam(p);
}

// A value that says where it sits: view, row and column.
float pixelValue(std::int64_t view, std::int64_t row, std::int64_t col) {
  return static_cast<float>(view * 100 + row * 10 + col);
}

// The stack as a volume a[slow][middle][fast] in our layout ([view][row][col]) or ASTRA's
// ([row][view][col]).
Volume stackVolume(bool astra, std::int64_t cols = kCols, std::int64_t rows = kRows,
                   std::int64_t views = kViews) {
  Volume v =
      Volume::centred({cols, astra ? views : rows, astra ? rows : views}, Eigen::Vector3d::Ones());
  for (std::int64_t view = 0; view < views; ++view)
    for (std::int64_t row = 0; row < rows; ++row)
      for (std::int64_t col = 0; col < cols; ++col)
        v.at(col, astra ? view : row, astra ? row : view) = pixelValue(view, row, col);
  return v;
}

void writeAstraVectors(const std::filesystem::path& path, const Geometry& g) {
  std::ofstream out(path);
  out << std::setprecision(17);
  for (const View& v : g.views()) {
    for (const auto* vec : {&v.source, &v.detectorCentre, &v.u, &v.v})
      out << vec->x() << " " << vec->y() << " " << vec->z() << " ";
    out << "\n";
  }
}

void expectPixelsInPlace(const ProjectionStack& p) {
  ASSERT_EQ(p.viewCount(), kViews);
  ASSERT_EQ(p.rows(), kRows);
  ASSERT_EQ(p.cols(), kCols);
  for (std::int64_t view = 0; view < kViews; ++view)
    for (std::int64_t row = 0; row < kRows; ++row)
      for (std::int64_t col = 0; col < kCols; ++col)
        ASSERT_EQ(p.at(view, row, col), pixelValue(view, row, col))
            << "view " << view << " row " << row << " col " << col;
}

void expectSameRays(const Geometry& a, const Geometry& b) {
  ASSERT_EQ(a.viewCount(), b.viewCount());
  ASSERT_EQ(a.detector(), b.detector());
  for (std::int64_t i = 0; i < a.viewCount(); ++i)
    EXPECT_TRUE(a.projectionMatrix(i).isApprox(b.projectionMatrix(i), 1e-9)) << "view " << i;
}

std::string errorOf(const std::function<void()>& load) {
  try {
    load();
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

TEST(ProjectionsWithGeometry, NpyInOurLayoutWithAstraVectorsLoadsInOneCall) {
  test::TempDir dir;
  writeNpy(dir / "proj.npy", stackVolume(false));
  writeAstraVectors(dir / "vectors.txt", cone());
  GeometryAttachment a;
  a.geometryFile = dir / "vectors.txt";
  const LoadedProjections loaded = loadProjectionsWithGeometry(dir / "proj.npy", a);
  EXPECT_EQ(loaded.layout, ProjectionLayout::Views);
  EXPECT_EQ(loaded.geometryFormat, GeometryFileFormat::AstraCone);
  expectPixelsInPlace(loaded.projections);
  expectSameRays(loaded.projections.geometry(), cone());
}

TEST(ProjectionsWithGeometry, AstraLayoutIsDetectedFromTheViewCountAndTransposed) {
  test::TempDir dir;
  writeNpy(dir / "proj.npy", stackVolume(true));  // numpy shape (rows, views, cols)
  writeAstraVectors(dir / "vectors.txt", cone());
  GeometryAttachment a;
  a.geometryFile = dir / "vectors.txt";
  const LoadedProjections loaded = loadProjectionsWithGeometry(dir / "proj.npy", a);
  EXPECT_EQ(loaded.layout, ProjectionLayout::Astra);
  expectPixelsInPlace(loaded.projections);
  EXPECT_NE(loaded.summary.find("ASTRA layout"), std::string::npos) << loaded.summary;
}

TEST(ProjectionsWithGeometry, AmbiguousLayoutAsksForItAndHonoursTheAnswer) {
  test::TempDir dir;
  // As many rows as views: both readings fit the vectors.
  writeNpy(dir / "proj.npy", stackVolume(true, kCols, kViews, kViews));
  writeAstraVectors(dir / "vectors.txt", cone(kCols, kViews, kViews));
  GeometryAttachment a;
  a.geometryFile = dir / "vectors.txt";
  const std::string message = errorOf([&] { loadProjectionsWithGeometry(dir / "proj.npy", a); });
  EXPECT_NE(message.find("--layout"), std::string::npos) << message;
  a.layout = ProjectionLayout::Astra;
  const ProjectionStack p = loadProjectionsWithGeometry(dir / "proj.npy", a).projections;
  EXPECT_EQ(p.at(2, 3, 4), pixelValue(2, 3, 4));
  EXPECT_EQ(p.at(3, 2, 1), pixelValue(3, 2, 1));
}

TEST(ProjectionsWithGeometry, ViewCountMismatchNamesBothFilesAndShapes) {
  test::TempDir dir;
  writeNpy(dir / "proj.npy", stackVolume(false));
  writeAstraVectors(dir / "vectors.txt", cone(kCols, kRows, kViews + 1));
  GeometryAttachment a;
  a.geometryFile = dir / "vectors.txt";
  const std::string message = errorOf([&] { loadProjectionsWithGeometry(dir / "proj.npy", a); });
  EXPECT_NE(message.find("proj.npy"), std::string::npos) << message;
  EXPECT_NE(message.find("vectors.txt"), std::string::npos) << message;
  EXPECT_NE(message.find("7 views"), std::string::npos) << message;
  EXPECT_NE(message.find("6 x 5 x 8"), std::string::npos) << message;
}

TEST(ProjectionsWithGeometry, JsonGeometryDetectorMustMatchTheImages) {
  test::TempDir dir;
  writeNpy(dir / "proj.npy", stackVolume(false));
  saveGeometry(dir / "geometry.txt", cone(kCols + 1, kRows, kViews));  // JSON, whatever the name
  GeometryAttachment a;
  a.geometryFile = dir / "geometry.txt";
  const std::string message = errorOf([&] { loadProjectionsWithGeometry(dir / "proj.npy", a); });
  EXPECT_NE(message.find("6 views of 9 x 5"), std::string::npos) << message;
  saveGeometry(dir / "geometry.txt", cone());
  const LoadedProjections loaded = loadProjectionsWithGeometry(dir / "proj.npy", a);
  EXPECT_EQ(loaded.geometryFormat, GeometryFileFormat::Json);
  expectPixelsInPlace(loaded.projections);
}

TEST(ProjectionsWithGeometry, ForcedLayoutThatDoesNotFitIsRefused) {
  test::TempDir dir;
  writeNpy(dir / "proj.npy", stackVolume(false));
  writeAstraVectors(dir / "vectors.txt", cone());
  GeometryAttachment a;
  a.geometryFile = dir / "vectors.txt";
  a.layout = ProjectionLayout::Astra;
  const std::string message = errorOf([&] { loadProjectionsWithGeometry(dir / "proj.npy", a); });
  EXPECT_NE(message.find("--layout astra"), std::string::npos) << message;
}

TEST(ProjectionsWithGeometry, EveryStackFormatTakesAGeometry) {
  test::TempDir dir;
  saveGeometry(dir / "geometry.json", cone());
  std::vector<std::string> names = {"p.npy", "p.mhd", "p.mha", "p.mrc", "p.json"};
#if TOMOWB_HAVE_TIFF
  names.push_back("p.tif");
#endif
  for (const std::string& name : names) {
    SCOPED_TRACE(name);
    writeVolume(dir / name, stackVolume(false));
    GeometryAttachment a;
    a.geometryFile = dir / "geometry.json";
    const LoadedProjections loaded = loadProjectionsWithGeometry(dir / name, a);
    expectPixelsInPlace(loaded.projections);
    expectSameRays(loaded.projections.geometry(), cone());
  }
}

TEST(ProjectionsWithGeometry, MatricesAndTiltAnglesAttachToAStack) {
  test::TempDir dir;
  writeNpy(dir / "proj.npy", stackVolume(false));
  {
    std::ofstream out(dir / "matrices.txt");
    out << std::setprecision(17);
    const Geometry g = cone();
    for (std::int64_t i = 0; i < g.viewCount(); ++i) {
      const ProjectionMatrix p = g.projectionMatrix(i);
      for (int r = 0; r < 3; ++r)
        out << p(r, 0) << " " << p(r, 1) << " " << p(r, 2) << " " << p(r, 3) << "\n";
    }
  }
  GeometryAttachment a;
  a.geometryFile = dir / "matrices.txt";
  a.matrixPixelPitchMm = 1.5;
  LoadedProjections loaded = loadProjectionsWithGeometry(dir / "proj.npy", a);
  EXPECT_EQ(loaded.geometryFormat, GeometryFileFormat::Matrices);
  expectSameRays(loaded.projections.geometry(), cone());

  writeTiltAnglesDeg(dir / "angles.tlt", {-50, -30, -10, 10, 30, 50});
  a.geometryFile = dir / "angles.tlt";
  loaded = loadProjectionsWithGeometry(dir / "proj.npy", a);
  EXPECT_EQ(loaded.geometryFormat, GeometryFileFormat::ImodTilts);
  EXPECT_EQ(loaded.projections.geometry().beam(), BeamKind::Parallel);
  expectPixelsInPlace(loaded.projections);
  ASSERT_FALSE(loaded.warnings.empty());  // an .npy has no pixel size
  EXPECT_NE(loaded.warnings.front().find("pixel size unknown"), std::string::npos);
}

TEST(ProjectionsWithGeometry, GivenFormatOverridesRecognition) {
  test::TempDir dir;
  writeNpy(dir / "proj.npy", stackVolume(false));
  writeAstraVectors(dir / "vectors.txt", cone());
  GeometryAttachment a;
  a.geometryFile = dir / "vectors.txt";
  a.geometryFormat = GeometryFileFormat::Matrices;  // wrong on purpose: read as matrices
  const LoadedProjections loaded = [&] {
    try {
      return loadProjectionsWithGeometry(dir / "proj.npy", a);
    } catch (const FormatError&) {
      return LoadedProjections{};  // vectors read as matrices may be singular: also fine
    }
  }();
  EXPECT_NE(loaded.geometryFormat, GeometryFileFormat::AstraCone);
}

TEST(ProjectionsWithGeometry, StackWithoutGeometryIsRefusedNamingTheOption) {
  test::TempDir dir;
  writeNpy(dir / "proj.npy", stackVolume(false));
  const std::string message = errorOf([&] { loadProjectionsWithGeometry(dir / "proj.npy", {}); });
  EXPECT_NE(message.find("--geometry"), std::string::npos) << message;
  EXPECT_NE(message.find("proj.npy"), std::string::npos) << message;
}

TEST(ProjectionsWithGeometry, GeometryReplacesThatOfAProjectionSidecar) {
  test::TempDir dir;
  CircularConeParams p;
  p.sourceToIsocentreMm = 300;
  p.sourceToDetectorMm = 600;
  p.detector.cols = kCols;
  p.detector.rows = kRows;
  p.anglesRad = fullScanAnglesRad(kViews);
  ProjectionStack stack(circularConeBeam(p));
  for (std::int64_t v = 0; v < kViews; ++v)
    for (std::int64_t r = 0; r < kRows; ++r)
      for (std::int64_t c = 0; c < kCols; ++c) stack.at(v, r, c) = pixelValue(v, r, c);
  writeProjections(dir / "scan.json", stack);
  writeAstraVectors(dir / "vectors.txt", cone());
  GeometryAttachment a;
  a.geometryFile = dir / "vectors.txt";
  const LoadedProjections loaded = loadProjectionsWithGeometry(dir / "scan.json", a);
  expectPixelsInPlace(loaded.projections);
  expectSameRays(loaded.projections.geometry(), cone());
  ASSERT_EQ(loaded.warnings.size(), 1u);
  EXPECT_NE(loaded.warnings.front().find("replaced"), std::string::npos);
}

TEST(ProjectionsWithGeometry, MrcWithTiltAnglesBesideItIsATiltSeriesWhateverItsSpaceGroup) {
  test::TempDir dir;
  writeMrcVolume(dir / "series.mrc", stackVolume(false));  // ispg 1, as mrcfile writes stacks
  EXPECT_EQ(readMrcHeader(dir / "series.mrc").spaceGroup, 1);
  EXPECT_FALSE(carriesGeometry(dir / "series.mrc"));
  EXPECT_EQ(describeFile(dir / "series.mrc").kind, FileKind::Volume);
  writeTiltAnglesDeg(dir / "series.tlt", {-50, -30, -10, 10, 30, 50});
  EXPECT_TRUE(carriesGeometry(dir / "series.mrc"));
  EXPECT_EQ(describeFile(dir / "series.mrc").kind, FileKind::Projections);
  const LoadedProjections loaded = loadProjectionsWithGeometry(dir / "series.mrc", {});
  expectPixelsInPlace(loaded.projections);
  // The same angles given explicitly, from a file elsewhere, go through the tilt-series loader.
  writeTiltAnglesDeg(dir / "other.tlt", {-50, -30, -10, 10, 30, 50});
  GeometryAttachment a;
  a.geometryFile = dir / "other.tlt";
  expectSameRays(loadProjectionsWithGeometry(dir / "series.mrc", a).projections.geometry(),
                 loaded.projections.geometry());
}

TEST(ProjectionsWithGeometry, LayoutNamesRoundTripAndBadOnesNameTheOption) {
  for (ProjectionLayout l :
       {ProjectionLayout::Auto, ProjectionLayout::Views, ProjectionLayout::Astra})
    EXPECT_EQ(projectionLayoutFromName(toString(l), "--layout"), l);
  const std::string message = errorOf([] { projectionLayoutFromName("zyx", "--layout"); });
  EXPECT_NE(message.find("--layout"), std::string::npos) << message;
}

}  // namespace
}  // namespace tomowb::io
