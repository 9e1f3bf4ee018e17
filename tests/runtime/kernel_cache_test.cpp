// KernelCache: memory and disk hits, keys compared in full, atomic writes, corrupt and
// truncated entries removed and rebuilt, processes sharing a directory, info and clear (and
// what clear could not remove), a path that is not a directory, a directory removed meanwhile.
#include "runtime/kernel_cache.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "runtime/cache_entry.h"
#include "runtime/error.h"
#include "runtime/kernel_cache_test_util.h"

namespace tgc {
namespace {

namespace fs = std::filesystem;

struct TempDir : test::CacheTestDir {
  TempDir() : CacheTestDir("tgc_cache_test", /*create=*/false) {}
};
KernelCacheKey key(const std::string& kernel) { return test::cache_test_key(kernel); }
KernelBlob blob(size_t n, uint8_t seed) { return test::cache_test_blob(n, seed); }

TEST(KernelCache, MissThenHitFromMemoryAndFromDisk) {
  TempDir d;
  {
    KernelCache c(d.path.string());
    EXPECT_FALSE(c.get(key("a")).has_value());
    c.put(key("a"), blob(1000, 1));
    auto hit = c.get(key("a"));
    ASSERT_TRUE(hit.has_value());
    EXPECT_EQ(**hit, blob(1000, 1));
  }
  KernelCache fresh(d.path.string());  // a new process's view: only the disk
  auto hit = fresh.get(key("a"));
  ASSERT_TRUE(hit.has_value());
  EXPECT_EQ(**hit, blob(1000, 1));
  EXPECT_EQ(fresh.info().entries, 1u);
}

TEST(KernelCache, EveryKeyPartMatters) {
  TempDir d;
  KernelCache c(d.path.string());
  c.put(key("a"), blob(10, 1));
  KernelCacheKey other = key("a");
  other.flags = "O3 fast_math";
  EXPECT_FALSE(c.get(other).has_value());
  other = key("a");
  other.target = "x86-64 avx512f";
  EXPECT_FALSE(c.get(other).has_value());
  EXPECT_TRUE(c.get(key("a")).has_value());
}

// Two keys whose entries land in one file (a file-name collision, forced here by copying one
// entry to the other's name): the stored key is compared in full, so the other key misses and
// says why, and never reads the first one's kernel.
TEST(KernelCache, AnEntryUnderAnotherKeysFileNameIsRejected) {
  TempDir d;
  const KernelCacheKey a{"cuda", source_hash("kernel A"), "NVRTC 13.0", "sm_90", "--fmad=false"};
  const KernelCacheKey b{"cuda", source_hash("kernel B"), "NVRTC 13.0", "sm_90", "--fmad=false"};
  {
    KernelCache c(d.path.string());
    c.put(a, blob(64, 1));
  }
  fs::copy_file(d.path / cache_entry::file_name(a.text()), d.path / cache_entry::file_name(b.text()));
  KernelCache fresh(d.path.string());
  std::string why;
  EXPECT_FALSE(fresh.get(b, &why).has_value()) << "a kernel of another source was read";
  EXPECT_NE(why.find("another key"), std::string::npos) << why;
  ASSERT_TRUE(fresh.get(a).has_value());
  EXPECT_EQ(**fresh.get(a), blob(64, 1));
}

// The key of a source-compiled kernel is its XXH3-128 and length: equal sources share it, a
// source one byte apart does not.
TEST(KernelCache, SourceHashesAreXxh3128WithTheLength) {
  const std::string h = source_hash("extern \"C\" __global__ void k() {}");
  EXPECT_EQ(h.rfind("xxh3-128:", 0), 0u) << h;
  EXPECT_EQ(h.size(), std::string("xxh3-128:").size() + 32 + 1 + 2) << h;
  EXPECT_TRUE(h.ends_with("-33")) << h;
  EXPECT_EQ(h, source_hash("extern \"C\" __global__ void k() {}"));
  EXPECT_NE(h, source_hash("extern \"C\" __global__ void k() {;"));
  EXPECT_EQ(source_hash(""), "xxh3-128:99aa06d3014798d86001c324468d497f-0");  // xxHash's own value for ""
}

TEST(KernelCache, CorruptOrTruncatedEntriesAreRemovedAndRebuilt) {
  TempDir d;
  for (int damage = 0; damage < 3; ++damage) {
    {
      KernelCache c(d.path.string());
      c.put(key("k"), blob(4096, 3));
    }
    std::string path = KernelCache(d.path.string()).entry_path(key("k"));
    auto size = fs::file_size(path);
    if (damage == 0) {
      fs::resize_file(path, size / 2);  // truncated
    } else if (damage == 1) {
      std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
      f.seekp(static_cast<std::streamoff>(size / 2));
      f.put('\x5a');  // one flipped byte in the payload
    } else {
      std::ofstream(path, std::ios::binary | std::ios::trunc) << "garbage";
    }
    KernelCache c(d.path.string());
    EXPECT_FALSE(c.get(key("k")).has_value()) << "damage " << damage;
    EXPECT_FALSE(fs::exists(path)) << "damage " << damage;
    c.put(key("k"), blob(4096, 3));
    KernelCache again(d.path.string());
    ASSERT_TRUE(again.get(key("k")).has_value());
  }
}

TEST(KernelCache, ProcessesSharingADirectoryNeverReadPartialEntries) {
  TempDir d;
  constexpr int kProcs = 4, kRounds = 200;
  std::vector<pid_t> children;
  for (int p = 0; p < kProcs; ++p) {
    pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      int bad = 0;
      for (int r = 0; r < kRounds; ++r) {
        KernelCache c(d.path.string());  // fresh each round: reads go to disk
        KernelCacheKey k = key("shared" + std::to_string(r % 5));
        if (auto hit = c.get(k)) {
          if (**hit != blob(20000, static_cast<uint8_t>(r % 5))) ++bad;
        } else {
          c.put(k, blob(20000, static_cast<uint8_t>(r % 5)));
        }
      }
      ::_exit(bad == 0 ? 0 : 1);
    }
    children.push_back(pid);
  }
  for (pid_t pid : children) {
    int status = 0;
    ::waitpid(pid, &status, 0);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  for (const auto& e : fs::directory_iterator(d.path))
    EXPECT_EQ(e.path().string().find(".tmp."), std::string::npos) << "left a temp file: " << e.path();
}

TEST(KernelCache, InfoAndClear) {
  TempDir d;
  KernelCache c(d.path.string());
  c.put(key("a"), blob(100, 1));
  c.put(key("b"), blob(200, 2));
  KernelCacheInfo info = c.info();
  EXPECT_EQ(info.entries, 2u);
  EXPECT_GT(info.bytes, 300u);
  EXPECT_EQ(info.memory_entries, 2u);
  EXPECT_EQ(info.backends, (std::map<std::string, size_t>{{"llvm", 2}}));
  EXPECT_EQ(c.clear().removed, 2u);
  EXPECT_EQ(c.info().entries, 0u);
  EXPECT_FALSE(c.get(key("a")).has_value());
}

TEST(KernelCache, ClearNamesWhatItCouldNotRemove) {
  TempDir d;
  KernelCache c(d.path.string());
  c.put(key("a"), blob(100, 1));
  fs::create_directories(d.path / "00000000000000ff.tgck" / "inside");  // never removed recursively
  std::ofstream(d.path / "notes.txt") << "not the cache's";
  const KernelCacheClear cleared = c.clear();
  EXPECT_EQ(cleared.removed, 1u);
  ASSERT_EQ(cleared.failed.size(), 1u);
  EXPECT_EQ(cleared.failed[0], (d.path / "00000000000000ff.tgck").string() + ": Is a directory");
  EXPECT_TRUE(fs::exists(d.path / "notes.txt")) << "only the cache's names are removed";
}

TEST(KernelCache, InfoAndClearRefuseAPathThatIsNotADirectory) {
  TempDir d;
  fs::create_directories(d.path);
  std::ofstream(d.path / "file") << "x";
  KernelCache c((d.path / "file").string());
  EXPECT_THROW(c.info(), IOError);
  EXPECT_THROW(c.clear(), IOError);
  KernelCache absent((d.path / "absent").string());
  EXPECT_FALSE(absent.info().exists);
  EXPECT_EQ(absent.clear().removed, 0u);
  EXPECT_FALSE(fs::exists(d.path / "absent")) << "neither creates the directory";
}

TEST(KernelCache, ADirectoryRemovedMeanwhileIsMadeAgain) {
  TempDir d;
  KernelCache c(d.path.string());
  c.put(key("a"), blob(100, 1));
  fs::remove_all(d.path);
  c.put(key("b"), blob(100, 2));
  EXPECT_TRUE(KernelCache(d.path.string()).get(key("b")).has_value());
}

TEST(KernelCache, InfoCountsEntriesPerBackendFromTheirStoredKeys) {
  TempDir d;
  KernelCache c(d.path.string());
  c.put(key("a"), blob(10, 1));
  c.put({"cuda", "k", "NVRTC 13.0", "sm_90", ""}, blob(10, 2));
  c.put({"cuda", "k2", "NVRTC 13.0", "sm_90", ""}, blob(10, 3));
  std::ofstream(d.path / "0000000000000000.tgck", std::ios::binary) << "not an entry";
  KernelCacheInfo info = c.info();
  EXPECT_EQ(info.entries, 4u);
  EXPECT_EQ(info.backends, (std::map<std::string, size_t>{{"cuda", 2}, {"llvm", 1}, {"unreadable", 1}}));
}

TEST(KernelCache, MemoryOnlyAndUnwritableDirectories) {
  KernelCache mem("");
  mem.put(key("a"), blob(10, 1));
  EXPECT_TRUE(mem.get(key("a")).has_value());
  EXPECT_EQ(mem.info().entries, 0u);
  KernelCache bad("/proc/tgc-cannot-write-here");
  bad.put(key("a"), blob(10, 1));  // warns once, keeps working from memory
  EXPECT_TRUE(bad.get(key("a")).has_value());
}

TEST(KernelCache, HomeIsExpanded) {
  const char* home = std::getenv("HOME");
  if (!home) GTEST_SKIP() << "HOME is not set in this environment";
  EXPECT_EQ(expand_home("~/.cache/tgc"), std::string(home) + "/.cache/tgc");
  EXPECT_EQ(expand_home("/abs/path"), "/abs/path");
}

TEST(KernelCache, HomeUnsetUsesThePasswordDatabaseNeverALiteralTilde) {
  // A service without HOME: the cache goes to the account's home from the password database
  // (or, with none there, stays in memory), never into a directory named "~" here.
  const char* saved = std::getenv("HOME");
  const std::string keep = saved ? saved : "";
  ::unsetenv("HOME");
  const std::string expanded = expand_home("~/.cache/tgc");
  if (saved) ::setenv("HOME", keep.c_str(), 1);
  EXPECT_FALSE(expanded.starts_with("~")) << expanded;
  if (!expanded.empty()) {
    EXPECT_TRUE(expanded.starts_with("/")) << expanded;
    EXPECT_TRUE(expanded.ends_with("/.cache/tgc")) << expanded;
  }
}

}  // namespace
}  // namespace tgc
