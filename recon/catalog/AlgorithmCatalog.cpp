// AlgorithmCatalog: see the header.
#include "recon/catalog/AlgorithmCatalog.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>

#include "recon/core/Error.h"

namespace tomowb::catalog {

namespace {

std::string numberText(double value) {
  char text[32];
  // Whole numbers in full ("1000000", not "1e+06"); others to six digits.
  if (std::abs(value) < 1e15 && std::floor(value) == value)
    std::snprintf(text, sizeof text, "%.0f", value);
  else
    std::snprintf(text, sizeof text, "%.6g", value);
  return text;
}

std::string jsonText(const nlohmann::json& value) {
  std::string text = value.dump();
  if (text.size() > 40) text = text.substr(0, 37) + "...";
  return text;
}

nlohmann::json::json_pointer pointerOf(const std::string& field) {
  return nlohmann::json::json_pointer("/" + field);
}

}  // namespace

std::string toString(Modality modality) {
  switch (modality) {
    case Modality::TransmissionCt:
      return "CT";
    case Modality::ElectronTomography:
      return "ET";
    case Modality::Pet:
      return "PET";
  }
  return "?";
}

std::string ParameterSpec::rule() const {
  switch (kind) {
    case Kind::Integer:
      return "an integer from " + numberText(minimum) + " to " + numberText(maximum);
    case Kind::Real:
    case Kind::OptionalReal: {
      if (kind == Kind::OptionalReal && minimum == 0 && maximum == 0)
        return "a finite number or null";
      std::string text = std::string(minimumExclusive ? "(" : "[") + numberText(minimum) + ", " +
                         numberText(maximum) + (maximumExclusive ? ")" : "]");
      return kind == Kind::Real ? "a number in " + text : "a number in " + text + " or null";
    }
    case Kind::Flag:
      return "true or false";
    case Kind::Choice: {
      std::string text = "one of ";
      for (std::size_t i = 0; i < choices.size(); ++i) text += (i ? ", " : "") + choices[i];
      return text;
    }
  }
  return "?";
}

void ParameterSpec::check(const nlohmann::json& value) const {
  const auto refuse = [&] {
    throw ParameterError(field, "must be " + rule() + ", got " + jsonText(value));
  };
  switch (kind) {
    case Kind::Integer: {
      if (!value.is_number_integer()) refuse();
      const auto v = static_cast<double>(value.get<std::int64_t>());
      if (v < minimum || v > maximum) refuse();
      return;
    }
    case Kind::OptionalReal:
      if (value.is_null()) return;
      [[fallthrough]];
    case Kind::Real: {
      if (!value.is_number()) refuse();
      const double v = value.get<double>();
      if (!std::isfinite(v)) refuse();
      if (kind == Kind::OptionalReal && minimum == 0 && maximum == 0) return;  // any finite value
      if (minimumExclusive ? !(v > minimum) : !(v >= minimum)) refuse();
      if (maximumExclusive ? !(v < maximum) : !(v <= maximum)) refuse();
      return;
    }
    case Kind::Flag:
      if (!value.is_boolean()) refuse();
      return;
    case Kind::Choice:
      if (!value.is_string() ||
          std::find(choices.begin(), choices.end(), value.get<std::string>()) == choices.end())
        refuse();
      return;
  }
}

namespace {

ParameterSpec spec(std::string field, std::string option, std::string label, std::string help,
                   ParameterSpec::Kind kind) {
  ParameterSpec s;
  s.field = std::move(field);
  s.option = std::move(option);
  s.label = std::move(label);
  s.help = std::move(help);
  s.kind = kind;
  return s;
}

}  // namespace

ParameterSpec integerParameter(std::string field, std::string option, std::string label,
                               std::string help, std::int64_t minimum, std::int64_t maximum,
                               std::int64_t defaultValue) {
  ParameterSpec s = spec(std::move(field), std::move(option), std::move(label), std::move(help),
                         ParameterSpec::Kind::Integer);
  s.minimum = static_cast<double>(minimum);
  s.maximum = static_cast<double>(maximum);
  s.defaultValue = defaultValue;
  return s;
}

ParameterSpec realParameter(std::string field, std::string option, std::string label,
                            std::string help, double minimum, double maximum, double defaultValue,
                            bool minimumExclusive, bool maximumExclusive) {
  ParameterSpec s = spec(std::move(field), std::move(option), std::move(label), std::move(help),
                         ParameterSpec::Kind::Real);
  s.minimum = minimum;
  s.maximum = maximum;
  s.minimumExclusive = minimumExclusive;
  s.maximumExclusive = maximumExclusive;
  s.defaultValue = defaultValue;
  return s;
}

ParameterSpec optionalRealParameter(std::string field, std::string option, std::string label,
                                    std::string help) {
  return spec(std::move(field), std::move(option), std::move(label), std::move(help),
              ParameterSpec::Kind::OptionalReal);
}

ParameterSpec flagParameter(std::string field, std::string option, std::string label,
                            std::string help, bool defaultValue) {
  ParameterSpec s = spec(std::move(field), std::move(option), std::move(label), std::move(help),
                         ParameterSpec::Kind::Flag);
  s.defaultValue = defaultValue;
  return s;
}

ParameterSpec choiceParameter(std::string field, std::string option, std::string label,
                              std::string help, std::vector<std::string> choices,
                              std::string defaultValue) {
  ParameterSpec s = spec(std::move(field), std::move(option), std::move(label), std::move(help),
                         ParameterSpec::Kind::Choice);
  s.choices = std::move(choices);
  s.defaultValue = std::move(defaultValue);
  return s;
}

bool AlgorithmDescriptor::accepts(VariantRole role) const {
  return std::any_of(projectors.begin(), projectors.end(),
                     [&](const ProjectorSlot& s) { return s.role == role; });
}

const ParameterSpec* AlgorithmDescriptor::parameter(std::string_view field) const {
  for (const ParameterSpec& p : parameters)
    if (p.field == field) return &p;
  return nullptr;
}

nlohmann::json AlgorithmDescriptor::defaults() const {
  nlohmann::json out = nlohmann::json::object();
  for (const ParameterSpec& p : parameters) out[pointerOf(p.field)] = p.defaultValue;
  return out;
}

void AlgorithmCatalog::add(AlgorithmDescriptor descriptor) {
  if (descriptor.id.empty()) throw std::logic_error("an algorithm descriptor without an id");
  if (!descriptor.validate || !descriptor.makeJob)
    throw std::logic_error("algorithm '" + descriptor.id + "' has no validate or makeJob");
  if (find(descriptor.id) != nullptr)
    throw std::logic_error("algorithm '" + descriptor.id + "' is registered twice");
  descriptors_.push_back(std::move(descriptor));
}

const AlgorithmDescriptor* AlgorithmCatalog::find(std::string_view id) const {
  for (const AlgorithmDescriptor& d : descriptors_)
    if (d.id == id) return &d;
  return nullptr;
}

const AlgorithmDescriptor& AlgorithmCatalog::require(std::string_view id,
                                                     std::string_view what) const {
  if (const AlgorithmDescriptor* d = find(id)) return *d;
  throw ParameterError(what,
                       "unknown algorithm '" + std::string(id) + "'; this build has " + idList());
}

std::vector<std::string> AlgorithmCatalog::ids() const {
  std::vector<std::string> out;
  for (const AlgorithmDescriptor& d : descriptors_) out.push_back(d.id);
  return out;
}

std::string AlgorithmCatalog::idList() const {
  std::string text;
  for (const AlgorithmDescriptor& d : descriptors_) text += (text.empty() ? "" : ", ") + d.id;
  return text.empty() ? "none" : text;
}

const AlgorithmCatalog& AlgorithmCatalog::builtins() {
  static const AlgorithmCatalog catalog = [] {
    AlgorithmCatalog c;
    registerAlgorithms(c);
    return c;
  }();
  return catalog;
}

nlohmann::json gridToJson(const VolumeGrid& g) {
  return {{"shape", {g.shape.nx, g.shape.ny, g.shape.nz}},
          {"voxelSizeMm", {g.voxelSizeMm.x(), g.voxelSizeMm.y(), g.voxelSizeMm.z()}},
          {"originMm", {g.originMm.x(), g.originMm.y(), g.originMm.z()}}};
}

VolumeGrid gridFromJson(const nlohmann::json& json, std::string_view field) {
  const auto triple = [&](const char* key) -> const nlohmann::json& {
    if (!json.is_object() || !json.contains(key) || !json[key].is_array() || json[key].size() != 3)
      throw ParameterError(std::string(field) + "." + key, "must be an array of three numbers");
    for (const nlohmann::json& v : json[key])
      if (!v.is_number() || !std::isfinite(v.get<double>()))
        throw ParameterError(
            std::string(field) + "." + key,
            "must be an array of three finite numbers, got " + jsonText(json[key]));
    return json[key];
  };
  VolumeGrid g;
  const nlohmann::json& shape = triple("shape");
  for (const nlohmann::json& v : shape)
    if (!v.is_number_integer() || v.get<std::int64_t>() < 1)
      throw ParameterError(std::string(field) + ".shape",
                           "must be three positive integers, got " + jsonText(shape));
  g.shape = {shape[0].get<std::int64_t>(), shape[1].get<std::int64_t>(),
             shape[2].get<std::int64_t>()};
  const nlohmann::json& size = triple("voxelSizeMm");
  g.voxelSizeMm = {size[0].get<double>(), size[1].get<double>(), size[2].get<double>()};
  if (!(g.voxelSizeMm.minCoeff() > 0))
    throw ParameterError(std::string(field) + ".voxelSizeMm",
                         "must be positive, got " + jsonText(size));
  const nlohmann::json& origin = triple("originMm");
  g.originMm = {origin[0].get<double>(), origin[1].get<double>(), origin[2].get<double>()};
  return g;
}

nlohmann::json applyParameterSpecs(const std::vector<ParameterSpec>& specs,
                                   const nlohmann::json& parameters) {
  if (!parameters.is_object())
    throw ParameterError("parameters", "must be a JSON object, got " + jsonText(parameters));
  nlohmann::json out = parameters;
  for (const ParameterSpec& spec : specs) {
    const nlohmann::json::json_pointer at = pointerOf(spec.field);
    // "filter": "hann" where an object is expected: name the field, not the JSON library.
    const nlohmann::json::json_pointer parent = at.parent_pointer();
    if (!parent.empty() && out.contains(parent) && !out[parent].is_object())
      throw ParameterError(parent.to_string().substr(1),
                           "must be an object, got " + jsonText(out[parent]));
    if (!out.contains(at)) {
      out[at] = spec.defaultValue;
      continue;
    }
    // Integers written as 5.0 (a JSON number from another tool) are accepted when whole.
    nlohmann::json& value = out[at];
    if (spec.kind == ParameterSpec::Kind::Integer && value.is_number_float() &&
        std::isfinite(value.get<double>()) &&
        std::floor(value.get<double>()) == value.get<double>() &&
        std::abs(value.get<double>()) < 9e15)
      value = static_cast<std::int64_t>(value.get<double>());
    spec.check(value);
  }
  return out;
}

}  // namespace tomowb::catalog
