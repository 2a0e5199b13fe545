// Cooperative cancellation: the GUI or the CLI's Ctrl-C handler calls request(); algorithms call
// throwIfRequested() once per slab, view block or launch, so a run stops within a second.
#pragma once

#include <atomic>

#include "recon/core/Error.h"

namespace tomowb {

class CancelToken {
 public:
  void request() noexcept { requested_.store(true, std::memory_order_relaxed); }
  bool requested() const noexcept { return requested_.load(std::memory_order_relaxed); }
  void throwIfRequested() const {
    if (requested()) throw Cancelled();
  }

 private:
  std::atomic<bool> requested_{false};
};

}  // namespace tomowb
