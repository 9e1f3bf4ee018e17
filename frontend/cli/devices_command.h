// tgc devices: what this build and this machine can run on.
#pragma once

#include <CLI/CLI.hpp>

#include "frontend/cli/global_flags.h"

namespace tgc::cli {

CLI::App* add_devices_command(CLI::App& app);
// The cpu line follows the effective config (its cpu_vector_width).
int devices_command(const GlobalFlags& flags);

}  // namespace tgc::cli
