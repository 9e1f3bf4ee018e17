// run_parallel: every job runs exactly once whatever the thread count, the jobs do run on
// several threads when asked, and a job's exception reaches the caller after the others
// stopped; compile_threads resolves auto.
#include "runtime/parallel_jobs.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>
#include <vector>

namespace tgc {
namespace {

TEST(ParallelJobs, EveryJobRunsOnce) {
  for (int threads : {1, 2, 5, 64}) {
    std::vector<std::atomic<int>> runs(37);
    run_parallel(runs.size(), threads, [&](size_t i) { ++runs[i]; });
    for (size_t i = 0; i < runs.size(); ++i) EXPECT_EQ(runs[i], 1) << "job " << i << ", " << threads << " threads";
  }
  run_parallel(0, 4, [](size_t) { FAIL() << "no job to run"; });
}

TEST(ParallelJobs, JobsRunOnSeveralThreads) {
  // Each job waits until two jobs are running at once: with one thread this would never end,
  // so the test's passing shows two threads ran jobs.
  std::atomic<int> running{0};
  std::mutex mutex;
  std::set<std::thread::id> ids;
  run_parallel(2, 2, [&](size_t) {
    ++running;
    while (running < 2) std::this_thread::yield();
    std::lock_guard lock(mutex);
    ids.insert(std::this_thread::get_id());
  });
  EXPECT_EQ(ids.size(), 2u);
}

TEST(ParallelJobs, TheFirstExceptionReachesTheCaller) {
  std::atomic<int> started{0};
  EXPECT_THROW(run_parallel(1000, 2,
                            [&](size_t i) {
                              ++started;
                              if (i == 3) throw std::runtime_error("job 3 failed");
                              std::this_thread::sleep_for(std::chrono::milliseconds(1));
                            }),
               std::runtime_error);
  EXPECT_LT(started, 1000) << "jobs after the failure were not started";
}

TEST(ParallelJobs, CompileThreads) {
  EXPECT_EQ(compile_threads(3), 3);
  EXPECT_GE(compile_threads(0), 1);
  EXPECT_LE(compile_threads(0), 8);
}

}  // namespace
}  // namespace tgc
