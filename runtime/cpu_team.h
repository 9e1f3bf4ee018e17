// How many threads oneDNN's and OpenBLAS's teams may use now: OpenMP's count on a quiet
// machine, one thread for a while after a region lost to the machine's other load. (tgc's own
// kernels run on the chunk pool, runtime/chunk_pool.h, which never waits for a thread that is
// not running: their regions report here and do not ask.) A team's end waits
// for its slowest thread, and on a busy machine a thread that is not running when the region
// starts (or is preempted in it) makes the whole call wait a scheduler slice, milliseconds for
// a call of microseconds (issue 20: the tutorial's check1 x1000 took 5.8 s beside two busy
// processes, 0.14 s on one thread). Each team reports its wall time and its threads' busy
// time; a team whose speed-up over one thread stays below kMinTeamSpeedup starts a period on
// one thread, doubled while teams keep losing (from kFirstSoloNs up to kMaxSoloNs) and over at
// the first team that wins. Results never depend on it: kernels give the same bits on any
// thread count (docs/cpu-backend.md, "Threads").
#pragma once

#include <cstdint>

namespace tgc {

// A team whose threads' busy time is under this multiple of its wall time has lost: two
// threads that both run reach 1.8-1.95 on a check1-sized region (libmvec exp over 230400
// floats, a stand-alone OpenMP loop: /tmp harness, 3000 regions, 10th to 90th percentile),
// while a region whose second thread was not running falls to 0.02-0.2.
inline constexpr double kMinTeamSpeedup = 1.25;
// Losing teams in a row that start a period on one thread (the first team after a period
// loses to its workers' wake-up alone).
inline constexpr int kLossesForAPeriod = 2;
// The first period on one thread after a loss, and the longest; a period is one clock read per
// region for its duration, and a team tried after it costs at most one scheduler slice.
inline constexpr int64_t kFirstSoloNs = 2'000'000;    // 2 ms
inline constexpr int64_t kMaxSoloNs = 256'000'000;    // 256 ms

// `wanted` (a region's thread count from OpenMP's setting), or 1 during a period on one thread.
int team_threads(int wanted);

// A finished region of `threads` threads: its wall time from before the team started to after
// it joined, and the sum of its threads' time in their work.
void report_team(int threads, int64_t wall_ns, int64_t busy_ns);

// A steady clock in nanoseconds, for the timings report_team takes.
int64_t team_clock_ns();

// Test hook: ends any period on one thread and its doubling.
void reset_team_governor();

}  // namespace tgc
