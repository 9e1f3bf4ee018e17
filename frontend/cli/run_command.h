// tgc run FILE [--fn NAME] [--iters N] [--input NAME=VALUE]... [--out DIR] [--print-outputs]:
// runs one function of a .tg file N times and prints (and saves) its outputs.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "frontend/cli/global_flags.h"

namespace tgc::cli {

struct RunArgs {
  std::string file;
  std::optional<std::string> fn;
  int iters = 1;
  std::vector<std::string> inputs;  // NAME=FILE.npy | NAME=EXPR
  std::optional<std::string> out_dir;
  bool print_outputs = false;
};

CLI::App* add_run_command(CLI::App& app, RunArgs& args);
int run_command(const RunArgs& args, const GlobalFlags& flags);

}  // namespace tgc::cli
