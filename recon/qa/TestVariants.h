// TestVariants: deliberately broken kernel variants for testing the QA tools (issue #9, point 7).
// They are registered only when the environment variable TOMOWB_TEST_VARIANTS is set (tests and
// the documentation's demonstration), never in a normal run:
//   fdk.bp.test-half-pixel   the CPU backprojector reading the detector half a column off
//                            (claims the Exact class; the compare thresholds must catch it)
//   fdk.bp.test-gpu-stand-in the CPU backprojector marked as needing a GPU (a machine without
//                            one must list it as skipped, "no GPU")
#pragma once

namespace tomowb {
class VariantRegistry;
}

namespace tomowb::qa {

inline constexpr const char* kTestVariantsEnvironment = "TOMOWB_TEST_VARIANTS";

// Adds the test-only variants when TOMOWB_TEST_VARIANTS is set (non-empty, not "0").
void registerTestVariants(VariantRegistry& registry);

}  // namespace tomowb::qa
