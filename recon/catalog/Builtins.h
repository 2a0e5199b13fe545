// The composition root of recon/: the one place that knows every family. main() of every program
// (the CLI, the window, the benchmarks, the test runners) calls installBuiltinVariants() first
// thing; the layers below reach the built-in variants through VariantRegistry::builtins() and
// never call up into this folder. Tests that want other variants build their own registry.
#pragma once

namespace tomowb {
class VariantRegistry;
}  // namespace tomowb

namespace tomowb::catalog {

// Registers every built-in variant into `registry` (registerBuiltins.cpp: one line each).
void registerBuiltins(VariantRegistry& registry);

// Makes VariantRegistry::builtins() fill itself with registerBuiltins (on its first use).
void installBuiltinVariants() noexcept;

}  // namespace tomowb::catalog
