#include "recon/io/dicom/DicomOptions.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <utility>

#include "recon/core/Error.h"

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

std::vector<PatientPosition> allPatientPositions() {
  std::vector<PatientPosition> all;
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

}  // namespace tomowb::io::dicom
