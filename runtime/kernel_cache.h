// KernelCache: compiled kernels (object code, cubins, OpenCL program binaries) shared by all
// backends, in memory per process and on disk under cache_dir, so a kernel is compiled once
// per machine. Entries are keyed by everything that decides the bytes (Kernel IR hash,
// backend, compiler version, target features, flags), written atomically and checksummed:
// a corrupt or truncated entry is detected, removed and rebuilt, and processes sharing the
// directory never read a partial entry. The directory is untrusted: see docs/config.md
// ("The kernel cache") for what the cache promises against other users and damaged entries.
#pragma once

#include <atomic>
#include <cstdint>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace tgc {

using KernelBlob = std::vector<uint8_t>;

// The parts of a cache key; text() is the full key, stored in the entry and compared on
// every read (so a hash collision of file names can never return another kernel's bytes).
struct KernelCacheKey {
  std::string backend;   // "llvm", "cuda", "opencl"
  std::string kernel;    // the Kernel IR hash (hex) plus the specialisation
  std::string compiler;  // compiler/driver version: "LLVM 16.0.6", "NVRTC 13.0"
  std::string target;    // target and its features: "x86-64 avx2,fma", "sm_90"
  std::string flags;     // options that change code: "fast_math=0 O3"
  std::string text() const;
};

struct KernelCacheInfo {
  std::string dir;      // the directory (expanded), or "" for memory only
  bool exists = false;  // the directory exists (it is created on the first write)
  std::string refused;  // why the directory is not used (writable by others...), else ""
  size_t entries = 0;   // entries on disk
  uint64_t bytes = 0;   // their total size
  uint64_t max_bytes = 0;  // the size cap (cache_max_size), 0 for none
  size_t memory_entries = 0;
  // Disk entries per backend, read from the key each entry stores ("llvm": 12); entries
  // whose header is not a tgc entry's (or that are not regular files) count under "unreadable".
  std::map<std::string, size_t> backends;
};

struct KernelCacheClear {
  size_t removed = 0;               // entries removed from disk
  std::vector<std::string> failed;  // "PATH: reason" for each name that could not be removed
};

class KernelCache {
 public:
  // The largest entry read or written (a kernel is kilobytes to a few megabytes; anything near
  // this is not a kernel, and reading it would only exhaust memory).
  static constexpr uint64_t kMaxEntryBytes = 256ull << 20;
  // The bytes of entries kept in memory, least recently used dropped first (they are read
  // from disk again, or recompiled for a memory-only cache).
  static constexpr uint64_t kMemoryBytes = 64ull << 20;
  static constexpr uint64_t kDefaultMaxBytes = 2ull << 30;

  // `dir` "" keeps entries in memory only; a leading "~/" is the home directory. The
  // directory is created on the first write; one that cannot be created or written, or that
  // other users could tamper with (check_dir in runtime/cache_files.h), makes the cache
  // memory-only with a warning on stderr (a cache must never stop a program). `max_bytes`
  // caps the directory's size (0: no cap); writes past it evict least recently used entries.
  // `memory_bytes` bounds the memory tier.
  explicit KernelCache(std::string dir, uint64_t max_bytes = kDefaultMaxBytes, uint64_t memory_bytes = kMemoryBytes);

  // The entry's bytes: from memory, else from disk (then kept in memory). nullopt when
  // absent, or when the disk entry is corrupt, truncated, holds another key, is not a
  // regular file or is over kMaxEntryBytes (then it is removed where that is safe, so the
  // caller's rebuild replaces it). With `why_missed`, a miss says why there: the refused
  // entry, or explain_miss's answer (which reads the directory: ask only when the reason will
  // be shown).
  std::optional<std::shared_ptr<const KernelBlob>> get(const KernelCacheKey& key,
                                                       std::string* why_missed = nullptr);
  // Stores the bytes in memory and on disk (a new temporary file renamed over the entry:
  // atomic on POSIX), then keeps the directory under its cap.
  void put(const KernelCacheKey& key, KernelBlob blob);

  // Why `key` has no entry, from the keys the directory's entries store: an entry of the
  // same backend and kernel that differs in compiler, target or flags names those fields
  // ("flags changed: fast_math=0 -> fast_math=1"); else "new key". Entries that are not
  // tgc entries, or whose key is malformed, are skipped (the directory is untrusted).
  std::string explain_miss(const KernelCacheKey& key) const;

  // IOError when the path exists and is not a directory.
  KernelCacheInfo info() const;
  // Removes every entry of this cache from memory and disk (and leftover temporary files).
  // IOError when the path exists and is not a directory.
  KernelCacheClear clear();

  const std::string& dir() const { return dir_; }
  uint64_t max_bytes() const { return max_bytes_; }
  // The file an entry lives in (for tests that damage entries on purpose).
  std::string entry_path(const KernelCacheKey& key) const;

 private:
  // Whether the directory may be used, checked once it exists; warns once when not. Under
  // mutex_.
  bool disk_usable(bool creating);
  void remember(const std::string& text, std::shared_ptr<const KernelBlob> blob);
  void keep_under_cap(uint64_t written, const std::string& name);

  std::string dir_;
  uint64_t max_bytes_;
  uint64_t memory_cap_;
  std::atomic<bool> disk_ok_;  // put() reads it before taking the lock
  bool dir_checked_ = false;
  bool shared_dir_ = false;   // world-writable and sticky: only our own files are trusted
  // What this process wrote since it last listed the directory (cache_eviction.h's record
  // keeps the directory's size between listings).
  uint64_t written_since_trim_ = 0;
  mutable std::mutex mutex_;
  // In-memory tier: entries by key text, and their keys from most to least recently used
  // (pointers to the map's keys, which stay put: an LLVM key holds the Kernel IR, kilobytes).
  struct Held {
    std::shared_ptr<const KernelBlob> blob;
    std::list<const std::string*>::iterator age;
  };
  std::unordered_map<std::string, Held> memory_;
  std::list<const std::string*> lru_;
  uint64_t memory_bytes_ = 0;
};

// The process-wide cache for a cache_dir setting (one per distinct directory). Its size cap is
// the global config's cache_max_size (defaults, ~/.tgcrc, TGC_FLAGS) when the process first
// uses the directory: the cap belongs to the directory, not to one function.
KernelCache& kernel_cache_for(const std::string& cache_dir);

// "~/.cache/tgc" -> "/home/u/.cache/tgc".
std::string expand_home(const std::string& path);

// KernelCacheKey::kernel for a backend that compiles source text (NVRTC, OpenCL): the
// source's XXH3-128 and its length ("xxh3-128:<32 hex>-<bytes>"), stored whole in the entry's
// key, so a different source never reads an entry (runtime/content_hash.h).
std::string source_hash(const std::string& source);
// `source` with 5-wide line numbers, for compile errors that quote it.
std::string numbered_source(const std::string& source);

}  // namespace tgc
