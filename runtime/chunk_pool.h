// ChunkPool: the threads that help a CPU kernel's call through its chunks (issue 20: busy
// machines). The calling thread claims chunks from a shared counter and so do the pool's
// helpers, which run at the lowest scheduling priority (SCHED_IDLE): on a quiet machine a
// helper has a core of its own and joins at once; beside other work it gets no core while the
// caller runs, so the caller claims every chunk itself at one thread's speed, and never waits a
// scheduler slice for a thread that is not running (OpenMP's static team did: its end waited
// for its slowest thread). The caller waits only for chunks a helper has begun.
#pragma once

#include <cstdint>
#include <functional>

namespace tgc {

// The result of one region: its chunks' error bits ORed, and the time they took in all.
struct ChunkRun {
  int32_t errors = 0;
  int64_t busy_ns = 0;
};

// Runs chunk(c) for every c in [0, chunks) on the calling thread and up to `threads - 1`
// helpers. Another thread's region running meanwhile: this one runs on its caller alone.
// chunk(c) may run on any of the threads, in any order; it must not throw.
ChunkRun run_chunks(int threads, int64_t chunks, const std::function<int32_t(int64_t)>& chunk);

}  // namespace tgc
