// The fuzzer's findings (tests/fuzz/regressions/*): each input once crashed, hung or
// tripped a sanitizer. Loading one must now succeed or throw a user error (a
// tgc::Error that is not an InternalError), with the fuzzer's limits.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "frontend/lang/tg_program.h"

namespace tgc::lang {
namespace {

TEST(FuzzRegressions, EachInputLoadsOrFailsCleanly) {
  const std::filesystem::path dir = std::filesystem::path(TGC_SOURCE_DIR) / "tests/fuzz/regressions";
  ASSERT_TRUE(std::filesystem::is_directory(dir)) << dir;
  int count = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (!entry.is_regular_file() || entry.path().filename().string().starts_with(".") ||
        entry.path().filename() == "README.md")
      continue;
    SCOPED_TRACE(entry.path().string());
    std::ifstream in(entry.path(), std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    LoadLimits limits;
    limits.max_elements = int64_t{1} << 20;  // as in tests/fuzz/tg_parser_fuzz.cpp
    limits.allow_load = false;
    limits.max_function_nodes = 2000;
    try {
      load_source(text.str(), "fuzz.tg", FunctionOptions{}, limits);
    } catch (const InternalError& e) {
      ADD_FAILURE() << "internal error: " << e.what();
    } catch (const Error&) {
      // a user error, reported cleanly
    }
    ++count;
  }
  EXPECT_GT(count, 0) << "no regression inputs found in " << dir;
}

// The fuzzer's seeds (tests/fuzz/corpus/) are valid programs, except errors.tg, so the
// fuzzer starts from every construct rather than from the first syntax error.
TEST(FuzzCorpus, SeedsLoad) {
  const std::filesystem::path dir = std::filesystem::path(TGC_SOURCE_DIR) / "tests/fuzz/corpus";
  int count = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    SCOPED_TRACE(entry.path().string());
    std::ifstream in(entry.path(), std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    if (entry.path().filename() == "errors.tg") {
      EXPECT_THROW(load_source(text.str(), entry.path().string()), SourceError);
    } else {
      EXPECT_NO_THROW(load_source(text.str(), entry.path().string()));
    }
    ++count;
  }
  EXPECT_GE(count, 5);
}

}  // namespace
}  // namespace tgc::lang
