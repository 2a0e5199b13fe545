// DicomOptions: what a DICOM export writes and how (docs/dicom.md). Plain C++ so the GUI's
// dialog and the CLI fill the same structure; the DCMTK code lives in the .cpp files of this
// folder, which form their own CMake target (tomowb_dicom) so the core builds without DCMTK.
#pragma once

#include <Eigen/Core>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace tomowb::io::dicom {

// The IOD written: one CT Image file per slice, one Enhanced CT multi-frame file, or one PET
// Image file per slice (emission reconstructions).
enum class DicomObjectType { CtImage, EnhancedCtImage, PetImage };

// Transfer syntax of the pixel data. All four are lossless; None (Explicit VR Little Endian) is
// the default because every reader takes it.
enum class DicomCompression { None, RleLossless, JpegLsLossless, JpegLossless };

// CT values: Hounsfield units from attenuation (HU = 1000 (mu - mu_water) / mu_water), or the
// volume's own values (Rescale Type "US", the unit named in the series' description and in our
// private block).
enum class DicomValueMode { Hounsfield, Native };

// Patient Position (0018,5100). It fixes how the workbench's world axes map to the patient's
// LPS axes (DicomGeometry.h, docs/dicom.md): HFS is the identity, world (x, y, z) = (L, P, S).
enum class PatientPosition { HFS, HFP, FFS, FFP, HFDR, HFDL, FFDR, FFDL };

std::string toString(DicomObjectType type);
std::string toString(DicomCompression compression);
std::string toString(DicomValueMode mode);
std::string toString(PatientPosition position);
// Parse the names above (case-insensitive; also "ct", "enhanced-ct", "pet", "none", "rle",
// "jpeg-ls", "jpeg-lossless", "hu", "native"). ParameterError naming `parameter` otherwise.
DicomObjectType parseObjectType(std::string_view text, std::string_view parameter = "format");
DicomCompression parseCompression(std::string_view text,
                                  std::string_view parameter = "compression");
DicomValueMode parseValueMode(std::string_view text, std::string_view parameter = "units");
PatientPosition parsePatientPosition(std::string_view text,
                                     std::string_view parameter = "patient-position");
std::vector<PatientPosition> allPatientPositions();
// "head first, supine" ...
std::string describe(PatientPosition position);

// Patient, study and series tags. Empty UIDs are made new (DicomUid.h); a caller that wants
// several series in one study passes the study's UID (and usually its ID and description).
struct DicomIdentity {
  std::string patientName = "ANONYMOUS^";
  std::string patientId = "ANONYMOUS";
  std::string patientBirthDate;  // YYYYMMDD or empty
  std::string patientSex;        // "M", "F", "O" or empty
  std::string studyInstanceUid;  // empty: a new study
  std::string studyId = "1";
  std::string studyDescription = "Tomo Workbench reconstruction";
  std::string studyDate;  // YYYYMMDD; empty: today
  std::string studyTime;  // HHMMSS; empty: now
  std::string accessionNumber;
  std::string referringPhysicianName;
  std::string institutionName;
  std::string seriesInstanceUid;  // empty: new
  int seriesNumber = 1;
  std::string seriesDescription;  // empty: "<algorithm> <variant>" from the provenance
  // Shared by every series of one acquisition. Empty: derived from DicomProvenance::
  // acquisitionKey when that is set (the same key always gives the same UID), else new.
  std::string frameOfReferenceUid;
  // An organisation's registered UID root ("1.2.826.0.1.3680043.xxxx"); empty: UUID-derived
  // "2.25." UIDs, which need no registration.
  std::string uidRoot;
};

// What made the volume. Written as Derivation Description (0008,2111) and in our private block
// (group 0x0011, creator "TOMO WORKBENCH 1"), and read back by the importer.
struct DicomProvenance {
  std::string algorithm;          // "FDK", "SIRT", ...
  std::string variant;            // kernel variant id, e.g. "fdk.bp.fast"
  std::string tunables;           // "k=4 ..." or empty
  std::int64_t iterations = 0;    // 0 when not iterative
  std::string geometryHash;       // SHA-256 (hex) of the canonical geometry JSON (Sha256.h)
  std::string acquisitionKey;     // e.g. the projections' file hash; keys the Frame of Reference
  std::string sourceDescription;  // the input file or "demo"
  std::string parameters;         // free text (JSON is fine), at most 10240 characters
};

// Half-open index range [begin, end) of one axis; end < 0 means "to the end".
struct IndexRange {
  std::int64_t begin = 0;
  std::int64_t end = -1;
};

struct DicomExportOptions {
  DicomObjectType type = DicomObjectType::CtImage;
  DicomCompression compression = DicomCompression::None;
  DicomValueMode values = DicomValueMode::Hounsfield;  // CT and Enhanced CT
  // mu_water for HU, in 1/mm. 0.0206 /mm is water near 60 keV (the phantoms' value,
  // phantom::kWaterAttenuationPerMm); the dialog states it.
  double waterAttenuationPerMm = 0.0206;
  std::string nativeUnits = "1/mm";  // what the volume's values are, for DicomValueMode::Native
  // PET Units (0054,1001): BQML, CNTS, PROPCNTS, ... (PROPCNTS: proportional to counts, what an
  // uncalibrated emission reconstruction is).
  std::string petUnits = "PROPCNTS";
  PatientPosition patientPosition = PatientPosition::HFS;
  IndexRange slices;  // z
  IndexRange cropX;   // columns
  IndexRange cropY;   // rows
  DicomIdentity identity;
  DicomProvenance provenance;
};

}  // namespace tomowb::io::dicom
