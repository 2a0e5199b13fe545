// AccuracyClass: what agreement with the CPU float64 reference a kernel variant promises, and the
// tolerance a comparison checks it against (issue #9; docs/qa.md). Every registered variant has a
// class (KernelVariant::accuracyClass); the tolerances are editable (GUI metrics table, CLI
// --tolerance, a JSON file) and these defaults come from the measured agreement of the variants
// (bench/results/2026-11-23-h100-fdk-gpu.md, docs/et-gpu.md) with a margin of about ten.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

namespace tomowb::qa {

enum class AccuracyClass {
  Exact,                  // float32 arithmetic, software interpolation: rounding only
  HardwareInterpolation,  // texture-unit interpolation (8-bit fixed-point weights)
  HalfPrecision,          // half-precision data or taps
};

std::string toString(AccuracyClass c);  // "exact", "hardware-interpolation", "half-precision"
std::optional<AccuracyClass> accuracyClassFromString(std::string_view text);

// A comparison passes when every set limit holds. NRMSE is relative to the reference's range;
// maxAbsRelative is max |test - reference| / reference range.
struct Tolerance {
  double maxNrmse = 0;
  double maxAbsRelative = 0;
  bool operator==(const Tolerance&) const = default;
};

class ToleranceTable {
 public:
  ToleranceTable();  // the defaults
  const Tolerance& operator[](AccuracyClass c) const { return limits_.at(c); }
  void set(AccuracyClass c, const Tolerance& t);  // ParameterError for a limit <= 0 or not finite
  nlohmann::json toJson() const;
  // Reads {"exact": {"maxNrmse": ..., "maxAbsRelative": ...}, ...}; missing classes keep their
  // defaults. ParameterError naming the field on anything else.
  static ToleranceTable fromJson(const nlohmann::json& j);

 private:
  std::map<AccuracyClass, Tolerance> limits_;
};

}  // namespace tomowb::qa
