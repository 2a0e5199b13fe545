#include "recon/variant/AccuracyClass.h"

#include <cmath>

#include "recon/core/Error.h"

namespace tomowb::qa {

namespace {

constexpr AccuracyClass kAllClasses[] = {AccuracyClass::Exact, AccuracyClass::HardwareInterpolation,
                                         AccuracyClass::HalfPrecision};

void checkLimit(double value, const std::string& field) {
  if (!(value > 0) || !std::isfinite(value))
    throw ParameterError(field, "must be a finite number > 0, got " + std::to_string(value));
}

}  // namespace

std::string toString(AccuracyClass c) {
  switch (c) {
    case AccuracyClass::Exact:
      return "exact";
    case AccuracyClass::HardwareInterpolation:
      return "hardware-interpolation";
    case AccuracyClass::HalfPrecision:
      return "half-precision";
  }
  return "?";
}

std::optional<AccuracyClass> accuracyClassFromString(std::string_view text) {
  for (AccuracyClass c : kAllClasses)
    if (text == toString(c)) return c;
  if (text == "hardware") return AccuracyClass::HardwareInterpolation;
  if (text == "half") return AccuracyClass::HalfPrecision;
  return std::nullopt;
}

ToleranceTable::ToleranceTable() {
  // Against the CPU float64 reference on reconstructions (NRMSE over the reference's range).
  // Measured on the H100 (Shepp-Logan 256^3, FDK): software kernels 2e-6, hardware
  // interpolation 6.4e-5, half precision 1e-5 to 7e-5; ET SIRT on the GPU 1.2e-6 (matched) to
  // 4.4e-4 (fast). The limits leave a margin above those, and a half-voxel shift fails them all.
  limits_[AccuracyClass::Exact] = {1e-4, 1e-3};
  limits_[AccuracyClass::HardwareInterpolation] = {2e-3, 2e-2};
  limits_[AccuracyClass::HalfPrecision] = {5e-3, 5e-2};
}

void ToleranceTable::set(AccuracyClass c, const Tolerance& t) {
  checkLimit(t.maxNrmse, toString(c) + ".maxNrmse");
  checkLimit(t.maxAbsRelative, toString(c) + ".maxAbsRelative");
  limits_[c] = t;
}

nlohmann::json ToleranceTable::toJson() const {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& [c, t] : limits_)
    j[toString(c)] = {{"maxNrmse", t.maxNrmse}, {"maxAbsRelative", t.maxAbsRelative}};
  return j;
}

ToleranceTable ToleranceTable::fromJson(const nlohmann::json& j) {
  if (!j.is_object()) throw ParameterError("tolerances", "must be a JSON object");
  ToleranceTable table;
  for (const auto& [key, value] : j.items()) {
    const auto c = accuracyClassFromString(key);
    if (!c)
      throw ParameterError("tolerances." + key,
                           "unknown class (exact, hardware-interpolation, half-precision)");
    Tolerance t = table[*c];
    if (!value.is_object()) throw ParameterError("tolerances." + key, "must be an object");
    for (const auto& [field, number] : value.items()) {
      if (!number.is_number())
        throw ParameterError("tolerances." + key + "." + field, "must be a number");
      if (field == "maxNrmse")
        t.maxNrmse = number.get<double>();
      else if (field == "maxAbsRelative")
        t.maxAbsRelative = number.get<double>();
      else
        throw ParameterError("tolerances." + key + "." + field,
                             "unknown field (maxNrmse, maxAbsRelative)");
    }
    table.set(*c, t);
  }
  return table;
}

}  // namespace tomowb::qa
