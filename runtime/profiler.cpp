// Profiler: timing bookkeeping, the Theano-shaped text report and the Chrome trace.
#include "runtime/profiler.h"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <utility>

#include "runtime/comm/world.h"
#include "runtime/error.h"

namespace tgc {

namespace {

double seconds_between(Profiler::Clock::time_point a, Profiler::Clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

double percent(double part, double whole) { return whole > 0 ? 100.0 * part / whole : 0.0; }

// One row of the Class / Ops tables: thunks grouped by a name and their kind.
struct Row {
  std::string name;
  ThunkKind kind = ThunkKind::Cpu;
  double seconds = 0;
  int64_t calls = 0;
  int applies = 0;
  int first = 0;  // earliest thunk, for a stable order among equal times
};

char kind_letter(ThunkKind k) {
  switch (k) {
    case ThunkKind::Cpu: return 'C';
    case ThunkKind::Gpu: return 'G';
    case ThunkKind::Transfer: return 'T';
    case ThunkKind::Comm: return 'M';
  }
  return '?';
}

void sort_by_time(std::vector<Row>& rows) {
  std::stable_sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) {
    return a.seconds != b.seconds ? a.seconds > b.seconds : a.first < b.first;
  });
}

std::string human_bytes(int64_t bytes) {
  const char* units[] = {"B", "KB", "MB", "GB", "TB"};
  double v = static_cast<double>(bytes);
  int u = 0;
  while (v >= 1024 && u < 4) v /= 1024, ++u;
  if (u == 0) return fmt::format("{}B", bytes);
  return fmt::format("{:.1f}{} ({}B)", v, units[u], bytes);
}

// Chrome-trace lane of a thunk kind; lanes are threads of one process in Perfetto. Host
// lanes: the time the host spent in each thunk (for a device thunk, its enqueue); the
// device stream lane: the device time of device thunks.
int lane(ThunkKind k) { return 1 + static_cast<int>(k); }
constexpr int kDeviceStreamLane = 9;

constexpr ThunkKind kKinds[] = {ThunkKind::Cpu, ThunkKind::Gpu, ThunkKind::Transfer, ThunkKind::Comm};

}  // namespace

Profiler::Profiler(std::string function_name, const Program& program)
    : name_(std::move(function_name)), program_(&program), origin_(Clock::now()),
      stats_(program.thunks.size()) {}

void Profiler::set_compile_times(double optimizer_s, double codegen_s, double link_s) {
  optimizer_s_ = optimizer_s;
  codegen_s_ = codegen_s;
  link_s_ = link_s;
}

void Profiler::begin_call() {
  ++calls_;
  call_start_ = Clock::now();
}

void Profiler::end_call(bool completed) {
  if (completed)
    call_seconds_ += seconds_between(call_start_, Clock::now());
  else
    --calls_;
}

void Profiler::record_execute(Clock::time_point start, Clock::time_point end) {
  execute_seconds_ += seconds_between(start, end);
}

void Profiler::record_thunk(int thunk_index, Clock::time_point start, Clock::time_point end) {
  TGC_INTERNAL_CHECK(thunk_index >= 0 && static_cast<size_t>(thunk_index) < stats_.size(),
                     "profiler: thunk index out of range");
  double dur = seconds_between(start, end);
  ThunkStats& s = stats_[thunk_index];
  ++s.calls;
  s.seconds += dur;
  add_event({thunk_index, seconds_between(origin_, start) * 1e6, dur * 1e6, calls_});
}

void Profiler::add_event(Event e) {
  if (events_.size() < trace_event_cap_)
    events_.push_back(e);
  else
    ++dropped_events_;
}

void Profiler::record_device_timer(int thunk_index, Clock::time_point enqueued, std::unique_ptr<DeviceTimer> timer) {
  TGC_INTERNAL_CHECK(thunk_index >= 0 && static_cast<size_t>(thunk_index) < stats_.size(),
                     "profiler: thunk index out of range");
  pending_.push_back({thunk_index, seconds_between(origin_, enqueued) * 1e6, calls_, std::move(timer)});
}

void Profiler::collect_device_times(bool wait) {
  if (wait)
    for (const PendingTimer& p : pending_)
      if (Device* d = program_->thunks[p.thunk].device) d->synchronize();
  // One stream per device, in order: the first timer not done yet ends the scan.
  while (!pending_.empty()) {
    std::optional<double> s = pending_.front().timer->elapsed_seconds();
    if (!s) break;
    const PendingTimer& p = pending_.front();
    ThunkStats& st = stats_[p.thunk];
    ++st.device_calls;
    st.device_seconds += *s;
    // The device starts the work no earlier than its enqueue and no earlier than the end of
    // the work before it on the stream (timers give durations, not absolute times).
    const double start = std::max(p.enqueued_us, device_lane_end_us_);
    device_lane_end_us_ = start + *s * 1e6;
    add_event({p.thunk, start, *s * 1e6, p.call, /*device=*/true});
    pending_.pop_front();
  }
}

void Profiler::record_memory(int64_t peak_bytes_with_gc, int64_t peak_bytes_without_gc,
                             bool allow_gc) {
  peak_with_gc_ = std::max(peak_with_gc_, peak_bytes_with_gc);
  peak_without_gc_ = std::max(peak_without_gc_, peak_bytes_without_gc);
  allow_gc_ = allow_gc;
  memory_recorded_ = true;
}

void Profiler::record_comm_bytes(int thunk_index, int64_t bytes) { stats_[thunk_index].comm_bytes += bytes; }

double Profiler::thunk_seconds(int thunk_index) const {
  const ThunkStats& s = stats_.at(thunk_index);
  return s.device_calls ? s.device_seconds : s.seconds;
}
double Profiler::thunk_host_seconds(int thunk_index) const { return stats_.at(thunk_index).seconds; }
int64_t Profiler::thunk_calls(int thunk_index) const { return stats_.at(thunk_index).calls; }

double Profiler::total_thunk_seconds() const {
  double total = 0;
  for (size_t i = 0; i < stats_.size(); ++i) total += thunk_seconds(static_cast<int>(i));
  return total;
}

double Profiler::kind_seconds(ThunkKind kind) const {
  double total = 0;
  for (size_t i = 0; i < stats_.size(); ++i)
    if (program_->thunks[i].kind == kind) total += thunk_seconds(static_cast<int>(i));
  return total;
}

std::string Profiler::report(int max_rows) const {
  const double thunk_total = total_thunk_seconds();
  std::string out;
  auto line = [&out](const std::string& s) { out += s + "\n"; };

  line("Function profiling");
  line("==================");
  line(fmt::format("  Message: {}", name_));
  line(fmt::format("  Time in {} calls to Function.__call__: {:e}s", calls_, call_seconds_));
  line(fmt::format("  Time in Function.fn.__call__: {:e}s ({:.3f}%)", execute_seconds_,
                   percent(execute_seconds_, call_seconds_)));
  line(fmt::format("  Time in thunks: {:e}s ({:.3f}%)", thunk_total,
                   percent(thunk_total, call_seconds_)));
  line(fmt::format("  Total compile time: {:e}s", optimizer_s_ + codegen_s_ + link_s_));
  line(fmt::format("    Optimizer time: {:e}s", optimizer_s_));
  line(fmt::format("    Codegen time: {:e}s", codegen_s_));
  line(fmt::format("    Link time: {:e}s", link_s_));
  line("");

  // Class and Ops tables: thunks grouped by (name, kind), so every row has one type.
  auto grouped = [&](auto name_of) {
    std::vector<Row> rows;
    std::map<std::pair<std::string, ThunkKind>, size_t> index;
    for (size_t i = 0; i < stats_.size(); ++i) {
      const Thunk& t = program_->thunks[i];
      auto [it, fresh] = index.try_emplace({name_of(t), t.kind}, rows.size());
      if (fresh) rows.push_back({name_of(t), t.kind, 0, 0, 0, static_cast<int>(i)});
      Row& r = rows[it->second];
      r.seconds += thunk_seconds(static_cast<int>(i));
      r.calls += stats_[i].calls;
      ++r.applies;
    }
    sort_by_time(rows);
    return rows;
  };
  // One time-sorted table in Theano's layout. The next-to-last column is `count_header`:
  // "<#apply>" (how many applies a Class/Ops row groups) or "<id>" (an Apply row's thunk).
  auto table = [&](const char* title, const char* underline, const std::string& count_header,
                   const std::string& name_header, const char* plural, const std::vector<Row>& rows,
                   auto count_cell) {
    line(title);
    line(underline);
    line(fmt::format("<% time> <sum %> <apply time> <time per call> <type> <#call> {} <{}>", count_header,
                     name_header));
    double cumulative = 0;
    size_t shown = std::min(rows.size(), static_cast<size_t>(std::max(max_rows, 0)));
    for (size_t i = 0; i < shown; ++i) {
      const Row& r = rows[i];
      cumulative += r.seconds;
      line(fmt::format("  {:5.1f}%   {:5.1f}%   {:9.3f}s   {:10.2e}s   {:>4}   {:>6}   {}   {}",
                       percent(r.seconds, thunk_total), percent(cumulative, thunk_total),
                       r.seconds, r.calls ? r.seconds / r.calls : 0.0, kind_letter(r.kind),
                       r.calls, count_cell(r), r.name));
    }
    if (shown < rows.size()) {
      double rest = thunk_total - cumulative;
      line(fmt::format("   ... (remaining {} {} account for {:.2f}%({:.2f}s) of the runtime)",
                       rows.size() - shown, plural, percent(rest, thunk_total), rest));
    }
  };
  auto applies = [](const Row& r) { return fmt::format("{:>5}", r.applies); };
  table("Class", "---", "<#apply>", "Class name", "Classes",
        grouped([](const Thunk& t) { return t.op_class; }), applies);
  line("");
  table("Ops", "---", "<#apply>", "Op name", "Ops", grouped([](const Thunk& t) { return t.op_name; }), applies);
  line("");

  // Apply table: one row per thunk (a node of the scheduled graph).
  std::vector<Row> apply_rows;
  for (size_t i = 0; i < stats_.size(); ++i) {
    const Thunk& t = program_->thunks[i];
    apply_rows.push_back({t.label.empty() ? t.op_name : t.label, t.kind, thunk_seconds(static_cast<int>(i)), stats_[i].calls, 1,
                          static_cast<int>(i)});
  }
  sort_by_time(apply_rows);
  table("Apply", "------", "<id>", "Apply name", "Apply instances", apply_rows,
        [](const Row& r) { return fmt::format("{:>4}", r.first); });
  line("  <type>: C = cpu, G = gpu, T = transfer, M = comm (collectives) (gpu, transfer and comm on a device: device time where the device times them)");
  line("");

  line("Memory Profile");
  line("---");
  if (!memory_recorded_) {
    line("    (no memory recorded: the function was not called)");
  } else {
    int64_t current = allow_gc_ ? peak_with_gc_ : peak_without_gc_;
    int64_t other = allow_gc_ ? peak_without_gc_ : peak_with_gc_;
    line(fmt::format("    Max peak memory with current setting (allow_gc={}): {}",
                     allow_gc_ ? "true" : "false", human_bytes(current)));
    line(fmt::format("    Max peak memory if allow_gc={}: {}", allow_gc_ ? "false" : "true",
                     human_bytes(other)));
    line("    (intermediates and outputs; a buffer shared by views counts once; inputs, "
         "shared values and constants are not counted)");
  }
  line("");

  double cpu = kind_seconds(ThunkKind::Cpu), gpu = kind_seconds(ThunkKind::Gpu),
         transfer = kind_seconds(ThunkKind::Transfer);
  line(fmt::format("Spent {:.3f}s ({:.1f}%) in cpu ops, {:.3f}s ({:.1f}%) in gpu ops and "
                   "{:.3f}s ({:.1f}%) in transfer ops",
                   cpu, percent(cpu, thunk_total), gpu, percent(gpu, thunk_total), transfer,
                   percent(transfer, thunk_total)));
  // Collectives, where the function has any (ops/collective/: data moved between ranks).
  const bool any_comm = std::any_of(program_->thunks.begin(), program_->thunks.end(),
                                    [](const Thunk& t) { return t.kind == ThunkKind::Comm; });
  if (any_comm) {
    const double comm = kind_seconds(ThunkKind::Comm);
    line(fmt::format("Spent {:.3f}s ({:.1f}%) in comm ops (collectives)", comm, percent(comm, thunk_total)));
    // Each collective: bytes per run and the bus bandwidth reached (nccl-tests' measure).
    for (size_t i = 0; i < stats_.size(); ++i) {
      const Thunk& t = program_->thunks[i];
      if (t.kind != ThunkKind::Comm || stats_[i].calls == 0) continue;
      const double s = thunk_seconds(static_cast<int>(i));
      const double bytes = static_cast<double>(stats_[i].comm_bytes);
      line(fmt::format("  {}: {} per call, {} calls, bus bandwidth {}", t.label.empty() ? t.op_name : t.label,
                       human_bytes(stats_[i].comm_bytes / stats_[i].calls), stats_[i].calls,
                       s > 0 ? fmt::format("{:.2f} GB/s", bytes * t.bus_factor / s / 1e9) : std::string("-")));
    }
  }
  return out;
}

namespace {

// The Chrome traces this process writes, by path: what the profiles added so far hold, so
// that each write has every function's lanes (lanes of function k are k * kLanesPerFunction +
// lane). Guarded by trace_files_mutex().
struct TraceFile {
  nlohmann::json events = nlohmann::json::array();
  nlohmann::json functions = nlohmann::json::array();  // otherData: one entry per function
  size_t runs = 0;                                     // "X" events kept
};
constexpr int kLanesPerFunction = 16;

std::mutex& trace_files_mutex() {
  static std::mutex m;
  return m;
}
std::map<std::string, TraceFile>& trace_files() {
  static std::map<std::string, TraceFile> files;
  return files;
}

}  // namespace

void Profiler::write_chrome_trace(const std::string& path) const {
  using nlohmann::json;
  std::lock_guard<std::mutex> lock(trace_files_mutex());
  TraceFile& file = trace_files()[path];
  json& events = file.events;
  const int k = static_cast<int>(file.functions.size());
  auto tid = [&](int lane_in_function) { return k * kLanesPerFunction + lane_in_function; };
  // One process per rank (launch_info()): the traces of a launch's ranks merge side by side.
  const LaunchInfo& launch = launch_info();
  const int pid = launch.rank + 1;
  const std::string rank_note = launch.size > 1 ? fmt::format(" (rank {} of {})", launch.rank, launch.size) : "";
  if (k == 0)
    events.push_back({{"name", "process_name"}, {"ph", "M"}, {"pid", pid}, {"tid", 0},
                      {"args", {{"name", "tgc" + rank_note}}}});
  const bool any_comm = std::any_of(program_->thunks.begin(), program_->thunks.end(),
                                    [](const Thunk& t) { return t.kind == ThunkKind::Comm; });
  auto add_lane = [&](int lane_in_function, const std::string& what) {
    events.push_back({{"name", "thread_name"}, {"ph", "M"}, {"pid", pid}, {"tid", tid(lane_in_function)},
                      {"args", {{"name", name_ + ": " + what}}}});
    events.push_back({{"name", "thread_sort_index"}, {"ph", "M"}, {"pid", pid}, {"tid", tid(lane_in_function)},
                      {"args", {{"sort_index", tid(lane_in_function)}}}});
  };
  for (ThunkKind kind : kKinds) {
    if (kind == ThunkKind::Comm && !any_comm) continue;  // the comm lane only where there are collectives
    add_lane(lane(kind), thunk_kind_name(kind) + " ops");
  }
  const bool any_device = std::any_of(events_.begin(), events_.end(), [](const Event& e) { return e.device; });
  if (any_device) add_lane(kDeviceStreamLane, "device stream");
  int64_t dropped = dropped_events_;
  size_t kept = 0;
  for (const Event& e : events_) {
    if (file.runs >= kTraceFileEventCap) {
      ++dropped;
      continue;
    }
    const Thunk& t = program_->thunks[e.thunk];
    events.push_back({{"name", t.op_name},
                      {"cat", e.device ? "device" : thunk_kind_name(t.kind)},
                      {"ph", "X"},
                      {"ts", e.start_us},
                      {"dur", e.dur_us},
                      {"pid", pid},
                      {"tid", tid(e.device ? kDeviceStreamLane : lane(t.kind))},
                      {"args", {{"function", name_}, {"node", t.label}, {"call", e.call}}}});
    ++file.runs;
    ++kept;
  }
  file.functions.push_back(
      {{"function", name_}, {"events", kept}, {"dropped_events", dropped}, {"event_cap", trace_event_cap_}});
  json trace = {{"traceEvents", events}, {"displayTimeUnit", "ms"}, {"otherData", {{"functions", file.functions}}}};

  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out)
    throw IOError(fmt::format("cannot write the Chrome trace to '{}'", path), "",
                  "check that the directory exists and is writable");
  // Labels carry user names; replace invalid UTF-8 rather than fail the whole trace.
  out << trace.dump(-1, ' ', false, json::error_handler_t::replace) << "\n";
  out.close();
  if (!out)
    throw IOError(fmt::format("error writing the Chrome trace to '{}'", path), "",
                  "check the free space on the disk");
}

}  // namespace tgc
