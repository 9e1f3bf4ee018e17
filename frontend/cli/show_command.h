// tgc show FILE [--fn NAME] [--stage raw|optimized] [--format text|dot] [--trace-rewrites]:
// prints a function's graph before or after the optimizer.
#pragma once

#include <optional>
#include <string>

#include <CLI/CLI.hpp>

#include "frontend/cli/global_flags.h"

namespace tgc::cli {

struct ShowArgs {
  std::string file;
  std::optional<std::string> fn;
  std::string stage = "optimized";
  std::string format = "text";
  bool trace_rewrites = false;
};

CLI::App* add_show_command(CLI::App& app, ShowArgs& args);
int show_command(const ShowArgs& args, const GlobalFlags& flags);

}  // namespace tgc::cli
