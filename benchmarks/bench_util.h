// Timing and reporting helpers the GPU benchmarks share (gpu_bench, opencl_bench).
#pragma once

#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <exception>
#include <string>
#include <vector>

#include <tgc/tgc.h>

namespace tgc::bench {

using Clock = std::chrono::steady_clock;

inline double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// Wall time of `calls` calls of call() followed by one sync(): device work is asynchronous,
// so a batch ends by waiting for its last result.
template <typename Call, typename Sync>
double time_batch(int calls, Call call, Sync sync) {
  auto start = Clock::now();
  for (int i = 0; i < calls; ++i) call();
  sync();
  return seconds_since(start);
}

inline double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

inline std::string verdict(bool met) { return met ? "met" : "NOT met"; }

inline void sync_all(const std::vector<Tensor>& ts) {
  for (const Tensor& t : ts) t.sync();
}

// Runs body(); a failure (a wrong result, no device) skips the benchmark with the message
// instead of aborting the whole run.
template <typename Body>
void guarded(benchmark::State& state, Body body) {
  try {
    body();
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
  }
}

}  // namespace tgc::bench
