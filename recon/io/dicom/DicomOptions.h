// DicomOptions: what a DICOM export writes and how (docs/dicom.md). Plain C++ so the GUI's
// dialog and the CLI fill the same structure; the DCMTK code lives in the .cpp files of this
// folder, which form their own CMake target (tomowb_dicom) so the core builds without DCMTK.
#pragma once

#include <Eigen/Core>
#include <cstdint>
#include <optional>
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

// --- PET (PET Image Storage; docs/dicom.md, "PET") ---------------------------------------------

// Decay Correction (0054,1102): the values are not decay corrected (NONE), or corrected to the
// acquisition start, which is the Series Date/Time (START), or to the radiopharmaceutical's
// administration (ADMIN).
enum class PetDecayCorrection { None, Start, Admin };
std::string toString(PetDecayCorrection correction);  // "NONE", "START", "ADMIN"
// "none", "start", "admin" (case-insensitive); ParameterError naming `parameter` otherwise.
PetDecayCorrection parseDecayCorrection(std::string_view text,
                                        std::string_view parameter = "decay-correction");

// A coded entry (Code Value, Coding Scheme Designator, Code Meaning).
struct DicomCode {
  std::string value, scheme, meaning;
  bool operator==(const DicomCode&) const = default;
};

// A PET radionuclide: its code in CID 4020 "PET Radionuclide" (SNOMED CT, scheme SCT, as the
// current PS3.16 lists it), half-life and positron (beta+) branching fraction. The half-lives and
// fractions are the values scanners commonly write; a site's dose calibrator library may differ
// by a few 0.1 %, which DicomPetAcquisition::halfLifeS / positronFraction override.
struct PetRadionuclide {
  std::string name;  // "F-18"
  DicomCode code;    // (77004003, SCT, "^18^Fluorine")
  double halfLifeS = 0;
  double positronFraction = 0;
};
// F-18, C-11, N-13, O-15, Ga-68, Rb-82.
const std::vector<PetRadionuclide>& knownPetRadionuclides();
// By name: "F-18", "f18", "18F" (case and dashes ignored); ParameterError naming `parameter` with
// the known names otherwise.
const PetRadionuclide& petRadionuclide(std::string_view name,
                                       std::string_view parameter = "radionuclide");
// By its code value (SCT, or the older SRT code such as C-111A1); nullptr when unknown.
const PetRadionuclide* petRadionuclideOfCode(std::string_view codeValue);

// A DICOM date-time (DT) from "YYYYMMDDHHMMSS[.FFFFFF]" or ISO "YYYY-MM-DDTHH:MM:SS[.FFFFFF]" (a
// space for the T is fine): the DICOM form "YYYYMMDDHHMMSS[.FFFFFF]". Local time, no zone offset:
// injection and scan are timed by the same clock. Empty stays empty. ParameterError naming
// `parameter` for anything else (a date that does not exist, 25:00, a missing time).
std::string normaliseDateTime(std::string_view text, std::string_view parameter);

// What a PET series says about its acquisition (PET Series, PET Isotope, PET Image and Patient
// Study modules). The export checks every field (ParameterError naming it, with the CLI option's
// name) and writes what is known; zero or empty means unknown and is left out where DICOM lets
// it be, so a file never claims a dose or a time nobody gave. Read back by readDicomSeries.
struct DicomPetAcquisition {
  // The caller says the values are activity concentrations in Bq/mL: Units default to BQML
  // (DicomExportOptions::petUnits empty), which needs actualFrameDurationMs.
  bool activityConcentration = false;
  std::string radionuclide = "F-18";       // a name of knownPetRadionuclides(): code and defaults
  std::optional<double> halfLifeS;         // empty: the radionuclide's (6586.2 s for F-18)
  std::optional<double> positronFraction;  // empty: the radionuclide's (0.967 for F-18)
  std::string radiopharmaceutical = "Fluorodeoxyglucose";  // (0018,0031), free text
  double totalDoseBq = 0;  // Radionuclide Total Dose (0018,1074) at injection; 0: unknown
  // Radiopharmaceutical Start DateTime (0018,1078), the injection; normaliseDateTime's forms.
  std::string injectionDateTime;
  // Start of the acquisition (frame): Series and Acquisition Date/Time, the decay reference of
  // START. Empty: the export's time (then there can be no injection time).
  std::string acquisitionDateTime;
  PetDecayCorrection decayCorrection = PetDecayCorrection::None;
  // Decay Factor (0054,1321), written in every image when decay corrected. Empty: computed,
  // exp(lambda t) with t from the decay reference to the Frame Reference Time.
  std::optional<double> decayFactor;
  // Frame Reference Time (0054,1300), ms from the acquisition start. Empty: computed, the time
  // within the frame at which the activity equals its frame average (PS3.3 C.8.9.4.1.5).
  std::optional<double> frameReferenceTimeMs;
  std::int64_t actualFrameDurationMs = 0;  // Actual Frame Duration (0018,1242); 0: unknown
  double patientWeightKg = 0;              // Patient's Weight (0010,1030), for SUV; 0: unknown
  // Corrected Image (0028,0051): NORM, ATTN, SCAT, RAN, DTIM, DCAL, ... (PET defined terms). DECY
  // follows decayCorrection: added when decay corrected, refused when NONE.
  std::vector<std::string> correctedImage;
  std::string reconstructionMethod;          // (0054,1103); empty: "<algorithm> <variant> <n> it"
  std::string countsSource = "EMISSION";     // or TRANSMISSION
  std::string seriesType = "STATIC\\IMAGE";  // or "WHOLE BODY\\IMAGE"
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
  // uncalibrated emission reconstruction is). Empty: BQML when pet.activityConcentration, else
  // PROPCNTS.
  std::string petUnits;
  DicomPetAcquisition pet;  // PET Image only
  PatientPosition patientPosition = PatientPosition::HFS;
  IndexRange slices;  // z
  IndexRange cropX;   // columns
  IndexRange cropY;   // rows
  DicomIdentity identity;
  DicomProvenance provenance;
};

// The Units a PET export writes: petUnits, or when that is empty BQML for activity
// concentrations (pet.activityConcentration) and PROPCNTS otherwise.
std::string petUnitsOf(const DicomExportOptions& options);

// The identity, value and provenance fields checked as DICOM takes them (lengths, dates, times,
// UIDs, series number, water attenuation): ParameterError naming the field. planDicomExport runs
// it, and checks the grid and the PET acquisition itself.
void checkExportOptions(const DicomExportOptions& options);

}  // namespace tomowb::io::dicom
