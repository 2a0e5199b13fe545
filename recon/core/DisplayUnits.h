// DisplayUnits: the units a volume's values and lengths are shown in, chosen by the data's
// modality (issue #21, point 5; reference/ux-review-2026-11.md, "Units"). Lengths are stored in mm
// everywhere (DESIGN.md); an electron-tomography voxel of 0.35 nm is 3.5e-7 mm, which reads as
// nothing to its user, so lengths are shown in a unit of the modality's scale (mm for CT and PET,
// nm for ET) with an SI prefix. Values are shown natively (1/mm for CT attenuation, arbitrary for
// ET, Bq/ml or counts for PET), and in Hounsfield units only for CT attenuation with a known water
// value: HU = 1000 (mu - mu_water) / mu_water. No Qt: the slice overlays (render/), the status bar
// and the dialogs (gui/) and the CLI share it.
#pragma once

#include <array>
#include <optional>
#include <string>

namespace tomowb {

// What the data are. Unknown: a volume opened from a file without a hint (values and lengths
// are shown as they are, in mm).
enum class DataModality { Unknown, TransmissionCt, ElectronTomography, Pet };
std::string toString(DataModality modality);  // "unknown", "CT", "ET", "PET"

enum class LengthUnit { Millimetre, Micrometre, Nanometre, Angstrom };
std::string symbol(LengthUnit unit);     // "mm", "µm" (UTF-8), "nm", "Å" (UTF-8)
double millimetresPer(LengthUnit unit);  // 1, 1e-3, 1e-6, 1e-7

// `mm` in `unit`: whole numbers from 100, one decimal from 1, two significant figures below 1:
// formatLength(3.5e-8, Angstrom) = "0.35 Å", formatLength(1.23e-5, Nanometre) = "12.3 nm",
// formatLength(4.0, Millimetre) = "4.0 mm", formatLength(250, Millimetre) = "250 mm".
// Non-finite lengths give "-".
std::string formatLength(double mm, LengthUnit unit);
// The number only, as formatLength writes it ("12.3").
std::string formatLengthValue(double mm, LengthUnit unit);
// The unit whose numbers for lengths near `typicalMm` read best: mm from 0.1 mm up, µm from
// 0.1 µm, nm from 0.1 nm, Å below.
LengthUnit lengthUnitFor(double typicalMm);

// A value (voxel intensity) as shown: its unit and a linear map from the stored (native) value.
enum class ValueUnit {
  Native,      // as stored, no unit known
  PerMm,       // CT linear attenuation, 1/mm
  Hounsfield,  // HU, from 1/mm with the water value
  BqPerMl,     // PET activity concentration
  Counts,      // PET counts per voxel
};
std::string symbol(ValueUnit unit);  // "", "1/mm", "HU", "Bq/ml", "counts"

// The CT presets' range test for DICOM export: stored values mapped to HU fall inside
// [-2000, 30000] (air is -1000, dense metal some 20000); outside, HU make no sense for these data.
constexpr double kPlausibleHuMin = -2000.0;
constexpr double kPlausibleHuMax = 30000.0;

class DisplayUnits {
 public:
  DisplayUnits() = default;
  // The units of data of this modality: lengths in nm for ET, in mm otherwise; values in 1/mm
  // for CT, Bq/ml for PET, native otherwise. `waterPerMm` (> 0) makes HU available for CT.
  static DisplayUnits forModality(DataModality modality,
                                  std::optional<double> waterPerMm = std::nullopt);

  DataModality modality() const noexcept { return modality_; }
  std::optional<double> waterPerMm() const noexcept { return waterPerMm_; }
  // HU can be shown: CT attenuation with a known water value.
  bool huAvailable() const noexcept;
  // Shows values in HU (ignored, and false, when !huAvailable()).
  void setShowHu(bool on) noexcept { showHu_ = on; }
  bool showsHu() const noexcept { return showHu_ && huAvailable(); }
  // PET values in counts instead of Bq/ml (a histogram or an unscaled image).
  void setPetCounts(bool counts) noexcept { petCounts_ = counts; }

  ValueUnit valueUnit() const noexcept;
  std::string valueSymbol() const { return symbol(valueUnit()); }
  // Stored value -> shown value and back (HU: 1000 (v - w) / w; identity otherwise).
  double toDisplay(double native) const noexcept;
  double toNative(double display) const noexcept;
  // A window width (a difference of values) in either direction.
  double widthToDisplay(double nativeWidth) const noexcept;
  double widthToNative(double displayWidth) const noexcept;
  // "0.0206 1/mm", "40 HU", "12000 Bq/ml", "0.51" (five significant figures; HU whole).
  std::string formatValue(double native) const;

  LengthUnit lengthUnit() const noexcept { return lengthUnit_; }
  void setLengthUnit(LengthUnit unit) noexcept { lengthUnit_ = unit; }
  std::string formatLength(double mm) const { return tomowb::formatLength(mm, lengthUnit_); }

  // The slice views' names: "Axial", "Coronal", "Sagittal" for CT and PET; "XY", "XZ", "YZ"
  // for tomograms (ET), whose z is the beam, not a patient's head-foot axis. Index by the axis
  // normal: z (axial / XY), y (coronal / XZ), x (sagittal / YZ).
  std::array<std::string, 3> viewNames() const;

  bool operator==(const DisplayUnits&) const = default;

 private:
  DataModality modality_ = DataModality::Unknown;
  std::optional<double> waterPerMm_;
  LengthUnit lengthUnit_ = LengthUnit::Millimetre;
  bool showHu_ = false;
  bool petCounts_ = false;
};

// True when every stored value in [minNative, maxNative] maps into the plausible HU range with
// this water value (> 0); false otherwise (also for a water value <= 0).
bool huPlausible(double minNative, double maxNative, double waterPerMm);

}  // namespace tomowb
