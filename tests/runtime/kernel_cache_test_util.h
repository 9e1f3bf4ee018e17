// What the kernel-cache tests share: a cache directory per test (removed before and after),
// a key for a made-up kernel, and a blob of made-up bytes.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <string>

#include "runtime/kernel_cache.h"

namespace tgc::test {

// <tmp>/<prefix>_<pid>_<test name>; created unless `create` is false (a test of the cache
// making its own directory).
struct CacheTestDir {
  std::filesystem::path path;
  explicit CacheTestDir(const std::string& prefix, bool create = true)
      : path(std::filesystem::temp_directory_path() /
             (prefix + "_" + std::to_string(::getpid()) + "_" +
              ::testing::UnitTest::GetInstance()->current_test_info()->name())) {
    std::filesystem::remove_all(path);
    if (create) std::filesystem::create_directories(path);
  }
  ~CacheTestDir() { std::filesystem::remove_all(path); }
  CacheTestDir(const CacheTestDir&) = delete;
  CacheTestDir& operator=(const CacheTestDir&) = delete;
};

inline KernelCacheKey cache_test_key(const std::string& kernel) {
  return {"llvm", kernel, "LLVM 16", "x86-64 avx2", "O3"};
}

inline KernelBlob cache_test_blob(size_t n, uint8_t seed) {
  KernelBlob b(n);
  for (size_t i = 0; i < n; ++i) b[i] = static_cast<uint8_t>(seed + i * 7);
  return b;
}

}  // namespace tgc::test
