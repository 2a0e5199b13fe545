// The GPU FDK family's descriptor table (recon/fdk/GpuFdkKernelTable.h): every row is complete,
// the names its rows refer to exist, and the planner's footprints are the pipeline's (the figures
// the name ladder gave before issue #18, point 3). Plain data: runs without a GPU.
#include <gtest/gtest.h>

#include <set>

#include "recon/fdk/GpuFdkKernelTable.h"

namespace tomowb::fdk {
namespace {

TEST(GpuFdkKernelTable, RowsHaveUniqueNamesDescriptionsAndKnownReferences) {
  std::set<std::string> names;
  for (const GpuFdkKernel& k : gpuFdkKernels()) {
    EXPECT_TRUE(names.insert(k.name).second) << k.name;
    EXPECT_EQ(k.name.rfind("fdk.bp.", 0), 0u) << k.name;
    EXPECT_FALSE(k.description.empty()) << k.name;
    if (!k.runs.empty()) EXPECT_NE(findGpuFdkKernel(k.runs), nullptr) << k.name;
    if (!k.fallback.empty()) {
      const GpuFdkKernel* fallback = findGpuFdkKernel(k.fallback);
      ASSERT_NE(fallback, nullptr) << k.name;
      EXPECT_FALSE(fallback->zMirror) << k.name << ": a fallback must run any geometry";
    }
    EXPECT_EQ(k.zMirror, !k.fallback.empty()) << k.name << ": z-mirror rows need a fallback";
    // Every row runs a kernel of its own, or another row's.
    // With CUDA a row either launches its own kernel or runs another row's; without CUDA no row
    // has a launch function.
    if (TOMOWB_HAVE_CUDA)
      EXPECT_EQ(k.runs.empty(), k.launch != nullptr) << k.name;
    else
      EXPECT_EQ(k.launch, nullptr) << k.name;
  }
  EXPECT_EQ(names.size(), 13u);
  EXPECT_EQ(findGpuFdkKernel("fdk.bp.cpu"), nullptr);
}

TEST(GpuFdkKernelTable, FootprintsAreThePipelinesInputs) {
  const auto footprint = [](const char* name) { return gpuKernelFootprint(name); };
  for (const char* name : {"fdk.bp.naive", "fdk.bp.tex", "fdk.bp.tex-multi", "fdk.bp.slab",
                           "fdk.bp.layered16", "fdk.bp.soft", "fdk.bp.cpu", "unknown"}) {
    EXPECT_EQ(footprint(name).inputBytesPerPixel, 4) << name;
    EXPECT_EQ(footprint(name).axis, GpuSplitAxis::Z) << name;
  }
  EXPECT_EQ(footprint("fdk.bp.mirror-half2").inputBytesPerPixel, 8);
  // The hybrids: their texture's bytes and a 16-byte element for every N-th view, rounded up.
  EXPECT_EQ(kMirrorHybridLoadEvery, 4);
  EXPECT_EQ(kHybridLoadEvery, 3);
  EXPECT_EQ(footprint("fdk.bp.mirror-hybrid").inputBytesPerPixel, 8 + 4);
  EXPECT_EQ(footprint("fdk.bp.fast").inputBytesPerPixel, 8 + 4);  // planned as mirror-hybrid
  EXPECT_EQ(footprint("fdk.bp.hybrid").inputBytesPerPixel, 4 + 6);
  EXPECT_EQ(footprint("fdk.bp.hybrid").axis, GpuSplitAxis::Z);
  EXPECT_EQ(footprint("fdk.bp.mirror-float2").inputBytesPerPixel, 16);
  EXPECT_EQ(footprint("fdk.bp.soft-mirror").inputBytesPerPixel, 16);
  EXPECT_EQ(footprint("fdk.bp.soft-mirror-half").inputBytesPerPixel, 16);
  for (const char* name : {"fdk.bp.mirror-half2", "fdk.bp.fast", "fdk.bp.mirror-float2",
                           "fdk.bp.soft-mirror", "fdk.bp.soft-mirror-half", "fdk.bp.mirror-hybrid"})
    EXPECT_EQ(footprint(name).axis, GpuSplitAxis::ZMirror) << name;
}

// The hybrids' N per input; the other inputs have no load path.
TEST(GpuFdkKernelTable, OnlyTheHybridInputsHaveLoadPathViews) {
  EXPECT_EQ(hybridLoadEvery(GpuFdkInput::MirrorHybrid), kMirrorHybridLoadEvery);
  EXPECT_EQ(hybridLoadEvery(GpuFdkInput::Hybrid), kHybridLoadEvery);
  for (const GpuFdkInput input : {GpuFdkInput::Layered, GpuFdkInput::MirrorHalf2,
                                  GpuFdkInput::SoftMirrorHalf, GpuFdkInput::Padded})
    EXPECT_EQ(hybridLoadEvery(input), 0);
}

}  // namespace
}  // namespace tomowb::fdk
