// KernelCache's size cap (cache_max_size): a write past it evicts the least recently used
// entries, a read refreshes an entry's age, the entry just written always stays, the memory
// tier is bounded too, the directory's size record follows the writes and survives lies, and
// eight processes sharing a small cache, evicting while others
// read, never read a wrong or partial entry.
#include "runtime/kernel_cache.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sys/stat.h>

#include "runtime/cache_eviction.h"
#include "runtime/kernel_cache_test_util.h"

namespace tgc {
namespace {

namespace fs = std::filesystem;

struct TempDir : test::CacheTestDir {
  TempDir() : CacheTestDir("tgc_cache_evict") {}
};
KernelCacheKey key(const std::string& kernel) { return test::cache_test_key(kernel); }
KernelBlob blob(size_t n, uint8_t seed) { return test::cache_test_blob(n, seed); }

uint64_t dir_bytes(const fs::path& dir) {
  uint64_t total = 0;
  for (const auto& e : fs::directory_iterator(dir)) total += e.file_size();
  return total;
}

void age(const std::string& path, int seconds_ago) {
  fs::last_write_time(path, fs::file_time_type::clock::now() - std::chrono::seconds(seconds_ago));
}

TEST(KernelCacheEviction, WritesPastTheCapEvictDownToIt) {
  TempDir d;
  constexpr uint64_t kCap = 100000;
  KernelCache c(d.path.string(), kCap);
  for (int i = 0; i < 12; ++i) {
    c.put(key("k" + std::to_string(i)), blob(30000, static_cast<uint8_t>(i)));
    EXPECT_LE(dir_bytes(d.path), kCap) << "after write " << i;
    EXPECT_TRUE(fs::exists(c.entry_path(key("k" + std::to_string(i))))) << "the entry just written stays";
  }
  EXPECT_GE(c.info().entries, 2u);
}

TEST(KernelCacheEviction, TheLeastRecentlyUsedGoFirstAndAReadCounts) {
  TempDir d;
  {
    KernelCache writer(d.path.string(), 0);
    for (const char* k : {"a", "b", "c"}) writer.put(key(k), blob(10000, 1));
  }
  KernelCache probe(d.path.string(), 0);
  age(probe.entry_path(key("a")), 300);
  age(probe.entry_path(key("b")), 200);
  age(probe.entry_path(key("c")), 100);
  // Another process reads a: it becomes the most recently used, without being rewritten.
  const auto a_size = fs::file_size(probe.entry_path(key("a")));
  ASSERT_TRUE(KernelCache(d.path.string(), 0).get(key("a")).has_value());
  EXPECT_EQ(fs::file_size(probe.entry_path(key("a"))), a_size);
  // Room for three entries and a bit: the fourth write evicts exactly the oldest, b.
  const uint64_t entry = fs::file_size(probe.entry_path(key("b")));
  KernelCache c(d.path.string(), entry * 3 + entry / 2);
  c.put(key("d"), blob(10000, 1));
  EXPECT_TRUE(fs::exists(c.entry_path(key("a"))));
  EXPECT_FALSE(fs::exists(c.entry_path(key("b"))));
  EXPECT_TRUE(fs::exists(c.entry_path(key("c"))));
  EXPECT_TRUE(fs::exists(c.entry_path(key("d"))));
}

TEST(KernelCacheEviction, StaleTemporaryFilesAreRemovedAndForeignFilesKept) {
  TempDir d;
  const fs::path stale = d.path / "00000000000000aa.tgck.tmp.0123456789abcdef";
  const fs::path fresh = d.path / "00000000000000bb.tgck.tmp.0123456789abcdef";
  const fs::path foreign = d.path / "README";
  for (const fs::path& p : {stale, fresh, foreign}) std::ofstream(p) << std::string(1000, 'x');
  age(stale.string(), 7200);
  const TrimResult r = trim_cache_dir(d.path.string(), 100, 50, false);
  EXPECT_FALSE(fs::exists(stale)) << "a killed writer's leftover";
  EXPECT_TRUE(fs::exists(fresh)) << "a write in progress";
  EXPECT_TRUE(fs::exists(foreign)) << "not the cache's";
  EXPECT_EQ(r.bytes_before, 1000u) << "the fresh temporary file counts; the foreign file does not";
}

uint64_t entry_bytes(const fs::path& dir) {
  uint64_t total = 0;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().extension() == ".tgck") total += e.file_size();
  return total;
}

std::string record(const fs::path& dir) {
  std::ifstream in(dir / kSizeRecord);
  std::string text;
  in >> text;
  return text;
}

TEST(KernelCacheEviction, TheSizeRecordFollowsTheWrites) {
  TempDir d;
  KernelCache c(d.path.string(), 1 << 30);
  for (int i = 0; i < 5; ++i) {
    c.put(key("k" + std::to_string(i)), blob(3000, 1));
    EXPECT_EQ(record(d.path), std::to_string(entry_bytes(d.path))) << "after write " << i;
  }
  // Another process adds to the record instead of listing the directory.
  KernelCache other(d.path.string(), 1 << 30);
  other.put(key("k5"), blob(3000, 1));
  EXPECT_EQ(record(d.path), std::to_string(entry_bytes(d.path)));
  EXPECT_EQ(c.clear().removed, 6u);
  EXPECT_FALSE(fs::exists(d.path / kSizeRecord)) << "clear removes the record with the entries";
}

TEST(KernelCacheEviction, AWrongOrHostileSizeRecordIsCorrectedAndNeverHangs) {
  TempDir d;
  constexpr uint64_t kCap = 100000;
  {
    KernelCache writer(d.path.string(), 0);
    for (int i = 0; i < 8; ++i) writer.put(key("k" + std::to_string(i)), blob(20000, 1));
  }
  // Says "nearly empty" while the directory holds 160 KB: a writer whose addition passes the
  // cap lists the directory, so the truth comes back within cap/16 of writing.
  std::ofstream(d.path / kSizeRecord) << "1";
  KernelCache c(d.path.string(), kCap);
  c.put(key("new"), blob(20000, 2));
  EXPECT_LE(entry_bytes(d.path), kCap) << "the first write of a process past cap/16 lists the directory";
  EXPECT_EQ(record(d.path), std::to_string(entry_bytes(d.path)));
  for (const char* bad : {"not a number", "99999999999999999999999", ""}) {
    fs::remove(d.path / kSizeRecord);
    std::ofstream(d.path / kSizeRecord) << bad;
    KernelCache(d.path.string(), kCap).put(key(std::string("bad") + bad), blob(20000, 3));
    EXPECT_EQ(record(d.path), std::to_string(entry_bytes(d.path))) << "record '" << bad << "'";
  }
  // A FIFO in the record's place is not opened (no hang): the directory is listed instead,
  // and the record's name is replaced by a file.
  fs::remove(d.path / kSizeRecord);
  ASSERT_EQ(::mkfifo((d.path / kSizeRecord).c_str(), 0644), 0);
  KernelCache(d.path.string(), kCap).put(key("after-fifo"), blob(20000, 4));
  EXPECT_TRUE(fs::is_regular_file(fs::symlink_status(d.path / kSizeRecord)));
  EXPECT_LE(entry_bytes(d.path), kCap);
  // A link in the record's place is neither read nor written through.
  const fs::path victim = d.path.parent_path() / (d.path.filename().string() + "_victim");
  std::ofstream(victim) << "precious";
  fs::remove(d.path / kSizeRecord);
  fs::create_symlink(victim, d.path / kSizeRecord);
  KernelCache(d.path.string(), kCap).put(key("after-link"), blob(20000, 5));
  std::ifstream in(victim);
  std::string text;
  in >> text;
  EXPECT_EQ(text, "precious");
  EXPECT_TRUE(fs::is_regular_file(fs::symlink_status(d.path / kSizeRecord)));
  fs::remove(victim);
}

TEST(KernelCacheEviction, NoCapMeansNoEviction) {
  TempDir d;
  KernelCache c(d.path.string(), 0);
  for (int i = 0; i < 10; ++i) c.put(key("k" + std::to_string(i)), blob(10000, 1));
  EXPECT_EQ(c.info().entries, 10u);
}

TEST(KernelCacheEviction, TheMemoryTierIsBounded) {
  KernelCache mem("");
  const size_t n = KernelCache::kMemoryBytes / (1 << 20) + 8;
  for (size_t i = 0; i < n; ++i) mem.put(key("m" + std::to_string(i)), KernelBlob(1 << 20, 1));
  EXPECT_LE(mem.info().memory_entries, KernelCache::kMemoryBytes / (1 << 20));
  EXPECT_TRUE(mem.get(key("m" + std::to_string(n - 1))).has_value()) << "the newest stays";
  EXPECT_FALSE(mem.get(key("m0")).has_value()) << "the oldest went";
}

TEST(KernelCacheEviction, AMemoryHitCountsAsAUse) {
  KernelCache mem("", 0, 3 << 20);  // room for three 1 MiB entries
  for (const char* k : {"a", "b", "c"}) mem.put(key(k), KernelBlob(1 << 20, 1));
  ASSERT_TRUE(mem.get(key("a")).has_value());
  mem.put(key("d"), KernelBlob(1 << 20, 1));
  EXPECT_TRUE(mem.get(key("a")).has_value());
  EXPECT_FALSE(mem.get(key("b")).has_value()) << "the least recently used went";
  EXPECT_TRUE(mem.get(key("c")).has_value());
  EXPECT_TRUE(mem.get(key("d")).has_value());
}

TEST(KernelCacheEviction, EightProcessesEvictingWhileOthersReadStayCorrect) {
  TempDir d;
  constexpr int kProcs = 8, kRounds = 300, kKeys = 40;
  constexpr size_t kBlob = 20000;
  constexpr uint64_t kCap = 200000;  // about ten of the forty entries fit
  std::vector<pid_t> children;
  for (int p = 0; p < kProcs; ++p) {
    const pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      int bad = 0;
      for (int r = 0; r < kRounds; ++r) {
        KernelCache c(d.path.string(), kCap);  // fresh: every read goes to disk
        const int k = (r * 7 + p * 13) % kKeys;
        if (auto hit = c.get(key("shared" + std::to_string(k)))) {
          if (**hit != blob(kBlob, static_cast<uint8_t>(k))) ++bad;
        } else {
          c.put(key("shared" + std::to_string(k)), blob(kBlob, static_cast<uint8_t>(k)));
        }
      }
      ::_exit(bad == 0 ? 0 : 1);
    }
    children.push_back(pid);
  }
  for (pid_t pid : children) {
    int status = 0;
    ::waitpid(pid, &status, 0);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "a process read a wrong entry or crashed";
  }
  // Each process notices the others' writes at its next trim, after at most cap/16 of its own:
  // the documented overshoot is that much per process writing at once.
  const uint64_t bytes = dir_bytes(d.path);
  EXPECT_LE(bytes, kCap + kProcs * (kCap / 16 + kBlob + 200)) << bytes;
  for (const auto& e : fs::directory_iterator(d.path))
    EXPECT_EQ(e.path().string().find(".tmp."), std::string::npos) << "left a temporary file: " << e.path();
}

}  // namespace
}  // namespace tgc
