// cache_files: exclusive creation refuses links (dangling or not) and existing files, an
// atomic write replaces a link at its name instead of following it, open_regular tells a
// regular file from everything else without blocking, and the directory verdicts.
#include "runtime/cache_files.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <fstream>

namespace tgc::cache_files {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

struct TempDir {
  fs::path path = fs::temp_directory_path() / ("tgc_cache_files_" + std::to_string(::getpid()) + "_" +
                                               ::testing::UnitTest::GetInstance()->current_test_info()->name());
  TempDir() {
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TempDir() { fs::remove_all(path); }
};

std::string contents(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

TEST(CacheFiles, CreateExclusiveRefusesLinksAndExistingFiles) {
  TempDir d;
  const fs::path victim = d.path / "victim", link = d.path / "link", dangling = d.path / "dangling";
  std::ofstream(victim) << "precious";
  fs::create_symlink(victim, link);
  fs::create_symlink(d.path / "would-be-created", dangling);
  for (const fs::path& p : {link, dangling, victim}) {
    errno = 0;
    EXPECT_EQ(create_exclusive(p.string()), -1) << p;
    EXPECT_EQ(errno, EEXIST) << p;
  }
  EXPECT_EQ(contents(victim), "precious");
  EXPECT_FALSE(fs::exists(d.path / "would-be-created"));
  const int fd = create_exclusive((d.path / "new").string());
  ASSERT_GE(fd, 0);
  ::close(fd);
}

TEST(CacheFiles, WriteAtomicallyReplacesALinkAtItsName) {
  TempDir d;
  const fs::path victim = d.path / "victim";
  std::ofstream(victim) << "precious";
  fs::create_symlink(victim, d.path / "entry");
  EXPECT_TRUE(write_atomically(d.path.string(), "entry", {'n', 'e', 'w'}).ok);
  EXPECT_EQ(contents(victim), "precious");
  EXPECT_TRUE(fs::is_regular_file(fs::symlink_status(d.path / "entry")));
  EXPECT_EQ(contents(d.path / "entry"), "new");
  size_t names = 0;
  for (const auto& e : fs::directory_iterator(d.path)) names += e.path().filename() != "victim";
  EXPECT_EQ(names, 1u) << "no temporary file left";
}

TEST(CacheFiles, WriteAtomicallyOntoADirectorySaysWhy) {
  TempDir d;
  fs::create_directories(d.path / "entry");
  const Written w = write_atomically(d.path.string(), "entry", {'x'});
  EXPECT_FALSE(w.ok);
  EXPECT_TRUE(w.name_blocked);
  EXPECT_THAT(w.why, HasSubstr("cannot rename"));
  EXPECT_TRUE(fs::is_directory(d.path / "entry"));
}

TEST(CacheFiles, OpenRegularTellsKindsApart) {
  TempDir d;
  std::ofstream(d.path / "file") << "12345";
  fs::create_symlink(d.path / "file", d.path / "link");
  ASSERT_EQ(::mkfifo((d.path / "fifo").c_str(), 0644), 0);
  fs::create_directories(d.path / "dir");
  Opened file = open_regular((d.path / "file").string(), false);
  EXPECT_EQ(file.status, Opened::Status::Ok);
  EXPECT_EQ(file.size, 5u);
  char buf[5];
  EXPECT_TRUE(read_at(file.fd.get(), 0, buf, 5));
  EXPECT_FALSE(read_at(file.fd.get(), 1, buf, 5)) << "past the end is a short read";
  EXPECT_EQ(open_regular((d.path / "absent").string(), false).status, Opened::Status::Absent);
  Opened link = open_regular((d.path / "link").string(), false);
  EXPECT_EQ(link.status, Opened::Status::Refused);
  EXPECT_THAT(link.why, HasSubstr("symbolic link"));
  EXPECT_THAT(open_regular((d.path / "fifo").string(), false).why, HasSubstr("a FIFO"));
  EXPECT_THAT(open_regular((d.path / "dir").string(), false).why, HasSubstr("a directory"));
}

TEST(CacheFiles, DirectoryVerdicts) {
  TempDir d;
  EXPECT_TRUE(check_dir(d.path.string()).usable);
  EXPECT_FALSE(check_dir(d.path.string()).shared);
  const DirVerdict absent = check_dir((d.path / "absent").string());
  EXPECT_FALSE(absent.usable);
  EXPECT_EQ(absent.why, "");
  std::ofstream(d.path / "file") << "x";
  EXPECT_THAT(check_dir((d.path / "file").string()).why, HasSubstr("not a directory"));
  EXPECT_TRUE(check_dir((d.path / "file").string()).not_directory);
  EXPECT_FALSE(absent.not_directory);
  fs::permissions(d.path, fs::perms::all);
  EXPECT_FALSE(check_dir(d.path.string()).usable);
  fs::permissions(d.path, fs::perms::all | fs::perms::sticky_bit);
  EXPECT_TRUE(check_dir(d.path.string()).usable);
  EXPECT_TRUE(check_dir(d.path.string()).shared);
}

TEST(CacheFiles, MakeDirsCreatesParentsAndIsNotWorldWritable) {
  TempDir d;
  const mode_t old = ::umask(0);  // the worst umask: the mode asked for is what is made
  const std::string why = make_dirs((d.path / "a" / "b" / "c").string());
  ::umask(old);
  EXPECT_EQ(why, "");
  EXPECT_TRUE(fs::is_directory(d.path / "a" / "b" / "c"));
  EXPECT_EQ(fs::status(d.path / "a" / "b" / "c").permissions() & fs::perms::others_write, fs::perms::none);
  EXPECT_EQ(make_dirs((d.path / "a" / "b" / "c").string()), "") << "an existing directory is fine";
  std::ofstream(d.path / "file") << "x";
  EXPECT_THAT(make_dirs((d.path / "file" / "sub").string()), HasSubstr("cannot create"));
}

}  // namespace
}  // namespace tgc::cache_files
