// DicomExport: writes a Volume as a DICOM series (docs/dicom.md): CT Image (one file per slice),
// Enhanced CT Image (one multi-frame file) or PET Image (one file per slice); 16-bit signed
// pixels with a Rescale Slope / Intercept chosen from the exported values' range, so float
// values survive with a known quantisation error (half a slope); optional lossless compression
// (RLE, JPEG-LS, JPEG lossless); geometry in LPS from the grid and the Patient Position
// (DicomGeometry.h); identity tags with anonymous defaults and new UIDs (DicomUid.h); the
// provenance in Derivation Description and a private block.
//
// The series is written into a temporary folder beside `outFolder` and renamed into place when
// every file is written (AtomicDirectoryWriter): a cancelled or failed export leaves nothing. An
// existing non-empty `outFolder` is an IoError unless `replaceExisting` is set, in which case it
// is replaced only after the new series is complete.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "recon/core/Volume.h"
#include "recon/io/dicom/DicomOptions.h"

namespace tomowb {
class JobContext;
}

namespace tomowb::io::dicom {

// The sub-grid and value mapping an export would write; cheap to compute (one pass over the
// exported voxels), so the dialog shows it before the user presses Export.
struct DicomExportPlan {
  std::int64_t x0 = 0, y0 = 0, z0 = 0;  // first exported voxel
  std::int64_t columns = 0, rows = 0, slices = 0;
  std::int64_t files = 0;
  std::uint64_t estimatedBytes = 0;  // uncompressed; compression usually gives less
  // Output value = stored * slope + intercept, in `units` ("HU", the native unit, or PET's).
  double rescaleSlope = 1, rescaleIntercept = 0;
  double maxQuantisationError = 0;    // in `units`: slope / 2, the worst rounding of a value
  double minValue = 0, maxValue = 0;  // exported range, in `units`
  std::string units;
  std::string rescaleType;            // "HU" or "US" (CT); empty for PET
  std::vector<std::string> warnings;  // NaN/Inf voxels, a constant volume, ...
  // PET: one Rescale Slope per exported slice (intercept 0), from that slice's largest magnitude,
  // so each slice keeps 15 bits of precision; rescaleSlope above is the largest of them.
  std::vector<double> sliceRescaleSlopes;
  // PET: the Decay Factor (0054,1321) every image carries when decay corrected, and the Frame
  // Reference Time (0054,1300) in ms (docs/dicom.md, "PET").
  std::optional<double> petDecayFactor;
  double petFrameReferenceTimeMs = 0;
};

// ParameterError for ranges outside the volume, an empty selection, a non-positive water
// attenuation, invalid UIDs and tag values, and PET attributes that DICOM or physics refuses
// (unknown units, a negative dose, a bad date-time, BQML without the frame's duration...), each
// naming the field.
DicomExportPlan planDicomExport(const Volume& volume, const DicomExportOptions& options);

struct DicomExportResult {
  DicomExportPlan plan;
  std::filesystem::path folder;
  std::vector<std::filesystem::path> files;  // relative to `folder`, in slice order
  std::string studyInstanceUid, seriesInstanceUid, frameOfReferenceUid;
  std::uint64_t bytesWritten = 0;
  double seconds = 0;
};

// Progress through context.reportProgress("DICOM export", fraction) and cancel between
// slices (Cancelled; nothing is left on disk).
DicomExportResult exportDicom(const Volume& volume, const std::filesystem::path& outFolder,
                              const DicomExportOptions& options, const JobContext& context,
                              bool replaceExisting = false);

}  // namespace tomowb::io::dicom
