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
    if (solo_until.load(std::memory_order_relaxed) != 0) {
      solo_until.store(0, std::memory_order_relaxed);
      next_solo.store(kFirstSoloNs, std::memory_order_relaxed);
    }
    return;
  }
  const int64_t period = next_solo.load(std::memory_order_relaxed);
  next_solo.store(std::min(2 * period, kMaxSoloNs), std::memory_order_relaxed);
  solo_until.store(team_clock_ns() + period, std::memory_order_relaxed);
}

void reset_team_governor() {
  solo_until.store(0, std::memory_order_relaxed);
  next_solo.store(kFirstSoloNs, std::memory_order_relaxed);
}

}  // namespace tgc
