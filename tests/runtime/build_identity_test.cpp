// build_identity.h: the identity is the GNU build ID of the object holding tgc's code, as
// binutils' readelf reads it from that object's file, and the same on every call.
#include "runtime/build_identity.h"

#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <memory>
#include <string>

namespace tgc {
namespace {

// readelf -n's "Build ID: <hex>" of `path`, or "" when readelf cannot be run.
std::string readelf_build_id(const std::string& path) {
  std::unique_ptr<FILE, int (*)(FILE*)> p(popen(("readelf -n '" + path + "' 2>/dev/null").c_str(), "r"), pclose);
  if (!p) return {};
  char line[512];
  const std::string tag = "Build ID: ";
  while (fgets(line, sizeof line, p.get())) {
    std::string s(line);
    if (auto at = s.find(tag); at != std::string::npos) {
      std::string id = s.substr(at + tag.size());
      while (!id.empty() && (id.back() == '\n' || id.back() == ' ')) id.pop_back();
      return id;
    }
  }
  return {};
}

TEST(BuildIdentity, IsTheLinkersBuildIdOfTheLibrary) {
  Dl_info info;
  ASSERT_NE(dladdr(reinterpret_cast<void*>(&build_identity), &info), 0);
  const std::string expected = readelf_build_id(info.dli_fname);
  if (expected.empty()) GTEST_SKIP() << "readelf (binutils) found no build ID in " << info.dli_fname;
  EXPECT_EQ(build_identity(), expected);
  EXPECT_EQ(&build_identity(), &build_identity());  // computed once
}

}  // namespace
}  // namespace tgc
