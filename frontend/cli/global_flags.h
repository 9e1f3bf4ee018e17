// The flags every tgc subcommand accepts (--device, --floatX, --profile, ...) and how they
// become config keys on top of ~/.tgcrc and TGC_FLAGS.
#pragma once

#include <map>
#include <optional>
#include <string>

#include <CLI/CLI.hpp>

#include "runtime/config.h"

namespace tgc::cli {

struct GlobalFlags {
  std::optional<std::string> device;
  std::optional<std::string> floatX;
  bool profile = false;
  std::optional<std::string> profile_trace;
  bool no_gc = false;
  bool sync = false;
  std::optional<std::string> optimizer;
  std::optional<std::string> optimizer_excluding;
  bool fast_math = false;
  std::optional<std::string> assert_no_cpu_op;
  bool warn_float64 = false;
  std::optional<std::string> cache_dir;
  std::optional<std::string> log_compiles;  // "true" for the bare flag, or the value given
  // --format: "text" (for people) or "json" (one document on stdout for scripts: run,
  // devices, cache info; frontend/cli/json_output.h). Not a config key.
  std::string format = "text";
  bool json() const { return format == "json"; }
};

// Adds the flags to `app` (they may also be written after the subcommand: the app should
// fall through to its parent).
void add_global_flags(CLI::App& app, GlobalFlags& flags);

// The config keys the given flags set: only the flags that were given, so ~/.tgcrc and
// TGC_FLAGS keep every other key. --profile-trace implies profile=true (the trace comes
// from the profiler).
std::map<std::string, std::string> config_overrides(const GlobalFlags& flags);

// Checks the overrides against the config (ConfigError naming the flag's key and value)
// and applies the ones that take effect while the .tg file is read rather than when a
// function is compiled: floatX, the dtype of untyped constructors and literals. Returns the
// overrides for FunctionOptions::config.
std::map<std::string, std::string> apply_global_flags(const GlobalFlags& flags);

// The config functions get: the global one (defaults, ~/.tgcrc, TGC_FLAGS) with the flags'
// keys applied. ConfigError for a bad flag value.
Config effective_config(const GlobalFlags& flags);

}  // namespace tgc::cli
