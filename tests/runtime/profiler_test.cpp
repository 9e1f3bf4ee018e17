// Tests of the profiler: the Theano-shaped report (sections, tables sorted by time with %
// and cumulative %, the cpu/gpu/transfer line, memory) from synthetic timings, and the
// Chrome-trace JSON (events, lanes, the event cap).
#include "runtime/profiler.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "runtime/error.h"

namespace tgc {
namespace {

using ::testing::HasSubstr;
using Clock = Profiler::Clock;
namespace fs = std::filesystem;

Thunk thunk(std::string op, std::string cls, std::string label, ThunkKind kind) {
  Thunk t;
  t.op_name = std::move(op);
  t.op_class = std::move(cls);
  t.label = std::move(label);
  t.kind = kind;
  return t;
}

// Five nodes; per call: exp1 0.25s, exp2 0.10s, dot 0.40s, transfer 0.15s, gpu 0.10s (1.0s).
Program five_nodes() {
  Program p;
  p.thunks.push_back(thunk("Elemwise{exp}", "Elemwise", "e1 = exp(x)", ThunkKind::Cpu));
  p.thunks.push_back(thunk("Elemwise{exp}", "Elemwise", "e2 = exp(y)", ThunkKind::Cpu));
  p.thunks.push_back(thunk("Dot22", "Dot", "d = dot(e1, w)", ThunkKind::Cpu));
  p.thunks.push_back(thunk("HostToDevice", "Transfer", "g = gpu(d)", ThunkKind::Transfer));
  p.thunks.push_back(thunk("GpuElemwise{exp}", "GpuElemwise", "o = exp(g)", ThunkKind::Gpu));
  return p;
}
const double kSeconds[] = {0.25, 0.10, 0.40, 0.15, 0.10};

// Records two calls with the synthetic durations above, back to back from now.
void record_two_calls(Profiler& prof) {
  Clock::time_point t = Clock::now();
  for (int call = 0; call < 2; ++call) {
    prof.begin_call();
    Clock::time_point start = t;
    for (int i = 0; i < 5; ++i) {
      auto end = t + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(kSeconds[i]));
      prof.record_thunk(i, t, end);
      t = end;
    }
    prof.record_execute(start, t);
    prof.end_call();
  }
}

// The rows of a report table: the lines after its header up to the blank line.
std::vector<std::string> table_rows(const std::string& report, const std::string& title) {
  std::istringstream in(report);
  std::string line;
  std::vector<std::string> rows;
  bool inside = false;
  int skip = 0;
  while (std::getline(in, line)) {
    if (!inside && line == title) {
      inside = true;
      skip = 2;  // "---" and the column header
      continue;
    }
    if (!inside) continue;
    if (skip > 0) { --skip; continue; }
    if (line.empty()) break;
    rows.push_back(line);
  }
  return rows;
}

struct Parsed { double pct, cum, seconds; std::string rest; };
Parsed parse_row(const std::string& row) {
  Parsed p{};
  char rest[512] = {0};
  EXPECT_GE(std::sscanf(row.c_str(), " %lf%% %lf%% %lfs %*s %511[^\n]", &p.pct, &p.cum, &p.seconds, rest), 3)
      << row;
  p.rest = rest;
  return p;
}

TEST(Profiler, AccumulatesPerThunkAndPerKind) {
  Program p = five_nodes();
  Profiler prof("train", p);
  record_two_calls(prof);
  EXPECT_EQ(prof.calls(), 2);
  EXPECT_NEAR(prof.thunk_seconds(2), 0.8, 1e-6);
  EXPECT_EQ(prof.thunk_calls(4), 2);
  EXPECT_NEAR(prof.total_thunk_seconds(), 2.0, 1e-6);
  EXPECT_NEAR(prof.execute_seconds(), 2.0, 1e-6);
  EXPECT_NEAR(prof.kind_seconds(ThunkKind::Cpu), 1.5, 1e-6);
  EXPECT_NEAR(prof.kind_seconds(ThunkKind::Gpu), 0.2, 1e-6);
  EXPECT_NEAR(prof.kind_seconds(ThunkKind::Transfer), 0.3, 1e-6);
  EXPECT_EQ(prof.trace_events(), 10u);
}

TEST(Profiler, ReportSummaryAndSplitLine) {
  Program p = five_nodes();
  Profiler prof("train", p);
  prof.set_compile_times(0.1, 0.2, 0.3);
  record_two_calls(prof);
  std::string r = prof.report();
  EXPECT_THAT(r, HasSubstr("Function profiling\n==================\n  Message: train\n"));
  EXPECT_THAT(r, HasSubstr("  Time in 2 calls to Function.__call__: "));
  EXPECT_THAT(r, HasSubstr("  Time in Function.fn.__call__: 2.000000e+00s ("));
  EXPECT_THAT(r, HasSubstr("  Time in thunks: 2.000000e+00s ("));
  EXPECT_THAT(r, HasSubstr("  Total compile time: 6.000000e-01s\n"
                           "    Optimizer time: 1.000000e-01s\n"
                           "    Codegen time: 2.000000e-01s\n"
                           "    Link time: 3.000000e-01s\n"));
  EXPECT_THAT(r, HasSubstr("\nMemory Profile\n"));
  // The last line, exactly.
  EXPECT_THAT(r, ::testing::EndsWith("\nSpent 1.500s (75.0%) in cpu ops, 0.200s (10.0%) in gpu ops "
                                     "and 0.300s (15.0%) in transfer ops\n"));
  // The sections come in Theano's order.
  size_t cls = r.find("\nClass\n---\n"), ops = r.find("\nOps\n---\n"), apply = r.find("\nApply\n------\n"),
         mem = r.find("\nMemory Profile\n"), spent = r.find("\nSpent ");
  ASSERT_NE(cls, std::string::npos);
  EXPECT_LT(cls, ops);
  EXPECT_LT(ops, apply);
  EXPECT_LT(apply, mem);
  EXPECT_LT(mem, spent);
  EXPECT_THAT(r, HasSubstr("<% time> <sum %> <apply time> <time per call> <type> <#call> <#apply> <Class name>"));
  EXPECT_THAT(r, HasSubstr("<% time> <sum %> <apply time> <time per call> <type> <#call> <#apply> <Op name>"));
}

TEST(Profiler, TablesSortedWithPercentages) {
  Program p = five_nodes();
  Profiler prof("train", p);
  record_two_calls(prof);
  std::string r = prof.report();

  struct Expect { double pct, cum, seconds; const char* tail; };
  auto check = [&](const std::string& title, const std::vector<Expect>& expected) {
    std::vector<std::string> rows = table_rows(r, title);
    ASSERT_EQ(rows.size(), expected.size()) << title << "\n" << r;
    double sum = 0;
    for (size_t i = 0; i < rows.size(); ++i) {
      Parsed got = parse_row(rows[i]);
      EXPECT_NEAR(got.pct, expected[i].pct, 0.051) << rows[i];
      EXPECT_NEAR(got.cum, expected[i].cum, 0.051) << rows[i];
      EXPECT_NEAR(got.seconds, expected[i].seconds, 0.0006) << rows[i];
      EXPECT_THAT(rows[i], ::testing::EndsWith(expected[i].tail)) << title;
      sum += got.pct;
    }
    EXPECT_NEAR(sum, 100.0, 0.3) << title;
  };
  // <type> <#call> <#apply> <name>; rows by time, descending; ties keep the node order.
  check("Class", {{40, 40, 0.8, "Dot"}, {35, 75, 0.7, "Elemwise"}, {15, 90, 0.3, "Transfer"},
                 {10, 100, 0.2, "GpuElemwise"}});
  check("Ops", {{40, 40, 0.8, "Dot22"}, {35, 75, 0.7, "Elemwise{exp}"}, {15, 90, 0.3, "HostToDevice"},
               {10, 100, 0.2, "GpuElemwise{exp}"}});
  std::vector<std::string> cls = table_rows(r, "Class");
  ASSERT_EQ(cls.size(), 4u);
  EXPECT_THAT(cls[0], ::testing::MatchesRegex(".*s +C +2 +1 +Dot$"));
  EXPECT_THAT(cls[1], ::testing::MatchesRegex(".*s +C +4 +2 +Elemwise$"));
  EXPECT_THAT(cls[2], ::testing::MatchesRegex(".*s +T +2 +1 +Transfer$"));
  EXPECT_THAT(cls[3], ::testing::MatchesRegex(".*s +G +2 +1 +GpuElemwise$"));

  std::vector<std::string> ops = table_rows(r, "Ops");
  ASSERT_EQ(ops.size(), 4u);
  EXPECT_THAT(ops[0], ::testing::EndsWith("Dot22"));
  EXPECT_THAT(ops[1], ::testing::EndsWith("Elemwise{exp}"));
  EXPECT_THAT(ops[2], ::testing::EndsWith("HostToDevice"));
  EXPECT_THAT(ops[3], ::testing::EndsWith("GpuElemwise{exp}"));
  EXPECT_NEAR(parse_row(ops[1]).pct, 35.0, 0.051);

  std::vector<std::string> apply = table_rows(r, "Apply");
  ASSERT_EQ(apply.size(), 6u);  // five nodes and the legend of the type column
  EXPECT_THAT(apply[0], ::testing::MatchesRegex(".*s +C +2 +2 +d = dot\\(e1, w\\)$"));
  EXPECT_THAT(apply[1], ::testing::MatchesRegex(".*s +C +2 +0 +e1 = exp\\(x\\)$"));
  EXPECT_THAT(apply[2], ::testing::MatchesRegex(".*s +T +2 +3 +g = gpu\\(d\\)$"));
  EXPECT_THAT(apply[3], ::testing::MatchesRegex(".*s +C +2 +1 +e2 = exp\\(y\\)$"));  // tie: node 1 before 4
  EXPECT_THAT(apply[4], ::testing::MatchesRegex(".*s +G +2 +4 +o = exp\\(g\\)$"));
  EXPECT_THAT(apply[5], HasSubstr("C = cpu, G = gpu, T = transfer"));
  std::vector<double> cum;
  for (int i = 0; i < 5; ++i) cum.push_back(parse_row(apply[i]).cum);
  EXPECT_EQ(cum, (std::vector<double>{40.0, 65.0, 80.0, 90.0, 100.0}));
  EXPECT_NEAR(parse_row(apply[0]).seconds, 0.8, 0.0006);
  EXPECT_THAT(apply[0], HasSubstr("4.00e-01s"));  // time per call
}

TEST(Profiler, RowLimitSumsUpTheRest) {
  Program p = five_nodes();
  Profiler prof("train", p);
  record_two_calls(prof);
  std::string r = prof.report(2);
  EXPECT_EQ(table_rows(r, "Class").size(), 3u);
  EXPECT_THAT(r, HasSubstr("   ... (remaining 2 Classes account for 25.00%(0.50s) of the runtime)"));
  EXPECT_THAT(r, HasSubstr("   ... (remaining 2 Ops account for 25.00%(0.50s) of the runtime)"));
  EXPECT_THAT(r, HasSubstr("   ... (remaining 3 Apply instances account for 35.00%(0.70s) of the runtime)"));
}

TEST(Profiler, MemorySection) {
  Program p = five_nodes();
  Profiler none("f", p);
  EXPECT_THAT(none.report(), HasSubstr("Memory Profile\n---\n    (no memory recorded"));

  Profiler gc("f", p);
  gc.record_memory(1000, 5000, true);
  gc.record_memory(3 << 20, 4 << 20, true);  // the worst call is reported
  gc.record_memory(10, 20, true);
  EXPECT_THAT(gc.report(), HasSubstr("    Max peak memory with current setting (allow_gc=true): 3.0MB (3145728B)\n"
                                     "    Max peak memory if allow_gc=false: 4.0MB (4194304B)\n"));
  Profiler keep("f", p);
  keep.record_memory(512, 2048, false);
  EXPECT_THAT(keep.report(), HasSubstr("    Max peak memory with current setting (allow_gc=false): 2.0KB (2048B)\n"
                                       "    Max peak memory if allow_gc=true: 512B\n"));
}

TEST(Profiler, EmptyProfileHasNoNaNs) {
  Program p = five_nodes();
  Profiler prof("idle", p);
  std::string r = prof.report();
  EXPECT_THAT(r, HasSubstr("Time in 0 calls to Function.__call__: 0.000000e+00s"));
  EXPECT_THAT(r, ::testing::Not(HasSubstr("nan")));
  EXPECT_THAT(r, HasSubstr("Spent 0.000s (0.0%) in cpu ops, 0.000s (0.0%) in gpu ops and 0.000s (0.0%) in transfer ops"));
}

class ChromeTrace : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("tgc_profiler_test_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  nlohmann::json read(const fs::path& path) {
    std::ifstream in(path);
    return nlohmann::json::parse(in);  // throws when the file is not valid JSON
  }
  fs::path dir_;
};

TEST_F(ChromeTrace, EventsAndLanes) {
  Program p = five_nodes();
  Profiler prof("train", p);
  record_two_calls(prof);
  fs::path path = dir_ / "trace.json";
  prof.write_chrome_trace(path.string());
  nlohmann::json j = read(path);
  EXPECT_EQ(j["displayTimeUnit"], "ms");
  ASSERT_EQ(j["otherData"]["functions"].size(), 1u);
  EXPECT_EQ(j["otherData"]["functions"][0]["dropped_events"], 0);
  EXPECT_EQ(j["otherData"]["functions"][0]["function"], "train");
  EXPECT_EQ(j["otherData"]["functions"][0]["events"], 10);

  std::map<int, std::string> lanes;
  std::vector<nlohmann::json> runs;
  for (const auto& e : j["traceEvents"]) {
    if (e["ph"] == "M" && e["name"] == "thread_name") lanes[e["tid"].get<int>()] = e["args"]["name"];
    if (e["ph"] == "X") runs.push_back(e);
  }
  EXPECT_EQ(lanes, (std::map<int, std::string>{{1, "train: cpu ops"}, {2, "train: gpu ops"}, {3, "train: transfer ops"}}));
  ASSERT_EQ(runs.size(), 10u);
  std::map<std::string, int> lane_of_kind = {{"cpu", 1}, {"gpu", 2}, {"transfer", 3}};
  for (size_t k = 0; k < runs.size(); ++k) {
    const auto& e = runs[k];
    int node = static_cast<int>(k % 5);
    EXPECT_EQ(e["name"], p.thunks[node].op_name);
    EXPECT_EQ(e["cat"], thunk_kind_name(p.thunks[node].kind));
    EXPECT_EQ(e["tid"], lane_of_kind[e["cat"]]);
    EXPECT_EQ(e["pid"], 1);
    EXPECT_EQ(e["args"]["node"], p.thunks[node].label);
    EXPECT_EQ(e["args"]["call"], k < 5 ? 1 : 2);
    EXPECT_NEAR(e["dur"].get<double>(), kSeconds[node] * 1e6, 1.0);
    EXPECT_GE(e["ts"].get<double>(), 0.0);
    if (k > 0) {  // back to back: each run starts where the previous ended
      EXPECT_NEAR(e["ts"].get<double>(),
                  runs[k - 1]["ts"].get<double>() + runs[k - 1]["dur"].get<double>(), 1.0);
    }
  }
}

// Two functions of one program writing to one path (tgc run --profile-trace on a file with
// a train and a predict function): the file keeps both, each in lanes of its own, whichever
// is written last.
TEST_F(ChromeTrace, FunctionsWritingOnePathShareTheFile) {
  Program p = five_nodes();
  Profiler train("train", p), idle("predict", p);
  record_two_calls(train);
  fs::path path = dir_ / "shared.json";
  train.write_chrome_trace(path.string());
  idle.write_chrome_trace(path.string());  // never called: adds its lanes, loses nothing
  nlohmann::json j = read(path);
  ASSERT_EQ(j["otherData"]["functions"].size(), 2u);
  EXPECT_EQ(j["otherData"]["functions"][0]["function"], "train");
  EXPECT_EQ(j["otherData"]["functions"][1]["function"], "predict");
  EXPECT_EQ(j["otherData"]["functions"][1]["events"], 0);
  std::map<int, std::string> lanes;
  int runs = 0;
  for (const auto& e : j["traceEvents"]) {
    if (e["ph"] == "M" && e["name"] == "thread_name") lanes[e["tid"].get<int>()] = e["args"]["name"];
    if (e["ph"] == "X") {
      ++runs;
      EXPECT_EQ(e["args"]["function"], "train");
      EXPECT_LT(e["tid"].get<int>(), 16);
    }
  }
  EXPECT_EQ(runs, 10);
  EXPECT_EQ(lanes.at(16 + 1), "predict: cpu ops");
  EXPECT_EQ(lanes.at(1), "train: cpu ops");
}

TEST_F(ChromeTrace, CapsStoredEventsAndSaysHowManyWereDropped) {
  Program p = five_nodes();
  Profiler prof("loop", p);
  EXPECT_EQ(prof.trace_event_cap(), 200000u);
  prof.set_trace_event_cap(40);  // a small cap keeps the JSON quick to parse
  Clock::time_point t = Clock::now();
  const size_t total = 47;
  for (size_t k = 0; k < total; ++k) prof.record_thunk(static_cast<int>(k % 5), t, t);
  EXPECT_EQ(prof.trace_events(), 40u);
  EXPECT_EQ(prof.dropped_trace_events(), 7);
  int64_t counted = 0;
  for (int i = 0; i < 5; ++i) counted += prof.thunk_calls(i);
  EXPECT_EQ(counted, static_cast<int64_t>(total));  // timings still count every run
  fs::path path = dir_ / "capped.json";
  prof.write_chrome_trace(path.string());
  nlohmann::json j = read(path);
  EXPECT_EQ(j["otherData"]["functions"][0]["dropped_events"], 7);
  EXPECT_EQ(j["otherData"]["functions"][0]["event_cap"], 40);
  size_t runs = 0;
  for (const auto& e : j["traceEvents"]) runs += e["ph"] == "X";
  EXPECT_EQ(runs, 40u);
}

TEST(Profiler, DefaultCapHoldsTwoHundredThousandRuns) {
  Program p = five_nodes();
  Profiler prof("loop", p);
  Clock::time_point t = Clock::now();
  for (size_t k = 0; k < Profiler::kDefaultTraceEventCap + 3; ++k) prof.record_thunk(0, t, t);
  EXPECT_EQ(prof.trace_events(), Profiler::kDefaultTraceEventCap);
  EXPECT_EQ(prof.dropped_trace_events(), 3);
}

TEST_F(ChromeTrace, UnwritablePathIsAnIOError) {
  Program p = five_nodes();
  Profiler prof("f", p);
  std::string path = (dir_ / "no_such_dir" / "trace.json").string();
  try {
    prof.write_chrome_trace(path);
    FAIL() << "expected an IOError";
  } catch (const IOError& e) {
    EXPECT_THAT(e.what(), HasSubstr("cannot write the Chrome trace to '" + path + "'"));
  }
}

}  // namespace
}  // namespace tgc
