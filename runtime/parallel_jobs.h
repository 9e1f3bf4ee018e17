// Runs independent jobs on a few threads: how kernels that missed the cache are compiled at
// once (LLVM, NVRTC) instead of one after the other inside function().
#pragma once

#include <cstddef>
#include <functional>

namespace tgc {

// The threads a compile may use for `threads_setting` (Config::compile_threads): the setting
// when positive, else the machine's hardware threads, at most 8 (more rarely pays: a function
// has a handful of kernels).
int compile_threads(int threads_setting);

// Calls job(i) for i in [0, n) on min(threads, n) threads (the caller's one of them) and
// returns when all are done. A job that throws stops the others from starting new jobs; the
// first exception is rethrown here.
void run_parallel(size_t n, int threads, const std::function<void(size_t)>& job);

}  // namespace tgc
