// Algorithm presets: a named set of an algorithm's parameters and kernel, built in
// (":/tomowb/presets/algorithms/*.json") or the user's (QSettings "algorithmPresets/<name>").
//
//   {"format": "tomowb-algorithm-preset", "version": 2, "name": "...", "algorithm": "fdk",
//    "parameters": {"filter": {"window": "hann", "cutoff": 0.8}, "fieldOfViewMask": true,
//                   "variant": "fdk.bp.cpu"}}
//
// "parameters" holds fields of the descriptor's ParameterSpecs and its projector fields; the grid
// is not part of a preset (it follows the data). Version 1 (FDK only) had the fields at the top:
// "filter" (the window), "cutoff", "redundancy", "fovMask", "variant"; it is still read. A preset
// goes through the descriptor's validate, so a bad one is refused naming the file and the field.
#pragma once

#include <QString>
#include <nlohmann/json.hpp>
#include <vector>

#include "recon/catalog/AlgorithmCatalog.h"

namespace tomowb::gui {

// `parameters` (the descriptor's JSON) as a preset: its own fields and its projector fields.
nlohmann::json algorithmPresetToJson(const catalog::AlgorithmDescriptor& descriptor,
                                     const nlohmann::json& parameters, const QString& name);
// `parameters` (complete: grid included) with the preset's fields, validated by the descriptor.
// Throws FormatError naming `source` and the field: a wrong format or version, a field the
// algorithm does not have, a value its validate refuses, a kernel of another role.
nlohmann::json applyAlgorithmPreset(const nlohmann::json& preset,
                                    const catalog::AlgorithmDescriptor& descriptor,
                                    const nlohmann::json& parameters, const QString& source);

// The presets on offer: the built-in ones (by file name), then the user's (by name).
class PresetStore {
 public:
  struct Entry {
    QString name;
    QString key;  // the resource path, or "user:<name>"
    bool user = false;
  };
  std::vector<Entry> entries() const;
  // The preset's JSON (null when unreadable) and, in `source`, what errors name.
  nlohmann::json load(const Entry& entry, QString* source) const;
  void saveUser(const QString& name, const nlohmann::json& preset);
  void removeUser(const QString& name);
};

}  // namespace tomowb::gui
