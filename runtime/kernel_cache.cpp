// KernelCache: the memory tier, reading and writing entries through cache_files (which never
// follows a link nor opens anything but a regular file), the directory's safety verdict and
// its size cap. The entry format is runtime/cache_entry.*, the miss explanations
// kernel_cache_explain.cpp.
#include "runtime/kernel_cache.h"
#include "runtime/kernel_uses.h"

#include <pwd.h>
#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <cstdlib>
#include <sstream>

#include "runtime/cache_entry.h"
#include "runtime/cache_eviction.h"
#include "runtime/cache_files.h"
#include "runtime/config.h"
#include "runtime/content_hash.h"
#include "runtime/error.h"
#include "runtime/log.h"

namespace tgc {

namespace {

// IOError when `dir` exists and is not a directory (info and clear on such a path).
void require_directory_or_absent(const std::string& dir) {
  const cache_files::DirVerdict v = cache_files::check_dir(dir);
  if (!v.not_directory) return;
  // v.why reads "it is a regular file, not a directory".
  throw IOError(fmt::format("the kernel cache path {} {}", dir, v.why.substr(v.why.find(' ') + 1)), "cache_dir",
                "set cache_dir (or --cache-dir) to a directory; tgc creates it on the first compile");
}

}  // namespace

std::string KernelCacheKey::text() const {
  return fmt::format("backend={}\nkernel={}\ncompiler={}\ntarget={}\nflags={}\n", backend, kernel,
                     compiler, target, flags);
}

std::string expand_home(const std::string& path) {
  if (path == "~" || path.starts_with("~/")) {
    const char* home = std::getenv("HOME");
    if (home && *home) return std::string(home) + path.substr(1);
    // HOME unset (a service, a cron job): the password database's home. Never the literal
    // "~", which would create a directory named "~" in the current folder.
    std::vector<char> buffer(16384);
    struct passwd entry {};
    struct passwd* found = nullptr;
    if (getpwuid_r(getuid(), &entry, buffer.data(), buffer.size(), &found) == 0 && found && found->pw_dir &&
        *found->pw_dir)
      return std::string(found->pw_dir) + path.substr(1);
    return "";
  }
  return path;
}

KernelCache::KernelCache(std::string dir, uint64_t max_bytes, uint64_t memory_bytes)
    : dir_(expand_home(dir)), max_bytes_(max_bytes), memory_cap_(memory_bytes), disk_ok_(!dir_.empty()) {
  if (dir_.empty() && !dir.empty())
    log_message(LogKind::Warning, "no home directory for the kernel cache '" + dir +
                                      "' (HOME is unset and the password database has none): kernels are kept in "
                                      "memory only; set cache_dir to a directory");
}

std::string KernelCache::entry_path(const KernelCacheKey& key) const {
  return dir_ + "/" + cache_entry::file_name(key.text());
}

bool KernelCache::disk_usable(bool creating) {
  if (!disk_ok_) return false;
  // A directory removed since it was checked (rm -r by hand, a test's cleanup) is made and
  // checked again before a write: one stat per write, which costs far less than the compile.
  if (dir_checked_ && (!creating || ::access(dir_.c_str(), F_OK) == 0)) return true;
  dir_checked_ = false;
  if (creating) {
    if (std::string why = cache_files::make_dirs(dir_); !why.empty()) {
      log_message(LogKind::Warning, "cannot create the kernel cache directory (" + why +
                                        "); kernels are cached in memory only (set cache_dir to a writable directory)");
      disk_ok_ = false;
      return false;
    }
  }
  const cache_files::DirVerdict v = cache_files::check_dir(dir_);
  if (!v.usable) {
    if (v.why.empty()) return false;  // absent, and not creating: a miss, checked again later
    log_message(LogKind::Warning, "the kernel cache directory " + dir_ + " is not used: " + v.why +
                                      "; kernels are cached in memory only (set cache_dir to a directory only you "
                                      "can write, or make this one sticky: chmod +t)");
    disk_ok_ = false;
    return false;
  }
  dir_checked_ = true;
  shared_dir_ = v.shared;
  return true;
}

void KernelCache::remember(const std::string& text, std::shared_ptr<const KernelBlob> blob) {
  memory_bytes_ += blob->size();
  auto [it, added] = memory_.try_emplace(text);
  if (added) {
    lru_.push_front(&it->first);
  } else {
    memory_bytes_ -= it->second.blob->size();
    lru_.splice(lru_.begin(), lru_, it->second.age);
  }
  it->second = {std::move(blob), lru_.begin()};
  // The newest always stays, even when alone over the budget: its caller is about to use it.
  while (memory_bytes_ > memory_cap_ && lru_.size() > 1) {
    auto oldest = memory_.find(*lru_.back());
    memory_bytes_ -= oldest->second.blob->size();
    lru_.pop_back();
    memory_.erase(oldest);
  }
}

std::optional<std::shared_ptr<const KernelBlob>> KernelCache::get(const KernelCacheKey& key,
                                                                  std::string* why_missed) {
  std::string text = key.text();
  std::unique_lock lock(mutex_);
  if (auto it = memory_.find(text); it != memory_.end()) {
    lru_.splice(lru_.begin(), lru_, it->second.age);
    note_kernel_use(*this, key);
    return it->second.blob;
  }
  if (!disk_usable(/*creating=*/false)) {
    if (why_missed)
      *why_missed = dir_.empty() ? "new key: the cache keeps kernels in memory only (cache_dir is empty)"
                    : disk_ok_   ? "new key: no entry for this kernel in " + dir_ + " (the directory does not exist yet)"
                                 : "new key: the cache directory is not usable, kernels are kept in memory only";
    return std::nullopt;
  }
  const std::string path = entry_path(key);
  cache_files::Opened file = cache_files::open_regular(path, shared_dir_);
  using Status = cache_files::Opened::Status;
  const uint64_t cap = max_bytes_ ? std::min(max_bytes_, kMaxEntryBytes) : kMaxEntryBytes;
  if (file.status == Status::Ok && file.size > cap) {
    file.status = Status::Refused;
    file.why = fmt::format("{} bytes, over the {}-byte limit of an entry", file.size, cap);
  }
  if (file.status == Status::Absent) {
    lock.unlock();  // the explanation reads the directory; other kernels need not wait
    if (why_missed) *why_missed = explain_miss(key);
    return std::nullopt;
  }
  if (file.status == Status::Error) {
    if (why_missed) *why_missed = fmt::format("cannot read the entry {}: {}; rebuilt", path, file.why);
    return std::nullopt;
  }
  if (file.status == Status::Refused) {
    if (why_missed) *why_missed = fmt::format("the entry {} is {}; ignored, rebuilt", path, file.why);
    // A FIFO, device, link or oversized file in place of an entry is removed (unlink removes
    // the name only, never what a link points to) so the rebuild's rename can take its place;
    // a directory stays (unlink fails; the rename then fails and the kernel is kept in
    // memory); another user's file in a shared directory is theirs.
    if (!file.foreign) ::unlink(path.c_str());
    return std::nullopt;
  }
  KernelBlob bytes(static_cast<size_t>(file.size));
  std::string why;
  std::optional<KernelBlob> payload;
  if (!cache_files::read_at(file.fd.get(), 0, bytes.data(), bytes.size()))
    why = "corrupted entry (shorter than its size, or unreadable), removed";
  else
    payload = cache_entry::decode(bytes, text, why);
  if (!payload) {
    if (why_missed) *why_missed = why;
    ::unlink(path.c_str());  // corrupt, truncated or another key's: the rebuild replaces it
    return std::nullopt;
  }
  cache_files::touch(file.fd.get());  // the eviction clock: used now
  auto shared = std::make_shared<const KernelBlob>(std::move(*payload));
  remember(text, shared);
  note_kernel_use(*this, key);
  return shared;
}

void KernelCache::put(const KernelCacheKey& key, KernelBlob blob) {
  note_kernel_use(*this, key);
  std::string text = key.text();
  KernelBlob file = disk_ok_ ? cache_entry::encode(text, blob) : KernelBlob();
  std::lock_guard lock(mutex_);
  remember(text, std::make_shared<const KernelBlob>(std::move(blob)));
  // An entry no read would accept, or that the cap would evict at once, stays in memory.
  const uint64_t cap = max_bytes_ ? std::min(max_bytes_, kMaxEntryBytes) : kMaxEntryBytes;
  if (file.size() > cap || !disk_usable(/*creating=*/true)) return;
  const std::string name = cache_entry::file_name(text);
  if (const cache_files::Written w = cache_files::write_atomically(dir_, name, file); !w.ok) {
    // A directory (or another user's entry in a shared directory) in the entry's place makes
    // only this entry fail; the directory itself is writable.
    if (w.name_blocked) return;
    log_message(LogKind::Warning, "cannot write the kernel cache in " + dir_ + " (" + w.why +
                                      "); kernels are cached in memory only (set cache_dir to a writable directory)");
    disk_ok_ = false;
    return;
  }
  keep_under_cap(file.size(), name);
}

void KernelCache::keep_under_cap(uint64_t written, const std::string& name) {
  if (max_bytes_ == 0) return;
  written_since_trim_ += written;
  // The directory is listed only when the recorded size passes the cap, when there is no
  // record, and after every 1/16 of the cap this process wrote (so additions other processes
  // lost in a race are counted again): never on every write.
  const std::optional<uint64_t> recorded = read_size_record(dir_, shared_dir_);
  if (recorded && *recorded + written <= max_bytes_ && written_since_trim_ < max_bytes_ / 16) {
    write_size_record(dir_, *recorded + written);
    return;
  }
  // Down to 90%, so the next few writes do not each trim again.
  const TrimResult r = trim_cache_dir(dir_, max_bytes_, max_bytes_ - max_bytes_ / 10, shared_dir_, name);
  write_size_record(dir_, r.bytes_after);
  written_since_trim_ = 0;
}

KernelCacheInfo KernelCache::info() const {
  KernelCacheInfo info;
  info.dir = dir_;
  info.max_bytes = max_bytes_;
  {
    std::lock_guard lock(mutex_);
    info.memory_entries = memory_.size();
  }
  if (dir_.empty()) return info;
  require_directory_or_absent(dir_);
  const cache_files::DirVerdict v = cache_files::check_dir(dir_);
  info.exists = v.usable || !v.why.empty();
  info.refused = v.why;
  for (const cache_files::Listed& l : cache_files::list_dir(dir_)) {
    if (!l.name.ends_with(cache_entry::kSuffix)) continue;
    ++info.entries;
    if (l.regular) info.bytes += l.size;
    cache_files::Opened f = l.regular ? cache_files::open_regular(dir_ + "/" + l.name, v.shared)
                                      : cache_files::Opened{};
    ++info.backends[f.fd ? cache_entry::stored_backend(f.fd.get(), f.size) : "unreadable"];
  }
  return info;
}

KernelCacheClear KernelCache::clear() {
  KernelCacheClear result;
  {
    std::lock_guard lock(mutex_);
    memory_.clear();
    lru_.clear();
    memory_bytes_ = 0;
    written_since_trim_ = 0;
  }
  if (dir_.empty()) return result;
  require_directory_or_absent(dir_);
  for (const cache_files::Listed& l : cache_files::list_dir(dir_)) {
    // Temporary files and the size record are the cache's too, but not entries to count.
    const bool bookkeeping = cache_files::is_temp_name(l.name, cache_entry::kSuffix) ||
                             cache_files::is_temp_name(l.name, ".tgcs") || l.name == kSizeRecord;
    if (!bookkeeping && !l.name.ends_with(cache_entry::kSuffix)) continue;  // not ours: left alone
    const std::string path = dir_ + "/" + l.name;
    // unlink, never a recursive removal: a directory in an entry's place is reported, not
    // emptied.
    if (::unlink(path.c_str()) == 0) {
      if (!bookkeeping) ++result.removed;
    } else if (errno != ENOENT) {
      result.failed.push_back(fmt::format("{}: {}", path, std::strerror(errno)));
    }
  }
  return result;
}

KernelCache& kernel_cache_for(const std::string& cache_dir) {
  static std::mutex mutex;
  static std::unordered_map<std::string, std::unique_ptr<KernelCache>> caches;
  std::lock_guard lock(mutex);
  std::string dir = expand_home(cache_dir);
  auto& slot = caches[dir];
  if (!slot) slot = std::make_unique<KernelCache>(dir, global_config().cache_max_size);
  return *slot;
}

std::string source_hash(const std::string& source) {
  return fmt::format("xxh3-128:{}-{}", hash128_hex(source), source.size());
}

std::string numbered_source(const std::string& source) {
  std::istringstream in(source);
  std::string line, out;
  for (int n = 1; std::getline(in, line); ++n) out += fmt::format("{:5} {}\n", n, line);
  return out;
}

}  // namespace tgc
