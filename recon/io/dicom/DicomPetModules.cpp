// DicomPetModules.cpp: see the header. The type of each attribute (1, 2, 1C, 3) is PS3.3's for
// the PET Image IOD; type 2 attributes are present, empty when unknown; type 3 ones only when
// known.
#include "recon/io/dicom/DicomPetModules.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <numbers>
#include <string_view>
#include <utility>

#include "recon/core/Error.h"
#include "recon/io/dicom/DicomGeometry.h"  // formatDecimalString

namespace tomowb::io::dicom::detail {

namespace {

constexpr std::size_t kMaxLo = 64;

// PS3.3 C.8.9.1.1.3: the PET units.
constexpr std::array<std::string_view, 19> kPetUnits{
    "CNTS",    "NONE",      "CM2",    "CM2ML", "PCNT",  "CPS",    "BQML",
    "MGMINML", "UMOLMINML", "MLMING", "MLG",   "1CM",   "UMOLML", "PROPCNTS",
    "PROPCPS", "MLMINML",   "MLML",   "GML",   "STDDEV"};

// PS3.3 C.8.9.1.1.5: Corrected Image's defined terms for PET (DECY follows the decay correction).
constexpr std::array<std::string_view, 11> kCorrections{
    "NORM", "ATTN", "SCAT", "RAN", "DTIM", "DCAL", "MOTN", "PMOT", "CLN", "RADL", "DECY"};

// The Radiopharmaceutical Code Sequence (CID 4021) for the one radiopharmaceutical we name by
// default; others are written as free text only (the sequence is type 3).
const DicomCode kFdg{"35321007", "SCT", "Fluorodeoxyglucose F^18^"};

std::string join(const std::vector<std::string>& values) {
  std::string joined;
  for (const std::string& v : values) joined += (joined.empty() ? "" : "\\") + v;
  return joined;
}

void requireText(std::string_view value, std::size_t max, std::string_view parameter) {
  if (value.size() > max)
    throw ParameterError(parameter, "at most " + std::to_string(max) + " characters, got " +
                                        std::to_string(value.size()));
  if (value.find('\\') != std::string_view::npos)
    throw ParameterError(parameter, "must not contain a backslash");
}

void requireFinite(double value, std::string_view parameter) {
  if (!std::isfinite(value)) throw ParameterError(parameter, "must be a finite number");
}

std::string lowerCase(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

// Seconds since 1970 of a normalised DICOM date-time (normaliseDateTime), as local time.
double secondsOf(const std::string& dateTime) {
  const auto number = [&](std::size_t at, std::size_t n) {
    return std::stoi(dateTime.substr(at, n));
  };
  const std::chrono::sys_days day{std::chrono::year_month_day{
      std::chrono::year(number(0, 4)), std::chrono::month(static_cast<unsigned>(number(4, 2))),
      std::chrono::day(static_cast<unsigned>(number(6, 2)))}};
  double seconds = static_cast<double>(day.time_since_epoch().count()) * 86400.0 +
                   number(8, 2) * 3600.0 + number(10, 2) * 60.0 + number(12, 2);
  if (dateTime.size() > 15) seconds += std::stod(dateTime.substr(14));  // ".FFFFFF"
  return seconds;
}

std::string textOf(double seconds) {
  return formatDecimalString(seconds) + " s";
}

// Corrected Image: the given terms, checked, each once, DECY exactly when decay corrected.
std::string correctedImage(const DicomPetAcquisition& pet) {
  std::vector<std::string> terms;
  for (const std::string& given : pet.correctedImage) {
    std::string term = given;
    std::transform(term.begin(), term.end(), term.begin(),
                   [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
    if (std::find(kCorrections.begin(), kCorrections.end(), term) == kCorrections.end()) {
      std::string list;
      for (std::string_view t : kCorrections) list += (list.empty() ? "" : ", ") + std::string(t);
      throw ParameterError("corrected-image",
                           "'" + given + "' is not a PET correction (" + std::move(list) + ")");
    }
    if (term == "DECY" && pet.decayCorrection == PetDecayCorrection::None)
      throw ParameterError("corrected-image",
                           "DECY (decay corrected) contradicts decay correction NONE");
    if (std::find(terms.begin(), terms.end(), term) == terms.end()) terms.push_back(term);
  }
  if (pet.decayCorrection != PetDecayCorrection::None &&
      std::find(terms.begin(), terms.end(), "DECY") == terms.end())
    terms.emplace_back("DECY");
  return join(terms);
}

std::string defaultReconstructionMethod(const DicomProvenance& p) {
  std::string method = p.algorithm;
  if (!p.variant.empty()) method += (method.empty() ? "" : " ") + p.variant;
  if (p.iterations > 0) method += " " + std::to_string(p.iterations) + " it";
  if (method.size() > kMaxLo) method.resize(kMaxLo);
  return method;
}

void checkNumbers(const DicomPetAcquisition& pet, const PetSeriesAttributes& r) {
  if (!(r.radionuclide.halfLifeS > 0) || !std::isfinite(r.radionuclide.halfLifeS))
    throw ParameterError("half-life",
                         "must be > 0 s, got " + formatDecimalString(r.radionuclide.halfLifeS));
  if (!(r.radionuclide.positronFraction > 0 && r.radionuclide.positronFraction <= 1))
    throw ParameterError(
        "positron-fraction",
        "must be in (0, 1], got " + formatDecimalString(r.radionuclide.positronFraction));
  requireFinite(pet.totalDoseBq, "dose-bq");
  if (pet.totalDoseBq < 0)
    throw ParameterError("dose-bq", "the injected activity must be >= 0 Bq (0: unknown), got " +
                                        formatDecimalString(pet.totalDoseBq));
  if (pet.actualFrameDurationMs < 0 || pet.actualFrameDurationMs > 2147483647)
    throw ParameterError("frame-duration", "must be 0 (unknown) to 2147483647 ms, got " +
                                               std::to_string(pet.actualFrameDurationMs));
  requireFinite(pet.patientWeightKg, "patient-weight");
  if (pet.patientWeightKg < 0 || pet.patientWeightKg > 1000)
    throw ParameterError("patient-weight", "must be 0 (unknown) to 1000 kg, got " +
                                               formatDecimalString(pet.patientWeightKg));
  if (pet.frameReferenceTimeMs &&
      (!std::isfinite(*pet.frameReferenceTimeMs) || *pet.frameReferenceTimeMs < 0))
    throw ParameterError("frame-reference-time",
                         "must be >= 0 ms, got " + formatDecimalString(*pet.frameReferenceTimeMs));
  if (pet.decayFactor && pet.decayCorrection == PetDecayCorrection::None)
    throw ParameterError("decay-factor", "is written only with decay correction START or ADMIN");
  if (pet.decayFactor && (!std::isfinite(*pet.decayFactor) || !(*pet.decayFactor > 0)))
    throw ParameterError("decay-factor",
                         "must be > 0, got " + formatDecimalString(*pet.decayFactor));
}

void checkEnumerations(const DicomPetAcquisition& pet, const std::string& units) {
  if (std::find(kPetUnits.begin(), kPetUnits.end(), units) == kPetUnits.end()) {
    std::string list;
    for (std::string_view u : kPetUnits) list += (list.empty() ? "" : ", ") + std::string(u);
    throw ParameterError("pet-units", "'" + units + "' is not a PET unit (" + list + ")");
  }
  if (pet.countsSource != "EMISSION" && pet.countsSource != "TRANSMISSION")
    throw ParameterError("counts-source",
                         "EMISSION or TRANSMISSION, got '" + pet.countsSource + "'");
  // DYNAMIC, GATED and REPROJECTION need attributes (time slots, R-R intervals, a reprojection
  // method) that a single reconstructed volume does not have.
  if (pet.seriesType != "STATIC\\IMAGE" && pet.seriesType != "WHOLE BODY\\IMAGE")
    throw ParameterError("series-type",
                         "STATIC\\IMAGE or WHOLE BODY\\IMAGE, got '" + pet.seriesType + "'");
  requireText(pet.radiopharmaceutical, kMaxLo, "radiopharmaceutical");
  requireText(pet.reconstructionMethod, kMaxLo, "reconstruction-method");
}

// The Frame Reference Time (PS3.3 C.8.9.4.1.5): the time after the frame's start at which the
// activity equals its average over the frame, T_ave = ln(lambda T / (1 - exp(-lambda T))) /
// lambda, for a frame that starts at the Series reference time.
double frameReferenceTimeMs(double lambdaPerS, std::int64_t durationMs) {
  if (durationMs <= 0) return 0;
  const double x = lambdaPerS * static_cast<double>(durationMs) / 1000.0;
  return 1000.0 * std::log(x / -std::expm1(-x)) / lambdaPerS;
}

}  // namespace

namespace {

// The acquisition's date and time; returns the uptake time (injection to scan start), in s.
double resolveTimes(const DicomPetAcquisition& pet, PetSeriesAttributes& r) {
  const std::string injection = normaliseDateTime(pet.injectionDateTime, "injection-time");
  const std::string acquisition = normaliseDateTime(pet.acquisitionDateTime, "acquisition-time");
  if (!acquisition.empty()) {
    r.acquisitionDate = acquisition.substr(0, 8);
    r.acquisitionTime = acquisition.substr(8);
  }
  if (pet.decayCorrection == PetDecayCorrection::Admin && injection.empty())
    throw ParameterError("decay-correction",
                         "ADMIN corrects to the injection: give the injection time");
  if (injection.empty()) return 0;
  if (acquisition.empty())
    throw ParameterError("acquisition-time",
                         "the injection time needs the scan's start time too (the Series "
                         "Date/Time it is measured from)");
  const double uptakeS = secondsOf(acquisition) - secondsOf(injection);
  if (uptakeS < 0)
    throw ParameterError("injection-time", "the injection (" + injection +
                                               ") is after the scan's start (" + acquisition + ")");
  if (uptakeS > 20 * r.radionuclide.halfLifeS)
    r.warnings.push_back("the scan starts " + textOf(uptakeS) + " after the injection, " +
                         formatDecimalString(uptakeS / r.radionuclide.halfLifeS) +
                         " half-lives: is the injection date right?");
  return uptakeS;
}

// The Frame Reference Time and, when decay corrected, the Decay Factor: exp(lambda t), t from
// the decay reference (the scan's start, or the injection for ADMIN) to the Frame Reference Time.
void resolveDecay(const DicomPetAcquisition& pet, double uptakeS, PetSeriesAttributes& r) {
  const double lambda = std::numbers::ln2 / r.radionuclide.halfLifeS;
  r.frameReferenceTimeMs = pet.frameReferenceTimeMs
                               ? *pet.frameReferenceTimeMs
                               : frameReferenceTimeMs(lambda, pet.actualFrameDurationMs);
  if (pet.decayCorrection == PetDecayCorrection::None) return;
  if (pet.decayFactor) {
    r.decayFactor = *pet.decayFactor;
    return;
  }
  if (!pet.frameReferenceTimeMs && pet.actualFrameDurationMs <= 0)
    throw ParameterError("frame-duration", "decay correction " + toString(pet.decayCorrection) +
                                               " needs the frame's duration to compute the Decay "
                                               "Factor (or give the decay factor)");
  const double referenceS = pet.decayCorrection == PetDecayCorrection::Admin ? uptakeS : 0.0;
  r.decayFactor = std::exp(lambda * (referenceS + r.frameReferenceTimeMs / 1000));
}

// What a viewer lacks to compute SUV from a BQML series, said once.
void warnAboutSuv(const DicomPetAcquisition& pet, PetSeriesAttributes& r) {
  if (r.units != "BQML") return;
  std::string missing;
  const auto lacks = [&](bool absent, const char* what) {
    if (absent) missing += (missing.empty() ? "" : ", ") + std::string(what);
  };
  lacks(pet.patientWeightKg <= 0, "patient weight");
  lacks(pet.totalDoseBq <= 0, "injected dose");
  lacks(pet.injectionDateTime.empty(), "injection time");
  lacks(pet.decayCorrection == PetDecayCorrection::None, "decay correction");
  if (!missing.empty())
    r.warnings.push_back("viewers cannot compute SUV without the " + missing +
                         " (the values in Bq/mL are exported all the same)");
}

}  // namespace

PetSeriesAttributes resolvePetAttributes(const DicomExportOptions& options) {
  const DicomPetAcquisition& pet = options.pet;
  PetSeriesAttributes r;
  r.units = petUnitsOf(options);
  r.radionuclide = petRadionuclide(pet.radionuclide, "radionuclide");
  if (pet.halfLifeS) r.radionuclide.halfLifeS = *pet.halfLifeS;
  if (pet.positronFraction) r.radionuclide.positronFraction = *pet.positronFraction;
  checkNumbers(pet, r);
  checkEnumerations(pet, r.units);
  if (r.units == "BQML" && pet.actualFrameDurationMs <= 0)
    throw ParameterError("frame-duration",
                         "Units BQML (activity concentration) need the frame's duration: give "
                         "the acquisition's length in seconds");
  const double uptakeS = resolveTimes(pet, r);
  resolveDecay(pet, uptakeS, r);
  r.correctedImage = correctedImage(pet);
  r.reconstructionMethod = pet.reconstructionMethod.empty()
                               ? defaultReconstructionMethod(options.provenance)
                               : pet.reconstructionMethod;
  warnAboutSuv(pet, r);
  return r;
}

void putPetModules(DcmItem& d, const PetSeriesAttributes& pet, const DicomExportOptions& options,
                   std::int64_t imageIndex, std::int64_t slices, const std::string& exportDate,
                   const std::string& exportTime) {
  const DicomPetAcquisition& a = options.pet;
  // PET Series (Series Date and Time are written with the General Series module).
  putString(d, DCM_Units, pet.units);
  putString(d, DCM_CountsSource, a.countsSource);
  putString(d, DCM_SeriesType, a.seriesType);
  putUint16(d, DCM_NumberOfSlices, static_cast<Uint16>(slices));
  putString(d, DCM_CorrectedImage, pet.correctedImage);  // type 2
  putString(d, DCM_DecayCorrection, toString(a.decayCorrection));
  putString(d, DCM_CollimatorType, "NONE");  // type 2: a PET scanner has no collimator
  if (!pet.reconstructionMethod.empty())
    putString(d, DCM_ReconstructionMethod, pet.reconstructionMethod);

  // PET Isotope: one radiopharmaceutical, its radionuclide coded (type 2), the rest as known.
  DcmItem& drug = addSequenceItem(d, DCM_RadiopharmaceuticalInformationSequence);
  DcmItem& nuclide = addSequenceItem(drug, DCM_RadionuclideCodeSequence);
  putString(nuclide, DCM_CodeValue, pet.radionuclide.code.value);
  putString(nuclide, DCM_CodingSchemeDesignator, pet.radionuclide.code.scheme);
  putString(nuclide, DCM_CodeMeaning, pet.radionuclide.code.meaning);
  if (!a.radiopharmaceutical.empty()) {
    putString(drug, DCM_Radiopharmaceutical, a.radiopharmaceutical);
    if (lowerCase(a.radiopharmaceutical) == "fluorodeoxyglucose" &&
        pet.radionuclide.name == "F-18") {
      DcmItem& code = addSequenceItem(drug, DCM_RadiopharmaceuticalCodeSequence);
      putString(code, DCM_CodeValue, kFdg.value);
      putString(code, DCM_CodingSchemeDesignator, kFdg.scheme);
      putString(code, DCM_CodeMeaning, kFdg.meaning);
    }
  }
  const std::string injection = normaliseDateTime(a.injectionDateTime, "injection-time");
  if (!injection.empty()) {
    // Both: SUV tools older than the DateTime attribute read the time (with the Series Date).
    putString(drug, DCM_RadiopharmaceuticalStartTime, injection.substr(8));
    putString(drug, DCM_RadiopharmaceuticalStartDateTime, injection);
  }
  if (a.totalDoseBq > 0)
    putString(drug, DCM_RadionuclideTotalDose, formatDecimalString(a.totalDoseBq));
  putString(drug, DCM_RadionuclideHalfLife, formatDecimalString(pet.radionuclide.halfLifeS));
  putString(drug, DCM_RadionuclidePositronFraction,
            formatDecimalString(pet.radionuclide.positronFraction));

  // NM/PET Patient Orientation (type 2 sequences, filled from the Patient Position: CIDs 19, 20,
  // 21; PET has no Patient Position attribute).
  const PatientPosition position = options.patientPosition;
  DcmItem& orientation = addSequenceItem(d, DCM_PatientOrientationCodeSequence);
  putString(orientation, DCM_CodeValue, "102538003");
  putString(orientation, DCM_CodingSchemeDesignator, "SCT");
  putString(orientation, DCM_CodeMeaning, "recumbent");
  DcmItem& modifier = addSequenceItem(orientation, DCM_PatientOrientationModifierCodeSequence);
  DicomCode lying{"40199007", "SCT", "supine"};
  if (position == PatientPosition::HFP || position == PatientPosition::FFP)
    lying = {"1240000", "SCT", "prone"};
  else if (position == PatientPosition::HFDR || position == PatientPosition::FFDR)
    lying = {"102535000", "SCT", "right lateral decubitus"};
  else if (position == PatientPosition::HFDL || position == PatientPosition::FFDL)
    lying = {"102536004", "SCT", "left lateral decubitus"};
  putString(modifier, DCM_CodeValue, lying.value);
  putString(modifier, DCM_CodingSchemeDesignator, lying.scheme);
  putString(modifier, DCM_CodeMeaning, lying.meaning);
  const bool headFirst = position == PatientPosition::HFS || position == PatientPosition::HFP ||
                         position == PatientPosition::HFDR || position == PatientPosition::HFDL;
  DcmItem& gantry = addSequenceItem(d, DCM_PatientGantryRelationshipCodeSequence);
  putString(gantry, DCM_CodeValue, headFirst ? "102540008" : "102541007");
  putString(gantry, DCM_CodingSchemeDesignator, "SCT");
  putString(gantry, DCM_CodeMeaning, headFirst ? "headfirst" : "feet-first");

  // PET Image (Image Type, pixel description and rescale are written by the caller).
  putString(d, DCM_FrameReferenceTime, formatDecimalString(pet.frameReferenceTimeMs));
  putUint16(d, DCM_ImageIndex, static_cast<Uint16>(imageIndex));
  putString(d, DCM_AcquisitionDate, pet.acquisitionDate.empty() ? exportDate : pet.acquisitionDate);
  putString(d, DCM_AcquisitionTime, pet.acquisitionTime.empty() ? exportTime : pet.acquisitionTime);
  putString(d, DCM_ActualFrameDuration,  // type 2
            a.actualFrameDurationMs > 0 ? std::to_string(a.actualFrameDurationMs) : "");
  if (pet.decayFactor) putString(d, DCM_DecayFactor, formatDecimalString(*pet.decayFactor));

  // Patient Study: the weight SUV divides by.
  if (a.patientWeightKg > 0)
    putString(d, DCM_PatientWeight, formatDecimalString(a.patientWeightKg));
}

namespace {

std::optional<double> number(DcmItem& item, const DcmTagKey& key) {
  const std::vector<double> v = getNumbers(item, key);
  if (v.empty() || !std::isfinite(v[0])) return std::nullopt;
  return v[0];
}

std::vector<std::string> split(const std::string& text) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t end = std::min(text.find('\\', start), text.size());
    if (end > start) parts.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return parts;
}

void readRadiopharmaceutical(DcmItem& drug, DicomPetAcquisition& pet) {
  pet.radionuclide.clear();
  if (DcmItem* code = firstItem(drug, DCM_RadionuclideCodeSequence)) {
    const std::string value = getString(*code, DCM_CodeValue).value_or("");
    if (const PetRadionuclide* known = petRadionuclideOfCode(value))
      pet.radionuclide = known->name;
    else
      pet.radionuclide = getString(*code, DCM_CodeMeaning).value_or(value);
  }
  pet.radiopharmaceutical = getString(drug, DCM_Radiopharmaceutical).value_or("");
  pet.totalDoseBq = number(drug, DCM_RadionuclideTotalDose).value_or(0);
  pet.halfLifeS = number(drug, DCM_RadionuclideHalfLife);
  pet.positronFraction = number(drug, DCM_RadionuclidePositronFraction);
  pet.injectionDateTime = getString(drug, DCM_RadiopharmaceuticalStartDateTime).value_or("");
}

}  // namespace

DicomPetAcquisition readPetAcquisition(DcmItem& d) {
  DicomPetAcquisition pet;
  const std::string units = getString(d, DCM_Units).value_or("");
  pet.activityConcentration = units == "BQML";
  pet.radiopharmaceutical.clear();
  if (DcmItem* drug = firstItem(d, DCM_RadiopharmaceuticalInformationSequence))
    readRadiopharmaceutical(*drug, pet);
  else
    pet.radionuclide.clear();
  const std::string date = getString(d, DCM_SeriesDate).value_or("");
  const std::string time = getString(d, DCM_SeriesTime).value_or("");
  if (!date.empty() && !time.empty()) pet.acquisitionDateTime = date + time;
  const std::string correction = getString(d, DCM_DecayCorrection).value_or("NONE");
  try {
    pet.decayCorrection = parseDecayCorrection(correction);
  } catch (const ParameterError&) {
    pet.decayCorrection = PetDecayCorrection::None;  // an unknown term: as not corrected
  }
  pet.decayFactor = number(d, DCM_DecayFactor);
  pet.frameReferenceTimeMs = number(d, DCM_FrameReferenceTime);
  const double durationMs = number(d, DCM_ActualFrameDuration).value_or(0);
  if (durationMs > 0 && durationMs < 2147483648.0)
    pet.actualFrameDurationMs = static_cast<std::int64_t>(std::llround(durationMs));
  pet.patientWeightKg = number(d, DCM_PatientWeight).value_or(0);
  pet.correctedImage = split(getString(d, DCM_CorrectedImage).value_or(""));
  pet.reconstructionMethod = getString(d, DCM_ReconstructionMethod).value_or("");
  pet.countsSource = getString(d, DCM_CountsSource).value_or("");
  pet.seriesType = getString(d, DCM_SeriesType).value_or("");
  return pet;
}

}  // namespace tomowb::io::dicom::detail
