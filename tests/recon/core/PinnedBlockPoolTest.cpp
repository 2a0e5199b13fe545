// PinnedBlockPool's rules on fake blocks (any machine): what comes back for which size, what goes
// when the limits are reached, and that every block is released exactly once.
#include <gtest/gtest.h>

#include <array>
#include <cstddef>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "recon/core/PinnedBlockPool.h"

namespace tomowb {
namespace {

// What the pool released, each block once.
struct Released {
  std::mutex mutex;
  std::map<void*, std::size_t> blocks;
  std::function<void(void*, std::size_t)> function() {
    return [this](void* base, std::size_t bytes) {
      std::lock_guard lock(mutex);
      EXPECT_EQ(blocks.count(base), 0u) << "released twice";
      blocks[base] = bytes;
    };
  }
};

// Fake blocks: addresses into an array (the pool never touches them).
std::array<char, 64> storage{};
void* at(int i) {
  return &storage[std::size_t(i)];
}

TEST(PinnedBlockPool, GivesBackTheSmallestKeptBlockOfTheSizeOrAtMostAQuarterLarger) {
  Released released;
  PinnedBlockPool pool({4, 1000}, released.function());
  EXPECT_EQ(pool.take(100).base, nullptr) << "nothing kept yet";
  pool.keep(at(0), 100);
  pool.keep(at(1), 120);
  EXPECT_EQ(pool.keptBytes(), 220u);
  EXPECT_EQ(pool.keptBlocks(), 2u);
  EXPECT_EQ(pool.take(200).base, nullptr) << "none large enough";
  EXPECT_EQ(pool.take(130).base, nullptr) << "none large enough";
  const PinnedBlockPool::Block a = pool.take(110);  // 100 is too small, 120 within 137
  EXPECT_EQ(a.base, at(1));
  EXPECT_EQ(a.bytes, 120u);
  EXPECT_EQ(pool.take(60).base, nullptr) << "100 is more than a quarter over 60";
  const PinnedBlockPool::Block b = pool.take(80);
  EXPECT_EQ(b.base, at(0));
  EXPECT_EQ(b.bytes, 100u);
  EXPECT_EQ(pool.take(80).base, nullptr) << "each block comes back once";
  EXPECT_EQ(pool.keptBytes(), 0u);
  // Among equal sizes, the block kept last (its pages the warmest).
  pool.keep(at(2), 100);
  pool.keep(at(3), 100);
  pool.keep(at(4), 104);
  EXPECT_EQ(pool.take(100).base, at(3));
  EXPECT_TRUE(released.blocks.empty()) << "nothing released while within the limits";
}

TEST(PinnedBlockPool, ReleasesTheOldestBeyondItsLimitsAndEveryBlockOnce) {
  Released released;
  {
    PinnedBlockPool pool({2, 300}, released.function());
    pool.keep(at(0), 100);
    pool.keep(at(1), 100);
    pool.keep(at(2), 100);  // a third block: the oldest goes
    EXPECT_EQ(released.blocks, (std::map<void*, std::size_t>{{at(0), 100}}));
    pool.keep(at(3), 250);  // 450 bytes: both others go
    EXPECT_EQ(released.blocks.size(), 3u);
    EXPECT_EQ(pool.keptBlocks(), 1u);
    EXPECT_EQ(pool.keptBytes(), 250u);
    pool.keep(at(4), 400);  // larger than the pool may hold: released at once
    EXPECT_EQ(released.blocks.count(at(4)), 1u);
    EXPECT_EQ(pool.take(250).base, at(3));
    pool.keep(at(3), 250);
    pool.keep(at(5), 10);
  }  // the pool goes: what it kept with it
  EXPECT_EQ(released.blocks.size(), 6u);
  EXPECT_EQ(released.blocks.at(at(5)), 10u);

  Released off;
  PinnedBlockPool none({4, 0}, off.function());  // TOMOWB_PINNED_POOL=off
  none.keep(at(6), 1);
  EXPECT_EQ(off.blocks.size(), 1u);
  EXPECT_EQ(none.take(1).base, nullptr);
  none.keep(at(7), 1);
  none.releaseAll();
  EXPECT_EQ(off.blocks.size(), 2u);
}

// Which thread holds which block (-1: the pool), as the threads below see it.
struct Holders {
  std::mutex mutex;
  std::map<void*, int> of;
  void intoPool(void* block) {
    std::lock_guard lock(mutex);
    of[block] = -1;
  }
  // False (and a failure) if `block` is none or another thread's.
  bool takenBy(const PinnedBlockPool::Block& block, int thread, int step) {
    std::lock_guard lock(mutex);
    if (block.base != nullptr && of[block.base] == -1) {
      of[block.base] = thread;
      return true;
    }
    ADD_FAILURE() << "thread " << thread << " at " << step << ": "
                  << (block.base == nullptr
                          ? std::string("no block")
                          : "a block thread " + std::to_string(of[block.base]) + " holds");
    return false;
  }
};

// Thread `t`: keeps its block and takes one back, `steps` times, then keeps the last one. At
// least one block is in the pool when it takes: the other threads hold one each at most.
void keepAndTakeBack(PinnedBlockPool& pool, Holders& holders, int t, int steps) {
  PinnedBlockPool::Block mine{at(8 + t), 16};
  for (int i = 0; i < steps; ++i) {
    holders.intoPool(mine.base);
    pool.keep(mine.base, mine.bytes);
    mine = pool.take(16);
    if (!holders.takenBy(mine, t, i)) return;
  }
  holders.intoPool(mine.base);
  pool.keep(mine.base, mine.bytes);
}

// Threads that keep their block and take one back, again and again: a block is never held by two
// threads at once, none is lost, and each is released once at the end.
TEST(PinnedBlockPool, ThreadsKeepingAndTakingAtOnceNeverShareOrLoseABlock) {
  Released released;
  PinnedBlockPool pool({8, 1000}, released.function());
  constexpr int kThreads = 4;
  Holders holders;
  std::vector<std::thread> threads;
  threads.reserve(kThreads);
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] { keepAndTakeBack(pool, holders, t, 5000); });
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(pool.keptBlocks(), std::size_t(kThreads));
  pool.releaseAll();
  EXPECT_EQ(pool.keptBytes(), 0u);
  ASSERT_EQ(released.blocks.size(), std::size_t(kThreads));
  for (int t = 0; t < kThreads; ++t) EXPECT_EQ(released.blocks.count(at(8 + t)), 1u);
}

}  // namespace
}  // namespace tomowb
