// `tomowb-cli pet simulate|histo|recon` (issue #20, point 5; docs/pet.md): a whole run at a tiny
// size (list mode -> histo-image set -> image with the phantom's figures per iteration, and
// straight from list mode), and the errors a user meets: a missing file, a truncated list-mode
// file, a histo-image file of the wrong length, bad option values, each naming the file or option.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "cli/CliRun.h"
#include "support/TestSupport.h"

namespace tomowb {
namespace {

using test::CliResult;
using test::runCli;

// 40 x 40 x 8 voxels of 8 mm, 10 x 1 views, a 110 mm phantom: about a second per command.
constexpr const char* kGrid = " --voxel-mm 8 --size 40 --slices 8 --azimuths 10 --tilts 1";
constexpr const char* kPhantom = " --cylinder-radius-mm 110";

class PetCli : public ::testing::Test {
 protected:
  void SetUp() override {
    const CliResult r =
        runCli("-q pet simulate --scanner ring-930 --counts 100000 --seed 5 -o " + path("ev.lm") +
               " --truth " + path("truth.mhd") + " --mu-out " + path("mu.mhd") + kGrid + kPhantom);
    ASSERT_EQ(r.exitCode, 0) << r.output;
  }
  std::string path(const char* name) const { return (dir_ / name).string(); }

  test::TempDir dir_;
};

TEST_F(PetCli, SimulateHistoReconAtATinySize) {
  namespace fs = std::filesystem;
  EXPECT_TRUE(fs::exists(path("truth.raw")));
  EXPECT_TRUE(fs::exists(path("mu.raw")));
  CliResult r = runCli("pet histo -i " + path("ev.lm") + " -o " + path("set.json") + " --mu " +
                       path("mu.mhd") + kGrid);
  ASSERT_EQ(r.exitCode, 0) << r.output;
  EXPECT_NE(r.output.find("10 views of 40 x 40 x 8"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("sensitivity, attenuation, randoms"), std::string::npos) << r.output;
  for (const char* f : {"set.data.f32", "set.multiplicative.f32", "set.additive.f32"})
    EXPECT_EQ(fs::file_size(path(f)), 10u * 40 * 40 * 8 * 4) << f;

  r = runCli("pet recon -i " + path("set.json") + " -o " + path("img.mhd") +
             " --iterations 3 --subsets 5 --report-metrics" + kPhantom);
  ASSERT_EQ(r.exitCode, 0) << r.output;
  EXPECT_NE(r.output.find("Bq/mL"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("CRC hot"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("direct.fp.cpu + direct.bp.cpu"), std::string::npos) << r.output;
  EXPECT_TRUE(fs::exists(path("img.raw")));
  EXPECT_TRUE(fs::exists(path("img.run.json")));

  // Straight from list mode, as JSON, with RAMLA and a variant kernel.
  r = runCli("--json --no-record pet recon -i " + path("ev.lm") + " -o " + path("img2.npy") +
             " --algorithm ramla --subsets 5 --iterations 2 --lor-kernel variant2 --units "
             "emissions" +
             std::string(kGrid));
  ASSERT_EQ(r.exitCode, 0) << r.output;
  const nlohmann::json j = nlohmann::json::parse(r.output.substr(r.output.find('{')));
  EXPECT_EQ(j["command"], "pet recon");
  EXPECT_EQ(j["iterations"].size(), 2u);
  EXPECT_EQ(j["units"], "emissions");
  EXPECT_TRUE(fs::exists(path("img2.npy")));
}

TEST_F(PetCli, MissingAndTruncatedInputsAreNamed) {
  CliResult r = runCli("pet recon -i " + path("absent.lm") + " -o " + path("x.mhd"));
  EXPECT_NE(r.exitCode, 0);
  EXPECT_NE(r.output.find("absent.lm"), std::string::npos) << r.output;

  // Cut the list-mode file inside its last record.
  const auto size = std::filesystem::file_size(path("ev.lm"));
  std::filesystem::copy_file(path("ev.lm"), path("cut.lm"));
  std::filesystem::resize_file(path("cut.lm"), size - 5);
  r = runCli("pet histo -i " + path("cut.lm") + " -o " + path("cut.json") + kGrid);
  EXPECT_EQ(r.exitCode, 1) << r.output;
  EXPECT_NE(r.output.find("cut.lm"), std::string::npos) << r.output;
  EXPECT_FALSE(std::filesystem::exists(path("cut.json")));
  EXPECT_FALSE(std::filesystem::exists(path("cut.data.f32")));

  // A histo-image file of the wrong length names the file and what it should hold.
  r = runCli("-q pet histo -i " + path("ev.lm") + " -o " + path("set.json") + kGrid);
  ASSERT_EQ(r.exitCode, 0) << r.output;
  std::filesystem::resize_file(path("set.data.f32"), 1000);
  r = runCli("pet recon -i " + path("set.json") + " -o " + path("y.mhd"));
  EXPECT_EQ(r.exitCode, 1) << r.output;
  EXPECT_NE(r.output.find("set.data.f32"), std::string::npos) << r.output;
  EXPECT_FALSE(std::filesystem::exists(path("y.mhd")));
}

TEST_F(PetCli, BadOptionValuesAreNamed) {
  CliResult r = runCli("pet recon -i " + path("ev.lm") + " -o " + path("x.mhd") +
                       " --algorithm sart" + kGrid);
  EXPECT_EQ(r.exitCode, 1) << r.output;
  EXPECT_NE(r.output.find("--algorithm"), std::string::npos) << r.output;
  r = runCli("pet recon -i " + path("ev.lm") + " -o " + path("x.mhd") + " --lor-kernel wide" +
             kGrid);
  EXPECT_EQ(r.exitCode, 1) << r.output;
  EXPECT_NE(r.output.find("--lor-kernel"), std::string::npos) << r.output;
  r = runCli("pet histo -i " + path("ev.lm") + " -o " + path("h.json") + " --deposition box" +
             kGrid);
  EXPECT_EQ(r.exitCode, 1) << r.output;
  EXPECT_NE(r.output.find("--deposition"), std::string::npos) << r.output;
  r = runCli("pet simulate --scanner nonesuch -o " + path("s.lm"));
  EXPECT_EQ(r.exitCode, 1) << r.output;
  EXPECT_NE(r.output.find("nonesuch"), std::string::npos) << r.output;
  EXPECT_FALSE(std::filesystem::exists(path("s.lm")));
}

}  // namespace
}  // namespace tomowb
