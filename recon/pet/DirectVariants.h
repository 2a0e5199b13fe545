// Registers every DIRECT projector (CPU reference and, with CUDA, the GPU schemes) into a
// registry: called by the composition root (recon/catalog/registerBuiltins.cpp).
#pragma once

#include "recon/variant/VariantRegistry.h"

namespace tomowb::pet {

void registerDirectVariants(VariantRegistry& registry);

}  // namespace tomowb::pet
