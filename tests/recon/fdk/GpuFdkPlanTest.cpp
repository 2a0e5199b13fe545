// GpuFdkPlan: the arithmetic that splits a GPU FDK run into z-slabs (or y-blocks) and view chunks
// (issue #6). CPU only: the plan is pure arithmetic, so it is tested without a GPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "recon/fdk/GpuFdkPlan.h"
#include "recon/fdk/RampFilter.h"

namespace tomowb::fdk {
namespace {

constexpr std::uint64_t kMiB = std::uint64_t{1} << 20;
constexpr std::uint64_t kGiB = std::uint64_t{1} << 30;

// A RabbitCT-like scan: 496 views of 1248 x 960 into a cube of `edge` voxels.
GpuFdkPlanInput rabbitCt(std::int64_t edge, std::uint64_t deviceBytes) {
  GpuFdkPlanInput in;
  in.shape = {edge, edge, edge};
  in.views = 496;
  in.rows = 960;
  in.cols = 1248;
  in.filteredCols = 1248;
  in.fftLength = paddedRowLength(in.filteredCols);
  in.deviceBytes = deviceBytes;
  return in;
}

// The invariants every plan that fits keeps.
void expectConsistent(const GpuFdkPlanInput& in, const GpuFdkPlan& p) {
  ASSERT_TRUE(p.fits) << p.message;
  const std::int64_t slices = in.axis == GpuSplitAxis::Z ? in.shape.nz : in.shape.ny;
  const std::uint64_t sliceBytes =
      std::uint64_t(in.shape.nx) *
      std::uint64_t(in.axis == GpuSplitAxis::Z ? in.shape.ny : in.shape.nz) * 4;
  EXPECT_GE(p.tasks * p.taskSlices, slices);
  EXPECT_LT((p.tasks - 1) * p.taskSlices, slices) << "a task with no slice";
  EXPECT_GE(p.chunks * p.chunkViews, in.views);
  EXPECT_LT((p.chunks - 1) * p.chunkViews, in.views) << "a chunk with no view";
  EXPECT_GE(p.chunkViews, 1);
  EXPECT_LE(p.chunkViews, in.maxChunkViews);
  EXPECT_EQ(p.taskBytes, sliceBytes * std::uint64_t(p.taskSlices));
  EXPECT_EQ(p.chunkBytes, gpuFdkChunkBytes(in, p.chunkViews));
  EXPECT_EQ(p.perViewBytes, gpuFdkChunkBytes(in, 1));
  EXPECT_EQ(p.deviceBytes, p.taskBytes + p.chunkBytes + in.reserveBytes);
  EXPECT_LE(p.deviceBytes, in.deviceBytes);
  EXPECT_TRUE(p.message.empty()) << p.message;
}

TEST(GpuFdkPlan, ChunkBytesCountRawUploadsFftRowsAndThePaddedKernelInput) {
  GpuFdkPlanInput in;
  in.rows = 10;
  in.cols = 100;
  in.filteredCols = 120;
  in.fftLength = 256;
  in.inputBytesPerPixel = 4;
  // Per view: 2 raw buffers of 10 x 100 floats, one in-place R2C row of 256 + 2 floats per row,
  // 2 kernel inputs of (10 + 3) x (120 + 3) pixels (zero borders).
  const std::uint64_t perView = 2 * 10 * 100 * 4 + 10 * (256 + 2) * 4 + 2 * 13 * 123 * 4;
  EXPECT_EQ(gpuFdkChunkBytes(in, 1), perView);
  EXPECT_EQ(gpuFdkChunkBytes(in, 64), 64 * perView);
  EXPECT_EQ(gpuFdkChunkBytes(in, 0), 0u);
  in.inputBytesPerPixel = 2;
  EXPECT_EQ(gpuFdkChunkBytes(in, 3),
            3 * (2 * 10 * 100 * 4 + 10 * (256 + 2) * 4 + 2 * 13 * 123 * 2));
}

TEST(GpuFdkPlan, EverythingFitsInOneSlabOnALargeDevice) {
  const GpuFdkPlanInput in = rabbitCt(256, 80 * kGiB);
  const GpuFdkPlan p = planGpuFdk(in);
  expectConsistent(in, p);
  EXPECT_EQ(p.axis, GpuSplitAxis::Z);
  EXPECT_EQ(p.tasks, 1);
  EXPECT_EQ(p.taskSlices, 256);
  EXPECT_EQ(p.chunkViews, 64);  // maxChunkViews
  EXPECT_EQ(p.chunks, 8);       // ceil(496 / 64)
  EXPECT_NE(p.summary().find("one slab, 8 chunks of 64 views"), std::string::npos) << p.summary();
  EXPECT_NE(p.summary().find("per GPU"), std::string::npos) << p.summary();
}

TEST(GpuFdkPlan, FewViewsMakeOneChunkOfAllOfThem) {
  GpuFdkPlanInput in = rabbitCt(64, 80 * kGiB);
  in.views = 20;
  const GpuFdkPlan p = planGpuFdk(in);
  expectConsistent(in, p);
  EXPECT_EQ(p.chunkViews, 20);
  EXPECT_EQ(p.chunks, 1);
  EXPECT_NE(p.summary().find("1 chunk of 20 views"), std::string::npos) << p.summary();
}

TEST(GpuFdkPlan, SmallBudgetSplitsTheVolumeIntoBalancedSlabsThatFit) {
  // 1024^3 floats are 4 GiB: with 2 GiB of device memory the volume needs several slabs.
  const GpuFdkPlanInput in = rabbitCt(1024, 2 * kGiB);
  const GpuFdkPlan p = planGpuFdk(in);
  expectConsistent(in, p);
  EXPECT_GT(p.tasks, 2);
  EXPECT_LE(p.taskBytes + p.chunkBytes + in.reserveBytes, 2 * kGiB);
  EXPECT_GE(p.tasks * p.taskSlices, 1024);
  // Balanced: the last slab is at most one slice per slab shorter than the others.
  EXPECT_LE(p.tasks * p.taskSlices - 1024, p.tasks);
  EXPECT_NE(p.summary().find(std::to_string(p.tasks) + " slabs of " + std::to_string(p.taskSlices) +
                             " slices"),
            std::string::npos)
      << p.summary();
}

TEST(GpuFdkPlan, TightBudgetShrinksTheChunkBeforeGivingUp) {
  // Room for one slice and a few views but not for the preferred 64-view chunk.
  GpuFdkPlanInput in = rabbitCt(512, 0);
  const std::uint64_t sliceBytes = 512u * 512 * 4;
  in.deviceBytes = in.reserveBytes + 4 * sliceBytes + 5 * gpuFdkChunkBytes(in, 1);
  const GpuFdkPlan p = planGpuFdk(in);
  expectConsistent(in, p);
  EXPECT_LT(p.chunkViews, 64);
  EXPECT_GE(p.chunkViews, 1);
  EXPECT_GE(p.taskSlices, 1);
}

// The hybrid kernels' chunks hold a multiple of N views where they hold N or more (their grid
// of every N-th view is planned as 16 / N bytes a pixel, which holds for such chunks only).
TEST(GpuFdkPlan, ChunksAreAMultipleOfTheKernelsChunkMultipleWhereTheyCanBe) {
  GpuFdkPlanInput in = rabbitCt(512, 0);
  const std::uint64_t sliceBytes = 512u * 512 * 4;
  for (const std::int64_t room : {1, 2, 3, 5, 7, 20, 200}) {
    in.deviceBytes =
        in.reserveBytes + 4 * sliceBytes + std::uint64_t(room) * gpuFdkChunkBytes(in, 1);
    in.chunkMultiple = 1;
    const GpuFdkPlan plain = planGpuFdk(in);
    in.chunkMultiple = 3;
    const GpuFdkPlan p = planGpuFdk(in);
    expectConsistent(in, p);
    EXPECT_EQ(p.taskSlices, plain.taskSlices) << room;
    // The largest multiple of 3 up to the chunk it would have had, or that chunk below 3.
    const std::int64_t want =
        plain.chunkViews >= 3 ? plain.chunkViews - plain.chunkViews % 3 : plain.chunkViews;
    EXPECT_EQ(p.chunkViews, want) << room << ": " << plain.summary() << " / " << p.summary();
  }
}

// The z-mirror kernels: pairs of n lower slices and their mirrors cover the lower half
// ((nz + 1) / 2 slices) exactly, each task fits, and two GPUs get at least one pair each.
TEST(GpuFdkPlan, MirrorKernelSplitsIntoMirroredSlabPairs) {
  for (const std::int64_t nz : {1024, 1023, 7, 2, 1})
    for (const int gpus : {1, 2, 3})
      for (const std::uint64_t memory : {80 * kGiB, 2 * kGiB}) {
        GpuFdkPlanInput in = rabbitCt(1024, memory);
        in.shape = {1024, 1024, nz};
        in.axis = GpuSplitAxis::ZMirror;
        in.gpus = gpus;
        const GpuFdkPlan p = planGpuFdk(in);
        ASSERT_TRUE(p.fits) << p.message;
        EXPECT_EQ(p.axis, GpuSplitAxis::ZMirror);
        const std::int64_t half = (nz + 1) / 2, lower = std::max<std::int64_t>(p.taskSlices / 2, 1);
        EXPECT_GE(p.tasks * lower, half) << nz << " slices, " << gpus << " GPUs";
        EXPECT_LT((p.tasks - 1) * lower, half) << "a pair with no slice";
        EXPECT_LE(p.taskSlices, nz);
        EXPECT_GE(p.tasks, std::min<std::int64_t>(gpus, half));
        EXPECT_LE(p.deviceBytes, memory);
        if (p.tasks > 1) EXPECT_NE(p.summary().find("mirrored slab pairs of"), std::string::npos);
      }
}

TEST(GpuFdkPlan, MirrorKernelSplitsAlongY) {
  GpuFdkPlanInput in = rabbitCt(1024, 2 * kGiB);
  in.shape = {1024, 600, 1024};
  in.axis = GpuSplitAxis::Y;
  const GpuFdkPlan p = planGpuFdk(in);
  expectConsistent(in, p);
  EXPECT_EQ(p.axis, GpuSplitAxis::Y);
  EXPECT_GE(p.tasks * p.taskSlices, 600);
  EXPECT_NE(p.summary().find("blocks of"), std::string::npos) << p.summary();
  EXPECT_NE(p.summary().find(" rows"), std::string::npos) << p.summary();
}

TEST(GpuFdkPlan, EveryGpuGetsATask) {
  for (const int gpus : {2, 3, 4, 8}) {
    for (const std::int64_t nz : {4, 5, 9, 100, 256}) {
      if (nz < gpus) continue;
      GpuFdkPlanInput in = rabbitCt(256, 80 * kGiB);
      in.shape.nz = nz;
      in.gpus = gpus;
      const GpuFdkPlan p = planGpuFdk(in);
      SCOPED_TRACE(std::to_string(gpus) + " GPUs, nz = " + std::to_string(nz));
      expectConsistent(in, p);
      EXPECT_GE(p.tasks, gpus);
    }
  }
  // Fewer slices than GPUs: one task per slice, the other GPUs idle.
  GpuFdkPlanInput in = rabbitCt(256, 80 * kGiB);
  in.shape.nz = 3;
  in.gpus = 8;
  const GpuFdkPlan p = planGpuFdk(in);
  expectConsistent(in, p);
  EXPECT_EQ(p.tasks, 3);
  EXPECT_EQ(p.taskSlices, 1);
}

TEST(GpuFdkPlan, ImpossibleBudgetSaysWhatWouldFit) {
  // 8192^2 slices are 256 MiB; with 64 MiB beyond the reserve not even one slice fits.
  GpuFdkPlanInput in = rabbitCt(8192, 0);
  in.deviceBytes = in.reserveBytes + 64 * kMiB;
  const GpuFdkPlan p = planGpuFdk(in);
  EXPECT_FALSE(p.fits);
  EXPECT_EQ(p.summary(), p.message);
  EXPECT_NE(p.message.find("does not fit"), std::string::npos) << p.message;
  EXPECT_NE(p.message.find("what would fit"), std::string::npos) << p.message;
  EXPECT_NE(p.message.find("slices of at most"), std::string::npos) << p.message;
  EXPECT_NE(p.message.find("rows"), std::string::npos) << p.message;

  // The slice it names fits beside one view, one voxel more per side does not.
  const std::uint64_t usable = in.deviceBytes - in.reserveBytes;
  const std::uint64_t perView = gpuFdkChunkBytes(in, 1);
  const auto at = p.message.find("slices of at most ") + std::string("slices of at most ").size();
  const std::int64_t side = std::stoll(p.message.substr(at));
  ASSERT_GT(side, 0);
  EXPECT_LE(std::uint64_t(side * side) * 4 + perView, usable);
  EXPECT_GT(std::uint64_t((side + 1) * (side + 1)) * 4 + perView, usable);
  GpuFdkPlanInput smaller = in;
  smaller.shape = {side, side, 16};
  EXPECT_TRUE(planGpuFdk(smaller).fits) << planGpuFdk(smaller).message;
}

TEST(GpuFdkPlan, DetectorRowsNamedAsFittingDoFit) {
  // A slice of 256^2 fits, but the 8192-row detector's view buffers do not.
  GpuFdkPlanInput in = rabbitCt(256, 0);
  in.rows = 8192;
  in.cols = in.filteredCols = 8192;
  in.fftLength = paddedRowLength(in.filteredCols);
  in.deviceBytes = in.reserveBytes + 256 * kMiB;
  const GpuFdkPlan p = planGpuFdk(in);
  ASSERT_FALSE(p.fits);
  const auto at = p.message.find("a detector of at most ");
  ASSERT_NE(at, std::string::npos) << p.message;
  const std::int64_t rows =
      std::stoll(p.message.substr(at + std::string("a detector of at most ").size()));
  ASSERT_GT(rows, 0);
  GpuFdkPlanInput fewer = in;
  fewer.rows = rows;
  EXPECT_TRUE(planGpuFdk(fewer).fits) << planGpuFdk(fewer).message;
  fewer.rows = rows + 1;
  EXPECT_FALSE(planGpuFdk(fewer).fits);
}

TEST(GpuFdkPlan, NoDeviceMemoryOrAnEmptyVolumeNeverFits) {
  GpuFdkPlanInput in = rabbitCt(64, 0);
  EXPECT_FALSE(planGpuFdk(in).fits);
  in.deviceBytes = 80 * kGiB;
  in.shape = {0, 64, 64};
  const GpuFdkPlan p = planGpuFdk(in);
  EXPECT_FALSE(p.fits);
  EXPECT_NE(p.message.find("empty"), std::string::npos) << p.message;
}

// The pipeline's chunks of views (issue #22): they tile the views in order, none is larger than
// the plan's chunk, the first ones start at 8 views and double (chunks above 8), the odd chunk
// comes before the full ones so that the last one is full (its pieces hide the download);
// without the ramp, full chunks with the odd one last.
TEST(GpuFdkPlan, ChunksRampUpFromEightViewsTileTheViewsAndEndWithAFullOne) {
  const auto sizes = [](const std::vector<GpuFdkChunk>& chunks) {
    std::vector<int> out;
    for (const GpuFdkChunk& c : chunks) out.push_back(c.views);
    return out;
  };
  EXPECT_EQ(sizes(gpuFdkChunkSchedule(496, 64)),
            (std::vector<int>{8, 16, 32, 56, 64, 64, 64, 64, 64, 64}));
  EXPECT_EQ(sizes(gpuFdkChunkSchedule(496, 64, false)),
            (std::vector<int>{64, 64, 64, 64, 64, 64, 64, 48}));
  EXPECT_EQ(sizes(gpuFdkChunkSchedule(10, 64)), (std::vector<int>{8, 2}));
  EXPECT_EQ(sizes(gpuFdkChunkSchedule(5, 64)), (std::vector<int>{5}));
  EXPECT_EQ(sizes(gpuFdkChunkSchedule(40, 8)), (std::vector<int>{8, 8, 8, 8, 8}));
  EXPECT_TRUE(gpuFdkChunkSchedule(0, 64).empty());
  for (const std::int64_t views : {1, 7, 8, 9, 56, 57, 120, 360, 496, 720, 1000, 3601})
    for (const int chunk : {1, 4, 8, 12, 64, 100}) {
      const std::vector<GpuFdkChunk> c = gpuFdkChunkSchedule(views, chunk);
      std::int64_t next = 0;
      for (const GpuFdkChunk& k : c) {
        EXPECT_EQ(k.first, next) << views << " views, chunks of " << chunk;
        EXPECT_GE(k.views, 1);
        EXPECT_LE(k.views, chunk);
        next += k.views;
      }
      EXPECT_EQ(next, views) << "chunks of " << chunk;
      // Chunks above 8 views start the ramp at 8; smaller ones start with the odd chunk.
      if (chunk > 8)
        EXPECT_EQ(c.front().views, std::min<std::int64_t>(views, 8));
      else
        EXPECT_LE(c.front().views, chunk);
      if (views >= 8 + 16 + 32 + 2 * chunk && chunk == 64)
        EXPECT_EQ(c.back().views, chunk) << views << " views: the last chunk is not a full one";
    }
}

// The host's lead over the GPU: a whole 512^3 or 1024^3 task of the benchmark (8 chunks), fewer
// as chunks take longer (at most about 0.6 s of queued work, so that a cancel waits no longer),
// never fewer than 2.
TEST(GpuFdkPlan, TheHostLeadCoversSmallTasksAndBoundsTheQueuedWork) {
  const double cube512 = 512.0 * 512 * 512, cube1024 = 1024.0 * 1024 * 1024;
  EXPECT_EQ(gpuFdkHostLead(cube512, 64), 8);
  EXPECT_EQ(gpuFdkHostLead(cube1024, 64), 8);
  EXPECT_EQ(gpuFdkHostLead(cube1024 / 2, 64), 8);  // two GPUs' slab pairs
  EXPECT_EQ(gpuFdkHostLead(8 * cube1024, 64), 2);  // 2048^3: 0.55 s a chunk
  EXPECT_EQ(gpuFdkHostLead(2 * cube1024, 64), 4);  // 0.14 s a chunk: 4 are 0.55 s
  for (double voxels = 1e6; voxels < 1e11; voxels *= 1.7) {
    const int lead = gpuFdkHostLead(voxels, 64);
    EXPECT_GE(lead, 2);
    EXPECT_LE(lead, 8);
    if (lead > 2) EXPECT_LE(lead * voxels * 64 / 1e12, 0.6 + 1e-9) << voxels;
  }
  EXPECT_EQ(gpuFdkHostLead(0, 64), 8);
  EXPECT_EQ(gpuFdkHostLead(cube512, 0), 8);
}
}  // namespace
}  // namespace tomowb::fdk
