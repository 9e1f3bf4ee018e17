// tgc cache info | clear: what the on-disk kernel cache (config key cache_dir) holds, and
// emptying it.
#pragma once

#include <cstdint>
#include <string>

#include <CLI/CLI.hpp>

#include "frontend/cli/global_flags.h"

namespace tgc::cli {

struct CacheArgs {
  std::string action;  // "info" | "clear"
};

CLI::App* add_cache_command(CLI::App& app, CacheArgs& args);
int cache_command(const CacheArgs& args, const GlobalFlags& flags);

// "1.5 MiB": binary units, one decimal above bytes (for tgc cache info).
std::string human_bytes(uint64_t bytes);

}  // namespace tgc::cli
