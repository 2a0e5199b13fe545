// HostMemory's pool of freed pinned blocks (HostMemory.h, PinnedBlockPool.h) with a GPU, where
// large blocks are pinned: a freed block comes back for the next block of its size, still pinned,
// and zero-filled like a fresh one; a copy into it and out of it runs; other sizes get blocks of
// their own; the pool gives everything back when asked. The pool is on by default with two GPUs
// or more; with one, run it with TOMOWB_PINNED_POOL=on.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "recon/core/HostMemory.h"
#include "support/TestSupport.h"

namespace tomowb {
namespace {

TEST(GpuHostMemory, AFreedPinnedBlockComesBackPinnedAndZeroedForTheNextBlockOfItsSize) {
  TOMOWB_SKIP_WITHOUT_GPU();
  releaseKeptPinnedBlocks();
  const std::size_t bytes = 2 * kPinnedHostBufferMinBytes + 12345;
  auto* first = static_cast<unsigned char*>(allocateHostBuffer(bytes));
  ASSERT_TRUE(isPinnedHostBuffer(first)) << "a GPU is present, yet the block is not pinned";
  std::memset(first, 0xAB, bytes);
  freeHostBuffer(first, bytes);
  if (!pinnedBlockPoolEnabled()) {  // one GPU (the default there) or TOMOWB_PINNED_POOL=off
    EXPECT_EQ(pinnedBytesKeptForReuse(), 0u) << "a pool that is off keeps nothing";
    GTEST_SKIP() << "the pool is off here (one GPU, or TOMOWB_PINNED_POOL=off): its freed block "
                    "was released, as checked; TOMOWB_PINNED_POOL=on tests the reuse";
  }
  EXPECT_GE(pinnedBytesKeptForReuse(), bytes);

  auto* again = static_cast<unsigned char*>(allocateHostBuffer(bytes - 1000));
  EXPECT_EQ(again, first) << "the kept block, not a new one";
  EXPECT_TRUE(isPinnedHostBuffer(again));
  EXPECT_EQ(pinnedBytesKeptForReuse(), 0u);
  EXPECT_TRUE(std::all_of(again, again + bytes - 1000, [](unsigned char c) { return c == 0; }))
      << "a kept block must come back zero-filled";

  // A copy to the device and back through it (a pinned block's copies are asynchronous).
  void* device = nullptr;
  ASSERT_EQ(cudaMalloc(&device, bytes - 1000), cudaSuccess);
  std::memset(again, 7, 4096);
  ASSERT_EQ(cudaMemcpy(device, again, bytes - 1000, cudaMemcpyHostToDevice), cudaSuccess);
  std::memset(again, 0, 4096);
  ASSERT_EQ(cudaMemcpy(again, device, 4096, cudaMemcpyDeviceToHost), cudaSuccess);
  EXPECT_EQ(again[4095], 7);
  cudaFree(device);

  // Another size while it is taken: a block of its own; then both are kept, and given back.
  const std::size_t larger = 4 * kPinnedHostBufferMinBytes;
  void* other = allocateHostBuffer(larger);
  EXPECT_NE(other, static_cast<void*>(again));
  EXPECT_TRUE(isPinnedHostBuffer(other));
  freeHostBuffer(other, larger);
  freeHostBuffer(again, bytes - 1000);
  EXPECT_GE(pinnedBytesKeptForReuse(), bytes + larger);
  // A request a tenth smaller takes the larger block; freed, it is kept at its whole length, so
  // the whole size finds it again (a header that noted the smaller length would lose it).
  const std::size_t smaller = larger - larger / 10;
  void* inside = allocateHostBuffer(smaller);
  EXPECT_EQ(inside, other);
  freeHostBuffer(inside, smaller);
  void* whole = allocateHostBuffer(larger);
  EXPECT_EQ(whole, other);
  freeHostBuffer(whole, larger);
  releaseKeptPinnedBlocks();
  EXPECT_EQ(pinnedBytesKeptForReuse(), 0u);
}

}  // namespace
}  // namespace tomowb
