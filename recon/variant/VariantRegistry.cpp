#include "recon/variant/VariantRegistry.h"

#include <string>
#include <utility>

#include "recon/core/Error.h"

namespace tomowb {

void VariantRegistry::add(KernelVariant variant) {
  if (find(variant.name))
    throw ParameterError("variant", "'" + variant.name + "' is registered twice");
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

std::vector<const KernelVariant*> VariantRegistry::family(std::string_view prefix) const {
  std::vector<const KernelVariant*> out;
  for (const KernelVariant& v : variants_)
    if (std::string_view(v.name).substr(0, prefix.size()) == prefix) out.push_back(&v);
  return out;
}

const VariantRegistry& VariantRegistry::builtins() {
  static const VariantRegistry registry = [] {
    VariantRegistry r;
    registerBuiltins(r);
    return r;
  }();
  return registry;
}

}  // namespace tomowb
