// HostBlockCache: freed large blocks are reused by the same size, the cached total stays within
// the limit, no block is handed out twice (also across threads), and the host device uses it.
#include "runtime/host_block_cache.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <set>
#include <thread>
#include <vector>

#include "runtime/device.h"
#include "runtime/tensor.h"

namespace tgc {
namespace {

constexpr size_t kBig = size_t{1} << 20;

TEST(HostBlockCache, ReusesAFreedBlockOfTheSameSize) {
  HostBlockCache cache(64 * kBig);
  void* a = cache.allocate(kBig);
  ASSERT_NE(a, nullptr);
  cache.deallocate(a, kBig);
  EXPECT_EQ(cache.stats().cached_blocks, 1u);
  EXPECT_EQ(cache.allocate(kBig - 100), a);  // the same page-rounded size
  EXPECT_EQ(cache.stats().hits, 1u);
  EXPECT_EQ(cache.stats().cached_bytes, 0u);
  void* b = cache.allocate(2 * kBig);  // another size: a fresh block
  EXPECT_NE(b, a);
  cache.deallocate(a, kBig);
  cache.deallocate(b, 2 * kBig);
}

TEST(HostBlockCache, BlocksAreAlignedAndSmallOnesAreNotCached) {
  HostBlockCache cache(64 * kBig);
  void* small = cache.allocate(1000);
  void* big = cache.allocate(kBig + 1);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(small) % 64, 0u);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(big) % 64, 0u);
  cache.deallocate(small, 1000);
  EXPECT_EQ(cache.stats().cached_blocks, 0u);
  cache.deallocate(big, kBig + 1);
  EXPECT_EQ(cache.stats().cached_bytes, HostBlockCache::rounded_size(kBig + 1));
}

TEST(HostBlockCache, TheLimitEvictsTheLeastRecentlyFreed) {
  HostBlockCache cache(3 * kBig);
  std::vector<void*> blocks;
  for (int i = 0; i < 5; ++i) blocks.push_back(cache.allocate(kBig));
  for (void* p : blocks) {
    cache.deallocate(p, kBig);
    EXPECT_LE(cache.stats().cached_bytes, 3 * kBig);
  }
  EXPECT_EQ(cache.stats().cached_blocks, 3u);
  // The three most recently freed remain.
  std::set<void*> kept;
  for (int i = 0; i < 3; ++i) kept.insert(cache.allocate(kBig));
  EXPECT_EQ(kept, (std::set<void*>{blocks[2], blocks[3], blocks[4]}));
  EXPECT_EQ(cache.stats().hits, 3u);
  for (void* p : kept) cache.deallocate(p, kBig);
  // A block larger than the limit is never kept; a lower limit frees at once.
  void* huge = cache.allocate(4 * kBig);
  cache.deallocate(huge, 4 * kBig);
  EXPECT_EQ(cache.stats().cached_bytes, 3 * kBig);
  cache.set_limit(kBig);
  EXPECT_EQ(cache.stats().cached_bytes, kBig);
  cache.set_limit(0);
  EXPECT_EQ(cache.stats().cached_blocks, 0u);
  void* off = cache.allocate(kBig);
  cache.deallocate(off, kBig);
  EXPECT_EQ(cache.stats().cached_blocks, 0u);
}

TEST(HostBlockCache, NoBlockIsHandedOutTwice) {
  HostBlockCache cache(16 * kBig);
  std::vector<void*> blocks;
  for (int i = 0; i < 8; ++i) blocks.push_back(cache.allocate(kBig));
  for (void* p : blocks) cache.deallocate(p, kBig);
  std::set<void*> again;
  for (int i = 0; i < 10; ++i) again.insert(cache.allocate(kBig));
  EXPECT_EQ(again.size(), 10u);
  for (void* p : again) cache.deallocate(p, kBig);

  // Threads allocating and freeing the same sizes: each writes its id over its whole block
  // and checks it is still there before freeing, so a shared block shows up as a mismatch.
  std::vector<std::thread> threads;
  std::vector<int> errors(4, 0);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 200; ++i) {
        const size_t bytes = kBig * static_cast<size_t>(1 + i % 3);
        auto* p = static_cast<unsigned char*>(cache.allocate(bytes));
        std::memset(p, t + 1, bytes);
        std::this_thread::yield();
        if (std::any_of(p, p + bytes, [&](unsigned char c) { return c != t + 1; })) ++errors[static_cast<size_t>(t)];
        cache.deallocate(p, bytes);
      }
    });
  }
  for (std::thread& th : threads) th.join();
  EXPECT_EQ(errors, std::vector<int>(4, 0));
  EXPECT_LE(cache.stats().cached_bytes, 16 * kBig);
}

TEST(HostBlockCache, TheHostDeviceReusesATensorsMemory) {
  HostBlockCache& cache = host_block_cache();
  EXPECT_EQ(cache.limit(), kDefaultHostCacheBytes);
  const void* first;
  {
    Tensor t = Tensor::empty(DType::Float32, {1 << 20});
    first = t.raw_data();
  }
  const size_t hits = cache.stats().hits;
  Tensor again = Tensor::empty(DType::Float32, {1 << 20});
  EXPECT_EQ(again.raw_data(), first);
  EXPECT_EQ(cache.stats().hits, hits + 1);
}

}  // namespace
}  // namespace tgc
