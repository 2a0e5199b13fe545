#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "recon/core/Error.h"
#include "recon/core/HostBufferFiles.h"
#include "recon/core/HostMemory.h"
#include "recon/core/Volume.h"
#include "recon/data/ProjectionStack.h"
#include "recon/geometry/ScanBuilders.h"
#include "support/TestSupport.h"

namespace tomowb {
namespace {

// 16 views of 512 x 512 float32: exactly the size from which buffers are pinned.
ProjectionStack pinnableStack() {
  CircularConeParams p;
  p.sourceToIsocentreMm = 500;
  p.sourceToDetectorMm = 1000;
  p.detector.cols = 512;
  p.detector.rows = 512;
  p.anglesRad = fullScanAnglesRad(16);
  return ProjectionStack(circularConeBeam(p));
}

TEST(HostMemory, AllocatesAlignedWritableBuffersAndFreesThem) {
  for (const std::size_t bytes :
       {std::size_t{0}, std::size_t{1}, std::size_t{1000}, kPinnedHostBufferMinBytes - 1,
        kPinnedHostBufferMinBytes, kPinnedHostBufferMinBytes + 3}) {
    void* buffer = allocateHostBuffer(bytes);
    ASSERT_NE(buffer, nullptr) << bytes;
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(buffer) % 64, 0u) << bytes;
    const auto* block = static_cast<const unsigned char*>(buffer);
    EXPECT_TRUE(std::all_of(block, block + bytes, [](unsigned char b) { return b == 0; }))
        << bytes << " bytes are not zero-filled";
    if (bytes > 0) {
      auto* bytePointer = static_cast<unsigned char*>(buffer);
      bytePointer[bytes - 1] = 0xcd;
      bytePointer[0] = 0xab;  // the same byte when bytes == 1
      EXPECT_EQ(bytePointer[0], 0xab);
      if (bytes > 1) EXPECT_EQ(bytePointer[bytes - 1], 0xcd);
    }
    freeHostBuffer(buffer, bytes);
  }
  freeHostBuffer(nullptr, 0);  // like free(nullptr): nothing happens
}

// Large blocks are faulted in with one write per page instead of a memset (HostMemory.cpp): they
// must still be all zeros where an earlier block of the same size was written and freed.
TEST(HostMemory, ALargeBlockIsZeroWhereAFreedOneHeldValues) {
  const std::size_t bytes = kPinnedHostBufferMinBytes + 12345;
  for (int round = 0; round < 3; ++round) {
    auto* block = static_cast<unsigned char*>(allocateHostBuffer(bytes));
    ASSERT_NE(block, nullptr);
    EXPECT_EQ(std::count(block, block + bytes, 0), static_cast<std::ptrdiff_t>(bytes))
        << "round " << round << ": a large block holds values it was not given";
    std::fill(block, block + bytes, static_cast<unsigned char>(0x5a + round));
    freeHostBuffer(block, bytes);
  }
}

TEST(HostMemory, PinsOnlyLargeBuffersAndOnlyWithAGpu) {
  void* small = allocateHostBuffer(4096);
  EXPECT_FALSE(isPinnedHostBuffer(small));
  freeHostBuffer(small, 4096);

  void* large = allocateHostBuffer(kPinnedHostBufferMinBytes);
  const bool expectPinned = TOMOWB_HAVE_CUDA && test::gpuAvailable();
  EXPECT_EQ(isPinnedHostBuffer(large), expectPinned)
      << (expectPinned ? "a GPU is present but cudaHostAlloc fell back to ordinary memory"
                       : "no GPU (or no CUDA in this build), yet the buffer is pinned");
  freeHostBuffer(large, kPinnedHostBufferMinBytes);
  EXPECT_FALSE(isPinnedHostBuffer(nullptr));
}

// The window frees large blocks on a thread of their own (unpinning 512 MiB took 85 ms on the GPU
// machine, in the GUI thread); small ones, and every block while it is off, where they stand.
TEST(HostMemory, LargeBlocksAreFreedOnAThreadOfTheirOwnWhenAsked) {
  setHostBufferReleaseInBackground(true);
  void* small = allocateHostBuffer(4096);
  freeHostBuffer(small, 4096);
  EXPECT_EQ(hostBuffersAwaitingRelease(), 0u) << "a small block went to the releasing thread";
  for (int i = 0; i < 3; ++i) {
    void* large = allocateHostBuffer(kPinnedHostBufferMinBytes);
    static_cast<char*>(large)[kPinnedHostBufferMinBytes - 1] = 1;
    freeHostBuffer(large, kPinnedHostBufferMinBytes);
  }
  waitForHostBufferReleases();
  EXPECT_EQ(hostBuffersAwaitingRelease(), 0u);
  setHostBufferReleaseInBackground(false);
  void* large = allocateHostBuffer(kPinnedHostBufferMinBytes);
  freeHostBuffer(large, kPinnedHostBufferMinBytes);
  EXPECT_EQ(hostBuffersAwaitingRelease(), 0u);
}

// Out of core (issue #22): inside the scope, blocks of its size and up live in unlinked files
// of its folder (zeros at first, written and read like memory, nothing left in the folder);
// outside it, memory again; a folder that cannot take the file is an IoError naming it.
TEST(FileBackedHostBuffers, HoldBlocksInFilesThatLeaveNothingBehind) {
  test::TempDir dir;
  using Floats = std::vector<float, HostBufferAllocator<float>>;
  Floats inFile, small;
  {
    FileBackedHostBuffers onDisk(dir.path(), std::size_t{1} << 20);
    inFile.resize(std::size_t{3} << 20);  // 12 MiB
    small.resize(1000);                   // under the scope's 1 MiB: memory
    EXPECT_TRUE(isFileBackedHostBuffer(inFile.data()));
    EXPECT_FALSE(isFileBackedHostBuffer(small.data()));
    // What checkHostAllocation asks: such a block takes address space, not memory.
    EXPECT_TRUE(hostBufferGoesToFile(std::size_t{1} << 20));
    EXPECT_FALSE(hostBufferGoesToFile(1000));
    {
      FileBackedHostBuffers nested(dir / "missing", 1);
      EXPECT_THROW(Floats(10), IoError) << "no such folder";
      try {
        Floats(10);
      } catch (const IoError& e) {
        EXPECT_NE(std::string(e.what()).find("missing"), std::string::npos) << e.what();
      }
    }
    Floats again(std::size_t{1} << 20);
    EXPECT_TRUE(isFileBackedHostBuffer(again.data())) << "the outer scope is back";
  }
  EXPECT_FALSE(hostBufferGoesToFile(std::size_t{1} << 30)) << "the scope is gone";
  Floats after(std::size_t{1} << 22);
  EXPECT_FALSE(isFileBackedHostBuffer(after.data()));
  EXPECT_TRUE(std::all_of(inFile.begin(), inFile.end(), [](float v) { return v == 0.0f; }));
  for (std::size_t i = 0; i < inFile.size(); ++i) inFile[i] = static_cast<float>(i % 1009);
  double sum = 0, expected = 0;
  for (std::size_t i = 0; i < inFile.size(); ++i) {
    sum += inFile[i];
    expected += static_cast<double>(i % 1009);
  }
  EXPECT_EQ(sum, expected);
  Floats moved = std::move(inFile);
  EXPECT_TRUE(isFileBackedHostBuffer(moved.data()));
  EXPECT_TRUE(std::filesystem::is_empty(dir.path())) << "the files are unlinked from the start";
}

TEST(HostBufferAllocator, BacksStandardContainersThatCopyAndMove) {
  std::vector<double, HostBufferAllocator<double>> values;
  for (int i = 0; i < 1000; ++i) values.push_back(0.5 * i);  // several reallocations
  EXPECT_EQ(values.back(), 499.5);

  auto copy = values;
  ASSERT_EQ(copy.size(), values.size());
  EXPECT_NE(copy.data(), values.data());
  EXPECT_TRUE(std::equal(copy.begin(), copy.end(), values.begin()));

  const double* storage = values.data();
  auto moved = std::move(values);
  EXPECT_EQ(moved.data(), storage);  // equal allocators: the move takes the block over

  // resize() default-initialises into the zero-filled block: zeros without a second pass.
  std::vector<float, HostBufferAllocator<float>> large;
  large.resize(kPinnedHostBufferMinBytes / sizeof(float) + 5);
  EXPECT_TRUE(std::all_of(large.begin(), large.end(), [](float x) { return x == 0.0f; }));
  std::vector<int, HostBufferAllocator<int>> filled(10, 7);  // value construction still works
  EXPECT_EQ(filled[9], 7);

  EXPECT_TRUE(HostBufferAllocator<float>() == HostBufferAllocator<double>());
  EXPECT_FALSE(HostBufferAllocator<float>() != HostBufferAllocator<float>());
}

TEST(ProjectionStack, IsZeroFilledSmallOrPinned) {
  const ProjectionStack stack = pinnableStack();
  ASSERT_EQ(stack.pixelCount() * 4, static_cast<std::int64_t>(kPinnedHostBufferMinBytes));
  EXPECT_TRUE(
      std::all_of(stack.pixels().begin(), stack.pixels().end(), [](float x) { return x == 0.0f; }));
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(stack.data()) % 64, 0u);
  EXPECT_EQ(isPinnedHostBuffer(stack.data()), TOMOWB_HAVE_CUDA && test::gpuAvailable());
}

TEST(ProjectionStack, CopiesIntoItsOwnBufferAndMovesWithoutCopying) {
  ProjectionStack original = pinnableStack();
  original.at(3, 100, 200) = 7.0f;
  ProjectionStack copy = original;
  EXPECT_NE(copy.data(), original.data());
  EXPECT_EQ(copy.geometry(), original.geometry());
  EXPECT_EQ(copy.at(3, 100, 200), 7.0f);
  copy.at(3, 100, 200) = -1.0f;
  EXPECT_EQ(original.at(3, 100, 200), 7.0f);
  EXPECT_EQ(std::memcmp(copy.data(), original.data(), 4 * 1000), 0);

  const float* storage = original.data();
  ProjectionStack moved = std::move(original);
  EXPECT_EQ(moved.data(), storage);
  EXPECT_EQ(moved.at(3, 100, 200), 7.0f);
}

TEST(Volume, CopiesIntoItsOwnZeroedBuffer) {
  Volume volume = Volume::centred({256, 128, 128}, {1, 1, 1});  // 16 MiB
  EXPECT_TRUE(std::all_of(volume.voxels().begin(), volume.voxels().end(),
                          [](float x) { return x == 0.0f; }));
  volume.at(255, 127, 127) = 3.0f;
  Volume copy = volume;
  EXPECT_NE(copy.data(), volume.data());
  EXPECT_EQ(copy.at(255, 127, 127), 3.0f);
  EXPECT_EQ(copy.originMm(), volume.originMm());
}

}  // namespace
}  // namespace tomowb
