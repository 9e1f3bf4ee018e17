// Profiler: per-thunk timings of one compiled function, reported in Theano's shape
// (function summary; per op class, per op and per node tables; memory; the cpu/gpu/transfer
// split line) and as a Chrome-trace JSON that Perfetto opens.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "runtime/program.h"

namespace tgc {

class Profiler {
 public:
  using Clock = std::chrono::steady_clock;

  // `program` must outlive the profiler (the function owns both).
  Profiler(std::string function_name, const Program& program);

  // Compile time, split as the report prints it (seconds).
  void set_compile_times(double optimizer_s, double codegen_s, double link_s);

  // Called by the function around each call, and by the executor around each thunk.
  void begin_call();
  void end_call();
  void record_thunk(int thunk_index, Clock::time_point start, Clock::time_point end);
  // Bytes of intermediates and outputs alive at the worst point of one call, with the
  // function's allow_gc setting and as it would be with gc off (everything kept).
  void record_memory(int64_t peak_bytes_with_gc, int64_t peak_bytes_without_gc, bool allow_gc);

  int64_t calls() const { return calls_; }
  double total_call_seconds() const { return call_seconds_; }
  double thunk_seconds(int thunk_index) const;

  // The text report (Theano's layout).
  std::string report() const;
  // Writes the Chrome trace (one event per thunk run, up to a cap) to `path`; IOError on failure.
  void write_chrome_trace(const std::string& path) const;

 private:
  struct ThunkStats { int64_t calls = 0; double seconds = 0; };
  struct Event { int thunk; double start_us; double dur_us; int64_t call; };
  std::string name_;
  const Program* program_;
  double optimizer_s_ = 0, codegen_s_ = 0, link_s_ = 0;
  int64_t calls_ = 0;
  double call_seconds_ = 0;
  Clock::time_point call_start_{};
  Clock::time_point origin_;
  std::vector<ThunkStats> stats_;
  std::vector<Event> events_;
  int64_t peak_with_gc_ = 0, peak_without_gc_ = 0;
  bool allow_gc_ = true;
};

}  // namespace tgc
