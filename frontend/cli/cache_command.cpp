// tgc cache: info prints the cache directory, its entry count, their size and the entries per
// backend; clear removes the entries. The directory is the config's cache_dir (defaults,
// ~/.tgcrc, TGC_FLAGS, then --cache-dir), the same one run/show/emit compile into.
#include "frontend/cli/cache_command.h"

#include <fmt/core.h>

#include "frontend/cli/errors.h"
#include "runtime/kernel_cache.h"

namespace tgc::cli {

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
    const size_t removed = cache.clear();
    fmt::print("removed {} {} from {}\n", removed, removed == 1 ? "entry" : "entries", cache.dir());
    return kExitOk;
  }
  const KernelCacheInfo info = cache.info();
  fmt::print("cache directory: {}\n", info.dir);
  fmt::print("entries: {}\n", info.entries);
  fmt::print("size: {} ({} bytes)\n", human_bytes(info.bytes), info.bytes);
  for (const auto& [backend, count] : info.backends) fmt::print("  {}: {}\n", backend, count);
  return kExitOk;
}

}  // namespace tgc::cli
