#include "recon/qa/TestVariants.h"

#include <cstdlib>
#include <string_view>

#include "recon/fdk/BackprojectorCpu.h"
#include "recon/variant/VariantRegistry.h"

namespace tomowb::qa {

void registerTestVariants(VariantRegistry& registry) {
  const char* flag = std::getenv(kTestVariantsEnvironment);
  if (!flag || std::string_view(flag).empty() || std::string_view(flag) == "0") return;
  KernelVariant v;
  v.name = "fdk.bp.test-half-pixel";
  v.role = VariantRole::FdkBackprojector;
  v.description =
      "TEST ONLY, deliberately wrong: the CPU backprojector with the detector read half a column "
      "off (registered because TOMOWB_TEST_VARIANTS is set)";
  v.accuracyClass = AccuracyClass::Exact;  // what it claims; the QA tools must catch the lie
  v.backproject = [](const ProjectionStack& filtered, Volume& volume, JobContext& context) {
    ProjectionStack shifted = filtered;
    for (std::int64_t i = 0; i < shifted.viewCount(); ++i) {
      View& view = shifted.geometry().view(i);
      view.detectorCentre += 0.5 * view.u;
    }
    fdk::backprojectCpu(shifted, volume, context);
  };
  registry.add(std::move(v));

  // Stands for a GPU variant on a machine without one, where the sweep must say "no GPU". Where a
  // GPU is present it runs, and is the plain CPU backprojector.
  KernelVariant gpu;
  gpu.name = "fdk.bp.test-gpu-stand-in";
  gpu.role = VariantRole::FdkBackprojector;
  gpu.description =
      "TEST ONLY: a stand-in GPU variant (the CPU backprojector marked as needing a GPU; "
      "registered because TOMOWB_TEST_VARIANTS is set)";
  gpu.needsGpu = true;
  gpu.accuracyClass = AccuracyClass::Exact;
  gpu.backproject = [](const ProjectionStack& filtered, Volume& volume, JobContext& context) {
    fdk::backprojectCpu(filtered, volume, context);
  };
  registry.add(std::move(gpu));
}

}  // namespace tomowb::qa
