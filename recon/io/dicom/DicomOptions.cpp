#include "recon/io/dicom/DicomOptions.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <chrono>
#include <cmath>
#include <utility>

#include "recon/core/Error.h"
#include "recon/io/dicom/DicomUid.h"

namespace tomowb::io::dicom {

namespace {

std::string lower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

template <typename Enum, std::size_t N>
Enum parseNamed(std::string_view text, std::string_view parameter,
                const std::array<std::pair<std::string_view, Enum>, N>& names) {
  const std::string key = lower(text);
  for (const auto& [name, value] : names)
    if (key == name) return value;
  std::string choices;
  for (const auto& [name, value] : names)
    choices += (choices.empty() ? "" : ", ") + std::string(name);
  throw ParameterError(parameter,
                       "unknown value '" + std::string(text) + "' (choose " + choices + ")");
}

constexpr std::array<std::pair<std::string_view, DicomObjectType>, 6> kObjectTypes{{
    {"ct", DicomObjectType::CtImage},
    {"enhanced-ct", DicomObjectType::EnhancedCtImage},
    {"pet", DicomObjectType::PetImage},
    {"ct-image", DicomObjectType::CtImage},
    {"enhanced-ct-image", DicomObjectType::EnhancedCtImage},
    {"pet-image", DicomObjectType::PetImage},
}};
constexpr std::array<std::pair<std::string_view, DicomCompression>, 4> kCompressions{{
    {"none", DicomCompression::None},
    {"rle", DicomCompression::RleLossless},
    {"jpeg-ls", DicomCompression::JpegLsLossless},
    {"jpeg-lossless", DicomCompression::JpegLossless},
}};
constexpr std::array<std::pair<std::string_view, DicomValueMode>, 2> kValueModes{{
    {"hu", DicomValueMode::Hounsfield},
    {"native", DicomValueMode::Native},
}};
constexpr std::array<std::pair<std::string_view, PetDecayCorrection>, 3> kDecayCorrections{{
    {"none", PetDecayCorrection::None},
    {"start", PetDecayCorrection::Start},
    {"admin", PetDecayCorrection::Admin},
}};
constexpr std::array<std::pair<std::string_view, PatientPosition>, 8> kPositions{{
    {"hfs", PatientPosition::HFS},
    {"hfp", PatientPosition::HFP},
    {"ffs", PatientPosition::FFS},
    {"ffp", PatientPosition::FFP},
    {"hfdr", PatientPosition::HFDR},
    {"hfdl", PatientPosition::HFDL},
    {"ffdr", PatientPosition::FFDR},
    {"ffdl", PatientPosition::FFDL},
}};

constexpr std::size_t kMaxLo = 64;

void requireLength(std::string_view value, std::size_t max, std::string_view parameter) {
  if (value.size() > max)
    throw ParameterError(parameter, "at most " + std::to_string(max) + " characters, got " +
                                        std::to_string(value.size()));
  if (value.find('\\') != std::string_view::npos)
    throw ParameterError(parameter, "must not contain a backslash");
}

bool allDigits(std::string_view text) {
  return std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
}

void requireDate(std::string_view value, std::string_view parameter) {
  if (value.empty()) return;
  if (value.size() != 8 || !allDigits(value))
    throw ParameterError(parameter, "a date is YYYYMMDD, got '" + std::string(value) + "'");
  const int month = std::stoi(std::string(value.substr(4, 2)));
  const int day = std::stoi(std::string(value.substr(6, 2)));
  if (month < 1 || month > 12 || day < 1 || day > 31)
    throw ParameterError(parameter, "'" + std::string(value) + "' is not a valid date");
}

void requireTime(std::string_view value, std::string_view parameter) {
  if (value.empty()) return;
  if (value.size() != 6 || !allDigits(value) || std::stoi(std::string(value.substr(0, 2))) > 23 ||
      std::stoi(std::string(value.substr(2, 2))) > 59 ||
      std::stoi(std::string(value.substr(4, 2))) > 59)
    throw ParameterError(parameter, "a time is HHMMSS, got '" + std::string(value) + "'");
}

void requireUid(std::string_view uid, std::string_view parameter) {
  if (!uid.empty() && !isValidUid(uid))
    throw ParameterError(parameter, "'" + std::string(uid) +
                                        "' is not a valid UID (digits and dots, at most 64 "
                                        "characters, no leading zero in a component)");
}

}  // namespace

std::string toString(DicomObjectType type) {
  switch (type) {
    case DicomObjectType::CtImage:
      return "ct";
    case DicomObjectType::EnhancedCtImage:
      return "enhanced-ct";
    case DicomObjectType::PetImage:
      return "pet";
  }
  return "?";
}

std::string toString(DicomCompression compression) {
  for (const auto& [name, value] : kCompressions)
    if (value == compression) return std::string(name);
  return "?";
}

std::string toString(DicomValueMode mode) {
  return mode == DicomValueMode::Hounsfield ? "hu" : "native";
}

std::string toString(PatientPosition position) {
  std::string name = "?";
  for (const auto& [key, value] : kPositions)
    if (value == position) name = key;
  std::transform(name.begin(), name.end(), name.begin(),
                 [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  return name;
}

DicomObjectType parseObjectType(std::string_view text, std::string_view parameter) {
  return parseNamed(text, parameter, kObjectTypes);
}
DicomCompression parseCompression(std::string_view text, std::string_view parameter) {
  return parseNamed(text, parameter, kCompressions);
}
DicomValueMode parseValueMode(std::string_view text, std::string_view parameter) {
  return parseNamed(text, parameter, kValueModes);
}
PatientPosition parsePatientPosition(std::string_view text, std::string_view parameter) {
  return parseNamed(text, parameter, kPositions);
}

std::string toString(PetDecayCorrection correction) {
  switch (correction) {
    case PetDecayCorrection::None:
      return "NONE";
    case PetDecayCorrection::Start:
      return "START";
    case PetDecayCorrection::Admin:
      return "ADMIN";
  }
  return "?";
}

PetDecayCorrection parseDecayCorrection(std::string_view text, std::string_view parameter) {
  return parseNamed(text, parameter, kDecayCorrections);
}

const std::vector<PetRadionuclide>& knownPetRadionuclides() {
  // Codes: PS3.16 CID 4020 (SNOMED CT). Half-lives in s and beta+ fractions as PET scanners
  // commonly write them (F-18: 109.77 min, 96.7 %).
  static const std::vector<PetRadionuclide> known{
      {"F-18", {"77004003", "SCT", "^18^Fluorine"}, 6586.2, 0.967},
      {"C-11", {"40565003", "SCT", "^11^Carbon"}, 1223.4, 0.998},
      {"N-13", {"21576001", "SCT", "^13^Nitrogen"}, 597.9, 0.998},
      {"O-15", {"129504001", "SCT", "^15^Oxygen"}, 122.24, 0.999},
      {"Ga-68", {"35337001", "SCT", "^68^Gallium"}, 4057.74, 0.889},
      {"Rb-82", {"79197006", "SCT", "^82^Rubidium"}, 75.45, 0.950},
  };
  return known;
}

namespace {

// "F-18", "f18", "18F" -> "f18".
std::string radionuclideKey(std::string_view name) {
  std::string letters, digits;
  for (const char c : name) {
    if (std::isalpha(static_cast<unsigned char>(c)))
      letters += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    else if (std::isdigit(static_cast<unsigned char>(c)))
      digits += c;
    else if (c != '-' && c != ' ' && c != '^')
      return {};
  }
  return letters + digits;
}

// The older SNOMED-RT codes of the same radionuclides (files written before the SNOMED CT
// migration carry them).
constexpr std::array<std::pair<std::string_view, std::string_view>, 6> kSrtCodes{{
    {"C-111A1", "F-18"},
    {"C-105A1", "C-11"},
    {"C-107A1", "N-13"},
    {"C-B1038", "O-15"},
    {"C-131A3", "Ga-68"},
    {"C-159A2", "Rb-82"},
}};

}  // namespace

const PetRadionuclide& petRadionuclide(std::string_view name, std::string_view parameter) {
  const std::string key = radionuclideKey(name);
  for (const PetRadionuclide& r : knownPetRadionuclides())
    if (!key.empty() && radionuclideKey(r.name) == key) return r;
  std::string names;
  for (const PetRadionuclide& r : knownPetRadionuclides())
    names += (names.empty() ? "" : ", ") + r.name;
  throw ParameterError(parameter,
                       "unknown radionuclide '" + std::string(name) + "' (choose " + names + ")");
}

const PetRadionuclide* petRadionuclideOfCode(std::string_view codeValue) {
  for (const PetRadionuclide& r : knownPetRadionuclides())
    if (r.code.value == codeValue) return &r;
  for (const auto& [srt, name] : kSrtCodes)
    if (srt == codeValue) return &petRadionuclide(name);
  return nullptr;
}

std::string normaliseDateTime(std::string_view text, std::string_view parameter) {
  if (text.empty()) return {};
  const auto bad = [&](const std::string& why) {
    return ParameterError(parameter, "'" + std::string(text) + "' " + why +
                                         " (a date-time is YYYYMMDDHHMMSS or "
                                         "YYYY-MM-DDTHH:MM:SS, seconds may have up to 6 decimals)");
  };
  // The digits of date and time, whichever punctuation the ISO form uses.
  std::string digits, fraction;
  std::size_t i = 0;
  const bool iso = text.size() > 4 && text[4] == '-';
  for (; i < text.size() && text[i] != '.'; ++i) {
    const char c = text[i];
    if (std::isdigit(static_cast<unsigned char>(c))) {
      digits += c;
    } else if (!iso || !((c == '-' && (digits.size() == 4 || digits.size() == 6)) ||
                         ((c == 'T' || c == ' ') && digits.size() == 8) ||
                         (c == ':' && (digits.size() == 10 || digits.size() == 12)))) {
      throw bad("is not a date-time");
    }
  }
  if (i < text.size()) {
    fraction = std::string(text.substr(i + 1));
    if (fraction.empty() || fraction.size() > 6 ||
        !std::all_of(fraction.begin(), fraction.end(),
                     [](unsigned char c) { return std::isdigit(c); }))
      throw bad("has a bad fraction of a second");
  }
  if (digits.size() != 14) throw bad("needs a date and a time to the second");
  const auto number = [&](std::size_t at, std::size_t n) {
    return std::stoi(digits.substr(at, n));
  };
  const std::chrono::year_month_day day{std::chrono::year(number(0, 4)),
                                        std::chrono::month(static_cast<unsigned>(number(4, 2))),
                                        std::chrono::day(static_cast<unsigned>(number(6, 2)))};
  if (!day.ok() || number(0, 4) < 1900) throw bad("is not a valid date");
  if (number(8, 2) > 23 || number(10, 2) > 59 || number(12, 2) > 59)
    throw bad("is not a valid time");
  return fraction.empty() ? digits : digits + "." + fraction;
}

std::string petUnitsOf(const DicomExportOptions& options) {
  if (!options.petUnits.empty()) return options.petUnits;
  return options.pet.activityConcentration ? "BQML" : "PROPCNTS";
}

std::vector<PatientPosition> allPatientPositions() {
  std::vector<PatientPosition> all;
  all.reserve(kPositions.size());
  for (const auto& [name, value] : kPositions) all.push_back(value);
  return all;
}

std::string describe(PatientPosition position) {
  switch (position) {
    case PatientPosition::HFS:
      return "head first, supine";
    case PatientPosition::HFP:
      return "head first, prone";
    case PatientPosition::FFS:
      return "feet first, supine";
    case PatientPosition::FFP:
      return "feet first, prone";
    case PatientPosition::HFDR:
      return "head first, decubitus right";
    case PatientPosition::HFDL:
      return "head first, decubitus left";
    case PatientPosition::FFDR:
      return "feet first, decubitus right";
    case PatientPosition::FFDL:
      return "feet first, decubitus left";
  }
  return "?";
}

void checkExportOptions(const DicomExportOptions& o) {
  const DicomIdentity& id = o.identity;
  requireLength(id.patientName, kMaxLo, "patient-name");
  requireLength(id.patientId, kMaxLo, "patient-id");
  requireDate(id.patientBirthDate, "patient-birth-date");
  if (!id.patientSex.empty() && id.patientSex != "M" && id.patientSex != "F" &&
      id.patientSex != "O")
    throw ParameterError("patient-sex", "M, F, O or empty, got '" + id.patientSex + "'");
  requireUid(id.studyInstanceUid, "study-uid");
  requireUid(id.seriesInstanceUid, "series-uid");
  requireUid(id.frameOfReferenceUid, "frame-of-reference-uid");
  if (!id.uidRoot.empty()) checkUidRoot(id.uidRoot);
  requireLength(id.studyId, 16, "study-id");
  requireLength(id.studyDescription, kMaxLo, "study-description");
  requireDate(id.studyDate, "study-date");
  requireTime(id.studyTime, "study-time");
  requireLength(id.accessionNumber, 16, "accession-number");
  requireLength(id.referringPhysicianName, kMaxLo, "referring-physician");
  requireLength(id.institutionName, kMaxLo, "institution");
  requireLength(id.seriesDescription, kMaxLo, "series-description");
  if (id.seriesNumber < 0 || id.seriesNumber > 99999)
    throw ParameterError("series-number",
                         "must be 0..99999, got " + std::to_string(id.seriesNumber));
  if (o.values == DicomValueMode::Hounsfield && o.type != DicomObjectType::PetImage &&
      !(o.waterAttenuationPerMm > 0 && std::isfinite(o.waterAttenuationPerMm)))
    throw ParameterError("water-attenuation",
                         "must be > 0 /mm, got " + std::to_string(o.waterAttenuationPerMm));
  requireLength(o.nativeUnits, kMaxLo, "units");
  requireLength(o.provenance.algorithm, kMaxLo, "algorithm");
  requireLength(o.provenance.variant, kMaxLo, "variant");
  if (o.provenance.parameters.size() > 10240)
    throw ParameterError("parameters", "at most 10240 characters");
}

}  // namespace tomowb::io::dicom
