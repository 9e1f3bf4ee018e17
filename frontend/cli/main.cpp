// The tgc command line: global flags, the subcommands run, show, emit, compile, devices, cache and launch, and the
// exit codes (0 ok, 2 user error, 1 tgc bug). Each subcommand lives in its own file.
#include <CLI/CLI.hpp>
#include <fmt/core.h>

#include <string>
#include <string_view>
#include <vector>

#include <tgc/tgc.h>

#include "frontend/cli/cache_command.h"
#include "frontend/cli/compile_command.h"
#include "frontend/cli/devices_command.h"
#include "frontend/cli/emit_command.h"
#include "frontend/cli/errors.h"
#include "frontend/cli/global_flags.h"
#include "frontend/cli/launch_command.h"
#include "frontend/cli/run_command.h"
#include "frontend/cli/show_command.h"
#include "runtime/comm/mpi_library.h"

int main(int argc, char** argv) {
  using namespace tgc::cli;
  CLI::App app{"tgc: a symbolic tensor-graph compiler (Theano's vocabulary, compiled).\n"
               "Runs .tg programs: tgc run examples/check1.tg (docs/cli.md)"};
  app.set_version_flag("--version", std::string("tgc ") + tgc::version());
  app.require_subcommand(0, 1);
  // Global flags may also follow the subcommand: tgc run f.tg --profile.
  app.fallthrough();

  GlobalFlags flags;
  add_global_flags(app, flags);
  RunArgs run_args;
  ShowArgs show_args;
  EmitArgs emit_args;
  CacheArgs cache_args;
  LaunchArgs launch_args;
  CompileArgs compile_args;
  CLI::App* run = add_run_command(app, run_args);
  CLI::App* show = add_show_command(app, show_args);
  CLI::App* emit = add_emit_command(app, emit_args);
  CLI::App* devices = add_devices_command(app);
  CLI::App* cache = add_cache_command(app, cache_args);
  CLI::App* launch = add_launch_command(app, launch_args);
  CLI::App* compile = add_compile_command(app, compile_args);

  // tgc launch's PROGRAM ARGS... are not parsed as tgc's.
  std::vector<std::string> words(argv, argv + argc);
  const std::vector<std::string> launched = split_launch_command(words);
  std::vector<char*> head;
  for (std::string& w : words) head.push_back(w.data());
  try {
    app.parse(int(head.size()), head.data());
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help, --version
    std::string hint = "'tgc --help' lists the arguments";
    for (const CLI::App* sub : app.get_subcommands())
      hint = "'tgc " + sub->get_name() + " --help' lists the arguments";
    if (app.get_subcommands().empty() && argc > 1 && std::string_view(argv[1]).ends_with(".tg"))
      hint = fmt::format("to run the program: tgc run {}", argv[1]);
    fmt::print(stderr, "tgc: error: {}\n  hint: {}\n", e.what(), hint);
    return kExitUserError;
  }

  try {
    int code = kExitOk;
    if (run->parsed())
      code = run_command(run_args, flags);
    else if (show->parsed())
      code = show_command(show_args, flags);
    else if (emit->parsed())
      code = emit_command(emit_args, flags);
    else if (devices->parsed())
      code = devices_command(flags);
    else if (cache->parsed())
      code = cache_command(cache_args, flags);
    else if (launch->parsed())
      code = launch_command(launch_args, launched);
    else if (compile->parsed())
      code = compile_command(compile_args, flags);
    else
      fmt::print("{}", app.help());
    finish_stdout();
    if (code != kExitOk) tgc::mpi_skip_finalize();
    return code;
  } catch (...) {
    // Under mpirun, a failing rank ends the job now instead of waiting in MPI_Finalize for
    // ranks that wait in a collective for it.
    tgc::mpi_skip_finalize();
    return report_current_exception();
  }
}
