// Independent DICOM tools accept what we write: dciodvfy (dicom3tools) finds no errors in any
// object type and compression, PET with its full acquisition (BQML, radiopharmaceutical, decay
// correction, patient orientation codes) included, and GDCM's gdcminfo reads the same dimensions
// and spacing. dciodvfy's warnings are the two docs/dicom.md explains ("Validation"): our private
// block and the empty Laterality; any other warning fails the test too.
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

struct Case {
  DicomObjectType type;
  DicomCompression compression;
  DicomValueMode values;
  bool petAcquisition = false;  // activity in Bq/mL with every PET attribute (fullPetAcquisition)
  PatientPosition position = PatientPosition::FFS;
};

ExportedSeries exportCase(const test::TempDir& dir, const Case& c) {
  const VolumeShape shape{21, 13, 3};
  const Eigen::Vector3d voxel(0.4, 0.7, 1.1), origin(-4, -4.2, 1.1);
  const Volume volume =
      c.petAcquisition ? test::randomActivityVolume(shape, voxel, origin, test::randomSeed())
                       : test::randomAttenuationVolume(shape, voxel, origin, test::randomSeed());
  DicomExportOptions o;
  o.type = c.type;
  o.compression = c.compression;
  o.values = c.values;
  o.patientPosition = c.position;
  if (c.petAcquisition) o.pet = test::fullPetAcquisition();
  o.identity.patientName = "DOE^JANE";
  o.identity.patientSex = "F";
  o.identity.patientBirthDate = "19800101";
  o.provenance.algorithm = "FDK";
  o.provenance.variant = "fdk.bp.fast";
  o.provenance.acquisitionKey = "test";
  JobContext context;
  const fs::path folder = dir / "series";
  return {exportDicom(volume, folder, o, context), folder};
}

std::vector<std::string> errorLines(const std::string& output) {
  std::vector<std::string> errors;
  std::istringstream in(output);
  for (std::string line; std::getline(in, line);)
    if (line.rfind("Error", 0) == 0) errors.push_back(line);
  return errors;
}

// Warnings other than those we keep on purpose (docs/dicom.md, "Validation"): our private block,
// the empty Laterality, and for native CT values Rescale Type US.
std::vector<std::string> unexpectedWarnings(const std::string& output, bool native) {
  std::vector<std::string> warnings;
  std::istringstream in(output);
  for (std::string line; std::getline(in, line);) {
    const bool privateTag =
        line.rfind("(0x0011,0x10", 0) == 0 && line.find("Unrecognized tag") != std::string::npos;
    const bool laterality = line.find("attribute <Laterality>") != std::string::npos;
    const bool unspecified =
        native && line.find("<US> for value 1 of attribute <Rescale Type>") != std::string::npos;
    if (line.find("Warning") != std::string::npos && !privateTag && !laterality && !unspecified)
      warnings.push_back(line);
  }
  return warnings;
}

class DicomValidators : public ::testing::TestWithParam<Case> {};

TEST_P(DicomValidators, DciodvfyFindsNoErrorsAndGdcmReadsTheGeometry) {
  TOMOWB_REQUIRE_PROGRAM("dciodvfy");
  TOMOWB_REQUIRE_PROGRAM("gdcminfo");
  test::TempDir dir;
  const auto [r, folder] = exportCase(dir, GetParam());
  for (const fs::path& name : r.files) {
    const fs::path file = folder / name;
    const auto check = test::runCommand("dciodvfy '" + file.string() + "'");
    const auto errors = errorLines(check.output);
    EXPECT_TRUE(errors.empty()) << file << ":\n" << check.output;
    EXPECT_TRUE(
        unexpectedWarnings(check.output, GetParam().values == DicomValueMode::Native).empty())
        << file << ":\n"
        << check.output;

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
    cases.push_back({DicomObjectType::PetImage, c, DicomValueMode::Hounsfield, true});
  }
  cases.push_back({DicomObjectType::CtImage, DicomCompression::None, DicomValueMode::Native});
  // The NM/PET Patient Orientation codes of a prone and a decubitus patient.
  cases.push_back({DicomObjectType::PetImage, DicomCompression::None, DicomValueMode::Hounsfield,
                   true, PatientPosition::HFP});
  cases.push_back({DicomObjectType::PetImage, DicomCompression::None, DicomValueMode::Hounsfield,
                   true, PatientPosition::FFDL});
  return cases;
}

INSTANTIATE_TEST_SUITE_P(AllObjects, DicomValidators, ::testing::ValuesIn(validatorCases()),
                         [](const auto& info) {
                           std::string name = toString(info.param.type) + "_" +
                                              toString(info.param.compression) + "_" +
                                              toString(info.param.values);
                           if (info.param.petAcquisition)
                             name += "_bqml_" + toString(info.param.position);
                           for (char& c : name)
                             if (c == '-') c = '_';
                           return name;
                         });

}  // namespace
}  // namespace tomowb::io::dicom
