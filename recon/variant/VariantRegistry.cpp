#include "recon/variant/VariantRegistry.h"

#include <atomic>
#include <stdexcept>
#include <string>
#include <utility>

#include "recon/core/Error.h"

namespace tomowb {

std::string toString(VariantRole role) {
  switch (role) {
    case VariantRole::Unset:
      return "no role";
    case VariantRole::FdkBackprojector:
      return "FDK backprojector";
    case VariantRole::ForwardProjector:
      return "forward projector";
    case VariantRole::Backprojector:
      return "backprojector";
    case VariantRole::PetForwardProjector:
      return "DIRECT forward projector";
    case VariantRole::PetBackprojector:
      return "DIRECT backprojector";
  }
  return "?";
}

void VariantRegistry::add(KernelVariant variant) {
  const std::string& name = variant.name;
  if (find(name)) throw ParameterError("variant", "'" + name + "' is registered twice");
  const auto refuse = [&](const std::string& why) {
    throw ParameterError("variant", "'" + name + "' (" + toString(variant.role) + "): " + why);
  };
  switch (variant.role) {
    case VariantRole::Unset:
      refuse("has no role");
      break;
    case VariantRole::FdkBackprojector:
      if (!variant.backproject) refuse("has no backproject function");
      if (variant.forwardProject || variant.backprojectViews) refuse("has projector functions");
      break;
    case VariantRole::ForwardProjector:
      if (!variant.forwardProject) refuse("has no forwardProject function");
      if (variant.backproject || variant.backprojectViews || !variant.adjointOf.empty())
        refuse("has functions or an adjoint of another role");
      break;
    case VariantRole::Backprojector:
      if (!variant.backprojectViews) refuse("has no backprojectViews function");
      if (variant.backproject || variant.forwardProject) refuse("has functions of another role");
      break;
    case VariantRole::PetForwardProjector:
    case VariantRole::PetBackprojector:
      if (!variant.bindDirectPair) refuse("has no bindDirectPair function");
      if (variant.backproject || variant.forwardProject || variant.backprojectViews)
        refuse("has functions of another role");
      if (variant.role == VariantRole::PetForwardProjector && !variant.adjointOf.empty())
        refuse("a forward projector is nobody's adjoint");
      break;
  }
  if (variant.role != VariantRole::FdkBackprojector && variant.model.empty())
    refuse("a projector needs its model (\"joseph\", \"voxel\", ...)");
  variants_.push_back(std::move(variant));
}

const KernelVariant* VariantRegistry::find(std::string_view name) const {
  for (const KernelVariant& v : variants_)
    if (v.name == name) return &v;
  return nullptr;
}

const KernelVariant& VariantRegistry::require(std::string_view name) const {
  if (const KernelVariant* v = find(name)) return *v;
  std::string known;
  for (const KernelVariant& v : variants_) known += (known.empty() ? "" : ", ") + v.name;
  throw ParameterError("variant",
                       "unknown kernel variant '" + std::string(name) + "'; available: " + known);
}

std::vector<const KernelVariant*> VariantRegistry::withRole(VariantRole role) const {
  std::vector<const KernelVariant*> out;
  for (const KernelVariant& v : variants_)
    if (v.role == role) out.push_back(&v);
  return out;
}

std::optional<std::string> refusalOf(const KernelVariant& variant, const Geometry& geometry,
                                     const VolumeGrid& grid) {
  if (!variant.supports) return std::nullopt;
  try {
    return variant.supports(geometry, grid);
  } catch (const Error& e) {
    return std::string(e.what());
  }
}

const KernelVariant& VariantRegistry::defaultFor(VariantRole role, VariantDevice device,
                                                 bool matched) const {
  const bool gpu = device == VariantDevice::Gpu;
  const char* name = nullptr;
  switch (role) {
    case VariantRole::FdkBackprojector:
      name = gpu ? "fdk.bp.fast" : "fdk.bp.cpu";
      break;
    case VariantRole::ForwardProjector:
      name = gpu ? (matched ? "et.fp.matched" : "et.fp.fast") : "et.fp.cpu";
      break;
    case VariantRole::Backprojector:
      name = gpu ? (matched ? "et.bp.matched" : "et.bp.fast")
                 : (matched ? "et.bp.cpu-matched" : "et.bp.cpu-voxel");
      break;
    case VariantRole::PetForwardProjector:
      name = gpu ? "direct.fp.gather-reg" : "direct.fp.cpu";
      break;
    case VariantRole::PetBackprojector:
      name = gpu ? "direct.bp.gather-reg" : "direct.bp.cpu";
      break;
    case VariantRole::Unset:
      break;
  }
  const KernelVariant* v = name ? find(name) : nullptr;
  if (!v)
    throw ParameterError("variant", "this build has no default " + toString(role) + " on the " +
                                        (gpu ? "GPU" : "CPU") +
                                        (gpu ? " (built without CUDA?)" : ""));
  return *v;
}

const KernelVariant& VariantRegistry::defaultFor(VariantRole role, VariantDevice device,
                                                 const Geometry& geometry, const VolumeGrid& grid,
                                                 std::string* fellBack, bool matched) const {
  if (fellBack) fellBack->clear();
  const KernelVariant& preferred = defaultFor(role, device, matched);
  std::optional<std::string> refused = refusalOf(preferred, geometry, grid);
  if (!refused) return preferred;
  const KernelVariant& cpu = defaultFor(role, VariantDevice::Cpu, matched);
  const std::optional<std::string> cpuRefused =
      &cpu != &preferred ? refusalOf(cpu, geometry, grid) : std::nullopt;
  if (&cpu == &preferred || cpuRefused)
    throw ParameterError("variant", "no default " + toString(role) + " takes this geometry: " +
                                        *refused + (cpuRefused ? "; " + *cpuRefused : ""));
  if (fellBack) *fellBack = *refused;
  return cpu;
}

const KernelVariant& VariantRegistry::referenceFor(VariantRole role) const {
  const char* name = role == VariantRole::FdkBackprojector      ? "fdk.bp.cpu-f64"
                     : role == VariantRole::ForwardProjector    ? "et.fp.cpu"
                     : role == VariantRole::Backprojector       ? "et.bp.cpu-matched"
                     : role == VariantRole::PetForwardProjector ? "direct.fp.cpu"
                     : role == VariantRole::PetBackprojector    ? "direct.bp.cpu"
                                                                : nullptr;
  const KernelVariant* v = name ? find(name) : nullptr;
  if (!v) throw ParameterError("variant", "this build has no float64 reference " + toString(role));
  return *v;
}

namespace {
std::atomic<VariantRegistry::Filler> installedFiller{nullptr};
}  // namespace

void VariantRegistry::installBuiltins(Filler fill) noexcept {
  installedFiller.store(fill);
}

const KernelVariant& VariantRegistry::referenceFor(VariantRole role, std::string_view model) const {
  const KernelVariant& general = referenceFor(role);
  if (model.empty() || general.model == model ||
      (role != VariantRole::ForwardProjector && role != VariantRole::Backprojector))
    return general;
  for (const KernelVariant& fp : variants_) {
    if (fp.role != VariantRole::ForwardProjector || fp.needsGpu || fp.model != model) continue;
    for (const KernelVariant& bp : variants_)
      if (bp.role == VariantRole::Backprojector && !bp.needsGpu && bp.adjointOf == fp.name)
        return role == VariantRole::ForwardProjector ? fp : bp;
  }
  return general;
}

const VariantRegistry& VariantRegistry::builtins() {
  static const VariantRegistry registry = [] {
    const Filler fill = installedFiller.load();
    if (!fill)
      throw std::logic_error(
          "VariantRegistry::builtins() before main() installed the built-in variants "
          "(catalog::installBuiltinVariants(), recon/catalog/Builtins.h)");
    VariantRegistry r;
    fill(r);
    return r;
  }();
  return registry;
}

}  // namespace tomowb
