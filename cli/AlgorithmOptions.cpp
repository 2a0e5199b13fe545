// AlgorithmOptions: see the header.
#include "AlgorithmOptions.h"

#include <algorithm>
#include <cstdio>
#include <optional>

#include "FiniteNumbers.h"
#include "recon/core/Error.h"
#include "recon/device/GpuDevices.h"
#include "recon/iterative/IterativeJson.h"
#include "recon/variant/VariantRegistry.h"

namespace tomowb::cli {

namespace {

using Kind = catalog::ParameterSpec::Kind;

std::string joinNames(const std::vector<const KernelVariant*>& variants) {
  std::string names;
  for (const KernelVariant* v : variants) names += (names.empty() ? "" : ", ") + v->name;
  return names.empty() ? "none" : names;
}

}  // namespace

void ParameterOptions::addTo(CLI::App& app, const catalog::AlgorithmDescriptor& descriptor) {
  if (descriptor.parameters.empty()) return;
  auto* group = app.add_option_group("Algorithm", descriptor.label + " parameters");
  for (const catalog::ParameterSpec& spec : descriptor.parameters) {
    auto value = std::make_unique<Value>();
    value->spec = spec;
    Value& v = *value;
    // The rule in words where it says more than the option's type does.
    const bool ruleHelps = spec.kind == Kind::Integer || spec.kind == Kind::Real;
    const std::string help = spec.help + (ruleHelps ? " (" + spec.rule() + ")" : "");
    switch (spec.kind) {
      case Kind::Integer:
        v.integer = spec.defaultValue.get<std::int64_t>();
        v.option = group->add_option(spec.option, v.integer, help)->capture_default_str();
        break;
      case Kind::Real:
        v.real = spec.defaultValue.get<double>();
        v.option = group->add_option(spec.option, v.real, help)->capture_default_str();
        break;
      case Kind::OptionalReal:
        v.option = group->add_option(spec.option, v.real, help)->check(finiteNumber());
        break;
      case Kind::Flag:
        v.flag = spec.defaultValue.get<bool>();
        v.option = group->add_flag(spec.option, v.flag, help);
        break;
      case Kind::Choice:
        v.text = spec.defaultValue.get<std::string>();
        v.option = group->add_option(spec.option, v.text, help)->capture_default_str();
        break;
    }
    if (!spec.aliasFlag.empty()) group->add_flag(spec.aliasFlag, v.alias, spec.aliasHelp);
    values_.push_back(std::move(value));
  }
}

void ParameterOptions::apply(nlohmann::json& parameters) const {
  for (const auto& value : values_) {
    const Value& v = *value;
    nlohmann::json j;
    switch (v.spec.kind) {
      case Kind::Integer:
        j = v.integer;
        break;
      case Kind::Real:
        j = v.real;
        break;
      case Kind::OptionalReal:
        j = v.option->count() > 0 ? nlohmann::json(v.real)
            : v.alias             ? nlohmann::json(v.spec.aliasValue)
                                  : nlohmann::json();
        break;
      case Kind::Flag:
        j = v.flag;
        break;
      case Kind::Choice:
        j = v.text;
        break;
    }
    try {
      v.spec.check(j);
    } catch (const ParameterError&) {
      std::string given = j.dump();
      if (j.is_string()) given = j.get<std::string>();
      throw ParameterError(v.spec.option, "must be " + v.spec.rule() + ", got " + given);
    }
    parameters[nlohmann::json::json_pointer("/" + v.spec.field)] = j;
  }
}

void VariantOptions::addTo(CLI::App& app, const catalog::AlgorithmDescriptor& descriptor) {
  fdk_ = descriptor.accepts(VariantRole::FdkBackprojector);
  if (fdk_) {
    fdkOptions_.filterOptions = false;
    fdkOptions_.addTo(app);
    return;
  }
  if (!descriptor.accepts(VariantRole::ForwardProjector)) return;
  auto* d = app.add_option_group("Projectors", "projector variants and device");
  d->add_option("--device", device_, "cpu or gpu (default: the variants' device, else the CPU)")
      ->check(CLI::IsMember({"cpu", "gpu"}));
  d->add_option("--variant", variants_,
                "a projector variant of either family (repeatable; 'tomowb-cli variants')");
  d->add_option("--fp", fp_, "forward projector (default et.fp.cpu; GPU et.fp.fast)");
  d->add_option("--bp", bp_,
                "backprojector (default et.bp.cpu-voxel; GPU et.bp.fast; with --matched the "
                "exact transpose)");
  d->add_option("--projector", projectorModel_,
                "MODEL: the matched pair of a projector model (sf-tr, sf-tt, joseph, siddon; "
                "voxel: Joseph with the voxel-driven backprojector), GPU variants with --device "
                "gpu; --fp/--bp/--variant still win");
  d->add_flag("--matched", matched_,
              "use the matched pair (a forward projector and its exact transpose): SIRT "
              "converges to the least-squares solution");
  d->add_option("--gpu-mem-limit", gpuMemoryLimit_, "use at most SIZE of each GPU's memory");
  d->add_option("--gpus", gpus_, "CUDA device indices, e.g. 0,1 (default: every GPU)")
      ->delimiter(',')
      ->check(CLI::NonNegativeNumber);
  d->add_option("--tunable", tunables_,
                "NAME=VALUE: a tunable of the GPU variants ('tomowb-cli variants'); repeatable")
      ->allow_extra_args(false);
}

void VariantOptions::apply(nlohmann::json& parameters) const {
  if (fdk_) {
    std::vector<std::string> warnings;
    const fdk::FdkParams p = fdkOptions_.build(&warnings);
    for (const std::string& w : warnings) std::fprintf(stderr, "warning: %s\n", w.c_str());
    parameters["variant"] = p.variant;
    parameters["gpu"] = fdk::toJson(p.gpu);
    return;
  }
  // A projector pair: --fp/--bp or --variant (either role) win; else --matched and --device
  // choose the defaults.
  const VariantRegistry& registry = VariantRegistry::builtins();
  std::string fp = fp_, bp = bp_;
  for (const std::string& name : variants_) {
    const KernelVariant* v = registry.find(name);
    if (v && v->role == VariantRole::ForwardProjector)
      fp = name;
    else if (v && v->role == VariantRole::Backprojector)
      bp = name;
    else
      throw ParameterError(
          "--variant", "'" + name +
                           "' is not a projector of the iterative algorithms; "
                           "forward: " +
                           joinNames(registry.withRole(VariantRole::ForwardProjector)) +
                           "; back: " + joinNames(registry.withRole(VariantRole::Backprojector)) +
                           " ('tomowb-cli variants' describes them)");
  }
  const bool gpu = device_ == "gpu";
  if (gpu) requireGpu("--device");
  const VariantDevice on = gpu ? VariantDevice::Gpu : VariantDevice::Cpu;
  // --projector MODEL fills the roles --fp, --bp and --variant left open.
  bool modelOnCpu = false;
  if (!projectorModel_.empty() && (fp.empty() || bp.empty())) {
    const ModelPair pair = pairOfModel(registry, projectorModel_, gpu);
    if (!pair.note.empty()) std::fprintf(stderr, "note: %s\n", pair.note.c_str());
    modelOnCpu = !pair.onGpu;
    if (fp.empty()) fp = pair.forward;
    if (bp.empty()) bp = pair.back;
  }
  if (fp.empty()) fp = registry.defaultFor(VariantRole::ForwardProjector, on, matched_).name;
  if (bp.empty()) bp = registry.defaultFor(VariantRole::Backprojector, on, matched_).name;
  for (const auto& [name, forward] : {std::pair{fp, true}, std::pair{bp, false}}) {
    const KernelVariant* v = registry.find(name);
    const char* option = forward ? "--fp" : "--bp";
    if (!v || v->role != (forward ? VariantRole::ForwardProjector : VariantRole::Backprojector)) {
      std::string problem = "unknown " +
                            std::string(forward ? "forward projector" : "backprojector") + " '" +
                            name + "'; this build has " +
                            joinNames(registry.withRole(forward ? VariantRole::ForwardProjector
                                                                : VariantRole::Backprojector));
      if (gpu) problem += "; GPU variants need a CUDA build and a GPU: " + cuda::gpuStatus();
      throw ParameterError(option, problem);
    }
    if (device_ == "cpu" && v->needsGpu)
      throw ParameterError("--device", "cpu: '" + name + "' is a GPU variant");
    if (gpu && !v->needsGpu && !modelOnCpu)
      throw ParameterError("--device", "gpu: '" + name + "' runs on the CPU");
    if (device_.empty() && v->needsGpu) requireGpu(std::string(option) + " " + name);
  }
  GpuRunOptions options;
  if (!gpuMemoryLimit_.empty())
    options.memoryLimitBytes = parseByteSize(gpuMemoryLimit_, "--gpu-mem-limit");
  options.devices = gpus_;
  const KernelVariant& f = registry.require(fp);
  const KernelVariant& b = registry.require(bp);
  for (const std::string& t : tunables_) {
    const std::size_t eq = t.find('=');
    if (eq == std::string::npos || eq == 0)
      throw ParameterError("--tunable", "'" + t + "' is not NAME=VALUE");
    const std::string name = t.substr(0, eq);
    const auto has = [&](const KernelVariant& v) {
      return std::any_of(v.tunables.begin(), v.tunables.end(),
                         [&](const Tunable& x) { return x.name == name; });
    };
    if (!has(f) && !has(b))
      throw ParameterError(
          "--tunable", "neither " + f.name + " nor " + b.name + " has a tunable '" + name + "'");
    options.tunables[name] = t.substr(eq + 1);
  }
  parameters["forwardVariant"] = fp;
  parameters["backVariant"] = bp;
  parameters["gpu"] = fdk::toJson(options);
}

bool VariantOptions::onGpu(const catalog::AlgorithmDescriptor& descriptor,
                           const nlohmann::json& parameters) {
  const VariantRegistry& registry = VariantRegistry::builtins();
  for (const catalog::ProjectorSlot& slot : descriptor.projectors) {
    const auto it = parameters.find(slot.field);
    if (it == parameters.end() || !it->is_string()) continue;
    const KernelVariant* v = registry.find(it->get<std::string>());
    if (v != nullptr && v->needsGpu) return true;
  }
  return false;
}

VariantOptions::ModelPair VariantOptions::pairOfModel(const VariantRegistry& registry,
                                                      const std::string& model, bool gpu) {
  const auto ofModel = [&](VariantRole role, bool onGpu) -> const KernelVariant* {
    for (const KernelVariant* v : registry.withRole(role))
      if (v->model == model && v->needsGpu == onGpu) return v;
    return nullptr;
  };
  const auto matchedOn = [&](bool onGpu) -> std::optional<ModelPair> {
    for (const KernelVariant* b : registry.withRole(VariantRole::Backprojector)) {
      if (b->model != model || b->needsGpu != onGpu || b->adjointOf.empty()) continue;
      const KernelVariant* f = registry.find(b->adjointOf);
      if (f && f->role == VariantRole::ForwardProjector && f->needsGpu == onGpu)
        return ModelPair{f->name, b->name, onGpu, ""};
    }
    return std::nullopt;
  };
  if (gpu)
    if (std::optional<ModelPair> pair = matchedOn(true)) return *pair;
  if (std::optional<ModelPair> pair = matchedOn(false)) {
    if (gpu)
      pair->note = "--projector " + model + ": no GPU pair of this model is registered (" +
                   cuda::gpuStatus() + "); running the CPU pair " + pair->forward + " + " +
                   pair->back;
    return *pair;
  }
  // No matched pair: the model's projectors, the device's default for the role it lacks.
  const KernelVariant* f = gpu ? ofModel(VariantRole::ForwardProjector, true) : nullptr;
  if (!f) f = ofModel(VariantRole::ForwardProjector, false);
  const KernelVariant* b = gpu ? ofModel(VariantRole::Backprojector, true) : nullptr;
  if (!b) b = ofModel(VariantRole::Backprojector, false);
  if (!f && !b) {
    std::vector<std::string> models;
    for (const KernelVariant& v : registry.all())
      if (!v.model.empty() && std::find(models.begin(), models.end(), v.model) == models.end())
        models.push_back(v.model);
    std::string list;
    for (const std::string& m : models) list += (list.empty() ? "" : ", ") + m;
    throw ParameterError("--projector", "no projector of model '" + model +
                                            "' is registered; the models are " + list);
  }
  const bool onGpu = (f && f->needsGpu) || (b && b->needsGpu);
  const VariantDevice device = onGpu ? VariantDevice::Gpu : VariantDevice::Cpu;
  ModelPair pair;
  pair.forward = f ? f->name : registry.defaultFor(VariantRole::ForwardProjector, device).name;
  pair.back = b ? b->name : registry.defaultFor(VariantRole::Backprojector, device).name;
  pair.onGpu = onGpu;
  pair.note = "--projector " + model + ": the model has no matched pair; running " + pair.forward +
              " + " + pair.back + " (unmatched)";
  return pair;
}

}  // namespace tomowb::cli
