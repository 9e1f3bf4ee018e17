// Profiler: per-thunk timings of one compiled function, reported in Theano's shape
// (function summary; per op class, per op and per node tables; memory; the cpu/gpu/transfer
// split line) and as a Chrome-trace JSON that Perfetto opens.
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "runtime/program.h"

namespace tgc {

class Profiler {
 public:
  using Clock = std::chrono::steady_clock;
  // Thunk runs kept for the Chrome trace by default; later runs are counted, not stored,
  // so a long loop cannot exhaust memory.
  static constexpr size_t kDefaultTraceEventCap = 200000;

  // `program` must outlive the profiler (the function owns both).
  Profiler(std::string function_name, const Program& program);

  // How many thunk runs the Chrome trace keeps (kDefaultTraceEventCap unless changed).
  void set_trace_event_cap(size_t cap) { trace_event_cap_ = cap; }
  size_t trace_event_cap() const { return trace_event_cap_; }

  // Compile time, split as the report prints it (seconds).
  void set_compile_times(double optimizer_s, double codegen_s, double link_s);

  // Called by the function around each call (Theano's Function.__call__)...
  void begin_call();
  // A call that failed or was interrupted is not counted among the calls (its nodes' runs
  // stay in their rows: they ran).
  void end_call(bool completed = true);
  // ...by the executor around one run of the program (Theano's Function.fn.__call__)...
  void record_execute(Clock::time_point start, Clock::time_point end);
  // ...and by the executor around each thunk.
  void record_thunk(int thunk_index, Clock::time_point start, Clock::time_point end);
  // A collective's bytes in one run (the larger of what it read and wrote, nccl-tests' size).
  void record_comm_bytes(int thunk_index, int64_t bytes);
  // A device thunk's work, timed on its stream (the host times only the enqueue): read once
  // the device got there, by collect_device_times(), never by making the host wait.
  void record_device_timer(int thunk_index, Clock::time_point enqueued, std::unique_ptr<DeviceTimer> timer);
  // Folds the device timings that have completed into the statistics, in stream order.
  // With `wait`, first waits for the devices of the pending ones (for the final report).
  void collect_device_times(bool wait);
  // Bytes of intermediates and outputs alive at the worst point of one call, with gc (each
  // intermediate dropped after its last use) and without (everything kept), whatever the
  // function's setting; `allow_gc` is that setting. The report shows the worst call.
  void record_memory(int64_t peak_bytes_with_gc, int64_t peak_bytes_without_gc, bool allow_gc);

  int64_t calls() const { return calls_; }
  double total_call_seconds() const { return call_seconds_; }
  double execute_seconds() const { return execute_seconds_; }
  // A thunk's time: its device time when it is a device thunk timed on the device, else the
  // host time around it (for a device thunk without a device timer, the enqueue time).
  double thunk_seconds(int thunk_index) const;
  double thunk_host_seconds(int thunk_index) const;
  int64_t thunk_calls(int thunk_index) const;
  double total_thunk_seconds() const;
  double kind_seconds(ThunkKind kind) const;  // summed over the thunks of that kind
  int64_t thunk_comm_bytes(int thunk_index) const { return stats_[thunk_index].comm_bytes; }
  int64_t peak_bytes_with_gc() const { return peak_with_gc_; }
  int64_t peak_bytes_without_gc() const { return peak_without_gc_; }
  size_t trace_events() const { return events_.size(); }
  int64_t dropped_trace_events() const { return dropped_events_; }

  // The text report (Theano's layout); each table lists at most `max_rows` rows and sums up
  // the rest in one line.
  std::string report(int max_rows = 20) const;
  // Adds this profile to the Chrome trace at `path` and writes the file: one event per thunk
  // run (up to the cap), one lane per thunk kind. Every profile this process added to the
  // same path stays in it, each function in lanes of its own, so the functions of one
  // program share one trace whatever order they are destroyed in. IOError when the file
  // cannot be written (this profile stays added for the next write).
  void write_chrome_trace(const std::string& path) const;
  // The most events one trace file keeps over all its functions; later events are dropped
  // and counted.
  static constexpr size_t kTraceFileEventCap = 1000000;

 private:
  struct ThunkStats {
    int64_t calls = 0;
    double seconds = 0;         // host clock
    int64_t device_calls = 0;
    double device_seconds = 0;  // device timers
    int64_t comm_bytes = 0;     // collectives: bytes moved over every run
  };
  struct Event { int thunk; double start_us; double dur_us; int64_t call; bool device = false; };
  struct PendingTimer {
    int thunk;
    double enqueued_us;
    int64_t call;
    std::unique_ptr<DeviceTimer> timer;
  };
  void add_event(Event e);
  std::string name_;
  const Program* program_;
  double optimizer_s_ = 0, codegen_s_ = 0, link_s_ = 0;
  int64_t calls_ = 0;
  double call_seconds_ = 0;
  double execute_seconds_ = 0;
  Clock::time_point call_start_{};
  Clock::time_point origin_;
  std::vector<ThunkStats> stats_;
  std::vector<Event> events_;
  std::deque<PendingTimer> pending_;
  double device_lane_end_us_ = 0;  // where the stream's last timed work ended (trace)
  size_t trace_event_cap_ = kDefaultTraceEventCap;
  int64_t dropped_events_ = 0;
  int64_t peak_with_gc_ = 0, peak_without_gc_ = 0;
  bool memory_recorded_ = false;
  bool allow_gc_ = true;
};

}  // namespace tgc
