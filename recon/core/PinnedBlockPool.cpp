#include "recon/core/PinnedBlockPool.h"

#include <utility>

namespace tomowb {

PinnedBlockPool::PinnedBlockPool(Limits limits, std::function<void(void*, std::size_t)> release)
    : limits_(limits), release_(std::move(release)) {}

PinnedBlockPool::~PinnedBlockPool() {
  releaseAll();
}

PinnedBlockPool::Block PinnedBlockPool::take(std::size_t bytes) {
  std::lock_guard lock(mutex_);
  const std::size_t most = bytes + bytes / 4;
  auto best = kept_.end();
  for (auto it = kept_.begin(); it != kept_.end(); ++it)
    if (it->bytes >= bytes && it->bytes <= most &&
        (best == kept_.end() || it->bytes <= best->bytes))
      best = it;  // later (more recently kept) blocks win ties
  if (best == kept_.end()) return {};
  const Block block = *best;
  kept_.erase(best);
  keptBytes_ -= block.bytes;
  return block;
}

void PinnedBlockPool::releaseOldestBeyond(std::size_t blocks, std::uint64_t bytes,
                                          std::deque<Block>& out) {
  while (!kept_.empty() && (kept_.size() > blocks || keptBytes_ > bytes)) {
    out.push_back(kept_.front());
    keptBytes_ -= kept_.front().bytes;
    kept_.pop_front();
  }
}

void PinnedBlockPool::keep(void* base, std::size_t bytes) {
  if (base == nullptr) return;
  if (limits_.maxBlocks == 0 || bytes > limits_.maxBytes) {
    release_(base, bytes);
    return;
  }
  std::deque<Block> goes;
  try {
    std::lock_guard lock(mutex_);
    releaseOldestBeyond(limits_.maxBlocks - 1, limits_.maxBytes - bytes, goes);
    kept_.push_back({base, bytes});
    keptBytes_ += bytes;
  } catch (...) {  // no memory for the bookkeeping, or a lock that fails: not kept
    release_(base, bytes);
  }
  for (const Block& b : goes) release_(b.base, b.bytes);  // outside the lock: unpinning is slow
}

void PinnedBlockPool::releaseAll() {
  std::deque<Block> goes;
  {
    std::lock_guard lock(mutex_);
    releaseOldestBeyond(0, 0, goes);
  }
  for (const Block& b : goes) release_(b.base, b.bytes);
}

std::uint64_t PinnedBlockPool::keptBytes() const {
  std::lock_guard lock(mutex_);
  return keptBytes_;
}

std::size_t PinnedBlockPool::keptBlocks() const {
  std::lock_guard lock(mutex_);
  return kept_.size();
}

}  // namespace tomowb
