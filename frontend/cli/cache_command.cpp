// tgc cache: info prints the cache directory, its entry count, their size, the size cap and the
// entries per backend; clear removes the entries and fails (exit 1) naming each one it could
// not remove. The directory is the config's cache_dir (defaults, ~/.tgcrc, TGC_FLAGS, then
// --cache-dir), the same one run/show/emit compile into; a path that is not a directory is a
// user error (KernelCache throws IOError).
#include "frontend/cli/cache_command.h"

#include <fmt/core.h>

#include <cstdio>

#include "frontend/cli/errors.h"
#include "frontend/cli/json_output.h"
#include "runtime/kernel_cache.h"

namespace tgc::cli {

namespace {
// Not a user error (2): the command was right, the file system did not let it finish.
constexpr int kExitIncomplete = 1;
}  // namespace

std::string human_bytes(uint64_t bytes) {
  static const char* const units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  if (bytes < 1024) return fmt::format("{} B", bytes);
  double value = static_cast<double>(bytes);
  size_t unit = 0;
  while (value >= 1024 && unit + 1 < std::size(units)) {
    value /= 1024;
    ++unit;
  }
  return fmt::format("{:.1f} {}", value, units[unit]);
}

CLI::App* add_cache_command(CLI::App& app, CacheArgs& args) {
  CLI::App* cmd = app.add_subcommand("cache", "Show or clear the on-disk kernel cache (cache_dir)");
  cmd->add_option("action", args.action, "info: the directory, entry count and size; clear: remove the entries")
      ->required()
      ->check(CLI::IsMember({"info", "clear"}))
      ->type_name("info|clear");
  return cmd;
}

int cache_command(const CacheArgs& args, const GlobalFlags& flags) {
  const Config config = effective_config(flags);  // ConfigError for a bad --cache-dir
  KernelCache& cache = kernel_cache_for(config.cache_dir);
  if (args.action == "clear") {
    const KernelCacheClear cleared = cache.clear();
    if (flags.json()) {
      print_json({{"directory", cache.dir()}, {"removed", cleared.removed}, {"failed", cleared.failed}});
      return cleared.failed.empty() ? kExitOk : kExitIncomplete;
    }
    fmt::print("removed {} {} from {}\n", cleared.removed, cleared.removed == 1 ? "entry" : "entries", cache.dir());
    if (cleared.failed.empty()) return kExitOk;
    // Said on stderr, after what was done: a cache that is not empty must not look empty.
    finish_stdout();
    fmt::print(stderr, "tgc: error: could not remove {} {} of the kernel cache:\n", cleared.failed.size(),
               cleared.failed.size() == 1 ? "name" : "names");
    for (const std::string& f : cleared.failed) fmt::print(stderr, "  {}\n", f);
    fmt::print(stderr, "  hint: remove them by hand (a directory in an entry's place is never removed "
                       "recursively), or check the directory's permissions\n");
    return kExitIncomplete;
  }
  const KernelCacheInfo info = cache.info();
  if (flags.json()) {
    print_json(cache_info_json(info));
    return kExitOk;
  }
  fmt::print("cache directory: {}{}\n", info.dir, info.exists ? "" : " (not created yet)");
  if (!info.refused.empty()) fmt::print("not used: {}\n", info.refused);
  fmt::print("entries: {}\n", info.entries);
  fmt::print("size: {} ({} bytes)\n", human_bytes(info.bytes), info.bytes);
  if (info.max_bytes == 0) fmt::print("size cap: none (cache_max_size=0)\n");
  else fmt::print("size cap: {} (cache_max_size)\n", human_bytes(info.max_bytes));
  for (const auto& [backend, count] : info.backends) fmt::print("  {}: {}\n", backend, count);
  return kExitOk;
}

}  // namespace tgc::cli
