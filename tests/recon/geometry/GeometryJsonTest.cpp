#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <numbers>

#include "recon/core/Error.h"
#include "recon/geometry/ScanBuilders.h"
#include "recon/io/GeometryJson.h"
#include "support/TestSupport.h"

namespace tomowb {
namespace {

using nlohmann::json;

Geometry tiltedCone() {
  CircularConeParams p;
  p.sourceToIsocentreMm = 600;
  p.sourceToDetectorMm = 1100;
  p.detector = {33, 17, 0.3, 0.4, 1.25, -2.5, 0.01, 0.02, 0.03, 0.004};
  p.anglesRad = fullScanAnglesRad(7, 0.1);
  return circularConeBeam(p);
}

std::string errorOf(const json& j) {
  try {
    geometryFromJson(j, "scan.json");
  } catch (const FormatError& e) {
    return e.what();
  }
  return "no error";
}

TEST(GeometryJson, ConeGeometryRoundTripsExactlyThroughAFile) {
  test::TempDir dir;
  const Geometry g = tiltedCone();
  saveGeometry(dir / "scan.json", g);
  EXPECT_EQ(loadGeometry(dir / "scan.json"), g);
}

TEST(GeometryJson, ParallelAndTiltSeriesRoundTrip) {
  TiltSeriesParams t;
  t.cols = 20;
  t.rows = 10;
  t.pixelSizeMm = 1e-6;
  t.tiltAnglesRad = {-1.0, -0.5, 0.0, 0.5, 1.0};
  t.tiltAxisAngleRad = 0.17;
  t.tiltAxisShiftPixels = -1.5;
  const Geometry g = tiltSeries(t);
  EXPECT_EQ(geometryFromJson(json::parse(geometryToJson(g).dump()), "x"), g);
}

TEST(GeometryJson, BuilderBlockExpandsLikeTheBuilder) {
  const json j = json::parse(R"({"format":"tomowb-geometry","version":1,
    "builder":{"kind":"circular-cone","sourceToIsocentreMm":500,"sourceToDetectorMm":1000,
               "detector":{"cols":64,"rows":32,"pitchMm":2.0,"offsetUMm":4},
               "views":90,"scan":"short","startDeg":10}})");
  CircularConeParams p;
  p.sourceToIsocentreMm = 500;
  p.sourceToDetectorMm = 1000;
  p.detector.cols = 64;
  p.detector.rows = 32;
  p.detector.pitchUMm = p.detector.pitchVMm = 2.0;
  p.detector.offsetUMm = 4;
  p.anglesRad = shortScanAnglesRad(p, 90, 10 * std::numbers::pi / 180);
  EXPECT_EQ(geometryFromJson(j, "scan.json"), circularConeBeam(p));
}

TEST(GeometryJson, ArcGeometryRoundTripsWithItsSurfacePerView) {
  test::TempDir dir;
  HelicalConeParams h = geLightSpeedHelical(0.05, 1.0);
  const Geometry g = helicalConeBeam(h);
  saveGeometry(dir / "arc.json", g);
  EXPECT_EQ(loadGeometry(dir / "arc.json"), g);
  const json j = geometryToJson(g);
  EXPECT_EQ(j["views"][0]["detector_surface"], "cylinder");
  // Flat views do not write the field: files of flat geometries stay as they were.
  EXPECT_FALSE(geometryToJson(tiltedCone())["views"][0].contains("detector_surface"));
}

TEST(GeometryJson, RejectsAnUnknownDetectorSurfaceNamingTheFileAndView) {
  json j = geometryToJson(tiltedCone());
  j["views"][3]["detector_surface"] = "curved";
  const std::string e = errorOf(j);
  EXPECT_NE(e.find("scan.json"), std::string::npos) << e;
  EXPECT_NE(e.find("views[3].detector_surface"), std::string::npos) << e;
  EXPECT_NE(e.find("'curved'"), std::string::npos) << e;
  // A cylinder on a tilted detector is refused by validation, naming the view.
  j["views"][3]["detector_surface"] = "cylinder";
  EXPECT_NE(errorOf(j).find("view 3 has a cylindrical detector"), std::string::npos) << errorOf(j);
}

TEST(GeometryJson, BuilderBlockTakesAnArcDetector) {
  const json j = json::parse(R"({"format":"tomowb-geometry","version":1,
    "builder":{"kind":"helical-cone","sourceToIsocentreMm":541,"sourceToDetectorMm":949.075,
               "detector":{"cols":88,"rows":16,"pitchUMm":10.239,"pitchVMm":1.096436,
                           "detector_surface":"cylinder"},
               "views":40,"scan":"full","pitch":1.0}})");
  const Geometry g = geometryFromJson(j, "scan.json");
  EXPECT_EQ(g.view(7).surface, DetectorSurface::Cylinder);
  EXPECT_EQ(g.firstCylindricalView(), 0);
}

TEST(GeometryJson, TiltSeriesBuilderTakesARangeAndStep) {
  const json j = json::parse(R"({"version":1,"builder":{"kind":"tilt-series","cols":32,"rows":32,
    "pixelSizeMm":0.001,"firstTiltDeg":-60,"lastTiltDeg":60,"tiltStepDeg":2}})");
  EXPECT_EQ(geometryFromJson(j, "ts.json").viewCount(), 61);
}

TEST(GeometryJson, RejectsNegativeDetectorRowsNamingTheField) {
  json j = geometryToJson(tiltedCone());
  j["detector"]["rows"] = -3;
  const std::string e = errorOf(j);
  EXPECT_NE(e.find("scan.json"), std::string::npos) << e;
  EXPECT_NE(e.find("detector.rows"), std::string::npos) << e;
  EXPECT_NE(e.find("-3"), std::string::npos) << e;
}

TEST(GeometryJson, RejectsMalformedViewsNamingTheView) {
  json j = geometryToJson(tiltedCone());
  j["views"][4]["u"] = json::array({1, "x", 3});
  EXPECT_NE(errorOf(j).find("views[4].u"), std::string::npos) << errorOf(j);
  j = geometryToJson(tiltedCone());
  j["views"][2]["u"] = json::array({0, 0, 0});
  EXPECT_NE(errorOf(j).find("views[2].u"), std::string::npos) << errorOf(j);
  j = geometryToJson(tiltedCone());
  j["views"][1].erase("source");
  EXPECT_NE(errorOf(j).find("views[1].source"), std::string::npos) << errorOf(j);
}

TEST(GeometryJson, RejectsNewerVersionsAndUnknownBeams) {
  json j = geometryToJson(tiltedCone());
  j["version"] = 99;
  EXPECT_NE(errorOf(j).find("version"), std::string::npos);
  j = geometryToJson(tiltedCone());
  j["beam"] = "fan";
  EXPECT_NE(errorOf(j).find("'fan'"), std::string::npos);
}

TEST(GeometryJson, RejectsBuilderWithDetectorInsideTheOrbit) {
  const json j = json::parse(R"({"version":1,"builder":{"kind":"circular-cone",
    "sourceToIsocentreMm":500,"sourceToDetectorMm":300,"detector":{"cols":4,"rows":4},"views":4}})");
  EXPECT_NE(errorOf(j).find("builder.sourceToDetectorMm"), std::string::npos) << errorOf(j);
}

TEST(GeometryJson, LoadRejectsInvalidJsonNamingTheFile) {
  test::TempDir dir;
  std::ofstream(dir / "bad.json") << "{\"version\": 1, ";
  try {
    loadGeometry(dir / "bad.json");
    FAIL();
  } catch (const FormatError& e) {
    EXPECT_NE(std::string(e.what()).find("bad.json"), std::string::npos);
  }
  EXPECT_THROW(loadGeometry(dir / "missing.json"), IoError);
}

// D25 of the hostile-input review: a builder whose anglesDeg and views disagree was accepted.
TEST(GeometryJson, RejectsABuilderWhoseAnglesAndViewCountDisagree) {
  const json j = json::parse(R"({"version":1,"builder":{"kind":"parallel",
    "detector":{"cols":4,"rows":4},"views":3,"anglesDeg":[0,90]}})");
  EXPECT_NE(errorOf(j).find("builder.views"), std::string::npos) << errorOf(j);
  EXPECT_NE(errorOf(j).find("2 angles"), std::string::npos) << errorOf(j);
  const json ok = json::parse(R"({"version":1,"builder":{"kind":"parallel",
    "detector":{"cols":4,"rows":4},"views":2,"anglesDeg":[0,90]}})");
  EXPECT_EQ(geometryFromJson(ok, "ok.json").viewCount(), 2);
}

// D22: vectors of 1e200 and 1e308 mm passed validation through NaN comparisons.
TEST(GeometryJson, RejectsViewsWithOverflowingVectorsNamingTheField) {
  for (double huge : {1e200, 1e308}) {
    json j = geometryToJson(tiltedCone());
    j["views"][3]["u"] = json::array({huge, 0, 0});
    j["views"][3]["v"] = json::array({0, 0, huge});
    EXPECT_NE(errorOf(j).find("views[3]."), std::string::npos) << errorOf(j);
  }
}

// D7: a FIFO named X.json blocked the open forever.
TEST(GeometryJson, LoadRefusesAPipeNamingIt) {
  ::alarm(30);  // before the fix this blocked forever: fail instead of hanging
  test::TempDir dir;
  ASSERT_EQ(::mkfifo((dir / "fifo.json").c_str(), 0600), 0);
  try {
    loadGeometry(dir / "fifo.json");
    FAIL();
  } catch (const FormatError& e) {
    EXPECT_NE(std::string(e.what()).find("fifo.json"), std::string::npos) << e.what();
  }
  ::alarm(0);
}

}  // namespace
}  // namespace tomowb
