// parallelFor: fn(i) for every i in [0, count) on OpenMP's threads, for work whose items may
// throw (reads and writes of files): the first exception is rethrown once every thread has
// stopped, and the items not yet started are skipped. Without OpenMP it runs them in order.
// asyncWithCallersThreads: std::async for work that uses OpenMP, with the caller's thread count.
#pragma once

#include <atomic>
#include <cstdint>
#include <exception>
#include <future>
#include <utility>

#ifdef _OPENMP
#include <omp.h>
#endif

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

// fn() on a thread of its own (std::async) whose OpenMP teams are as large as the caller's. A
// thread that OpenMP did not start gets OpenMP's process-wide default, fixed when the library
// loaded, not what omp_set_num_threads set on the thread that starts it: an MPI rank that was
// bound to one core at start and given its share of the cores later (the CLI does) would write
// its slabs on one thread.
template <typename Fn>
auto asyncWithCallersThreads(Fn&& fn) {
#ifdef _OPENMP
  const int threads = omp_get_max_threads();
  return std::async(std::launch::async, [threads, fn = std::forward<Fn>(fn)]() mutable {
    omp_set_num_threads(threads);
    return fn();
  });
#else
  return std::async(std::launch::async, std::forward<Fn>(fn));
#endif
}

}  // namespace tomowb
