// KernelCache against a hostile cache directory (issue 20): links at temporary and entry
// names never redirect a write, and a FIFO, a device, a link, a huge sparse file or a
// directory in an entry's place never hangs, exhausts memory or throws: each is a miss, the
// kernel is rebuilt, results stay correct and no file outside the cache is written. Plus the
// directory checks: one every user may write is refused unless sticky, and in a sticky one
// another user's entry is not read; `info` and miss explanations open no FIFO or link either.
#include "runtime/kernel_cache.h"

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <thread>

#include "runtime/kernel_cache_test_util.h"

namespace tgc {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

struct TempDir : test::CacheTestDir {
  TempDir() : CacheTestDir("tgc_cache_attack") {}
};
KernelCacheKey key(const std::string& kernel) { return test::cache_test_key(kernel); }
KernelBlob blob(size_t n, uint8_t seed) { return test::cache_test_blob(n, seed); }

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// A file outside the cache that an attacker wants tgc to overwrite.
struct Victim {
  fs::path path;
  explicit Victim(const fs::path& dir) : path(dir / "victim.txt") { std::ofstream(path) << "precious"; }
  bool untouched() const { return fs::is_regular_file(path) && read_file(path) == "precious"; }
};

// Runs `body` in a child process and fails the test when it does not finish within `seconds`
// (a hang) or exits nonzero. The child reports failures through its exit code.
void in_child_within(int seconds, const std::function<int()>& body) {
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) ::_exit(body());
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
  int status = 0;
  while (::waitpid(pid, &status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() > deadline) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      FAIL() << "the cache read did not finish within " << seconds << " s (a hang)";
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ASSERT_TRUE(WIFEXITED(status)) << "the child died of signal " << (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
  EXPECT_EQ(WEXITSTATUS(status), 0) << "the child's check failed (see its output)";
}

// In a fresh cache (a new process's view): the planted entry is a miss with a reason, a
// rebuild's put does not throw, and the kernel is served correctly afterwards.
int miss_then_rebuild(const fs::path& dir, const std::string& expect_in_reason) {
  KernelCache c(dir.string());
  std::string why;
  if (c.get(key("k"), &why).has_value()) return 10;
  if (why.find(expect_in_reason) == std::string::npos) {
    std::fprintf(stderr, "reason '%s' lacks '%s'\n", why.c_str(), expect_in_reason.c_str());
    return 11;
  }
  c.put(key("k"), blob(5000, 9));
  auto hit = c.get(key("k"));
  return hit && **hit == blob(5000, 9) ? 0 : 12;
}

TEST(KernelCacheAttack, LinksAtPredictableTemporaryNamesAreNeverWrittenThrough) {
  TempDir d;
  Victim victim(d.path);
  const fs::path cache = d.path / "cache";
  fs::create_directories(cache);
  KernelCache c(cache.string());
  // The names the old writer used (entry.tmp.<pid>.<counter>) and a few guesses more, each a
  // link to the victim, plus dangling links that a write through would create.
  const std::string entry = c.entry_path(key("k"));
  for (int n = 0; n < 64; ++n) {
    fs::create_symlink(victim.path, fmt::format("{}.tmp.{}.{}", entry, ::getpid(), n));
    fs::create_symlink(d.path / fmt::format("created{}", n), fmt::format("{}.tmp.{:016x}", entry, n));
  }
  c.put(key("k"), blob(5000, 1));
  EXPECT_TRUE(victim.untouched());
  for (int n = 0; n < 64; ++n) EXPECT_FALSE(fs::exists(d.path / fmt::format("created{}", n)));
  EXPECT_TRUE(fs::is_regular_file(fs::symlink_status(entry)));
  auto hit = KernelCache(cache.string()).get(key("k"));
  ASSERT_TRUE(hit.has_value());
  EXPECT_EQ(**hit, blob(5000, 1));
}

TEST(KernelCacheAttack, ALinkAtTheEntryNameIsReplacedNotFollowed) {
  TempDir d;
  Victim victim(d.path);
  const fs::path cache = d.path / "cache";
  fs::create_directories(cache);
  KernelCache c(cache.string());
  const std::string entry = c.entry_path(key("k"));
  fs::create_symlink(victim.path, entry);
  c.put(key("k"), blob(5000, 2));
  EXPECT_TRUE(victim.untouched());
  EXPECT_TRUE(fs::is_regular_file(fs::symlink_status(entry))) << "the link was replaced by the entry";
}

TEST(KernelCacheAttack, ALinkToAValidEntryElsewhereIsNotRead) {
  // Even a link to a perfect entry is refused: lstat must say regular file.
  TempDir d;
  const fs::path elsewhere = d.path / "elsewhere", cache = d.path / "cache";
  fs::create_directories(elsewhere);
  fs::create_directories(cache);
  KernelCache(elsewhere.string()).put(key("k"), blob(5000, 3));
  const std::string good = KernelCache(elsewhere.string()).entry_path(key("k"));
  const std::string entry = KernelCache(cache.string()).entry_path(key("k"));
  fs::create_symlink(good, entry);
  in_child_within(20, [&] { return miss_then_rebuild(cache, "a symbolic link, not a regular file"); });
  EXPECT_TRUE(fs::exists(good)) << "the link's target is not removed, only the link";
}

TEST(KernelCacheAttack, AFifoInPlaceOfAnEntryDoesNotHang) {
  TempDir d;
  const std::string entry = KernelCache(d.path.string()).entry_path(key("k"));
  ASSERT_EQ(::mkfifo(entry.c_str(), 0644), 0);
  in_child_within(20, [&] { return miss_then_rebuild(d.path, "a FIFO, not a regular file"); });
  EXPECT_TRUE(fs::is_regular_file(fs::symlink_status(entry))) << "the FIFO was replaced by the rebuilt entry";
}

TEST(KernelCacheAttack, ALinkToDevZeroDoesNotExhaustMemory) {
  TempDir d;
  const std::string entry = KernelCache(d.path.string()).entry_path(key("k"));
  fs::create_symlink("/dev/zero", entry);
  in_child_within(20, [&] { return miss_then_rebuild(d.path, "a symbolic link"); });
}

TEST(KernelCacheAttack, ADeviceFileInPlaceOfAnEntryIsNotOpened) {
  TempDir d;
  const std::string entry = KernelCache(d.path.string()).entry_path(key("k"));
  // The same device as /dev/zero, made in the cache directory (needs CAP_MKNOD).
  if (::mknod(entry.c_str(), S_IFCHR | 0644, ::makedev(1, 5)) != 0)
    GTEST_SKIP() << "mknod needs privileges this test does not have: " << std::strerror(errno);
  in_child_within(20, [&] { return miss_then_rebuild(d.path, "a character device, not a regular file"); });
}

TEST(KernelCacheAttack, AHugeSparseFileIsRefusedWithoutReadingIt) {
  TempDir d;
  const std::string entry = KernelCache(d.path.string()).entry_path(key("k"));
  {
    // A valid entry's start, then a 3 GB hole: only its size gives it away.
    KernelCache(d.path.string()).put(key("k"), blob(100, 4));
  }
  fs::resize_file(entry, uint64_t(3) << 30);
  in_child_within(20, [&] {
    rusage before{}, after{};
    ::getrusage(RUSAGE_SELF, &before);
    const int rc = miss_then_rebuild(d.path, "over the");
    ::getrusage(RUSAGE_SELF, &after);
    const long grown_kb = after.ru_maxrss - before.ru_maxrss;
    if (grown_kb > 64 * 1024) {
      std::fprintf(stderr, "the peak memory grew by %ld KiB\n", grown_kb);
      return 20;
    }
    return rc;
  });
  EXPECT_LT(fs::file_size(entry), 1u << 20) << "the sparse file was replaced by the rebuilt entry";
}

TEST(KernelCacheAttack, AnEntryOverTheCacheCapIsRefused) {
  // The read limit follows a small cache_max_size too.
  TempDir d;
  KernelCache(d.path.string(), 0).put(key("k"), blob(50000, 5));  // no cap: written
  KernelCache small(d.path.string(), 10000);
  std::string why;
  EXPECT_FALSE(small.get(key("k"), &why).has_value());
  EXPECT_THAT(why, HasSubstr("over the 10000-byte limit of an entry"));
}

TEST(KernelCacheAttack, ADirectoryInPlaceOfAnEntryIsAMissNotAnError) {
  TempDir d;
  const std::string entry = KernelCache(d.path.string()).entry_path(key("k"));
  fs::create_directories(fs::path(entry) / "inside");
  std::ofstream(fs::path(entry) / "inside" / "file") << "kept";
  KernelCache c(d.path.string());
  std::string why;
  EXPECT_FALSE(c.get(key("k"), &why).has_value());
  EXPECT_THAT(why, HasSubstr("a directory, not a regular file"));
  c.put(key("k"), blob(5000, 6));  // the rename fails; the kernel is kept in memory
  auto hit = c.get(key("k"));
  ASSERT_TRUE(hit.has_value());
  EXPECT_EQ(**hit, blob(5000, 6));
  EXPECT_FALSE(KernelCache(d.path.string()).get(key("k")).has_value());  // again a miss, no throw
  EXPECT_EQ(read_file(fs::path(entry) / "inside" / "file"), "kept") << "never removed recursively";
  for (const auto& e : fs::directory_iterator(d.path))
    EXPECT_EQ(e.path().string().find(".tmp."), std::string::npos) << "left a temporary file: " << e.path();
}

TEST(KernelCacheAttack, InfoAndMissExplanationsOpenNoFifoNorLink) {
  // `tgc cache info` and log_compiles read every entry's header: a FIFO, a link to a FIFO and
  // a link to /dev/zero named like entries must neither hang them nor be read.
  TempDir d;
  KernelCache(d.path.string()).put(key("real"), blob(100, 1));
  ASSERT_EQ(::mkfifo((d.path / "fifo").c_str(), 0644), 0);
  ASSERT_EQ(::mkfifo((d.path / "00000000000000f1.tgck").c_str(), 0644), 0);
  fs::create_symlink(d.path / "fifo", d.path / "00000000000000f2.tgck");
  fs::create_symlink("/dev/zero", d.path / "00000000000000f3.tgck");
  in_child_within(20, [&] {
    KernelCache c(d.path.string());
    const KernelCacheInfo info = c.info();
    if (info.entries != 4 || info.backends.at("llvm") != 1 || info.backends.at("unreadable") != 3) return 30;
    KernelCacheKey other = key("real");
    other.flags = "O2";
    std::string why;
    if (c.get(other, &why).has_value() || why.find("flags changed: O3 -> O2") == std::string::npos) {
      std::fprintf(stderr, "reason: %s\n", why.c_str());
      return 31;
    }
    return 0;
  });
}

TEST(KernelCacheAttack, ADirectoryEveryoneMayWriteIsRefusedUnlessSticky) {
  TempDir d;
  fs::permissions(d.path, fs::perms::all);  // 0777: anyone may replace entries
  {
    KernelCache c(d.path.string());
    testing::internal::CaptureStderr();
    c.put(key("k"), blob(100, 7));
    const std::string err = testing::internal::GetCapturedStderr();
    EXPECT_THAT(err, HasSubstr("writable by every user and not sticky"));
    EXPECT_THAT(err, HasSubstr("chmod +t"));
    EXPECT_TRUE(c.get(key("k")).has_value()) << "still cached in memory";
  }
  EXPECT_TRUE(fs::is_empty(d.path)) << "nothing written into the unsafe directory";
  // A sticky one owned by this user (or root) is used.
  fs::permissions(d.path, fs::perms::all | fs::perms::sticky_bit);
  KernelCache(d.path.string()).put(key("k"), blob(100, 7));
  EXPECT_TRUE(KernelCache(d.path.string()).get(key("k")).has_value());
}

TEST(KernelCacheAttack, InASharedStickyDirectoryAnotherUsersEntryIsNotRead) {
  if (::geteuid() != 0) GTEST_SKIP() << "making a file owned by another user needs root";
  TempDir d;
  fs::permissions(d.path, fs::perms::all | fs::perms::sticky_bit);
  KernelCache(d.path.string()).put(key("k"), blob(100, 8));
  const std::string entry = KernelCache(d.path.string()).entry_path(key("k"));
  ASSERT_EQ(::chown(entry.c_str(), 4242, 4242), 0);  // as if user 4242 had planted it
  KernelCache c(d.path.string());
  std::string why;
  EXPECT_FALSE(c.get(key("k"), &why).has_value());
  EXPECT_THAT(why, HasSubstr("owned by uid 4242"));
  // The same file in a private directory is trusted: the owner chose to share it.
  fs::permissions(d.path, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec);
  EXPECT_TRUE(KernelCache(d.path.string()).get(key("k")).has_value());
}

TEST(KernelCacheAttack, AStickyDirectoryOwnedByAnotherUserIsRefused) {
  if (::geteuid() != 0) GTEST_SKIP() << "making a directory owned by another user needs root";
  TempDir d;
  fs::permissions(d.path, fs::perms::all | fs::perms::sticky_bit);
  ASSERT_EQ(::chown(d.path.c_str(), 4242, 4242), 0);
  KernelCache c(d.path.string());
  testing::internal::CaptureStderr();
  c.put(key("k"), blob(100, 9));
  EXPECT_THAT(testing::internal::GetCapturedStderr(), HasSubstr("owned by uid 4242, not by you or root"));
  EXPECT_TRUE(fs::is_empty(d.path));
}

}  // namespace
}  // namespace tgc
