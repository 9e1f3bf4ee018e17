// The CLI's last line of defence: every exception becomes a message on stderr and an exit
// code — 2 for the user's errors, 1 (with "internal error" and a plea to report it) for bugs.
#include <gtest/gtest.h>

#include <new>
#include <stdexcept>

#include "frontend/cli/errors.h"
#include "frontend/lang/tg_program.h"
#include "runtime/error.h"

namespace tgc::cli {
namespace {

// Throws `e`, reports it like main() does, and returns (exit code, stderr).
template <typename E>
std::pair<int, std::string> report(const E& e) {
  ::testing::internal::CaptureStderr();
  int code = 0;
  try {
    throw e;
  } catch (...) {
    code = report_current_exception();
  }
  return {code, ::testing::internal::GetCapturedStderr()};
}

TEST(CliErrorReport, SourceErrorsPrintAsTheLanguageWroteThem) {
  lang::SourceError e({"f.tg", 3, 9}, "unknown function 'expp'", "y = expp(x)", "did you mean 'exp'?");
  auto [code, err] = report(e);
  EXPECT_EQ(code, 2);
  EXPECT_EQ(err, std::string(e.what()) + "\n");
  EXPECT_TRUE(err.starts_with("f.tg:3:9: error: unknown function 'expp'")) << err;
}

TEST(CliErrorReport, TgcErrorsAreUserErrors) {
  auto [code, err] = report(ShapeError("shapes (3,) and (4,) differ", "x + y", "check the shapes"));
  EXPECT_EQ(code, 2);
  EXPECT_EQ(err, "tgc: error: shapes (3,) and (4,) differ in x + y\n  hint: check the shapes\n");
  EXPECT_EQ(report(std::bad_alloc()).first, 2);
  EXPECT_NE(report(std::bad_alloc()).second.find("tgc: error: out of memory"), std::string::npos);
}

TEST(CliErrorReport, InternalErrorsExitWith1AndAskForAReport) {
  auto [code, err] = report(InternalError("internal error: a pass broke a type", "fusion.cpp:12",
                                          "this is a bug in tgc; please report it"));
  EXPECT_EQ(code, 1);
  EXPECT_TRUE(err.starts_with("tgc: internal error: a pass broke a type in fusion.cpp:12")) << err;
  EXPECT_EQ(err.find("internal error: internal error"), std::string::npos) << err;
  EXPECT_NE(err.find("this is a bug in tgc, not in your program: please report it"), std::string::npos) << err;
  // Any other exception is a bug too.
  EXPECT_EQ(report(std::out_of_range("vector::at")).first, 1);
  EXPECT_NE(report(std::out_of_range("vector::at")).second.find("tgc: internal error: vector::at"), std::string::npos);
  EXPECT_EQ(report(42).first, 1);
}

}  // namespace
}  // namespace tgc::cli
