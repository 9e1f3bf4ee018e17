// Programs on standard input (`tgc run -`, `tgc show -`, `tgc emit -`): the same results as
// from a file; errors name <stdin> with line and column; relative load() paths start at the
// current folder; an empty input is a program that defines no function.
#include <gtest/gtest.h>

#include "cli/cli_runner.h"

namespace tgc::test {
namespace {

TEST(CliStdin, RunShowAndEmitReadTheProgramFromStandardInput) {
  ScratchDir dir;
  const std::string program = dir.write("p.tg", "x = vector(\"x\")\nf = function([x], [exp(x) * 2])\n");
  CliResult r = run_tgc({"run", "-", "--input", "x=[0, 1]"}, {}, program);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  CliResult from_file = run_tgc({"run", program, "--input", "x=[0, 1]"});
  ASSERT_EQ(from_file.exit_code, 0) << from_file.err;
  // The same outputs (the first line is the timing).
  EXPECT_EQ(r.out.substr(r.out.find('\n')), from_file.out.substr(from_file.out.find('\n')));
  EXPECT_NE(r.out.find("5.43656"), std::string::npos) << r.out;

  r = run_tgc({"show", "-", "--stage", "optimized"}, {}, program);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("exp"), std::string::npos) << r.out;
  r = run_tgc({"emit", "-", "--target", "cpu"}, {}, program);
  EXPECT_EQ(r.exit_code, 0) << r.err;
}

TEST(CliStdin, ErrorsNameStdinWithLineAndColumn) {
  ScratchDir dir;
  const std::string program = dir.write("bad.tg", "x = vector(\"x\")\ny = exp(x +)\n");
  CliResult r = run_tgc({"run", "-"}, {}, program);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("<stdin>:2:"), std::string::npos) << r.err;
}

TEST(CliStdin, AnEmptyInputDefinesNoFunction) {
  ScratchDir dir;
  CliResult r = run_tgc({"run", "-"}, {}, dir.write("empty.tg", ""));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("<stdin> defines no function to run"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace tgc::test
