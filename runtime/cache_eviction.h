// Keeping a kernel-cache directory under its size cap (config key cache_max_size): least
// recently used entries go first, where "used" is an entry's modification time, which a read
// refreshes (cache_files::touch) instead of rewriting the entry.
#pragma once

#include <cstdint>
#include <string>

namespace tgc {

struct TrimResult {
  uint64_t bytes_before = 0;  // entries and temporary files counted
  uint64_t bytes_after = 0;
  size_t evicted = 0;         // entries removed
};

// Counts the entries (regular files named *.tgck) and temporary files of `dir`; when they
// exceed `limit` bytes, removes entries, oldest first, until at most `target` remain.
// Temporary files older than an hour (a killed writer's) are removed on the way. With
// `own_files_only` (a shared directory) only files this user or root owns are counted and
// removed. `keep` (the entry just written) is never evicted: file times are coarse, so it may
// look as old as entries written just before it. Safe against other processes: a name that vanishes was evicted by another, and a
// reader that has an entry open keeps reading it after the unlink.
TrimResult trim_cache_dir(const std::string& dir, uint64_t limit, uint64_t target, bool own_files_only,
                          const std::string& keep = "");

}  // namespace tgc
