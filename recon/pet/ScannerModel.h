// ScannerModel: the ring geometry of a TOF-PET scanner (reference/direct-tof-pet.md, section
// 5.1): crystals on a cylinder or on flat modules, rings along z, the TOF resolution and the
// positioning blur. Everything that turns a list-mode event into a line of response (deposition,
// the simulator, the sensitivity images) asks it where a crystal is. Built-in presets mirror the
// seed's LaBr3 scanner ("penn-labr3", 24 flat modules) and a closed-form cylinder ("ring-930");
// a scanner file is versioned JSON (docs/pet.md).
#pragma once

#include <Eigen/Core>
#include <filesystem>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace tomowb::pet {

inline constexpr double kSpeedOfLightMmPerPs = 0.299792458;
inline constexpr double kFwhmPerSigma = 2.354820045030949;  // 2 sqrt(2 ln 2)

enum class DetectorLayout {
  Cylinder,     // crystalsPerRing crystals evenly on a circle of radius radiusMm
  FlatModules,  // `modules` flat modules, faces radiusMm from the axis, crystalsPerRing/modules
                // each
};

struct ScannerModel {
  std::string name = "ring-930";
  DetectorLayout layout = DetectorLayout::Cylinder;
  double radiusMm = 465.0;  // the detector face: circle radius, or the flat faces' distance
  int modules = 24;         // FlatModules only; must divide crystalsPerRing
  int crystalsPerRing = 672;
  int rings = 60;
  double crystalPitchMm = 4.3;  // transaxial, within a flat module
  double ringPitchMm = 4.3;     // axial
  double crystalDepthMm = 30.0;
  double meanDoiMm = 10.0;  // crystal centres used for an event lie this far behind the face
  double axialAcceptanceDeg = 10.0;     // co-polar acceptance |asin(u_z)| <= this
  double tofFwhmPs = 400.0;             // coincidence timing resolution (CTR)
  double tofLsbPs = 25.0;               // list-mode time difference quantum
  double coincidenceWindowPs = 6000.0;  // randoms: delta t uniform in +-window/2
  double positioningSigmaMm = 3.0;      // Gaussian error of a hit along the face (each axis)
  double acollinearityFwhmDeg = 0.5;
  double intrinsicResolutionMm = 5.8;  // what the LOR kernel models by default
  // Transaxial field of view (diameter): a coincidence whose line passes farther than half of it
  // from the axis is not recorded (the simulator's randoms obey it; trues come from inside it).
  double transaxialFovMm = 576.0;

  int crystalCount() const noexcept { return crystalsPerRing * rings; }
  // FlatModules: crystals per module (crystalsPerRing / modules); Cylinder: crystalsPerRing.
  int crystalsPerModule() const noexcept {
    return layout == DetectorLayout::FlatModules && modules > 0 ? crystalsPerRing / modules
                                                                : crystalsPerRing;
  }
  double axialLengthMm() const noexcept { return rings * ringPitchMm; }
  // sigma of the TOF kernel along the LOR in mm: c * FWHM_ps / 2 / 2.3548.
  double tofSigmaMm() const noexcept {
    return kSpeedOfLightMmPerPs * tofFwhmPs / 2.0 / kFwhmPerSigma;
  }
  // World position (mm) of a crystal's centre at the mean depth of interaction. Rings are centred
  // on z = 0; crystal 0 sits at the smallest angle from +x (counter-clockwise seen from +z).
  // Cylinder: crystal i at the angle 2 pi (i + 1/2) / crystalsPerRing, radius radiusMm +
  // meanDoiMm. FlatModules: module k's face normal points at the angle 2 pi (k + 1/2) / modules;
  // crystal i is crystal j = i % n of module k = i / n (n = crystalsPerModule()), at
  // (radiusMm + meanDoiMm) * normal + (j - (n - 1)/2) * crystalPitchMm * tangent, where tangent is
  // the normal turned by +90 degrees. Arguments must be in range (assert).
  Eigen::Vector3d crystalPosition(int crystal, int ring) const noexcept;
  // Transaxial (x, y) of every crystal of a ring, crystalsPerRing entries (GPU tables).
  std::vector<Eigen::Vector2d> crystalPositionsXy() const;
  // ring -> z (mm) of its crystal centres: (ring - (rings - 1)/2) * ringPitchMm.
  double ringZ(int ring) const noexcept;
  // Throws ParameterError naming the field for a value out of range (sizes < 1, more than
  // 65535 crystals per ring or rings, modules not dividing the crystals, crystals wider than a
  // module's face, acceptance outside (0, 60] degrees, non-positive TOF, a coincidence window
  // whose half does not fit an int16 of tofLsbPs, a field of view wider than the ring, ...).
  void validate() const;
};

// Built-in presets: "penn-labr3" (the seed's scanner: 24 flat modules of 28 crystals, 60 rings,
// 930 mm diameter, 400 ps) and "ring-930" (the same as a cylinder, closed-form intersections).
std::vector<std::string> scannerPresetNames();
// Throws ParameterError listing the names for an unknown preset.
ScannerModel scannerPreset(std::string_view name);

inline constexpr int kScannerFormatVersion = 1;

// {"format": "tomowb-pet-scanner", "version": 1, every field of ScannerModel} (docs/pet.md).
nlohmann::json scannerToJson(const ScannerModel& scanner);
// `source` names the file in errors ("scanner.json: field 'rings': must be >= 1"); a scanner
// nested in another document passes its key as `fieldPrefix` ("scanner" gives
// "field 'scanner.rings'"). Unknown keys are refused (a typo would otherwise fall back to a
// default); the result is validated. FormatError on any problem.
ScannerModel scannerFromJson(const nlohmann::json& json, const std::filesystem::path& source,
                             std::string_view fieldPrefix = {});
// A scanner file, or a preset's name when `pathOrPreset` is not an existing file. ParameterError
// ("scanner") when it is neither; FormatError for a bad file.
ScannerModel loadScanner(const std::string& pathOrPreset);
// Atomic (io::AtomicFileWriter): a failed write leaves no partial file. ParameterError if the
// scanner does not validate.
void writeScannerFile(const ScannerModel& scanner, const std::filesystem::path& path);

}  // namespace tomowb::pet
