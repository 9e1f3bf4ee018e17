// tgc devices: what this build and this machine can run on.
#pragma once

#include <CLI/CLI.hpp>

namespace tgc::cli {

CLI::App* add_devices_command(CLI::App& app);
int devices_command();

}  // namespace tgc::cli
