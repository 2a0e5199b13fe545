// PetDicomExport: see the header.
#include "gui/core/PetDicomExport.h"

#ifdef TOMOWB_HAVE_DICOM

#include <algorithm>
#include <cctype>
#include <cmath>
#include <string>

#include "recon/core/Error.h"

namespace tomowb::gui {

io::dicom::DicomExportOptions petDicomExportOptions(const nlohmann::json& parameters,
                                                    io::dicom::DicomExportOptions base) {
  using io::dicom::PetDecayCorrection;
  io::dicom::DicomExportOptions o = std::move(base);
  const nlohmann::json input = parameters.value("input", nlohmann::json::object());
  const bool bqml = parameters.value("units", std::string("BQML")) == "BQML";
  o.type = io::dicom::DicomObjectType::PetImage;
  o.petUnits = bqml ? "BQML" : "PROPCNTS";
  io::dicom::DicomPetAcquisition& pet = o.pet;
  pet.activityConcentration = bqml;
  // The header's isotope when DICOM knows it (F-18, C-11, ...), else F-18 as the form's default.
  const std::string isotope = input.value("isotope", std::string("F-18"));
  try {
    pet.radionuclide = io::dicom::petRadionuclide(isotope).name;
  } catch (const Error&) {
    pet.radionuclide = "F-18";
  }
  if (pet.radionuclide == "F-18") pet.radiopharmaceutical = "Fluorodeoxyglucose";
  const double halfLife = input.value("halfLifeS", 0.0);
  if (halfLife > 0) pet.halfLifeS = halfLife;
  const double seconds = input.value("acquisitionSeconds", 0.0);
  if (seconds > 0)
    pet.actualFrameDurationMs = std::max<std::int64_t>(1, std::llround(seconds * 1e3));
  // Decay corrected to the scan start by the run, or simulated without decay (the values are the
  // activity at the start already, which SUV needs).
  pet.decayCorrection =
      parameters.value("decayCorrection", false) || input.value("decayFree", false)
          ? PetDecayCorrection::Start
          : PetDecayCorrection::None;
  const std::string scanStart = input.value("scanStart", std::string());
  if (!scanStart.empty()) {
    try {
      pet.acquisitionDateTime = io::dicom::normaliseDateTime(scanStart, "scanStart");
    } catch (const Error&) {
      // A header time DICOM cannot take: the export's time stands in.
    }
  }
  pet.correctedImage = {"NORM"};  // the sensitivity (detection probability) images
  if (parameters.value("attenuationCorrection", false)) pet.correctedImage.push_back("ATTN");
  if (parameters.value("randomsCorrection", false)) pet.correctedImage.push_back("RAN");
  std::string method = "DIRECT " + parameters.value("algorithm", std::string("osem"));
  for (char& c : method) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  method += " " + std::to_string(parameters.value("iterations", 0)) + " it";
  if (parameters.value("subsets", 1) > 1)
    method += " " + std::to_string(parameters.value("subsets", 1)) + " ss";
  method += " " + parameters.value("lorKernel", std::string("invariant"));
  pet.reconstructionMethod = method;
  if (o.identity.seriesDescription.empty()) o.identity.seriesDescription = method;
  // A phantom simulated in the window: what was "injected" is its activity at the scan start
  // (filled then), the "patient" its water, so a viewer's SUV of the background reads about 1.
  const double doseBq = input.value("phantomActivityBq", 0.0);
  const double massKg = input.value("phantomMassKg", 0.0);
  if (doseBq > 0 && massKg > 0 && !pet.acquisitionDateTime.empty()) {
    pet.totalDoseBq = doseBq;
    pet.patientWeightKg = massKg;
    pet.injectionDateTime = pet.acquisitionDateTime;
    pet.radiopharmaceutical = "Fluorodeoxyglucose (phantom fill)";
  }
  return o;
}

}  // namespace tomowb::gui

#endif
