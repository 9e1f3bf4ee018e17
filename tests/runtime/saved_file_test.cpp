// The saved-file container (runtime/saved_file.h): a round trip keeps the manifest and every
// blob; a changed byte, a truncation, another magic or version, and lengths that claim more
// than the file holds are IOErrors naming the file, never an allocation of what they claim.
#include "runtime/saved_file.h"

#include <filesystem>
#include <fstream>
#include <iterator>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "runtime/error.h"

namespace tgc {
namespace {

using ::testing::HasSubstr;

std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("tgc_saved_file_" + std::to_string(::getpid()) + "_" + name)).string();
}

std::string bytes_of(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

TEST(SavedFile, RoundTripKeepsManifestAndBlobs) {
  const std::string path = temp_path("round.tgf");
  SavedFile f{"{\"kind\": \"x\"}", {"", std::string("a\0b", 3), std::string(100000, 'z')}};
  write_saved_file(path, f);
  EXPECT_TRUE(looks_like_saved_file(path));
  SavedFile back = read_saved_file(path, "test file");
  EXPECT_EQ(back.manifest, f.manifest);
  EXPECT_EQ(back.blobs, f.blobs);
  std::filesystem::remove(path);
}

TEST(SavedFile, EveryDamageIsAnIOErrorNamingTheSource) {
  const std::string path = temp_path("damage.tgf");
  write_saved_file(path, SavedFile{"{}", {"blob one", "blob two"}});
  const std::string good = bytes_of(path);
  std::filesystem::remove(path);
  for (size_t at = 0; at < good.size(); ++at) {
    std::string bad = good;
    bad[at] ^= 0x10;
    try {
      parse_saved_file(bad, "the source", "test file");
      ADD_FAILURE() << "a change at byte " << at << " was read";
    } catch (const IOError& e) {
      EXPECT_THAT(e.what(), HasSubstr("the source")) << at;
    }
  }
  for (size_t n : {size_t{0}, size_t{7}, size_t{12}, good.size() - 1}) EXPECT_THROW(parse_saved_file(good.substr(0, n), "s", "t"), IOError);
  EXPECT_THROW(parse_saved_file(good + "x", "s", "t"), IOError);
}

TEST(SavedFile, AnotherVersionIsNamed) {
  const std::string path = temp_path("version.tgf");
  write_saved_file(path, SavedFile{"{}", {}});
  std::string bytes = bytes_of(path);
  std::filesystem::remove(path);
  bytes[8] = 9;  // the version's low byte
  try {
    parse_saved_file(bytes, "v.tgf", "saved function");
    FAIL();
  } catch (const IOError& e) {
    EXPECT_THAT(e.what(), HasSubstr("format version 9, this tgc reads version 1"));
  }
}

TEST(SavedFile, PathsThatCannotBeReadOrWritten) {
  EXPECT_THROW(read_saved_file(temp_path("absent.tgf"), "t"), IOError);
  EXPECT_THROW(read_saved_file(std::filesystem::temp_directory_path().string(), "t"), IOError);
  EXPECT_THROW(write_saved_file(temp_path("no/such/dir/f.tgf"), SavedFile{}), IOError);
  EXPECT_FALSE(looks_like_saved_file(temp_path("absent.tgf")));
}

}  // namespace
}  // namespace tgc
