// DicomPetModules: the PET Image IOD's own modules (DICOM PS3.3 A.21: PET Series, PET Isotope,
// PET Image, NM/PET Patient Orientation, and the Patient Study's weight) for DicomExport, and
// their read-back for DicomImageHeader (docs/dicom.md, "PET"; the checklist in
// reference/direct-tof-pet.md section 8). Internal to tomowb_dicom: only this folder's .cpp
// files include it, as DCMTK types appear here.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "recon/io/dicom/DicomDcmtkSupport.h"  // DCMTK first (osconfig.h)
#include "recon/io/dicom/DicomOptions.h"

namespace tomowb::io::dicom::detail {

// What every image of one PET series carries, checked and resolved once from the options.
struct PetSeriesAttributes {
  std::string units;             // BQML, PROPCNTS, ...
  PetRadionuclide radionuclide;  // with the half-life and positron fraction written
  // The acquisition start as Series / Acquisition Date and Time; empty: the export's time.
  std::string acquisitionDate, acquisitionTime;
  std::optional<double> decayFactor;  // when decay corrected
  double frameReferenceTimeMs = 0;
  std::string correctedImage;  // the values joined by '\', DECY included when decay corrected
  std::string reconstructionMethod;
  std::vector<std::string> warnings;  // e.g. what a viewer lacks for SUV
};

// Checks options.pet (and the units) and resolves what is computed: the Frame Reference Time
// and the Decay Factor. ParameterError naming the field (CLI option names) for a negative dose,
// a half-life <= 0, a date-time that is not one, an injection after the scan, BQML without the
// frame's duration, ADMIN without the injection time, DECY without decay correction...
PetSeriesAttributes resolvePetAttributes(const DicomExportOptions& options);

// Writes the PET Series, PET Isotope, NM/PET Patient Orientation and PET Image modules (less the
// rescale, which the caller writes per slice) and Patient's Weight into the image of slice
// `imageIndex` (1-based) of `slices`. `exportDate` / `exportTime` stand in for an unknown
// acquisition time.
void putPetModules(DcmItem& d, const PetSeriesAttributes& pet, const DicomExportOptions& options,
                   std::int64_t imageIndex, std::int64_t slices, const std::string& exportDate,
                   const std::string& exportTime);

// What a PET image file says about its acquisition: every field it has, others left at "unknown"
// (0, empty); radionuclide is the known name of its code, or the code's meaning. Values that do
// not parse count as absent: they do not change the pixel values.
DicomPetAcquisition readPetAcquisition(DcmItem& d);

}  // namespace tomowb::io::dicom::detail
