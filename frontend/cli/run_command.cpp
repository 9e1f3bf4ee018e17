// tgc run: load, pick the function, build its arguments, call it --iters times, print the
// tutorial's timing line and the outputs, save them with --out. Ctrl-C during the calls stops
// the loop after the call in progress: what was measured is printed (the timing of the calls
// made, the last outputs, the profiles) and tgc exits with 130; a second Ctrl-C kills it.
#include "frontend/cli/run_command.h"

#include <fmt/core.h>

#include <chrono>
#include <climits>
#include <csignal>
#include <filesystem>

#include "frontend/cli/errors.h"
#include "frontend/cli/json_output.h"
#include "frontend/cli/output_format.h"
#include "frontend/cli/program.h"
#include "frontend/cli/progress.h"
#include "frontend/cli/run_inputs.h"
#include "runtime/error.h"
#include "runtime/interrupt.h"
#include "runtime/npy.h"

namespace tgc::cli {

CLI::App* add_run_command(CLI::App& app, RunArgs& args) {
  CLI::App* run = app.add_subcommand("run", "Run a function of a .tg file and print its outputs");
  run->add_option("FILE", args.file, "the .tg program (- reads it from standard input)")->required()->type_name("");
  run->add_option("--fn", args.fn, "the function to run (default: the file's only or last one)")
      ->type_name("NAME");
  run->add_option("--iters", args.iters, "how many times to call it (default 1)")
      ->check(CLI::Range(1, INT_MAX).description(""))
      ->type_name("N");
  // One value per --input, so `--input x=a.npy FILE` leaves FILE alone.
  run->add_option("--input", args.inputs,
                  "NAME=FILE.npy or NAME=EXPR (a value expression: randn(400, 784, seed=1), "
                  "zeros(3), 2.5); once per input")
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)
      ->allow_extra_args(false)
      ->type_name("NAME=VALUE");
  run->add_option("--out", args.out_dir, "save output i as DIR/<fn>_<i>.npy")->type_name("DIR");
  run->add_flag("--print-outputs", args.print_outputs,
                "with --iters N, print the outputs of every call, not only of the last");
  return run;
}

namespace {

// Writes each output to DIR/<fn>_<i>.npy; returns the paths.
std::vector<std::string> save_outputs(const std::string& dir, const std::string& fn,
                                      const std::vector<Tensor>& results) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec)
    throw IOError(fmt::format("cannot create the output directory '{}': {}", dir, ec.message()),
                  "--out", "give a directory that can be written");
  std::vector<std::string> paths;
  for (size_t i = 0; i < results.size(); ++i) {
    paths.push_back(output_path(dir, fn, i));
    write_npy(paths.back(), results[i]);
  }
  return paths;
}

// The profiler writes the Chrome trace when the function is destroyed, after the run; a
// path it cannot write is better reported before the run than after it.
void check_trace_path(const std::string& path) {
  if (path.empty()) return;
  std::filesystem::path parent = std::filesystem::absolute(path).parent_path();
  std::error_code ec;
  if (!std::filesystem::is_directory(parent, ec) || std::filesystem::is_directory(path, ec))
    throw IOError(fmt::format("cannot write the profile trace '{}': {}", path,
                              std::filesystem::is_directory(path, ec) ? "it is a directory"
                                                                      : "its directory does not exist"),
                  "", "give --profile-trace (or profile_trace=) a file in an existing directory");
}

volatile std::sig_atomic_t g_interrupted = 0;

extern "C" void on_interrupt(int) {
  g_interrupted = 1;
  request_interrupt();  // the compile or call in progress stops at its next safe point
}

// While it lives, SIGINT stops the compile or call in progress (InterruptedError) and the
// loop of calls (once: SA_RESETHAND makes a second Ctrl-C kill as usual); a SIGINT the shell
// made ignored (a background job) stays ignored.
class CtrlC {
 public:
  CtrlC() {
    g_interrupted = 0;
    struct sigaction now{};
    sigaction(SIGINT, nullptr, &previous_);
    if (previous_.sa_handler == SIG_IGN) return;
    now.sa_handler = on_interrupt;
    sigemptyset(&now.sa_mask);
    now.sa_flags = SA_RESETHAND;
    installed_ = sigaction(SIGINT, &now, nullptr) == 0;
  }
  ~CtrlC() {
    if (installed_) sigaction(SIGINT, &previous_, nullptr);
  }
  CtrlC(const CtrlC&) = delete;
  CtrlC& operator=(const CtrlC&) = delete;
  static bool pressed() { return g_interrupted != 0; }

 private:
  struct sigaction previous_{};
  bool installed_ = false;
};

}  // namespace

int run_command(const RunArgs& args, const GlobalFlags& flags) {
  if (Config config = effective_config(flags); config.profile) check_trace_path(config.profile_trace);
  // A Ctrl-C while compiling ends the command (InterruptedError: exit 130); in the loop, it
  // stops the call in progress and what the finished calls measured is printed.
  CtrlC ctrl_c;
  lang::TgProgram program = [&] {
    CompileProgress progress(args.file == "-" ? "the program on standard input" : args.file);  // on a terminal
    return load_program(args.file, flags, LoadFor::Running);
  }();
  lang::TgFunction& fn = select_function(program, args.fn);
  std::vector<Tensor> arguments = build_arguments(fn, args.inputs);

  // Only the calls are timed, not the printing between them.
  std::vector<Tensor> results;
  double seconds = 0;
  const bool print_each = args.print_outputs && args.iters > 1 && !flags.json();
  CallsProgress progress(args.iters);  // on a terminal, once the loop takes a while
  int calls = 0;
  while (calls < args.iters && !CtrlC::pressed()) {
    auto t0 = std::chrono::steady_clock::now();
    try {
      results = fn.function(arguments);
    } catch (const InterruptedError&) {
      break;  // the call stopped before changing anything: the finished ones are reported
    }
    ++calls;
    // Results left on a device are complete only once their stream got there: the timing
    // includes that wait (the last call's), else it would time enqueueing alone.
    if (calls == args.iters || CtrlC::pressed())
      for (const Tensor& r : results) r.sync();
    seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (print_each) fmt::print("Call {}:\n{}", calls, format_outputs(fn.outputs, results));
    progress.done(calls);
  }
  progress.finish();
  const bool interrupted = calls < args.iters;
  if (interrupted)
    fmt::print(stderr, "tgc: interrupted (Ctrl-C) after {} of {} calls; what they measured follows\n", calls,
               args.iters);
  if (calls == 0) return kExitInterrupted;  // nothing ran (Ctrl-C before the first call)
  // Whether the calls were replayed as CUDA graphs, and if not why (docs/gpu.md#cuda-graphs).
  const std::string graphs = calls > 1 ? fn.function.cuda_graph_status() : "";
  if (flags.json()) {
    const std::vector<std::string> saved = args.out_dir ? save_outputs(*args.out_dir, fn.name, results)
                                                        : std::vector<std::string>{};
    print_json(run_json(fn.name, calls, seconds, graphs, fn.outputs, results, saved));
    finish_stdout();
    return interrupted ? kExitInterrupted : kExitOk;
  }
  fmt::print("{}\n", timing_line(fn.name, calls, seconds));
  if (!graphs.empty()) fmt::print("CUDA graphs: {}\n", graphs);
  if (!print_each) fmt::print("{}", format_outputs(fn.outputs, results));
  if (args.out_dir) {
    const std::vector<std::string> saved = save_outputs(*args.out_dir, fn.name, results);
    for (size_t i = 0; i < saved.size(); ++i) fmt::print("Saved out{} to {}\n", i, saved[i]);
  }
  finish_stdout();
  // The program's functions print their profiles (--profile) to stderr as they are
  // destroyed, when this returns.
  return interrupted ? kExitInterrupted : kExitOk;
}

}  // namespace tgc::cli
