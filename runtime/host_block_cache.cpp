// HostBlockCache: an LRU list of freed blocks plus an index by size (see host_block_cache.h).
#include "runtime/host_block_cache.h"

#include <cstdlib>

namespace tgc {

namespace {

void* raw_allocate(size_t rounded) { return std::aligned_alloc(64, rounded); }

}  // namespace

HostBlockCache::~HostBlockCache() {
  for (auto& [size, ptr] : lru_) std::free(ptr);
}

size_t HostBlockCache::rounded_size(size_t bytes) {
  // aligned_alloc wants a multiple of the alignment; large blocks take whole pages so that
  // requests of nearly the same size share a size class.
  size_t rounded = bytes == 0 ? 64 : (bytes + 63) / 64 * 64;
  if (rounded >= kMinBytes) rounded = (rounded + 4095) / 4096 * 4096;
  return rounded;
}

void* HostBlockCache::allocate(size_t bytes) {
  const size_t rounded = rounded_size(bytes);
  if (rounded < kMinBytes) return raw_allocate(rounded);
  {
    std::lock_guard lock(mutex_);
    if (auto it = by_size_.find(rounded); it != by_size_.end()) {
      void* ptr = it->second->second;
      lru_.erase(it->second);
      by_size_.erase(it);
      stats_.cached_bytes -= rounded;
      --stats_.cached_blocks;
      ++stats_.hits;
      return ptr;
    }
    ++stats_.misses;
  }
  return raw_allocate(rounded);
}

void HostBlockCache::evict_until_fits(size_t incoming) {
  while (!lru_.empty() && stats_.cached_bytes + incoming > limit_) {
    auto [size, ptr] = lru_.front();
    // The index entry of the oldest block of this size points at the list's front.
    auto range = by_size_.equal_range(size);
    for (auto it = range.first; it != range.second; ++it)
      if (it->second == lru_.begin()) {
        by_size_.erase(it);
        break;
      }
    lru_.pop_front();
    stats_.cached_bytes -= size;
    --stats_.cached_blocks;
    std::free(ptr);
  }
}

void HostBlockCache::deallocate(void* ptr, size_t bytes) {
  if (!ptr) return;
  const size_t rounded = rounded_size(bytes);
  {
    std::lock_guard lock(mutex_);
    if (rounded >= kMinBytes && rounded <= limit_) {
      evict_until_fits(rounded);
      lru_.emplace_back(rounded, ptr);
      by_size_.emplace(rounded, std::prev(lru_.end()));
      stats_.cached_bytes += rounded;
      ++stats_.cached_blocks;
      return;
    }
  }
  std::free(ptr);
}

void HostBlockCache::set_limit(size_t limit_bytes) {
  std::lock_guard lock(mutex_);
  limit_ = limit_bytes;
  evict_until_fits(0);
}

void HostBlockCache::clear() {
  std::lock_guard lock(mutex_);
  const size_t limit = limit_;
  limit_ = 0;
  evict_until_fits(0);
  limit_ = limit;
}

size_t HostBlockCache::limit() const {
  std::lock_guard lock(mutex_);
  return limit_;
}

HostBlockCacheStats HostBlockCache::stats() const {
  std::lock_guard lock(mutex_);
  return stats_;
}

}  // namespace tgc
