// Cooperative cancellation: the GUI or the CLI's Ctrl-C handler calls request(); algorithms call
// throwIfRequested() once per slab, view block or launch, so a run stops within a second.
// A second, milder request, "stop and keep": iterative solvers check stopRequested() after each
// iteration and return normally with the current iterate (the report says "stopped by the user
// after k of N iterations"); algorithms that do not iterate ignore it and run to the end.
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
  void requestStop() noexcept { stopRequested_.store(true, std::memory_order_relaxed); }
  bool stopRequested() const noexcept { return stopRequested_.load(std::memory_order_relaxed); }

 private:
  std::atomic<bool> requested_{false};
  std::atomic<bool> stopRequested_{false};
};

}  // namespace tomowb
