// tgc devices: one line per device kind of the design, saying whether it is built and
// which path runs it (for cpu: the LLVM JIT or the Kernel IR interpreter).
#include "frontend/cli/devices_command.h"

#include <fmt/core.h>

#include <tgc/devices.h>

#include "frontend/cli/errors.h"
#include "frontend/cli/json_output.h"

namespace tgc::cli {

CLI::App* add_devices_command(CLI::App& app) {
  return app.add_subcommand("devices", "List the devices tgc can run on in this build");
}

int devices_command(const GlobalFlags& flags) {
  const std::vector<std::string> lines = devices(effective_config(flags));
  if (flags.json()) print_json(devices_json(lines));
  else
    for (const std::string& line : lines) fmt::print("{}\n", line);
  return kExitOk;
}

}  // namespace tgc::cli
