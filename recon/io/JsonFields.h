// Bounded JSON parsing and typed, checked access to the fields of our sidecars and TIFF
// descriptions. Nesting is capped before nlohmann-json sees the text, and every error names the
// file and the field ("volume.json: field 'shape[1]': must be >= 1, got 0").
#pragma once

#include <Eigen/Core>
#include <cstdint>
#include <filesystem>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace tomowb::io {

// Parses `text` (nesting at most kMaxJsonDepth); FormatError(source, ...) if it is not JSON.
nlohmann::json parseJsonText(std::string_view text, const std::filesystem::path& source);

class JsonFields {
 public:
  // FormatError unless `object` is a JSON object. `prefix` is prepended to field names.
  JsonFields(const nlohmann::json& object, std::filesystem::path source, std::string prefix = "");

  bool has(std::string_view key) const;
  const nlohmann::json& get(std::string_view key) const;  // FormatError if missing
  std::string string(std::string_view key) const;
  // An integer in [min, max] (JSON integers only: 3.0 is refused).
  std::int64_t integer(std::string_view key, std::int64_t min, std::int64_t max) const;
  // 1 <= n <= kMaxAxisLength.
  std::int64_t axisLength(std::string_view key) const;
  // `count` axis lengths from an array.
  std::vector<std::int64_t> axisLengths(std::string_view key, std::size_t count) const;
  double finiteNumber(std::string_view key) const;
  // The number if the key is present, else `fallback`.
  double finiteNumber(std::string_view key, double fallback) const;
  double positiveNumber(std::string_view key) const;  // finite and > 0
  // A non-empty array of finite numbers, at most kMaxAxisLength long.
  std::vector<double> finiteNumbers(std::string_view key) const;
  // The object under `key`, its fields named "key.field".
  JsonFields child(std::string_view key) const;
  Eigen::Vector3d finiteVector3(std::string_view key) const;
  Eigen::Vector3d positiveVector3(std::string_view key) const;  // finite and > 0

  std::string fieldName(std::string_view key) const;
  const std::filesystem::path& source() const noexcept { return source_; }

 private:
  const nlohmann::json& object_;
  std::filesystem::path source_;
  std::string prefix_;
};

}  // namespace tomowb::io
