// tgc emit FILE --target kir|cpu|cuda|opencl [--fn NAME]: prints the code generated for a
// function's fused kernels: the Kernel IR (kir) every backend renders, or a backend's code
// (cpu: LLVM IR, when tgc is built with LLVM; cuda and opencl arrive with their backends).
#pragma once

#include <optional>
#include <string>

#include <CLI/CLI.hpp>

#include "frontend/cli/global_flags.h"

namespace tgc::cli {

struct EmitArgs {
  std::string file;
  std::string target;
  std::optional<std::string> fn;
};

CLI::App* add_emit_command(CLI::App& app, EmitArgs& args);
int emit_command(const EmitArgs& args, const GlobalFlags& flags);

}  // namespace tgc::cli
