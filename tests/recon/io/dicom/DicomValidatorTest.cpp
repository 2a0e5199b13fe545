// Independent DICOM tools accept what we write: dciodvfy (dicom3tools) finds no errors in any
// object type and compression, and GDCM's gdcminfo reads the same dimensions and spacing.
#include <gtest/gtest.h>

#include <sstream>

#include "recon/io/dicom/DicomExport.h"
#include "recon/job/JobContext.h"
#include "tests/recon/io/dicom/DicomTestSupport.h"

namespace tomowb::io::dicom {
namespace {

namespace fs = std::filesystem;

struct ExportedSeries {
  DicomExportResult result;
  fs::path folder;
};

ExportedSeries exportCase(const test::TempDir& dir, DicomObjectType type,
                          DicomCompression compression,
                          DicomValueMode values = DicomValueMode::Hounsfield) {
  const Volume volume =
      test::randomAttenuationVolume(VolumeShape{21, 13, 3}, Eigen::Vector3d(0.4, 0.7, 1.1),
                                    Eigen::Vector3d(-4, -4.2, 1.1), test::randomSeed());
  DicomExportOptions o;
  o.type = type;
  o.compression = compression;
  o.values = values;
  o.patientPosition = PatientPosition::FFS;
  o.identity.patientName = "DOE^JANE";
  o.identity.patientSex = "F";
  o.identity.patientBirthDate = "19800101";
  o.provenance.algorithm = "FDK";
  o.provenance.variant = "fdk.bp.fast";
  o.provenance.acquisitionKey = "test";
  JobContext context;
  const fs::path folder =
      dir / (toString(type) + "-" + toString(compression) + "-" + toString(values));
  return {exportDicom(volume, folder, o, context), folder};
}

std::vector<std::string> errorLines(const std::string& output) {
  std::vector<std::string> errors;
  std::istringstream in(output);
  for (std::string line; std::getline(in, line);)
    if (line.rfind("Error", 0) == 0) errors.push_back(line);
  return errors;
}

struct Case {
  DicomObjectType type;
  DicomCompression compression;
  DicomValueMode values;
};

class DicomValidators : public ::testing::TestWithParam<Case> {};

TEST_P(DicomValidators, DciodvfyFindsNoErrorsAndGdcmReadsTheGeometry) {
  TOMOWB_REQUIRE_PROGRAM("dciodvfy");
  TOMOWB_REQUIRE_PROGRAM("gdcminfo");
  test::TempDir dir;
  const auto [r, folder] =
      exportCase(dir, GetParam().type, GetParam().compression, GetParam().values);
  for (const fs::path& name : r.files) {
    const fs::path file = folder / name;
    const auto check = test::runCommand("dciodvfy '" + file.string() + "'");
    const auto errors = errorLines(check.output);
    EXPECT_TRUE(errors.empty()) << file << ":\n" << check.output;

    const auto info = test::runCommand("gdcminfo '" + file.string() + "'");
    ASSERT_EQ(info.exitCode, 0) << info.output;
    const bool enhanced = GetParam().type == DicomObjectType::EnhancedCtImage;
    EXPECT_NE(info.output.find(enhanced ? "Dimensions: (21,13,3)" : "Dimensions: (21,13,1)"),
              std::string::npos)
        << info.output;
    // x spacing 0.4 (columns), y 0.7 (rows); GDCM reports the frame spacing of multi-frame files.
    EXPECT_NE(info.output.find(enhanced ? "Spacing: (0.4,0.7,1.1)" : "Spacing: (0.4,0.7,"),
              std::string::npos)
        << info.output;
  }
}

std::vector<Case> validatorCases() {
  std::vector<Case> cases;
  for (auto c : {DicomCompression::None, DicomCompression::RleLossless,
                 DicomCompression::JpegLsLossless, DicomCompression::JpegLossless}) {
    cases.push_back({DicomObjectType::CtImage, c, DicomValueMode::Hounsfield});
    cases.push_back({DicomObjectType::EnhancedCtImage, c, DicomValueMode::Hounsfield});
    cases.push_back({DicomObjectType::PetImage, c, DicomValueMode::Hounsfield});
  }
  cases.push_back({DicomObjectType::CtImage, DicomCompression::None, DicomValueMode::Native});
  return cases;
}

INSTANTIATE_TEST_SUITE_P(AllObjects, DicomValidators, ::testing::ValuesIn(validatorCases()),
                         [](const auto& info) {
                           std::string name = toString(info.param.type) + "_" +
                                              toString(info.param.compression) + "_" +
                                              toString(info.param.values);
                           for (char& c : name)
                             if (c == '-') c = '_';
                           return name;
                         });

}  // namespace
}  // namespace tomowb::io::dicom
