// run_chunks (runtime/chunk_pool.h): every chunk runs exactly once and errors are ORed, on one
// thread or several, from callers on several threads at once, and from inside a chunk (a
// region that finds the pool busy runs on its caller).
#include "runtime/chunk_pool.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

namespace tgc {
namespace {

TEST(ChunkPool, EveryChunkRunsOnceAndTheErrorsAreOred) {
  for (int threads : {1, 2, 4}) {
    std::vector<std::atomic<int>> runs(1000);
    const ChunkRun r = run_chunks(threads, 1000, [&](int64_t c) {
      runs[c].fetch_add(1);
      return int32_t{1} << (c % 5);
    });
    for (size_t c = 0; c < runs.size(); ++c) ASSERT_EQ(runs[c].load(), 1) << "chunk " << c << ", " << threads << " threads";
    EXPECT_EQ(r.errors, 31);
    EXPECT_GE(r.busy_ns, 0);
  }
}

TEST(ChunkPool, OneThreadRunsEveryChunkOnTheCaller) {
  const std::thread::id caller = std::this_thread::get_id();
  std::atomic<int> elsewhere{0};
  run_chunks(1, 64, [&](int64_t) {
    if (std::this_thread::get_id() != caller) elsewhere.fetch_add(1);
    return 0;
  });
  EXPECT_EQ(elsewhere.load(), 0);
}

TEST(ChunkPool, CallersOnSeveralThreadsEachRunAllTheirChunks) {
  std::vector<std::thread> callers;
  std::atomic<int> wrong{0};
  for (int t = 0; t < 4; ++t)
    callers.emplace_back([&] {
      for (int region = 0; region < 200; ++region) {
        std::vector<std::atomic<int>> runs(37);
        const ChunkRun r = run_chunks(2, 37, [&](int64_t c) {
          runs[c].fetch_add(1);
          return c == 36 ? 2 : 0;
        });
        for (auto& n : runs) wrong.fetch_add(n.load() != 1);
        wrong.fetch_add(r.errors != 2);
      }
    });
  for (auto& t : callers) t.join();
  EXPECT_EQ(wrong.load(), 0);
}

TEST(ChunkPool, ARegionInsideAChunkRunsOnItsCaller) {
  std::atomic<int> inner{0};
  run_chunks(2, 8, [&](int64_t) {
    run_chunks(2, 10, [&](int64_t) {
      inner.fetch_add(1);
      return 0;
    });
    return 0;
  });
  EXPECT_EQ(inner.load(), 80);
}

}  // namespace
}  // namespace tgc
