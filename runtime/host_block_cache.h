// A bounded cache of freed host memory blocks, so that steady-state calls reuse their output
// and intermediate buffers instead of paying mmap/munmap and first-touch page faults per call.
#pragma once

#include <cstddef>
#include <list>
#include <map>
#include <mutex>
#include <utility>

namespace tgc {

struct HostBlockCacheStats {
  size_t cached_bytes = 0;   // held for reuse now
  size_t cached_blocks = 0;
  size_t hits = 0;           // allocations served from the cache
  size_t misses = 0;         // cacheable allocations that had to allocate
};

// Blocks are 64-byte aligned, sized in whole 4 KiB pages when at least kMinBytes (smaller
// ones go straight to the allocator: malloc reuses those cheaply). A freed block is kept
// while the cached total stays within the limit, evicting the least recently freed blocks;
// an allocation takes a cached block of exactly its rounded size. Thread-safe.
class HostBlockCache {
 public:
  static constexpr size_t kMinBytes = size_t{64} << 10;

  explicit HostBlockCache(size_t limit_bytes) : limit_(limit_bytes) {}
  ~HostBlockCache();
  HostBlockCache(const HostBlockCache&) = delete;
  HostBlockCache& operator=(const HostBlockCache&) = delete;

  // nullptr when out of memory.
  void* allocate(size_t bytes);
  // `bytes` as given to allocate.
  void deallocate(void* ptr, size_t bytes);

  // A new limit (0 turns caching off); cached blocks beyond it are freed now.
  void set_limit(size_t limit_bytes);
  // Frees every cached block (an allocation that failed retries after this).
  void clear();
  size_t limit() const;
  HostBlockCacheStats stats() const;

  // The size a request is served with: 64-byte multiples, whole pages from kMinBytes up.
  static size_t rounded_size(size_t bytes);

 private:
  using Lru = std::list<std::pair<size_t, void*>>;  // least recently freed first
  void evict_until_fits(size_t incoming);           // holds mutex_

  mutable std::mutex mutex_;
  size_t limit_;
  Lru lru_;
  std::multimap<size_t, Lru::iterator> by_size_;
  HostBlockCacheStats stats_;
};

}  // namespace tgc
