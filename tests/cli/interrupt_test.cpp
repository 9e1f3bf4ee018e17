// Ctrl-C during `tgc run --iters N`: the loop stops after the call in progress, the timing of
// the calls made, the last outputs and the profile are printed, and tgc exits with 130 (a
// child process signalled mid-loop; the signal comes late enough that loading is over).
#include <gtest/gtest.h>

#include <csignal>
#include <regex>

#include "cli/cli_runner.h"

namespace tgc::test {
namespace {

TEST(CliInterrupt, CtrlCPrintsWhatWasMeasuredAndExits130) {
  ScratchDir dir;
  const std::string program = dir.write("p.tg", "x = vector(\"x\")\nf = function([x], [exp(x) + 1])\n");
  CliResult r = run_tgc_signalled({"run", program, "--iters", "2000000000", "--profile", "--input", "x=[0, 1]"},
                                   SIGINT, 3.0);
  EXPECT_EQ(r.exit_code, 130) << r.err;
  std::smatch m;
  ASSERT_TRUE(std::regex_search(r.err, m, std::regex("interrupted \\(Ctrl-C\\) after ([0-9]+) of 2000000000 calls")))
      << r.err;
  const std::string calls = m[1];
  EXPECT_NE(r.out.find("Looping " + calls + " times took"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Result is [2."), std::string::npos) << "the last call's outputs:\n" << r.out;
  EXPECT_NE(r.err.find("Time in " + calls + " calls to Function.__call__"), std::string::npos)
      << "the profile of the calls made:\n" << r.err;
}

}  // namespace
}  // namespace tgc::test
