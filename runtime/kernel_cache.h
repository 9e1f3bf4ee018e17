// KernelCache: compiled kernels (object code, cubins, OpenCL program binaries) shared by all
// backends, in memory per process and on disk under cache_dir, so a kernel is compiled once
// per machine. Entries are keyed by everything that decides the bytes (Kernel IR hash,
// backend, compiler version, target features, flags), written atomically and checksummed:
// a corrupt or truncated entry is detected, removed and rebuilt, and processes sharing the
// directory never read a partial entry.
#pragma once

#include <cstdint>
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
  size_t entries = 0;   // entries on disk
  uint64_t bytes = 0;   // their total size
  size_t memory_entries = 0;
  // Disk entries per backend, read from the key each entry stores ("llvm": 12); entries
  // whose header is not a tgc entry's count under "unreadable".
  std::map<std::string, size_t> backends;
};

class KernelCache {
 public:
  // `dir` "" keeps entries in memory only; a leading "~/" is the home directory. The
  // directory is created on the first write; one that cannot be created or written makes
  // the cache memory-only with a warning on stderr (a cache must never stop a program).
  explicit KernelCache(std::string dir);

  // The entry's bytes: from memory, else from disk (then kept in memory). nullopt when
  // absent, or when the disk entry is corrupt, truncated or holds another key (then it is
  // removed, so the caller's rebuild replaces it). With `why_missed`, a miss says why there:
  // the corrupt entry, or explain_miss's answer (which reads the directory: ask only when
  // the reason will be shown).
  std::optional<std::shared_ptr<const KernelBlob>> get(const KernelCacheKey& key,
                                                       std::string* why_missed = nullptr);
  // Stores the bytes in memory and on disk (temp file + rename: atomic on POSIX).
  void put(const KernelCacheKey& key, KernelBlob blob);

  // Why `key` has no entry, from the keys the directory's entries store: an entry of the
  // same backend and kernel that differs in compiler, target or flags names those fields
  // ("flags changed: fast_math=0 -> fast_math=1"); else "new key". Entries that are not
  // tgc entries, or whose key is malformed, are skipped (the directory is untrusted).
  std::string explain_miss(const KernelCacheKey& key) const;

  KernelCacheInfo info() const;
  // Removes every entry of this cache from memory and disk; returns how many disk entries.
  size_t clear();

  const std::string& dir() const { return dir_; }
  // The file an entry lives in (for tests that damage entries on purpose).
  std::string entry_path(const KernelCacheKey& key) const;

 private:
  std::string dir_;
  bool disk_ok_;
  mutable std::mutex mutex_;
  std::unordered_map<std::string, std::shared_ptr<const KernelBlob>> memory_;
};

// The process-wide cache for a cache_dir setting (one per distinct directory).
KernelCache& kernel_cache_for(const std::string& cache_dir);

// "~/.cache/tgc" -> "/home/u/.cache/tgc".
std::string expand_home(const std::string& path);

// KernelCacheKey::kernel for a backend that compiles source text (NVRTC, OpenCL): two FNV-1a
// passes with different offsets, 128 bits, and the length, so two sources never share an entry.
std::string source_hash(const std::string& source);
// `source` with 5-wide line numbers, for compile errors that quote it.
std::string numbered_source(const std::string& source);

}  // namespace tgc
