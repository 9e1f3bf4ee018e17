// run_parallel: an atomic counter handing out job numbers to std::threads.
#include "runtime/parallel_jobs.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace tgc {

int compile_threads(int threads_setting) {
  if (threads_setting > 0) return threads_setting;
  const unsigned hw = std::thread::hardware_concurrency();
  return static_cast<int>(std::clamp(hw, 1u, 8u));
}

void run_parallel(size_t n, int threads, const std::function<void(size_t)>& job) {
  std::atomic<size_t> next{0};
  std::atomic<bool> failed{false};
  std::exception_ptr first;
  std::mutex mutex;
  auto work = [&] {
    for (size_t i = next++; i < n && !failed; i = next++) {
      try {
        job(i);
      } catch (...) {
        std::lock_guard lock(mutex);
        if (!first) first = std::current_exception();
        failed = true;
      }
    }
  };
  const size_t extra = std::min<size_t>(n, static_cast<size_t>(std::max(threads, 1))) - (n > 0 ? 1 : 0);
  std::vector<std::thread> pool;
  pool.reserve(extra);
  for (size_t t = 0; t < extra; ++t) pool.emplace_back(work);
  work();
  for (std::thread& t : pool) t.join();
  if (first) std::rethrow_exception(first);
}

}  // namespace tgc
