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

// --format pet with the PET options: every attribute written, read back by `import dicom`.
TEST(DicomCli, ExportsAPetSeriesWithItsAcquisition) {
  test::TempDir dir;
  const std::string demo = (dir / "demo").string();
  ASSERT_EQ(test::runCommand(cli() + " -q demo --size 24 --views 40 -o " + demo).exitCode, 0);
  const std::string pet =
      " --format pet --activity-concentration --radionuclide F-18 --dose-bq 3.5e8"
      " --injection-time 2026-03-02T09:00:00 --acquisition-time 2026-03-02T10:00:00"
      " --decay-correction start --frame-duration-s 600 --patient-weight-kg 72.5"
      " --corrected-image NORM,ATTN,SCAT,RAN --reconstruction-method 'DIRECT-RAMLA 10it'";
  const auto exported = test::runCommand(cli() + " --json export dicom " + demo + "/recon.mhd " +
                                         demo + "/pet" + pet);
  ASSERT_EQ(exported.exitCode, 0) << exported.output;
  const auto summary = nlohmann::json::parse(exported.output.substr(exported.output.find('{')));
  EXPECT_EQ(summary["units"], "BQML");
  EXPECT_EQ(summary["pet"]["decayCorrection"], "START");
  EXPECT_EQ(summary["pet"]["actualFrameDurationMs"], 600000);
  EXPECT_EQ(summary["pet"]["sliceRescaleSlopes"].size(), 24u);
  EXPECT_NEAR(summary["pet"]["decayFactor"].get<double>(), 1.0319, 1e-4);

  const auto dump = test::runCommand(
      "dcmdump +P 0054,1001 +P 0054,1102 +P 0018,1074 +P 0010,1030 " + demo + "/pet/PT0012.dcm");
  if (dump.exitCode == 0) {
    for (const char* value : {"[BQML]", "[START]", "[350000000]", "[72.5]"})
      EXPECT_NE(dump.output.find(value), std::string::npos) << value << "\n" << dump.output;
  }
  const auto imported = test::runCommand(cli() + " --json import dicom " + demo + "/pet " +
                                         (dir / "back.mhd").string());
  ASSERT_EQ(imported.exitCode, 0) << imported.output;
  const auto back = nlohmann::json::parse(imported.output.substr(imported.output.find('{')));
  EXPECT_EQ(back["units"], "BQML");
  EXPECT_EQ(back["pet"]["radionuclide"], "F-18");
  EXPECT_EQ(back["pet"]["injectionDateTime"], "20260302090000");
  EXPECT_EQ(back["pet"]["patientWeightKg"], 72.5);
  EXPECT_EQ(back["pet"]["reconstructionMethod"], "DIRECT-RAMLA 10it");
  // Bq/mL back within half of the largest slope (each slice's own is smaller or equal).
  const Volume original = io::readVolume(dir / "demo" / "recon.mhd");
  const Volume read = io::readVolume(dir / "back.mhd");
  ASSERT_EQ(read.shape(), original.shape());
  double worst = 0;
  for (std::int64_t i = 0; i < read.voxelCount(); ++i)
    worst = std::max(worst, std::abs(double(read.data()[i]) - original.data()[i]));
  EXPECT_LE(worst, 0.5 * summary["rescaleSlope"].get<double>() * (1 + 1e-6));

  // The help groups the PET options.
  const auto help = test::runCommand(cli() + " export dicom --help");
  const auto group = help.output.find("PET");
  ASSERT_NE(group, std::string::npos) << help.output;
  for (const char* option : {"--dose-bq", "--injection-time", "--decay-correction",
                             "--frame-duration-s", "--patient-weight-kg", "--radionuclide"})
    EXPECT_GT(help.output.find(option), group) << option;
}

TEST(DicomCli, BadPetOptionsNameTheField) {
  test::TempDir dir;
  const std::string demo = (dir / "demo").string();
  ASSERT_EQ(test::runCommand(cli() + " -q demo --size 16 --views 30 -o " + demo).exitCode, 0);
  const std::string base = cli() + " export dicom --dry-run " + demo + "/recon.mhd " + demo + "/p";
  const auto expectError = [&](const std::string& options, const char* field) {
    const auto r = test::runCommand(base + " " + options);
    EXPECT_EQ(r.exitCode, 1) << options << "\n" << r.output;
    EXPECT_NE(r.output.find(field), std::string::npos) << options << "\n" << r.output;
  };
  expectError("--format pet --dose-bq -5", "dose-bq");
  expectError("--format pet --activity-concentration", "frame-duration");
  expectError("--format pet --injection-time 2026-13-01T09:00:00", "injection-time");
  expectError("--format pet --injection-time 2026-03-01T09:00:00", "acquisition-time");
  expectError("--format pet --decay-correction later", "--decay-correction");
  expectError("--format pet --decay-correction admin --frame-duration-s 60", "decay-correction");
  expectError("--format pet --radionuclide Tc-99m", "radionuclide");
  expectError("--format pet --half-life-s 0", "half-life");
  expectError("--format pet --corrected-image ATTN,XYZ", "corrected-image");
  expectError("--format pet --patient-weight-kg -1", "patient-weight");
  expectError("--dose-bq 3e8", "--dose-bq");  // a CT export has no dose
  EXPECT_FALSE(fs::exists(dir / "demo" / "p"));
  const auto fine = test::runCommand(base + " --format pet --frame-duration-s 300");
  EXPECT_EQ(fine.exitCode, 0) << fine.output;
}

}  // namespace
}  // namespace tomowb
