// DicomImageHeader: what one DICOM image file says about itself, without its pixels: its kind,
// size, pixel format, planes and rescale, checked as read (internal: for DicomImport.cpp and
// DicomPixelData.h only). Moved out of DicomImport.cpp unchanged (issue #18, point 5).
#pragma once

#include <Eigen/Core>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "recon/core/Error.h"
#include "recon/io/dicom/DicomDcmtkSupport.h"  // DCMTK first (osconfig.h)
#include "recon/io/dicom/DicomImport.h"

namespace tomowb::io::dicom::detail {

namespace fs = std::filesystem;

constexpr double kDirectionTolerance = 1e-4;

enum class ImageKind { Ct, EnhancedCt, Pet };

std::string kindName(ImageKind kind);

// A readable DICOM object of a class we do not read (a report, a localizer of another class):
// skipped in folders, an error when named alone.
class UnsupportedObject : public FormatError {
 public:
  using FormatError::FormatError;
};

// One image plane of a series: where it is and how its stored values map to real values.
struct Plane {
  std::size_t fileIndex = 0;
  std::int64_t frame = 0;  // within its file
  Eigen::Vector3d positionLps = Eigen::Vector3d::Zero();
  double slope = 1, intercept = 0;
  double along = 0;  // position along the slice normal
};

struct PixelFormat {
  Uint16 bitsAllocated = 0, bitsStored = 0, highBit = 0, pixelRepresentation = 0, samples = 0;
  std::string photometric;
  bool operator==(const PixelFormat&) const = default;
};

// What one file says about itself (no pixels).
struct ImageHeader {
  fs::path path;
  ImageKind kind = ImageKind::Ct;
  std::string sopClassUid;
  DicomSeriesInfo series;
  std::int64_t rows = 0, columns = 0, frames = 1;
  PixelFormat format;
  Eigen::Vector3d rowDirection = Eigen::Vector3d::UnitX(),
                  columnDirection = Eigen::Vector3d::UnitY();
  double rowSpacingMm = 0, columnSpacingMm = 0;  // Pixel Spacing = row spacing \ column spacing
  double sliceThicknessMm = 0, spacingBetweenSlicesMm = 0;
  std::string rescaleType, petUnits;
  std::optional<PatientPosition> patientPosition;
  std::vector<Plane> planes;  // one per frame
  std::optional<DicomProvenance> provenance;
  std::optional<double> waterAttenuationPerMm;
  std::optional<std::string> nativeUnits;
  std::optional<DicomPetAcquisition> pet;  // PET Image files
};

FormatError fileError(const fs::path& path, std::string_view problem);

ImageHeader readHeader(const fs::path& path, DcmFileFormat& file);

// The header of a file loaded whole, or (loadHeader) loaded from disk without its long values.
ImageHeader loadHeader(const fs::path& path);

}  // namespace tomowb::io::dicom::detail
