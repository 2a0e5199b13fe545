// The shipped resources: geometry presets load with the core's GeometryJson reader (from the
// source tree and through the Qt resource system), algorithm presets apply, icons render, and
// the desktop entry and MIME types name what the readers accept.
#include <gtest/gtest.h>

#include <QFile>
#include <QIcon>
#include <QImage>
#include <QPainter>
#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <numbers>
#include <sstream>
#include <string>

#include "gui/AlgorithmPanel.h"
#include "gui/Resources.h"
#include "gui/algorithms/AlgorithmPresets.h"
#include "recon/core/Error.h"
#include "recon/geometry/ScanBuilders.h"
#include "recon/io/GeometryJson.h"

namespace tomowb::gui {
namespace {

const std::filesystem::path kResources =
    std::filesystem::path(TOMOWB_TEST_DATA_DIR) / ".." / ".." / "resources";

std::string readText(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

nlohmann::json readResourceJson(const QString& path) {
  QFile f(path);
  EXPECT_TRUE(f.open(QIODevice::ReadOnly)) << path.toStdString();
  return nlohmann::json::parse(f.readAll().toStdString());
}

struct GeometryPreset {
  const char* file;
  BeamKind beam;
  std::int64_t views, cols, rows;
};

class GeometryPresets : public testing::TestWithParam<GeometryPreset> {};

TEST_P(GeometryPresets, LoadWithTheCoreReaderFromSourceAndResources) {
  initResources();
  const GeometryPreset& p = GetParam();
  const Geometry fromFile = loadGeometry(kResources / "presets" / "geometry" / p.file);
  EXPECT_EQ(fromFile.beam(), p.beam);
  EXPECT_EQ(fromFile.viewCount(), p.views);
  EXPECT_EQ(fromFile.detector().cols, p.cols);
  EXPECT_EQ(fromFile.detector().rows, p.rows);
  const QString qrcPath = QStringLiteral(":/tomowb/presets/geometry/%1").arg(p.file);
  const Geometry fromQrc = geometryFromJson(readResourceJson(qrcPath), qrcPath.toStdString());
  EXPECT_EQ(fromQrc, fromFile);
}

INSTANTIATE_TEST_SUITE_P(
    Shipped, GeometryPresets,
    testing::Values(GeometryPreset{"rabbitct-carm.json", BeamKind::Cone, 496, 1248, 960},
                    GeometryPreset{"micro-ct.json", BeamKind::Cone, 1440, 1024, 1024},
                    GeometryPreset{"et-tilt-series.json", BeamKind::Parallel, 61, 1024, 1024},
                    GeometryPreset{"ge-lightspeed-helical.json", BeamKind::Cone, 984, 888, 64}),
    [](const testing::TestParamInfo<GeometryPreset>& info) {
      // "rabbitct-carm.json" -> "rabbitct_carm": stable, readable test names.
      std::string name = info.param.file;
      name = name.substr(0, name.find('.'));
      for (char& c : name)
        if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
      return name;
    });

// The shipped GE preset is the builder's geLightSpeedHelical(1 turn, pitch 1) on its arc detector.
TEST(PresetResources, GeLightSpeedPresetIsTheBuildersArcHelix) {
  const Geometry fromFile =
      loadGeometry(kResources / "presets" / "geometry" / "ge-lightspeed-helical.json");
  const Geometry built = helicalConeBeam(geLightSpeedHelical(1.0, 1.0));
  EXPECT_EQ(fromFile.view(0).surface, DetectorSurface::Cylinder);
  ASSERT_EQ(fromFile.viewCount(), built.viewCount());
  double worst = 0;
  for (std::int64_t i = 0; i < built.viewCount(); ++i)
    for (const auto& [a, b] :
         {std::pair{fromFile.view(i).source, built.view(i).source},
          std::pair{fromFile.view(i).detectorCentre, built.view(i).detectorCentre},
          std::pair{fromFile.view(i).u, built.view(i).u},
          std::pair{fromFile.view(i).v, built.view(i).v}})
      worst = std::max(worst, (a - b).cwiseAbs().maxCoeff());
  EXPECT_LT(worst, 1e-4);  // startZMm -20 against the builder's -19.99999 (feed 39.99998 mm)
}

TEST(PresetResources, RabbitCtPresetHasTheCArmDistancesAndPitch) {
  const Geometry g = loadGeometry(kResources / "presets" / "geometry" / "rabbitct-carm.json");
  const View& v = g.view(0);
  EXPECT_NEAR(v.source.norm(), 750.0, 1e-9);
  EXPECT_NEAR((v.detectorCentre - v.source).norm(), 1250.0, 1e-9);
  EXPECT_NEAR(v.u.norm(), 0.6, 1e-12);
  EXPECT_NEAR(v.v.norm(), 0.6, 1e-12);
}

TEST(PresetResources, TiltSeriesRunsFromMinusToPlusSixtyInTwoDegreeSteps) {
  const Geometry g = loadGeometry(kResources / "presets" / "geometry" / "et-tilt-series.json");
  ASSERT_EQ(g.viewCount(), 61);
  const auto angleDeg = [&](std::int64_t a, std::int64_t b) {
    const double c = g.view(a).rayDirection.normalized().dot(g.view(b).rayDirection.normalized());
    return std::acos(std::clamp(c, -1.0, 1.0)) * 180.0 / std::numbers::pi;
  };
  EXPECT_NEAR(angleDeg(0, 60), 120.0, 1e-6);
  EXPECT_NEAR(angleDeg(0, 30), 60.0, 1e-6);
  EXPECT_NEAR(angleDeg(0, 1), 2.0, 1e-6);
}

// The built-in presets (format version 1, FDK) pass the FDK descriptor's validate.
TEST(PresetResources, AlgorithmPresetsApply) {
  initResources();
  const catalog::AlgorithmDescriptor& fdk = catalog::AlgorithmCatalog::builtins().require("fdk");
  nlohmann::json p = fdk.defaults();
  p["volume"] = catalog::gridToJson(
      VolumeGrid::centred(VolumeShape{8, 8, 8}, Eigen::Vector3d::Constant(1.0)));
  const QString hann = QStringLiteral(":/tomowb/presets/algorithms/fdk-smooth-hann.json");
  p = applyAlgorithmPreset(readResourceJson(hann), fdk, p, hann);
  EXPECT_EQ(p["filter"]["window"], "hann");
  EXPECT_DOUBLE_EQ(p["filter"]["cutoff"].get<double>(), 0.8);
  EXPECT_EQ(p["fieldOfViewMask"], true);
  const QString def = QStringLiteral(":/tomowb/presets/algorithms/fdk-default.json");
  p = applyAlgorithmPreset(readResourceJson(def), fdk, p, def);
  EXPECT_EQ(p["filter"]["window"], "ram-lak");
  EXPECT_DOUBLE_EQ(p["filter"]["cutoff"].get<double>(), 1.0);
  EXPECT_EQ(p["redundancy"], "auto");
  EXPECT_EQ(p["variant"], "fdk.bp.cpu");
}

TEST(PresetResources, AlgorithmPresetRoundTripsAndRejectsBadFieldsNamingThem) {
  const catalog::AlgorithmDescriptor& fdk = catalog::AlgorithmCatalog::builtins().require("fdk");
  nlohmann::json p = fdk.defaults();
  p["volume"] = catalog::gridToJson(
      VolumeGrid::centred(VolumeShape{8, 8, 8}, Eigen::Vector3d::Constant(1.0)));
  p["filter"] = {{"window", "cosine"}, {"cutoff", 0.5}};
  p["redundancy"] = "parker";
  const nlohmann::json j = algorithmPresetToJson(fdk, p, "mine");
  EXPECT_FALSE(j["parameters"].contains("volume")) << "the grid follows the data";
  const nlohmann::json back = applyAlgorithmPreset(j, fdk, fdk.validate(p), "mine.json");
  EXPECT_EQ(back["filter"]["window"], "cosine");
  EXPECT_EQ(back["redundancy"], "parker");

  // Version 1 names its fields at the top: errors name them as the file does.
  nlohmann::json bad =
      readResourceJson(QStringLiteral(":/tomowb/presets/algorithms/fdk-default.json"));
  bad["cutoff"] = 1.5;
  try {
    applyAlgorithmPreset(bad, fdk, p, "bad.json");
    FAIL() << "no exception";
  } catch (const FormatError& e) {
    EXPECT_NE(std::string(e.what()).find("bad.json"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("cutoff"), std::string::npos);
  }
  bad = j;
  bad["parameters"]["filter"]["window"] = "gauss";
  EXPECT_THROW(applyAlgorithmPreset(bad, fdk, p, "bad.json"), FormatError);
  bad = j;
  bad["format"] = "tomowb-geometry";
  EXPECT_THROW(applyAlgorithmPreset(bad, fdk, p, "bad.json"), FormatError);
}

TEST(PresetResources, EveryIconRendersAt24And48Pixels) {
  initResources();
  for (const char* name : {"tomowb", "open", "run", "cancel", "demo", "screenshot", "layout",
                           "roi-circle", "roi-rect"}) {
    const QString path = QStringLiteral(":/tomowb/icons/%1.svg").arg(name);
    QFile file(path);
    ASSERT_TRUE(file.open(QIODevice::ReadOnly)) << name;
    EXPECT_TRUE(file.readAll().contains("viewBox=\"0 0 24 24\"")) << name;
    const QIcon icon(path);
    ASSERT_FALSE(icon.isNull()) << name;
    for (int size : {24, 48}) {
      const QImage image = icon.pixmap(size, size).toImage();
      ASSERT_EQ(image.width(), size) << name;
      int opaque = 0;
      for (int y = 0; y < size; ++y)
        for (int x = 0; x < size; ++x) opaque += qAlpha(image.pixel(x, y)) > 0 ? 1 : 0;
      EXPECT_GT(opaque, size * size / 10) << name << " draws almost nothing at " << size;
    }
  }
}

TEST(PresetResources, DesktopEntryAndMimeTypesMatchTheReaders) {
  const std::string desktop = readText(kResources / "tomowb.desktop");
  EXPECT_NE(desktop.find("Exec=tomowb %F"), std::string::npos);
  EXPECT_NE(desktop.find("Icon=tomowb"), std::string::npos);
  EXPECT_NE(desktop.find("StartupWMClass=tomowb"), std::string::npos);
  const std::string mime = readText(kResources / "tomowb-mime.xml");
  for (const char* glob : {"*.mhd", "*.mha", "*.npy", "*.rct", "*.mrc", "*.st", "*.ali"})
    EXPECT_NE(mime.find(std::string("pattern=\"") + glob + "\""), std::string::npos) << glob;
  // Every type the MIME file declares is one the desktop entry accepts.
  for (const char* type :
       {"application/x-metaimage-header", "application/x-metaimage", "application/x-npy",
        "application/x-rabbitct-projections", "application/x-mrc"}) {
    EXPECT_NE(mime.find(std::string("type=\"") + type + "\""), std::string::npos) << type;
    EXPECT_NE(desktop.find(type), std::string::npos) << type;
  }
}

}  // namespace
}  // namespace tomowb::gui
