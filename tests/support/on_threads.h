// Helpers of the threading tests (frontend and CUDA): run a body on several threads that start
// together, and the calls per thread (TGC_THREADS_CALLS, for the 8 x 100,000 runs).
#pragma once

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <exception>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace tgc::test {

// TGC_THREADS_CALLS when set, else `fallback`.
inline int calls_per_thread(int fallback) {
  const char* env = std::getenv("TGC_THREADS_CALLS");
  return env ? std::max(1, std::atoi(env)) : fallback;
}

// Runs body(t) on `threads` threads at once and waits for all of them. An exception a call
// raises fails the test with its message (escaping a thread, it would end the process).
template <typename Body>
void on_threads(int threads, Body body) {
  std::atomic<int> ready{0};
  std::mutex mutex;
  std::vector<std::string> errors;
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t)
    pool.emplace_back([&, t] {
      // Start together, so that the calls overlap from the first.
      ready.fetch_add(1);
      while (ready.load() < threads) std::this_thread::yield();
      try {
        body(t);
      } catch (const std::exception& e) {
        std::lock_guard<std::mutex> lock(mutex);
        errors.push_back(e.what());
      }
    });
  for (std::thread& th : pool) th.join();
  EXPECT_THAT(errors, ::testing::IsEmpty());
}

}  // namespace tgc::test
