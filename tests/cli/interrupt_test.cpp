// Ctrl-C in `tgc run`: during `--iters N` the loop stops, the timing of the calls made, the
// last outputs and the profile are printed, and tgc exits with 130; during one long call the
// call stops between two nodes and tgc exits with 130 at once (child processes signalled
// once loading is over).
#include <gtest/gtest.h>

#include <chrono>
#include <csignal>
#include <regex>
#include <string>

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

TEST(CliInterrupt, CtrlCStopsALongCall) {
  // 1500 products of 800x800 matrices, one after the other: tens of seconds of work.
  std::string text = "a = matrix(\"a\", dtype=\"float64\")\ny0 = a\n";
  for (int i = 1; i <= 1500; ++i) text += "y" + std::to_string(i) + " = dot(y" + std::to_string(i - 1) + ", a) * 0.00125\n";
  text += "f = function([a], [sum(y1500)])\n";
  ScratchDir dir;
  const std::string program = dir.write("long.tg", text);
  const auto t0 = std::chrono::steady_clock::now();
  CliResult r = run_tgc_signalled({"run", program, "--input", "a=ones((800, 800))"}, SIGINT, 3.0);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_EQ(r.exit_code, 130) << r.err;
  // Loading takes a second or two: on a busy machine the Ctrl-C may still find the compile.
  EXPECT_TRUE(std::regex_search(r.err, std::regex("interrupted \\(Ctrl-C\\) (after 0 of 1 calls|while compiling)")))
      << r.err;
  EXPECT_LT(seconds, 15.0) << "the call ran to its end";
}

}  // namespace
}  // namespace tgc::test
