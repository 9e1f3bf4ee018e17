// tgc cache info | clear through the binary, on scratch cache directories named by
// --cache-dir or TGC_FLAGS: counts, sizes, the size cap and per-backend counts before and
// after a run fills the cache, clear (and its failure when a name cannot be removed), a path
// that is not a directory, a directory tgc refuses, and a bad action; plus the byte formatting.
#include "frontend/cli/cache_command.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "backends/cpu/cpu_backend.h"
#include "cli/cli_runner.h"

namespace tgc::test {
namespace {

namespace fs = std::filesystem;

// A program with one fused kernel, small enough to compile quickly.
const char* kProgram =
    "x = shared(ones(5, dtype=\"float32\"), name=\"x\")\n"
    "f = function([], exp(x) * 2 + 1)\n";

size_t tgck_files(const std::string& dir) {
  size_t n = 0;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().extension() == ".tgck") ++n;
  return n;
}

TEST(CliCache, InfoOnAnEmptyDirectorySaysZero) {
  ScratchDir cache;
  CliResult r = run_tgc({"cache", "info", "--cache-dir", cache.path()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "cache directory: " + cache.path() +
                       "\nentries: 0\nsize: 0 B (0 bytes)\nsize cap: 2.0 GiB (cache_max_size)\n");
}

TEST(CliCache, RunFillsTheCacheInfoCountsItAndClearEmptiesIt) {
  if (!llvm_backend_available()) GTEST_SKIP() << "built without LLVM: nothing is compiled into the cache";
  ScratchDir scratch, cache;
  const std::string program = scratch.write("p.tg", kProgram);
  CliResult ran = run_tgc({"run", program, "--cache-dir", cache.path()});
  ASSERT_EQ(ran.exit_code, 0) << ran.err;
  const size_t files = tgck_files(cache.path());
  ASSERT_GE(files, 1u);

  CliResult info = run_tgc({"--cache-dir", cache.path(), "cache", "info"});
  ASSERT_EQ(info.exit_code, 0) << info.err;
  EXPECT_NE(info.out.find("entries: " + std::to_string(files) + "\n"), std::string::npos) << info.out;
  // The function's kernels, and its optimized graph (the program cache's one entry).
  EXPECT_NE(info.out.find("  llvm: " + std::to_string(files - 1) + "\n"), std::string::npos) << info.out;
  EXPECT_NE(info.out.find("  program: 1\n"), std::string::npos) << info.out;
  uint64_t bytes = 0;
  for (const auto& e : fs::directory_iterator(cache.path()))
    if (e.path().extension() == ".tgck") bytes += e.file_size();  // not the size record
  EXPECT_NE(info.out.find(" (" + std::to_string(bytes) + " bytes)\n"), std::string::npos) << info.out;

  CliResult clear = run_tgc({"cache", "clear", "--cache-dir", cache.path()});
  ASSERT_EQ(clear.exit_code, 0) << clear.err;
  EXPECT_EQ(clear.out, "removed " + std::to_string(files) + (files == 1 ? " entry" : " entries") + " from " +
                           cache.path() + "\n");
  EXPECT_EQ(tgck_files(cache.path()), 0u);
  EXPECT_TRUE(fs::is_empty(cache.path())) << "the size record goes too";
}

TEST(CliCache, CacheDirComesFromTgcFlagsToo) {
  ScratchDir cache;
  cache.write("0123456789abcdef.tgck", "not a kernel");
  CliResult info = run_tgc({"cache", "info"}, {"TGC_FLAGS=cache_dir=" + cache.path()});
  ASSERT_EQ(info.exit_code, 0) << info.err;
  EXPECT_EQ(info.out, "cache directory: " + cache.path() +
                          "\nentries: 1\nsize: 12 B (12 bytes)\nsize cap: 2.0 GiB (cache_max_size)\n  unreadable: 1\n");
  CliResult clear = run_tgc({"cache", "clear"}, {"TGC_FLAGS=cache_dir=" + cache.path()});
  EXPECT_EQ(clear.out, "removed 1 entry from " + cache.path() + "\n");
  EXPECT_EQ(tgck_files(cache.path()), 0u);
}

TEST(CliCache, TheSizeCapComesFromTheConfig) {
  ScratchDir cache;
  CliResult r = run_tgc({"cache", "info", "--cache-dir", cache.path()}, {"TGC_FLAGS=cache_max_size=500M"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("size cap: 500.0 MiB (cache_max_size)\n"), std::string::npos) << r.out;
  r = run_tgc({"cache", "info", "--cache-dir", cache.path()}, {"TGC_FLAGS=cache_max_size=0"});
  EXPECT_NE(r.out.find("size cap: none (cache_max_size=0)\n"), std::string::npos) << r.out;
}

TEST(CliCache, AMissingDirectoryIsReportedAsNotCreatedYet) {
  ScratchDir scratch;
  const std::string missing = scratch.path() + "/not-yet";
  CliResult r = run_tgc({"cache", "info", "--cache-dir", missing});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("cache directory: " + missing + " (not created yet)\nentries: 0\n"), std::string::npos) << r.out;
  EXPECT_FALSE(fs::exists(missing)) << "info creates nothing";
}

TEST(CliCache, InfoAndClearOnAPathThatIsNotADirectoryAreUserErrors) {
  ScratchDir scratch;
  const std::string file = scratch.write("not-a-dir", "data");
  for (const char* action : {"info", "clear"}) {
    CliResult r = run_tgc({"cache", action, "--cache-dir", file});
    EXPECT_EQ(r.exit_code, 2) << action;
    EXPECT_NE(r.err.find("the kernel cache path " + file + " is a regular file, not a directory"), std::string::npos)
        << r.err;
    EXPECT_NE(r.err.find("hint: set cache_dir (or --cache-dir) to a directory"), std::string::npos) << r.err;
  }
  EXPECT_TRUE(fs::is_regular_file(file)) << "the file is left alone";
}

TEST(CliCache, ClearFailsWithTheReasonWhenAnEntryCannotBeRemoved) {
  ScratchDir cache;
  cache.write("0123456789abcdef.tgck", "not a kernel");
  // A directory in an entry's place: clear never removes recursively, so it stays.
  fs::create_directories(cache.path() + "/fedcba9876543210.tgck/inside");
  CliResult r = run_tgc({"cache", "clear", "--cache-dir", cache.path()});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_EQ(r.out, "removed 1 entry from " + cache.path() + "\n");
  EXPECT_NE(r.err.find("could not remove 1 name of the kernel cache"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(cache.path() + "/fedcba9876543210.tgck: Is a directory"), std::string::npos) << r.err;
  EXPECT_TRUE(fs::is_directory(cache.path() + "/fedcba9876543210.tgck/inside"));
}

TEST(CliCache, InfoSaysWhyADirectoryEveryoneMayWriteIsNotUsed) {
  ScratchDir cache;
  fs::permissions(cache.path(), fs::perms::all);  // 0777, not sticky
  CliResult r = run_tgc({"cache", "info", "--cache-dir", cache.path()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("not used: it is writable by every user and not sticky"), std::string::npos) << r.out;
}

TEST(CliCache, AnEmptyCacheDirIsAUserError) {
  CliResult r = run_tgc({"cache", "info", "--cache-dir", ""});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("cache_dir"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("--cache-dir"), std::string::npos) << r.err;
}

TEST(CliCache, AnUnknownActionIsAUserError) {
  CliResult r = run_tgc({"cache", "purge"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("purge"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("tgc cache --help"), std::string::npos) << r.err;
}

TEST(CliCache, HumanBytes) {
  EXPECT_EQ(cli::human_bytes(0), "0 B");
  EXPECT_EQ(cli::human_bytes(1023), "1023 B");
  EXPECT_EQ(cli::human_bytes(1024), "1.0 KiB");
  EXPECT_EQ(cli::human_bytes(1536 * 1024), "1.5 MiB");
  EXPECT_EQ(cli::human_bytes(uint64_t(3) << 30), "3.0 GiB");
}

}  // namespace
}  // namespace tgc::test
