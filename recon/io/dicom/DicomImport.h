// DicomImport: reads DICOM CT Image, Enhanced CT Image and PET Image series as Volumes
// (docs/dicom.md, "Reading"), ours and other tools', so a user can compare against a clinical
// reconstruction. Slices are sorted by their position along the slice normal, never by file
// name; the spacing comes from the positions (Slice Thickness is only a fallback for a single
// slice). Compressed pixel data (RLE, JPEG-LS, JPEG lossless and baseline) is decoded.
//
// A folder may hold several series: listDicomSeries() names them, and readDicomSeries() needs
// the series' UID when there is more than one. Mixed sizes, orientations or pixel formats,
// duplicate or missing slices, uneven spacing, unsupported pixel formats and files that are not
// DICOM all give a FormatError naming the file and the problem. Axis-aligned orientations map
// onto the workbench's world axes exactly (the Patient Position's map, DicomGeometry.h); an
// oblique series is read in its own grid, with a warning.
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

// True if the file starts with a DICOM preamble ("DICM" at byte 128) or is named .dcm, .dicom or
// .ima, or the folder holds at least one file with the preamble (checked without reading whole
// files).
bool looksLikeDicom(const std::filesystem::path& fileOrFolder);

struct DicomSeriesInfo {
  std::string seriesInstanceUid;
  std::string studyInstanceUid;
  std::string frameOfReferenceUid;
  std::string modality;  // "CT", "PT"
  std::string sopClass;  // "CT Image", "Enhanced CT Image", "PET Image"
  std::string seriesDescription;
  std::string patientName, patientId;
  std::int64_t seriesNumber = 0;
  std::int64_t files = 0;
  std::int64_t frames = 0;  // images: files for single-frame objects
  std::int64_t rows = 0, columns = 0;
};

// Every image series under `fileOrFolder` (not recursive). Files without the DICOM preamble or a
// .dcm/.dicom/.ima name, and DICOM objects that are not CT/PET images, are skipped (one warning
// per kind in `warnings`, naming them); a file that claims to be DICOM and cannot be read is a
// FormatError naming it. FormatError if there is no image.
std::vector<DicomSeriesInfo> listDicomSeries(const std::filesystem::path& fileOrFolder,
                                             std::vector<std::string>* warnings = nullptr);

struct DicomReadOptions {
  std::string seriesInstanceUid;  // needed when the folder holds several series
  // Hounsfield units are turned back into attenuation (1/mm) with this water attenuation; when
  // unset, the series' own (our private block) is used, and without it values stay in HU.
  std::optional<double> waterAttenuationPerMm;
  bool keepHounsfield = false;  // never convert HU
};

struct DicomVolume {
  Volume volume;
  DicomSeriesInfo series;
  std::string units;  // "1/mm", "HU", a PET unit, or the series' Rescale Type
  PatientPosition patientPosition = PatientPosition::HFS;
  bool oblique = false;                           // the grid is the file's own, not the world's
  std::optional<DicomProvenance> provenance;      // when the series was written by the workbench
  double rescaleSlope = 1, rescaleIntercept = 0;  // of the first slice
  // Of every slice: in the volume's z order when the slices are its z planes (every series the
  // workbench writes), else along the slice normal.
  std::vector<double> sliceRescaleSlopes;
  // A PET series' acquisition as its first image says it (units, radiopharmaceutical, dose,
  // times, decay correction and factor, weight...); unknown fields left at 0 or empty.
  std::optional<DicomPetAcquisition> pet;
  std::vector<std::string> warnings;
};

DicomVolume readDicomSeries(const std::filesystem::path& fileOrFolder,
                            const DicomReadOptions& options, const JobContext& context);

// One DICOM file from memory: the parsing and checks readDicomSeries applies to each file (the
// fuzz target drives this). Returns the number of frames decoded; FormatError on any problem.
std::int64_t parseDicomImageBuffer(const std::uint8_t* data, std::size_t size,
                                   const std::filesystem::path& nameForErrors);

}  // namespace tomowb::io::dicom
