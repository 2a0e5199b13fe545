// PET Image export with its acquisition (DicomPetModules, docs/dicom.md "PET"): activity
// concentrations in Bq/mL come back within half of their slice's slope, every slice has its own
// slope and intercept 0, the PET Series / Isotope / Image / Patient Orientation attributes are
// there with their VRs, the Decay Factor and Frame Reference Time follow PS3.3's definitions,
// and every bad input is a ParameterError naming its field.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

#include "recon/core/Error.h"
#include "recon/io/dicom/DicomDcmtkSupport.h"  // DCMTK first (osconfig.h)
#include "recon/io/dicom/DicomExport.h"
#include "recon/io/dicom/DicomImport.h"
#include "recon/job/JobContext.h"
#include "tests/recon/io/dicom/DicomTestSupport.h"

namespace tomowb::io::dicom {
namespace {

namespace fs = std::filesystem;

constexpr double kF18HalfLifeS = 6586.2;

Volume activityVolume() {
  return test::randomActivityVolume(VolumeShape{19, 15, 5}, Eigen::Vector3d(2.0, 2.0, 3.27),
                                    Eigen::Vector3d(-18.0, -14.0, 0.0), test::randomSeed());
}

DicomExportOptions petOptions() {
  DicomExportOptions o;
  o.type = DicomObjectType::PetImage;
  o.pet = test::fullPetAcquisition();
  o.provenance.algorithm = "DIRECT";
  return o;
}

// The first file of an exported series, loaded whole.
struct LoadedFile {
  DcmFileFormat file;
  DcmDataset& data() { return *file.getDataset(); }
};
std::unique_ptr<LoadedFile> loadFirst(const DicomExportResult& r) {
  auto loaded = std::make_unique<LoadedFile>();
  const fs::path path = r.folder / r.files.front();
  EXPECT_TRUE(loaded->file.loadFile(path.c_str()).good()) << path;
  return loaded;
}

std::string text(DcmItem& item, const DcmTagKey& key) {
  return getString(item, key).value_or("");
}

// The element's VR as written (explicit VR little endian), or "absent".
std::string vrOf(DcmItem& item, const DcmTagKey& key) {
  DcmElement* element = nullptr;
  if (item.findAndGetElement(key, element).bad() || !element) return "absent";
  return DcmVR(element->ident()).getVRName();
}

double expectedFrameReferenceTimeMs(double durationS) {
  const double lambda = std::numbers::ln2 / kF18HalfLifeS;
  const double x = lambda * durationS;
  return 1000.0 * std::log(x / (1.0 - std::exp(-x))) / lambda;
}

TEST(DicomPet, BqPerMlRoundTripsWithinHalfOfEachSlicesSlope) {
  const Volume volume = activityVolume();
  test::TempDir dir;
  JobContext context;
  const DicomExportResult r = exportDicom(volume, dir / "pet", petOptions(), context);
  EXPECT_EQ(r.plan.units, "BQML");
  EXPECT_EQ(r.plan.rescaleIntercept, 0.0);
  ASSERT_EQ(r.plan.sliceRescaleSlopes.size(), 5u);

  const DicomVolume back = readDicomSeries(dir / "pet", {}, context);
  ASSERT_EQ(back.volume.shape(), volume.shape());
  EXPECT_EQ(back.units, "BQML");
  EXPECT_EQ(back.rescaleIntercept, 0.0);
  ASSERT_EQ(back.sliceRescaleSlopes, r.plan.sliceRescaleSlopes);
  for (std::int64_t z = 0; z < volume.nz(); ++z) {
    // Each slice's slope covers its own largest value: the hot sphere grows with z.
    double peak = 0, worst = 0;
    for (std::int64_t y = 0; y < volume.ny(); ++y)
      for (std::int64_t x = 0; x < volume.nx(); ++x) {
        peak = std::max(peak, double(volume.at(x, y, z)));
        worst = std::max(worst, std::abs(double(back.volume.at(x, y, z)) - volume.at(x, y, z)));
      }
    const double slope = back.sliceRescaleSlopes[std::size_t(z)];
    EXPECT_NEAR(slope, peak / 32767.0, 1e-9 * peak) << "slice " << z;
    // Half a slope, plus float32's own rounding of values near 1e5.
    EXPECT_LE(worst, 0.5 * slope + 1e-7 * peak) << "slice " << z;
    if (z > 0) EXPECT_GT(slope, back.sliceRescaleSlopes[std::size_t(z - 1)]);
  }
}

TEST(DicomPet, TheAcquisitionReadsBack) {
  test::TempDir dir;
  JobContext context;
  const DicomExportOptions o = petOptions();
  exportDicom(activityVolume(), dir / "pet", o, context);
  const DicomVolume back = readDicomSeries(dir / "pet", {}, context);
  ASSERT_TRUE(back.pet.has_value());
  const DicomPetAcquisition& pet = *back.pet;
  EXPECT_TRUE(pet.activityConcentration);
  EXPECT_EQ(pet.radionuclide, "F-18");
  EXPECT_EQ(pet.radiopharmaceutical, "Fluorodeoxyglucose");
  EXPECT_DOUBLE_EQ(pet.totalDoseBq, 350e6);
  EXPECT_EQ(pet.halfLifeS, 6586.2);
  EXPECT_EQ(pet.positronFraction, 0.967);
  EXPECT_EQ(pet.injectionDateTime, "20260302090000");
  EXPECT_EQ(pet.acquisitionDateTime, "20260302100000");
  EXPECT_EQ(pet.decayCorrection, PetDecayCorrection::Start);
  EXPECT_EQ(pet.actualFrameDurationMs, 600000);
  EXPECT_DOUBLE_EQ(pet.patientWeightKg, 72.5);
  EXPECT_EQ(pet.correctedImage, (std::vector<std::string>{"NORM", "ATTN", "SCAT", "RAN", "DECY"}));
  EXPECT_EQ(pet.reconstructionMethod, "DIRECT-RAMLA 10it 120views 400ps");
  EXPECT_EQ(pet.countsSource, "EMISSION");
  EXPECT_EQ(pet.seriesType, "STATIC\\IMAGE");
  ASSERT_TRUE(pet.frameReferenceTimeMs && pet.decayFactor);
  EXPECT_NEAR(*pet.frameReferenceTimeMs, expectedFrameReferenceTimeMs(600), 1e-6);
}

TEST(DicomPet, AttributesArePresentWithTheirVrs) {
  test::TempDir dir;
  JobContext context;
  const DicomExportResult r = exportDicom(activityVolume(), dir / "pet", petOptions(), context);
  auto loaded = loadFirst(r);
  DcmDataset& d = loaded->data();
  EXPECT_EQ(text(d, DCM_SOPClassUID), UID_PositronEmissionTomographyImageStorage);
  EXPECT_EQ(text(d, DCM_Modality), "PT");
  EXPECT_EQ(text(d, DCM_ImageType), "DERIVED\\PRIMARY");
  // PET Series
  EXPECT_EQ(vrOf(d, DCM_SeriesDate), "DA");
  EXPECT_EQ(text(d, DCM_SeriesDate), "20260302");
  EXPECT_EQ(text(d, DCM_SeriesTime), "100000");
  EXPECT_EQ(vrOf(d, DCM_Units), "CS");
  EXPECT_EQ(text(d, DCM_Units), "BQML");
  EXPECT_EQ(text(d, DCM_CountsSource), "EMISSION");
  EXPECT_EQ(vrOf(d, DCM_SeriesType), "CS");
  EXPECT_EQ(text(d, DCM_SeriesType), "STATIC\\IMAGE");
  EXPECT_EQ(vrOf(d, DCM_NumberOfSlices), "US");
  EXPECT_EQ(getNumbers(d, DCM_NumberOfSlices), std::vector<double>{5});
  EXPECT_EQ(vrOf(d, DCM_CorrectedImage), "CS");
  EXPECT_EQ(text(d, DCM_CorrectedImage), "NORM\\ATTN\\SCAT\\RAN\\DECY");
  EXPECT_EQ(text(d, DCM_DecayCorrection), "START");
  EXPECT_EQ(vrOf(d, DCM_ReconstructionMethod), "LO");
  EXPECT_EQ(text(d, DCM_CollimatorType), "NONE");
  // PET Isotope
  EXPECT_EQ(vrOf(d, DCM_RadiopharmaceuticalInformationSequence), "SQ");
  DcmItem* drug = firstItem(d, DCM_RadiopharmaceuticalInformationSequence);
  ASSERT_NE(drug, nullptr);
  DcmItem* nuclide = firstItem(*drug, DCM_RadionuclideCodeSequence);
  ASSERT_NE(nuclide, nullptr);
  EXPECT_EQ(vrOf(*nuclide, DCM_CodeValue), "SH");
  EXPECT_EQ(text(*nuclide, DCM_CodeValue), "77004003");
  EXPECT_EQ(text(*nuclide, DCM_CodingSchemeDesignator), "SCT");
  EXPECT_EQ(text(*nuclide, DCM_CodeMeaning), "^18^Fluorine");
  EXPECT_EQ(vrOf(*drug, DCM_Radiopharmaceutical), "LO");
  DcmItem* fdg = firstItem(*drug, DCM_RadiopharmaceuticalCodeSequence);
  ASSERT_NE(fdg, nullptr);
  EXPECT_EQ(text(*fdg, DCM_CodeValue), "35321007");
  EXPECT_EQ(vrOf(*drug, DCM_RadionuclideTotalDose), "DS");
  EXPECT_EQ(getNumbers(*drug, DCM_RadionuclideTotalDose), std::vector<double>{350e6});
  EXPECT_EQ(vrOf(*drug, DCM_RadionuclideHalfLife), "DS");
  EXPECT_EQ(text(*drug, DCM_RadionuclideHalfLife), "6586.2");
  EXPECT_EQ(vrOf(*drug, DCM_RadionuclidePositronFraction), "DS");
  EXPECT_EQ(vrOf(*drug, DCM_RadiopharmaceuticalStartDateTime), "DT");
  EXPECT_EQ(text(*drug, DCM_RadiopharmaceuticalStartDateTime), "20260302090000");
  EXPECT_EQ(vrOf(*drug, DCM_RadiopharmaceuticalStartTime), "TM");
  EXPECT_EQ(text(*drug, DCM_RadiopharmaceuticalStartTime), "090000");
  // NM/PET Patient Orientation (HFS)
  DcmItem* orientation = firstItem(d, DCM_PatientOrientationCodeSequence);
  ASSERT_NE(orientation, nullptr);
  EXPECT_EQ(text(*orientation, DCM_CodeMeaning), "recumbent");
  DcmItem* modifier = firstItem(*orientation, DCM_PatientOrientationModifierCodeSequence);
  ASSERT_NE(modifier, nullptr);
  EXPECT_EQ(text(*modifier, DCM_CodeValue), "40199007");
  DcmItem* gantry = firstItem(d, DCM_PatientGantryRelationshipCodeSequence);
  ASSERT_NE(gantry, nullptr);
  EXPECT_EQ(text(*gantry, DCM_CodeMeaning), "headfirst");
  EXPECT_EQ(vrOf(d, DCM_PatientPosition), "absent") << "PET carries the code sequences instead";
  // PET Image
  EXPECT_EQ(vrOf(d, DCM_ImageIndex), "US");
  EXPECT_EQ(getNumbers(d, DCM_ImageIndex), std::vector<double>{1});
  EXPECT_EQ(vrOf(d, DCM_FrameReferenceTime), "DS");
  EXPECT_EQ(vrOf(d, DCM_ActualFrameDuration), "IS");
  EXPECT_EQ(text(d, DCM_ActualFrameDuration), "600000");
  EXPECT_EQ(vrOf(d, DCM_DecayFactor), "DS");
  EXPECT_EQ(text(d, DCM_AcquisitionDate), "20260302");
  EXPECT_EQ(text(d, DCM_AcquisitionTime), "100000");
  EXPECT_EQ(text(d, DCM_RescaleIntercept), "0");
  EXPECT_EQ(vrOf(d, DCM_RescaleSlope), "DS");
  EXPECT_EQ(getNumbers(d, DCM_RescaleSlope), std::vector<double>{r.plan.sliceRescaleSlopes[0]});
  EXPECT_EQ(getNumbers(d, DCM_BitsAllocated), std::vector<double>{16});
  // Patient Study
  EXPECT_EQ(vrOf(d, DCM_PatientWeight), "DS");
  EXPECT_EQ(text(d, DCM_PatientWeight), "72.5");
}

TEST(DicomPet, DecayFactorFollowsTheDecayCorrection) {
  const Volume volume = activityVolume();
  const double lambda = std::numbers::ln2 / kF18HalfLifeS;
  const double tAveS = expectedFrameReferenceTimeMs(600) / 1000;
  // START: from the frame's start to its activity-weighted middle, lambda T / (1 - exp(-lambda T)).
  DicomExportOptions o = petOptions();
  DicomExportPlan plan = planDicomExport(volume, o);
  ASSERT_TRUE(plan.petDecayFactor.has_value());
  EXPECT_NEAR(*plan.petDecayFactor, lambda * 600 / (1 - std::exp(-lambda * 600)), 1e-12);
  EXPECT_NEAR(*plan.petDecayFactor, std::exp(lambda * tAveS), 1e-12);
  EXPECT_NEAR(plan.petFrameReferenceTimeMs, 1000 * tAveS, 1e-6);
  // Before the frame's middle, as the activity decays: T/2 - lambda T^2 / 24 to second order.
  EXPECT_NEAR(tAveS, 300.0 - lambda * 600 * 600 / 24, 1e-3);
  // ADMIN: back to the injection, an hour before the scan.
  o.pet.decayCorrection = PetDecayCorrection::Admin;
  plan = planDicomExport(volume, o);
  ASSERT_TRUE(plan.petDecayFactor.has_value());
  EXPECT_NEAR(*plan.petDecayFactor, std::exp(lambda * (3600 + tAveS)), 1e-12);
  // NONE: no factor (and no DECY).
  o.pet.decayCorrection = PetDecayCorrection::None;
  plan = planDicomExport(volume, o);
  EXPECT_FALSE(plan.petDecayFactor.has_value());
  test::TempDir dir;
  JobContext context;
  const DicomExportResult r = exportDicom(volume, dir / "none", o, context);
  auto loaded = loadFirst(r);
  EXPECT_EQ(vrOf(loaded->data(), DCM_DecayFactor), "absent");
  EXPECT_EQ(text(loaded->data(), DCM_DecayCorrection), "NONE");
  EXPECT_EQ(text(loaded->data(), DCM_CorrectedImage), "NORM\\ATTN\\SCAT\\RAN");
  // START, written in every image, the same for all (one static frame).
  o.pet.decayCorrection = PetDecayCorrection::Start;
  const DicomExportResult start = exportDicom(volume, dir / "start", o, context);
  for (const fs::path& name : start.files) {
    DcmFileFormat file;
    ASSERT_TRUE(file.loadFile((start.folder / name).c_str()).good());
    const std::vector<double> factor = getNumbers(*file.getDataset(), DCM_DecayFactor);
    ASSERT_EQ(factor.size(), 1u) << name;
    EXPECT_NEAR(factor[0], std::exp(lambda * tAveS), 1e-9) << name;
  }
  // A given factor and reference time are written as given.
  o.pet.decayFactor = 1.25;
  o.pet.frameReferenceTimeMs = 1234.5;
  plan = planDicomExport(volume, o);
  EXPECT_EQ(plan.petDecayFactor, 1.25);
  EXPECT_EQ(plan.petFrameReferenceTimeMs, 1234.5);
}

TEST(DicomPet, UnitsDefaultToBqmlForActivityConcentrationsOnly) {
  const Volume volume = activityVolume();
  DicomExportOptions o;
  o.type = DicomObjectType::PetImage;
  EXPECT_EQ(planDicomExport(volume, o).units, "PROPCNTS");
  o.pet.activityConcentration = true;
  o.pet.actualFrameDurationMs = 300000;
  const DicomExportPlan plan = planDicomExport(volume, o);
  EXPECT_EQ(plan.units, "BQML");
  // Without dose, weight, injection time and decay correction a viewer has no SUV: said once.
  ASSERT_FALSE(plan.warnings.empty());
  EXPECT_NE(plan.warnings[0].find("SUV"), std::string::npos) << plan.warnings[0];
  EXPECT_TRUE(planDicomExport(volume, petOptions()).warnings.empty())
      << planDicomExport(volume, petOptions()).warnings[0];
  o.petUnits = "CNTS";
  EXPECT_EQ(planDicomExport(volume, o).units, "CNTS");
}

TEST(DicomPet, PatientOrientationCodesFollowThePatientPosition) {
  const Volume volume = activityVolume();
  struct Expected {
    PatientPosition position;
    const char* lying;
    const char* gantry;
  };
  for (const Expected& e :
       {Expected{PatientPosition::FFP, "prone", "feet-first"},
        Expected{PatientPosition::HFDL, "left lateral decubitus", "headfirst"},
        Expected{PatientPosition::FFDR, "right lateral decubitus", "feet-first"}}) {
    DicomExportOptions o = petOptions();
    o.patientPosition = e.position;
    test::TempDir dir;
    JobContext context;
    const DicomExportResult r = exportDicom(volume, dir / "pet", o, context);
    auto loaded = loadFirst(r);
    DcmItem* orientation = firstItem(loaded->data(), DCM_PatientOrientationCodeSequence);
    ASSERT_NE(orientation, nullptr);
    DcmItem* modifier = firstItem(*orientation, DCM_PatientOrientationModifierCodeSequence);
    ASSERT_NE(modifier, nullptr);
    EXPECT_EQ(text(*modifier, DCM_CodeMeaning), e.lying) << toString(e.position);
    DcmItem* gantry = firstItem(loaded->data(), DCM_PatientGantryRelationshipCodeSequence);
    ASSERT_NE(gantry, nullptr);
    EXPECT_EQ(text(*gantry, DCM_CodeMeaning), e.gantry) << toString(e.position);
    // The position still reads back (private block) with the same geometry.
    const DicomVolume back = readDicomSeries(dir / "pet", {}, context);
    EXPECT_EQ(back.patientPosition, e.position);
    EXPECT_LT((back.volume.originMm() - volume.originMm()).norm(), 1e-9);
  }
}

TEST(DicomPet, BadAcquisitionsAreParameterErrorsNamingTheField) {
  const Volume volume = activityVolume();
  const auto expectError = [&](const DicomExportOptions& o, const char* field,
                               const char* words = "") {
    try {
      planDicomExport(volume, o);
      ADD_FAILURE() << field << ": no error";
    } catch (const ParameterError& e) {
      const std::string message = e.what();
      EXPECT_NE(message.find(std::string("'") + field + "'"), std::string::npos) << message;
      EXPECT_NE(message.find(words), std::string::npos) << message;
    }
  };
  DicomExportOptions o = petOptions();
  o.pet.totalDoseBq = -1;
  expectError(o, "dose-bq", ">= 0");
  o = petOptions();
  o.pet.totalDoseBq = std::numeric_limits<double>::infinity();
  expectError(o, "dose-bq");
  o = petOptions();
  o.pet.halfLifeS = 0.0;
  expectError(o, "half-life", "> 0");
  o = petOptions();
  o.pet.positronFraction = 1.5;
  expectError(o, "positron-fraction");
  o = petOptions();
  o.pet.radionuclide = "Tc-99m";
  expectError(o, "radionuclide", "F-18");
  o = petOptions();
  o.pet.injectionDateTime = "2026-02-30T09:00:00";
  expectError(o, "injection-time", "not a valid date");
  o = petOptions();
  o.pet.injectionDateTime = "0900";
  expectError(o, "injection-time");
  o = petOptions();
  o.pet.acquisitionDateTime = "20260302250000";
  expectError(o, "acquisition-time", "not a valid time");
  o = petOptions();
  o.pet.acquisitionDateTime.clear();
  expectError(o, "acquisition-time", "injection");
  o = petOptions();
  o.pet.injectionDateTime = "20260302103000";
  expectError(o, "injection-time", "after the scan");
  o = petOptions();
  o.pet.actualFrameDurationMs = 0;
  expectError(o, "frame-duration", "BQML");
  o = petOptions();
  o.pet.actualFrameDurationMs = -5;
  expectError(o, "frame-duration");
  o = petOptions();
  o.petUnits = "PROPCNTS";
  o.pet.actualFrameDurationMs = 0;
  expectError(o, "frame-duration", "Decay Factor");
  o = petOptions();
  o.pet.decayCorrection = PetDecayCorrection::Admin;
  o.pet.injectionDateTime.clear();
  expectError(o, "decay-correction", "injection");
  o = petOptions();
  o.pet.decayCorrection = PetDecayCorrection::None;
  o.pet.decayFactor = 1.1;
  expectError(o, "decay-factor");
  o = petOptions();
  o.pet.decayFactor = -1.0;
  expectError(o, "decay-factor");
  o = petOptions();
  o.pet.frameReferenceTimeMs = -1.0;
  expectError(o, "frame-reference-time");
  o = petOptions();
  o.pet.patientWeightKg = -70;
  expectError(o, "patient-weight");
  o = petOptions();
  o.pet.correctedImage = {"ATTN", "ATN"};
  expectError(o, "corrected-image", "ATN");
  o = petOptions();
  o.pet.decayCorrection = PetDecayCorrection::None;
  o.pet.correctedImage = {"DECY"};
  expectError(o, "corrected-image", "NONE");
  o = petOptions();
  o.pet.countsSource = "PROMPTS";
  expectError(o, "counts-source");
  o = petOptions();
  o.pet.seriesType = "DYNAMIC\\IMAGE";
  expectError(o, "series-type");
  o = petOptions();
  o.pet.reconstructionMethod = std::string(65, 'x');
  expectError(o, "reconstruction-method", "64");
  o = petOptions();
  o.pet.radiopharmaceutical = "FDG\\water";
  expectError(o, "radiopharmaceutical", "backslash");
  o = petOptions();
  o.petUnits = "KBQ";
  expectError(o, "pet-units");
  // Nothing of the PET acquisition is checked for CT.
  o.type = DicomObjectType::CtImage;
  EXPECT_NO_THROW(planDicomExport(volume, o));
}

TEST(DicomPetOptions, DateTimesAreNormalisedOrRefusedByName) {
  EXPECT_EQ(normaliseDateTime("2026-03-02T09:05:07", "t"), "20260302090507");
  EXPECT_EQ(normaliseDateTime("2026-03-02 09:05:07.25", "t"), "20260302090507.25");
  EXPECT_EQ(normaliseDateTime("20240229235959.123456", "t"), "20240229235959.123456");
  EXPECT_EQ(normaliseDateTime("", "t"), "");
  for (const char* bad : {"20250229120000", "2026-03-02", "20260302", "2026-03-02T9:05:07",
                          "20260302090507.1234567", "20260302090507.", "2026/03/02 09:05:07",
                          "20261302090507", "20260302096007", "yesterday"}) {
    try {
      normaliseDateTime(bad, "injection-time");
      ADD_FAILURE() << bad << ": accepted";
    } catch (const ParameterError& e) {
      EXPECT_NE(std::string(e.what()).find("'injection-time'"), std::string::npos) << e.what();
    }
  }
}

TEST(DicomPetOptions, RadionuclidesByNameAndCode) {
  EXPECT_EQ(petRadionuclide("18F").name, "F-18");
  EXPECT_EQ(petRadionuclide("f18").code.value, "77004003");
  EXPECT_EQ(petRadionuclide("Ga-68").code.meaning, "^68^Gallium");
  ASSERT_NE(petRadionuclideOfCode("C-111A1"), nullptr);  // the older SNOMED-RT code
  EXPECT_EQ(petRadionuclideOfCode("C-111A1")->name, "F-18");
  EXPECT_EQ(petRadionuclideOfCode("40565003")->name, "C-11");
  EXPECT_EQ(petRadionuclideOfCode("12345"), nullptr);
  EXPECT_THROW(petRadionuclide("F-19"), ParameterError);
  EXPECT_EQ(parseDecayCorrection("Start"), PetDecayCorrection::Start);
  EXPECT_EQ(toString(PetDecayCorrection::Admin), "ADMIN");
  EXPECT_THROW(parseDecayCorrection("end"), ParameterError);
}

}  // namespace
}  // namespace tomowb::io::dicom
