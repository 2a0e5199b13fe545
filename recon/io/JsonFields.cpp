#include "recon/io/JsonFields.h"

#include <cmath>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "recon/core/Error.h"
#include "recon/io/ReaderLimits.h"

namespace tomowb::io {

using nlohmann::json;

namespace {

// Deepest nesting of arrays and objects, counted outside strings; stops early past the limit.
int nestingDepth(std::string_view text) {
  int depth = 0, deepest = 0;
  bool inString = false, escaped = false;
  for (char c : text) {
    if (inString) {
      if (escaped)
        escaped = false;
      else if (c == '\\')
        escaped = true;
      else if (c == '"')
        inString = false;
      continue;
    }
    if (c == '"') {
      inString = true;
    } else if (c == '[' || c == '{') {
      deepest = std::max(deepest, ++depth);
      if (deepest > kMaxJsonDepth) return deepest;
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return deepest;
}

std::string numberText(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%.17g", v);
  return text;
}

}  // namespace

json parseJsonText(std::string_view text, const std::filesystem::path& source) {
  if (nestingDepth(text) > kMaxJsonDepth)
    throw FormatError(source,
                      "JSON nested deeper than " + std::to_string(kMaxJsonDepth) + " levels");
  // A key given twice in one object is refused (nlohmann-json would keep the last one silently),
  // as MetaImage and NPY headers refuse it: which value did the writer mean?
  std::vector<std::set<std::string>> keysOfOpenObjects;
  std::vector<std::string> path;  // the key of each open object's current member
  const json::parser_callback_t refuseDuplicates = [&](int, json::parse_event_t event,
                                                       json& parsed) {
    switch (event) {
      case json::parse_event_t::object_start:
        keysOfOpenObjects.emplace_back();
        path.emplace_back();
        break;
      case json::parse_event_t::key: {
        std::string key = parsed.get<std::string>();
        path.back() = key;
        if (!keysOfOpenObjects.back().insert(std::move(key)).second) {
          std::string field;
          for (const std::string& k : path) field += (field.empty() ? "" : ".") + k;
          throw FormatError(source, field, "is given twice in one object");
        }
        break;
      }
      case json::parse_event_t::object_end:
        keysOfOpenObjects.pop_back();
        path.pop_back();
        break;
      default:
        break;
    }
    return true;
  };
  try {
    return json::parse(text.begin(), text.end(), refuseDuplicates);
  } catch (const json::exception& e) {
    // nlohmann-json quotes the offending token, which may be a 900 KB number: keep 200 bytes.
    std::string what = e.what();
    if (what.size() > 200) what = what.substr(0, 200) + "...";
    throw FormatError(source, "not valid JSON: " + what);
  }
}

JsonFields::JsonFields(const json& object, std::filesystem::path source, std::string prefix)
    : object_(object), source_(std::move(source)), prefix_(std::move(prefix)) {
  if (!object_.is_object())
    throw FormatError(source_, prefix_.empty() ? "(top level)" : prefix_, "must be a JSON object");
}

std::string JsonFields::fieldName(std::string_view key) const {
  return prefix_.empty() ? std::string(key) : prefix_ + "." + std::string(key);
}

bool JsonFields::has(std::string_view key) const {
  return object_.contains(key);
}

const json& JsonFields::get(std::string_view key) const {
  const auto it = object_.find(key);
  if (it == object_.end()) throw FormatError(source_, fieldName(key), "is missing");
  return *it;
}

std::string JsonFields::string(std::string_view key) const {
  const json& v = get(key);
  if (!v.is_string()) throw FormatError(source_, fieldName(key), "must be a string");
  return v.get<std::string>();
}

std::int64_t JsonFields::integer(std::string_view key, std::int64_t min, std::int64_t max) const {
  const json& v = get(key);
  std::int64_t n = 0;
  if (v.is_number_unsigned()) {
    const auto u = v.get<std::uint64_t>();
    if (u > static_cast<std::uint64_t>(max))
      throw FormatError(source_, fieldName(key),
                        "must be <= " + std::to_string(max) + ", got " + std::to_string(u));
    n = static_cast<std::int64_t>(u);
  } else if (v.is_number_integer()) {
    n = v.get<std::int64_t>();
  } else {
    throw FormatError(source_, fieldName(key), "must be an integer");
  }
  if (n < min || n > max)
    throw FormatError(source_, fieldName(key),
                      "must be in " + std::to_string(min) + ".." + std::to_string(max) + ", got " +
                          std::to_string(n));
  return n;
}

std::int64_t JsonFields::axisLength(std::string_view key) const {
  const json& v = get(key);
  if (v.is_number_unsigned() && v.get<std::uint64_t>() > static_cast<std::uint64_t>(kMaxAxisLength))
    throw FormatError(source_, fieldName(key),
                      "must be <= 2^20 (1048576), got " + std::to_string(v.get<std::uint64_t>()));
  if (!v.is_number_integer()) throw FormatError(source_, fieldName(key), "must be an integer");
  return checkedAxisLength(source_, fieldName(key), v.get<std::int64_t>());
}

std::vector<std::int64_t> JsonFields::axisLengths(std::string_view key, std::size_t count) const {
  const json& v = get(key);
  if (!v.is_array() || v.size() != count)
    throw FormatError(source_, fieldName(key),
                      "must be an array of " + std::to_string(count) + " integers");
  std::vector<std::int64_t> lengths;
  for (std::size_t i = 0; i < count; ++i) {
    const std::string name = fieldName(key) + "[" + std::to_string(i) + "]";
    const json& e = v[i];
    if (!e.is_number_integer()) throw FormatError(source_, name, "must be an integer");
    if (e.is_number_unsigned() &&
        e.get<std::uint64_t>() > static_cast<std::uint64_t>(kMaxAxisLength))
      throw FormatError(source_, name,
                        "must be <= 2^20 (1048576), got " + std::to_string(e.get<std::uint64_t>()));
    lengths.push_back(checkedAxisLength(source_, name, e.get<std::int64_t>()));
  }
  return lengths;
}

double JsonFields::finiteNumber(std::string_view key) const {
  const json& v = get(key);
  if (!v.is_number()) throw FormatError(source_, fieldName(key), "must be a number");
  const double d = v.get<double>();
  if (!std::isfinite(d)) throw FormatError(source_, fieldName(key), "must be finite");
  return d;
}

double JsonFields::finiteNumber(std::string_view key, double fallback) const {
  return has(key) ? finiteNumber(key) : fallback;
}

double JsonFields::positiveNumber(std::string_view key) const {
  const double d = finiteNumber(key);
  if (!(d > 0.0)) throw FormatError(source_, fieldName(key), "must be > 0, got " + numberText(d));
  return d;
}

std::vector<double> JsonFields::finiteNumbers(std::string_view key) const {
  const json& v = get(key);
  if (!v.is_array() || v.empty())
    throw FormatError(source_, fieldName(key), "must be a non-empty array of numbers");
  if (v.size() > static_cast<std::size_t>(kMaxAxisLength))
    throw FormatError(source_, fieldName(key),
                      "has " + std::to_string(v.size()) + " entries, more than " +
                          std::to_string(kMaxAxisLength));
  std::vector<double> out;
  out.reserve(v.size());
  for (std::size_t i = 0; i < v.size(); ++i) {
    const std::string name = fieldName(key) + "[" + std::to_string(i) + "]";
    if (!v[i].is_number()) throw FormatError(source_, name, "must be a number, got " + v[i].dump());
    const double d = v[i].get<double>();
    if (!std::isfinite(d)) throw FormatError(source_, name, "must be finite");
    out.push_back(d);
  }
  return out;
}

JsonFields JsonFields::child(std::string_view key) const {
  return JsonFields(get(key), source_, fieldName(key));
}

Eigen::Vector3d JsonFields::finiteVector3(std::string_view key) const {
  const json& v = get(key);
  if (!v.is_array() || v.size() != 3)
    throw FormatError(source_, fieldName(key), "must be an array of 3 numbers");
  Eigen::Vector3d out;
  for (int i = 0; i < 3; ++i) {
    const json& e = v[static_cast<std::size_t>(i)];
    const std::string name = fieldName(key) + "[" + std::to_string(i) + "]";
    if (!e.is_number()) throw FormatError(source_, name, "must be a number");
    out[i] = e.get<double>();
    if (!std::isfinite(out[i])) throw FormatError(source_, name, "must be finite");
  }
  return out;
}

Eigen::Vector3d JsonFields::positiveVector3(std::string_view key) const {
  Eigen::Vector3d v = finiteVector3(key);
  for (int i = 0; i < 3; ++i) {
    if (!(v[i] > 0.0))
      throw FormatError(source_, fieldName(key) + "[" + std::to_string(i) + "]",
                        "must be > 0, got " + numberText(v[i]));
  }
  return v;
}

}  // namespace tomowb::io
