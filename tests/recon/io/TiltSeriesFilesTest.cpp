// Tilt series from files: companion files, tilt angles from .tlt or the SerialEM header, counts
// that must match, the .xf folded into the views (checked point by point against IMOD's
// definition, and by reconstructing an off-centre sphere with FBP), x-axis tilts and pixel size.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <Eigen/Geometry>
#include <Eigen/LU>
#include <cstring>
#include <numbers>
#include <random>

#include "recon/core/Error.h"
#include "recon/fdk/Fdk.h"
#include "recon/geometry/ScanBuilders.h"
#include "recon/io/MrcIo.h"
#include "recon/io/TiffIo.h"
#include "recon/io/TiltSeriesFiles.h"
#include "recon/io/VolumeFiles.h"
#include "recon/phantom/AnalyticProjector.h"
#include "recon/phantom/Phantom.h"
#include "support/TestSupport.h"
#include "tests/recon/io/IoTestSupport.h"

namespace tomowb::io {
namespace {

constexpr double kDeg = std::numbers::pi / 180.0;

std::vector<double> tiltsRad(double firstDeg, double lastDeg, double stepDeg) {
  std::vector<double> tilts;
  for (double t = firstDeg; t <= lastDeg + 1e-9; t += stepDeg) tilts.push_back(t * kDeg);
  return tilts;
}

TiltSeriesParams smallSeries(std::int64_t cols, std::int64_t rows, double pixelMm) {
  TiltSeriesParams p;
  p.cols = cols;
  p.rows = rows;
  p.pixelSizeMm = pixelMm;
  p.tiltAnglesRad = tiltsRad(-60, 60, 30);
  return p;
}

ProjectionStack numberedStack(const Geometry& geometry) {
  ProjectionStack stack(geometry);
  for (std::size_t i = 0; i < stack.pixels().size(); ++i)
    stack.pixels()[i] = static_cast<float>(i % 97) - 40.0f;
  return stack;
}

void expectSameGeometry(const Geometry& a, const Geometry& b, double tolerance) {
  ASSERT_EQ(a.viewCount(), b.viewCount());
  ASSERT_EQ(a.detector(), b.detector());
  EXPECT_EQ(a.beam(), b.beam());
  for (std::int64_t k = 0; k < a.viewCount(); ++k) {
    const View &va = a.view(k), &vb = b.view(k);
    EXPECT_LT((va.rayDirection - vb.rayDirection).norm(), tolerance) << k;
    EXPECT_LT((va.detectorCentre - vb.detectorCentre).norm(), tolerance) << k;
    EXPECT_LT((va.u - vb.u).norm(), tolerance) << k;
    EXPECT_LT((va.v - vb.v).norm(), tolerance) << k;
  }
}

Eigen::Matrix2d rotation(double rad) {
  Eigen::Matrix2d r;
  r << std::cos(rad), -std::sin(rad), std::sin(rad), std::cos(rad);
  return r;
}

TEST(TiltSeriesFiles, FindsCompanionFilesBesideTheStack) {
  test::TempDir dir;
  EXPECT_TRUE(findCompanionFiles(dir / "a.st").tiltAngles.empty());
  test::writeBytes(dir / "a.rawtlt", "0\n");
  EXPECT_EQ(findCompanionFiles(dir / "a.st").tiltAngles, dir / "a.rawtlt");
  test::writeBytes(dir / "a.tlt", "0\n");
  test::writeBytes(dir / "a.xf", "1 0 0 1 0 0\n");
  test::writeBytes(dir / "a.xtilt", "0\n");
  const TiltSeriesSources s = findCompanionFiles(dir / "a.st");
  EXPECT_EQ(s.stack, dir / "a.st");
  EXPECT_EQ(s.tiltAngles, dir / "a.tlt");
  EXPECT_EQ(s.alignment, dir / "a.xf");
  EXPECT_EQ(s.xAxisTilts, dir / "a.xtilt");
  EXPECT_TRUE(findCompanionFiles(dir / "b.ali").alignment.empty());
}

TEST(TiltSeriesFiles, WrittenSeriesLoadsBackWithItsTiltSeriesGeometry) {
  test::TempDir dir;
  const TiltSeriesParams p = smallSeries(7, 4, 2.5e-6);  // 25 A pixels
  const ProjectionStack stack = numberedStack(tiltSeries(p));
  writeTiltSeries(dir / "s.st", stack, p.tiltAnglesRad);
  EXPECT_TRUE(std::filesystem::exists(dir / "s.tlt"));
  const LoadedTiltSeries loaded = loadTiltSeries(findCompanionFiles(dir / "s.st"), {});
  EXPECT_TRUE(loaded.warnings.empty()) << loaded.warnings.front();
  expectSameGeometry(loaded.projections.geometry(), stack.geometry(), 1e-12);
  EXPECT_TRUE(std::equal(stack.pixels().begin(), stack.pixels().end(),
                         loaded.projections.pixels().begin()));
  // The facade reads an MRC stack as a tilt series with its companions.
  const ProjectionStack viaFacade = readProjections(dir / "s.st");
  expectSameGeometry(viaFacade.geometry(), stack.geometry(), 1e-12);
  const FileSummary summary = describeFile(dir / "s.st");
  EXPECT_EQ(summary.kind, FileKind::Projections);
  EXPECT_NE(summary.toText().find("s.tlt"), std::string::npos) << summary.toText();
}

TEST(TiltSeriesFiles, TiltAnglesComeFromTheSerialEmHeaderWithoutATltFile) {
  test::TempDir dir;
  const TiltSeriesParams p = smallSeries(3, 2, 1e-6);
  MrcWriteOptions options;
  options.tiltAnglesDeg = {-60, -30, 0, 30, 60};
  writeMrcStack(dir / "s.mrc", numberedStack(tiltSeries(p)), options);
  const LoadedTiltSeries loaded = loadTiltSeries(findCompanionFiles(dir / "s.mrc"), {});
  expectSameGeometry(loaded.projections.geometry(), tiltSeries(p), 1e-12);
  // A .tlt beside the stack wins over the header.
  writeTiltAnglesDeg(dir / "s.tlt", {-50, -25, 0, 25, 50});
  const Geometry fromTlt =
      loadTiltSeries(findCompanionFiles(dir / "s.mrc"), {}).projections.geometry();
  EXPECT_NEAR(std::atan2(fromTlt.view(0).rayDirection.x(), -fromTlt.view(0).rayDirection.y()),
              -50 * kDeg, 1e-12);
}

TEST(TiltSeriesFiles, NamesTheFilesLookedForWhenThereAreNoTiltAngles) {
  test::TempDir dir;
  writeMrcStack(dir / "s.st", numberedStack(tiltSeries(smallSeries(3, 2, 1e-6))));
  TOMOWB_EXPECT_FORMAT_ERROR(loadTiltSeries(findCompanionFiles(dir / "s.st"), {}), dir / "s.st",
                             (dir / "s.rawtlt").string());
  TOMOWB_EXPECT_FORMAT_ERROR(readProjections(dir / "s.st"), dir / "s.st", "s.tlt");
}

TEST(TiltSeriesFiles, CountsThatDoNotMatchTheStackNameBothFiles) {
  test::TempDir dir;
  const TiltSeriesParams p = smallSeries(3, 2, 1e-6);  // 5 views
  writeTiltSeries(dir / "s.st", numberedStack(tiltSeries(p)), p.tiltAnglesRad);
  writeTiltAnglesDeg(dir / "s.tlt", {1, 2, 3, 4});
  TOMOWB_EXPECT_FORMAT_ERROR(loadTiltSeries(findCompanionFiles(dir / "s.st"), {}), dir / "s.tlt",
                             (dir / "s.st").string() + " has 5 views");
  writeTiltAnglesDeg(dir / "s.tlt", {1, 2, 3, 4, 5});
  writeXf(dir / "s.xf", std::vector<XfTransform>(6));
  TOMOWB_EXPECT_FORMAT_ERROR(loadTiltSeries(findCompanionFiles(dir / "s.st"), {}), dir / "s.xf",
                             "has 6 entries");
  std::filesystem::remove(dir / "s.xf");
  test::writeBytes(dir / "s.xtilt", "0\n");
  TOMOWB_EXPECT_FORMAT_ERROR(loadTiltSeries(findCompanionFiles(dir / "s.st"), {}), dir / "s.xtilt",
                             "has 1 entries");
}

// The .xf definition, point by point: a world point that the aligned view sees at pixel p'
// (about IMOD's centre, col - nx/2, row - ny/2) is seen by the raw view at p = A^-1 (p' - D).
TEST(TiltSeriesFiles, AlignmentPutsEveryWorldPointWhereTheXfDefinitionSays) {
  std::mt19937_64 random(test::randomSeed());
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  for (auto [cols, rows] : {std::pair{64, 48}, std::pair{63, 47}}) {
    TiltSeriesParams p = smallSeries(cols, rows, 0.5);
    p.tiltAxisAngleRad = 3 * kDeg;
    const Geometry aligned = tiltSeries(p);
    std::vector<XfTransform> xf(static_cast<std::size_t>(aligned.viewCount()));
    for (XfTransform& t : xf) {
      Eigen::Matrix2d skew;
      skew << 1.0, 0.03 * unit(random), 0.0, 1.0 + 0.02 * unit(random);
      t.a = (1 + 0.05 * unit(random)) * rotation(0.3 * unit(random)) * skew;
      t.shiftPixels = {8 * unit(random), 8 * unit(random)};
    }
    Geometry raw = aligned;
    applyAlignment(raw, xf);
    const Eigen::Vector2d imodCentre(cols / 2.0, rows / 2.0);
    for (std::int64_t k = 0; k < aligned.viewCount(); ++k) {
      const XfTransform& t = xf[static_cast<std::size_t>(k)];
      for (int trial = 0; trial < 20; ++trial) {
        const Eigen::Vector4d world(10 * unit(random), 10 * unit(random), 10 * unit(random), 1);
        const Eigen::Vector3d seenAligned = aligned.projectionMatrix(k) * world;
        const Eigen::Vector3d seenRaw = raw.projectionMatrix(k) * world;
        const Eigen::Vector2d pAligned = seenAligned.head<2>() - imodCentre;
        const Eigen::Vector2d expected = t.a.inverse() * (pAligned - t.shiftPixels) + imodCentre;
        EXPECT_LT((seenRaw.head<2>() - expected).norm(), 1e-9) << "view " << k;
      }
    }
  }
}

TEST(TiltSeriesFiles, XfWithMagnificationOrSkewBeyondOnePercentIsReported) {
  test::TempDir dir;
  const TiltSeriesParams p = smallSeries(3, 2, 1e-6);
  writeTiltSeries(dir / "s.st", numberedStack(tiltSeries(p)), p.tiltAnglesRad);
  std::vector<XfTransform> xf(5);
  for (XfTransform& t : xf) t.a = rotation(0.2);
  writeXf(dir / "s.xf", xf);
  EXPECT_TRUE(loadTiltSeries(findCompanionFiles(dir / "s.st"), {}).warnings.empty());
  xf[3].a = 1.03 * rotation(0.2);
  xf[1].a << 1.0, 0.05, 0.0, 1.0;
  writeXf(dir / "s.xf", xf);
  const std::vector<std::string> warnings =
      loadTiltSeries(findCompanionFiles(dir / "s.st"), {}).warnings;
  std::string all;
  for (const auto& w : warnings) all += w + "\n";
  EXPECT_NE(all.find("1 of 5 views have a magnification beyond 1% (worst: view 3, 1.03"),
            std::string::npos)
      << all;
  EXPECT_NE(all.find("a skew beyond 1% (worst: view 1"), std::string::npos) << all;
}

TEST(TiltSeriesFiles, XAxisTiltsRotateEveryViewAboutWorldX) {
  test::TempDir dir;
  const TiltSeriesParams p = smallSeries(3, 2, 1e-6);
  writeTiltSeries(dir / "s.st", numberedStack(tiltSeries(p)), p.tiltAnglesRad);
  writeTiltAnglesDeg(dir / "s.xtilt", {0, 1, 2, 3, 4});
  TiltSeriesOptions options;
  options.xAxisTiltRad = 0.5 * kDeg;
  const Geometry g =
      loadTiltSeries(findCompanionFiles(dir / "s.st"), options).projections.geometry();
  const Geometry plain = tiltSeries(p);
  for (std::int64_t k = 0; k < 5; ++k) {
    const Eigen::Matrix3d r =
        Eigen::AngleAxisd((0.5 + static_cast<double>(k)) * kDeg, Eigen::Vector3d::UnitX())
            .toRotationMatrix();
    EXPECT_LT((g.view(k).rayDirection - r * plain.view(k).rayDirection).norm(), 1e-12);
    EXPECT_LT((g.view(k).v - r * plain.view(k).v).norm(), 1e-18);
    EXPECT_LT((g.view(k).u - r * plain.view(k).u).norm(), 1e-18);
  }
}

TEST(TiltSeriesFiles, PixelSizeComesFromOptionsElseTheHeaderElseOneMillimetreWithAWarning) {
  test::TempDir dir;
  const TiltSeriesParams p = smallSeries(3, 2, 1e-6);
  writeTiltSeries(dir / "s.st", numberedStack(tiltSeries(p)), p.tiltAnglesRad);
  TiltSeriesOptions options;
  EXPECT_NEAR(loadTiltSeries(findCompanionFiles(dir / "s.st"), options)
                  .projections.geometry()
                  .view(0)
                  .u.norm(),
              1e-6, 1e-12);
  options.pixelSizeMm = 2e-6;
  const LoadedTiltSeries given = loadTiltSeries(findCompanionFiles(dir / "s.st"), options);
  EXPECT_NEAR(given.projections.geometry().view(0).u.norm(), 2e-6, 1e-15);
  ASSERT_EQ(given.warnings.size(), 1u);  // the header says otherwise
  // Cell size 0 in the header: 1 mm per pixel and a warning.
  std::string bytes = test::readBytes(dir / "s.st");
  std::memset(bytes.data() + 40, 0, 12);
  test::writeBytes(dir / "s.st", bytes);
  const LoadedTiltSeries unknown = loadTiltSeries(findCompanionFiles(dir / "s.st"), {});
  EXPECT_NEAR(unknown.projections.geometry().view(0).u.norm(), 1.0, 1e-12);
  std::string all;
  for (const auto& w : unknown.warnings) all += w + "\n";
  EXPECT_NE(all.find("pixel size unknown"), std::string::npos) << all;
  options.pixelSizeMm = -1;
  EXPECT_THROW(loadTiltSeries(findCompanionFiles(dir / "s.st"), options), ParameterError);
}

TEST(TiltSeriesFiles, RefusesStacksOfUnknownType) {
  EXPECT_THROW(loadTiltSeries({"a.npy", "", "", ""}, {}), ParameterError);
  EXPECT_THROW(loadTiltSeries({}, {}), ParameterError);
}

#if TOMOWB_HAVE_TIFF
TEST(TiltSeriesFiles, LoadsATiffStackWithItsTlt) {
  test::TempDir dir;
  const TiltSeriesParams p = smallSeries(5, 3, 1.0);
  const ProjectionStack stack = numberedStack(tiltSeries(p));
  writeTiffProjections(dir / "t.tif", stack);
  writeTiltAnglesDeg(dir / "t.tlt", {-60, -30, 0, 30, 60});
  TiltSeriesOptions options;
  options.pixelSizeMm = 1.0;
  const LoadedTiltSeries loaded = loadTiltSeries(findCompanionFiles(dir / "t.tif"), options);
  expectSameGeometry(loaded.projections.geometry(), stack.geometry(), 1e-12);
  EXPECT_TRUE(std::equal(stack.pixels().begin(), stack.pixels().end(),
                         loaded.projections.pixels().begin()));
}
#endif

// Centre of mass of the bright part (above half the maximum) of a volume, in mm.
Eigen::Vector3d brightCentreOfMass(const Volume& v) {
  const float peak = *std::max_element(v.voxels().begin(), v.voxels().end());
  Eigen::Vector3d sum = Eigen::Vector3d::Zero();
  double weight = 0;
  for (std::int64_t z = 0; z < v.nz(); ++z)
    for (std::int64_t y = 0; y < v.ny(); ++y)
      for (std::int64_t x = 0; x < v.nx(); ++x) {
        const double value = v.at(x, y, z);
        if (value < 0.5 * peak) continue;
        sum += value * v.worldPosition(double(x), double(y), double(z));
        weight += value;
      }
  return sum / weight;
}

// Projections of an off-centre sphere on the raw geometry (the ideal one with a known .xf
// applied), written as stack + .tlt + .xf, loaded and reconstructed with parallel-beam FBP: the
// sphere must come back where it is; without the .xf it does not.
TEST(TiltSeriesFiles, FbpOfALoadedSeriesPutsAnOffCentreSphereWhereItIs) {
  test::TempDir dir;
  const Eigen::Vector3d centre(7.0, -4.0, 5.0);
  const phantom::Phantom sphere("sphere", {phantom::Ellipsoid::sphere(centre, 5.0, 1.0)});
  TiltSeriesParams p;
  p.cols = p.rows = 64;
  p.pixelSizeMm = 1.0;
  p.tiltAnglesRad = tiltsRad(-60, 60, 2);
  const Geometry aligned = tiltSeries(p);
  std::vector<XfTransform> xf(p.tiltAnglesRad.size());
  for (std::size_t k = 0; k < xf.size(); ++k) {
    // Rotation only (so that |u| stays the pixel size the stack's header gets) and a shift that
    // drifts from view to view, as a real alignment does.
    xf[k].a = rotation((2.0 + 0.05 * static_cast<double>(k)) * kDeg);
    xf[k].shiftPixels = {5.0 - 0.1 * static_cast<double>(k), -3.0 + 0.07 * static_cast<double>(k)};
  }
  Geometry raw = aligned;
  applyAlignment(raw, xf);
  phantom::AnalyticProjectionOptions projection;
  projection.supersample = 2;
  writeTiltSeries(dir / "s.st", phantom::projectPhantom(sphere, raw, projection), p.tiltAnglesRad);
  writeXf(dir / "s.xf", xf);

  const TiltSeriesSources sources = findCompanionFiles(dir / "s.st");
  const LoadedTiltSeries loaded = loadTiltSeries(sources, {});
  EXPECT_TRUE(loaded.warnings.empty());
  expectSameGeometry(loaded.projections.geometry(), raw, 1e-5);  // .xf keeps 7 and 4 decimals

  fdk::FdkParams params;
  params.volume = fdk::VolumeGrid::centred({48, 48, 48}, Eigen::Vector3d::Ones());
  JobContext context;
  const Eigen::Vector3d found =
      brightCentreOfMass(fdk::reconstructFdk(loaded.projections, params, context));
  for (int i = 0; i < 3; ++i) EXPECT_NEAR(found[i], centre[i], 0.5) << "axis " << i;

  TiltSeriesSources withoutXf = sources;
  withoutXf.alignment.clear();
  const Eigen::Vector3d misplaced = brightCentreOfMass(
      fdk::reconstructFdk(loadTiltSeries(withoutXf, {}).projections, params, context));
  EXPECT_GT((misplaced - centre).norm(), 2.0) << misplaced.transpose();
  // Along the tilt axis every raw view is shifted by about DY rows: so is the sphere.
  EXPECT_NEAR(misplaced.z() - centre.z(), -(-3.0 + 0.07 * 30), 1.0) << misplaced.transpose();
}

// D21 of the hostile-input review: a companion that is a FIFO or a link to /dev/zero was ignored,
// and the stack header's angles used without a word.
TEST(TiltSeriesFiles, RefusesACompanionThatIsAPipeOrADeviceNamingIt) {
  test::TempDir dir;
  MrcWriteOptions options;
  options.tiltAnglesDeg = {-60, -30, 0, 30, 60};
  writeMrcStack(dir / "s.mrc", numberedStack(tiltSeries(smallSeries(3, 2, 1e-6))), options);
  ASSERT_EQ(::mkfifo((dir / "s.tlt").c_str(), 0600), 0);
  EXPECT_EQ(findCompanionFiles(dir / "s.mrc").tiltAngles, dir / "s.tlt");
  TOMOWB_EXPECT_FORMAT_ERROR(loadTiltSeries(findCompanionFiles(dir / "s.mrc"), {}), dir / "s.tlt",
                             "not a regular file");
  std::filesystem::remove(dir / "s.tlt");
  std::filesystem::create_symlink("/dev/zero", dir / "s.xf");
  TOMOWB_EXPECT_FORMAT_ERROR(loadTiltSeries(findCompanionFiles(dir / "s.mrc"), {}), dir / "s.xf",
                             "not a regular file");
}

}  // namespace
}  // namespace tomowb::io
