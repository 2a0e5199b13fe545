// Histo-image sets on disk (recon/pet/HistoSetFile.h; docs/pet.md, "Histo-image files") and the
// pipeline's defaults (PetPipeline.h).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <numbers>
#include <string>

#include "recon/core/Error.h"
#include "recon/pet/HistoSetFile.h"
#include "support/TestSupport.h"

namespace tomowb::pet {
namespace {

PetHistoSet smallSet(bool additive) {
  PetHistoSet s;
  const VolumeGrid grid = VolumeGrid::centred({5, 4, 3}, Eigen::Vector3d(4, 4, 2));
  const ViewBinning views{3, 2, 8 * std::numbers::pi / 180};
  s.data = HistoImages(grid, views);
  s.multiplicative = HistoImages(grid, views);
  for (std::size_t i = 0; i < s.data.values().size(); ++i) {
    s.data.values()[i] = float(i % 7);
    s.multiplicative.values()[i] = 0.01f * float(i % 5);
  }
  if (additive) {
    s.additive = HistoImages(grid, views);
    for (float& v : s.additive.values()) v = 0.25f;
  }
  s.deposition = DepositionMode::TofKernel;
  s.scanner = scannerPreset("penn-labr3");
  s.acquisitionSeconds = 600;
  s.halfLifeS = 6586.2;
  s.attenuationCorrected = true;
  s.prompts.events = 1234;
  s.prompts.deposited = 1200;
  return s;
}

TEST(HistoSetFile, RoundTripKeepsEveryImageAndField) {
  test::TempDir dir;
  const std::filesystem::path path = dir / "set.json";
  const PetHistoSet a = smallSet(true);
  writeHistoSet(path, a);
  EXPECT_TRUE(std::filesystem::exists(dir / "set.data.f32"));
  EXPECT_TRUE(std::filesystem::exists(dir / "set.additive.f32"));
  const PetHistoSet b = readHistoSet(path);
  EXPECT_EQ(b.data.grid().shape, a.data.grid().shape);
  EXPECT_EQ(b.data.grid().originMm, a.data.grid().originMm);
  EXPECT_EQ(b.data.views().azimuths, 3);
  EXPECT_EQ(b.data.views().tilts, 2);
  EXPECT_NEAR(b.data.views().maxTiltRad, a.data.views().maxTiltRad, 1e-15);
  EXPECT_TRUE(std::equal(a.data.values().begin(), a.data.values().end(), b.data.values().begin()));
  EXPECT_TRUE(std::equal(a.multiplicative.values().begin(), a.multiplicative.values().end(),
                         b.multiplicative.values().begin()));
  EXPECT_TRUE(std::equal(a.additive.values().begin(), a.additive.values().end(),
                         b.additive.values().begin()));
  EXPECT_EQ(b.deposition, DepositionMode::TofKernel);
  EXPECT_EQ(b.scanner.name, "penn-labr3");
  EXPECT_EQ(b.acquisitionSeconds, 600);
  EXPECT_TRUE(b.attenuationCorrected);
  EXPECT_EQ(b.prompts.deposited, 1200u);

  // Without randoms correction there is no additive image.
  writeHistoSet(dir / "bare.json", smallSet(false));
  EXPECT_TRUE(readHistoSet(dir / "bare.json").additive.empty());
}

void rewrite(const std::filesystem::path& path, const std::function<void(nlohmann::json&)>& edit) {
  nlohmann::json j;
  {
    std::ifstream in(path);
    in >> j;
  }
  edit(j);
  std::ofstream(path) << j.dump();
}

TEST(HistoSetFile, RefusesBadFilesNamingTheField) {
  test::TempDir dir;
  const std::filesystem::path path = dir / "set.json";
  writeHistoSet(path, smallSet(false));
  const auto expectFieldError = [&](const std::string& field) {
    try {
      (void)readHistoSet(path);
      ADD_FAILURE() << "no error for " << field;
    } catch (const FormatError& e) {
      EXPECT_NE(std::string(e.what()).find(field), std::string::npos) << e.what();
    }
  };
  rewrite(path, [](nlohmann::json& j) { j["version"] = 7; });
  expectFieldError("version");
  rewrite(path, [](nlohmann::json& j) {
    j["version"] = 1;
    j["images"]["data"] = "../elsewhere.f32";
  });
  expectFieldError("images.data");
  rewrite(path, [](nlohmann::json& j) {
    j["images"]["data"] = "set.data.f32";
    j["deposition"] = "box";
  });
  expectFieldError("deposition");
  rewrite(path, [](nlohmann::json& j) {
    j["deposition"] = "nearest";
    j["grid"]["shape"] = {5, 4, 4};  // the raw files are now too short
  });
  expectFieldError("set.data.f32");
  rewrite(path, [](nlohmann::json& j) { j["grid"]["shape"] = {5, 4, 3}; });
  {
    std::fstream f(dir / "set.data.f32", std::ios::in | std::ios::out | std::ios::binary);
    const float negative = -1.0f;
    f.write(reinterpret_cast<const char*>(&negative), sizeof negative);
  }
  expectFieldError("negative");
}

TEST(PetPipeline, DefaultGridCoversTheScannersFieldOfView) {
  const ScannerModel s = scannerPreset("penn-labr3");
  const VolumeGrid g = defaultPetGrid(s);
  EXPECT_EQ(g.shape.nx, 144);  // 576 mm at 4 mm, as in the seed
  EXPECT_EQ(g.shape.nz, 64);   // 60 rings x 4.3 mm = 258 mm
  EXPECT_NEAR(g.originMm.x(), -286.0, 1e-12);
  const ViewBinning v = defaultPetViews(s);
  EXPECT_EQ(v.count(), 120);
  EXPECT_THROW(defaultPetGrid(s, 0.0), ParameterError);
}

}  // namespace
}  // namespace tomowb::pet
