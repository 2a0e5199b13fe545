#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <numbers>
#include <string>

#include "recon/core/Error.h"
#include "recon/core/MemoryBudget.h"
#include "recon/fdk/FdkMemoryEstimate.h"
#include "recon/fdk/RampFilter.h"
#include "recon/geometry/ScanBuilders.h"

namespace tomowb::fdk {
namespace {

Geometry smallCone(std::int64_t views, std::int64_t cols, std::int64_t rows) {
  CircularConeParams c;
  c.sourceToIsocentreMm = 500;
  c.sourceToDetectorMm = 1000;
  c.detector.cols = cols;
  c.detector.rows = rows;
  c.detector.pitchUMm = c.detector.pitchVMm = 1.0;
  c.anglesRad = fullScanAnglesRad(views);
  return circularConeBeam(c);
}

FdkParams paramsFor(VolumeShape shape) {
  FdkParams p;
  p.volume = VolumeGrid::centred(shape, Eigen::Vector3d::Constant(0.5));
  return p;
}

constexpr std::uint64_t kMiB = std::uint64_t{1} << 20;
constexpr std::uint64_t kGiB = std::uint64_t{1} << 30;

TEST(FdkMemoryEstimate, CountsEveryHostBufferExactlyForASmallCpuRun) {
  const Geometry g = smallCone(10, 16, 8);
  FdkMemoryOptions o;
  o.hostThreads = 2;
  const FdkMemoryEstimate e = estimateFdkMemory(g, paramsFor({4, 5, 6}), o);
  EXPECT_EQ(e.projectionBytes, 10u * 8 * 16 * 4);
  EXPECT_EQ(e.filteredBytes, 10u * 8 * 16 * 4);  // centred detector: no column extension
  EXPECT_EQ(e.volumeBytes, 4u * 5 * 6 * 4);
  // Ramp filter on a 64-sample padded row (32 B each) + one weighted view.
  EXPECT_EQ(e.perThreadBytes, 64u * 32 + 8 * 16 * 4);
  // CPU block: all 10 views with a one-pixel border.
  EXPECT_EQ(e.blockBytes, 10u * 18 * 10 * 4);
  EXPECT_EQ(e.threads, 2);
  const std::uint64_t filterPhase = 2 * e.perThreadBytes;
  EXPECT_EQ(e.hostNewBytes, e.filteredBytes + e.volumeBytes + std::max(filterPhase, e.blockBytes));
  EXPECT_EQ(e.hostPeakBytes, e.projectionBytes + e.hostNewBytes);
  EXPECT_FALSE(e.onGpu);
  EXPECT_TRUE(e.hostFits);
  EXPECT_TRUE(e.warnings.empty());
  EXPECT_EQ(e.summary, "host " + formatBytes(e.hostPeakBytes));
}

TEST(FdkMemoryEstimate, OffsetDetectorWidensTheFilteredCopy) {
  CircularConeParams c;
  c.sourceToIsocentreMm = 500;
  c.sourceToDetectorMm = 1000;
  c.detector.cols = 64;
  c.detector.rows = 4;
  c.detector.offsetUMm = 20;  // 20 pixels off centre: half-fan
  c.anglesRad = fullScanAnglesRad(90);
  const FdkMemoryEstimate e = estimateFdkMemory(circularConeBeam(c), paramsFor({8, 8, 2}));
  EXPECT_GT(e.filteredBytes, e.projectionBytes);
}

TEST(FdkMemoryEstimate, PreviewCopiesAndAvailableMemoryAreChecked) {
  FdkMemoryOptions o;
  o.hostThreads = 1;
  o.previewCopies = 2;
  o.availableHostBytes = 1000;  // far too little
  const FdkMemoryEstimate e = estimateFdkMemory(smallCone(10, 16, 8), paramsFor({4, 5, 6}), o);
  EXPECT_EQ(e.previewBytes, 2 * e.volumeBytes);
  EXPECT_FALSE(e.hostFits);
  ASSERT_FALSE(e.warnings.empty());
  EXPECT_NE(e.warnings.front().find("available"), std::string::npos);
}

TEST(FdkMemoryEstimate, RejectsAnEmptyVolumeNamingTheField) {
  try {
    estimateFdkMemory(smallCone(10, 16, 8), paramsFor({0, 5, 6}));
    FAIL() << "no exception";
  } catch (const ParameterError& e) {
    EXPECT_NE(std::string(e.what()).find("volume.shape"), std::string::npos) << e.what();
  }
}

TEST(FdkMemoryEstimate, RabbitCtSizedGpuRunIsThePlannersOneSlab) {
  const Geometry g = smallCone(496, 1248, 960);
  FdkMemoryOptions o;
  o.deviceMemoryBytes = 80 * kGiB;
  FdkParams params = paramsFor({256, 256, 256});
  params.variant = "fdk.bp.tex";
  const FdkMemoryEstimate e = estimateFdkMemory(g, params, o);
  ASSERT_TRUE(e.onGpu);
  // The planner's input: the sizes the CUDA pipeline uses.
  EXPECT_EQ(e.planInput.views, 496);
  EXPECT_EQ(e.planInput.rows, 960);
  EXPECT_EQ(e.planInput.cols, 1248);
  EXPECT_EQ(e.planInput.filteredCols, 1248);
  EXPECT_EQ(e.planInput.fftLength, paddedRowLength(1248));
  EXPECT_EQ(e.planInput.inputBytesPerPixel, 4);
  EXPECT_EQ(e.planInput.maxChunkViews, 64);
  EXPECT_EQ(e.planInput.axis, GpuSplitAxis::Z);
  EXPECT_EQ(e.planInput.deviceBytes, 80 * kGiB);
  // ... and its plan, unchanged.
  const GpuFdkPlan direct = planGpuFdk(e.planInput);
  EXPECT_EQ(e.plan.tasks, direct.tasks);
  EXPECT_EQ(e.plan.chunkViews, direct.chunkViews);
  EXPECT_EQ(e.plan.tasks, 1);
  EXPECT_EQ(e.plan.taskSlices, 256);
  EXPECT_EQ(e.plan.chunks, 8);
  EXPECT_EQ(e.plan.chunkViews, 64);
  EXPECT_EQ(e.plan.chunkBytes, gpuFdkChunkBytes(e.planInput, 64));
  EXPECT_EQ(e.gpuBytes, 256u * 256 * 256 * 4 + e.plan.chunkBytes + o.deviceReserveBytes);
  // Filtering on the device: no host copy of the filtered projections.
  EXPECT_EQ(e.filteredBytes, 0u);
  EXPECT_EQ(e.hostNewBytes, e.volumeBytes);
  EXPECT_NE(e.summary.find("; GPU one slab, 8 chunks of 64 views"), std::string::npos) << e.summary;
  EXPECT_NE(e.summary.find("(of 80.0 GiB)"), std::string::npos) << e.summary;
  EXPECT_EQ(e.summary, "host " + formatBytes(e.hostPeakBytes) + "; GPU " + e.gpuSummary);
}

TEST(FdkMemoryEstimate, GpuMemoryLimitAndGpuCountReachThePlanner) {
  const Geometry g = smallCone(360, 512, 512);
  FdkMemoryOptions o;
  o.deviceMemoryBytes = 80 * kGiB;
  o.gpuMemoryLimitBytes = 2 * kGiB;
  o.gpus = 2;
  FdkParams params = paramsFor({1024, 1024, 1024});  // 4 GiB
  params.variant = "fdk.bp.layered16";               // z-slabs (the z-mirror kernels split along y)
  const FdkMemoryEstimate e = estimateFdkMemory(g, params, o);
  ASSERT_TRUE(e.plan.fits) << e.summary;
  EXPECT_EQ(e.deviceMemoryBytes, 2 * kGiB);
  EXPECT_EQ(e.planInput.gpus, 2);
  EXPECT_GT(e.plan.tasks, 2);
  EXPECT_LE(e.gpuBytes, 2 * kGiB);
  EXPECT_NE(e.summary.find("slabs of"), std::string::npos) << e.summary;
  EXPECT_NE(e.summary.find("on each of 2 GPUs"), std::string::npos) << e.summary;

  // Without the option, the params' own limit counts.
  o.gpuMemoryLimitBytes = 0;
  params.gpu.memoryLimitBytes = 3 * kGiB;
  EXPECT_EQ(estimateFdkMemory(g, params, o).deviceMemoryBytes, 3 * kGiB);
  // A limit above the device's memory changes nothing.
  params.gpu.memoryLimitBytes = 100 * kGiB;
  EXPECT_EQ(estimateFdkMemory(g, params, o).deviceMemoryBytes, 80 * kGiB);
}

TEST(FdkMemoryEstimate, MirrorKernelPlansInMirroredSlabPairs) {
  FdkMemoryOptions o;
  o.deviceMemoryBytes = 80 * kGiB;
  FdkParams params = paramsFor({64, 64, 64});
  params.variant = "fdk.bp.mirror-half2";
  const FdkMemoryEstimate e = estimateFdkMemory(smallCone(90, 64, 64), params, o);
  EXPECT_EQ(e.planInput.axis, GpuSplitAxis::ZMirror);
  EXPECT_EQ(e.planInput.inputBytesPerPixel, 8);
  EXPECT_EQ(e.plan.axis, GpuSplitAxis::ZMirror);
}

TEST(FdkMemoryEstimate, OffsetDetectorWidensTheGpuFilterRows) {
  CircularConeParams c;
  c.sourceToIsocentreMm = 500;
  c.sourceToDetectorMm = 1000;
  c.detector.cols = 64;
  c.detector.rows = 4;
  c.detector.offsetUMm = 20;
  c.anglesRad = fullScanAnglesRad(90);
  FdkMemoryOptions o;
  o.deviceMemoryBytes = 8 * kGiB;
  const FdkMemoryEstimate e = estimateFdkMemory(circularConeBeam(c), paramsFor({8, 8, 2}), o);
  EXPECT_GT(e.planInput.filteredCols, 64);
  EXPECT_EQ(e.planInput.fftLength, paddedRowLength(e.planInput.filteredCols));
}

TEST(FdkMemoryEstimate, ReportsWhenNotEvenOneSliceAndOneViewFit) {
  FdkMemoryOptions o;
  o.deviceMemoryBytes = 600 * kMiB;  // 256 MiB reserve leaves 344 MiB; a slice is 256 MiB
  const FdkMemoryEstimate e =
      estimateFdkMemory(smallCone(10, 4096, 4096), paramsFor({8192, 8192, 4}), o);
  EXPECT_FALSE(e.plan.fits);
  EXPECT_NE(e.summary.find("does not fit"), std::string::npos) << e.summary;
  EXPECT_NE(e.summary.find("what would fit"), std::string::npos) << e.summary;
  ASSERT_FALSE(e.warnings.empty());
  EXPECT_NE(e.warnings.back().find("what would fit"), std::string::npos) << e.warnings.back();
}

// Nice to have (UX goal U12, +-20 %): the estimate against the measured peak RSS of a real CPU
// run of 128^3. Printed, not asserted: the allocator and the page cache make RSS noisy.
std::uint64_t statusKiB(const char* key) {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind(key, 0) == 0) return std::stoull(line.substr(std::string(key).size()));
  return 0;
}

TEST(FdkMemoryEstimate, PrintsEstimateAgainstMeasuredPeakOfA128CubedCpuRun) {
  const Geometry g = smallCone(180, 192, 160);
  const FdkParams params = paramsFor({128, 128, 128});
  const FdkMemoryEstimate e = estimateFdkMemory(g, params);
  {
    std::ofstream reset("/proc/self/clear_refs");
    reset << "5";  // resets VmHWM to the current RSS (Linux >= 4.0)
  }
  const std::uint64_t before = statusKiB("VmRSS:") * 1024;
  std::uint64_t peak = 0;
  {
    ProjectionStack projections(g);
    for (float& p : projections.pixels()) p = 1.0f;
    JobContext context;
    const Volume v = reconstructFdk(projections, params, context);
    peak = statusKiB("VmHWM:") * 1024;
    ASSERT_EQ(v.nx(), 128);
  }
  if (peak <= before) GTEST_SKIP() << "VmHWM could not be reset or read";
  const double measured = double(peak - before);
  std::printf(
      "FDK 128^3 from 180 views of 192x160, %d threads: estimated %s, measured %s (%+.1f %%)\n",
      e.threads, formatBytes(e.hostPeakBytes).c_str(), formatBytes(std::uint64_t(measured)).c_str(),
      100.0 * (double(e.hostPeakBytes) - measured) / measured);
}

}  // namespace
}  // namespace tomowb::fdk
