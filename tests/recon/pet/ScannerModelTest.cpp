// ScannerModel: presets, validation naming the field, crystal positions of both layouts, the
// JSON round trip and its errors, the shipped preset files.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <numbers>

#include "recon/core/Error.h"
#include "recon/pet/ScannerModel.h"
#include "support/TestSupport.h"

namespace tomowb::pet {
namespace {

constexpr double kPi = std::numbers::pi;

// The message of the exception `call` throws (of type E), or "" if it throws nothing.
template <typename E, typename F>
std::string messageOf(F call) {
  try {
    call();
  } catch (const E& e) {
    return e.what();
  }
  return "";
}

TEST(ScannerModel, PresetsMirrorTheSeedsScanner) {
  EXPECT_EQ(scannerPresetNames(), (std::vector<std::string>{"penn-labr3", "ring-930"}));
  const ScannerModel penn = scannerPreset("penn-labr3");
  EXPECT_EQ(penn.layout, DetectorLayout::FlatModules);
  EXPECT_EQ(penn.modules, 24);
  EXPECT_EQ(penn.crystalsPerRing, 672);
  EXPECT_EQ(penn.crystalsPerModule(), 28);
  EXPECT_EQ(penn.rings, 60);
  EXPECT_DOUBLE_EQ(penn.radiusMm, 465.0);
  EXPECT_DOUBLE_EQ(penn.crystalPitchMm, 4.3);
  EXPECT_DOUBLE_EQ(penn.tofFwhmPs, 400.0);
  EXPECT_NEAR(penn.axialLengthMm(), 258.0, 1e-9);
  EXPECT_NEAR(penn.tofSigmaMm(), 25.46, 0.01);  // 60 mm FWHM along the LOR
  EXPECT_NO_THROW(penn.validate());

  const ScannerModel ring = scannerPreset("ring-930");
  EXPECT_EQ(ring.layout, DetectorLayout::Cylinder);
  EXPECT_EQ(ring.crystalsPerRing, 672);
  EXPECT_EQ(ring.rings, 60);
  EXPECT_DOUBLE_EQ(ring.radiusMm, 465.0);
  EXPECT_NO_THROW(ring.validate());
}

TEST(ScannerModel, UnknownPresetListsTheNames) {
  const std::string message = messageOf<ParameterError>([] { scannerPreset("ring-931"); });
  EXPECT_NE(message.find("ring-931"), std::string::npos) << message;
  EXPECT_NE(message.find("penn-labr3, ring-930"), std::string::npos) << message;
}

TEST(ScannerModel, ValidationNamesTheField) {
  const auto fieldOf = [](auto change) {
    ScannerModel s = scannerPreset("penn-labr3");
    change(s);
    return messageOf<ParameterError>([&] { s.validate(); });
  };
  EXPECT_NE(fieldOf([](ScannerModel& s) { s.rings = 0; }).find("'rings'"), std::string::npos);
  EXPECT_NE(fieldOf([](ScannerModel& s) { s.rings = 70000; }).find("'rings'"), std::string::npos);
  EXPECT_NE(fieldOf([](ScannerModel& s) { s.crystalsPerRing = 70000; }).find("'crystalsPerRing'"),
            std::string::npos);
  EXPECT_NE(fieldOf([](ScannerModel& s) { s.modules = 25; }).find("do not divide"),
            std::string::npos);
  EXPECT_NE(fieldOf([](ScannerModel& s) { s.crystalPitchMm = 4.5; }).find("'crystalPitchMm'"),
            std::string::npos);  // 28 x 4.5 = 126 mm > the 122.4 mm face
  EXPECT_NE(
      fieldOf([](ScannerModel& s) { s.axialAcceptanceDeg = 70; }).find("'axialAcceptanceDeg'"),
      std::string::npos);
  EXPECT_NE(fieldOf([](ScannerModel& s) { s.tofFwhmPs = -1; }).find("'tofFwhmPs'"),
            std::string::npos);
  EXPECT_NE(fieldOf([](ScannerModel& s) { s.radiusMm = std::nan(""); }).find("'radiusMm'"),
            std::string::npos);
  EXPECT_NE(fieldOf([](ScannerModel& s) { s.meanDoiMm = 31; }).find("'meanDoiMm'"),
            std::string::npos);
  EXPECT_NE(
      fieldOf([](ScannerModel& s) { s.coincidenceWindowPs = 2e6; }).find("'coincidenceWindowPs'"),
      std::string::npos);
  EXPECT_NE(fieldOf([](ScannerModel& s) { s.transaxialFovMm = 940; }).find("'transaxialFovMm'"),
            std::string::npos);
  EXPECT_NE(fieldOf([](ScannerModel& s) { s.name.clear(); }).find("'name'"), std::string::npos);
}

TEST(ScannerModel, CylinderCrystalsLieOnTheRingAtTheMeanDepth) {
  const ScannerModel s = scannerPreset("ring-930");
  for (int c = 0; c < s.crystalsPerRing; c += 37) {
    const Eigen::Vector3d p = s.crystalPosition(c, 0);
    EXPECT_NEAR(p.head<2>().norm(), 475.0, 1e-9);
    EXPECT_NEAR(std::atan2(p.y(), p.x()), std::remainder(2 * kPi * (c + 0.5) / 672, 2 * kPi),
                1e-12);
  }
  // Crystal 0 sits at the smallest angle from +x, counter-clockwise.
  const Eigen::Vector3d first = s.crystalPosition(0, 0), second = s.crystalPosition(1, 0);
  EXPECT_GT(std::atan2(first.y(), first.x()), 0.0);
  EXPECT_GT(std::atan2(second.y(), second.x()), std::atan2(first.y(), first.x()));
}

TEST(ScannerModel, RingsAreCentredOnZeroAtTheRingPitch) {
  const ScannerModel s = scannerPreset("penn-labr3");
  EXPECT_NEAR(s.ringZ(0), -29.5 * 4.3, 1e-12);
  EXPECT_NEAR(s.ringZ(59), 29.5 * 4.3, 1e-12);
  EXPECT_NEAR(s.ringZ(0) + s.ringZ(59), 0.0, 1e-12);
  for (int r = 1; r < s.rings; ++r) EXPECT_NEAR(s.ringZ(r) - s.ringZ(r - 1), 4.3, 1e-12);
  EXPECT_DOUBLE_EQ(s.crystalPosition(100, 7).z(), s.ringZ(7));
}

TEST(ScannerModel, FlatModuleCrystalsLieOnFlatFacesAtThePitch) {
  const ScannerModel s = scannerPreset("penn-labr3");
  for (int module = 0; module < s.modules; ++module) {
    const double phi = 2 * kPi * (module + 0.5) / s.modules;
    const Eigen::Vector2d normal(std::cos(phi), std::sin(phi));
    for (int j = 0; j < 28; ++j) {
      const Eigen::Vector2d p = s.crystalPosition(module * 28 + j, 3).head<2>();
      // Every crystal of a module at the same depth: the face plane pushed back by the DOI.
      EXPECT_NEAR(p.dot(normal), 475.0, 1e-9) << "module " << module << " crystal " << j;
      if (j > 0) {
        const Eigen::Vector2d previous = s.crystalPosition(module * 28 + j - 1, 3).head<2>();
        EXPECT_NEAR((p - previous).norm(), 4.3, 1e-9);
      }
    }
    // The module is centred on its normal.
    const Eigen::Vector2d a = s.crystalPosition(module * 28, 0).head<2>();
    const Eigen::Vector2d b = s.crystalPosition(module * 28 + 27, 0).head<2>();
    EXPECT_NEAR((0.5 * (a + b) - 475.0 * normal).norm(), 0.0, 1e-9);
  }
  const Eigen::Vector3d first = s.crystalPosition(0, 0);
  EXPECT_GT(std::atan2(first.y(), first.x()), 0.0);
  EXPECT_LT(std::atan2(first.y(), first.x()), kPi / 24);
  EXPECT_EQ(s.crystalPositionsXy().size(), 672u);
  EXPECT_EQ(s.crystalPositionsXy()[100], s.crystalPosition(100, 0).head<2>());
}

TEST(ScannerModel, JsonRoundTripKeepsEveryField) {
  ScannerModel s = scannerPreset("penn-labr3");
  s.name = "custom";
  s.rings = 40;
  s.tofFwhmPs = 310.5;
  s.meanDoiMm = 7.25;
  s.positioningSigmaMm = 0;
  s.transaxialFovMm = 600;
  const nlohmann::json j = scannerToJson(s);
  EXPECT_EQ(j.at("format"), "tomowb-pet-scanner");
  EXPECT_EQ(j.at("version"), 1);
  const ScannerModel back = scannerFromJson(j, "mem.json");
  EXPECT_EQ(scannerToJson(back), j);

  test::TempDir dir;
  writeScannerFile(s, dir / "scanner.json");
  EXPECT_EQ(scannerToJson(loadScanner((dir / "scanner.json").string())), j);
  EXPECT_EQ(scannerToJson(loadScanner("ring-930")), scannerToJson(scannerPreset("ring-930")));
}

TEST(ScannerModel, JsonErrorsNameTheFileAndField) {
  nlohmann::json j = scannerToJson(scannerPreset("penn-labr3"));
  const auto errorOf = [](const nlohmann::json& bad) {
    return messageOf<FormatError>([&] { scannerFromJson(bad, "scan.json", "scanner"); });
  };
  nlohmann::json bad = j;
  bad["rings"] = 0;
  EXPECT_EQ(errorOf(bad), "scan.json: field 'scanner.rings': must be in 1..65535, got 0");
  bad = j;
  bad.erase("tofFwhmPs");
  EXPECT_EQ(errorOf(bad), "scan.json: field 'scanner.tofFwhmPs': is missing");
  bad = j;
  bad["tofFwhmPS"] = 300;
  EXPECT_NE(errorOf(bad).find("'scanner.tofFwhmPS': is not a scanner field"), std::string::npos);
  bad = j;
  bad["layout"] = "hexagon";
  EXPECT_NE(errorOf(bad).find("'scanner.layout': must be 'cylinder' or 'flat-modules'"),
            std::string::npos);
  bad = j;
  bad["version"] = 2;
  EXPECT_NE(errorOf(bad).find("newer than this program reads"), std::string::npos);
  bad = j;
  bad["modules"] = 5;
  EXPECT_NE(errorOf(bad).find("'scanner.modules'"), std::string::npos);
  bad = j;
  bad["crystalsPerRing"] = 3.5;
  EXPECT_NE(errorOf(bad).find("'scanner.crystalsPerRing': must be an integer"), std::string::npos);
}

TEST(ScannerModel, LoadScannerRefusesWhatIsNeitherFileNorPreset) {
  const std::string message =
      messageOf<ParameterError>([] { loadScanner("/nonexistent/scanner.json"); });
  EXPECT_NE(message.find("neither a scanner file nor a preset"), std::string::npos) << message;
  test::TempDir dir;
  std::ofstream(dir / "broken.json") << "{\"format\": \"tomowb-pet-scanner\", ";
  const std::string broken =
      messageOf<FormatError>([&] { loadScanner((dir / "broken.json").string()); });
  EXPECT_NE(broken.find("broken.json"), std::string::npos) << broken;
}

TEST(ScannerModel, ShippedPresetFilesMatchTheBuiltInPresets) {
  const std::filesystem::path folder = std::filesystem::path(TOMOWB_TEST_DATA_DIR) / ".." / ".." /
                                       "resources" / "presets" / "pet-scanner";
  for (const std::string& name : scannerPresetNames()) {
    const ScannerModel fromFile = loadScanner((folder / (name + ".json")).string());
    EXPECT_EQ(scannerToJson(fromFile), scannerToJson(scannerPreset(name))) << name;
  }
}

}  // namespace
}  // namespace tomowb::pet
