// The GPU FDK family's descriptor table (recon/fdk/GpuFdkKernelTable.h): every row is complete,
// the names its rows refer to exist, and the planner's footprints are the pipeline's (the figures
// the name ladder gave before issue #18, point 3). Plain data: runs without a GPU.
#include <gtest/gtest.h>

#include <cstdlib>
#include <set>
#include <utility>

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
  // The hybrids: their texture's bytes and a 16-byte element for every N-th view, rounded up,
  // in chunks of a multiple of N (N from TOMOWB_FDK_HYBRID_EVERY where a measurement sets it).
  EXPECT_EQ(kMirrorHybridLoadEvery, 4);
  EXPECT_EQ(kHybridLoadEvery, 3);
  const std::int64_t mirrorN = hybridLoadEvery(GpuFdkInput::MirrorHybrid);
  const std::int64_t plainN = hybridLoadEvery(GpuFdkInput::Hybrid);
  EXPECT_EQ(footprint("fdk.bp.mirror-hybrid").inputBytesPerPixel, 8 + (16 + mirrorN - 1) / mirrorN);
  EXPECT_EQ(footprint("fdk.bp.fast").inputBytesPerPixel,  // planned as mirror-hybrid
            8 + (16 + mirrorN - 1) / mirrorN);
  EXPECT_EQ(footprint("fdk.bp.hybrid").inputBytesPerPixel, 4 + (16 + plainN - 1) / plainN);
  EXPECT_EQ(footprint("fdk.bp.hybrid").axis, GpuSplitAxis::Z);
  EXPECT_EQ(footprint("fdk.bp.mirror-hybrid").chunkMultiple, mirrorN);
  EXPECT_EQ(footprint("fdk.bp.fast").chunkMultiple, mirrorN);
  EXPECT_EQ(footprint("fdk.bp.hybrid").chunkMultiple, plainN);
  EXPECT_EQ(footprint("fdk.bp.mirror-half2").chunkMultiple, 1);
  EXPECT_EQ(footprint("fdk.bp.layered16").chunkMultiple, 1);
  EXPECT_EQ(footprint("fdk.bp.mirror-float2").inputBytesPerPixel, 16);
  EXPECT_EQ(footprint("fdk.bp.soft-mirror").inputBytesPerPixel, 16);
  EXPECT_EQ(footprint("fdk.bp.soft-mirror-half").inputBytesPerPixel, 16);
  for (const char* name : {"fdk.bp.mirror-half2", "fdk.bp.fast", "fdk.bp.mirror-float2",
                           "fdk.bp.soft-mirror", "fdk.bp.soft-mirror-half", "fdk.bp.mirror-hybrid"})
    EXPECT_EQ(footprint(name).axis, GpuSplitAxis::ZMirror) << name;
}

// The hybrids' N per input; the other inputs have no load path.
TEST(GpuFdkKernelTable, OnlyTheHybridInputsHaveLoadPathViews) {
  if (std::getenv("TOMOWB_FDK_HYBRID_EVERY") == nullptr) {  // NOLINT(concurrency-mt-unsafe)
    EXPECT_EQ(hybridLoadEvery(GpuFdkInput::MirrorHybrid), kMirrorHybridLoadEvery);
    EXPECT_EQ(hybridLoadEvery(GpuFdkInput::Hybrid), kHybridLoadEvery);
  }
  for (const GpuFdkInput input : {GpuFdkInput::Layered, GpuFdkInput::MirrorHalf2,
                                  GpuFdkInput::SoftMirrorHalf, GpuFdkInput::Padded}) {
    EXPECT_EQ(hybridLoadEvery(input), 0);
    EXPECT_EQ(loadPathEvery(input, 64), 0);
    EXPECT_EQ(loadPathGridBytes(input, 64, 960, 1248), 0u);
  }
}

// What a hybrid input allocates for its load-path grid stays within what the planner counts for
// it (16 / N bytes a pixel of both double-buffered inputs' (rows + 3) x (cols + 3) pixels) for
// every capacity the planner makes: multiples of N, and fewer than N, which have no load path.
TEST(GpuFdkKernelTable, TheLoadPathGridFitsWhatThePlannerCounts) {
  for (const auto& [input, texture] :
       {std::pair{GpuFdkInput::MirrorHybrid, 8}, std::pair{GpuFdkInput::Hybrid, 4}}) {
    const std::int64_t n = hybridLoadEvery(input);
    const std::int64_t gridShare = inputBytesPerPixelOf(input) - texture;
    for (const std::int64_t rows : {1, 17, 960})
      for (const std::int64_t cols : {1, 33, 1248})
        for (std::int64_t capacity = 1; capacity <= 70; ++capacity) {
          const bool planned = capacity < n || capacity % n == 0;
          if (!planned) continue;
          const std::uint64_t counted =
              std::uint64_t(capacity) * std::uint64_t((rows + 3) * (cols + 3) * gridShare);
          EXPECT_LE(loadPathGridBytes(input, capacity, rows, cols), counted)
              << capacity << " views of " << rows << " x " << cols;
          EXPECT_EQ(loadPathEvery(input, capacity) == 0, capacity < n) << capacity;
        }
    // A whole chunk's grid: ceil(capacity / N) views of (rows + 2) x (cols + 2) 16-byte elements.
    EXPECT_EQ(loadPathGridBytes(input, 64, 960, 1248),
              std::uint64_t((64 + n - 1) / n) * 962 * 1250 * 16);
  }
}

}  // namespace
}  // namespace tomowb::fdk
