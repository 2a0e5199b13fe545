#include "recon/cluster/RunArguments.h"

#include <cmath>
#include <cstdio>

#include "recon/core/Error.h"

namespace tomowb::cluster {

namespace {

// Shortest text that reads back as the same double (%.17g), so the cluster runs the same grid.
std::string exactNumber(double value) {
  char text[40];
  for (int digits = 6; digits <= 17; ++digits) {
    std::snprintf(text, sizeof text, "%.*g", digits, value);
    if (std::strtod(text, nullptr) == value) break;
  }
  return text;
}

// "filter/cutoff" -> /filter/cutoff
const nlohmann::json* fieldOf(const nlohmann::json& parameters, const std::string& field) {
  const nlohmann::json::json_pointer pointer("/" + field);
  return parameters.contains(pointer) ? &parameters.at(pointer) : nullptr;
}

// The algorithm's own parameters: one option each (defaults too, so nothing depends on the
// cluster's build having the same defaults).
void parameterArguments(const catalog::AlgorithmDescriptor& d, const nlohmann::json& parameters,
                        std::vector<std::string>& a) {
  using Kind = catalog::ParameterSpec::Kind;
  for (const catalog::ParameterSpec& spec : d.parameters) {
    const nlohmann::json* value = fieldOf(parameters, spec.field);
    if (value == nullptr || value->is_null()) continue;
    switch (spec.kind) {
      case Kind::Integer:
        a.insert(a.end(), {spec.option, std::to_string(value->get<std::int64_t>())});
        break;
      case Kind::Real:
      case Kind::OptionalReal:
        a.insert(a.end(), {spec.option, exactNumber(value->get<double>())});
        break;
      case Kind::Flag:
        a.push_back(spec.option + "=" + (value->get<bool>() ? "true" : "false"));
        break;
      case Kind::Choice:
        a.insert(a.end(), {spec.option, value->get<std::string>()});
        break;
    }
  }
}

}  // namespace

std::vector<std::string> reconArguments(const catalog::AlgorithmDescriptor& d,
                                        const nlohmann::json& parameters,
                                        const RunArgumentsOptions& options) {
  if (d.gridPolicy == catalog::GridPolicy::Tomogram)
    throw ParameterError(d.label,
                         "a tilt series goes to the cluster from the command line "
                         "(tomowb-cli cluster submit -- recon " +
                             d.id +
                             " ... --thickness N); the window sends cone-beam "
                             "and parallel-beam runs");
  if (options.input.empty()) throw ParameterError("input", "the projections must be a file");
  if (options.output.empty()) throw ParameterError("output", "give the output file");
  if (options.slabSlices >= 0 && d.id != "fdk")
    throw ParameterError("slab slices", d.label + " does not run in slabs from the window");
  std::vector<std::string> a = {"recon", d.id, "-i", options.input, "-o", options.output};
  // The grid, as the panel has it.
  const nlohmann::json& grid = parameters.at("volume");
  const auto shape = grid.at("shape").get<std::vector<std::int64_t>>();
  const auto voxel = grid.at("voxelSizeMm").get<std::vector<double>>();
  const auto origin = grid.at("originMm").get<std::vector<double>>();
  if (shape.size() != 3 || voxel.size() != 3 || origin.size() != 3)
    throw ParameterError("volume", "needs three sizes, voxel sizes and origins");
  if (voxel[0] != voxel[1] || voxel[0] != voxel[2])
    throw ParameterError("volume", "the command line takes cubic voxels (--voxel-mm); these are " +
                                       exactNumber(voxel[0]) + " x " + exactNumber(voxel[1]) +
                                       " x " + exactNumber(voxel[2]) + " mm");
  a.insert(a.end(), {"--shape", std::to_string(shape[0]), std::to_string(shape[1]),
                     std::to_string(shape[2]), "--voxel-mm", exactNumber(voxel[0]), "--origin-mm",
                     exactNumber(origin[0]), exactNumber(origin[1]), exactNumber(origin[2])});
  parameterArguments(d, parameters, a);
  // The kernel variants of its projector roles.
  for (const catalog::ProjectorSlot& slot : d.projectors) {
    const nlohmann::json* value = fieldOf(parameters, slot.field);
    if (value == nullptr || !value->is_string() || value->get<std::string>().empty()) continue;
    const std::string option = slot.field == "forwardVariant" ? "--fp"
                               : slot.field == "backVariant"  ? "--bp"
                                                              : "--variant";
    a.insert(a.end(), {option, value->get<std::string>()});
  }
  if (options.slabSlices >= 0)
    a.insert(a.end(), {"--slab-slices", std::to_string(options.slabSlices)});
  return a;
}

}  // namespace tomowb::cluster
