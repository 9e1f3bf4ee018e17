// LRU trimming by modification time. The directory listing is the only shared state: no lock
// file, so a crashed process can never leave the cache locked, and two processes trimming at
// once at worst remove a few more entries than needed.
#include "runtime/cache_eviction.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <vector>

#include "runtime/cache_entry.h"
#include "runtime/cache_files.h"

namespace tgc {

TrimResult trim_cache_dir(const std::string& dir, uint64_t limit, uint64_t target, bool own_files_only,
                          const std::string& keep) {
  using cache_files::Listed;
  TrimResult r;
  const int64_t now_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                             std::chrono::system_clock::now().time_since_epoch())
                             .count();
  constexpr int64_t kStaleTemp = int64_t(3600) * 1000000000;
  std::vector<Listed> entries;
  for (Listed& l : cache_files::list_dir(dir)) {
    if (!l.regular || (own_files_only && l.owner != ::geteuid() && l.owner != 0)) continue;
    if (cache_files::is_temp_name(l.name, cache_entry::kSuffix) || cache_files::is_temp_name(l.name, ".tgcs")) {
      if (now_ns - l.mtime_ns > kStaleTemp && ::unlink((dir + "/" + l.name).c_str()) == 0) continue;
      r.bytes_before += l.size;  // a write in progress: counted, not touched
    } else if (l.name.ends_with(cache_entry::kSuffix)) {
      r.bytes_before += l.size;
      if (l.name != keep) entries.push_back(std::move(l));
    }
  }
  r.bytes_after = r.bytes_before;
  if (r.bytes_before <= limit) return r;
  std::sort(entries.begin(), entries.end(), [](const Listed& a, const Listed& b) {
    return a.mtime_ns != b.mtime_ns ? a.mtime_ns < b.mtime_ns : a.name < b.name;
  });
  for (const Listed& e : entries) {
    if (r.bytes_after <= target) break;
    // Gone already (ENOENT) means another process evicted it: the bytes are gone either way.
    if (::unlink((dir + "/" + e.name).c_str()) == 0 || errno == ENOENT) {
      r.bytes_after -= e.size;
      ++r.evicted;
    }
  }
  return r;
}

std::optional<uint64_t> read_size_record(const std::string& dir, bool own_files_only) {
  const cache_files::Opened f = cache_files::open_regular(dir + "/" + kSizeRecord, own_files_only);
  char text[24] = {};
  if (!f.fd || f.size == 0 || f.size >= sizeof text || !cache_files::read_at(f.fd.get(), 0, text, f.size))
    return std::nullopt;
  uint64_t bytes = 0;
  for (size_t i = 0; i < f.size; ++i) {
    if (text[i] < '0' || text[i] > '9' || bytes > (UINT64_MAX - 9) / 10) return std::nullopt;
    bytes = bytes * 10 + static_cast<uint64_t>(text[i] - '0');
  }
  return bytes;
}

void write_size_record(const std::string& dir, uint64_t bytes) {
  const std::string text = std::to_string(bytes);
  // A record that cannot be written only means the next process lists the directory.
  (void)cache_files::write_atomically(dir, kSizeRecord, std::vector<uint8_t>(text.begin(), text.end()));
}

}  // namespace tgc
