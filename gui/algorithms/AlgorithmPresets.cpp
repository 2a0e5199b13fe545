// Algorithm presets: see the header.
#include "gui/algorithms/AlgorithmPresets.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QSettings>
#include <string>
#include <utility>

#include "recon/core/Error.h"
#include "recon/variant/VariantRegistry.h"

namespace tomowb::gui {

namespace {

const char* const kPresetFormat = "tomowb-algorithm-preset";
const char* const kBuiltinPresetDir = ":/tomowb/presets/algorithms";
const char* const kUserPresetGroup = "algorithmPresets";

const catalog::ProjectorSlot* slotOf(const catalog::AlgorithmDescriptor& d,
                                     const std::string& field) {
  for (const catalog::ProjectorSlot& slot : d.projectors)
    if (slot.field == field) return &slot;
  return nullptr;
}

// The fields of a preset as (name in the file, parameter path, value).
struct PresetField {
  std::string named, field;
  nlohmann::json value;
};

std::vector<PresetField> presetFields(const nlohmann::json& j, int version,
                                      const std::string& path) {
  std::vector<PresetField> out;
  if (version == 1) {
    const std::pair<const char*, const char*> keys[] = {{"filter", "filter/window"},
                                                        {"cutoff", "filter/cutoff"},
                                                        {"redundancy", "redundancy"},
                                                        {"fovMask", "fieldOfViewMask"},
                                                        {"variant", "variant"}};
    for (const auto& [named, field] : keys)
      if (j.contains(named)) out.push_back({named, field, j[named]});
    return out;
  }
  if (!j.contains("parameters")) return out;
  if (!j["parameters"].is_object())
    throw FormatError(path, "parameters", "must be a JSON object, got " + j["parameters"].dump());
  const nlohmann::json flat = j["parameters"].flatten();  // {"/filter/cutoff": 0.8}
  for (const auto& [pointer, value] : flat.items()) {
    const std::string field = pointer.substr(1);
    out.push_back({"parameters/" + field, field, value});
  }
  return out;
}

}  // namespace

nlohmann::json algorithmPresetToJson(const catalog::AlgorithmDescriptor& d,
                                     const nlohmann::json& parameters, const QString& name) {
  nlohmann::json own = nlohmann::json::object();
  for (const catalog::ParameterSpec& spec : d.parameters) {
    const nlohmann::json::json_pointer at("/" + spec.field);
    if (parameters.contains(at)) own[at] = parameters[at];
  }
  for (const catalog::ProjectorSlot& slot : d.projectors)
    if (parameters.contains(slot.field)) own[slot.field] = parameters[slot.field];
  return {{"format", kPresetFormat},
          {"version", 2},
          {"name", name.toStdString()},
          {"algorithm", d.id},
          {"parameters", own}};
}

nlohmann::json applyAlgorithmPreset(const nlohmann::json& j, const catalog::AlgorithmDescriptor& d,
                                    const nlohmann::json& parameters, const QString& source) {
  const std::string path = source.toStdString();
  if (!j.is_object()) throw FormatError(path, "an algorithm preset must be a JSON object");
  if (!j.contains("format") || j["format"] != kPresetFormat)
    throw FormatError(path, "format", std::string("must be '") + kPresetFormat + "'");
  if (!j.contains("version") || !j["version"].is_number_integer() ||
      (j["version"] != 1 && j["version"] != 2))
    throw FormatError(path, "version", "must be 1 or 2");
  // A preset of another algorithm applies where its fields are this one's (FDK's on WBP).
  const catalog::AlgorithmCatalog& builtins = catalog::AlgorithmCatalog::builtins();
  if (j.contains("algorithm") &&
      (!j["algorithm"].is_string() ||
       (j["algorithm"] != d.id && !builtins.find(j["algorithm"].get<std::string>()))))
    throw FormatError(
        path, "algorithm",
        "must be " + d.id + " or one of " + builtins.idList() + ", got " + j["algorithm"].dump());
  nlohmann::json merged = parameters;
  for (const PresetField& f : presetFields(j, j["version"].get<int>(), path)) {
    if (const catalog::ProjectorSlot* slot = slotOf(d, f.field)) {
      const KernelVariant* v = f.value.is_string()
                                   ? VariantRegistry::builtins().find(f.value.get<std::string>())
                                   : nullptr;
      if (v == nullptr || v->role != slot->role)
        throw FormatError(
            path, f.named,
            "must name a " + toString(slot->role) + " of this build, got " + f.value.dump());
    } else if (d.parameter(f.field) == nullptr) {
      throw FormatError(path, f.named, "is not a parameter of " + d.label);
    }
    merged[nlohmann::json::json_pointer("/" + f.field)] = f.value;
  }
  try {
    return d.validate(merged);
  } catch (const ParameterError& e) {
    throw FormatError(path, e.what());
  }
}

std::vector<PresetStore::Entry> PresetStore::entries() const {
  std::vector<Entry> out;
  const QStringList files =
      QDir(kBuiltinPresetDir).entryList({QStringLiteral("*.json")}, QDir::Files, QDir::Name);
  for (const QString& file : files) {
    const QString path = QStringLiteral("%1/%2").arg(kBuiltinPresetDir, file);
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) continue;
    const auto j = nlohmann::json::parse(f.readAll().toStdString(), nullptr, false);
    const QString name = j.is_object() && j.contains("name") && j["name"].is_string()
                             ? QString::fromStdString(j["name"].get<std::string>())
                             : QFileInfo(file).completeBaseName();
    out.push_back({name, path, false});
  }
  QSettings settings;
  settings.beginGroup(kUserPresetGroup);
  for (const QString& name : settings.childKeys())
    out.push_back({name, QStringLiteral("user:") + name, true});
  return out;
}

nlohmann::json PresetStore::load(const Entry& entry, QString* source) const {
  if (entry.user) {
    *source = QObject::tr("user preset '%1'").arg(entry.name);
    const QString text =
        QSettings().value(QStringLiteral("%1/%2").arg(kUserPresetGroup, entry.name)).toString();
    return nlohmann::json::parse(text.toStdString(), nullptr, false);
  }
  *source = entry.key;
  QFile f(entry.key);
  if (!f.open(QIODevice::ReadOnly)) return {};
  return nlohmann::json::parse(f.readAll().toStdString(), nullptr, false);
}

void PresetStore::saveUser(const QString& name, const nlohmann::json& preset) {
  QSettings().setValue(QStringLiteral("%1/%2").arg(kUserPresetGroup, name),
                       QString::fromStdString(preset.dump()));
}

void PresetStore::removeUser(const QString& name) {
  QSettings().remove(QStringLiteral("%1/%2").arg(kUserPresetGroup, name));
}

}  // namespace tomowb::gui
