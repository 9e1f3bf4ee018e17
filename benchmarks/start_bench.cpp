// start_bench: issue 25's starts. The cold compile (an empty cache_dir) and the warm start (the
// same cache_dir again, a new process) of the functions of examples/logreg.tg (train, predict)
// and examples/mlp.tg (train), on one device, each in a child process of its own: the kernel
// cache also lives in memory for a process's lifetime, so only a new process starts warm.
//
//   build/benchmarks/start_bench                              # device=cpu
//   build/benchmarks/start_bench --device cuda                 # on a GPU (context not counted)
//   build/benchmarks/start_bench --child FILE DIR DEVICE THREADS   # internal: one load of FILE
//
// The child loads the .tg file (parsing, data generation, each function()) and reports, per
// function, the time of its function() and its phases (Function::compile_phases(): setup,
// optimize, codegen, link, load) and of its first call, synchronised. The second argument of
// each benchmark is compile_threads (0 = auto, 1 = one kernel after the other, the compile as
// it was before kernels compiled at once): the cold MLP run twice, in the same run, measures
// what compiling at once gains. On CUDA the child creates the device's primary context before
// anything is timed (the driver's cost, paid by any CUDA program: reported as context_ms), then
// opens tgc's device and places one value on it (its stream, memory pool and pinned staging,
// and the process's first device allocation and copy: reported as device_ms), as JAX's start
// (benchmarks/start_jax.py) is timed with its arguments on the device already.
#include <benchmark/benchmark.h>
#include <fmt/core.h>
#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <tgc/tgc.h>

#include "bench_util.h"
#include "frontend/lang/tg_program.h"
#include "runtime/compile_log.h"

#ifdef START_BENCH_HAVE_CUDA
#include <cuda_runtime.h>
#endif

namespace {

using namespace tgc;
using bench::Clock;
using bench::median;
using bench::seconds_since;
namespace fs = std::filesystem;

std::string g_device = "cpu";  // --device

// ---- The child: one load of a .tg file against one cache directory ----

int child(const std::string& file, const std::string& dir, const std::string& device, const std::string& threads) {
  try {
    double context_s = 0, device_s = 0;
    if (device.starts_with("cuda")) {
#ifdef START_BENCH_HAVE_CUDA
      const auto t0 = Clock::now();
      if (cudaSetDevice(0) != cudaSuccess || cudaFree(nullptr) != cudaSuccess)
        throw std::runtime_error("no CUDA device: cannot create the context");
      context_s = seconds_since(t0);
      const auto t1 = Clock::now();
      Tensor::from_vector<float>({0.f}).to(tgc::device(device)).to_host();
      device_s = seconds_since(t1);
#else
      throw std::runtime_error("start_bench was built without CUDA");
#endif
    }
    FunctionOptions options;
    options.config = {{"device", device}, {"cache_dir", dir}, {"compile_threads", threads}};
    const auto t0 = Clock::now();
    lang::TgProgram program = lang::load_file(file, options);
    const double file_s = seconds_since(t0);
    std::printf("file_ms=%.3f context_ms=%.3f device_ms=%.3f\n", 1e3 * file_s, 1e3 * context_s, 1e3 * device_s);
    for (lang::TgFunction& f : program.functions) {
      if (!f.inputs.empty()) continue;  // the examples' functions read shared variables only
      const CompilePhases& p = f.function.compile_phases();
      const double start_s = p.setup_s + p.optimize_s + p.codegen_s + p.link_s + p.load_s;
      const auto t1 = Clock::now();
      bench::sync_all(f.function({}));
      const double first_call_s = seconds_since(t1);
      std::printf("fn=%s start_ms=%.3f setup_ms=%.3f optimize_ms=%.3f codegen_ms=%.3f link_ms=%.3f load_ms=%.3f "
                  "first_call_ms=%.3f\n",
                  f.name.c_str(), 1e3 * start_s, 1e3 * p.setup_s, 1e3 * p.optimize_s, 1e3 * p.codegen_s,
                  1e3 * p.link_s, 1e3 * p.load_s, 1e3 * first_call_s);
    }
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "start_bench --child %s: %s\n", file.c_str(), e.what());
    return 2;
  }
}

// ---- The parent: runs children, keeps their numbers ----

using FunctionTimes = std::map<std::string, double>;  // "start_ms", "codegen_ms", ...

struct ChildReport {
  double file_ms = 0, context_ms = 0, device_ms = 0;
  std::map<std::string, FunctionTimes> functions;  // by function name
};

ChildReport run_child(const std::string& file, const fs::path& dir, int threads) {
  const std::string exe = fs::read_symlink("/proc/self/exe").string();
  for (const std::string& s : {exe, file, dir.string(), g_device})
    if (s.find('\'') != std::string::npos) throw std::runtime_error("start_bench: a path holds a single quote: " + s);
  const std::string cmd = fmt::format("'{}' --child '{}' '{}' '{}' {}", exe, file, dir.string(), g_device, threads);
  std::FILE* pipe = popen(cmd.c_str(), "r");
  if (!pipe) throw std::runtime_error("popen failed for: " + cmd);
  std::string out;
  char buf[1024];
  while (std::fgets(buf, sizeof buf, pipe)) out += buf;
  const int status = pclose(pipe);
  if (status == -1 || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
    throw std::runtime_error("the start child failed: " + cmd + " (its error is on stderr above)");
  ChildReport r;
  std::istringstream lines(out);
  for (std::string line; std::getline(lines, line);) {
    std::istringstream words(line);
    std::string fn;
    FunctionTimes t;
    for (std::string w; words >> w;) {
      const size_t eq = w.find('=');
      if (eq == std::string::npos) continue;
      const std::string key = w.substr(0, eq), value = w.substr(eq + 1);
      if (key == "fn") fn = value;
      else if (key == "file_ms") r.file_ms = std::stod(value);
      else if (key == "context_ms") r.context_ms = std::stod(value);
      else if (key == "device_ms") r.device_ms = std::stod(value);
      else t[key] = std::stod(value);
    }
    if (!fn.empty()) r.functions[fn] = t;
  }
  if (r.functions.empty()) throw std::runtime_error("no function reported by " + cmd + ": " + out);
  return r;
}

std::string example(const std::string& name) { return std::string(TGC_EXAMPLES_DIR) + "/" + name + ".tg"; }

// Cold then warm start of every function of `file`, `state.iterations()` times, each cold run
// with a fresh cache directory. Counters: per function and phase, the median over iterations
// ("train_cold_ms", "train_warm_codegen_ms", ...); the manual time is the main function's cold
// start. `goal_warm_ms` (0: none) is checked on the main function's warm start.
void start(benchmark::State& state, const std::string& file, const std::string& main_fn, double goal_warm_ms,
           double goal_cold_ms) {
  bench::guarded(state, [&] {
    const int threads = static_cast<int>(state.range(0));
    char tmpl[] = "/tmp/tgc-start-bench-XXXXXX";
    if (!mkdtemp(tmpl)) throw std::runtime_error("mkdtemp failed under /tmp");
    const fs::path root = tmpl;
    std::map<std::string, std::vector<double>> series;  // counter name -> per iteration
    std::vector<double> context, device_open;
    int rep = 0;
    for (auto _ : state) {
      const fs::path cache = root / ("cache-" + std::to_string(rep++));
      fs::create_directories(cache);
      const ChildReport cold = run_child(file, cache, threads);
      const ChildReport warm = run_child(file, cache, threads);
      for (const auto& [phase, report] : {std::pair{"cold", &cold}, std::pair{"warm", &warm}}) {
        for (const auto& [fn, times] : report->functions)
          for (const auto& [key, ms] : times) {
            const std::string what = key.substr(0, key.size() - 3);  // "start", "codegen", ...
            series[fn + "_" + phase + (what == "start" ? "" : "_" + what) + "_ms"].push_back(ms);
          }
        series[std::string("file_") + phase + "_ms"].push_back(report->file_ms);
      }
      context.push_back(cold.context_ms);
      device_open.push_back(warm.device_ms);
      state.SetIterationTime(cold.functions.at(main_fn).at("start_ms") / 1e3);
    }
    fs::remove_all(root);
    for (const auto& [name, values] : series) state.counters[name] = median(values);
    if (g_device.starts_with("cuda")) {
      state.counters["context_ms"] = median(context);
      state.counters["device_ms"] = median(device_open);
    }
    const double cold = median(series.at(main_fn + "_cold_ms")), warm = median(series.at(main_fn + "_warm_ms"));
    std::string label = fmt::format("{} on {}, compile_threads={}: cold {:.1f} ms (codegen {:.1f}), warm {:.2f} ms "
                                    "(optimize {:.2f}, load {:.2f})",
                                    main_fn, g_device, threads == 0 ? "auto" : std::to_string(threads), cold,
                                    median(series.at(main_fn + "_cold_codegen_ms")), warm,
                                    median(series.at(main_fn + "_warm_optimize_ms")),
                                    median(series.at(main_fn + "_warm_load_ms")));
    if (goal_warm_ms > 0) label += fmt::format("; warm <= {} ms: {}", goal_warm_ms, bench::verdict(warm <= goal_warm_ms));
    if (goal_cold_ms > 0) label += fmt::format("; cold <= {} ms: {}", goal_cold_ms, bench::verdict(cold <= goal_cold_ms));
    state.SetLabel(label);
  });
}

bool on_cuda() { return g_device.starts_with("cuda"); }

// Issue 25's goals: the logistic regression's warm start <= 5 ms on the CPU, <= 10 ms on CUDA,
// its cold compile <= 150 ms on CUDA; the MLP's cold compile at most half of today's (compare
// /0 with /1 of BM_StartMlp, and with docs/performance.md's earlier numbers).
void BM_StartLogreg(benchmark::State& state) {
  start(state, example("logreg"), "train", on_cuda() ? 10 : 5, on_cuda() ? 150 : 0);
}
BENCHMARK(BM_StartLogreg)->Arg(0)->Arg(1)->Iterations(5)->UseManualTime()->Unit(benchmark::kMillisecond);

void BM_StartMlp(benchmark::State& state) { start(state, example("mlp"), "train", 0, 0); }
BENCHMARK(BM_StartMlp)->Arg(0)->Arg(1)->Iterations(5)->UseManualTime()->Unit(benchmark::kMillisecond);

std::string load_average() {
  std::ifstream in("/proc/loadavg");
  std::string a, b, c;
  in >> a >> b >> c;
  return a + " " + b + " " + c;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 6 && std::string(argv[1]) == "--child") return child(argv[2], argv[3], argv[4], argv[5]);
  // --device DEV is ours; everything else is Google Benchmark's.
  std::vector<char*> rest;
  for (int i = 0; i < argc; ++i) {
    if (std::string(argv[i]) == "--device" && i + 1 < argc) g_device = argv[++i];
    else rest.push_back(argv[i]);
  }
  int n = static_cast<int>(rest.size());
  std::printf("device: %s, %u hardware threads, load average at start: %s\n", g_device.c_str(),
              std::thread::hardware_concurrency(), load_average().c_str());
  benchmark::Initialize(&n, rest.data());
  if (benchmark::ReportUnrecognizedArguments(n, rest.data())) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  std::printf("load average at end: %s\n", load_average().c_str());
  return 0;
}
