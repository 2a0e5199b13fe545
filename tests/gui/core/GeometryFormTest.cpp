// GeometryForm: the editor's form builds exactly the builders' geometry, reads builder-made
// geometries back, and survives a JSON export/import round trip; errors name the field.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <numbers>

#include "gui/core/GeometryForm.h"
#include "recon/core/Error.h"
#include "recon/io/GeometryJson.h"
#include "support/TestSupport.h"

namespace tomowb::gui {
namespace {

constexpr double kDeg = std::numbers::pi / 180.0;

GeometryForm coneForm() {
  GeometryForm f;
  f.sourceToIsocentreMm = 600;
  f.sourceToDetectorMm = 1100;
  f.viewCount = 90;
  f.startAngleDeg = 10;
  f.cols = 120;
  f.rows = 80;
  f.pitchUMm = 1.5;
  f.pitchVMm = 1.25;
  f.offsetUMm = 4;
  f.offsetVMm = -2;
  return f;
}

TEST(GeometryForm, CircularFormBuildsTheBuildersGeometry) {
  GeometryForm f = coneForm();
  f.tiltDeg = 2;
  f.slantDeg = -1;
  f.inPlaneRotationDeg = 0.5;
  f.skewDeg = 0.25;
  CircularConeParams c;
  c.sourceToIsocentreMm = 600;
  c.sourceToDetectorMm = 1100;
  c.detector = {.cols = 120,
                .rows = 80,
                .pitchUMm = 1.5,
                .pitchVMm = 1.25,
                .offsetUMm = 4,
                .offsetVMm = -2,
                .tiltRad = 2 * kDeg,
                .slantRad = -1 * kDeg,
                .inPlaneRotationRad = 0.5 * kDeg,
                .skewRad = 0.25 * kDeg};
  c.anglesRad = fullScanAnglesRad(90, 10 * kDeg);
  EXPECT_EQ(buildGeometry(f), circularConeBeam(c));
}

TEST(GeometryForm, ShortScanAndClockwiseFollowTheBuilders) {
  GeometryForm f = coneForm();
  f.scanType = ScanType::ShortScan;
  f.shortScanExtraDeg = 3;
  CircularConeParams c = circularConeParams(coneForm());
  c.anglesRad = shortScanAnglesRad(c, 90, 10 * kDeg, 3 * kDeg);
  EXPECT_EQ(buildGeometry(f), circularConeBeam(c));

  f.clockwise = true;
  const Geometry cw = buildGeometry(f);
  // Mirrored about the start angle: view i sits at start - (angle_i - start).
  for (std::int64_t i = 0; i < cw.viewCount(); ++i) {
    const double a = 10 * kDeg - (c.anglesRad[std::size_t(i)] - 10 * kDeg);
    EXPECT_NEAR(cw.view(i).source.x(), 600 * std::cos(a), 1e-9);
    EXPECT_NEAR(cw.view(i).source.y(), 600 * std::sin(a), 1e-9);
  }
}

TEST(GeometryForm, HelicalParallelAndTiltSeriesFollowTheBuilders) {
  GeometryForm h = coneForm();
  h.scanType = ScanType::HelicalCone;
  h.turns = 2;
  h.viewCount = 180;
  h.helicalPitch = 0.8;
  h.startZMm = -30;
  HelicalConeParams hp;
  hp.circular = circularConeParams(coneForm());
  hp.circular.anglesRad.clear();
  for (int i = 0; i < 180; ++i)
    hp.circular.anglesRad.push_back(10 * kDeg + 4 * std::numbers::pi * i / 180.0);
  hp.pitch = 0.8;
  hp.startZMm = -30;
  EXPECT_LT(maxGeometryDifference(buildGeometry(h), helicalConeBeam(hp)), 1e-9);

  GeometryForm p = coneForm();
  p.scanType = ScanType::Parallel;
  p.rangeDeg = 180;
  ParallelBeamParams pp;
  pp.detector = detectorParams(coneForm());
  for (int i = 0; i < 90; ++i) pp.anglesRad.push_back(10 * kDeg + std::numbers::pi * i / 90.0);
  EXPECT_LT(maxGeometryDifference(buildGeometry(p), parallelBeam(pp)), 1e-12);

  GeometryForm t;
  t.scanType = ScanType::TiltSeries;
  t.cols = 200;
  t.rows = 180;
  t.pixelSizeMm = 0.002;
  t.firstTiltDeg = -60;
  t.lastTiltDeg = 60;
  t.tiltStepDeg = 3;
  t.tiltAxisAngleDeg = 85;
  t.tiltAxisShiftPixels = -4;
  TiltSeriesParams tp{.cols = 200,
                      .rows = 180,
                      .pixelSizeMm = 0.002,
                      .tiltAnglesRad = {},
                      .tiltAxisAngleRad = 85 * kDeg,
                      .tiltAxisShiftPixels = -4};
  for (int i = 0; i <= 40; ++i) tp.tiltAnglesRad.push_back((-60 + 3.0 * i) * kDeg);
  const Geometry g = buildGeometry(t);
  EXPECT_EQ(g.viewCount(), 41);
  EXPECT_EQ(g, tiltSeries(tp));
}

TEST(GeometryForm, RefusesBadValuesNamingTheField) {
  GeometryForm f = coneForm();
  f.sourceToDetectorMm = 500;  // below SOD
  try {
    (void)buildGeometry(f);
    FAIL();
  } catch (const ParameterError& e) {
    EXPECT_NE(std::string(e.what()).find("sourceToDetectorMm"), std::string::npos) << e.what();
  }
  f = coneForm();
  f.scanType = ScanType::ShortScan;
  f.viewCount = 1;
  EXPECT_THROW((void)buildGeometry(f), ParameterError);
  f.scanType = ScanType::PerView;
  EXPECT_THROW((void)buildGeometry(f), ParameterError);
}

TEST(GeometryForm, RecognisesBuilderMadeGeometries) {
  std::vector<GeometryForm> forms;
  forms.push_back(coneForm());
  GeometryForm cw = coneForm();
  cw.clockwise = true;
  cw.startAngleDeg = -45;
  forms.push_back(cw);
  GeometryForm s = coneForm();
  s.scanType = ScanType::ShortScan;
  s.clockwise = true;
  forms.push_back(s);
  GeometryForm arc = coneForm();
  arc.rangeDeg = 120;
  forms.push_back(arc);
  GeometryForm h = coneForm();
  h.scanType = ScanType::HelicalCone;
  h.turns = 3;
  h.viewCount = 300;
  h.helicalPitch = 1.2;
  h.startZMm = 20;
  forms.push_back(h);
  GeometryForm p = coneForm();
  p.scanType = ScanType::Parallel;
  p.rangeDeg = 180;
  p.clockwise = true;
  forms.push_back(p);
  for (const GeometryForm& f : forms) {
    const Geometry g = buildGeometry(f);
    const auto recognised = recogniseGeometry(g);
    ASSERT_TRUE(recognised) << toString(f.scanType);
    EXPECT_EQ(recognised->scanType, f.scanType);
    EXPECT_EQ(recognised->clockwise, f.clockwise);
    EXPECT_EQ(recognised->viewCount, f.viewCount);
    EXPECT_NEAR(recognised->offsetUMm, f.offsetUMm, 1e-9);
    EXPECT_LT(maxGeometryDifference(buildGeometry(*recognised), g), 1e-6);
  }
  // A view moved by hand fits no builder.
  Geometry moved = buildGeometry(coneForm());
  moved.view(7).detectorCentre.x() += 0.5;
  EXPECT_FALSE(recogniseGeometry(moved));
}

// Arc detectors keep their surface through recognition and the editor block: a form read back as
// flat would make Apply turn the arc into a flat panel.
TEST(GeometryForm, RecognisesArcDetectorsAndKeepsTheirSurface) {
  for (const ScanType type : {ScanType::CircularCone, ScanType::ShortScan, ScanType::HelicalCone}) {
    GeometryForm f = coneForm();
    f.scanType = type;
    f.surface = DetectorSurface::Cylinder;
    f.turns = 2;
    f.helicalPitch = 0.9;
    const Geometry g = buildGeometry(f);
    ASSERT_EQ(g.view(0).surface, DetectorSurface::Cylinder);
    const auto recognised = recogniseGeometry(g);
    ASSERT_TRUE(recognised) << toString(type);
    EXPECT_EQ(recognised->surface, DetectorSurface::Cylinder);
    EXPECT_EQ(recognised->scanType, type);
    EXPECT_NEAR(recognised->offsetUMm, 4, 1e-9);
    EXPECT_NEAR(recognised->offsetVMm, -2, 1e-9);
    EXPECT_NEAR(recognised->sourceToDetectorMm, 1100, 1e-9);
    EXPECT_LT(maxGeometryDifference(buildGeometry(*recognised), g), 1e-6);
    GeometryForm flat = *recognised;
    flat.surface = DetectorSurface::Flat;
    EXPECT_EQ(maxGeometryDifference(buildGeometry(flat), g),
              std::numeric_limits<double>::infinity());
    EXPECT_EQ(formFromJson(formToJson(*recognised), "x.json"), *recognised);
  }
}

TEST(GeometryForm, RecognisesATiltSeriesOfNanometrePixels) {
  GeometryForm t;
  t.scanType = ScanType::TiltSeries;
  t.cols = 64;
  t.rows = 16;
  t.pixelSizeMm = 4e-6;
  t.firstTiltDeg = -54;
  t.lastTiltDeg = 66;
  t.tiltStepDeg = 3;
  t.tiltAxisAngleDeg = 8.5;
  t.tiltAxisShiftPixels = -2.25;
  const Geometry g = buildGeometry(t);
  const auto recognised = recogniseGeometry(g);
  ASSERT_TRUE(recognised);
  EXPECT_EQ(recognised->scanType, ScanType::TiltSeries);
  EXPECT_EQ(recognised->cols, 64);
  EXPECT_EQ(recognised->rows, 16);
  EXPECT_NEAR(recognised->pixelSizeMm, 4e-6, 1e-15);
  EXPECT_NEAR(recognised->firstTiltDeg, -54, 1e-9);
  EXPECT_NEAR(recognised->lastTiltDeg, 66, 1e-9);
  EXPECT_NEAR(recognised->tiltStepDeg, 3, 1e-9);
  EXPECT_NEAR(recognised->tiltAxisAngleDeg, 8.5, 1e-9);
  EXPECT_NEAR(recognised->tiltAxisShiftPixels, -2.25, 1e-9);
  // Moved by a tenth of a pixel: not the builder's any more (mm tolerances would miss it).
  Geometry moved = g;
  moved.view(5).detectorCentre.x() += 0.4e-6;
  const auto other = recogniseGeometry(moved);
  EXPECT_TRUE(!other || other->scanType != ScanType::TiltSeries);
}

TEST(GeometryForm, JsonExportImportRoundTrip) {
  const test::TempDir dir;
  GeometryForm t;
  t.scanType = ScanType::TiltSeries;
  t.cols = 64;
  t.rows = 48;
  t.firstTiltDeg = -50;
  t.lastTiltDeg = 50;
  t.tiltStepDeg = 5;
  t.tiltAxisAngleDeg = -3;
  GeometryForm tilted = coneForm();
  tilted.tiltDeg = 1.5;
  tilted.clockwise = true;
  for (const GeometryForm& f : {t, tilted, coneForm()}) {
    const Geometry g = buildGeometry(f);
    exportGeometryJson(dir / "g.json", g, f);
    const ImportedGeometry back = importGeometryJson(dir / "g.json");
    EXPECT_EQ(back.geometry, g);  // vector form: exact
    ASSERT_TRUE(back.form);
    EXPECT_EQ(*back.form, f);
    // The core reader reads the same file.
    EXPECT_EQ(loadGeometry(dir / "g.json"), g);
  }
  // A per-view geometry (no builder made it) comes back without a form.
  Geometry moved = buildGeometry(coneForm());
  moved.view(3).u *= 1.01;
  exportGeometryJson(dir / "p.json", moved, std::nullopt);
  const ImportedGeometry perView = importGeometryJson(dir / "p.json");
  EXPECT_EQ(perView.geometry, moved);
  EXPECT_FALSE(perView.form);
}

TEST(GeometryForm, ImportNamesTheFileAndFieldOfABadEditorBlock) {
  const test::TempDir dir;
  nlohmann::json j = geometryToJson(buildGeometry(coneForm()));
  j["editor"] = formToJson(coneForm());
  j["editor"]["viewCount"] = -3;
  std::ofstream(dir / "bad.json") << j.dump();
  try {
    (void)importGeometryJson(dir / "bad.json");
    FAIL();
  } catch (const FormatError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("bad.json"), std::string::npos) << what;
    EXPECT_NE(what.find("editor.viewCount"), std::string::npos) << what;
  }
}

}  // namespace
}  // namespace tomowb::gui
