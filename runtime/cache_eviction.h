// Keeping a kernel-cache directory under its size cap (config key cache_max_size): least
// recently used entries go first, where "used" is an entry's modification time, which a read
// refreshes (cache_files::touch) instead of rewriting the entry.
#pragma once

#include <cstdint>
#include <optional>
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

// The directory's size as writers last recorded it, in the file kSizeRecord (decimal bytes),
// so that a process learns it without listing the directory (3 us an entry: 60 ms at 20,000
// entries). Every write adds its bytes to the record and every trim sets it to the counted
// total; two processes adding at once may lose one's addition, which the next trim corrects.
inline constexpr const char* kSizeRecord = "cache-size.tgcs";
// nullopt when there is no record, or it is not a regular file holding a number (it is
// untrusted input like every file there; the caller then lists the directory).
std::optional<uint64_t> read_size_record(const std::string& dir, bool own_files_only);
void write_size_record(const std::string& dir, uint64_t bytes);

}  // namespace tgc
