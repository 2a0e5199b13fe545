// PinnedBlockPool: freed pinned host blocks kept for the next allocation of about their size
// (issue #22, point 1). Pinning is what a large host buffer costs: registering 4 GiB with CUDA
// takes 0.11 s with one GPU and about 0.2 s with two, holds the driver's lock all that time
// (every CUDA call of the GPU threads waits), and unregistering it at the free takes 0.08 to 0.1 s
// more (bench/results/2026-11-27r). A GUI session reconstructs again and again on one grid, and a
// slab run allocates a volume and its rows for every slab: with the pool, a block of the size
// freed before comes back registered already, and only needs zeroing (HostMemory.cpp).
//
// The pool only bookkeeps: it hands back or releases blocks through the function it was given, so
// that its rules run on any machine (tests/recon/core/PinnedBlockPoolTest.cpp). It keeps at most
// `maxBlocks` blocks and `maxBytes` bytes, releasing the least recently kept first; thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>

namespace tomowb {

class PinnedBlockPool {
 public:
  struct Limits {
    std::size_t maxBlocks = 4;
    std::uint64_t maxBytes = 0;  // 0: keep nothing
  };
  // `release(base, bytes)` frees a block the pool lets go of (unpins and unmaps it).
  PinnedBlockPool(Limits limits, std::function<void(void*, std::size_t)> release);
  ~PinnedBlockPool();  // releases what it keeps
  PinnedBlockPool(const PinnedBlockPool&) = delete;
  PinnedBlockPool& operator=(const PinnedBlockPool&) = delete;

  struct Block {
    void* base = nullptr;
    std::size_t bytes = 0;  // the block's whole length, as kept
  };
  // A kept block of at least `bytes` and at most a quarter more (the smallest such, the most
  // recently kept among equals), taken out of the pool; {} if none.
  Block take(std::size_t bytes);
  // Keeps the block, releasing the oldest kept ones where the limits need it. A block larger than
  // the limits allow is released at once, and so is one the pool cannot note down (never throws
  // but from `release`).
  void keep(void* base, std::size_t bytes);
  // Releases every kept block (before an allocation that memory could not hold otherwise).
  void releaseAll();
  std::uint64_t keptBytes() const;
  std::size_t keptBlocks() const;
  bool enabled() const { return limits_.maxBlocks > 0 && limits_.maxBytes > 0; }

 private:
  void releaseOldestBeyond(std::size_t blocks, std::uint64_t bytes, std::deque<Block>& out);

  Limits limits_;
  std::function<void(void*, std::size_t)> release_;
  mutable std::mutex mutex_;
  std::deque<Block> kept_;  // oldest first; under mutex_
  std::uint64_t keptBytes_ = 0;
};

}  // namespace tomowb
