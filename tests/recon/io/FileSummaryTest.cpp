#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "recon/io/FileSummary.h"

namespace tomowb::io {
namespace {

TEST(FileSummary, TextAndJsonNameEveryKnownFact) {
  FileSummary s;
  s.path = "/data/scan.json";
  s.kind = FileKind::Projections;
  s.format = "tomowb raw + JSON";
  s.sizeX = 1248;
  s.sizeY = 960;
  s.sizeZ = 496;
  s.sampleType = "float32";
  s.dataBytes = 1248ull * 960 * 496 * 4;
  s.valueRange = std::make_pair(-1.0f, 3.5f);
  s.details.emplace_back("beam", "cone");
  const std::string text = s.toText();
  EXPECT_NE(text.find("496 views of 1248 x 960 pixels"), std::string::npos) << text;
  EXPECT_NE(text.find("value range: -1 .. 3.5"), std::string::npos) << text;
  EXPECT_NE(text.find("beam: cone"), std::string::npos) << text;
  EXPECT_EQ(text.find("voxel size"), std::string::npos) << text;
  const nlohmann::json j = s.toJson();
  EXPECT_EQ(j["kind"], "projections");
  EXPECT_EQ(j["shape"]["views"], 496);
  EXPECT_EQ(j["details"]["beam"], "cone");
  EXPECT_FALSE(j.contains("voxelSizeMm"));
}

}  // namespace
}  // namespace tomowb::io
