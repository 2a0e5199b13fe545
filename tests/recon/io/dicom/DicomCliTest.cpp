// `tomowb-cli export dicom` and `import dicom` on the demo's reconstruction: one command each.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "recon/io/VolumeFiles.h"
#include "tests/recon/io/dicom/DicomTestSupport.h"

namespace tomowb {
namespace {

namespace fs = std::filesystem;

std::string cli() {
  return TOMOWB_CLI_PATH;
}

TEST(DicomCli, ExportsTheDemoAndReadsItBack) {
  test::TempDir dir;
  const std::string demo = (dir / "demo").string();
  ASSERT_EQ(test::runCommand(cli() + " -q demo --size 32 --views 60 -o " + demo).exitCode, 0);
  const auto exported = test::runCommand(cli() + " --json export dicom " + demo + "/recon.mhd " +
                                         demo + "/dicom --format enhanced-ct --compression rle");
  ASSERT_EQ(exported.exitCode, 0) << exported.output;
  const auto summary = nlohmann::json::parse(exported.output.substr(exported.output.find('{')));
  EXPECT_EQ(summary["files"], 1);
  EXPECT_EQ(summary["units"], "HU");
  EXPECT_TRUE(fs::exists(dir / "demo" / "dicom" / "ECT0001.dcm"));

  // The demo's summary.json and geometry.json were found and recorded.
  const auto dump =
      test::runCommand("dcmdump +P 0011,1001 +P 0011,1006 " + demo + "/dicom/ECT0001.dcm");
  if (dump.exitCode == 0) {
    EXPECT_NE(dump.output.find("[FDK]"), std::string::npos) << dump.output;
    EXPECT_NE(dump.output.find("0011,1006"), std::string::npos) << dump.output;
  }

  // A second export into the same folder is refused, --force replaces it.
  const auto again =
      test::runCommand(cli() + " export dicom " + demo + "/recon.mhd " + demo + "/dicom");
  EXPECT_EQ(again.exitCode, 1);
  EXPECT_NE(again.output.find("--force"), std::string::npos) << again.output;
  EXPECT_EQ(test::runCommand(cli() + " -q export dicom --force " + demo + "/recon.mhd " + demo +
                             "/dicom --format pet")
                .exitCode,
            0);
  EXPECT_TRUE(fs::exists(dir / "demo" / "dicom" / "PT0001.dcm"));
  EXPECT_FALSE(fs::exists(dir / "demo" / "dicom" / "ECT0001.dcm"));
  // Review D2: --force never replaces a folder that holds the input volume.
  const auto own = test::runCommand(cli() + " export dicom --force " + demo + "/recon.mhd " + demo);
  EXPECT_EQ(own.exitCode, 1) << own.output;
  EXPECT_NE(own.output.find("which the run reads"), std::string::npos) << own.output;
  EXPECT_TRUE(fs::exists(dir / "demo" / "recon.mhd"));
  EXPECT_TRUE(fs::exists(dir / "demo" / "recon.raw"));

  const auto imported =
      test::runCommand(cli() + " import dicom " + demo + "/dicom " + (dir / "back.mhd").string());
  ASSERT_EQ(imported.exitCode, 0) << imported.output;
  const Volume original = io::readVolume(dir / "demo" / "recon.mhd");
  const Volume back = io::readVolume(dir / "back.mhd");
  ASSERT_EQ(back.shape(), original.shape());
  EXPECT_LT((back.originMm() - original.originMm()).norm(), 1e-9);
  double worst = 0, peak = 0;
  for (std::int64_t i = 0; i < back.voxelCount(); ++i) {
    worst = std::max(worst, std::abs(static_cast<double>(back.data()[i]) - original.data()[i]));
    peak = std::max(peak, std::abs(static_cast<double>(original.data()[i])));
  }
  EXPECT_LE(worst, peak / 32767.0);  // half a PET slope, with room for float rounding

  const auto list = test::runCommand(cli() + " import dicom --list " + demo + "/dicom");
  EXPECT_EQ(list.exitCode, 0);
  EXPECT_NE(list.output.find("PET Image"), std::string::npos) << list.output;
}

TEST(DicomCli, BadOptionsAreClearErrors) {
  test::TempDir dir;
  const std::string demo = (dir / "demo").string();
  ASSERT_EQ(test::runCommand(cli() + " -q demo --size 24 --views 40 -o " + demo).exitCode, 0);
  const auto bad = test::runCommand(cli() + " export dicom " + demo + "/recon.mhd " + demo +
                                    "/d --compression jpeg2000");
  EXPECT_EQ(bad.exitCode, 1);
  EXPECT_NE(bad.output.find("--compression"), std::string::npos) << bad.output;
  const auto range =
      test::runCommand(cli() + " export dicom " + demo + "/recon.mhd " + demo + "/d --slices 10:5");
  EXPECT_EQ(range.exitCode, 1);
  EXPECT_NE(range.output.find("slices"), std::string::npos) << range.output;
  EXPECT_FALSE(fs::exists(dir / "demo" / "d"));
  const auto dry =
      test::runCommand(cli() + " export dicom --dry-run " + demo + "/recon.mhd " + demo + "/d");
  EXPECT_EQ(dry.exitCode, 0);
  EXPECT_NE(dry.output.find("would write 24 files"), std::string::npos) << dry.output;
  EXPECT_FALSE(fs::exists(dir / "demo" / "d"));
}

}  // namespace
}  // namespace tomowb
