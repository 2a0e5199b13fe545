// parallelFor: fn(i) for every i in [0, count) on OpenMP's threads, for work whose items may
// throw (reads and writes of files): the first exception is rethrown once every thread has
// stopped, and the items not yet started are skipped. Without OpenMP it runs them in order.
#pragma once

#include <atomic>
#include <cstdint>
#include <exception>

namespace tomowb {

template <typename Fn>
void parallelFor(std::int64_t count, Fn&& fn) {
  std::exception_ptr failure;
  std::atomic<bool> failed{false};
#pragma omp parallel for schedule(dynamic, 1)
  for (std::int64_t i = 0; i < count; ++i) {
    if (failed.load(std::memory_order_relaxed)) continue;
    try {
      fn(i);
    } catch (...) {
#pragma omp critical(tomowb_parallel_for_failure)
      {
        if (!failure) failure = std::current_exception();
      }
      failed.store(true, std::memory_order_relaxed);
    }
  }
  if (failure) std::rethrow_exception(failure);
}

}  // namespace tomowb
