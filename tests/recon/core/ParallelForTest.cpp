// parallelFor and asyncWithCallersThreads (recon/core/ParallelFor.h).
#include <gtest/gtest.h>

#include <atomic>
#include <stdexcept>
#include <thread>
#include <vector>

#include "recon/core/ParallelFor.h"

#ifdef _OPENMP
#include <omp.h>
#endif

namespace tomowb {
namespace {

TEST(ParallelFor, EveryItemRunsOnceAndTheFirstErrorComesBack) {
  std::vector<std::atomic<int>> runs(1000);
  parallelFor(1000, [&](std::int64_t i) { ++runs[static_cast<std::size_t>(i)]; });
  for (const auto& r : runs) EXPECT_EQ(r.load(), 1);
  EXPECT_THROW(parallelFor(1000,
                           [](std::int64_t i) {
                             if (i == 500) throw std::runtime_error("item 500");
                           }),
               std::runtime_error);
}

#ifdef _OPENMP
// An MPI rank bound to one core when OpenMP loaded gets its cores later by omp_set_num_threads on
// its main thread (cli/ReconCommands.cpp); the slab writer's thread must use as many.
TEST(ParallelFor, AsyncWorkUsesTheCallersOpenMpThreadCount) {
  const int before = omp_get_max_threads();
  int processDefault = 0;  // what a thread OpenMP did not start gets
  std::thread([&] { processDefault = omp_get_max_threads(); }).join();
  const int wanted = processDefault == 3 ? 5 : 3;
  int seenOnPlainThread = 0;
  int seenOnCallersThread = 0;
  std::thread caller([&] {
    omp_set_num_threads(wanted);
    // A thread OpenMP did not start has OpenMP's process-wide default, not the caller's count:
    // the reason for asyncWithCallersThreads.
    std::thread([&] { seenOnPlainThread = omp_get_max_threads(); }).join();
    seenOnCallersThread = asyncWithCallersThreads([] {
                            int team = 0;
#pragma omp parallel
                            {
#pragma omp single
                              team = omp_get_num_threads();
                            }
                            return team;
                          }).get();
  });
  caller.join();
  EXPECT_EQ(seenOnPlainThread, processDefault);
  EXPECT_EQ(seenOnCallersThread, wanted);
  EXPECT_EQ(omp_get_max_threads(), before);  // this thread's count is untouched
}
#endif

}  // namespace
}  // namespace tomowb
