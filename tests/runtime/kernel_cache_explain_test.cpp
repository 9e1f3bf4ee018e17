// KernelCache's reasons for a miss (what log_compiles prints): a new key, the fields that
// changed against an entry of the same kernel, a corrupt entry, a memory-only cache; and a
// directory of foreign or malformed files explains without failing.
#include "runtime/kernel_cache.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace tgc {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::Not;

struct TempDir {
  fs::path path = fs::temp_directory_path() / ("tgc_cache_explain_" + std::to_string(::getpid()) + "_" +
                                               ::testing::UnitTest::GetInstance()->current_test_info()->name());
  TempDir() { fs::remove_all(path); }
  ~TempDir() { fs::remove_all(path); }
};

// The LLVM backend's kernel field spans lines (the Kernel IR follows the hash).
KernelCacheKey key(const std::string& flags, const std::string& compiler = "LLVM 16.0.6") {
  return {"llvm", "00ff r6\nkernel(i0) {\n  out0 = exp(i0)\n}", compiler, "x86_64 znver3 +avx2,+fma", flags};
}

std::string missed(KernelCache& cache, const KernelCacheKey& k) {
  std::string why;
  EXPECT_FALSE(cache.get(k, &why).has_value());
  return why;
}

TEST(KernelCacheExplain, AKernelNeverSeenIsANewKey) {
  TempDir d;
  KernelCache cache(d.path.string());
  cache.put(key("O3 fast_math=0"), KernelBlob{1, 2, 3});
  KernelCacheKey other = key("O3 fast_math=0");
  other.kernel = "1234 r6\nkernel(i0) {\n  out0 = log(i0)\n}";
  EXPECT_THAT(missed(cache, other), HasSubstr("new key: no entry for this kernel in " + d.path.string()));
}

TEST(KernelCacheExplain, AChangedFlagIsNamedWithItsOldAndNewValue) {
  TempDir d;
  KernelCache(d.path.string()).put(key("O3 libmvec fast_math=0 vector_width=auto"), KernelBlob{1});
  KernelCache cache(d.path.string());  // another process: nothing in memory
  const std::string why = missed(cache, key("O3 libmvec fast_math=1 vector_width=auto"));
  EXPECT_THAT(why, HasSubstr("flags changed: fast_math=0 -> fast_math=1")) << why;
  EXPECT_THAT(why, Not(HasSubstr("libmvec"))) << "unchanged words are not listed: " << why;
  EXPECT_THAT(why, Not(HasSubstr("compiler"))) << why;
}

TEST(KernelCacheExplain, ACompilerUpgradeIsNamed) {
  TempDir d;
  KernelCache(d.path.string()).put(key("O3", "LLVM 15.0.7"), KernelBlob{1});
  KernelCache cache(d.path.string());
  EXPECT_THAT(missed(cache, key("O3", "LLVM 16.0.6")),
              HasSubstr("compiler version changed: LLVM 15.0.7 -> LLVM 16.0.6"));
}

TEST(KernelCacheExplain, TheClosestEntryExplains) {
  TempDir d;
  {
    KernelCache writer(d.path.string());
    writer.put(key("O3 fast_math=1", "LLVM 15.0.7"), KernelBlob{1});  // two fields differ
    writer.put(key("O3 fast_math=1"), KernelBlob{2});                  // one field differs
  }
  KernelCache cache(d.path.string());
  const std::string why = missed(cache, key("O3 fast_math=0"));
  EXPECT_THAT(why, HasSubstr("flags changed: fast_math=1 -> fast_math=0")) << why;
  EXPECT_THAT(why, Not(HasSubstr("compiler"))) << why;
}

TEST(KernelCacheExplain, ACorruptEntryIsReportedAsSuch) {
  TempDir d;
  KernelCache writer(d.path.string());
  writer.put(key("O3"), KernelBlob(100, 7));
  const std::string path = writer.entry_path(key("O3"));
  {
    std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(-10, std::ios::end);
    f.put('\x55');  // one payload byte: the checksum no longer matches
  }
  KernelCache cache(d.path.string());
  EXPECT_THAT(missed(cache, key("O3")), HasSubstr("corrupted entry (checksum mismatch), removed"));
  std::ofstream(path, std::ios::binary) << "TGC";  // shorter than any header
  KernelCache again(d.path.string());
  EXPECT_THAT(missed(again, key("O3")), HasSubstr("corrupted entry"));
}

TEST(KernelCacheExplain, ForeignAndMalformedFilesAreSkipped) {
  TempDir d;
  fs::create_directories(d.path);
  // Files named like entries that are not, or that claim a key longer than themselves.
  std::ofstream(d.path / "0000000000000001.tgck", std::ios::binary) << "not an entry at all";
  {
    std::ofstream f(d.path / "0000000000000002.tgck", std::ios::binary);
    f << "TGCKERN1";
    for (int i = 0; i < 8; ++i) f.put('\xff');  // a key length of 2^64 - 1
  }
  {
    std::ofstream f(d.path / "0000000000000003.tgck", std::ios::binary);
    const std::string text = "backend=llvm\nno fields here\n";
    f << "TGCKERN1";
    for (int i = 0; i < 8; ++i) f.put(static_cast<char>(i == 0 ? text.size() : 0));
    f << text;
  }
  KernelCache cache(d.path.string());
  EXPECT_THAT(missed(cache, key("O3")), HasSubstr("new key"));
}

TEST(KernelCacheExplain, AMemoryOnlyCacheSaysSo) {
  KernelCache cache("");
  EXPECT_THAT(missed(cache, key("O3")), HasSubstr("memory only"));
}

TEST(KernelCacheExplain, AHitHasNoReason) {
  TempDir d;
  KernelCache(d.path.string()).put(key("O3"), KernelBlob{1});
  KernelCache cache(d.path.string());
  std::string why = "untouched";
  EXPECT_TRUE(cache.get(key("O3"), &why).has_value());
  EXPECT_EQ(why, "untouched");
}

}  // namespace
}  // namespace tgc
