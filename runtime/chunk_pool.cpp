// ChunkPool: a region's shared counter, the helpers' loop and how each side waits.
#include "runtime/chunk_pool.h"

#include <pthread.h>
#include <sched.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "runtime/cpu_team.h"

namespace tgc {

namespace {

// How long a helper keeps looking for the next region before it sleeps: calls in a loop come
// back within microseconds, and a sleeping helper costs the next region a wake-up. At the
// lowest priority the spin takes no time from other work.
constexpr int64_t kSpinNs = 2'000'000;

class Pool {
 public:
  static Pool& get() {
    static Pool* pool = new Pool();  // never destroyed: helpers may outlive static destructors
    return *pool;
  }

  ChunkRun run(int threads, int64_t chunks, const std::function<int32_t(int64_t)>& chunk) {
    std::unique_lock<std::mutex> owner(owner_, std::try_to_lock);
    if (!owner.owns_lock() || threads < 2) return alone(chunks, chunk);
    ensure_helpers(threads - 1);
    chunk_ = &chunk;
    chunks_ = chunks;
    next_.store(0, std::memory_order_relaxed);
    finished_.store(0, std::memory_order_relaxed);
    errors_.store(0, std::memory_order_relaxed);
    busy_.store(0, std::memory_order_relaxed);
    const uint64_t open = generation_.load(std::memory_order_relaxed) + 1;  // odd: a region is open
    generation_.store(open, std::memory_order_seq_cst);
    if (sleeping_.load(std::memory_order_seq_cst) > 0) generation_.notify_all();
    claim();
    // Chunks a helper began: spin briefly, then sleep until the last one is done (a helper
    // preempted inside its chunk runs again on this core once it is idle).
    const auto spin_until = std::chrono::steady_clock::now() + std::chrono::microseconds(50);
    for (int64_t done = finished_.load(std::memory_order_acquire); done < chunks;
         done = finished_.load(std::memory_order_acquire)) {
      if (std::chrono::steady_clock::now() < spin_until) continue;
      caller_waiting_.store(true, std::memory_order_seq_cst);
      if (finished_.load(std::memory_order_seq_cst) < chunks) finished_.wait(done, std::memory_order_acquire);
    }
    caller_waiting_.store(false, std::memory_order_relaxed);
    generation_.store(open + 1, std::memory_order_seq_cst);  // closed: no helper enters now
    // A helper still leaving the region (it may be preempted there: block, so that it can run
    // on this core).
    for (int a = active_.load(std::memory_order_seq_cst); a > 0; a = active_.load(std::memory_order_seq_cst))
      active_.wait(a, std::memory_order_seq_cst);
    return {errors_.load(std::memory_order_relaxed), busy_.load(std::memory_order_relaxed)};
  }

 private:
  static ChunkRun alone(int64_t chunks, const std::function<int32_t(int64_t)>& chunk) {
    ChunkRun r;
    const int64_t t0 = team_clock_ns();
    for (int64_t c = 0; c < chunks; ++c) r.errors |= chunk(c);
    r.busy_ns = team_clock_ns() - t0;
    return r;
  }

  // Claims and runs chunks until none is left.
  void claim() {
    for (int64_t c = next_.fetch_add(1, std::memory_order_relaxed); c < chunks_;
         c = next_.fetch_add(1, std::memory_order_relaxed)) {
      const int64_t t0 = team_clock_ns();
      const int32_t e = (*chunk_)(c);
      busy_.fetch_add(team_clock_ns() - t0, std::memory_order_relaxed);
      if (e) errors_.fetch_or(e, std::memory_order_relaxed);
      if (finished_.fetch_add(1, std::memory_order_seq_cst) + 1 == chunks_ &&
          caller_waiting_.load(std::memory_order_seq_cst))
        finished_.notify_one();
    }
  }

  void ensure_helpers(int n) {
    while (static_cast<int>(helpers_.size()) < n) {
      helpers_.emplace_back([this] { helper(); });
      helpers_.back().detach();
    }
  }

  void helper() {
    // The lowest priority: this thread runs only where a core would otherwise be idle.
    sched_param param{};
    param.sched_priority = 0;
    pthread_setschedparam(pthread_self(), SCHED_IDLE, &param);
    uint64_t seen = generation_.load(std::memory_order_acquire);
    auto last_work = std::chrono::steady_clock::now();
    for (;;) {
      const uint64_t g = generation_.load(std::memory_order_acquire);
      if (g == seen || (g & 1) == 0) {
        seen = g;
        if (std::chrono::steady_clock::now() - last_work < std::chrono::nanoseconds(kSpinNs)) continue;
        sleeping_.fetch_add(1, std::memory_order_seq_cst);
        if (generation_.load(std::memory_order_seq_cst) == g) generation_.wait(g, std::memory_order_acquire);
        sleeping_.fetch_sub(1, std::memory_order_seq_cst);
        continue;
      }
      seen = g;
      active_.fetch_add(1, std::memory_order_seq_cst);
      if (generation_.load(std::memory_order_seq_cst) == g) claim();  // still open
      if (active_.fetch_sub(1, std::memory_order_seq_cst) == 1) active_.notify_all();
      last_work = std::chrono::steady_clock::now();
    }
  }

  std::mutex owner_;  // the caller whose region the helpers serve
  std::vector<std::thread> helpers_;
  const std::function<int32_t(int64_t)>* chunk_ = nullptr;
  int64_t chunks_ = 0;
  std::atomic<uint64_t> generation_{0};  // odd while a region is open
  std::atomic<int64_t> next_{0}, finished_{0}, busy_{0};
  std::atomic<int32_t> errors_{0};
  std::atomic<int> active_{0}, sleeping_{0};
  std::atomic<bool> caller_waiting_{false};
};

}  // namespace

ChunkRun run_chunks(int threads, int64_t chunks, const std::function<int32_t(int64_t)>& chunk) {
  return Pool::get().run(threads, chunks, chunk);
}

}  // namespace tgc
