// tgc compile FILE [--fn NAME]... [--warm-up [--input NAME=VALUE]...] -o OUT.tgf: compiles the
// functions of a .tg program and saves them, with their shared values and kernels, in one file
// that `tgc run OUT.tgf` and load_function() load without compiling (docs/save.md).
#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "frontend/cli/global_flags.h"

namespace tgc::cli {

struct CompileArgs {
  std::string file;
  std::vector<std::string> fns;  // empty: every function of the program
  std::string out;
  // Call each function once before saving (with `inputs` for its inputs), then put the shared
  // values back: a GPU function builds some kernels on its first call, and so ships them.
  bool warm_up = false;
  std::vector<std::string> inputs;  // NAME=VALUE, as tgc run's --input
};

CLI::App* add_compile_command(CLI::App& app, CompileArgs& args);
int compile_command(const CompileArgs& args, const GlobalFlags& flags);

}  // namespace tgc::cli
