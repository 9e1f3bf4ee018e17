// The team governor (see cpu_team.h): process-wide, since the load it reacts to is the
// machine's, and lock-free, since every parallel region of every host thread asks it.
#include "runtime/cpu_team.h"

#include <algorithm>
#include <atomic>
#include <chrono>

namespace tgc {

namespace {

// The end of the current period on one thread (0: none since the last win), and the length of
// the next one.
std::atomic<int64_t> solo_until{0};
std::atomic<int64_t> next_solo{kFirstSoloNs};
// Losing teams in a row since the last win or the last period's start.
std::atomic<int> losses_in_a_row{0};

}  // namespace

int64_t team_clock_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

int team_threads(int wanted) {
  if (wanted < 2) return wanted;
  const int64_t until = solo_until.load(std::memory_order_relaxed);
  // A quiet machine never reads the clock here: the period is 0 until a team loses.
  if (until != 0 && team_clock_ns() < until) return 1;
  return wanted;
}

void report_team(int threads, int64_t wall_ns, int64_t busy_ns) {
  if (threads < 2 || wall_ns <= 0) return;
  if (static_cast<double>(busy_ns) >= kMinTeamSpeedup * static_cast<double>(wall_ns)) {
    losses_in_a_row.store(0, std::memory_order_relaxed);
    if (solo_until.load(std::memory_order_relaxed) != 0) {
      solo_until.store(0, std::memory_order_relaxed);
      next_solo.store(kFirstSoloNs, std::memory_order_relaxed);
    }
    return;
  }
  // One loss is not the machine's load: the first team after a period wakes workers that slept
  // through it and loses to that alone. Counting it made a quiet machine's check1 run on one
  // thread (2.2x its team time over 5000 calls: each period ended in such a loss, doubling
  // the next). A period starts at the second loss in a row.
  if (losses_in_a_row.fetch_add(1, std::memory_order_relaxed) + 1 < kLossesForAPeriod) return;
  losses_in_a_row.store(0, std::memory_order_relaxed);
  const int64_t period = next_solo.load(std::memory_order_relaxed);
  next_solo.store(std::min(2 * period, kMaxSoloNs), std::memory_order_relaxed);
  solo_until.store(team_clock_ns() + period, std::memory_order_relaxed);
}

void reset_team_governor() {
  losses_in_a_row.store(0, std::memory_order_relaxed);
  solo_until.store(0, std::memory_order_relaxed);
  next_solo.store(kFirstSoloNs, std::memory_order_relaxed);
}

}  // namespace tgc
