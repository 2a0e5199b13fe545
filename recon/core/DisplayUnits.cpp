// DisplayUnits: see the header.
#include "recon/core/DisplayUnits.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace tomowb {

namespace {

std::string printf1(const char* format, double value, int precision) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, format, precision, value);
  return buffer;
}

}  // namespace

std::string toString(DataModality modality) {
  switch (modality) {
    case DataModality::TransmissionCt:
      return "CT";
    case DataModality::ElectronTomography:
      return "ET";
    case DataModality::Pet:
      return "PET";
    case DataModality::Unknown:
      break;
  }
  return "unknown";
}

std::string symbol(LengthUnit unit) {
  switch (unit) {
    case LengthUnit::Micrometre:
      return "\u00b5m";
    case LengthUnit::Nanometre:
      return "nm";
    case LengthUnit::Angstrom:
      return "\u00c5";
    case LengthUnit::Millimetre:
      break;
  }
  return "mm";
}

double millimetresPer(LengthUnit unit) {
  switch (unit) {
    case LengthUnit::Micrometre:
      return 1e-3;
    case LengthUnit::Nanometre:
      return 1e-6;
    case LengthUnit::Angstrom:
      return 1e-7;
    case LengthUnit::Millimetre:
      break;
  }
  return 1.0;
}

std::string formatLengthValue(double mm, LengthUnit unit) {
  if (!std::isfinite(mm)) return "-";
  const double v = mm / millimetresPer(unit);
  const double a = std::abs(v);
  // Whole numbers from 100 ("250 mm"), one decimal from 1 ("4.0 mm", "12.3 nm"), two significant
  // figures below 1 ("0.35 Å").
  int decimals = 0;
  if (a == 0.0 || (a >= 1.0 && a < 100.0))
    decimals = 1;
  else if (a < 1.0)
    decimals = 1 - static_cast<int>(std::floor(std::log10(a)));
  return printf1("%.*f", v, decimals);
}

std::string formatLength(double mm, LengthUnit unit) {
  if (!std::isfinite(mm)) return "-";
  return formatLengthValue(mm, unit) + " " + symbol(unit);
}

LengthUnit lengthUnitFor(double typicalMm) {
  const double a = std::abs(typicalMm);
  if (!std::isfinite(a) || a == 0.0 || a >= 0.1) return LengthUnit::Millimetre;
  if (a >= 1e-4) return LengthUnit::Micrometre;
  if (a >= 1e-7) return LengthUnit::Nanometre;
  return LengthUnit::Angstrom;
}

std::string symbol(ValueUnit unit) {
  switch (unit) {
    case ValueUnit::PerMm:
      return "1/mm";
    case ValueUnit::Hounsfield:
      return "HU";
    case ValueUnit::BqPerMl:
      return "Bq/ml";
    case ValueUnit::Counts:
      return "counts";
    case ValueUnit::Native:
      break;
  }
  return "";
}

DisplayUnits DisplayUnits::forModality(DataModality modality, std::optional<double> waterPerMm) {
  DisplayUnits u;
  u.modality_ = modality;
  if (waterPerMm && std::isfinite(*waterPerMm) && *waterPerMm > 0.0) u.waterPerMm_ = waterPerMm;
  u.lengthUnit_ =
      modality == DataModality::ElectronTomography ? LengthUnit::Nanometre : LengthUnit::Millimetre;
  return u;
}

bool DisplayUnits::huAvailable() const noexcept {
  return modality_ == DataModality::TransmissionCt && waterPerMm_.has_value();
}

ValueUnit DisplayUnits::valueUnit() const noexcept {
  switch (modality_) {
    case DataModality::TransmissionCt:
      return showsHu() ? ValueUnit::Hounsfield : ValueUnit::PerMm;
    case DataModality::Pet:
      return petCounts_ ? ValueUnit::Counts : ValueUnit::BqPerMl;
    case DataModality::ElectronTomography:
    case DataModality::Unknown:
      break;
  }
  return ValueUnit::Native;
}

double DisplayUnits::toDisplay(double native) const noexcept {
  if (!showsHu()) return native;
  return 1000.0 * (native - *waterPerMm_) / *waterPerMm_;
}

double DisplayUnits::toNative(double display) const noexcept {
  if (!showsHu()) return display;
  return *waterPerMm_ * (1.0 + display / 1000.0);
}

double DisplayUnits::widthToDisplay(double nativeWidth) const noexcept {
  return showsHu() ? 1000.0 * nativeWidth / *waterPerMm_ : nativeWidth;
}

double DisplayUnits::widthToNative(double displayWidth) const noexcept {
  return showsHu() ? *waterPerMm_ * displayWidth / 1000.0 : displayWidth;
}

std::string DisplayUnits::formatValue(double native) const {
  if (!std::isfinite(native)) return "-";
  const double v = toDisplay(native);
  std::string text = showsHu() ? printf1("%.*f", v, 0) : printf1("%.*g", v, 5);
  const std::string unit = valueSymbol();
  if (!unit.empty()) text += " " + unit;
  return text;
}

std::array<std::string, 3> DisplayUnits::viewNames() const {
  if (modality_ == DataModality::ElectronTomography) return {"XY", "XZ", "YZ"};
  return {"Axial", "Coronal", "Sagittal"};
}

bool huPlausible(double minNative, double maxNative, double waterPerMm) {
  if (!(waterPerMm > 0.0) || !std::isfinite(minNative) || !std::isfinite(maxNative)) return false;
  const auto hu = [waterPerMm](double v) { return 1000.0 * (v - waterPerMm) / waterPerMm; };
  return hu(minNative) >= kPlausibleHuMin && hu(maxNative) <= kPlausibleHuMax;
}

}  // namespace tomowb
